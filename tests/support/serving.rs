//! Waiting for a server process to say where it serves: shared by the `it` tests and the
//! benchmarks that run real server processes.

use std::io::BufRead as _;
use std::process::ChildStdout;
use std::time::Duration;

/// What a server prints once it listens, before its address.
const READY: &str = "tenka serving on http://";

/// Reads a server process's output on a thread of its own, handing every line to `each_line`
/// until the process closes it; returns the address the server says it serves on, or `None` if
/// it says nothing of the kind within `within`.
pub fn serving_address(
    stdout: ChildStdout,
    within: Duration,
    mut each_line: impl FnMut(&str) + Send + 'static,
) -> Option<String> {
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            if let Some(addr) = line.strip_prefix(READY) {
                let _ = sender.send(addr.trim().to_owned());
            }
            each_line(&line);
        }
    });
    receiver.recv_timeout(within).ok()
}
