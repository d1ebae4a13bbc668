//! Tidy checks: facts about the tree that prose alone would let drift, run as ordinary tests
//! (`cargo test --package xtask`, and so by `cargo xtask lint`).
//!
//! - `ARCHITECTURE.md` names every crate of the workspace, every module folder of the host and
//!   the SDK, and every ruleset folder, so the map of the code cannot silently fall behind it.
//! - No shipped ruleset is named in `web-ui/`, the host's crates or `sdk/src/`: whatever a game
//!   needs that others could use belongs to the contract, the SDK, the host or the web UI for
//!   every game. The names are read from the `rulesets/` folder, so a new ruleset is covered at
//!   once.
//! - No module of the server spawns blocking work itself: ruleset work waits for one of the
//!   bounded call slots (`host/server/src/slots.rs`).
//! - Only the runtime crate (`host/runtime/`) depends on wasmtime or names it; the game and server
//!   crates run rulesets through its `RunningGame` trait.
//! - No circle among the top-level modules of a host crate, the SDK or a ruleset: each crate's
//!   modules form layers.

use std::path::{Path, PathBuf};

use crate::{root, shipped_rulesets};

/// The folders of `dir` (not `dir` itself), at any depth, as paths relative to `dir` with `/`
/// between components, in name order.
fn folders_under(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut pending = vec![PathBuf::new()];
    while let Some(relative) = pending.pop() {
        let entries = std::fs::read_dir(dir.join(&relative))
            .unwrap_or_else(|error| panic!("cannot list {}: {error}", dir.display()));
        for entry in entries {
            let entry = entry.expect("a readable folder entry");
            if entry.file_type().expect("a file type").is_dir() {
                let path = relative.join(entry.file_name());
                found.push(path.to_string_lossy().replace('\\', "/"));
                pending.push(path);
            }
        }
    }
    found.sort();
    found
}

/// Every file under `dir`, at any depth, skipping installed packages (`node_modules`).
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        for entry in std::fs::read_dir(&folder)
            .unwrap_or_else(|error| panic!("cannot list {}: {error}", folder.display()))
        {
            let entry = entry.expect("a readable folder entry");
            let path = entry.path();
            if entry.file_type().expect("a file type").is_dir() {
                if entry.file_name() != "node_modules" {
                    pending.push(path);
                }
            } else {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// The workspace's crates as folders relative to the root: the members of the root
/// `Cargo.toml`, with `rulesets/*` spelt out.
fn workspace_crates() -> Vec<String> {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).expect("the root manifest");
    let members = manifest
        .lines()
        .find_map(|line| line.trim().strip_prefix("members = ["))
        .expect("the workspace lists its members on one line");
    let mut crates = Vec::new();
    for member in members.trim_end_matches(']').split(',') {
        let member = member.trim().trim_matches('"');
        if member.is_empty() {
            continue;
        }
        match member.strip_suffix("/*") {
            Some(parent) => {
                for name in folders_under(&root().join(parent)) {
                    if !name.contains('/')
                        && root().join(parent).join(&name).join("Cargo.toml").exists()
                    {
                        crates.push(format!("{parent}/{name}"));
                    }
                }
            }
            None => crates.push(member.to_owned()),
        }
    }
    crates
}

/// The host's crates, by folder: the binary on top, then its layers.
const HOST_CRATES: [&str; 4] = ["host", "host/runtime", "host/game", "host/server"];

/// What `ARCHITECTURE.md` should name and does not, as sentences.
fn unnamed_in_architecture(architecture: &str) -> Vec<String> {
    let mut missing = Vec::new();
    for krate in workspace_crates() {
        // A crate is named by its folder (`host/`), a ruleset by its folder under `rulesets/`
        // (`shogun/`), as the code map's headings and paragraphs write them.
        let folder = krate.rsplit('/').next().unwrap_or(&krate);
        if !architecture.contains(&format!("`{folder}/`")) {
            missing.push(format!("the crate `{krate}` (write `{folder}/`)"));
        }
    }
    for krate in HOST_CRATES.iter().chain(&["sdk"]) {
        for folder in folders_under(&root().join(krate).join("src")) {
            if !architecture.contains(&format!("src/{folder}/")) {
                missing.push(format!(
                    "the module folder `{krate}/src/{folder}/` (write `src/{folder}/`)"
                ));
            }
        }
    }
    missing
}

#[test]
fn tidy_architecture_names_every_crate_and_module_folder() {
    let architecture =
        std::fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let missing = unnamed_in_architecture(&architecture);
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md does not name:\n- {}",
        missing.join("\n- ")
    );
}

#[test]
fn tidy_the_architecture_check_notices_a_missing_crate() {
    // The check itself must be able to fail: an ARCHITECTURE.md without the SDK's section
    // misses at least the crate and its folder.
    let architecture =
        std::fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let without_sdk = architecture.replace("`sdk/`", "the SDK");
    let missing = unnamed_in_architecture(&without_sdk);
    assert!(
        missing.iter().any(|line| line.contains("the crate `sdk`")),
        "{missing:?}"
    );
}

/// The places under `dirs` (relative to the root) that name a shipped ruleset, as
/// `path: name` lines.
fn places_naming_a_shipped_ruleset(dirs: &[&str]) -> Vec<String> {
    let names = shipped_rulesets().expect("the rulesets folder lists");
    assert!(!names.is_empty(), "no shipped ruleset found");
    let mut places = Vec::new();
    for dir in dirs {
        for file in files_under(&root().join(dir)) {
            let Ok(text) = std::fs::read_to_string(&file) else {
                // Images and other binary files name nothing.
                continue;
            };
            let text = text.to_lowercase();
            for name in &names {
                if text.contains(&name.to_lowercase()) {
                    let relative = file.strip_prefix(root()).unwrap_or(&file);
                    places.push(format!("{}: {name}", relative.display()));
                }
            }
        }
    }
    places
}

#[test]
fn tidy_web_ui_names_no_shipped_ruleset() {
    let places = places_naming_a_shipped_ruleset(&["web-ui"]);
    assert!(
        places.is_empty(),
        "the web UI serves every game alike, yet names:\n- {}",
        places.join("\n- ")
    );
}

#[test]
fn tidy_host_and_sdk_sources_name_no_shipped_ruleset() {
    let places = places_naming_a_shipped_ruleset(&[
        "host/src",
        "host/runtime/src",
        "host/game/src",
        "host/server/src",
        "sdk/src",
    ]);
    assert!(
        places.is_empty(),
        "the host and the SDK serve every game alike, yet name:\n- {}",
        places.join("\n- ")
    );
}

#[test]
fn tidy_shipped_rulesets_leave_out_the_test_only_ones() {
    let names = shipped_rulesets().expect("the rulesets folder lists");
    assert!(names.iter().all(|name| !name.ends_with("-for-tests")));
    assert!(
        folders_under(&root().join("rulesets"))
            .iter()
            .any(|folder| folder == "hostile-for-tests"),
        "the test-only rulesets exist, so leaving them out is checked"
    );
}

/// The lines of the given sources (path, text) outside `host/server/src/slots.rs` that spawn
/// work on tokio's blocking pool themselves, as `path:line` entries. Comments do not count.
fn blocking_spawns_outside_the_slots(sources: &[(String, String)]) -> Vec<String> {
    let mut places = Vec::new();
    for (path, text) in sources {
        if path.ends_with("server/src/slots.rs") {
            continue;
        }
        for (number, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if code.contains("spawn_blocking") || code.contains("block_in_place") {
                places.push(format!("{path}:{}", number + 1));
            }
        }
    }
    places
}

/// The Rust sources under `dir` (relative to the root), as (path, text).
fn rust_sources(dir: &str) -> Vec<(String, String)> {
    files_under(&root().join(dir))
        .into_iter()
        .filter(|file| file.extension().is_some_and(|extension| extension == "rs"))
        .map(|file| {
            let text = std::fs::read_to_string(&file)
                .unwrap_or_else(|error| panic!("cannot read {}: {error}", file.display()));
            let relative = file.strip_prefix(root()).unwrap_or(&file);
            (relative.display().to_string(), text)
        })
        .collect()
}

#[test]
fn tidy_server_runs_blocking_ruleset_work_only_in_the_call_slots() {
    let places = blocking_spawns_outside_the_slots(&rust_sources("host/server/src"));
    assert!(
        places.is_empty(),
        "ruleset work in the server takes a call slot (server/slots.rs `CallSlots::run`), \
         yet these lines spawn blocking work of their own:\n- {}",
        places.join("\n- ")
    );
}

#[test]
fn tidy_the_slots_check_notices_a_bare_spawn_blocking() {
    let sources = vec![
        (
            "host/server/src/slots.rs".to_owned(),
            "tokio::task::spawn_blocking(work)".to_owned(),
        ),
        (
            "host/server/src/other.rs".to_owned(),
            "// spawn_blocking in a comment\nlet x = tokio::task::spawn_blocking(f);".to_owned(),
        ),
    ];
    assert_eq!(
        blocking_spawns_outside_the_slots(&sources),
        vec!["host/server/src/other.rs:2".to_owned()]
    );
}

/// The host crates other than the runtime that depend on wasmtime in their manifest or name it
/// in a source line (comments aside), as `path` or `path:line` entries.
fn wasmtime_outside_the_runtime() -> Vec<String> {
    let mut places = Vec::new();
    for krate in HOST_CRATES.iter().filter(|krate| **krate != "host/runtime") {
        let manifest = format!("{krate}/Cargo.toml");
        let text = std::fs::read_to_string(root().join(&manifest)).expect("a crate manifest");
        if text
            .lines()
            .any(|line| line.trim_start().starts_with("wasmtime"))
        {
            places.push(manifest);
        }
        for (path, text) in rust_sources(&format!("{krate}/src")) {
            for (number, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or("");
                if code.contains("wasmtime::") || code.contains("wasmtime ") {
                    places.push(format!("{path}:{}", number + 1));
                }
            }
        }
    }
    places
}

#[test]
fn tidy_only_the_runtime_crate_touches_wasmtime() {
    let places = wasmtime_outside_the_runtime();
    assert!(
        places.is_empty(),
        "only host/runtime runs WebAssembly; the other host crates go through its \
         `RunningGame`, yet these name wasmtime:\n- {}",
        places.join("\n- ")
    );
}

/// Each top-level module of a crate's sources (a file or folder beside `lib.rs`) with the
/// top-level modules it uses (`crate::name`, or `super::name` from a top-level file).
fn module_imports(sources: &[(String, String)], src: &str) -> Vec<(String, Vec<String>)> {
    let mut modules: std::collections::BTreeMap<String, std::collections::BTreeSet<String>> =
        std::collections::BTreeMap::new();
    for (path, text) in sources {
        let relative = path
            .strip_prefix(src)
            .unwrap_or(path)
            .trim_start_matches('/');
        let parts: Vec<&str> = relative.split('/').collect();
        let top = parts[0].trim_end_matches(".rs").to_owned();
        if top == "lib" || top == "main" {
            continue;
        }
        let uses = modules.entry(top.clone()).or_default();
        let code: String = text
            .lines()
            .map(|line| line.split("//").next().unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n");
        let mut names = Vec::new();
        for prefix in [
            "crate::",
            if parts.len() == 1 {
                "super::"
            } else {
                "super::super::"
            },
        ] {
            let mut rest = code.as_str();
            while let Some(at) = rest.find(prefix) {
                rest = &rest[at + prefix.len()..];
                if rest.starts_with('{') {
                    names.extend(grouped_names(rest));
                } else {
                    names.push(leading_name(rest));
                }
            }
        }
        uses.extend(
            names
                .into_iter()
                .filter(|name| *name != top && !name.is_empty()),
        );
    }
    let known: Vec<String> = modules.keys().cloned().collect();
    modules
        .into_iter()
        .map(|(module, uses)| {
            let uses = uses
                .into_iter()
                .filter(|name| known.contains(name))
                .collect();
            (module, uses)
        })
        .collect()
}

/// The identifier `text` starts with.
fn leading_name(text: &str) -> String {
    text.trim_start()
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}

/// The first name of each path in a group, `{a, b::{C, D}, e::F}` giving `a`, `b` and `e`.
fn grouped_names(group: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut depth = 0;
    for (at, c) in group.char_indices() {
        match c {
            '{' => {
                depth += 1;
                if depth == 1 {
                    names.push(leading_name(&group[at + 1..]));
                }
            }
            ',' if depth == 1 => names.push(leading_name(&group[at + 1..])),
            '}' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            _ => {}
        }
    }
    names
}

/// The circles among modules, each as `a -> b -> a`.
fn import_circles(modules: &[(String, Vec<String>)]) -> Vec<String> {
    let uses = |module: &str| -> &[String] {
        modules
            .iter()
            .find(|(name, _)| name == module)
            .map(|(_, uses)| uses.as_slice())
            .unwrap_or(&[])
    };
    let mut circles = Vec::new();
    for (start, _) in modules {
        // Depth-first from each module, looking for a way back to it through modules that sort
        // after it (so each circle is reported once, from its first module).
        let mut stack = vec![(start.clone(), vec![start.clone()])];
        let mut seen = std::collections::BTreeSet::new();
        while let Some((module, path)) = stack.pop() {
            for next in uses(&module) {
                if next == start {
                    circles.push(format!("{} -> {start}", path.join(" -> ")));
                } else if next > start && seen.insert(next.clone()) {
                    let mut longer = path.clone();
                    longer.push(next.clone());
                    stack.push((next.clone(), longer));
                }
            }
        }
    }
    circles
}

/// The crates whose modules must form layers: the host's, the SDK and every ruleset (the
/// test-only ones included: they are read as examples too).
fn layered_crates() -> Vec<String> {
    let rulesets = workspace_crates()
        .into_iter()
        .filter(|krate| krate.starts_with("rulesets/"));
    HOST_CRATES
        .iter()
        .map(|krate| (*krate).to_owned())
        .chain(["sdk".to_owned()])
        .chain(rulesets)
        .collect()
}

#[test]
fn tidy_no_crate_has_an_import_circle() {
    let mut circles = Vec::new();
    let crates = layered_crates();
    assert!(
        crates.iter().any(|krate| krate.starts_with("rulesets/")),
        "no ruleset found to check: {crates:?}"
    );
    for krate in crates {
        let src = format!("{krate}/src");
        for circle in import_circles(&module_imports(&rust_sources(&src), &src)) {
            circles.push(format!("{krate}: {circle}"));
        }
    }
    assert!(
        circles.is_empty(),
        "a crate's modules form layers, yet these use each other:\n- {}",
        circles.join("\n- ")
    );
}

#[test]
fn tidy_the_circle_check_notices_a_circle() {
    let sources = vec![
        ("c/src/lib.rs".to_owned(), "mod a; mod b;".to_owned()),
        ("c/src/a.rs".to_owned(), "use crate::b::Thing;".to_owned()),
        (
            "c/src/b/mod.rs".to_owned(),
            "// crate::a in a comment".to_owned(),
        ),
        (
            "c/src/b/inner.rs".to_owned(),
            "use super::super::a::f;".to_owned(),
        ),
        ("c/src/d.rs".to_owned(), "use super::a::f;".to_owned()),
        // A grouped import, over several lines, uses each module it names first.
        (
            "c/src/e.rs".to_owned(),
            "use crate::{\n    d::{X, Y},\n    f,\n};".to_owned(),
        ),
        ("c/src/f.rs".to_owned(), "use super::{e, g::Z};".to_owned()),
    ];
    assert_eq!(
        import_circles(&module_imports(&sources, "c/src")),
        vec!["a -> b -> a".to_owned(), "e -> f -> e".to_owned()]
    );
}

#[test]
fn tidy_a_grouped_import_names_the_first_module_of_each_path() {
    assert_eq!(
        grouped_names("{a, b::{C, d}, e::F};\nuse g;"),
        vec!["a", "b", "e"]
    );
}
