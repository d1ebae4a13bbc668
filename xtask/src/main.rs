//! Project automation, run as `cargo xtask <command>` (an alias in `.cargo/config.toml`).
//!
//! - `serve`: set up what is missing, build everything, start `tenka serve`.
//! - `build`: build the release `tenka` binary, every shipped ruleset component and the web UI.
//! - `lint`: formatting, clippy with warnings denied (the rulesets' determinism bans included),
//!   the docs build and the tidy tests; `test` runs it first.
//! - `test`: the lint, then the whole test suite, browser tests included; what CI runs.
//! - `bench`: the benchmarks; writes `BENCHMARKS.md`.
//! - `fuzz`: the long run of the API fuzzer, the connection flood, and schemathesis against a
//!   real `tenka serve`, its answers checked against the OpenAPI document the server serves.
//! - `mutants`: mutation testing of the Shogun rules with cargo-mutants (slow; not part of CI).
//! - `new-ruleset NAME`: a new ruleset crate from the template (`xtask/template/`) that builds,
//!   lists, simulates and plays before its author writes a rule.

use std::{
    io::BufRead as _,
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};

mod bench_report;
mod duplicates_budget;
mod new_ruleset;
/// The ruleset template as it is, compiled for the test that runs the conformance suite on it.
#[cfg(test)]
#[path = "../template/src/lib.rs"]
mod template_ruleset;
#[cfg(test)]
mod tidy;

/// The WebAssembly target every ruleset is compiled for.
const WASM_TARGET: &str = "wasm32-wasip2";

#[derive(Parser)]
#[command(about = "Tenka project automation")]
struct Cli {
    #[command(subcommand)]
    command: Task,
}

#[derive(Subcommand)]
enum Task {
    /// Install what is missing, build everything, and start the server on ./data.
    Serve {
        /// Arguments passed on to `tenka serve` (after `--`).
        #[arg(last = true)]
        args: Vec<String>,
    },
    /// Build the release binary, the ruleset components and the web UI without starting anything.
    Build,
    /// Check formatting, clippy (warnings denied), the docs build and the tidy tests.
    Lint,
    /// Run the lint, then the whole test suite (what CI runs).
    Test {
        /// Skip the browser tests (they install Debian's chromium when it is missing).
        #[arg(long)]
        no_browser: bool,
    },
    /// Run the benchmarks and write BENCHMARKS.md.
    Bench {
        /// Only the peer benchmark (boardgame.io against tenka serve), printed, not written.
        #[arg(long)]
        peer: bool,
        /// Only the bot-load benchmark (people's moves on `tenka serve` while hard bots think);
        /// its region of BENCHMARKS.md is replaced, the rest of the file kept.
        #[arg(long, conflicts_with = "peer")]
        bot_load: bool,
        /// Only the soak benchmark (turn-based games over simulated days on two server
        /// processes and PostgreSQL, people vanishing); its region of BENCHMARKS.md is replaced,
        /// the rest of the file kept.
        #[arg(long, conflicts_with_all = ["peer", "bot_load"])]
        soak: bool,
        /// How many games the soak benchmark plays.
        #[arg(long, default_value_t = 1_000)]
        soak_games: usize,
        /// How many times the throughput and server benchmarks run; each figure written is the
        /// median of the runs, and the header gives their spread.
        #[arg(long, default_value_t = 3)]
        runs: usize,
    },
    /// Hold the tree's structural duplicates to the budget in duplicates-budget.txt, counted by
    /// the `duplicates` command where the machine has it (`.githooks/pre-commit` runs this).
    Duplicates,
    /// Write a new ruleset crate, rulesets/NAME (and maps/NAME/variants), from the template: a
    /// placeholder game that builds, lists, simulates and plays before its first rule.
    NewRuleset {
        /// The ruleset's folder, package and id: lowercase words joined by hyphens (`my-game`).
        name: String,
    },
    /// Mutation testing of the Shogun rules (engine.rs, decide.rs) against the shogun package's
    /// tests; installs cargo-mutants when it is missing. Results go to target/mutants.out.
    Mutants {
        /// Arguments passed on to `cargo mutants` (after `--`), e.g. `--shard 0/4` or `--list`.
        #[arg(last = true)]
        args: Vec<String>,
    },
    /// The long run of the API fuzzer (60,000 requests; `cargo xtask test` sends 3,000), then
    /// the connection flood with 2,000 connections, then schemathesis (installed from PyPI into
    /// target/schemathesis-venv) against `tenka serve` with its response checks on.
    Fuzz {
        /// How many requests to send.
        #[arg(long, default_value_t = 60_000)]
        requests: u64,
        /// How many test cases schemathesis generates per operation and phase.
        #[arg(long, default_value_t = 100)]
        schemathesis_examples: u32,
        /// How long schemathesis runs, in seconds: it keeps generating cases until then.
        #[arg(long, default_value_t = 600)]
        schemathesis_seconds: u32,
        /// Only the schemathesis run, with this `tenka` binary instead of a fresh debug build
        /// (and the rulesets in target/rulesets as they are).
        #[arg(long)]
        schemathesis_only_with: Option<PathBuf>,
    },
}

fn main() -> Result<()> {
    match Cli::parse().command {
        Task::Serve { args } => serve(&args),
        Task::Build => build(),
        Task::Lint => lint(),
        Task::Test { no_browser } => {
            WHOLE_SUITE.store(true, std::sync::atomic::Ordering::Relaxed);
            let mut phases = Phases::default();
            phases.time("lint (fmt, clippy, docs, tidy)", lint)?;
            let outcome = test(!no_browser, &mut phases);
            let within_budget = phases.report();
            outcome.and(within_budget)
        }
        Task::Bench { peer: true, .. } => {
            build()?;
            print!("{}", peer_bench()?);
            Ok(())
        }
        Task::Bench { bot_load: true, .. } => {
            build()?;
            let section = bot_load_bench()?;
            write_region(
                &bench_report::BOT_LOAD,
                "cargo xtask bench --bot-load",
                &section,
            )
        }
        Task::Bench {
            soak: true,
            soak_games,
            ..
        } => {
            build()?;
            let section = soak_bench(soak_games)?;
            let command = if soak_games == 1_000 {
                "cargo xtask bench --soak".to_owned()
            } else {
                format!("cargo xtask bench --soak --soak-games {soak_games}")
            };
            write_region(&bench_report::SOAK, &command, &section)
        }
        Task::Bench {
            runs, soak_games, ..
        } => bench(runs.max(1), soak_games),
        Task::Mutants { args } => mutants(&args),
        Task::NewRuleset { name } => new_ruleset(&name),
        Task::Duplicates => duplicates_budget::check(&root()),
        Task::Fuzz {
            requests,
            schemathesis_examples,
            schemathesis_seconds,
            schemathesis_only_with,
        } => {
            let binary = match schemathesis_only_with {
                Some(binary) => binary,
                None => {
                    fuzz(requests)?;
                    build_rulesets()?;
                    let mut command = cargo();
                    command.args(["build", "--package", "host", "--bin", "tenka"]);
                    run(command)?;
                    root().join("target/debug/tenka")
                }
            };
            schemathesis(&binary, schemathesis_examples, schemathesis_seconds)
        }
    }
}

/// The workspace root: the parent of this crate's folder.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf()
}

/// Set by `cargo xtask test`: the whole suite builds without incremental compilation.
static WHOLE_SUITE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn cargo() -> Command {
    let mut command = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    command.current_dir(root());
    // The whole suite is mostly a cold build (CI's always is): incremental compilation only
    // slows it and left some 8 GB of session data in the target folder, on a CI disk that is
    // limited. A developer's own `CARGO_INCREMENTAL` wins.
    if WHOLE_SUITE.load(std::sync::atomic::Ordering::Relaxed)
        && std::env::var_os("CARGO_INCREMENTAL").is_none()
    {
        command.env("CARGO_INCREMENTAL", "0");
    }
    command
}

fn run(mut command: Command) -> Result<()> {
    eprintln!("xtask: running {command:?}");
    let status = command
        .status()
        .with_context(|| format!("failed to start {command:?}"))?;
    if !status.success() {
        bail!("{command:?} failed with {status}");
    }
    Ok(())
}

/// Installs the wasm target through rustup when the active toolchain lacks it.
fn ensure_wasm_target() -> Result<()> {
    let output = Command::new("rustup")
        .current_dir(root())
        .args(["target", "list", "--installed"])
        .output()
        .context("rustup is needed to install the wasm32-wasip2 target")?;
    if String::from_utf8_lossy(&output.stdout)
        .lines()
        .any(|l| l.trim() == WASM_TARGET)
    {
        return Ok(());
    }
    let mut add = Command::new("rustup");
    add.current_dir(root()).args(["target", "add", WASM_TARGET]);
    run(add)
}

/// The shipped rulesets: every folder of `rulesets/` except the test-only ones.
fn shipped_rulesets() -> Result<Vec<String>> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(root().join("rulesets")).context("failed to list rulesets/")? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if entry.path().join("Cargo.toml").exists() && !name.ends_with("-for-tests") {
            names.push(name);
        }
    }
    names.sort();
    Ok(names)
}

/// Builds every shipped ruleset to `target/rulesets/<name>.wasm`, where `tenka` looks by default.
fn build_rulesets() -> Result<()> {
    ensure_wasm_target()?;
    let names = shipped_rulesets()?;
    let mut command = cargo();
    command.args(["build", "--target", WASM_TARGET, "--profile", "ruleset"]);
    for name in &names {
        command.args(["--package", name]);
    }
    run(command)?;
    let out_dir = root().join("target/rulesets");
    std::fs::create_dir_all(&out_dir)?;
    for name in &names {
        let file = format!("{}.wasm", name.replace('-', "_"));
        let built = root()
            .join("target")
            .join(WASM_TARGET)
            .join("ruleset")
            .join(&file);
        let shipped = out_dir.join(format!("{name}.wasm"));
        std::fs::copy(&built, &shipped).with_context(|| {
            format!(
                "failed to copy {} to {}",
                built.display(),
                shipped.display()
            )
        })?;
        eprintln!("xtask: ruleset {name} -> {}", shipped.display());
    }
    Ok(())
}

/// Checks the web UI: it is plain ES modules, so building means checking that it is complete.
fn build_web_ui() -> Result<()> {
    let index = root().join("web-ui/index.html");
    if !index.exists() {
        bail!("web-ui/index.html is missing");
    }
    Ok(())
}

fn build() -> Result<()> {
    build_rulesets()?;
    build_web_ui()?;
    let mut command = cargo();
    command.args(["build", "--release", "--package", "host", "--bin", "tenka"]);
    run(command)
}

fn new_ruleset(name: &str) -> Result<()> {
    for path in new_ruleset::create(&root(), name)? {
        eprintln!("xtask: wrote {path}");
    }
    // The names change length as they fill the template: keep the new crate formatted.
    let mut format = cargo();
    format.args(["fmt", "--package", name]);
    if let Err(error) = run(format) {
        eprintln!("xtask: the new crate is not formatted ({error:#}); run `cargo fmt` later");
    }
    eprintln!(
        "xtask: rulesets/{name} plays the template's placeholder game. Next:\n  \
         cargo test -p {name}\n  \
         cargo xtask build && target/release/tenka rulesets && target/release/tenka simulate --ruleset {name} --players 2 --games 10\n  \
         cargo xtask serve   (then pick it in the lobby)\n\
         and write your rules in rulesets/{name}/src/ (docs/sdk.md, \"A new ruleset in an afternoon\")."
    );
    Ok(())
}

fn serve(args: &[String]) -> Result<()> {
    build()?;
    let mut command = Command::new(root().join("target/release/tenka"));
    command.current_dir(root()).arg("serve").args(args);
    run(command)
}

/// The crates whose documentation must build without a warning: what authors and host
/// developers read.
const DOCUMENTED_CRATES: [&str; 5] = ["host", "tenka-runtime", "tenka-game", "tenka-server", "sdk"];

/// The checks that need no test run: formatting, clippy with warnings denied on every crate
/// and target of the workspace, the docs build, and the tidy tests (`xtask/src/tidy.rs`).
///
/// Clippy runs on the whole workspace, rulesets included: each ruleset crate picks up
/// `rulesets/clippy.toml` (clippy reads the nearest one above a crate's manifest), so the
/// determinism bans there (`HashMap`, clocks) fail the lint instead of only advising.
fn lint() -> Result<()> {
    let mut fmt = cargo();
    fmt.args(["fmt", "--all", "--check"]);
    run(fmt).context("the code is not formatted: run `cargo fmt --all`")?;

    let mut clippy = cargo();
    clippy.args([
        "clippy",
        "--workspace",
        "--all-targets",
        "--quiet",
        "--",
        "--deny",
        "warnings",
    ]);
    run(clippy)?;

    let mut doc = cargo();
    doc.args(["doc", "--no-deps", "--quiet"])
        .env("RUSTDOCFLAGS", "--deny warnings");
    for package in DOCUMENTED_CRATES {
        doc.args(["--package", package]);
    }
    run(doc)?;

    let mut tidy = cargo();
    tidy.args(["test", "--quiet", "--package", "xtask", "--", "tidy::"]);
    run(tidy)
}

fn test(browser: bool, phases: &mut Phases) -> Result<()> {
    phases.time("ruleset components (wasm32)", build_rulesets)?;
    // Every workspace member, the rulesets' native tests included, and the `tenka` binary the
    // browser tests serve: compiled first, then run, so the time of each is told apart.
    phases.time("test build", || {
        let mut command = cargo();
        command.args(["test", "--workspace", "--no-run"]);
        run(command)?;
        let mut binary = cargo();
        binary.args(["build", "--package", "host", "--bin", "tenka"]);
        run(binary)
    })?;
    phases.time("Rust tests", || {
        let mut command = cargo();
        command.args(["test", "--workspace", "--no-fail-fast"]);
        run(command)
    })?;
    // The browser tests run after the Rust tests, not beside them: they mostly wait (so their
    // files run three at a time, see run.sh), but beside the Rust tests both slowed down (the
    // Rust tests from 229 s to 496 s) and timing-sensitive checks failed.
    let e2e = root().join("tests/e2e/run.sh");
    if browser && e2e.exists() {
        phases.time("browser tests", || {
            let mut command = Command::new("bash");
            command.current_dir(root()).arg(&e2e);
            run(command)
        })?;
    }
    Ok(())
}

/// What a fresh clone's `target/` may hold after `cargo xtask test`: a fresh clone's held 12.8 GiB
/// a stop before this was set, and a warm working copy 19 GiB (it holds older builds too, so only
/// CI enforces the budget).
const TARGET_BUDGET_GIB: f64 = 24.0;

/// How long each part of `cargo xtask test` took, and how large `target/` came out: what a CI
/// run on two cores and a limited disk is measured by (issue 36).
#[derive(Default)]
struct Phases {
    done: Vec<(&'static str, Duration)>,
}

impl Phases {
    fn time(&mut self, name: &'static str, work: impl FnOnce() -> Result<()>) -> Result<()> {
        let started = Instant::now();
        let outcome = work();
        self.done.push((name, started.elapsed()));
        outcome
    }

    /// Prints the phases and the size of `target/`; in CI (`CI=true`), a `target/` over
    /// [`TARGET_BUDGET_GIB`] fails the run, so a growing build is noticed before the disk fills.
    fn report(&self) -> Result<()> {
        eprintln!("xtask: where the time went");
        let mut total = Duration::ZERO;
        for (name, took) in &self.done {
            total += *took;
            eprintln!("xtask:   {name:<40} {:>6.0} s", took.as_secs_f64());
        }
        eprintln!("xtask:   {:<40} {:>6.0} s", "in all", total.as_secs_f64());
        let target = root().join("target");
        let gib = folder_bytes(&target) as f64 / f64::from(1u32 << 30);
        eprintln!("xtask: target/ holds {gib:.1} GiB (budget {TARGET_BUDGET_GIB} GiB)");
        if gib > TARGET_BUDGET_GIB && std::env::var("CI").is_ok_and(|ci| ci == "true") {
            bail!(
                "target/ holds {gib:.1} GiB, over its budget of {TARGET_BUDGET_GIB} GiB: \
                 something new is building far more than before"
            );
        }
        Ok(())
    }
}

/// The bytes of every file below `path` (links not followed; unreadable entries count 0).
fn folder_bytes(path: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(path) else {
        return 0;
    };
    entries
        .flatten()
        .map(|entry| match entry.file_type() {
            Ok(kind) if kind.is_dir() => folder_bytes(&entry.path()),
            Ok(kind) if kind.is_file() => entry.metadata().map_or(0, |meta| meta.len()),
            _ => 0,
        })
        .sum()
}

/// Replaces one benchmark's region of BENCHMARKS.md with its `section`, keeping the rest.
fn write_region(markers: &bench_report::Markers, command: &str, section: &str) -> Result<()> {
    let region = bench_report::region(markers, &bench_environment(), command, section);
    let old = std::fs::read_to_string(root().join("BENCHMARKS.md")).unwrap_or_default();
    std::fs::write(
        root().join("BENCHMARKS.md"),
        bench_report::put_region(markers, &old, &region),
    )
    .context("failed to write BENCHMARKS.md")?;
    eprintln!("xtask: wrote the region {} of BENCHMARKS.md", markers.begin);
    Ok(())
}

fn bench(runs: usize, soak_games: usize) -> Result<()> {
    build()?;
    // Throughput first, then the server's capacity; BENCHMARKS.md gets both outputs in order,
    // each figure the median of `runs` runs.
    let mut outputs = Vec::new();
    for run in 1..=runs {
        let mut results = String::new();
        for bench in ["throughput", "server"] {
            let mut command = cargo();
            command.args(["bench", "--package", "tests", "--bench", bench]);
            eprintln!("xtask: running {command:?} (run {run} of {runs})");
            let output = command
                .output()
                .with_context(|| format!("failed to run the `{bench}` benchmark"))?;
            if !output.status.success() {
                bail!(
                    "the `{bench}` benchmark failed:\n{}",
                    String::from_utf8_lossy(&output.stderr)
                );
            }
            let printed = String::from_utf8_lossy(&output.stdout);
            print!("{printed}");
            if !results.is_empty() {
                results.push('\n');
            }
            results.push_str(&printed);
        }
        outputs.push(results);
    }
    let merged = bench_report::merge_runs(&outputs);
    let mut results = merged.text.clone();
    // The peer last: boardgame.io and `tenka serve` as separate processes under one load
    // generator.
    let peer = peer_bench()?;
    print!("{peer}");
    results.push('\n');
    results.push_str(&peer);
    // Last, once: people's moves on `tenka serve` while hard bots think, in a region of its own
    // that `cargo xtask bench --bot-load` may rewrite alone.
    let environment = bench_environment();
    let bot_load = bot_load_bench()?;
    results.push('\n');
    results.push_str(&bench_report::region(
        &bench_report::BOT_LOAD,
        &environment,
        "cargo xtask bench",
        &bot_load,
    ));
    // Then the soak: turn-based games over simulated days, in a region of its own that
    // `cargo xtask bench --soak` may rewrite alone.
    let soak = soak_bench(soak_games)?;
    results.push('\n');
    results.push_str(&bench_report::region(
        &bench_report::SOAK,
        &environment,
        "cargo xtask bench",
        &soak,
    ));
    let report = format!("{}\n{results}", bench_report::header(&environment, &merged));
    // The bot tournaments (`tenka arena --markdown`) are not rerun here: keep them.
    let old = std::fs::read_to_string(root().join("BENCHMARKS.md")).unwrap_or_default();
    let report = bench_report::keep_bots_region(&old, &report);
    std::fs::write(root().join("BENCHMARKS.md"), report)
        .context("failed to write BENCHMARKS.md")?;
    eprintln!("xtask: wrote BENCHMARKS.md");
    Ok(())
}

/// The commit, the tools and the machine the benchmarks run with.
fn bench_environment() -> bench_report::BenchEnvironment {
    bench_report::BenchEnvironment {
        commit: commit(),
        rustc: command_output("rustc", &["--version"]),
        node: node_version(),
        machine: std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|info| {
                info.lines()
                    .find(|l| l.starts_with("model name"))
                    .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_owned())
            })
            .unwrap_or_else(|| "unknown CPU".into()),
        cores: std::thread::available_parallelism().map_or(0, |n| n.get()),
        memory: std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|info| {
                let kib: f64 = info
                    .lines()
                    .find_map(|l| l.strip_prefix("MemTotal:"))?
                    .trim()
                    .trim_end_matches("kB")
                    .trim()
                    .parse()
                    .ok()?;
                Some(format!("{:.1} GiB", kib / (1024.0 * 1024.0)))
            })
            .unwrap_or_else(|| "unknown memory".into()),
    }
}

/// The bot-load benchmark (`tests/benches/bot_load.rs`): a real `tenka serve`, people playing
/// while hard bots think; returns its section as printed.
fn bot_load_bench() -> Result<String> {
    let mut command = cargo();
    command.args(["bench", "--package", "tests", "--bench", "bot_load"]);
    eprintln!("xtask: running {command:?}");
    let output = command
        .output()
        .context("failed to run the `bot_load` benchmark")?;
    if !output.status.success() {
        bail!(
            "the `bot_load` benchmark failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let printed = String::from_utf8_lossy(&output.stdout).into_owned();
    print!("{printed}");
    Ok(printed)
}

/// The soak benchmark (`tests/benches/soak.rs`): `games` turn-based games over simulated days
/// on two server processes and PostgreSQL, people vanishing; returns its section as printed.
fn soak_bench(games: usize) -> Result<String> {
    let mut command = cargo();
    command.args(["bench", "--package", "tests", "--bench", "soak", "--"]);
    command.args(["--games", &games.to_string()]);
    eprintln!("xtask: running {command:?}");
    // Its progress goes to the terminal as it runs: a thousand games take minutes.
    command.stderr(std::process::Stdio::inherit());
    let output = command
        .output()
        .context("failed to run the `soak` benchmark")?;
    if !output.status.success() {
        bail!("the `soak` benchmark failed (its output is above)");
    }
    let printed = String::from_utf8_lossy(&output.stdout).into_owned();
    print!("{printed}");
    Ok(printed)
}

/// The first line a command prints, or `unknown` when it cannot run.
fn command_output(program: &str, args: &[&str]) -> String {
    Command::new(program)
        .current_dir(root())
        .args(args)
        .output()
        .ok()
        .filter(|output| output.status.success())
        .and_then(|output| {
            String::from_utf8_lossy(&output.stdout)
                .lines()
                .next()
                .map(|line| line.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown".to_owned())
}

/// The commit measured, marked `-dirty` when the tree has uncommitted changes.
fn commit() -> String {
    let hash = command_output("git", &["rev-parse", "--short", "HEAD"]);
    let dirty = Command::new("git")
        .current_dir(root())
        .args(["status", "--porcelain", "--untracked-files=no"])
        .output()
        .is_ok_and(|output| !output.stdout.is_empty());
    if dirty { format!("{hash}-dirty") } else { hash }
}

/// The levels of the peer benchmark: concurrent games, each a closed loop with no think time.
const PEER_LEVELS: [u32; 4] = [1, 10, 100, 500];
/// Seconds of each level before measuring, and measured.
const PEER_WARMUP_SECONDS: u32 = 2;
const PEER_MEASURE_SECONDS: u32 = 8;

/// A server process of a task (the peer benchmark, the schemathesis run), killed when dropped.
struct PeerServer {
    child: Child,
    addr: String,
}

impl PeerServer {
    /// Starts `command` and waits for the line starting with `ready` that ends with its address.
    fn start(mut command: Command, ready: &str) -> Result<PeerServer> {
        command.stdout(Stdio::piped()).stderr(Stdio::inherit());
        let mut child = command
            .spawn()
            .with_context(|| format!("failed to start {command:?}"))?;
        let stdout = child.stdout.take().context("no stdout")?;
        let (sender, receiver) = std::sync::mpsc::channel();
        let ready = ready.to_owned();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
            {
                if let Some(addr) = line.strip_prefix(&ready) {
                    let _ = sender.send(addr.trim().to_owned());
                }
            }
        });
        let mut server = PeerServer {
            child,
            addr: String::new(),
        };
        server.addr = receiver
            .recv_timeout(Duration::from_secs(60))
            .with_context(|| format!("{command:?} did not say where it serves"))?;
        Ok(server)
    }

    /// The CPU time the process has used so far (user and system, all threads).
    fn cpu_time(&self) -> Duration {
        let stat =
            std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).unwrap_or_default();
        let fields: Vec<u64> = stat
            .rsplit_once(") ")
            .map(|(_, rest)| {
                rest.split_whitespace()
                    .map(|field| field.parse().unwrap_or(0))
                    .collect()
            })
            .unwrap_or_default();
        let ticks = fields.get(11).copied().unwrap_or(0) + fields.get(12).copied().unwrap_or(0);
        Duration::from_millis(ticks * 10)
    }
}

impl Drop for PeerServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One level of the peer benchmark on one server.
struct PeerLevel {
    moves_per_second: f64,
    p50_ms: f64,
    p99_ms: f64,
    /// The server's CPU time over the level's wall time, in cores.
    cores: f64,
}

/// The level at which the Tenka server is profiled (in an extra run, not a measured one).
const PROFILED_LEVEL: u32 = 100;

/// Runs the load generator at one level against `server`; with `profile`, records where the
/// server's time goes meanwhile (`perf record`, when perf is installed) into that file.
fn peer_level(
    peer: &Path,
    kind: &str,
    server: &PeerServer,
    level: u32,
    profile: Option<&Path>,
) -> Result<PeerLevel> {
    let cpu = server.cpu_time();
    let start = Instant::now();
    let mut recording = profile.and_then(|file| {
        Command::new("perf")
            .args(["record", "-F", "499", "-g", "--quiet", "-o"])
            .arg(file)
            .args(["-p", &server.child.id().to_string(), "--", "sleep"])
            .arg((PEER_WARMUP_SECONDS + PEER_MEASURE_SECONDS).to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .ok()
    });
    let output = Command::new("node")
        .current_dir(peer)
        .arg("load.js")
        .arg(kind)
        .arg(&server.addr)
        .arg(level.to_string())
        .arg(PEER_WARMUP_SECONDS.to_string())
        .arg(PEER_MEASURE_SECONDS.to_string())
        .stderr(Stdio::inherit())
        .output()
        .context("failed to run the load generator")?;
    let cores =
        (server.cpu_time().saturating_sub(cpu)).as_secs_f64() / start.elapsed().as_secs_f64();
    if let Some(recording) = recording.as_mut() {
        let _ = recording.wait();
    }
    if !output.status.success() {
        bail!("the load generator failed against {kind} at level {level}");
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let line = text
        .lines()
        .last()
        .context("the load generator printed nothing")?;
    let result: serde_json::Value =
        serde_json::from_str(line).context("the load generator printed no JSON")?;
    let number = |key: &str| result[key].as_f64().unwrap_or(0.0);
    eprintln!("xtask: peer {kind} level {level}: {line}");
    Ok(PeerLevel {
        moves_per_second: number("moves_per_s"),
        p50_ms: number("p50_ms"),
        p99_ms: number("p99_ms"),
        cores,
    })
}

/// The peer benchmark: boardgame.io 0.50.2's server (in-memory storage, socket.io) and
/// `tenka serve` (SQLite, every move durable) play the same tic-tac-toe games under one load
/// generator, level by level; returns the report's section.
fn peer_bench() -> Result<String> {
    let peer = root().join("tests/benches/peer");
    let mut install = Command::new("npm");
    install
        .current_dir(&peer)
        .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"]);
    run(install).context("node and npm are needed for the peer benchmark")?;
    let data = root().join("target/tmp/peer-bench");
    let _ = std::fs::remove_dir_all(&data);
    std::fs::create_dir_all(&data)?;
    let mut bgio = Command::new("node");
    bgio.current_dir(&peer).args(["bgio-server.js", "0"]);
    let mut bgio = PeerServer::start(bgio, "bgio serving on ")?;
    bgio.addr = format!("127.0.0.1:{}", bgio.addr);
    let mut tenka = Command::new(root().join("target/release/tenka"));
    tenka
        .current_dir(root())
        .args(["--rulesets", "target/rulesets", "--maps", "maps", "serve"])
        .args(["--addr", "127.0.0.1:0", "--no-watch", "--bot-pace-ms", "0"])
        .args(["--requests-per-second", "0", "--games-per-minute", "0"])
        // The default caps (20,000 games in memory, 1,024 of them running) keep finished
        // games from filling memory and the instance pool: the least recently used ones are
        // parked, then unloaded.
        .args(["--actions-per-second", "0"])
        .arg("--data")
        .arg(data.join("data"))
        .arg("--web")
        .arg(data.join("no-web-ui"))
        .env("RUST_LOG", "warn");
    let tenka = PeerServer::start(tenka, "tenka serving on http://")?;
    let mut rows = Vec::new();
    let profile = data.join("tenka.perf.data");
    for level in PEER_LEVELS {
        // Alternating, so a disturbance of the machine falls on both sides alike.
        let theirs = peer_level(&peer, "bgio", &bgio, level, None)?;
        let ours = peer_level(&peer, "tenka", &tenka, level, None)?;
        let ours_over_http = peer_level(&peer, "tenka-http", &tenka, level, None)?;
        rows.push((level, theirs, ours, ours_over_http));
    }
    // Profiled in a run of its own: the profiler takes CPU from the machine it measures.
    peer_level(&peer, "tenka", &tenka, PROFILED_LEVEL, Some(&profile))?;
    drop((bgio, tenka));
    let where_time_goes = profile_report(&profile);
    let _ = std::fs::remove_dir_all(&data);

    let mut out = String::from("## Peer: tic-tac-toe on boardgame.io and on Tenka\n\n");
    out.push_str(&format!(
        "boardgame.io 0.50.2's server (Node {}, in-memory storage, socket.io) against `tenka serve` \
         (SQLite, the `tictactoe` component, every move durable before it is answered), both on \
         this machine with the load generator (`tests/benches/peer/load.js`, Node). At each level \
         that many players each play a game in a closed loop with no think time: create a game \
         with both seats (over HTTP, through undici), play its seven moves (each seat takes the \
         lowest free cell), start the next; creating is part of the loop on both sides. A Tenka \
         move is a message on the move socket (`/api/socket`, a WebSocket per player, answered \
         once the move is durable); a boardgame.io move is a socket.io `update` (a WebSocket per \
         player) answered by the server's state update. {PEER_WARMUP_SECONDS} s of warm-up, then \
         {PEER_MEASURE_SECONDS} s measured per level and server; latency is per move, from \
         sending to the answer. Server CPU is the server process's CPU time over the level's \
         wall time, in cores.\n\n",
        node_version()
    ));
    out.push_str(
        "| concurrent games | boardgame.io moves/s | p50 | p99 | CPU | Tenka moves/s | p50 | p99 | CPU | \
         Tenka/bgio moves/s | Tenka/bgio p99 |\n|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    let mut throughput_met = true;
    let mut latency_met = true;
    for (level, theirs, ours, _) in &rows {
        let rate = ratio(ours.moves_per_second, theirs.moves_per_second);
        let p99 = ratio(ours.p99_ms, theirs.p99_ms);
        if *level >= 10 && rate < 2.0 {
            throughput_met = false;
        }
        if p99 >= 1.0 {
            latency_met = false;
        }
        out.push_str(&format!(
            "| {level} | {:.0} | {:.2} ms | {:.2} ms | {:.2} | {:.0} | {:.2} ms | {:.2} ms | {:.2} | {rate:.2}x | {p99:.2}x |\n",
            theirs.moves_per_second,
            theirs.p50_ms,
            theirs.p99_ms,
            theirs.cores,
            ours.moves_per_second,
            ours.p50_ms,
            ours.p99_ms,
            ours.cores,
        ));
    }
    out.push_str(
        "\nThe same Tenka server with each move a `POST /api/games/{id}/actions` (HTTP through \
         undici, keep-alive), measured right after the socket at each level:\n\n\
         | concurrent games | Tenka over HTTP moves/s | p50 | p99 | CPU | over HTTP/bgio moves/s | \
         over HTTP/bgio p99 |\n|---|---|---|---|---|---|---|\n",
    );
    for (level, theirs, _, over_http) in &rows {
        out.push_str(&format!(
            "| {level} | {:.0} | {:.2} ms | {:.2} ms | {:.2} | {:.2}x | {:.2}x |\n",
            over_http.moves_per_second,
            over_http.p50_ms,
            over_http.p99_ms,
            over_http.cores,
            ratio(over_http.moves_per_second, theirs.moves_per_second),
            ratio(over_http.p99_ms, theirs.p99_ms),
        ));
    }
    let verdict = |met: bool| if met { "met" } else { "not met" };
    out.push_str(&format!(
        "\nBudget: Tenka at least 2x boardgame.io's moves/s at 10, 100 and 500 games: {}; \
         p99 below boardgame.io's at every level: {}.\n",
        verdict(throughput_met),
        verdict(latency_met)
    ));
    out.push_str(&where_time_goes);
    Ok(out)
}

/// Tenka's figure over boardgame.io's (a zero of theirs gives a huge ratio, not a division by
/// zero).
fn ratio(ours: f64, theirs: f64) -> f64 {
    ours / theirs.max(f64::MIN_POSITIVE)
}

/// Where the Tenka server's time went at [`PROFILED_LEVEL`] games: its CPU samples by thread
/// and the hottest functions, as a text flame graph's top (from `perf report`).
fn profile_report(file: &Path) -> String {
    let mut out =
        format!("\n### Where a move's time goes: `tenka serve` at {PROFILED_LEVEL} games\n\n");
    if !file.exists() {
        out.push_str("perf is not installed (or may not profile here): no profile.\n");
        return out;
    }
    out.push_str(
        "CPU samples of the server process (`perf record -F 499 -g` over an extra, unmeasured run of the level), by thread \
         and then by function (self time). Threads: `tokio-rt-worker` is both the async reactor \
         (HTTP, JSON, the hub) and the blocking pool running the component (tokio names them \
         alike), `tenka-db-writer` the SQLite writer (its statements and the disk sync), \
         `sqlx-sqlite-wor` the pool's reads. \
         `perf report -i <file> --no-children` on the data gives the full call graph.\n\n",
    );
    for (title, sort, limit) in [("thread", "comm", "1"), ("function", "dso,sym", "1.5")] {
        let Ok(output) = Command::new("perf")
            .args([
                "report",
                "--stdio",
                "--no-children",
                "-g",
                "none",
                "--percent-limit",
            ])
            .arg(limit)
            .args(["--sort", sort, "-i"])
            .arg(file)
            .output()
        else {
            continue;
        };
        out.push_str(&format!("| share of samples | {title} |\n|---|---|\n"));
        for line in String::from_utf8_lossy(&output.stdout).lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let Some((share, what)) = line.split_once(char::is_whitespace) else {
                continue;
            };
            if !share.ends_with('%') {
                continue;
            }
            let what = what.split_whitespace().collect::<Vec<_>>().join(" ");
            out.push_str(&format!("| {share} | `{}` |\n", what.replace('|', "\\|")));
        }
        out.push('\n');
    }
    out
}

/// `node --version`, for the report.
fn node_version() -> String {
    command_output("node", &["--version"])
}

/// Installs cargo-mutants from crates.io when `cargo mutants` is not available.
fn ensure_cargo_mutants() -> Result<()> {
    let found = cargo()
        .args(["mutants", "--version"])
        .output()
        .is_ok_and(|output| output.status.success());
    if found {
        return Ok(());
    }
    let mut install = cargo();
    install.args(["install", "cargo-mutants", "--locked"]);
    run(install)
}

/// Mutation testing of the rules: which files and which tests are in
/// `.cargo/mutants.toml`, so a plain `cargo mutants` does the same.
fn mutants(args: &[String]) -> Result<()> {
    ensure_cargo_mutants()?;
    let mut command = cargo();
    // The rulesets are not default members of the workspace: name the package.
    command
        .args(["mutants", "--package", "shogun", "--output", "target"])
        .args(args);
    // Every mutant runs the whole suite: a sample of the random games keeps the run to an hour
    // (the rule tests carry the exact outcomes; the random games catch broken invariants).
    command.env("SHOGUN_RANDOM_GAMES", "20");
    run(command)
}

/// Runs the API fuzzer of `tests/it/api_fuzz.rs` with many more requests than the test suite.
fn fuzz(requests: u64) -> Result<()> {
    let mut command = cargo();
    command
        .env("TENKA_FUZZ_REQUESTS", requests.to_string())
        .args([
            "test",
            "--package",
            "tests",
            "--test",
            "it",
            "--",
            "api_fuzz",
            "--nocapture",
        ]);
    run(command)?;
    // The connection flood of the test suite, bigger: 2,000 connections from one address
    // against a cap of 512 while a player on another address makes 1,000 moves.
    let mut command = cargo();
    command
        .env("TENKA_FLOOD_CONNECTIONS", "2000")
        .env("TENKA_FLOOD_CAP", "512")
        .env("TENKA_FLOOD_MOVES", "1000")
        .args([
            "test",
            "--package",
            "tests",
            "--test",
            "it",
            "--",
            "server_connections::one_address_with_hundreds",
            "--nocapture",
        ]);
    run(command)
}

/// The schemathesis release `cargo xtask fuzz` installs: pinned, so a run's findings come from
/// the document and the server, not from a new release of the fuzzer.
const SCHEMATHESIS_VERSION: &str = "4.32.5";

/// Creates a game of the first listed ruleset, every seat a person's, and prints its id, the
/// first seat's token and the host token.
const SCHEMATHESIS_GAME: &str = r#"
import json, sys, urllib.request
base = sys.argv[1]
ruleset = json.load(urllib.request.urlopen(base + "/api/rulesets"))[0]
seats = [{"kind": "human", "creator": True}] * ruleset["min_seats"]
body = json.dumps({"ruleset": ruleset["id"], "seats": seats}).encode()
request = urllib.request.Request(base + "/api/games", body, {"Content-Type": "application/json"})
game = json.load(urllib.request.urlopen(request))
print(game["id"], game["seats"][0]["token"], game["host_token"])
"#;

/// Installs schemathesis into a virtualenv under target/ (once per version) and returns its
/// `st` program, so nothing is installed by hand or system-wide.
fn ensure_schemathesis() -> Result<PathBuf> {
    let venv = root().join("target/schemathesis-venv");
    let st = venv.join("bin/st");
    let installed = Command::new(&st)
        .arg("--version")
        .output()
        .is_ok_and(|output| {
            String::from_utf8_lossy(&output.stdout).contains(&format!(" {SCHEMATHESIS_VERSION}"))
        });
    if installed {
        return Ok(st);
    }
    let mut create = Command::new("python3");
    create.args(["-m", "venv"]).arg(&venv);
    run(create).context("python3 with its venv module is needed for schemathesis")?;
    let mut install = Command::new(venv.join("bin/pip"));
    install
        .args(["install", "--quiet", "--disable-pip-version-check"])
        .arg(format!("schemathesis=={SCHEMATHESIS_VERSION}"));
    run(install)?;
    Ok(st)
}

/// Runs schemathesis against `binary` serving on a free loopback port with a fresh data folder
/// and the built rulesets, every check on (status codes, content types, headers and bodies
/// against the document the server serves at `/api/openapi.json`, and that valid requests are
/// accepted and invalid ones refused). Fails when schemathesis finds anything.
///
/// The server's rate limits are off: schemathesis sends thousands of requests from one
/// address, and the 429s would hide every other answer.
fn schemathesis(binary: &Path, examples: u32, seconds: u32) -> Result<()> {
    let st = ensure_schemathesis()?;
    let work = root().join("target/tmp/schemathesis");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work)?;
    let mut tenka = Command::new(binary);
    tenka
        .current_dir(root())
        .args(["serve", "--addr", "127.0.0.1:0", "--no-watch"])
        .args([
            "--rulesets",
            "target/rulesets",
            "--maps",
            "maps",
            "--web",
            "web-ui",
        ])
        .args(["--bot-pace-ms", "0", "--requests-per-second", "0"])
        .args(["--games-per-minute", "0", "--actions-per-second", "0"])
        .arg("--data")
        .arg(work.join("data"))
        .env("RUST_LOG", "warn");
    let server = PeerServer::start(tenka, "tenka serving on http://")?;
    // A real game for the operations on `/api/games/{id}`: made-up ids are only ever 404.
    let mut create = Command::new(root().join("target/schemathesis-venv/bin/python"));
    create
        .args(["-c", SCHEMATHESIS_GAME])
        .arg(format!("http://{}", server.addr));
    let output = create
        .output()
        .context("failed to create a game for schemathesis")?;
    if !output.status.success() {
        bail!(
            "failed to create a game for schemathesis: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let created = String::from_utf8_lossy(&output.stdout).into_owned();
    let [game, seat_token, host_token] = created.split_whitespace().collect::<Vec<_>>()[..] else {
        bail!("creating a game for schemathesis printed {created:?}");
    };
    let mut command = Command::new(st);
    command
        .current_dir(&work)
        .env("TENKA_SCHEMATHESIS_GAME", game)
        .env("TENKA_SCHEMATHESIS_SEAT_TOKEN", seat_token)
        .env("TENKA_SCHEMATHESIS_HOST_TOKEN", host_token)
        .arg("--config-file")
        .arg(root().join("xtask/schemathesis.toml"))
        .arg("run")
        .arg(format!("http://{}/api/openapi.json", server.addr))
        // Every check is on by default; `--checks all` would also undo what
        // xtask/schemathesis.toml relaxes.
        .args(["--no-color", "--generation-database", "none"])
        .args(["--max-examples", &examples.to_string()])
        .args(["--max-time", &seconds.to_string()])
        .args(["--request-timeout", "40"])
        .args(["--report", "junit", "--report-dir"])
        .arg(work.join("report"));
    let result = run(command);
    drop(server);
    result.context("schemathesis found answers the OpenAPI document does not describe")
}
