//! `tenka serve` with the test ruleset of `support/secret_draw.rs` registered natively, so the
//! crash and multi-process tests can run real server processes without building a component.
//!
//! Two options serve the soak benchmark (`tests/benches/soak.rs`): `--rulesets DIR` loads the
//! components of a folder beside the test ruleset, and `--manual-clock MS` runs the table clocks
//! and the mail sender on a simulated clock started at MS (milliseconds since the epoch) that
//! moves only when told on standard input: each line `advance MS` moves it on and is answered
//! `clock NOW` on standard output once done. The end of standard input ends the process, so a
//! driver that dies leaves no server behind.
//!
//! Run with: `cargo run -p tests --bin tenka-test-server -- --addr 127.0.0.1:0 --data DIR`

#[path = "secret_draw.rs"]
mod secret_draw;

use std::io::BufRead as _;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use clap::Parser;
use host::server::clocks::{Clock, ManualClock, SystemClock};

/// The test server's command line: `tenka serve`'s options and the maps folder.
#[derive(Parser)]
struct Cli {
    /// The folder of maps, one subfolder per ruleset.
    #[arg(long)]
    maps: PathBuf,
    /// A folder of ruleset components to load beside the test ruleset.
    #[arg(long)]
    rulesets: Option<PathBuf>,
    /// Run the clocks on a simulated time starting here (milliseconds since the epoch), moved
    /// by `advance MS` lines on standard input.
    #[arg(long, value_name = "MS")]
    manual_clock: Option<i64>,
    #[command(flatten)]
    serve: host::server::ServeArgs,
}

/// Moves `clock` as standard input says, answering each move on standard output; ends the
/// process when standard input ends.
fn follow_stdin(clock: Arc<ManualClock>) {
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines().map_while(Result::ok) {
            let Some(ms) = line
                .strip_prefix("advance ")
                .and_then(|ms| ms.trim().parse::<u64>().ok())
            else {
                eprintln!("tenka-test-server: ignored an unknown clock command: {line:?}");
                continue;
            };
            clock.advance(Duration::from_millis(ms));
            println!("clock {}", clock.now_millis());
        }
        std::process::exit(0);
    });
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()),
        )
        .init();
    let cli = Cli::parse();
    let runtime = host::Runtime::new(host::RuntimeConfig::default())?;
    runtime.register_native(sdk::native::adapt::<secret_draw::SecretDraw>())?;
    if let Some(dir) = &cli.rulesets {
        for report in runtime.load_dir(dir)? {
            if let Some(error) = report.error {
                anyhow::bail!("{} did not load: {error}", report.path.display());
            }
        }
    }
    let clock: Arc<dyn Clock> = match cli.manual_clock {
        Some(start) => {
            let clock = ManualClock::new(start);
            follow_stdin(clock.clone());
            clock
        }
        None => Arc::new(SystemClock),
    };
    host::server::serve_on_clock(cli.serve, Arc::new(runtime), None, &cli.maps, clock)
        .await
        .context("the test server stopped")
}
