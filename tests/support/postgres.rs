//! A throw-away PostgreSQL cluster for the tests and the soak benchmark: Debian's `postgresql`
//! is installed when it is missing, and the cluster lives in a temporary folder of its own,
//! stopped and deleted with it.
//!
//! Shared by the integration tests (`it/server_postgres.rs`) and `benches/soak.rs`.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The folder of PostgreSQL's server programs, installing the Debian package if needed.
fn postgres_bin() -> PathBuf {
    let find = || {
        let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .map(|entry| entry.path().join("bin"))
            .filter(|bin| bin.join("pg_ctl").is_file() && bin.join("initdb").is_file())
            .collect();
        found.sort();
        found.pop()
    };
    if let Some(bin) = find() {
        return bin;
    }
    let installed = Command::new("sh")
        .args(["-c", "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=300 postgresql"])
        .status()
        .expect("apt-get runs");
    assert!(installed.success(), "installing postgresql failed");
    find().expect("postgresql is installed")
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Whether this process runs as root, which PostgreSQL refuses to run as.
fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|out| out.stdout.starts_with(b"0\n"))
        .unwrap_or(false)
}

/// Runs a PostgreSQL program, as the `postgres` user when we are root.
fn run_pg(program: &Path, args: &[&str]) {
    let status = if is_root() {
        Command::new("runuser")
            .args(["-u", "postgres", "--"])
            .arg(program)
            .args(args)
            .status()
    } else {
        Command::new(program).args(args).status()
    }
    .expect("a postgres program runs");
    assert!(status.success(), "{} {args:?} failed", program.display());
}

/// A fresh folder under the system's temporary one, named after this process and the time.
fn fresh_dir() -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_nanos());
    let dir = std::env::temp_dir().join(format!("tenka-postgres-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder for the cluster");
    dir
}

/// A throw-away PostgreSQL cluster, stopped and deleted when dropped.
pub struct Cluster {
    bin: PathBuf,
    data: String,
    dir: PathBuf,
    /// Where to connect.
    pub url: String,
}

impl Cluster {
    /// Starts one (installing PostgreSQL first if it is missing).
    pub fn start() -> Cluster {
        let bin = postgres_bin();
        let dir = fresh_dir();
        if is_root() {
            let status = Command::new("chown")
                .args(["-R", "postgres:postgres"])
                .arg(&dir)
                .status()
                .unwrap();
            assert!(status.success());
        }
        let data = dir.join("cluster").display().to_string();
        let socket = dir.display().to_string();
        run_pg(
            &bin.join("initdb"),
            &["-D", &data, "-U", "tenka", "--auth=trust", "-E", "UTF8"],
        );
        let port = free_port();
        let options = format!("-p {port} -k {socket} -c listen_addresses=127.0.0.1 -c fsync=off");
        let log = dir.join("postgres.log").display().to_string();
        run_pg(
            &bin.join("pg_ctl"),
            &["-D", &data, "-l", &log, "-o", &options, "-w", "start"],
        );
        Cluster {
            bin,
            data,
            dir,
            url: format!("postgres://tenka@127.0.0.1:{port}/postgres"),
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let pg_ctl = self.bin.join("pg_ctl");
        let args = ["-D", self.data.as_str(), "-m", "immediate", "stop"];
        let _ = if is_root() {
            Command::new("runuser")
                .args(["-u", "postgres", "--"])
                .arg(&pg_ctl)
                .args(args)
                .status()
        } else {
            Command::new(&pg_ctl).args(args).status()
        };
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
