//! The game server behind `tenka serve`: games of any loaded ruleset over an HTTP JSON API, kept
//! safe in SQLite or PostgreSQL, with live updates over server-sent events and server-side bots.
//!
//! Layout: [`storage`] is the database, [`games`] holds live games and runs every ruleset call on
//! the blocking pool, [`api`] is the HTTP surface, [`offer`] the rulesets, maps and variants on
//! offer, [`editor`] edits, checks and draws a map text for the map editor, [`examples`] saves
//! one as an example map for the server's operator, [`reload`] picks up
//! changed files while the server runs, [`openapi`] is the API's description and [`ruleset_calls`] the
//! narrow seam to the runtime.

pub mod accounts;
pub mod api;
pub mod asking;
pub mod clocks;
pub mod connections;
pub mod editor;
pub mod error;
pub mod examples;
pub mod fair;
pub mod games;
pub mod health;
pub mod lab;
pub mod languages;
pub mod limits;
pub mod moves;
pub mod notice_routes;
pub mod notices;
pub mod offer;
pub mod openapi;
pub mod ratings;
pub mod recap;
pub mod reload;
pub mod ruleset_calls;
pub mod slots;
pub mod socket;
pub mod storage;
pub mod test_clock;
pub mod tokens;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::{HeaderName, HeaderValue, header};
use axum::response::Html;
use axum::routing::{get, post, put};
use tower_http::services::{ServeDir, ServeFile};
use tower_http::set_header::SetResponseHeaderLayer;

use self::games::{Hub, HubConfig};
use self::offer::LiveOffer;
use self::ruleset_calls::Runtime;
use self::storage::{DatabaseKind, NOTIFY_CHANNEL, Storage};

/// The largest request body the API accepts.
pub const BODY_LIMIT: usize = 64 * 1024;

/// Settings of the HTTP layer.
#[derive(Clone, Debug, Default)]
pub struct ServerConfig {
    /// Whether `POST /api/games` may fix the seed (tests and teaching; off in production, where
    /// a chosen seed would let its chooser know the dice).
    pub allow_fixed_seeds: bool,
    /// The folder of the web client; `None` serves a page that says it is missing.
    pub web_dir: Option<PathBuf>,
    /// The folder of ruleset components a reload rescans; `None` keeps the rulesets the caller
    /// registered as they are (maps and variants still reload).
    pub rulesets_dir: Option<PathBuf>,
    /// Rate limits per client address and per seat; `None` for none (in-process tests).
    pub rate_limits: Option<limits::RateLimits>,
    /// Event streams and move sockets one client address may hold open at once; 0 for no cap.
    pub streams_per_address: usize,
    /// The variant lab's bounds.
    pub lab: lab::LabConfig,
    /// The operator's token (`--operator-token-file`, `TENKA_OPERATOR_TOKEN`): with it, the
    /// map editor may save maps as examples the lobby offers; `None` (the default) turns that
    /// off.
    pub operator_token: Option<tokens::OperatorToken>,
    /// The clock `--test-clock` lets the operator move on (`POST /api/test/clock`); `None` (the
    /// default) leaves the system's clock alone and the route answering 404.
    pub test_clock: Option<Arc<clocks::ShiftedClock>>,
}

/// How long an API request may take before it is answered 503 (the live stream excepted).
pub const REQUEST_DEADLINE: Duration = Duration::from_secs(30);

/// Everything a handler needs.
#[derive(Clone)]
pub struct AppState {
    /// The live games.
    pub hub: Arc<Hub>,
    /// The rulesets, maps and variants on offer, rebuilt when their files change.
    pub offer: Arc<LiveOffer>,
    /// Settings of the HTTP layer.
    pub config: Arc<ServerConfig>,
    /// The rate limits' buckets.
    pub limiter: Arc<limits::Limiter>,
    /// The event streams and move sockets each client address holds open.
    pub stream_slots: connections::StreamSlots,
    /// The variant lab's jobs.
    pub lab: Arc<lab::Lab>,
    /// The map editor's bounds.
    pub editor: Arc<editor::EditorLimits>,
    /// Accounts: settings, sign-in limits, password hashing slots.
    pub accounts: Arc<accounts::Accounts>,
}

impl AppState {
    /// Builds the state: checks the maps of every loaded ruleset and opens the hub.
    pub async fn new(
        storage: Storage,
        runtime: Arc<Runtime>,
        maps_dir: &Path,
        hub_config: HubConfig,
        config: ServerConfig,
    ) -> anyhow::Result<AppState> {
        let hub = Hub::new(storage, runtime.clone(), hub_config);
        // A rated table's result moves its players' ratings as soon as it is stored; the live
        // games only say that a game finished, so they never depend on the ratings.
        hub.on_game_finished(Box::new(ratings::game_finished));
        let offer = LiveOffer::start(
            runtime,
            hub.call_slots(),
            maps_dir.to_owned(),
            config.rulesets_dir.clone(),
        )
        .await
        .context("failed to read the maps")?;
        Ok(AppState {
            hub,
            offer: Arc::new(offer),
            limiter: Arc::new(limits::Limiter::new(
                config
                    .rate_limits
                    .as_ref()
                    .unwrap_or(&limits::RateLimits::OFF),
            )),
            stream_slots: connections::AddressSlots::new(config.streams_per_address),
            lab: Arc::new(lab::Lab::new(config.lab.clone())),
            editor: Arc::default(),
            accounts: Arc::default(),
            config: Arc::new(config),
        })
    }
}

/// The answer to a request (or a move on the move socket) still running at [`REQUEST_DEADLINE`].
fn past_the_deadline() -> error::AppError {
    error::AppError::Busy(format!(
        "the server took longer than {} s to answer; try again",
        REQUEST_DEADLINE.as_secs()
    ))
}

/// The whole HTTP application: `/api` plus the web client.
pub fn app(state: AppState) -> Router {
    // Every request but the live stream and the move socket (which last as long as a player
    // watches or plays; each move on the socket has the same deadline) has a deadline.
    let deadline = tower::ServiceBuilder::new()
        .layer(axum::error_handling::HandleErrorLayer::new(
            |_: tower::BoxError| async { past_the_deadline() },
        ))
        .timeout(REQUEST_DEADLINE);
    let api = Router::new()
        .route("/rulesets", get(api::list_rulesets))
        .route("/rulesets/{id}/catalogue/{lang}", get(api::catalogue))
        .route("/rulesets/{id}/maps/{map}", get(api::map_preview))
        .route("/rulesets/{id}/editor", post(editor::edit))
        .route("/rulesets/{id}/examples/{name}", put(examples::save))
        .route("/games", get(api::list_games).post(api::create_game))
        .route("/games/{id}", get(api::get_game))
        .route("/games/{id}/claim", post(api::claim))
        .route("/games/{id}/join", post(api::join))
        .route("/games/{id}/invites", get(api::invites))
        .route(
            "/games/{id}/seats/{seat}/invite",
            post(api::reissue_invite).delete(api::revoke_invite),
        )
        .route("/games/{id}/stream-ticket", post(api::stream_ticket))
        .route("/games/{id}/view", get(api::view))
        .route("/games/{id}/actions", post(api::submit_action))
        .route("/games/{id}/preview", post(api::preview_action))
        .route("/games/{id}/log", get(api::log))
        .route("/games/{id}/recap", get(recap::recap))
        .route("/games/{id}/recap/board", get(recap::board))
        .route("/ratings", get(ratings::leaderboard))
        .route("/games/{id}/seats/{seat}/bot", post(api::hand_to_bot))
        .route("/games/{id}/seats/{seat}/reopen", post(api::reopen_seat))
        .route("/games/{id}/record", get(api::record))
        .route("/lab", post(lab::start))
        .route("/lab/{id}", get(lab::status).delete(lab::cancel))
        .route("/lab/{id}/report", get(lab::report))
        .route("/openapi.json", get(openapi::document))
        .route("/accounts", post(accounts::sign_up))
        .route("/accounts/sign-in", post(accounts::sign_in))
        .route("/accounts/sign-out", post(accounts::sign_out))
        .route(
            "/accounts/passkeys/sign-up",
            post(accounts::passkeys::sign_up_start),
        )
        .route(
            "/accounts/passkeys/sign-up/finish",
            post(accounts::passkeys::sign_up_finish),
        )
        .route(
            "/accounts/passkeys/sign-in",
            post(accounts::passkeys::sign_in_start),
        )
        .route(
            "/accounts/passkeys/sign-in/finish",
            post(accounts::passkeys::sign_in_finish),
        )
        .route("/me", get(accounts::me))
        .route("/me/language", put(accounts::set_language))
        .route("/me/passkeys", get(accounts::passkeys::list))
        .route("/me/passkeys/start", post(accounts::passkeys::add_start))
        .route("/me/passkeys/finish", post(accounts::passkeys::add_finish))
        .route(
            "/me/passkeys/{id}",
            axum::routing::delete(accounts::passkeys::remove),
        )
        .route("/me/seats", post(accounts::attach_seats))
        .route("/me/games", get(accounts::my_games))
        .route(
            "/me/games/{id}/seats/{seat}/token",
            post(accounts::seat_token),
        )
        .route("/me/notices", get(notice_routes::list))
        .route("/me/notices/seen", post(notice_routes::seen))
        .route(
            "/me/notice-settings",
            get(notice_routes::settings).put(notice_routes::save_settings),
        )
        .route(
            "/notices/unsubscribe",
            get(notice_routes::unsubscribe_page).post(notice_routes::unsubscribe),
        )
        .route(
            "/notices/open/{token}",
            get(notice_routes::open_page).post(notice_routes::open),
        )
        .route("/health", get(health::health))
        .route("/health/page", get(health::page))
        .route("/test/clock", post(test_clock::advance))
        .layer(deadline)
        .merge(
            // Streams and sockets outlive their request: each holds one of its address's slots.
            Router::new()
                .route("/games/{id}/stream", get(api::stream))
                .route("/socket", get(socket::upgrade))
                .route_layer(axum::middleware::from_fn_with_state(
                    state.stream_slots.clone(),
                    connections::limit_streams,
                )),
        )
        .fallback(api::unknown_api)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(axum::middleware::from_fn_with_state(
            state.limiter.clone(),
            limits::limit,
        ))
        .layer(axum::middleware::from_fn(read_body_first))
        // Answers carry seat tokens and secrets of one viewer: no cache may keep them.
        .layer(SetResponseHeaderLayer::overriding(
            header::CACHE_CONTROL,
            HeaderValue::from_static("no-store"),
        ))
        .with_state(state.clone());
    let router = Router::new().nest("/api", api);
    let router = match &state.config.web_dir {
        Some(dir) if dir.join("index.html").is_file() => router
            .fallback_service(ServeDir::new(dir).fallback(ServeFile::new(dir.join("index.html")))),
        _ => router.fallback(|| async {
            Html(
                "<!doctype html><title>Tenka</title><p>The Tenka server is running, but the web \
                 client was not found. Start it with <code>--web DIR</code> pointing at the \
                 web-ui folder; the API is under <a href=\"/api/openapi.json\">/api</a>.</p>",
            )
        }),
    };
    with_security_headers(router.layer(axum::middleware::from_fn(refuse_overlong_segments)))
}

/// How long a client has to send a request's whole body.
pub const BODY_DEADLINE: Duration = Duration::from_secs(20);

/// Reads an API request's whole body (at most [`BODY_LIMIT`], within [`BODY_DEADLINE`]) before
/// anything answers it. An answer given while the body is still arriving (a 429 of the rate
/// limit, a 404 for an unknown game) makes hyper close the connection with the rest unread, and
/// the client may then see the connection reset instead of the answer. A body too large is
/// answered 413 and one too slow 408, both as soon as that is known.
async fn read_body_first(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::response::IntoResponse as _;
    let (parts, body) = request.into_parts();
    let declared = parts
        .headers
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok());
    if declared.is_some_and(|length| length > BODY_LIMIT as u64) {
        return error::AppError::PayloadTooLarge.into_response();
    }
    let bytes = match tokio::time::timeout(BODY_DEADLINE, axum::body::to_bytes(body, BODY_LIMIT))
        .await
    {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(error)) => {
            // Over the limit (a chunked body) or cut off by the client.
            let too_large = std::error::Error::source(&error)
                .is_some_and(|source| source.is::<http_body_util::LengthLimitError>());
            return if too_large {
                error::AppError::PayloadTooLarge.into_response()
            } else {
                error::AppError::BadRequest(format!("the request body could not be read: {error}"))
                    .into_response()
            };
        }
        Err(_) => return error::AppError::SlowBody(BODY_DEADLINE.as_secs()).into_response(),
    };
    next.run(axum::extract::Request::from_parts(
        parts,
        axum::body::Body::from(bytes),
    ))
    .await
}

/// The longest path segment served: file systems refuse longer names (`ENAMETOOLONG`), which
/// would otherwise surface as a server error.
const MAX_SEGMENT_BYTES: usize = 255;

/// Answers 404 for a path with an overlong segment: no game, ruleset or file has such a name.
async fn refuse_overlong_segments(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    if request
        .uri()
        .path()
        .split('/')
        .any(|segment| segment.len() > MAX_SEGMENT_BYTES)
    {
        return axum::response::IntoResponse::into_response(error::AppError::NotFound(
            "no resource has a name this long".to_owned(),
        ));
    }
    next.run(request).await
}

/// The Content-Security-Policy of every response. Scripts, styles, fonts and connections come
/// only from this server; nothing may frame the page, and no plugin, base URL or foreign form
/// target is allowed. Inline styles stay allowed because a ruleset's board brings a `<style>`
/// (rebuilt by [`tenka_runtime::svg_sanitizer`] first); inline scripts are never allowed, so even a
/// drawing that got past both sanitizers could not run code. Frames may come from this server
/// only: the variant lab shows its report (which runs no script, see [`lab::REPORT_POLICY`]) in
/// a sandboxed frame.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
     style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; \
     connect-src 'self'; manifest-src 'self'; frame-src 'self'; base-uri 'none'; \
     form-action 'self'; frame-ancestors 'none'; object-src 'none'";

/// The usual security headers, on every response (API, web client, errors and the serve loop's
/// refusals alike).
pub const SECURITY_HEADERS: [(HeaderName, &str); 7] = [
    (header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY),
    (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
    (header::X_FRAME_OPTIONS, "DENY"),
    (header::REFERRER_POLICY, "no-referrer"),
    (
        HeaderName::from_static("cross-origin-opener-policy"),
        "same-origin",
    ),
    (
        HeaderName::from_static("cross-origin-resource-policy"),
        "same-origin",
    ),
    (
        HeaderName::from_static("permissions-policy"),
        "camera=(), microphone=(), geolocation=(), payment=(), usb=()",
    ),
];

/// Sets [`SECURITY_HEADERS`] on every response of `router`. The policy and the framing rule
/// are kept where a handler set stricter ones of its own (the lab's report); every other header
/// is always the server's.
fn with_security_headers(router: Router) -> Router {
    SECURITY_HEADERS
        .into_iter()
        .fold(router, |router, (name, value)| {
            let value = HeaderValue::from_static(value);
            if name == header::CONTENT_SECURITY_POLICY || name == header::X_FRAME_OPTIONS {
                router.layer(SetResponseHeaderLayer::if_not_present(name, value))
            } else {
                router.layer(SetResponseHeaderLayer::overriding(name, value))
            }
        })
}

/// Options of `tenka serve` (the rulesets and maps folders are the command line's global
/// options).
#[derive(Clone, Debug, clap::Args)]
pub struct ServeArgs {
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    /// The folder for the embedded database.
    #[arg(long, default_value = "data")]
    pub data: PathBuf,
    /// A database URL (`postgres://...`) instead of the embedded SQLite file.
    #[arg(long)]
    pub database: Option<String>,
    /// The folder of the web client.
    #[arg(long, default_value = "web-ui")]
    pub web: PathBuf,
    /// How long bots wait before each move, in milliseconds.
    #[arg(long, default_value_t = 300)]
    pub bot_pace_ms: u64,
    /// Store a snapshot every this many actions.
    #[arg(long, default_value_t = 32)]
    pub snapshot_every: u64,
    /// Accept fixed seeds in `POST /api/games` (for tests only: a chosen seed reveals the dice).
    #[arg(long, hide = true)]
    pub allow_fixed_seeds: bool,
    /// Do not watch the rulesets and maps folders for changes (`SIGHUP` still reloads).
    #[arg(long)]
    pub no_watch: bool,
    /// The ruleset the lobby opens on (listed first by `GET /api/rulesets`); without it, the
    /// first by id.
    #[arg(long)]
    pub default_ruleset: Option<String>,
    /// The most games held in memory at once (beyond it, idle games are unloaded; when none is
    /// idle, new ones are refused as busy).
    #[arg(long, default_value_t = 20_000)]
    pub max_live_games: usize,
    /// The most games that keep a running WebAssembly instance; the least recently used others
    /// are parked (state kept in memory, instance freed) and restored on their next call. By
    /// default as many as fit in the rulesets' memory budget at their full budget each, at most
    /// 1,024 (see `docs/deploy.md`).
    #[arg(long)]
    pub max_running_games: Option<usize>,
    /// API requests per second one client address may make on average (0: no limit).
    #[arg(long, default_value_t = 50)]
    pub requests_per_second: u32,
    /// Games one client address may create per minute (0: no limit).
    #[arg(long, default_value_t = 20)]
    pub games_per_minute: u32,
    /// Actions per second one seat may send (0: no limit).
    #[arg(long, default_value_t = 10)]
    pub actions_per_second: u32,
    /// How long bots wait before each move in a game of bots alone that nobody watches, in
    /// milliseconds.
    #[arg(long, default_value_t = 2_000)]
    pub unwatched_bot_pace_ms: u64,
    /// The most games played by bots alone one client address may have running at once.
    #[arg(long, default_value_t = 4)]
    pub bot_games_per_address: usize,
    /// Seconds a client has to send a whole request head; an idle keep-alive connection is
    /// closed after as long without a new request.
    #[arg(long, default_value_t = 10)]
    pub head_timeout_secs: u64,
    /// The largest request head (request line and headers) in KiB; larger ones are answered 431.
    #[arg(long, default_value_t = 32)]
    pub max_header_kib: usize,
    /// Open connections one client address (an IPv6 one by its /64) may hold; more are answered
    /// 429 at once (0: no cap).
    #[arg(long, default_value_t = 128)]
    pub connections_per_address: usize,
    /// Event streams and move sockets one client address may hold open; more are answered 429
    /// (0: no cap).
    #[arg(long, default_value_t = 32)]
    pub streams_per_address: usize,
    /// Open connections of all clients together; more are answered 503 at once (0: the
    /// process's open-file limit, raised to its hard limit at start, less 256 kept for the
    /// server's own files).
    #[arg(long, default_value_t = 0)]
    pub max_connections: usize,
    /// Variant-lab jobs (`POST /api/lab`) running at once on the server, each on one thread at
    /// low priority (0: the lab is off).
    #[arg(long, default_value_t = 2)]
    pub lab_jobs: usize,
    /// Variant-lab jobs one client address may have running at once.
    #[arg(long, default_value_t = 1)]
    pub lab_jobs_per_address: usize,
    /// The most games a variant-lab job may ask for, per rule set.
    #[arg(long, default_value_t = 200)]
    pub lab_max_games: u64,
    /// Finished variant-lab jobs kept for reading (each for an hour at most); beyond, the oldest
    /// is dropped.
    #[arg(long, default_value_t = 32)]
    pub lab_kept: usize,
    /// A file holding the operator token (at least 16 characters; a last newline is ignored):
    /// whoever sends it may save maps from the map editor as examples the lobby offers. The
    /// environment variable `TENKA_OPERATOR_TOKEN` is the other way to give it. Without either,
    /// saving examples is off.
    #[arg(long, value_name = "PATH")]
    pub operator_token_file: Option<PathBuf>,
    /// Mark the account session cookie `Secure`: give it when the server is reached over HTTPS
    /// (directly or behind a proxy), so the browser never sends the cookie in clear.
    #[arg(long)]
    pub secure_cookies: bool,
    /// Sign-in and sign-up attempts one client address may make per minute (0: no limit).
    #[arg(long, default_value_t = 10)]
    pub sign_ins_per_minute: u32,
    /// Sign-in attempts one account may get per hour, from any address (0: no limit).
    #[arg(long, default_value_t = 20)]
    pub sign_ins_per_account_per_hour: u32,
    /// The SMTP relay that sends notices by mail: `smtp://host:port` (plain, a relay on this
    /// machine or network), `smtp://host:587?tls=required` (STARTTLS) or `smtps://host:465`,
    /// with `user:password@` if the relay wants them. Without it, no mail is sent (notices
    /// still show in the page, and mails stay queued until a server with a relay sends them).
    #[arg(long, value_name = "URL", requires_all = ["mail_from", "public_url"])]
    pub smtp_url: Option<String>,
    /// The address notices are sent from (`Tenka <tenka@example.org>`).
    #[arg(long, value_name = "ADDRESS")]
    pub mail_from: Option<String>,
    /// The server's public address, for the links in mails (`https://play.example.org`); its
    /// host is also the passkeys' relying party (without it, the host each request names).
    #[arg(long, value_name = "URL")]
    pub public_url: Option<String>,
    /// Let the operator move the server's clock on (`POST /api/test/clock` with the operator
    /// token), for browser tests that play over days. Never on a real server: every table clock
    /// would run out at the operator's word.
    #[arg(long, hide = true)]
    pub test_clock: bool,
}

/// The environment variable that may hold the operator token instead of a file.
pub const OPERATOR_TOKEN_VAR: &str = "TENKA_OPERATOR_TOKEN";

impl ServeArgs {
    /// The operator token, from `--operator-token-file` or [`OPERATOR_TOKEN_VAR`] (an empty
    /// variable counts as none); both at once, an unreadable file or a token too short is an
    /// error, so a server never starts with a token other than the one meant.
    pub fn operator_token(&self) -> anyhow::Result<Option<tokens::OperatorToken>> {
        let from_env = std::env::var(OPERATOR_TOKEN_VAR)
            .ok()
            .filter(|value| !value.trim().is_empty());
        let text = match (&self.operator_token_file, from_env) {
            (Some(_), Some(_)) => anyhow::bail!(
                "the operator token is given twice: by --operator-token-file and by \
                 {OPERATOR_TOKEN_VAR}; give it once"
            ),
            (Some(path), None) => std::fs::read_to_string(path).with_context(|| {
                format!("failed to read the operator token from {}", path.display())
            })?,
            (None, Some(value)) => value,
            (None, None) => return Ok(None),
        };
        tokens::OperatorToken::new(&text).map(Some)
    }

    /// The mail sender `--smtp-url` asks for, reading the time from `clock` (the tables' clock).
    pub fn mailer(
        &self,
        storage: &Storage,
        clock: Arc<dyn clocks::Clock>,
    ) -> anyhow::Result<Option<notices::mailer::Mailer>> {
        let (Some(smtp_url), Some(from), Some(public_url)) =
            (&self.smtp_url, &self.mail_from, &self.public_url)
        else {
            return Ok(None);
        };
        let settings = notices::mailer::MailSettings {
            smtp_url: smtp_url.clone(),
            from: from.clone(),
            public_url: public_url.clone(),
        };
        notices::mailer::Mailer::new(storage.clone(), clock, &settings).map(Some)
    }

    /// The serve loop's caps these options ask for.
    pub fn connection_limits(&self) -> connections::ConnectionLimits {
        connections::ConnectionLimits {
            head_timeout: Duration::from_secs(self.head_timeout_secs.max(1)),
            max_header_bytes: self.max_header_kib.max(8) << 10,
            per_address: self.connections_per_address,
            max_connections: self.max_connections,
        }
    }
}

/// Runs the server until interrupted, with the rulesets of `runtime` (loaded from
/// `rulesets_dir`, which hot reload rescans, or registered by the caller) and the maps of
/// `maps_dir`. Logs (and prints) the address it serves once it is ready.
pub async fn serve(
    args: ServeArgs,
    runtime: Arc<Runtime>,
    rulesets_dir: Option<&Path>,
    maps_dir: &Path,
) -> anyhow::Result<()> {
    serve_on_clock(
        args,
        runtime,
        rulesets_dir,
        maps_dir,
        Arc::new(clocks::SystemClock),
    )
    .await
}

/// [`serve`] with the table clocks and the mail sender reading the time from `clock`: the
/// system's in production, a manual one in the soak benchmark, whose server processes share a
/// simulated clock so that days of turn-based play pass in seconds.
pub async fn serve_on_clock(
    args: ServeArgs,
    runtime: Arc<Runtime>,
    rulesets_dir: Option<&Path>,
    maps_dir: &Path,
    clock: Arc<dyn clocks::Clock>,
) -> anyhow::Result<()> {
    let operator_token = args.operator_token()?;
    if let Some(public_url) = &args.public_url {
        accounts::passkeys::check_public_url(public_url)?;
    }
    let test_clock = args.test_clock.then(clocks::ShiftedClock::new);
    if test_clock.is_some() && operator_token.is_none() {
        anyhow::bail!(
            "--test-clock needs an operator token (--operator-token-file or \
             {OPERATOR_TOKEN_VAR}): only the operator may move the clock"
        );
    }
    // A test server's movable clock stands in for the one given.
    let clock: Arc<dyn clocks::Clock> = match &test_clock {
        Some(shifted) => shifted.clone(),
        None => clock,
    };
    let storage = Storage::open(args.database.as_deref(), &args.data).await?;
    let mailer = args.mailer(&storage, clock.clone())?;
    let hub_config = HubConfig {
        clock,
        bot_pace: Duration::from_millis(args.bot_pace_ms),
        snapshot_every: args.snapshot_every.max(1),
        max_live_games: args.max_live_games.max(1),
        max_running_games: args
            .max_running_games
            .unwrap_or_else(|| runtime.games_that_fit().min(1_024))
            .max(1),
        unwatched_bot_pace: Duration::from_millis(args.unwatched_bot_pace_ms),
        bot_games_per_creator: args.bot_games_per_address.max(1),
        ..HubConfig::default()
    };
    let config = ServerConfig {
        allow_fixed_seeds: args.allow_fixed_seeds,
        web_dir: Some(args.web.clone()),
        rulesets_dir: rulesets_dir.map(Path::to_owned),
        rate_limits: Some(limits::RateLimits {
            requests_per_second: args.requests_per_second,
            request_burst: args.requests_per_second.saturating_mul(4),
            actions_per_second: args.actions_per_second,
            games_per_minute: args.games_per_minute,
        }),
        streams_per_address: args.streams_per_address,
        lab: lab::LabConfig {
            max_games: args.lab_max_games.max(1),
            jobs: args.lab_jobs,
            jobs_per_address: args.lab_jobs_per_address.max(1),
            kept: args.lab_kept,
            ..lab::LabConfig::default()
        },
        operator_token,
        test_clock,
    };
    // Before anything opens files: the connection cap is derived from the raised limit.
    if let Some(open_files) = connections::raise_open_file_limit() {
        tracing::info!("open-file limit: {open_files}");
    }
    let mut state = AppState::new(storage.clone(), runtime, maps_dir, hub_config, config).await?;
    state.accounts = Arc::new(accounts::Accounts::new(accounts::AccountSettings {
        secure_cookies: args.secure_cookies,
        sign_ins_per_minute: args.sign_ins_per_minute,
        sign_ins_per_account_per_hour: args.sign_ins_per_account_per_hour,
        public_url: args.public_url.clone(),
        ..accounts::AccountSettings::default()
    }));
    accounts::spawn_forgetting(state.accounts.clone());
    if let Some(mailer) = mailer {
        tracing::info!("notices by mail: on");
        mailer.spawn();
    }
    if !args.no_watch
        && let Err(error) = reload::watch(state.offer.clone())
    {
        tracing::warn!("hot reload is off: {error:#}");
    }
    reload::reload_on_hangup(state.offer.clone())?;
    if state.config.operator_token.is_some() {
        tracing::info!("operator token set: the map editor may save example maps");
    }
    if state.config.test_clock.is_some() {
        tracing::warn!("--test-clock: the operator may move this server's clock on");
    }
    if let Some(id) = &args.default_ruleset {
        state.offer.set_default_ruleset(id);
    }
    if storage.kind() == DatabaseKind::Postgres {
        spawn_listener(storage.url().to_owned(), state.hub.clone()).await?;
    }
    spawn_evictor(state.hub.clone(), state.limiter.clone());
    ratings::spawn_sweeper(state.hub.clone());
    resume_games(&state).await;

    let listener = tokio::net::TcpListener::bind(args.addr)
        .await
        .with_context(|| format!("failed to listen on {}", args.addr))?;
    let local = listener
        .local_addr()
        .context("failed to read the bound address")?;
    tracing::info!("serving on http://{local}");
    // Also on stdout, for scripts and tests that wait for the server to be ready.
    println!("tenka serving on http://{local}");
    // With the peer's address, which the rate limits key on.
    connections::serve(listener, app(state), args.connection_limits(), async {
        let _ = tokio::signal::ctrl_c().await;
    })
    .await
    .context("the server stopped")
}

/// Loads every unfinished stored game once, so games waiting for bots go on after a restart.
async fn resume_games(state: &AppState) {
    let ids = match state.hub.storage().list_games(10_000).await {
        Ok(listed) => listed
            .into_iter()
            .filter(|(game, _, _)| game.finished_at.is_none())
            .filter(|(_, seats, _)| seats.iter().any(|seat| seat.bot.is_some()))
            .map(|(game, _, _)| game.id)
            .collect::<Vec<_>>(),
        Err(error) => {
            tracing::warn!("failed to list games to resume: {error:#}");
            return;
        }
    };
    for id in ids {
        if let Err(error) = state.hub.game(&id).await {
            tracing::warn!("failed to resume game {id}: {error}");
        }
    }
}

/// Listens for changes made by other server processes on the same PostgreSQL database.
async fn spawn_listener(url: String, hub: Arc<Hub>) -> anyhow::Result<()> {
    let mut listener = sqlx::postgres::PgListener::connect(&url)
        .await
        .context("failed to connect the change listener")?;
    listener
        .listen(NOTIFY_CHANNEL)
        .await
        .context("failed to listen for changes")?;
    tokio::spawn(async move {
        loop {
            match listener.recv().await {
                Ok(notification) => {
                    let hub = hub.clone();
                    let payload = notification.payload().to_owned();
                    tokio::spawn(async move { hub.remote_change(&payload).await });
                }
                Err(error) => {
                    // The listener reconnects by itself on the next `recv`, but what was notified
                    // meanwhile is lost: catch every game in memory up from the database.
                    tracing::warn!("change listener: {error}");
                    tokio::time::sleep(Duration::from_millis(200)).await;
                    let hub = hub.clone();
                    tokio::spawn(async move { hub.resync().await });
                }
            }
        }
    });
    Ok(())
}

/// Drops idle sessions and full rate-limit buckets every minute.
fn spawn_evictor(hub: Arc<Hub>, limiter: Arc<limits::Limiter>) {
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(Duration::from_secs(60));
        loop {
            ticks.tick().await;
            hub.evict_idle().await;
            limiter.forget_idle();
        }
    });
}
