//! The `tenka` command line: listing rulesets, simulating bot games, exporting and replaying
//! records.

use crate::runtime_support::{
    FIXTURE, rulesets_dir, run_ok, tenka, tenka_on_fixture, workspace_root,
};

#[test]
fn simulate_plays_a_thousand_games_and_reports_them_as_json() {
    let output = run_ok(&mut tenka_on_fixture(
        "simulate",
        2,
        &["--games", "1000", "--seed", "1", "--json"],
    ));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["ruleset"], FIXTURE);
    assert_eq!(report["games"], 1000);
    assert_eq!(report["failed_games"], 0);
    assert!(report["decisions"].as_u64().unwrap() >= 5 * 1000);
    assert!(report["wall_time_seconds"].as_f64().unwrap() > 0.0);
    assert!(report["games_per_second"].as_f64().unwrap() > 0.0);
    let seats = report["seats"].as_array().unwrap();
    assert_eq!(seats.len(), 2);
    let wins: u64 = seats.iter().map(|s| s["wins"].as_u64().unwrap()).sum();
    assert!(wins >= 1000, "every game has at least one winner");

    // The same seed gives the same games.
    let again = tenka_on_fixture(
        "simulate",
        2,
        &["--games", "1000", "--seed", "1", "--json", "--threads", "1"],
    )
    .output()
    .unwrap();
    let again: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(again["seats"], report["seats"]);
    assert_eq!(again["decisions"], report["decisions"]);
}

#[test]
fn rulesets_lists_what_is_loaded() {
    let output = tenka()
        .arg("rulesets")
        .arg("--rulesets")
        .arg(rulesets_dir())
        .output()
        .unwrap();
    assert!(output.status.success());
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains(FIXTURE), "{text}");
}

#[test]
fn simulate_refuses_a_bad_request_clearly() {
    let output = tenka_on_fixture("simulate", 2, &["--games", "1", "--option", "rounds=99"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("rounds"));
    let output = tenka()
        .arg("simulate")
        .arg("--rulesets")
        .arg(rulesets_dir())
        .args(["--ruleset", "no-such-game", "--players", "2"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(
        String::from_utf8_lossy(&output.stderr).contains(FIXTURE),
        "lists what is loaded"
    );
}

#[test]
fn exported_records_replay_and_a_tampered_one_is_reported() {
    let export = workspace_root().join(format!("target/test-exports-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&export);
    run_ok(
        tenka_on_fixture(
            "simulate",
            3,
            &[
                "--games",
                "3",
                "--seed",
                "9",
                "--bot",
                "search,random",
                "--option",
                "scoring=double-high",
                "--export",
            ],
        )
        .arg(&export),
    );
    let record_path = export.join("game-00001.json");
    let replay = tenka()
        .arg("replay")
        .arg(&record_path)
        .arg("--rulesets")
        .arg(rulesets_dir())
        .output()
        .unwrap();
    assert!(
        replay.status.success(),
        "{}",
        String::from_utf8_lossy(&replay.stderr)
    );
    assert!(String::from_utf8_lossy(&replay.stdout).contains("replays identically"));

    let mut record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&record_path).unwrap()).unwrap();
    let score = record["result"]["placings"][0]["score"].as_i64().unwrap();
    record["result"]["placings"][0]["score"] = serde_json::json!(score + 5);
    let tampered = export.join("tampered.json");
    std::fs::write(&tampered, record.to_string()).unwrap();
    let replay = tenka()
        .arg("replay")
        .arg(&tampered)
        .arg("--rulesets")
        .arg(rulesets_dir())
        .output()
        .unwrap();
    assert!(!replay.status.success());
    let stderr = String::from_utf8_lossy(&replay.stderr);
    assert!(
        stderr.contains("refused") && stderr.contains("result differs"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&export);
}

#[test]
fn simulate_and_arena_take_the_bot_levels() {
    // A balance run can seat a cheap search level; the seats are named as asked.
    let output = run_ok(&mut tenka_on_fixture(
        "simulate",
        2,
        &["--games", "4", "--bot", "easy,random", "--json"],
    ));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["failed_games"], 0);
    assert_eq!(report["seats"][0]["bot"], "easy", "{report}");
    assert_eq!(report["seats"][1]["bot"], "random", "{report}");

    // The arena plays every pairing and writes its tables, with the command that made them.
    let dir = workspace_root().join("target/arena-for-tests");
    std::fs::create_dir_all(&dir).unwrap();
    let markdown = dir.join("BENCHMARKS.md");
    let _ = std::fs::remove_file(&markdown);
    run_ok(
        tenka_on_fixture(
            "arena",
            2,
            &["--bots", "random,easy,normal", "--games", "2", "--markdown"],
        )
        .arg(&markdown),
    );
    let text = std::fs::read_to_string(&markdown).unwrap();
    assert!(
        text.contains("--bots random,easy,normal --games 2"),
        "{text}"
    );
    for pairing in ["random – easy", "random – normal", "easy – normal"] {
        assert!(text.contains(&format!("| {pairing} | 2 |")), "{text}");
    }
    assert!(text.contains("6 games (0 failed)"), "{text}");

    let refused = tenka_on_fixture("simulate", 2, &["--bot", "strong"])
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("easy, normal, hard"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
}
