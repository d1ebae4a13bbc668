//! Shared helpers of the runtime tests: the test components, built once per test run, and
//! runtimes that load them.
//!
//! The components are built with cargo into a target directory of their own, so the build never
//! waits on the lock of the directory the tests themselves were built in.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, OnceLock};

use host::{GameSpec, LoadedRuleset, Runtime, RuntimeConfig};

/// The id of the fixture ruleset.
pub const FIXTURE: &str = "fixture-ruleset-for-tests";

/// The misbehaviours of the hostile crate, one component each.
pub const HOSTILE: [&str; 9] = [
    "endless-loop",
    "memory-bomb",
    "trap",
    "huge-output",
    "future-contract",
    "deep-recursion",
    "panic",
    "slow-host-calls",
    "forbidden-import",
];

/// The workspace's root directory.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

fn cargo() -> Command {
    let mut command = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    command.current_dir(workspace_root());
    command
}

fn build_component(package: &str, features: Option<&str>, into: &Path) -> Result<(), String> {
    let target_dir = workspace_root().join("target/test-components");
    let mut command = cargo();
    command.args([
        "build",
        "--quiet",
        "-p",
        package,
        "--target",
        "wasm32-wasip2",
        "--profile",
        "ruleset",
    ]);
    command.arg("--target-dir").arg(&target_dir);
    if let Some(features) = features {
        command.args(["--features", features]);
    }
    let output = command
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "building {package} failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let built = target_dir
        .join("wasm32-wasip2/ruleset")
        .join(format!("{}.wasm", package.replace('-', "_")));
    std::fs::copy(&built, into).map_err(|e| format!("cannot copy {}: {e}", built.display()))?;
    Ok(())
}

struct Built {
    rulesets: PathBuf,
    hostile: PathBuf,
}

fn built() -> &'static Built {
    static BUILT: OnceLock<Result<Built, String>> = OnceLock::new();
    let built = BUILT.get_or_init(|| {
        let root = workspace_root().join("target");
        let rulesets = root.join("rulesets-for-tests");
        let hostile = root.join("hostile-for-tests");
        for dir in [&rulesets, &hostile] {
            std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        }
        build_component(FIXTURE, None, &rulesets.join(format!("{FIXTURE}.wasm")))?;
        for feature in HOSTILE {
            build_component(
                "hostile-for-tests",
                Some(feature),
                &hostile.join(format!("hostile-{feature}.wasm")),
            )?;
        }
        Ok(Built { rulesets, hostile })
    });
    match built {
        Ok(built) => built,
        Err(error) => panic!("the test components could not be built: {error}"),
    }
}

/// The directory holding the fixture ruleset's component (and nothing else).
pub fn rulesets_dir() -> &'static Path {
    &built().rulesets
}

/// The component file of one hostile misbehaviour.
pub fn hostile_component(feature: &str) -> PathBuf {
    built().hostile.join(format!("hostile-{feature}.wasm"))
}

/// A cache directory of the test's own, emptied first. Each test names its own, so tests
/// running at the same time never share one.
pub fn fresh_cache(name: &str) -> PathBuf {
    let dir = workspace_root().join("target/test-caches").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// A runtime with default limits and a fresh cache.
pub fn runtime(cache_name: &str) -> Runtime {
    runtime_with(cache_name, |_| {})
}

/// A runtime with a fresh cache and the limits `configure` sets.
pub fn runtime_with(cache_name: &str, configure: impl FnOnce(&mut RuntimeConfig)) -> Runtime {
    let mut config = RuntimeConfig {
        cache_dir: Some(fresh_cache(cache_name)),
        ..RuntimeConfig::default()
    };
    configure(&mut config);
    Runtime::new(config).expect("a runtime starts")
}

/// `component` with `copies` more core instances of a module that defines one memory of
/// `memory_pages` pages of 64 KiB (or no memory at all with `None`), appended at its top level:
/// what a component brings when it wants more memories or instances than a game may have. The
/// Rust toolchain makes one memory per component, so these are written with `wasm-encoder`.
pub fn with_extra_core_instances(
    component: &[u8],
    memory_pages: Option<u64>,
    copies: u32,
) -> Vec<u8> {
    use wasm_encoder::{
        ComponentSection, InstanceSection, MemorySection, MemoryType, Module, ModuleArg,
        ModuleSection,
    };
    use wasmparser::{Parser, Payload};

    // The new module's index is the number of core modules the component defines at its top
    // level.
    let mut modules = 0u32;
    let mut depth = 0usize;
    for payload in Parser::new(0).parse_all(component) {
        match payload.expect("a valid component") {
            Payload::Version { .. } => depth += 1,
            Payload::End(_) => depth -= 1,
            Payload::ModuleSection { .. } if depth == 1 => modules += 1,
            _ => {}
        }
    }
    let mut module = Module::new();
    if let Some(pages) = memory_pages {
        let mut memories = MemorySection::new();
        memories.memory(MemoryType {
            minimum: pages,
            maximum: None,
            memory64: false,
            shared: false,
            page_size_log2: None,
        });
        module.section(&memories);
    }
    let mut instances = InstanceSection::new();
    for _ in 0..copies {
        instances.instantiate(modules, Vec::<(&str, ModuleArg)>::new());
    }
    // Sections may follow one another in any order: appended ones only add indices.
    let mut bytes = component.to_vec();
    ModuleSection(&module).append_to_component(&mut bytes);
    instances.append_to_component(&mut bytes);
    bytes
}

/// The fixture ruleset as a component, loaded once per test run and shared by the tests.
pub fn fixture_wasm() -> Arc<LoadedRuleset> {
    static FIXTURE_WASM: OnceLock<Arc<LoadedRuleset>> = OnceLock::new();
    FIXTURE_WASM
        .get_or_init(|| {
            let runtime = runtime("fixture");
            let path = rulesets_dir().join(format!("{FIXTURE}.wasm"));
            runtime.load_file(&path).expect("the fixture loads").0
        })
        .clone()
}

/// A ruleset compiled natively, in a runtime of its own: the same rules without WebAssembly (the
/// bots see only the contract).
pub fn native<R: sdk::Ruleset>() -> Arc<LoadedRuleset>
where
    R::Game: Send,
{
    let runtime = Runtime::new(RuntimeConfig {
        cache_dir: None,
        ..RuntimeConfig::default()
    })
    .expect("a runtime starts");
    runtime
        .register_native(sdk::native::adapt::<R>())
        .expect("the native ruleset registers")
}

/// The fixture ruleset compiled natively, in a runtime of its own.
pub fn fixture_native() -> Arc<LoadedRuleset> {
    native::<fixture_ruleset_for_tests::Fixture>()
}

/// A game spec on the fixture's default map.
pub fn spec(seats: u32, seed_byte: u8) -> GameSpec {
    GameSpec {
        map_toml: String::new(),
        options: Vec::new(),
        seats,
        seed: [seed_byte; 32],
        position: None,
    }
}

/// Runs a command to its end and returns what it printed; a failure fails the test with the
/// command's error output.
pub fn run_ok(command: &mut Command) -> std::process::Output {
    let output = command.output().expect("the command runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// `tenka COMMAND --rulesets <the fixture's folder> --ruleset <the fixture> --players PLAYERS
/// ARGS`: a command of the command line over the fixture ruleset.
pub fn tenka_on_fixture(command: &str, players: u32, args: &[&str]) -> Command {
    let mut tenka = tenka();
    tenka
        .arg(command)
        .arg("--rulesets")
        .arg(rulesets_dir())
        .args(["--ruleset", FIXTURE, "--players"])
        .arg(players.to_string())
        .args(args);
    tenka
}

/// The `tenka` binary, built once.
pub fn tenka() -> Command {
    static BINARY: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let binary = BINARY.get_or_init(|| {
        let output = cargo()
            .args(["build", "--quiet", "-p", "host", "--bin", "tenka"])
            .output()
            .map_err(|e| e.to_string())?;
        if !output.status.success() {
            return Err(String::from_utf8_lossy(&output.stderr).into_owned());
        }
        // The test binary lives in <target>/<profile>/deps; the tool in <target>/<profile>.
        let exe = std::env::current_exe().map_err(|e| e.to_string())?;
        let profile_dir = exe
            .parent()
            .and_then(Path::parent)
            .ok_or("the test binary has no profile directory")?;
        Ok(profile_dir.join(format!("tenka{}", std::env::consts::EXE_SUFFIX)))
    });
    match binary {
        Ok(path) => {
            let mut command = Command::new(path);
            command.current_dir(workspace_root());
            // Shared by every run of the tool; the cache checks each artifact before use.
            command.env(
                "TENKA_CACHE_DIR",
                workspace_root().join("target/test-caches/cli"),
            );
            command
        }
        Err(error) => panic!("the tenka binary could not be built: {error}"),
    }
}

/// The Shogun component, built once per test run and loaded in a runtime of its own.
pub fn shogun_wasm() -> Arc<LoadedRuleset> {
    static SHOGUN_WASM: OnceLock<Result<Arc<LoadedRuleset>, String>> = OnceLock::new();
    let loaded = SHOGUN_WASM.get_or_init(|| {
        let dir = workspace_root().join("target/shogun-for-tests");
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let path = dir.join("shogun.wasm");
        build_component("shogun", None, &path)?;
        let runtime = runtime("shogun");
        runtime
            .load_file(&path)
            .map(|(ruleset, _)| ruleset)
            .map_err(|e| format!("{e:#}"))
    });
    match loaded {
        Ok(ruleset) => ruleset.clone(),
        Err(error) => panic!("the Shogun component could not be built or loaded: {error}"),
    }
}
