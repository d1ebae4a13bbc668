//! A small HTTP/1.1 client over one keep-alive connection, for the benchmarks that load a real
//! server (`benches/bot_load.rs`, `benches/soak.rs`): requests with a JSON body and headers,
//! answers with their status, headers and JSON body; every wait bounded.

use std::time::Duration;

use anyhow::{Context as _, Result, bail};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt as _, AsyncReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::net::TcpStream;

/// Any one request waits at most this long for its answer (the server's own deadline).
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// A response head: the status, the headers (names in lower case) and how the body comes.
pub struct Head {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub length: usize,
    pub chunked: bool,
}

/// One keep-alive HTTP/1.1 connection to a server.
pub struct Http {
    addr: String,
    stream: BufReader<TcpStream>,
}

impl Http {
    pub async fn connect(addr: &str) -> Result<Http> {
        let stream = tokio::time::timeout(REQUEST_TIMEOUT, TcpStream::connect(addr))
            .await
            .context("connecting timed out")??;
        stream.set_nodelay(true)?;
        Ok(Http {
            addr: addr.to_owned(),
            stream: BufReader::new(stream),
        })
    }

    /// Sends a request with a JSON body; returns the status and the JSON answer.
    pub async fn request(
        &mut self,
        method: &str,
        path: &str,
        body: Option<&Value>,
    ) -> Result<(u16, Value)> {
        let (head, answer) = self.send(method, path, &[], body).await?;
        Ok((head.status, answer))
    }

    /// Sends a request with these headers and a JSON body; returns the answer's head and its
    /// JSON body (`Null` when not JSON).
    pub async fn send(
        &mut self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<&Value>,
    ) -> Result<(Head, Value)> {
        let exchange = async {
            let body = body.map(Value::to_string).unwrap_or_default();
            let mut request = format!(
                "{method} {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
                 Content-Length: {}\r\n",
                self.addr,
                body.len()
            );
            for (name, value) in headers {
                request.push_str(&format!("{name}: {value}\r\n"));
            }
            request.push_str("\r\n");
            request.push_str(&body);
            self.stream.get_mut().write_all(request.as_bytes()).await?;
            let head = read_head(&mut self.stream).await?;
            let payload = if head.chunked {
                let mut payload = Vec::new();
                while let Some(chunk) = read_chunk(&mut self.stream).await? {
                    payload.extend_from_slice(&chunk);
                }
                payload
            } else {
                let mut payload = vec![0; head.length];
                self.stream.read_exact(&mut payload).await?;
                payload
            };
            let answer = serde_json::from_slice(&payload).unwrap_or(Value::Null);
            Ok((head, answer))
        };
        tokio::time::timeout(REQUEST_TIMEOUT, exchange)
            .await
            .with_context(|| format!("{method} {path} timed out"))?
    }
}

/// Reads a response head.
pub async fn read_head(stream: &mut BufReader<TcpStream>) -> Result<Head> {
    let mut line = String::new();
    if stream.read_line(&mut line).await? == 0 {
        bail!("the server closed the connection");
    }
    let status = line
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .with_context(|| format!("no status in {line:?}"))?;
    let mut head = Head {
        status,
        headers: Vec::new(),
        length: 0,
        chunked: false,
    };
    for _ in 0..100 {
        line.clear();
        if stream.read_line(&mut line).await? == 0 {
            bail!("the server closed the connection in a response head");
        }
        let line = line.trim_end();
        if line.is_empty() {
            return Ok(head);
        }
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let (name, value) = (name.trim().to_ascii_lowercase(), value.trim().to_owned());
        if name == "content-length" {
            head.length = value.parse().context("a bad content length")?;
        }
        if name == "transfer-encoding" && value.to_ascii_lowercase().contains("chunked") {
            head.chunked = true;
        }
        head.headers.push((name, value));
    }
    bail!("a response head of more than 100 lines")
}

/// Reads one chunk of a chunked body; `None` at its end.
pub async fn read_chunk(stream: &mut BufReader<TcpStream>) -> Result<Option<Vec<u8>>> {
    let mut line = String::new();
    if stream.read_line(&mut line).await? == 0 {
        bail!("the server closed the connection in a chunked body");
    }
    let size = usize::from_str_radix(line.trim(), 16).context("a bad chunk size")?;
    let mut chunk = vec![0; size + 2];
    stream.read_exact(&mut chunk).await?;
    chunk.truncate(size);
    Ok((size > 0).then_some(chunk))
}
