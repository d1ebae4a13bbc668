//! The variant lab: a client asks the server to play many bot games of a ruleset under some rules
//! (a variant, options) and under the rules to compare with (the standard rules or another
//! variant), follows the progress, and reads the balance report when it is done.
//!
//! A job is the same [`tenka_game::balance::run`] `tenka simulate` uses, on a thread of its own at
//! low priority, one game at a time: it never takes one of the ruleset call slots people's games
//! wait on, and the scheduler serves those first. Jobs are bounded (a cap on games, one running
//! job per client address, a few per server) and a finished job is kept a while, a bounded
//! number of them, then dropped. A job's id is its only key: whoever knows it may read or
//! cancel the job.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use sdk::{OptionKind, OptionSetting, OptionValue, RulesetInfo};
use serde::Deserialize;
use serde_json::{Value, json};

use super::AppState;
use super::error::{AppError, AppJson, AppPath};
use super::offer::RulesetEntry;
use super::tokens;
use tenka_game::balance::{self, Arm, Plan, Simulation, stats};
use tenka_game::bots::BotKind;
use tenka_game::session::{GameSpec, NewGame};

/// What the rules compared with are called when they are the ruleset's defaults.
pub const STANDARD_RULES: &str = "standard rules";

/// The id a request gives for the standard rules as the baseline.
pub const STANDARD_ID: &str = "standard";

/// The lab's bounds, from `tenka serve`'s options.
#[derive(Clone, Debug)]
pub struct LabConfig {
    /// The most games one job may ask for, per rule set.
    pub max_games: u64,
    /// Jobs running at once on the whole server; 0 turns the lab off.
    pub jobs: usize,
    /// Jobs one client address may have running at once.
    pub jobs_per_address: usize,
    /// Finished jobs kept for reading; beyond, the oldest finished is dropped.
    pub kept: usize,
    /// How long a finished job is kept.
    pub keep_for: Duration,
}

impl Default for LabConfig {
    fn default() -> Self {
        LabConfig {
            max_games: 200,
            jobs: 2,
            jobs_per_address: 1,
            kept: 32,
            keep_for: Duration::from_secs(3600),
        }
    }
}

/// Where a job is.
#[derive(Clone, Debug)]
enum Phase {
    /// Playing games.
    Running,
    /// Done, every game played or cancelled on the way: the figures and the report.
    Done {
        summary: Arc<Value>,
        report: Arc<str>,
        cancelled: bool,
    },
    /// The simulation could not run at all.
    Failed(String),
}

/// One job.
struct Job {
    id: String,
    /// The client address that started it.
    owner: String,
    /// What was asked, as the status shows it.
    request: Value,
    total: u64,
    done: AtomicU64,
    cancel: AtomicBool,
    phase: Mutex<Phase>,
    /// When it stopped running.
    ended: Mutex<Option<Instant>>,
}

impl Job {
    fn phase(&self) -> Phase {
        self.phase
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    fn running(&self) -> bool {
        matches!(self.phase(), Phase::Running)
    }

    fn status(&self) -> Value {
        let mut status = json!({
            "id": self.id,
            "games_done": self.done.load(Ordering::Relaxed),
            "games_total": self.total,
            "request": self.request,
            "report_url": Value::Null,
        });
        match self.phase() {
            Phase::Running => {
                status["status"] = json!(if self.cancel.load(Ordering::Relaxed) {
                    "cancelling"
                } else {
                    "running"
                });
            }
            Phase::Done {
                summary, cancelled, ..
            } => {
                status["status"] = json!(if cancelled { "cancelled" } else { "finished" });
                status["summary"] = (*summary).clone();
                status["report_url"] = json!(format!("/api/lab/{}/report", self.id));
            }
            Phase::Failed(why) => {
                status["status"] = json!("failed");
                status["error"] = json!(why);
            }
        }
        status
    }
}

/// The jobs of one server.
pub struct Lab {
    config: LabConfig,
    jobs: Mutex<HashMap<String, Arc<Job>>>,
}

impl Lab {
    /// An empty lab with these bounds.
    pub fn new(config: LabConfig) -> Lab {
        Lab {
            config,
            jobs: Mutex::new(HashMap::new()),
        }
    }

    /// The bounds.
    pub fn config(&self) -> &LabConfig {
        &self.config
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Job>>> {
        self.jobs
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Drops finished jobs past their time, then the oldest finished beyond the count kept.
    fn forget_old(jobs: &mut HashMap<String, Arc<Job>>, config: &LabConfig) {
        let ended = |job: &Job| {
            *job.ended
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
        };
        jobs.retain(|_, job| ended(job).is_none_or(|at| at.elapsed() < config.keep_for));
        let mut finished: Vec<(Instant, String)> = jobs
            .values()
            .filter_map(|job| Some((ended(job)?, job.id.clone())))
            .collect();
        if finished.len() > config.kept {
            finished.sort();
            let excess = finished.len() - config.kept;
            for (_, id) in finished.into_iter().take(excess) {
                jobs.remove(&id);
            }
        }
    }

    fn job(&self, id: &str) -> Result<Arc<Job>, AppError> {
        let mut jobs = self.lock();
        Self::forget_old(&mut jobs, &self.config);
        jobs.get(id)
            .cloned()
            .ok_or_else(|| AppError::NotFound(format!("there is no lab job `{id}`")))
    }

    /// Registers a job for `owner` if the bounds allow one more, and starts it.
    fn start(
        self: &Arc<Self>,
        owner: String,
        plan: Plan,
        request: Value,
    ) -> Result<Arc<Job>, AppError> {
        let mut jobs = self.lock();
        Self::forget_old(&mut jobs, &self.config);
        let running: Vec<&Arc<Job>> = jobs.values().filter(|job| job.running()).collect();
        let mine = running.iter().filter(|job| job.owner == owner).count();
        if mine >= self.config.jobs_per_address.max(1) {
            return Err(AppError::TooManyJobs(format!(
                "this address already runs {mine} lab job(s), as many as it may; wait for it to \
                 finish or cancel it (DELETE /api/lab/{{id}})"
            )));
        }
        if running.len() >= self.config.jobs {
            return Err(AppError::Busy(format!(
                "the server runs {} lab job(s), as many as it may at once; try again in a few \
                 minutes",
                running.len()
            )));
        }
        let id = tokens::new_game_id()?;
        let job = Arc::new(Job {
            id: id.clone(),
            owner,
            request,
            total: plan.games * plan.arms.len() as u64,
            done: AtomicU64::new(0),
            cancel: AtomicBool::new(false),
            phase: Mutex::new(Phase::Running),
            ended: Mutex::new(None),
        });
        jobs.insert(id, job.clone());
        drop(jobs);
        let worker = job.clone();
        let spawned = std::thread::Builder::new()
            .name("lab-job".to_owned())
            .spawn(move || run_job(&worker, &plan));
        if let Err(error) = spawned {
            self.lock().remove(&job.id);
            return Err(AppError::Internal(
                anyhow::Error::new(error).context("failed to start a lab job's thread"),
            ));
        }
        Ok(job)
    }

    /// Jobs running now (for tests and the log).
    pub fn running(&self) -> usize {
        self.lock().values().filter(|job| job.running()).count()
    }
}

/// Lowers the calling thread's scheduling priority (nice 10 on Linux, where the nice value is a
/// thread's own and is inherited by the threads it starts), so the game server's threads are
/// served first when the cores are busy.
fn lower_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: `setpriority` takes plain integers and changes only the calling thread's nice
    // value (`who` 0 is the caller); a failure leaves the priority as it was.
    unsafe {
        let _ = libc::setpriority(libc::PRIO_PROCESS, 0, 10);
    }
}

/// The job's thread: plays the games, then keeps the figures and the report.
fn run_job(job: &Job, plan: &Plan) {
    lower_priority();
    let outcome = balance::run(
        plan,
        &|done, _| job.done.store(done, Ordering::Relaxed),
        &job.cancel,
        &|_, _, _| Ok(()),
    );
    let phase = match outcome {
        Ok(simulation) => {
            let (report, differences) = balance::report::html_and_differences(&simulation);
            Phase::Done {
                summary: Arc::new(summary(&simulation, differences)),
                report: report.into(),
                cancelled: simulation.cancelled,
            }
        }
        Err(error) => Phase::Failed(format!("{error:#}")),
    };
    if let Phase::Failed(why) = &phase {
        tracing::warn!("lab job {} failed: {why}", job.id);
    }
    *job.phase
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner()) = phase;
    *job.ended
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(Instant::now());
}

/// The figures of a finished job: per rule set, each seat's win rate with its 95 % interval and
/// mean score, the mean game length, and the significant differences (in plain English words
/// and as data).
fn summary(simulation: &Simulation, differences: Vec<balance::report::Difference>) -> Value {
    let arms: Vec<Value> = simulation
        .arms
        .iter()
        .map(|arm| {
            let games = arm.games.len() as u64;
            let seats: Vec<Value> = (0..simulation.seats as usize)
                .map(|seat| {
                    let wins = arm
                        .games
                        .iter()
                        .filter(|game| game.ranks.get(seat) == Some(&1))
                        .count() as u64;
                    let rate = stats::wilson(wins, games);
                    let scores: Vec<f64> = arm
                        .games
                        .iter()
                        .map(|game| game.scores.get(seat).copied().unwrap_or(0) as f64)
                        .collect();
                    json!({
                        "seat": seat,
                        "wins": wins,
                        "win_rate": rate.rate,
                        "win_rate_low": rate.low,
                        "win_rate_high": rate.high,
                        "mean_score": stats::mean(&scores),
                    })
                })
                .collect();
            let lengths: Vec<f64> = arm.games.iter().map(|game| game.actions as f64).collect();
            json!({
                "label": arm.arm.label,
                "games": games,
                "failed": arm.failures.len(),
                "first_failure": arm.failures.first().map(|(index, why)| format!("game {index}: {why}")),
                "mean_actions": stats::mean(&lengths),
                "seats": seats,
            })
        })
        .collect();
    let played: usize = simulation.arms.iter().map(|arm| arm.games.len()).sum();
    json!({
        "arms": arms,
        // The lines in English for any client, and the same as data for one that words them
        // in its reader's language (each a measure, its seat or catalogue key, the values, p).
        "differences": differences.iter().map(|d| d.line.as_str()).collect::<Vec<_>>(),
        "findings": differences,
        "wall_seconds": simulation.wall_seconds,
        "games_per_second": played as f64 / simulation.wall_seconds.max(1e-9),
        "seed": simulation.seed,
    })
}

// ---------------------------------------------------------------------------------------------
// The HTTP surface
// ---------------------------------------------------------------------------------------------

/// `POST /api/lab`'s body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StartJob {
    /// The ruleset's id.
    pub ruleset: String,
    /// A map of the ruleset; default its first playable one.
    #[serde(default)]
    pub map: Option<String>,
    /// The rules under test: a named variant as the starting point...
    #[serde(default)]
    pub variant: Option<String>,
    /// ...and option values over it.
    #[serde(default)]
    pub options: BTreeMap<String, Value>,
    /// The rules compared with: a variant id, or `"standard"` (also when absent) for the
    /// ruleset's defaults.
    #[serde(default)]
    pub baseline: Option<String>,
    /// Seats per game.
    pub players: u32,
    /// Games per rule set.
    pub games: u64,
    /// The bot of every seat; default random.
    #[serde(default)]
    pub bot: Option<String>,
    /// The seed; default a random one (the status tells it, to repeat the job).
    #[serde(default)]
    pub seed: Option<u64>,
}

/// A named variant's option values, or 400.
fn variant_values(
    entry: &RulesetEntry,
    variant: &str,
    role: &str,
) -> Result<BTreeMap<String, Value>, AppError> {
    entry
        .variants
        .iter()
        .find(|candidate| candidate.id == variant)
        .map(|found| found.options.clone())
        .ok_or_else(|| {
            let known: Vec<&str> = entry.variants.iter().map(|v| v.id.as_str()).collect();
            AppError::BadRequest(format!(
                "{role}: ruleset `{}` has no variant `{variant}` (it has {known:?})",
                entry.info.id
            ))
        })
}

/// Option values checked against the ruleset's schema: known names, the right kinds, in range.
fn checked_options(
    info: &RulesetInfo,
    values: &BTreeMap<String, Value>,
) -> Result<Vec<OptionSetting>, AppError> {
    let mut options = Vec::new();
    for (name, value) in values {
        let spec = info
            .options
            .iter()
            .find(|spec| &spec.name == name)
            .ok_or_else(|| {
                AppError::BadRequest(format!("ruleset `{}` has no option `{name}`", info.id))
            })?;
        let typed = super::api::option_value(&spec.kind, name, value)?;
        let in_range = match (&spec.kind, &typed) {
            (OptionKind::Integer { min, max }, OptionValue::Integer(v)) => (min..=max).contains(&v),
            (OptionKind::Decimal { min, max }, OptionValue::Decimal(v)) => {
                v.is_finite() && (min..=max).contains(&v)
            }
            (OptionKind::Choice(names), OptionValue::Choice(v)) => names.contains(v),
            _ => true,
        };
        if !in_range {
            let allowed = match &spec.kind {
                OptionKind::Integer { min, max } => format!("{min} to {max}"),
                OptionKind::Decimal { min, max } => format!("{min} to {max}"),
                OptionKind::Choice(names) => format!("one of {names:?}"),
                OptionKind::Boolean => "true or false".to_owned(),
            };
            return Err(AppError::BadRequest(format!(
                "option `{name}` must be {allowed}, not {value}"
            )));
        }
        options.push(OptionSetting {
            name: name.clone(),
            value: typed,
        });
    }
    Ok(options)
}

/// The client address a job is counted against; in-process callers share one.
fn owner_of(extensions: &axum::http::Extensions) -> String {
    super::api::creator_of(extensions).unwrap_or_else(|| "in-process".to_owned())
}

/// `POST /api/lab`
pub async fn start(
    State(state): State<AppState>,
    extensions: axum::http::Extensions,
    AppJson(request): AppJson<StartJob>,
) -> Result<Response, AppError> {
    let lab = state.lab.clone();
    if lab.config.jobs == 0 {
        return Err(AppError::Busy(
            "the variant lab is off on this server".to_owned(),
        ));
    }
    let offer = state.offer.current();
    let entry = offer.ruleset(&request.ruleset).cloned().ok_or_else(|| {
        AppError::BadRequest(format!("there is no ruleset `{}`", request.ruleset))
    })?;
    let info = &entry.info;
    if !(info.min_seats..=info.max_seats).contains(&request.players) {
        return Err(AppError::BadRequest(format!(
            "`{}` is played by {} to {} players, not {}",
            info.id, info.min_seats, info.max_seats, request.players
        )));
    }
    let cap = lab.config.max_games.min(balance::MAX_GAMES);
    if !(1..=cap).contains(&request.games) {
        return Err(AppError::BadRequest(format!(
            "a lab job plays 1 to {cap} games per rule set on this server, not {}",
            request.games
        )));
    }
    let bot_name = request.bot.as_deref().unwrap_or("random");
    let bot: BotKind = bot_name.parse().map_err(|_| {
        AppError::BadRequest(format!(
            "there is no bot `{bot_name}`; use one of {:?}",
            super::api::BOT_NAMES
        ))
    })?;
    let (map_id, map_toml) = match &request.map {
        Some(id) => {
            let map = entry.map(id).ok_or_else(|| {
                AppError::BadRequest(format!("ruleset `{}` has no map `{id}`", info.id))
            })?;
            if !map.is_valid() {
                return Err(AppError::BadRequest(format!(
                    "map `{id}` has errors and cannot be played"
                )));
            }
            (map.id.clone(), map.toml.clone())
        }
        None if entry.info.maps.is_empty() && entry.maps.is_empty() => {
            (super::api::NO_MAP.to_owned(), String::new())
        }
        None => {
            let map = entry
                .maps
                .iter()
                .find(|map| map.is_valid())
                .ok_or_else(|| {
                    AppError::BadRequest(format!("ruleset `{}` has no playable map", info.id))
                })?;
            (map.id.clone(), map.toml.clone())
        }
    };

    // The rules under test.
    let mut values = match &request.variant {
        Some(variant) => variant_values(&entry, variant, "variant")?,
        None => BTreeMap::new(),
    };
    values.extend(request.options.clone());
    let options = checked_options(info, &values)?;
    let mut label = request
        .variant
        .clone()
        .unwrap_or_else(|| STANDARD_RULES.to_owned());
    if !request.options.is_empty() {
        let names: Vec<&str> = request.options.keys().map(String::as_str).collect();
        label = format!("{label} with {}", names.join(", "));
    }
    let tested = Arm { label, options };
    // The rules compared with.
    // A variant that happens to be called `standard` is that variant; otherwise `standard`
    // (and no baseline at all) is the ruleset's defaults.
    let named_variant = |id: &str| entry.variants.iter().any(|variant| variant.id == id);
    let baseline = match request.baseline.as_deref() {
        None => Arm {
            label: STANDARD_RULES.to_owned(),
            options: Vec::new(),
        },
        Some(STANDARD_ID) if !named_variant(STANDARD_ID) => Arm {
            label: STANDARD_RULES.to_owned(),
            options: Vec::new(),
        },
        Some(variant) => Arm {
            label: variant.to_owned(),
            options: checked_options(info, &variant_values(&entry, variant, "baseline")?)?,
        },
    };
    let mut arms = vec![tested, baseline];
    if arms[0].label == arms[1].label {
        arms[1].label = format!("{} (baseline)", arms[1].label);
    }

    let ruleset = super::api::loaded_ruleset(&state, &entry)?;
    // A random seed stays below 2^53, so that a browser reads it exactly (JSON numbers are
    // doubles there) and can repeat the job with it.
    let seed = match request.seed {
        Some(seed) => seed,
        None => u64::from_le_bytes(tokens::random_bytes()?) >> 11,
    };
    let plan = Plan {
        ruleset,
        map_toml,
        map_label: map_id.clone(),
        seats: request.players,
        games: request.games,
        seed,
        bots: vec![bot],
        arms,
        jobs: 1,
    };
    // One setup of each rule set first, on a call slot like any game's: rules the ruleset
    // refuses are answered now, and no job is started.
    let trial = plan.clone();
    state
        .hub
        .call_slots()
        .run(move || -> Result<(), AppError> {
            for arm in &trial.arms {
                let spec = GameSpec {
                    map_toml: trial.map_toml.clone(),
                    options: arm.options.clone(),
                    seats: trial.seats,
                    seed: trial.game_seed(0),
                    position: None,
                };
                trial.ruleset.new_game(spec).map_err(|error| {
                    AppError::Setup(format!(
                        "the ruleset refused the setup of {}: {}",
                        arm.label,
                        super::ruleset_calls::into_anyhow(error)
                    ))
                })?;
            }
            Ok(())
        })
        .await??;

    let described = json!({
        "ruleset": info.id,
        "ruleset_hash": entry.hash,
        "map": map_id,
        "players": request.players,
        "games": request.games,
        "bot": bot_name,
        "seed": seed,
        "rules": plan.arms[0].label,
        "options": values,
        "baseline": plan.arms[1].label,
    });
    let job = lab.start(owner_of(&extensions), plan, described)?;
    let mut response = (StatusCode::ACCEPTED, Json(job.status())).into_response();
    if let Ok(location) = HeaderValue::from_str(&format!("/api/lab/{}", job.id)) {
        response.headers_mut().insert(header::LOCATION, location);
    }
    Ok(response)
}

/// `GET /api/lab/{id}`
pub async fn status(
    State(state): State<AppState>,
    AppPath(id): AppPath<String>,
) -> Result<Json<Value>, AppError> {
    Ok(Json(state.lab.job(&id)?.status()))
}

/// `DELETE /api/lab/{id}`: stops a running job after the games it is playing; the games
/// finished so far make its figures and report. A job already done is left as it is.
pub async fn cancel(
    State(state): State<AppState>,
    AppPath(id): AppPath<String>,
) -> Result<Json<Value>, AppError> {
    let job = state.lab.job(&id)?;
    if job.running() {
        job.cancel.store(true, Ordering::Relaxed);
    }
    Ok(Json(job.status()))
}

/// The policy of a report: its own inline styles and inline SVG, nothing else; no script at
/// all (it needs none), and it may be framed only by this server's own pages.
pub const REPORT_POLICY: &str = "default-src 'none'; style-src 'unsafe-inline'; \
     img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'self'";

/// `GET /api/lab/{id}/report`: the self-contained HTML report of a finished (or cancelled) job;
/// with `?download`, as a file to save.
pub async fn report(
    State(state): State<AppState>,
    AppPath(id): AppPath<String>,
    query: axum::extract::RawQuery,
) -> Result<Response, AppError> {
    let job = state.lab.job(&id)?;
    let Phase::Done { report, .. } = job.phase() else {
        return Err(AppError::Conflict(format!(
            "lab job `{id}` has no report yet: it is running or failed"
        )));
    };
    let mut response = (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CONTENT_SECURITY_POLICY, REPORT_POLICY),
            (header::X_FRAME_OPTIONS, "SAMEORIGIN"),
        ],
        report.to_string(),
    )
        .into_response();
    if query.0.is_some_and(|query| {
        query
            .split('&')
            .any(|pair| pair.split('=').next() == Some("download"))
    }) && let Ok(disposition) = HeaderValue::from_str(&format!(
        "attachment; filename=\"balance-report-{}.html\"",
        job.id
    )) {
        response
            .headers_mut()
            .insert(header::CONTENT_DISPOSITION, disposition);
    }
    Ok(response)
}
