//! What a ruleset's boards need so that clients can read them in any language: text escaped for
//! SVG, and the attributes that let a client replace a text with the catalogue template in the
//! reader's language (`data-msg`, `data-args`; see docs/sdk.md, "Presentation").

use crate::{Message, MessageArg};

/// Escapes text for an SVG text node or attribute value, quoted with either quote.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            _ => out.push(c),
        }
    }
    out
}

/// The attributes that make a `<text>` element translatable, escaped:
/// `data-msg="key" data-args='{...}'`. The arguments are a JSON object: numbers and texts as
/// plain values, seats as `{"seat": n}`, other keys as `{"key": "..."}`.
pub fn message_attributes(message: &Message) -> String {
    let mut args = serde_json::Map::new();
    for (name, arg) in &message.args {
        let value = match arg {
            MessageArg::Text(text) => serde_json::Value::from(text.clone()),
            MessageArg::Number(n) => serde_json::Value::from(*n),
            MessageArg::Seat(seat) => serde_json::json!({ "seat": seat }),
            MessageArg::Key(key) => serde_json::json!({ "key": key }),
        };
        args.insert(name.clone(), value);
    }
    format!(
        r#"data-msg="{}" data-args='{}'"#,
        escape(&message.key),
        escape(&serde_json::Value::Object(args).to_string())
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_becomes_attributes_a_client_can_parse_whatever_its_text() {
        let message = Message::new("log.o'brien")
            .arg("who", MessageArg::Seat(2))
            .arg("n", MessageArg::Number(3))
            .arg("card", MessageArg::Key("card.<rice & tea>".into()))
            .arg("note", MessageArg::Text("it's \"fine\"".into()));
        assert_eq!(
            message_attributes(&message),
            "data-msg=\"log.o&apos;brien\" data-args='{&quot;card&quot;:{&quot;key&quot;:\
             &quot;card.&lt;rice &amp; tea&gt;&quot;},&quot;n&quot;:3,&quot;note&quot;:\
             &quot;it&apos;s \\&quot;fine\\&quot;&quot;,&quot;who&quot;:{&quot;seat&quot;:2}}'"
        );
    }
}
