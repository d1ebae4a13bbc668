//! A tiny SMTP server on loopback for the tests: it accepts every mail (no TLS, no
//! authentication) and keeps what arrives, so a test reads the mails the server sent.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::net::TcpListener;

/// One mail as it arrived.
#[derive(Clone, Debug)]
pub struct ReceivedMail {
    /// `MAIL FROM`.
    pub from: String,
    /// Every `RCPT TO`.
    pub to: Vec<String>,
    /// The message: headers, a blank line, the body (dot-stuffing undone).
    pub data: String,
}

impl ReceivedMail {
    /// A header's value (continuation lines unfolded), by name in any case.
    pub fn header(&self, name: &str) -> Option<String> {
        let head = self.data.split("\r\n\r\n").next().unwrap_or_default();
        let mut found: Option<String> = None;
        let mut in_it = false;
        for line in head.split("\r\n") {
            if line.starts_with([' ', '\t']) {
                if in_it && let Some(value) = &mut found {
                    value.push(' ');
                    value.push_str(line.trim());
                }
                continue;
            }
            in_it = false;
            if found.is_none()
                && let Some((key, value)) = line.split_once(':')
                && key.eq_ignore_ascii_case(name)
            {
                found = Some(value.trim().to_owned());
                in_it = true;
            }
        }
        found
    }

    /// The body, decoded when it is quoted-printable or base64.
    pub fn body(&self) -> String {
        let body = self
            .data
            .split_once("\r\n\r\n")
            .map(|(_, body)| body)
            .unwrap_or_default();
        if self
            .header("content-transfer-encoding")
            .is_some_and(|value| value.eq_ignore_ascii_case("base64"))
        {
            return String::from_utf8_lossy(&base64_decoded(body)).into_owned();
        }
        let quoted = self
            .header("content-transfer-encoding")
            .is_some_and(|value| value.eq_ignore_ascii_case("quoted-printable"));
        if !quoted {
            return body.to_owned();
        }
        let joined = body.replace("=\r\n", "");
        let mut out = Vec::new();
        let bytes = joined.as_bytes();
        let mut index = 0;
        while index < bytes.len() {
            if bytes[index] == b'='
                && index + 2 < bytes.len()
                && let Ok(byte) = u8::from_str_radix(
                    std::str::from_utf8(&bytes[index + 1..index + 3]).unwrap_or("zz"),
                    16,
                )
            {
                out.push(byte);
                index += 3;
            } else {
                out.push(bytes[index]);
                index += 1;
            }
        }
        String::from_utf8_lossy(&out).into_owned()
    }

    /// The subject, its RFC 2047 encoded words (`=?utf-8?b?...?=`) decoded.
    pub fn subject(&self) -> String {
        let raw = self.header("subject").unwrap_or_default();
        let mut out = String::new();
        let mut last_encoded = false;
        for (index, word) in raw.split(' ').enumerate() {
            let lower = word.to_ascii_lowercase();
            let encoded =
                lower.starts_with("=?utf-8?b?") && lower.ends_with("?=") && word.len() >= 12;
            // White space between two encoded words is not part of the text (RFC 2047).
            if index > 0 && !(encoded && last_encoded) {
                out.push(' ');
            }
            if encoded {
                out.push_str(&String::from_utf8_lossy(&base64_decoded(
                    &word[10..word.len() - 2],
                )));
            } else {
                out.push_str(word);
            }
            last_encoded = encoded;
        }
        out
    }

    /// The first link in the body that starts with `prefix`.
    pub fn link(&self, prefix: &str) -> Option<String> {
        let body = self.body();
        let start = body.find(prefix)?;
        Some(
            body[start..]
                .split(|c: char| c.is_whitespace())
                .next()
                .unwrap_or_default()
                .to_owned(),
        )
    }
}

/// The SMTP server and the mails it received.
pub struct SmtpSink {
    pub addr: SocketAddr,
    mails: Arc<Mutex<Vec<ReceivedMail>>>,
}

impl SmtpSink {
    /// Listens on a free loopback port.
    pub async fn start() -> SmtpSink {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mails: Arc<Mutex<Vec<ReceivedMail>>> = Arc::default();
        let kept = mails.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let kept = kept.clone();
                tokio::spawn(async move {
                    let _ = session(stream, kept).await;
                });
            }
        });
        SmtpSink { addr, mails }
    }

    /// The relay URL `tenka serve --smtp-url` takes for this sink.
    pub fn url(&self) -> String {
        format!("smtp://{}", self.addr)
    }

    /// Every mail received so far.
    pub fn mails(&self) -> Vec<ReceivedMail> {
        self.mails.lock().unwrap().clone()
    }

    /// Waits (in real time, for the sender's task) until `count` mails have arrived; returns
    /// them all.
    pub async fn wait_for(&self, count: usize) -> Vec<ReceivedMail> {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let mails = self.mails();
            if mails.len() >= count {
                return mails;
            }
            assert!(
                Instant::now() < deadline,
                "only {} of {count} mails arrived: {mails:#?}",
                mails.len()
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

/// One client's conversation.
async fn session(
    stream: tokio::net::TcpStream,
    kept: Arc<Mutex<Vec<ReceivedMail>>>,
) -> std::io::Result<()> {
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::new(read);
    write.write_all(b"220 sink.test ESMTP\r\n").await?;
    let (mut from, mut to) = (String::new(), Vec::new());
    let mut line = String::new();
    loop {
        line.clear();
        if lines.read_line(&mut line).await? == 0 {
            return Ok(());
        }
        let command = line.trim_end().to_owned();
        let upper = command.to_ascii_uppercase();
        if upper.starts_with("EHLO") {
            write
                .write_all(b"250-sink.test\r\n250 8BITMIME\r\n")
                .await?;
        } else if upper.starts_with("MAIL FROM:") {
            from = command[10..].trim().trim_matches(['<', '>']).to_owned();
            to.clear();
            write.write_all(b"250 OK\r\n").await?;
        } else if upper.starts_with("RCPT TO:") {
            to.push(command[8..].trim().trim_matches(['<', '>']).to_owned());
            write.write_all(b"250 OK\r\n").await?;
        } else if upper == "DATA" {
            write.write_all(b"354 go on\r\n").await?;
            let mut data = String::new();
            loop {
                line.clear();
                if lines.read_line(&mut line).await? == 0 {
                    return Ok(());
                }
                if line == ".\r\n" {
                    break;
                }
                data.push_str(line.strip_prefix('.').unwrap_or(&line));
            }
            kept.lock().unwrap().push(ReceivedMail {
                from: from.clone(),
                to: to.clone(),
                data,
            });
            write.write_all(b"250 kept\r\n").await?;
        } else if upper == "QUIT" {
            write.write_all(b"221 bye\r\n").await?;
            return Ok(());
        } else {
            write.write_all(b"250 OK\r\n").await?;
        }
    }
}

/// Standard base64 decoded; anything else (line breaks, padding) skipped.
fn base64_decoded(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let mut bits = 0u32;
    let mut count = 0;
    let mut out = Vec::new();
    for sextet in text.bytes().filter_map(value) {
        bits = (bits << 6) | u32::from(sextet);
        count += 6;
        if count >= 8 {
            count -= 8;
            out.push((bits >> count) as u8);
        }
    }
    out
}
