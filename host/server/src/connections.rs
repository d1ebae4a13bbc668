//! The serve loop: accepts connections, refuses at once those beyond the caps, and serves the
//! rest with hyper's HTTP/1 connection under deadlines.
//!
//! One client must not be able to take the server down by opening connections and never
//! finishing a request (each costs the server a file descriptor and a read buffer). So:
//! - a request's head must arrive within [`ConnectionLimits::head_timeout`], and an idle
//!   keep-alive connection is closed when its next request has not arrived by then (hyper runs the
//!   same timer for both); a request's body is read inside the request deadline
//!   ([`super::REQUEST_DEADLINE`]);
//! - a request head may be at most [`ConnectionLimits::max_header_bytes`] (hyper answers 431
//!   beyond it, before reading more);
//! - one client address (an IPv6 one by its /64) may hold at most
//!   [`ConnectionLimits::per_address`] open connections, and all clients together at most
//!   [`ConnectionLimits::max_connections`], derived from the process's open-file limit; a
//!   connection beyond either cap is answered 429 or 503 and closed as soon as it is accepted,
//!   never left waiting;
//! - event streams and move sockets, which outlive their request, are counted per address too
//!   ([`StreamSlots`], taken by the [`limit_streams`] middleware).
//!
//! A connection counts against the caps for as long as its socket is open, upgraded or not: the
//! slots live in the socket's wrapper (`CountedIo`).

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::extract::{ConnectInfo, Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse as _, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tower::ServiceExt as _;

use super::error::AppError;
use super::limits::client_address;

/// The caps of the serve loop (`tenka serve --help` names each option).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// How long a client has to send a whole request head, and how long an idle keep-alive
    /// connection stays open waiting for its next request.
    pub head_timeout: Duration,
    /// The largest request head (request line and headers), in bytes; at least 8 KiB.
    pub max_header_bytes: usize,
    /// Open connections one client address may hold; 0 for no cap.
    pub per_address: usize,
    /// Open connections of all clients together; 0 to derive it from the open-file limit.
    pub max_connections: usize,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        ConnectionLimits {
            head_timeout: Duration::from_secs(10),
            max_header_bytes: 32 << 10,
            per_address: 128,
            max_connections: 0,
        }
    }
}

/// File descriptors kept for everything but client connections: the database, served files,
/// ruleset artifacts, the file watcher, the blocking pool's files.
const RESERVED_FILES: u64 = 256;

/// The fewest connections the derived cap allows, however low the open-file limit.
const MIN_CONNECTIONS: u64 = 16;

/// Raises the soft open-file limit to the hard one (the usual soft limit of 1,024 is what let a
/// thousand idle connections starve everyone), and returns the soft limit now in force, if the
/// platform has one.
pub fn raise_open_file_limit() -> Option<u64> {
    let (soft, hard) = rlimit::Resource::NOFILE.get().ok()?;
    if soft < hard {
        match rlimit::increase_nofile_limit(hard) {
            Ok(raised) => return Some(raised),
            Err(error) => tracing::warn!("failed to raise the open-file limit: {error}"),
        }
    }
    Some(soft)
}

/// The connection cap for a process whose soft open-file limit is `open_files`: all of it but
/// `RESERVED_FILES`, so new connections are refused before the process runs out of files.
pub fn connections_for_open_files(open_files: u64) -> usize {
    let cap = open_files
        .saturating_sub(RESERVED_FILES)
        .max(MIN_CONNECTIONS);
    usize::try_from(cap).unwrap_or(usize::MAX)
}

/// Counts what each client address holds open, up to a cap.
pub struct AddressSlots {
    cap: usize,
    held: Mutex<HashMap<IpAddr, usize>>,
}

/// One thing held open by one client address; given back when dropped.
pub struct AddressSlot {
    slots: Arc<AddressSlots>,
    client: IpAddr,
}

impl AddressSlots {
    /// Slots for at most `cap` things per address (0: no cap, but still counted).
    pub fn new(cap: usize) -> Arc<AddressSlots> {
        Arc::new(AddressSlots {
            cap,
            held: Mutex::new(HashMap::new()),
        })
    }

    /// A slot for `address`, or `None` when its client holds the cap already.
    pub fn take(self: &Arc<Self>, address: IpAddr) -> Option<AddressSlot> {
        let client = client_address(address);
        let mut held = self
            .held
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        let count = held.entry(client).or_insert(0);
        if self.cap != 0 && *count >= self.cap {
            return None;
        }
        *count += 1;
        Some(AddressSlot {
            slots: self.clone(),
            client,
        })
    }

    /// How many slots `address`'s client holds.
    pub fn held_by(&self, address: IpAddr) -> usize {
        let held = self
            .held
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        held.get(&client_address(address)).copied().unwrap_or(0)
    }
}

impl Drop for AddressSlot {
    fn drop(&mut self) {
        let mut held = self
            .slots
            .held
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        if let Some(count) = held.get_mut(&self.client) {
            *count -= 1;
            if *count == 0 {
                held.remove(&self.client);
            }
        }
    }
}

/// The event streams and move sockets of each client address (both outlive their request and
/// cost the server work on every move of their game).
pub type StreamSlots = Arc<AddressSlots>;

/// Middleware of the event stream and the move socket: takes a slot of the client's address
/// for as long as the stream or socket is open, or answers 429 when the address holds its cap.
/// The slot goes into the request (the move socket moves it into the upgraded socket) and rides
/// in the response's body (an event stream's body lasts as long as the stream).
pub async fn limit_streams(
    State(slots): State<StreamSlots>,
    mut request: Request,
    next: Next,
) -> Response {
    // In-process callers (tests, tools) have no address: they share one client.
    let address = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::from([0, 0, 0, 0]), |info| info.0.ip());
    let Some(slot) = slots.take(address) else {
        return AppError::TooManyStreams.into_response();
    };
    let slot = Arc::new(slot);
    request.extensions_mut().insert(StreamSlot(slot.clone()));
    let response = next.run(request).await;
    let (parts, body) = response.into_parts();
    let body = futures_util::StreamExt::map(body.into_data_stream(), move |chunk| {
        // The closure owns the slot: it is given back when the body is dropped.
        let _held = &slot;
        chunk
    });
    Response::from_parts(parts, axum::body::Body::from_stream(body))
}

/// A client's slot for one stream or socket, found in the request's extensions.
#[derive(Clone)]
pub struct StreamSlot(pub Arc<AddressSlot>);

/// A client's socket with its slots: the connection counts against the caps until the socket
/// itself is closed, even after an upgrade hands it to the WebSocket layer.
struct CountedIo {
    stream: TcpStream,
    _slots: (AddressSlot, ConnectionSlot),
}

impl AsyncRead for CountedIo {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for CountedIo {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}

/// One open connection in the server-wide count.
struct ConnectionSlot(Arc<AtomicUsize>);

impl ConnectionSlot {
    fn take(open: &Arc<AtomicUsize>, cap: usize) -> Option<ConnectionSlot> {
        open.fetch_update(Ordering::AcqRel, Ordering::Acquire, |count| {
            (count < cap).then_some(count + 1)
        })
        .ok()?;
        Some(ConnectionSlot(open.clone()))
    }
}

impl Drop for ConnectionSlot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The whole answer to a connection beyond the caps, written as it is accepted. It carries the
/// security headers every answer carries.
fn refusal(status: &str, retry_after: u64, message: &str) -> Vec<u8> {
    let body = serde_json::json!({
        "error": if status.starts_with("429") { "rate-limited" } else { "busy" },
        "message": message,
    })
    .to_string();
    let mut head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
         Connection: close\r\nRetry-After: {retry_after}\r\nCache-Control: no-store\r\n",
        body.len()
    );
    for (name, value) in super::SECURITY_HEADERS {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    head.push_str(&body);
    head.into_bytes()
}

/// Answers a connection beyond the caps and closes it, without waiting for anything: the
/// answer fits the new socket's empty send buffer, and what the client already sent is read so
/// that closing does not reset the connection before the answer arrives.
fn refuse(stream: TcpStream, answer: &[u8]) {
    let _ = stream.try_write(answer);
    let mut sink = [0u8; 4096];
    while matches!(stream.try_read(&mut sink), Ok(read) if read > 0) {}
    drop(stream);
}

/// Serves `router` on `listener` under `limits` until `shutdown` resolves, then lets the open
/// requests finish (for at most 10 s). The client's address reaches handlers as
/// `ConnectInfo<SocketAddr>`, as with axum's own `serve`.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()> + Send,
) -> io::Result<()> {
    let max_connections = match limits.max_connections {
        0 => raise_open_file_limit().map_or(usize::MAX, connections_for_open_files),
        cap => cap,
    };
    let max_header_bytes = limits.max_header_bytes.max(8 << 10);
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.head_timeout)
        .max_header_size(max_header_bytes)
        // A head not yet complete grows the read buffer up to this size; beyond it hyper answers
        // 431. Without it a partial head could hold 400 KiB.
        .max_buf_size(max_header_bytes)
        .keep_alive(true);
    let per_address = AddressSlots::new(limits.per_address);
    let open = Arc::new(AtomicUsize::new(0));
    let too_many = refusal(
        "429 Too Many Requests",
        1,
        "this address has too many connections open; close some and try again",
    );
    let full = refusal(
        "503 Service Unavailable",
        1,
        "the server has too many connections open; try again",
    );
    let (stop, stopping) = tokio::sync::watch::channel(false);
    let mut shutdown = std::pin::pin!(shutdown);
    let mut last_accept_warning = None::<std::time::Instant>;
    loop {
        let (stream, remote) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    // Out of files (or another passing failure): wait a little instead of
                    // spinning; the connections waiting in the backlog are accepted as soon as
                    // others close.
                    if last_accept_warning.is_none_or(|at: std::time::Instant| at.elapsed() > Duration::from_secs(10)) {
                        tracing::warn!("failed to accept a connection: {error}");
                        last_accept_warning = Some(std::time::Instant::now());
                    }
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let Some(connection_slot) = ConnectionSlot::take(&open, max_connections) else {
            refuse(stream, &full);
            continue;
        };
        let Some(address_slot) = per_address.take(remote.ip()) else {
            refuse(stream, &too_many);
            continue;
        };
        let _ = stream.set_nodelay(true);
        let io = TokioIo::new(CountedIo {
            stream,
            _slots: (address_slot, connection_slot),
        });
        let service = TowerToHyperService::new(router.clone().map_request(
            move |mut request: Request<hyper::body::Incoming>| {
                request.extensions_mut().insert(ConnectInfo(remote));
                request
            },
        ));
        let connection = http.serve_connection(io, service).with_upgrades();
        let mut stopping = stopping.clone();
        tokio::spawn(async move {
            let mut connection = std::pin::pin!(connection);
            tokio::select! {
                _ = connection.as_mut() => return,
                _ = stopping.wait_for(|stop| *stop) => {}
            }
            connection.as_mut().graceful_shutdown();
            let _ = connection.await;
            // The receiver is dropped here, which tells the loop this connection is done.
            drop(stopping);
        });
    }
    drop(listener);
    let _ = stop.send(true);
    drop(stopping);
    let _ = tokio::time::timeout(Duration::from_secs(10), stop.closed()).await;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_gets_its_cap_of_slots_and_gets_them_back() {
        let slots = AddressSlots::new(2);
        let one: IpAddr = "192.0.2.1".parse().unwrap();
        let two: IpAddr = "192.0.2.2".parse().unwrap();
        let first = slots.take(one).unwrap();
        let _second = slots.take(one).unwrap();
        assert!(slots.take(one).is_none());
        assert!(slots.take(two).is_some(), "another address has its own cap");
        drop(first);
        assert_eq!(slots.held_by(one), 1);
        assert!(slots.take(one).is_some());
        // An IPv6 client is one client across its /64.
        let a: IpAddr = "2001:db8::1".parse().unwrap();
        let b: IpAddr = "2001:db8::2".parse().unwrap();
        let _a = slots.take(a).unwrap();
        let _b = slots.take(b).unwrap();
        assert!(slots.take("2001:db8::3".parse().unwrap()).is_none());
    }

    #[test]
    fn the_connection_cap_leaves_files_for_the_rest_of_the_server() {
        assert_eq!(connections_for_open_files(1_024), 768);
        assert_eq!(connections_for_open_files(100), MIN_CONNECTIONS as usize);
    }

    #[test]
    fn a_refusal_is_a_whole_answer_with_the_security_headers() {
        let answer = String::from_utf8(refusal("429 Too Many Requests", 1, "slow down")).unwrap();
        let (head, body) = answer.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 429 Too Many Requests\r\n"));
        assert!(head.contains(&format!("Content-Length: {}\r\n", body.len())));
        assert!(head.contains("Connection: close"));
        for (name, _) in crate::SECURITY_HEADERS {
            assert!(head.contains(name.as_str()), "{name} missing");
        }
        let body: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(body["error"], "rate-limited");
    }
}
