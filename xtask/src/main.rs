//! Project automation, run as `cargo xtask <command>` (an alias in `.cargo/config.toml`).
//!
//! - `serve`: set up what is missing, build everything, start `tenka serve`.
//! - `build`: build the release `tenka` binary, every shipped ruleset component and the web UI.
//! - `test`: the whole test suite, browser tests included; what CI runs.
//! - `bench`: the benchmarks; writes `BENCHMARKS.md`.
//! - `fuzz`: the long run of the API fuzzer.
//! - `mutants`: mutation testing of the Shogun rules with cargo-mutants (slow; not part of CI).

use std::{
    path::{Path, PathBuf},
    process::Command,
};

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};

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
    /// Run the whole test suite (what CI runs).
    Test {
        /// Skip the browser tests (they install Debian's chromium when it is missing).
        #[arg(long)]
        no_browser: bool,
    },
    /// Run the benchmarks and write BENCHMARKS.md.
    Bench,
    /// Mutation testing of the Shogun rules (engine.rs, decide.rs) against the shogun package's
    /// tests; installs cargo-mutants when it is missing. Results go to target/mutants.out.
    Mutants {
        /// Arguments passed on to `cargo mutants` (after `--`), e.g. `--shard 0/4` or `--list`.
        #[arg(last = true)]
        args: Vec<String>,
    },
    /// The long run of the API fuzzer (60,000 requests; `cargo xtask test` sends 3,000).
    Fuzz {
        /// How many requests to send.
        #[arg(long, default_value_t = 60_000)]
        requests: u64,
    },
}

fn main() -> Result<()> {
    match Cli::parse().command {
        Task::Serve { args } => serve(&args),
        Task::Build => build(),
        Task::Test { no_browser } => test(!no_browser),
        Task::Bench => bench(),
        Task::Mutants { args } => mutants(&args),
        Task::Fuzz { requests } => fuzz(requests),
    }
}

/// The workspace root: the parent of this crate's folder.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf()
}

fn cargo() -> Command {
    let mut command = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    command.current_dir(root());
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

fn serve(args: &[String]) -> Result<()> {
    build()?;
    let mut command = Command::new(root().join("target/release/tenka"));
    command.current_dir(root()).arg("serve").args(args);
    run(command)
}

fn test(browser: bool) -> Result<()> {
    build_rulesets()?;
    // Every workspace member, the rulesets' native tests included.
    let mut command = cargo();
    command.args(["test", "--workspace", "--no-fail-fast"]);
    run(command)?;
    let e2e = root().join("tests/e2e/run.sh");
    if browser && e2e.exists() {
        let mut command = Command::new("bash");
        command.current_dir(root()).arg(e2e);
        run(command)?;
    }
    Ok(())
}

fn bench() -> Result<()> {
    build()?;
    // Throughput first, then the server's capacity; BENCHMARKS.md gets both outputs in order.
    let mut results = String::new();
    for bench in ["throughput", "server"] {
        let mut command = cargo();
        command.args(["bench", "--package", "tests", "--bench", bench]);
        eprintln!("xtask: running {command:?}");
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
    let machine = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let report = format!(
        "# Benchmarks\n\nProduced by `cargo xtask bench` (release build; {cores} cores, {machine}).\n\
         Ratios compare with a baseline measured in the same run.\n\n{results}"
    );
    std::fs::write(root().join("BENCHMARKS.md"), report)
        .context("failed to write BENCHMARKS.md")?;
    eprintln!("xtask: wrote BENCHMARKS.md");
    Ok(())
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
    run(command)
}
