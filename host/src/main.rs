//! `tenka`: the Tenka host on the command line.
//!
//! Run with `cargo run -p host --bin tenka -- rulesets`, or for example
//! `tenka simulate --ruleset <id> --players 4 --games 100 --seed 1 --json`.
//!
//! Rulesets are read from `--rulesets DIR` (or `$TENKA_RULESETS`, default `target/rulesets`),
//! maps from `--maps DIR` (or `$TENKA_MAPS`, default `maps`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use anyhow::{Context, Result, anyhow, bail};
use clap::{Args, Parser, Subcommand};
use serde::Serialize;

use host::bots::BotKind;
use host::{GameRecord, LoadedRuleset, Runtime, RuntimeConfig, Session};

/// mimalloc rather than the system allocator: a server's requests, JSON and tasks allocate and
/// free small blocks on many threads, where glibc's malloc spent about a sixth of the server's
/// CPU (BENCHMARKS.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The Tenka host.
#[derive(Parser)]
#[command(name = "tenka", version, about)]
struct Cli {
    #[command(flatten)]
    places: Places,
    #[command(subcommand)]
    command: Command,
}

/// Where rulesets and maps are found.
#[derive(Args, Clone)]
struct Places {
    /// The directory of ruleset components (`*.wasm`) [env: TENKA_RULESETS; default: target/rulesets]
    #[arg(long, global = true)]
    rulesets: Option<PathBuf>,
    /// The directory of maps, one folder per ruleset [env: TENKA_MAPS; default: maps]
    #[arg(long, global = true)]
    maps: Option<PathBuf>,
}

impl Places {
    fn rulesets_dir(&self) -> PathBuf {
        self.rulesets
            .clone()
            .or_else(|| std::env::var_os("TENKA_RULESETS").map(PathBuf::from))
            .unwrap_or_else(|| PathBuf::from("target/rulesets"))
    }

    fn maps_dir(&self) -> PathBuf {
        self.maps
            .clone()
            .or_else(|| std::env::var_os("TENKA_MAPS").map(PathBuf::from))
            .unwrap_or_else(|| PathBuf::from("maps"))
    }
}

#[derive(Subcommand)]
enum Command {
    /// Lists the rulesets that load, and why others do not.
    Rulesets(RulesetsArgs),
    /// Plays bot-only games headless and reports how they went.
    Simulate(SimulateArgs),
    /// Round-robin tournaments between bot kinds: Elo, win rates and thinking time per move.
    Arena(ArenaArgs),
    /// Re-runs a game record and confirms it reaches the same result.
    Replay(ReplayArgs),
    /// Serves games over HTTP (API under /api, web client at /).
    Serve(host::server::ServeArgs),
    /// Checks or draws a map file with its ruleset's own validation.
    #[command(subcommand)]
    Map(MapCommand),
}

#[derive(Subcommand)]
enum MapCommand {
    /// Prints each finding as `file:line:col: severity: message`; exits non-zero on an error.
    Check(MapCheckArgs),
    /// Draws the board of a map as SVG, as a fresh game on it shows it to a spectator.
    Render(MapRenderArgs),
}

#[derive(Args)]
struct MapCheckArgs {
    /// The map file (TOML).
    file: PathBuf,
    /// The ruleset the map is for; default: the map's own `ruleset` field, else the folder it
    /// lies in (`maps/<ruleset>/...`).
    #[arg(long)]
    ruleset: Option<String>,
}

#[derive(Args)]
struct MapRenderArgs {
    /// The map file (TOML).
    file: PathBuf,
    /// Where to write the board: SVG, or PNG when the name ends in `.png`.
    #[arg(short, long)]
    output: PathBuf,
    /// The ruleset the map is for (found as for `map check` when omitted).
    #[arg(long)]
    ruleset: Option<String>,
    /// Seats of the game drawn; default: the ruleset's largest table.
    #[arg(long)]
    players: Option<u32>,
}

#[derive(Args)]
struct ArenaArgs {
    /// The ruleset's id.
    #[arg(long)]
    ruleset: String,
    /// How many seats each game has (several comma-separated counts play one tournament each).
    #[arg(long, value_delimiter = ',')]
    players: Vec<u32>,
    /// A map id of the ruleset, or a path to a map file; default: the ruleset's first map.
    #[arg(long)]
    map: Option<String>,
    /// The kinds that meet, comma-separated; every pairing plays.
    #[arg(
        long,
        default_value = "random,search,easy,normal,hard",
        value_delimiter = ','
    )]
    bots: Vec<String>,
    /// Instead of every pairing, seat this lineup, one kind per seat (comma-separated, e.g.
    /// `hard,search,search`), turned one seat further each game; `--games` is then the number
    /// of games in all.
    #[arg(long, value_delimiter = ',', conflicts_with = "bots")]
    lineup: Vec<String>,
    /// Games per pairing; the two kinds take the seats in turn.
    #[arg(long, default_value_t = 20)]
    games: u64,
    /// The tournament's seed; each game's seed is derived from it.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Also add the results, as Markdown sections, to this file: at the end of its bots region
    /// (BENCHMARKS.md's, kept by `cargo xtask bench`), else at its end.
    #[arg(long, value_name = "FILE.md")]
    markdown: Option<PathBuf>,
    /// Also record every game's result in the game server's ratings (each bot kind as
    /// `bot:<kind>`, on the ladder of the ruleset and player count), so the lobby shows each
    /// bot level's strength beside the people it plays.
    #[arg(long)]
    rate: bool,
    /// With `--rate`: the server's folder for the embedded database.
    #[arg(long, default_value = "data", requires = "rate")]
    data: PathBuf,
    /// With `--rate`: the server's database URL (`postgres://...`) instead of the SQLite file.
    #[arg(long, requires = "rate")]
    database: Option<String>,
}

#[derive(Args)]
struct RulesetsArgs {
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct SimulateArgs {
    /// The ruleset's id.
    #[arg(long)]
    ruleset: String,
    /// How many seats each game has.
    #[arg(long)]
    players: u32,
    /// A map id of the ruleset, or a path to a map file; default: the ruleset's first map.
    #[arg(long)]
    map: Option<String>,
    /// The rules under test: a variant of the ruleset (an id in `maps/<ruleset>/variants/`) or
    /// a variant file; default: the ruleset's defaults.
    #[arg(long, value_name = "VARIANT")]
    variant: Option<String>,
    /// A variant option, as `name=value`, on top of `--variant`; repeatable.
    #[arg(long = "option", value_name = "NAME=VALUE")]
    options: Vec<String>,
    /// Also play the same games (same seeds, same number) under other rules and compare: a
    /// variant id or file, or nothing for the standard rules (the ruleset's defaults).
    #[arg(long, value_name = "VARIANT", num_args = 0..=1, default_missing_value = STANDARD_RULES)]
    baseline: Option<String>,
    /// Write a self-contained HTML balance report (plots inline, nothing fetched) to this file.
    #[arg(long, value_name = "FILE.html")]
    report: Option<PathBuf>,
    /// How many games to play (per rule set), at most 10,000.
    #[arg(long, default_value_t = 100)]
    games: u64,
    /// The simulation's seed; each game's seed is derived from it and the game's number.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// The bot for every seat (random, search, easy, normal or hard), or a comma-separated list
    /// by seat (repeated as needed).
    #[arg(long, default_value = "random")]
    bot: String,
    /// Write each game's record as JSON into this directory.
    #[arg(long)]
    export: Option<PathBuf>,
    /// Worker threads; default 1. `--jobs` alone (or 0) uses every core.
    #[arg(long, alias = "threads", value_name = "N", num_args = 0..=1, default_missing_value = "0")]
    jobs: Option<usize>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

/// The end of BENCHMARKS.md's bots region (xtask's `bench_report::BOTS_END`).
const BOTS_END: &str = "<!-- bots: end -->";

/// What `--baseline` without a value compares with: the ruleset's defaults.
const STANDARD_RULES: &str = "standard rules";

#[derive(Args)]
struct ReplayArgs {
    /// The record file (JSON), as `simulate --export` writes it.
    record: PathBuf,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Rulesets(args) => rulesets(&cli.places, &args),
        Command::Simulate(args) => simulate(&cli.places, &args),
        Command::Arena(args) => arena(&cli.places, &args),
        Command::Replay(args) => replay(&cli.places, &args),
        Command::Serve(args) => serve(&cli.places, args),
        Command::Map(MapCommand::Check(args)) => map_check(&cli.places, &args),
        Command::Map(MapCommand::Render(args)) => map_render(&cli.places, &args),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

/// `tenka serve`: loads the rulesets, then runs the game server until interrupted.
fn serve(places: &Places, args: host::server::ServeArgs) -> Result<()> {
    let (runtime, reports) = load_runtime(places)?;
    for report in reports.iter().filter(|report| report.error.is_some()) {
        eprintln!(
            "note: {} was not loaded: {}",
            report.path.display(),
            report.error.as_deref().unwrap_or("")
        );
    }
    let maps = places.maps_dir();
    let rulesets = places.rulesets_dir();
    tokio::runtime::Runtime::new()
        .context("failed to start the async runtime")?
        .block_on(host::server::serve(
            args,
            Arc::new(runtime),
            Some(&rulesets),
            &maps,
        ))
}

/// A runtime with every component of the rulesets directory loaded.
fn load_runtime(places: &Places) -> Result<(Runtime, Vec<host::LoadReport>)> {
    let runtime = Runtime::new(RuntimeConfig::default())?;
    let dir = places.rulesets_dir();
    let reports = runtime.load_dir(&dir)?;
    Ok((runtime, reports))
}

fn find_ruleset(
    runtime: &Runtime,
    reports: &[host::LoadReport],
    id: &str,
) -> Result<Arc<LoadedRuleset>> {
    if let Some(ruleset) = runtime.ruleset(id) {
        return Ok(ruleset);
    }
    for report in reports {
        if let Some(error) = &report.error {
            eprintln!("note: {} was not loaded: {error}", report.path.display());
        }
    }
    let loaded: Vec<String> = runtime
        .rulesets()
        .iter()
        .map(|r| r.info().id.clone())
        .collect();
    bail!(
        "no ruleset `{id}` is loaded (loaded: {})",
        if loaded.is_empty() {
            "none".to_owned()
        } else {
            loaded.join(", ")
        }
    )
}

fn rulesets(places: &Places, args: &RulesetsArgs) -> Result<()> {
    let (runtime, reports) = load_runtime(places)?;
    if args.json {
        let rulesets: Vec<serde_json::Value> = runtime
            .rulesets()
            .iter()
            .map(|r| {
                serde_json::json!({
                    "info": r.info(),
                    "hash": r.hash(),
                    "source": r.source(),
                })
            })
            .collect();
        let out = serde_json::json!({ "rulesets": rulesets, "loads": reports });
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    println!("rulesets in {}:", places.rulesets_dir().display());
    for ruleset in runtime.rulesets() {
        let info = ruleset.info();
        println!(
            "  {} {} ({}), {}-{} seats, {} maps, {} options, hash {}",
            info.id,
            info.version,
            info.name,
            info.min_seats,
            info.max_seats,
            info.maps.len(),
            info.options.len(),
            &ruleset.hash().0[..16]
        );
    }
    for report in &reports {
        if let Some(error) = &report.error {
            println!("  refused {}: {error}", report.path.display());
        }
    }
    Ok(())
}

/// The ruleset `id`, loaded, and the map text `map` names (see [`resolve_map`]); refused with
/// its first error unless the ruleset finds the map playable.
fn playable_map(
    places: &Places,
    id: &str,
    map: Option<&str>,
) -> Result<(Runtime, Arc<LoadedRuleset>, String)> {
    let (runtime, reports) = load_runtime(places)?;
    let ruleset = find_ruleset(&runtime, &reports, id)?;
    let map_toml = resolve_map(places, &ruleset, map)?;
    let diagnostics = ruleset.validate_map(&map_toml)?;
    if let Some(error) = diagnostics.iter().find(|d| d.is_error()) {
        bail!(
            "the map cannot be played: line {}: {}",
            error.line,
            error.text
        );
    }
    Ok((runtime, ruleset, map_toml))
}

/// The map text for a simulation: a file path, a map id of the ruleset (a listed map or an
/// example), or the ruleset's first listed map.
fn resolve_map(places: &Places, ruleset: &LoadedRuleset, map: Option<&str>) -> Result<String> {
    let info = ruleset.info();
    let read = |path: &Path| {
        std::fs::read_to_string(path)
            .with_context(|| format!("failed to read the map {}", path.display()))
    };
    let maps_dir = places.maps_dir();
    match map {
        Some(map) if map.ends_with(".toml") || map.contains('/') => read(Path::new(map)),
        Some(id) => match host::maps::find_map(&maps_dir, info, id) {
            Some(file) => read(&file.path),
            None => bail!(
                "ruleset `{}` has no map `{id}` in {}",
                info.id,
                maps_dir.join(&info.id).display()
            ),
        },
        None => match info.maps.first() {
            Some(first) => read(&maps_dir.join(&info.id).join(format!("{}.toml", first.id))),
            // A ruleset that ships no map plays on its defaults, an empty map document.
            None => Ok(String::new()),
        },
    }
}

fn parse_options(ruleset: &LoadedRuleset, options: &[String]) -> Result<Vec<sdk::OptionSetting>> {
    options
        .iter()
        .map(|text| {
            let (name, value) = text
                .split_once('=')
                .ok_or_else(|| anyhow!("option `{text}` must be written name=value"))?;
            let spec = ruleset
                .info()
                .options
                .iter()
                .find(|spec| spec.name == name.trim())
                .ok_or_else(|| {
                    anyhow!(
                        "ruleset `{}` has no option `{}`",
                        ruleset.info().id,
                        name.trim()
                    )
                })?;
            let value = spec.parse(value.trim())?;
            Ok(sdk::OptionSetting {
                name: spec.name.clone(),
                value,
            })
        })
        .collect()
}

/// How one seat did over a simulation.
#[derive(Serialize, Default, Clone)]
struct SeatSummary {
    seat: u32,
    bot: String,
    wins: u64,
    win_rate: f64,
    mean_score: f64,
    mean_rank: f64,
}

/// The simulation's report, printed as text or JSON.
#[derive(Serialize)]
struct SimulationReport {
    ruleset: String,
    ruleset_hash: String,
    players: u32,
    seed: u64,
    rules: String,
    games: u64,
    failed_games: u64,
    decisions: u64,
    wall_time_seconds: f64,
    games_per_second: f64,
    decisions_per_second: f64,
    seats: Vec<SeatSummary>,
    first_failure: Option<String>,
    /// The same games under the rules compared with, when `--baseline` is given.
    #[serde(skip_serializing_if = "Option::is_none")]
    baseline: Option<Box<SimulationReport>>,
    /// The HTML report written, when `--report` is given.
    #[serde(skip_serializing_if = "Option::is_none")]
    report: Option<PathBuf>,
    #[serde(skip_serializing_if = "Option::is_none")]
    report_seconds: Option<f64>,
}

impl SimulationReport {
    /// The summary of one arm; wall time is shared by the arms, which played interleaved.
    fn of_arm(simulation: &host::balance::Simulation, arm: usize) -> SimulationReport {
        let result = &simulation.arms[arm];
        let finished = result.games.len() as u64;
        let decisions: u64 = result.games.iter().map(|g| g.actions).sum();
        let seats = (0..simulation.seats)
            .map(|seat| {
                let mut summary = SeatSummary {
                    seat,
                    bot: host::balance::bot_name(simulation.bots[seat as usize]).to_owned(),
                    ..SeatSummary::default()
                };
                for game in &result.games {
                    let (rank, score) = (game.ranks[seat as usize], game.scores[seat as usize]);
                    summary.wins += u64::from(rank == 1);
                    summary.mean_score += score as f64;
                    summary.mean_rank += f64::from(rank);
                }
                let n = finished.max(1) as f64;
                summary.win_rate = summary.wins as f64 / n;
                summary.mean_score /= n;
                summary.mean_rank /= n;
                summary
            })
            .collect();
        let wall = simulation.wall_seconds.max(1e-9);
        let arms = simulation.arms.len() as f64;
        SimulationReport {
            ruleset: simulation.ruleset.clone(),
            ruleset_hash: simulation.ruleset_hash.clone(),
            players: simulation.seats,
            seed: simulation.seed,
            rules: result.arm.label.clone(),
            games: finished,
            failed_games: result.failures.len() as u64,
            decisions,
            wall_time_seconds: simulation.wall_seconds,
            games_per_second: finished as f64 * arms / wall,
            decisions_per_second: decisions as f64 * arms / wall,
            seats,
            first_failure: result
                .failures
                .first()
                .map(|(index, why)| format!("game {index}: {why}")),
            baseline: None,
            report: None,
            report_seconds: None,
        }
    }

    fn print(&self) {
        println!(
            "ruleset       {} ({})",
            self.ruleset,
            &self.ruleset_hash[..16]
        );
        println!("rules         {}", self.rules);
        println!(
            "games         {} ({} failed)",
            self.games, self.failed_games
        );
        println!("decisions     {}", self.decisions);
        println!("wall time     {:.2} s", self.wall_time_seconds);
        println!("games/second  {:.1}", self.games_per_second);
        for seat in &self.seats {
            println!(
                "seat {} ({:>6}): wins {} ({:.1} %), mean score {:.2}, mean rank {:.2}",
                seat.seat,
                seat.bot,
                seat.wins,
                seat.win_rate * 100.0,
                seat.mean_score,
                seat.mean_rank
            );
        }
        if let Some(failure) = &self.first_failure {
            println!("first failure: {failure}");
        }
    }
}

/// The rules one arm of a simulation plays: a variant (by id or file) with `--option`s on top.
fn arm_rules(
    places: &Places,
    ruleset: &LoadedRuleset,
    variant: Option<&str>,
    extra: &[String],
) -> Result<host::balance::Arm> {
    let info = ruleset.info();
    let (label, mut options) = match variant {
        None => (STANDARD_RULES.to_owned(), Vec::new()),
        Some(STANDARD_RULES) => (STANDARD_RULES.to_owned(), Vec::new()),
        Some(name) => {
            let path = if name.ends_with(".toml") || name.contains('/') {
                PathBuf::from(name)
            } else {
                places
                    .maps_dir()
                    .join(&info.id)
                    .join("variants")
                    .join(format!("{name}.toml"))
            };
            let text = std::fs::read_to_string(&path).with_context(|| {
                format!(
                    "ruleset `{}` has no variant `{name}` ({})",
                    info.id,
                    path.display()
                )
            })?;
            let parsed = host::variants::parse_variant(&path, &text, &info.options)?;
            (parsed.id, parsed.options)
        }
    };
    let extra = parse_options(ruleset, extra)?;
    let label = if extra.is_empty() {
        label
    } else {
        let written: Vec<&str> = extra.iter().map(|o| o.name.as_str()).collect();
        format!("{label} with {}", written.join(", "))
    };
    for setting in extra {
        options.retain(|o: &sdk::OptionSetting| o.name != setting.name);
        options.push(setting);
    }
    Ok(host::balance::Arm { label, options })
}

fn arena(places: &Places, args: &ArenaArgs) -> Result<()> {
    let (_runtime, ruleset, map_toml) = playable_map(places, &args.ruleset, args.map.as_deref())?;
    let parse = |names: &[String]| -> Result<Vec<BotKind>> {
        names
            .iter()
            .map(|name| name.trim().parse().map_err(|e: String| anyhow!(e)))
            .collect()
    };
    let seated = parse(&args.lineup)?;
    // With a lineup, the kinds are its distinct kinds in the order named.
    let mut kinds: Vec<BotKind> = Vec::new();
    for &kind in &seated {
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    let lineup: Option<Vec<usize>> = (!seated.is_empty()).then(|| {
        seated
            .iter()
            .map(|kind| kinds.iter().position(|k| k == kind).unwrap_or(0))
            .collect()
    });
    if lineup.is_none() {
        kinds = parse(&args.bots)?;
    }
    if args.players.is_empty() {
        bail!("say how many seats with --players");
    }
    if !seated.is_empty() && args.players.iter().any(|&p| p as usize != seated.len()) {
        bail!(
            "a lineup of {} kinds seats games of {} players",
            seated.len(),
            seated.len()
        );
    }
    let info = ruleset.info().clone();
    for &seats in &args.players {
        if seats < info.min_seats || seats > info.max_seats {
            bail!(
                "{} plays with {} to {} players, not {seats}",
                info.id,
                info.min_seats,
                info.max_seats
            );
        }
        let plan = host::bots::arena::ArenaPlan {
            ruleset: ruleset.clone(),
            map_toml: map_toml.clone(),
            seats,
            kinds: kinds.clone(),
            games: args.games,
            seed: args.seed,
            max_actions: host::balance::MAX_ACTIONS_PER_GAME,
            lineup: lineup.clone(),
        };
        let games = plan.seatings().len() as u64;
        let progress = indicatif::ProgressBar::new(games);
        progress.set_style(
            indicatif::ProgressStyle::with_template(
                "{bar:40} {pos}/{len} games, {per_sec}, eta {eta}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        let outcome = plan.run(|done, _| progress.set_position(done))?;
        progress.finish_and_clear();
        let names =
            |kinds: &[BotKind]| kinds.iter().map(|k| k.name()).collect::<Vec<_>>().join(",");
        let command = format!(
            "tenka arena --ruleset {} --players {seats}{} {} --games {} --seed {}",
            info.id,
            args.map
                .as_deref()
                .map(|map| format!(" --map {map}"))
                .unwrap_or_default(),
            if seated.is_empty() {
                format!("--bots {}", names(&kinds))
            } else {
                format!("--lineup {}", names(&seated))
            },
            args.games,
            args.seed
        );
        let title = if seated.is_empty() {
            format!("Bots: {}, {seats} players", info.name)
        } else {
            format!(
                "Bots: {}, {seats} players, lineup {}",
                info.name,
                names(&seated)
            )
        };
        let text = outcome.markdown(&title, &command);
        println!("{text}");
        if args.rate {
            let rated = rate_arena(args, &info.id, seats, &outcome)?;
            println!("Rated {rated} games into the server's ratings.");
        }
        if let Some(path) = &args.markdown {
            // Into BENCHMARKS.md's bots region (before its end marker, which `cargo xtask
            // bench` keeps when it rewrites the rest), else at the end of the file.
            let old = match std::fs::read_to_string(path) {
                Ok(old) => old,
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => String::new(),
                Err(error) => {
                    return Err(error)
                        .with_context(|| format!("failed to read {}", path.display()));
                }
            };
            let section = format!("{}\n", text.trim_end());
            let new = match old.rfind(BOTS_END) {
                Some(end) => format!("{}\n\n{section}\n{}", old[..end].trim_end(), &old[end..]),
                None => format!("{old}\n{section}"),
            };
            std::fs::write(path, new)
                .with_context(|| format!("failed to write {}", path.display()))?;
        }
    }
    Ok(())
}

/// Records an arena's games in the server's ratings, each as one rating period of the bots
/// that sat at it; returns how many games.
fn rate_arena(
    args: &ArenaArgs,
    ruleset: &str,
    seats: u32,
    outcome: &host::bots::arena::ArenaOutcome,
) -> Result<usize> {
    use host::server::ratings::{Finisher, apply, bot_player};
    tokio::runtime::Runtime::new()
        .context("failed to start the async runtime")?
        .block_on(async {
            let storage =
                host::server::storage::Storage::open(args.database.as_deref(), &args.data).await?;
            for game in &outcome.games {
                let finishers: Vec<Finisher> = (game.kinds.iter().zip(&game.ranks))
                    .map(|(&kind, &rank)| Finisher {
                        player: bot_player(outcome.kinds[kind].name()),
                        rank,
                    })
                    .collect();
                apply(&storage, ruleset, seats, &finishers, None).await?;
            }
            Ok(outcome.games.len())
        })
}

fn simulate(places: &Places, args: &SimulateArgs) -> Result<()> {
    let (_runtime, ruleset, map_toml) = playable_map(places, &args.ruleset, args.map.as_deref())?;
    let bots: Vec<BotKind> = args
        .bot
        .split(',')
        .map(|name| name.trim().parse().map_err(|e: String| anyhow!(e)))
        .collect::<Result<_>>()?;
    let mut arms = vec![arm_rules(
        places,
        &ruleset,
        args.variant.as_deref(),
        &args.options,
    )?];
    if let Some(baseline) = &args.baseline {
        arms.push(arm_rules(places, &ruleset, Some(baseline), &[])?);
        if arms[0].label == arms[1].label {
            arms[1].label = format!("{} (baseline)", arms[1].label);
        }
    }
    if let Some(dir) = &args.export {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("failed to create {}", dir.display()))?;
    }
    let jobs = match args.jobs {
        None => 1,
        Some(0) => std::thread::available_parallelism().map_or(1, |n| n.get()),
        Some(jobs) => jobs,
    };
    let plan = host::balance::Plan {
        map_label: args
            .map
            .clone()
            .or_else(|| ruleset.info().maps.first().map(|m| m.id.clone()))
            .unwrap_or_else(|| "the ruleset's default".to_owned()),
        ruleset,
        map_toml,
        seats: args.players,
        games: args.games,
        seed: args.seed,
        bots,
        arms,
        jobs,
    };

    let progress = indicatif::ProgressBar::new(args.games * plan.arms.len() as u64);
    progress.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} games, {per_sec}, eta {eta}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let export = |arm: usize, index: u64, session: &mut Session| -> Result<()> {
        let Some(dir) = &args.export else {
            return Ok(());
        };
        let name = if arm == 0 {
            format!("game-{index:05}.json")
        } else {
            format!("baseline-game-{index:05}.json")
        };
        let path = dir.join(name);
        std::fs::write(&path, session.record()?.to_json()?)
            .with_context(|| format!("failed to write {}", path.display()))
    };
    let simulation = host::balance::run(
        &plan,
        &|done, _| progress.set_position(done),
        &AtomicBool::new(false),
        &export,
    )?;
    progress.finish_and_clear();

    let mut report = SimulationReport::of_arm(&simulation, 0);
    if simulation.arms.len() > 1 {
        report.baseline = Some(Box::new(SimulationReport::of_arm(&simulation, 1)));
    }
    if let Some(path) = &args.report {
        let started = Instant::now();
        let html = host::balance::report::html(&simulation);
        std::fs::write(path, html)
            .with_context(|| format!("failed to write {}", path.display()))?;
        report.report = Some(path.clone());
        report.report_seconds = Some(started.elapsed().as_secs_f64());
    }
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        report.print();
        if let Some(baseline) = &report.baseline {
            println!();
            baseline.print();
        }
        if let (Some(path), Some(seconds)) = (&report.report, report.report_seconds) {
            println!(
                "report        {} (written in {seconds:.2} s)",
                path.display()
            );
        }
    }
    let failed: usize = simulation.arms.iter().map(|a| a.failures.len()).sum();
    if failed > 0 {
        bail!(
            "{failed} of {} games failed",
            args.games * simulation.arms.len() as u64
        );
    }
    Ok(())
}

fn replay(places: &Places, args: &ReplayArgs) -> Result<()> {
    let text = std::fs::read_to_string(&args.record)
        .with_context(|| format!("failed to read {}", args.record.display()))?;
    let record = GameRecord::from_json(&text)
        .with_context(|| format!("{} is not a game record", args.record.display()))?;
    let (runtime, reports) = load_runtime(places)?;
    let ruleset = find_ruleset(&runtime, &reports, &record.ruleset_id)?;
    let mut session = Session::replay(ruleset, &record)
        .map_err(|e| anyhow!("{} was refused: {e}", args.record.display()))?;
    let result = session.result()?;
    if args.json {
        println!(
            "{}",
            serde_json::json!({
                "record": args.record,
                "verified": true,
                "actions": record.actions.len(),
                "result": result,
            })
        );
    } else {
        let winners: Vec<String> = result
            .iter()
            .flat_map(|r| {
                r.placings
                    .iter()
                    .filter(|p| p.rank == 1)
                    .map(|p| format!("seat {}", p.seat))
            })
            .collect();
        println!(
            "{} replays identically: {} actions, {} checkpoints, winner {}",
            args.record.display(),
            record.actions.len(),
            record.checkpoints.len(),
            winners.join(" and ")
        );
    }
    Ok(())
}

/// The ruleset a map file is for: named on the command line, in the map (`ruleset = "..."` at
/// the top or under `[map]`, found even when the rest of the TOML is broken), or by a folder the
/// file lies in (`maps/<ruleset>/...`).
fn ruleset_for_map(
    runtime: &Runtime,
    reports: &[host::LoadReport],
    file: &Path,
    text: &str,
    named: Option<&str>,
) -> Result<Arc<LoadedRuleset>> {
    if let Some(id) = named
        .map(str::to_owned)
        .or_else(|| host::maps::declared_ruleset(text))
    {
        return find_ruleset(runtime, reports, &id);
    }
    let absolute = std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
    for folder in absolute.ancestors().skip(1) {
        if let Some(ruleset) = folder
            .file_name()
            .and_then(|n| runtime.ruleset(&n.to_string_lossy()))
        {
            return Ok(ruleset);
        }
    }
    bail!(
        "cannot tell which ruleset {} is for: pass --ruleset ID, or write `ruleset = \"ID\"` in the map",
        file.display()
    )
}

/// Prints each finding as `file:line:col: severity: message` and returns how many are errors.
fn print_findings(file: &Path, diagnostics: &[sdk::Diagnostic]) -> usize {
    for diagnostic in diagnostics {
        let severity = if diagnostic.is_error() {
            "error"
        } else {
            "warning"
        };
        println!(
            "{}:{}:{}: {severity}: {}",
            file.display(),
            diagnostic.line,
            diagnostic.column,
            diagnostic.text
        );
    }
    diagnostics.iter().filter(|d| d.is_error()).count()
}

/// A map file checked as `tenka map check` checks it: its TOML syntax first (the one finding
/// printed when the text does not parse), then the ruleset's own `validate-map`. Every finding
/// is printed; a map with an error is refused. Returns the text, its ruleset and its warnings.
fn checked_map(
    places: &Places,
    file: &Path,
    named: Option<&str>,
) -> Result<(String, Arc<LoadedRuleset>, usize)> {
    let text = std::fs::read_to_string(file)
        .with_context(|| format!("failed to read {}", file.display()))?;
    let syntax = host::maps::syntax_error(&text);
    if let Some(error) = &syntax {
        print_findings(file, std::slice::from_ref(error));
    }
    let (runtime, reports) = load_runtime(places)?;
    let ruleset = ruleset_for_map(&runtime, &reports, file, &text, named);
    if syntax.is_some() {
        // The ruleset's checks read the map's fields, which a text that does not parse lacks.
        match ruleset {
            Ok(ruleset) => bail!(
                "{} is not valid TOML: fix it, then {}'s checks can run",
                file.display(),
                ruleset.info().id
            ),
            Err(_) => bail!("{} is not valid TOML", file.display()),
        }
    }
    let ruleset = ruleset?;
    let diagnostics = ruleset.validate_map(&text)?;
    let errors = print_findings(file, &diagnostics);
    if errors > 0 {
        bail!(
            "{} has {errors} error(s) for {}",
            file.display(),
            ruleset.info().id
        );
    }
    Ok((text, ruleset, diagnostics.len()))
}

/// `tenka map check FILE`: the syntax, then the ruleset's own diagnostics, one per line.
fn map_check(places: &Places, args: &MapCheckArgs) -> Result<()> {
    let (_, ruleset, warnings) = checked_map(places, &args.file, args.ruleset.as_deref())?;
    eprintln!(
        "{}: ok for {} ({warnings} warning(s))",
        args.file.display(),
        ruleset.info().id,
    );
    Ok(())
}

/// `tenka map render FILE -o board.svg` (or `.png`): the board of a fresh game on the map, as a spectator
/// sees it. The game's seed is fixed, so the same map always draws the same picture.
/// A map with errors is not drawn: its findings are listed as `map check` lists them.
fn map_render(places: &Places, args: &MapRenderArgs) -> Result<()> {
    let (text, ruleset, _) = checked_map(places, &args.file, args.ruleset.as_deref())?;
    let seats = args.players.unwrap_or(ruleset.info().max_seats);
    let svg = host::maps::render_board(&ruleset, &text, seats)
        .with_context(|| format!("cannot draw {}", args.file.display()))?;
    let png = args
        .output
        .extension()
        .is_some_and(|ext| ext.eq_ignore_ascii_case("png"));
    let bytes = if png {
        host::maps::svg_to_png(&svg)?
    } else {
        svg.into_bytes()
    };
    std::fs::write(&args.output, bytes)
        .with_context(|| format!("failed to write {}", args.output.display()))?;
    eprintln!("wrote {}", args.output.display());
    Ok(())
}
