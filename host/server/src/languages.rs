//! The languages the server words things in (mails, an account's choice): the web UI's
//! (`web-ui/i18n/*.json`), English first, the default. Both the accounts and the notices read
//! this list, so it sits below both.

/// The languages, English first (the default).
pub const LANGUAGES: [&str; 5] = ["en", "de", "es", "ro", "ru"];

/// The language of a code (`de`, `DE`), if it is one of [`LANGUAGES`].
pub fn language_of(code: &str) -> Option<&'static str> {
    let code = code.trim().to_ascii_lowercase();
    LANGUAGES.into_iter().find(|language| *language == code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_language_is_known_by_its_code_in_any_case() {
        assert_eq!(language_of("DE"), Some("de"));
        assert_eq!(language_of(" ru "), Some("ru"));
        assert_eq!(language_of("fr"), None);
    }
}
