//! `tenka simulate --report`: the balance report is one self-contained HTML file whose
//! sections and numbers are those of the games played.

use std::path::{Path, PathBuf};

use crate::runtime_support::{
    FIXTURE, rulesets_dir, run_ok, shogun_wasm, tenka, tenka_on_fixture, workspace_root,
};

fn scratch(name: &str) -> PathBuf {
    let dir = workspace_root().join("target/test-caches").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Nothing in the report is fetched: no script, stylesheet link, image source or address
/// other than the SVG namespace plotters writes on each figure.
fn assert_self_contained(html: &str) {
    assert!(html.starts_with("<!DOCTYPE html>"), "{}", &html[..80]);
    for refused in [
        "<script", "<link", " src=", "<img", "<iframe", "@import", "url(",
    ] {
        assert!(!html.contains(refused), "the report holds `{refused}`");
    }
    let addresses = html.matches("http://").count() + html.matches("https://").count();
    let namespaces = html.matches("http://www.w3.org/2000/svg").count();
    assert_eq!(addresses, namespaces, "only SVG namespaces name an address");
}

/// The `data-` attributes of the win-rate row of `seat` under arm `arm`.
fn win_row(html: &str, arm: usize, seat: usize) -> (u64, u64) {
    let marker = format!("<tr data-arm=\"{arm}\" data-seat=\"{seat}\" data-wins=\"");
    let start = html.find(&marker).expect("the seat's row") + marker.len();
    let rest = &html[start..];
    let wins = rest[..rest.find('"').unwrap()].parse().unwrap();
    let games_at = rest.find("data-games=\"").unwrap() + "data-games=\"".len();
    let games = rest[games_at..games_at + rest[games_at..].find('"').unwrap()]
        .parse()
        .unwrap();
    (wins, games)
}

fn attribute(html: &str, after: &str, name: &str) -> u64 {
    let start = html.find(after).expect(after);
    let rest = &html[start..];
    let at = rest.find(&format!("{name}=\"")).unwrap() + name.len() + 2;
    rest[at..at + rest[at..].find('"').unwrap()]
        .parse()
        .unwrap()
}

fn simulate_with_report(rulesets: &Path, args: &[&str], report: &Path) -> serde_json::Value {
    let output = run_ok(
        tenka()
            .arg("simulate")
            .arg("--rulesets")
            .arg(rulesets)
            .args(args)
            .args(["--json", "--report"])
            .arg(report),
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn the_report_is_self_contained_and_its_numbers_are_the_games_played() {
    let report = scratch("balance-fixture").join("report.html");
    let json = simulate_with_report(
        rulesets_dir(),
        &[
            "--ruleset",
            FIXTURE,
            "--players",
            "3",
            "--games",
            "60",
            "--seed",
            "4",
            "--option",
            "scoring=double-high",
            "--baseline",
        ],
        &report,
    );
    let html = std::fs::read_to_string(&report).unwrap();
    assert_self_contained(&html);
    for section in [
        "differences",
        "win-rate",
        "first-player",
        "scores",
        "length",
        "method",
    ] {
        assert!(
            html.contains(&format!("<section id=\"{section}\">")),
            "no {section}"
        );
    }
    // Each figure is drawn for both rule sets, side by side.
    assert!(html.matches("<svg").count() >= 8, "the plots are inline");
    assert!(html.contains("two-proportion z-test") && html.contains("permutation test"));
    for (arm, summary) in [(0, &json), (1, &json["baseline"])] {
        assert_eq!(summary["games"], 60);
        for (seat, expected) in summary["seats"].as_array().unwrap().iter().enumerate() {
            assert_eq!(
                win_row(&html, arm, seat),
                (expected["wins"].as_u64().unwrap(), 60),
                "arm {arm}, seat {seat}"
            );
        }
        let length_row = format!("<tr data-arm=\"{arm}\" data-games=\"60\" data-actions=");
        assert_eq!(
            attribute(&html, &length_row, "data-actions"),
            summary["decisions"].as_u64().unwrap()
        );
    }
    assert!(
        html.contains("double-high"),
        "the rules under test are named"
    );
    assert!(json["report_seconds"].as_f64().unwrap() >= 0.0);
}

#[test]
fn a_report_of_one_rule_set_compares_nothing() {
    let report = scratch("balance-single").join("report.html");
    let json = simulate_with_report(
        rulesets_dir(),
        &["--ruleset", FIXTURE, "--players", "2", "--games", "20"],
        &report,
    );
    let html = std::fs::read_to_string(&report).unwrap();
    assert_self_contained(&html);
    assert!(!html.contains("<section id=\"differences\">"));
    assert!(!html.contains("data-arm=\"1\""));
    assert_eq!(
        win_row(&html, 0, 1).0,
        json["seats"][1]["wins"].as_u64().unwrap()
    );
}

#[test]
fn a_simulation_beyond_the_cap_is_refused() {
    let output = tenka_on_fixture("simulate", 2, &["--games", "10001"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("1 to 10000 games"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn a_shogun_variant_report_counts_its_score_lines_events_and_tower() {
    let component = shogun_wasm();
    let dir = component
        .source()
        .and_then(|p| p.parent())
        .unwrap()
        .to_path_buf();
    let report = scratch("balance-shogun").join("report.html");
    let json = simulate_with_report(
        &dir,
        &[
            "--ruleset",
            "shogun",
            "--players",
            "4",
            "--games",
            "6",
            "--variant",
            "beginner",
            "--baseline",
        ],
        &report,
    );
    assert_eq!(json["rules"], "beginner");
    assert_eq!(json["baseline"]["rules"], "standard rules");
    let html = std::fs::read_to_string(&report).unwrap();
    assert_self_contained(&html);
    for section in ["score-lines", "events", "tower"] {
        assert!(
            html.contains(&format!("<section id=\"{section}\">")),
            "no {section}"
        );
    }
    // The beginner setup skips the claiming draft, so its games have no claim at all.
    let claimed = "<tr data-key=\"log.claimed\" data-totals=\"";
    let start = html.find(claimed).expect("claims are counted") + claimed.len();
    let totals = &html[start..start + html[start..].find('"').unwrap()];
    let totals: Vec<f64> = totals.split(' ').map(|t| t.parse().unwrap()).collect();
    assert_eq!(totals[0], 0.0, "no claim under beginner");
    assert!(totals[1] > 0.0, "claims under the standard rules");
}
