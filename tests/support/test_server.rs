//! `tenka serve` with the test ruleset of `support/secret_draw.rs` registered natively, so the
//! crash and multi-process tests can run real server processes without building a component.
//!
//! Run with: `cargo run -p tests --bin tenka-test-server -- --addr 127.0.0.1:0 --data DIR`

#[path = "secret_draw.rs"]
mod secret_draw;

use std::sync::Arc;

use clap::Parser;

/// The test server's command line: `tenka serve`'s options and the maps folder.
#[derive(Parser)]
struct Cli {
    /// The folder of maps, one subfolder per ruleset.
    #[arg(long)]
    maps: std::path::PathBuf,
    #[command(flatten)]
    serve: host::server::ServeArgs,
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
    host::server::serve(cli.serve, Arc::new(runtime), None, &cli.maps).await
}
