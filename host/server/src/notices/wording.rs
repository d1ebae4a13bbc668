//! The mails' words in every language the web UI offers (`web-ui/i18n/*.json`): the account's
//! chosen language, else the one of the request that made it, else English. A mail says only
//! which game, which seat and what happened (see the module above); the ruleset is named by its
//! id, as the server knows no display name of its own.

use super::Kind;

/// One language's words. `{ruleset}`, `{game}`, `{seat}`, `{n}`, `{hours}` and `{url}` are
/// filled in.
struct Words {
    your_turn: (&'static str, &'static str),
    reminder: (&'static str, &'static str),
    replaced: (&'static str, &'static str),
    returned: (&'static str, &'static str),
    ended: (&'static str, &'static str),
    seat: &'static str,
    open: &'static str,
    or_sign_in: &'static str,
    footer: &'static str,
}

const ENGLISH: Words = Words {
    your_turn: (
        "Your turn in {ruleset} game {game}",
        "It is your turn ({seat}) in the {ruleset} game {game}.",
    ),
    reminder: (
        "Your time is running out in {ruleset} game {game}",
        "Your turn ({seat}) in the {ruleset} game {game} is still waiting and its clock is \
         running out; when it does, a bot takes the seat.",
    ),
    replaced: (
        "A bot took {seat} in {ruleset} game {game}",
        "A bot now plays {seat} in the {ruleset} game {game}.",
    ),
    returned: (
        "A player is back in {ruleset} game {game}",
        "The player of {seat} took the seat back from the bot in the {ruleset} game {game}.",
    ),
    ended: (
        "The {ruleset} game {game} is over",
        "The {ruleset} game {game} is over; see the result.",
    ),
    seat: "seat {n}",
    open: "Open the game (this link signs you in once, for {hours} hours):",
    or_sign_in: "Or sign in at {url}",
    footer: "You get this because your Tenka account asked for notices by mail. Stop all of \
             them with one click:",
};

const GERMAN: Words = Words {
    your_turn: (
        "Du bist am Zug in der {ruleset}-Partie {game}",
        "Du bist am Zug ({seat}) in der {ruleset}-Partie {game}.",
    ),
    reminder: (
        "Deine Zeit läuft ab in der {ruleset}-Partie {game}",
        "Dein Zug ({seat}) in der {ruleset}-Partie {game} steht noch aus und deine Uhr läuft \
         ab; ist sie abgelaufen, übernimmt ein Bot den Platz.",
    ),
    replaced: (
        "Ein Bot hat {seat} übernommen in der {ruleset}-Partie {game}",
        "Ein Bot spielt jetzt {seat} in der {ruleset}-Partie {game}.",
    ),
    returned: (
        "Jemand ist zurück in der {ruleset}-Partie {game}",
        "Die Person auf {seat} hat den Platz vom Bot zurückgenommen in der {ruleset}-Partie \
         {game}.",
    ),
    ended: (
        "Die {ruleset}-Partie {game} ist beendet",
        "Die {ruleset}-Partie {game} ist beendet; sieh dir das Ergebnis an.",
    ),
    seat: "Platz {n}",
    open: "Partie öffnen (dieser Link meldet dich einmal an, {hours} Stunden lang):",
    or_sign_in: "Oder melde dich an unter {url}",
    footer: "Du bekommst diese Mail, weil dein Tenka-Konto Benachrichtigungen per Mail \
             bestellt hat. Alle mit einem Klick abbestellen:",
};

const SPANISH: Words = Words {
    your_turn: (
        "Te toca en la partida {game} de {ruleset}",
        "Te toca ({seat}) en la partida {game} de {ruleset}.",
    ),
    reminder: (
        "Se te acaba el tiempo en la partida {game} de {ruleset}",
        "Tu turno ({seat}) en la partida {game} de {ruleset} sigue esperando y tu reloj se \
         acaba; cuando llegue a cero, un bot ocupará el asiento.",
    ),
    replaced: (
        "Un bot ocupa el {seat} en la partida {game} de {ruleset}",
        "Un bot juega ahora el {seat} en la partida {game} de {ruleset}.",
    ),
    returned: (
        "Un jugador ha vuelto a la partida {game} de {ruleset}",
        "El jugador del {seat} ha recuperado su asiento del bot en la partida {game} de \
         {ruleset}.",
    ),
    ended: (
        "La partida {game} de {ruleset} ha terminado",
        "La partida {game} de {ruleset} ha terminado; mira el resultado.",
    ),
    seat: "asiento {n}",
    open: "Abre la partida (este enlace inicia tu sesión una vez, durante {hours} horas):",
    or_sign_in: "O inicia sesión en {url}",
    footer: "Recibes este correo porque tu cuenta de Tenka pidió avisos por correo. Cancélalos \
             todos con un clic:",
};

const ROMANIAN: Words = Words {
    your_turn: (
        "Este rândul tău în partida {game} de {ruleset}",
        "Este rândul tău ({seat}) în partida {game} de {ruleset}.",
    ),
    reminder: (
        "Timpul tău se termină în partida {game} de {ruleset}",
        "Mutarea ta ({seat}) în partida {game} de {ruleset} încă așteaptă și ceasul tău se \
         termină; când expiră, un bot preia locul.",
    ),
    replaced: (
        "Un bot a preluat {seat} în partida {game} de {ruleset}",
        "Un bot joacă acum {seat} în partida {game} de {ruleset}.",
    ),
    returned: (
        "Un jucător s-a întors în partida {game} de {ruleset}",
        "Jucătorul de pe {seat} și-a luat locul înapoi de la bot în partida {game} de \
         {ruleset}.",
    ),
    ended: (
        "Partida {game} de {ruleset} s-a încheiat",
        "Partida {game} de {ruleset} s-a încheiat; vezi rezultatul.",
    ),
    seat: "locul {n}",
    open: "Deschide partida (acest link te autentifică o singură dată, timp de {hours} de ore):",
    or_sign_in: "Sau autentifică-te la {url}",
    footer: "Primești acest mesaj pentru că contul tău Tenka a cerut notificări prin e-mail. \
             Oprește-le pe toate cu un clic:",
};

const RUSSIAN: Words = Words {
    your_turn: (
        "Ваш ход в партии {game} ({ruleset})",
        "Ваш ход ({seat}) в партии {game} ({ruleset}).",
    ),
    reminder: (
        "Ваше время истекает в партии {game} ({ruleset})",
        "Ваш ход ({seat}) в партии {game} ({ruleset}) всё ещё ждёт, и ваши часы истекают; \
         когда время выйдет, место займёт бот.",
    ),
    replaced: (
        "Бот занял {seat} в партии {game} ({ruleset})",
        "Теперь {seat} в партии {game} ({ruleset}) играет бот.",
    ),
    returned: (
        "Игрок вернулся в партию {game} ({ruleset})",
        "Игрок вернул себе {seat} у бота в партии {game} ({ruleset}).",
    ),
    ended: (
        "Партия {game} ({ruleset}) окончена",
        "Партия {game} ({ruleset}) окончена; посмотрите результат.",
    ),
    seat: "место {n}",
    open: "Открыть партию (ссылка один раз выполнит вход, действует {hours} часа):",
    or_sign_in: "Или войдите на {url}",
    footer: "Вы получили это письмо, потому что ваш аккаунт Tenka подписан на уведомления по \
             почте. Отписаться от всех одним щелчком:",
};

fn words(language: &str) -> &'static Words {
    match language {
        "de" => &GERMAN,
        "es" => &SPANISH,
        "ro" => &ROMANIAN,
        "ru" => &RUSSIAN,
        _ => &ENGLISH,
    }
}

/// A mail's subject and body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MailText {
    pub subject: String,
    pub body: String,
}

/// What a mail says and links to.
pub struct MailFacts<'a> {
    pub kind: Kind,
    pub ruleset: &'a str,
    pub game: &'a str,
    pub seat: Option<u32>,
    /// The one-time sign-in link that opens the game at the seat.
    pub open: &'a str,
    /// How long the sign-in link works.
    pub hours: i64,
    /// Where to sign in otherwise.
    pub my_games: &'a str,
    /// The one-click unsubscribe link.
    pub unsubscribe: &'a str,
}

/// The mail in `language` (English for any language mails are not written in).
pub fn mail_text(language: &str, facts: &MailFacts<'_>) -> MailText {
    let words = words(language);
    let seat = facts.seat.map_or(String::new(), |seat| {
        words.seat.replace("{n}", &(seat + 1).to_string())
    });
    let (subject, line) = match facts.kind {
        Kind::YourTurn => words.your_turn,
        Kind::Reminder => words.reminder,
        Kind::Replaced => words.replaced,
        Kind::Returned => words.returned,
        Kind::Ended => words.ended,
    };
    let fill = |text: &str| {
        text.replace("{ruleset}", facts.ruleset)
            .replace("{game}", facts.game)
            .replace("{seat}", &seat)
    };
    let body = format!(
        "{}\n\n{}\n{}\n\n{}\n\n--\n{}\n{}\n",
        fill(line),
        words.open.replace("{hours}", &facts.hours.to_string()),
        facts.open,
        words.or_sign_in.replace("{url}", facts.my_games),
        words.footer,
        facts.unsubscribe,
    );
    MailText {
        subject: fill(subject),
        body,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::languages::LANGUAGES;

    #[test]
    fn every_language_fills_every_placeholder_of_every_kind() {
        for language in LANGUAGES {
            for kind in [
                Kind::YourTurn,
                Kind::Reminder,
                Kind::Replaced,
                Kind::Returned,
                Kind::Ended,
            ] {
                let facts = MailFacts {
                    kind,
                    ruleset: "some-ruleset",
                    game: "g1",
                    seat: Some(1),
                    open: "https://example.org/open",
                    hours: 72,
                    my_games: "https://example.org/#/my-games",
                    unsubscribe: "https://example.org/unsubscribe",
                };
                let text = mail_text(language, &facts);
                for part in [&text.subject, &text.body] {
                    assert!(!part.contains('{'), "{language} {kind:?}: {part}");
                }
                assert!(text.subject.contains("g1"), "{language} {kind:?}");
                assert!(text.body.contains("https://example.org/open"));
                assert!(text.body.contains("https://example.org/unsubscribe"));
                assert!(text.body.contains("72"));
            }
        }
        assert_ne!(
            mail_text("de", &sample()).subject,
            mail_text("en", &sample()).subject
        );
        assert_eq!(mail_text("xx", &sample()), mail_text("en", &sample()));
    }

    fn sample() -> MailFacts<'static> {
        MailFacts {
            kind: Kind::YourTurn,
            ruleset: "r",
            game: "g",
            seat: Some(0),
            open: "o",
            hours: 1,
            my_games: "m",
            unsubscribe: "u",
        }
    }
}
