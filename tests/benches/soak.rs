//! The soak benchmark of issue 33: turn-based games over simulated days with people who vanish
//! at random, on two real server processes sharing one PostgreSQL database and one simulated
//! clock, with a loopback SMTP server reading every mail (`support/soak.rs` says what is played
//! and checked). Fails when any check fails: a game left unfinished, a stalled table, a clock
//! expiry acted on other than once, a mail sent other than once.
//!
//! The ruleset is Goofspiel (the shipped component), three seats and five cards: its bids are
//! simultaneous, so every seat that has not bid is on its own clock and several seats of one
//! table can run out at the same moment, and a game is five decisions per seat, so a thousand
//! of them fit in minutes.
//!
//! Prints its BENCHMARKS.md section on stdout (progress on stderr); `cargo xtask bench` runs it
//! and writes the section between markers of its own, `cargo xtask bench --soak` runs it alone
//! and replaces only that region. Run with `cargo xtask bench --soak [--soak-games N]`, or after
//! `cargo xtask build`: `cargo bench -p tests --bench soak -- --games N`.

#[path = "../support/http1.rs"]
mod http1;
#[path = "../support/postgres.rs"]
mod postgres;
#[allow(
    dead_code,
    reason = "the integration tests' sink; the soak reads the mails' recipients and subjects only"
)]
#[path = "../it/smtp_sink.rs"]
mod smtp_sink;
#[path = "../support/soak.rs"]
mod soak;

use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result, bail};
use serde_json::json;

/// Games by default: issue 33's thousand.
const GAMES: usize = 1_000;
/// The share of seats whose person vanishes.
const VANISH_SHARE: f64 = 0.3;
/// The table's pace: hours per move, no extra days.
const MOVE_HOURS: i64 = 4;
/// Concurrent clients per server.
const CLIENTS: usize = 8;
/// Accounts per seat of the table.
const ACCOUNTS_PER_SEAT: usize = 8;

/// The workspace root, where `target/rulesets` is.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests package lives in the workspace")
        .to_path_buf()
}

/// The games asked for by `--games N`, or [`GAMES`].
fn games_asked() -> Result<usize> {
    let args: Vec<String> = std::env::args().collect();
    match args.iter().position(|arg| arg == "--games") {
        Some(at) => args
            .get(at + 1)
            .context("--games needs a number")?
            .parse()
            .context("--games needs a number"),
        None => Ok(GAMES),
    }
}

/// Mebibytes, from KiB.
fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

fn section(report: &soak::SoakReport) -> String {
    let minutes = report.wall.as_secs_f64() / 60.0;
    let mut out = String::from("## Server: a soak of turn-based games over simulated days\n\n");
    out.push_str(&format!(
        "{} turn-based games of Goofspiel (the shipped component; 3 seats, 5 cards, simultaneous \
         bids) on two `tenka-test-server` processes (the `tenka serve` of the release build with \
         its clocks on a simulated time both share) over one PostgreSQL database, mails to a \
         loopback SMTP server. Each table: {MOVE_HOURS} hours per move, no extra days, a random \
         bot takes the seat of a person out of time. Each seat belongs to one of {} accounts \
         that ask for every notice by mail; its person answers through the HTTP API 0 to {} \
         hours after first seeing the turn, or, for {:.0} % of the seats, vanishes for good at a \
         random move. The clock moves an hour at a time; after each step the run waits until every \
         clock due was acted on and every mail due sent (as an hour of real time would let \
         them), then reads `/api/health`. {CLIENTS} clients per server, \
         alternating servers between steps.\n\n",
        report.games,
        ACCOUNTS_PER_SEAT * 3,
        MOVE_HOURS - 2,
        VANISH_SHARE * 100.0,
    ));
    out.push_str("| check | result |\n|---|---|\n");
    out.push_str(&format!(
        "| games finished | {} of {} |\n",
        report.finished, report.games
    ));
    out.push_str(&format!(
        "| stalled tables (`/api/health`, after each step and at the end) | {} |\n",
        report.max_stalled
    ));
    out.push_str(&format!(
        "| seats whose person vanished / handed to a bot once | {} / {} ({} by one process, {} \
         by the other; {} handed over twice or wrongly) |\n",
        report.vanished_seats,
        report.handovers_by_process.iter().sum::<usize>(),
        report.handovers_by_process[0],
        report.handovers_by_process[1],
        report.wrong_handovers.len(),
    ));
    out.push_str(&format!(
        "| records: person's moves, then the bot's, per seat | {} of {} seats as expected ({} \
         moves by people, {} by bots) |\n",
        report.seats - report.wrong_records.len(),
        report.seats,
        report.person_moves,
        report.bot_moves,
    ));
    let kinds: Vec<String> = report
        .mails_by_kind
        .iter()
        .map(|(kind, count)| format!("{count} {kind}"))
        .collect();
    out.push_str(&format!(
        "| mails received once each / recorded as sent | {} / {} ({}); {} received other than \
         once |\n",
        report.mails_by_kind.values().sum::<usize>(),
        report.mails_recorded_sent,
        kinds.join(", "),
        report.wrong_mails.len(),
    ));
    let outbox: Vec<String> = report
        .outbox
        .iter()
        .map(|(state, count)| format!("{count} {state}"))
        .collect();
    out.push_str(&format!(
        "| outbox at the end | {} |\n\n",
        outbox.join(", ")
    ));
    out.push_str("| figure | value |\n|---|---|\n");
    out.push_str(&format!(
        "| wall-clock time | {:.1} s |\n| games per minute | {:.0} |\n| simulated time | {} \
         hours in {} steps |\n| longest wait for the clocks due after a step | {:.2} s |\n\
         | longest wait for the clocks and mails due after a step | {:.2} s |\n\
         | mails still going out after the last game ended, for | {:.1} s |\n",
        report.wall.as_secs_f64(),
        report.games as f64 / minutes.max(1e-9),
        report.simulated_hours,
        report.steps,
        report.longest_settle.as_secs_f64(),
        report.longest_mail_settle.as_secs_f64(),
        report.mail_drain.as_secs_f64(),
    ));
    for (index, (rss, peak)) in report.rss_kib.iter().enumerate() {
        out.push_str(&format!(
            "| server process {} memory (RSS at the end, peak) | {:.1} MiB, {:.1} MiB |\n",
            index + 1,
            mib(*rss),
            mib(*peak)
        ));
    }
    out.push_str(
        "\nWall-clock time includes starting PostgreSQL and both servers, the accounts' sign-ups \
         (argon2id) and the checks at the end.\n",
    );
    out
}

fn main() -> Result<()> {
    // `cargo bench` passes `--bench`; a test build of the benches runs this binary without it.
    if !std::env::args().any(|arg| arg == "--bench") {
        println!("soak: a benchmark; run it with `cargo bench -p tests --bench soak`");
        return Ok(());
    }
    let root = root();
    let component = root.join("target/rulesets/goofspiel.wasm");
    if !component.exists() {
        bail!("target/rulesets/goofspiel.wasm is missing: build it first with `cargo xtask build`");
    }
    let work_dir = root.join("target/tmp/soak-bench");
    let _ = std::fs::remove_dir_all(&work_dir);
    // The one component in a folder of its own: the servers compile nothing else.
    let rulesets = work_dir.join("rulesets");
    std::fs::create_dir_all(&rulesets)?;
    std::fs::copy(&component, rulesets.join("goofspiel.wasm"))?;
    let config = soak::SoakConfig {
        games: games_asked()?,
        server_binary: PathBuf::from(env!("CARGO_BIN_EXE_tenka-test-server")),
        rulesets_dir: Some(rulesets),
        maps_dir: root.join("maps"),
        ruleset: "goofspiel".to_owned(),
        map: None,
        options: json!({ "cards": 5 }),
        seats: 3,
        vanish_share: VANISH_SHARE,
        move_hours: MOVE_HOURS,
        accounts_per_seat: ACCOUNTS_PER_SEAT,
        clients: CLIENTS,
        seed: 33,
        work_dir: work_dir.clone(),
    };
    let tokio = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let report = tokio.block_on(soak::run(&config))?;
    drop(tokio);
    let _ = std::fs::remove_dir_all(&work_dir);
    if !report.passed() {
        bail!("the soak failed:\n{}", report.failures());
    }
    print!("{}", section(&report));
    Ok(())
}
