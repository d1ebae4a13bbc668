//! `cargo xtask duplicates`: the tree's structural duplicates held to a budget (issue 35).
//!
//! The counting is the `duplicates` command's (pairs of places sharing six or more lines of the
//! same shape), which developers have on their machines and CI does not: where it is missing the
//! check says so and passes, so it is a check before each commit (`.githooks/pre-commit`), not a
//! CI gate. "Structural" pairs are those the tool does not mark boilerplate; "source to source"
//! are the structural pairs with neither side a test, a test helper or a document.
//! The budget lives in `duplicates-budget.txt` at the root: lower it when a clean-up lands.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};

/// The budget file, beside Cargo.toml.
const BUDGET_FILE: &str = "duplicates-budget.txt";

/// What the tool found, counted the way the budget is written.
#[derive(Debug, PartialEq, Eq)]
pub struct Counts {
    pub structural: usize,
    pub source_to_source: usize,
}

/// The limits read from the budget file: `structural N` and `source-to-source N` lines.
#[derive(Debug, PartialEq, Eq)]
pub struct Budget {
    pub structural: usize,
    pub source_to_source: usize,
}

pub fn check(root: &Path) -> Result<()> {
    let budget_text = std::fs::read_to_string(root.join(BUDGET_FILE))
        .with_context(|| format!("failed to read {BUDGET_FILE}"))?;
    let budget = parse_budget(&budget_text)?;
    let output = match Command::new("duplicates")
        .current_dir(root)
        .args(["--seconds", "120", "--most", "200"])
        .output()
    {
        Ok(output) => output,
        Err(_) => {
            eprintln!("xtask: the `duplicates` command is not on this machine; nothing checked");
            return Ok(());
        }
    };
    let report = String::from_utf8_lossy(&output.stdout);
    if report.lines().any(|line| line.starts_with("incomplete:")) {
        bail!("`duplicates` did not read the whole tree:\n{report}");
    }
    let counts = count(&report)?;
    eprintln!(
        "xtask: structural duplicate pairs {} (budget {}), source to source {} (budget {})",
        counts.structural, budget.structural, counts.source_to_source, budget.source_to_source
    );
    if counts.structural > budget.structural || counts.source_to_source > budget.source_to_source {
        bail!(
            "over the duplicates budget in {BUDGET_FILE}: run `duplicates --change` and write \
             the repeated logic once"
        );
    }
    Ok(())
}

fn parse_budget(text: &str) -> Result<Budget> {
    let mut structural = None;
    let mut source_to_source = None;
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (name, value) = line
            .split_once(char::is_whitespace)
            .with_context(|| format!("a budget line is `name number`, not `{line}`"))?;
        let value: usize = value
            .trim()
            .parse()
            .with_context(|| format!("`{line}`: not a whole number"))?;
        match name {
            "structural" => structural = Some(value),
            "source-to-source" => source_to_source = Some(value),
            other => bail!("unknown budget `{other}`"),
        }
    }
    Ok(Budget {
        structural: structural.context("the budget names no `structural` limit")?,
        source_to_source: source_to_source
            .context("the budget names no `source-to-source` limit")?,
    })
}

/// Counts the report: the first line gives the pairs and those marked boilerplate; the rows
/// (structural ones first, as the tool sorts them) tell source from tests.
fn count(report: &str) -> Result<Counts> {
    let first = report.lines().next().unwrap_or_default();
    if first.starts_with("no duplicates") {
        return Ok(Counts {
            structural: 0,
            source_to_source: 0,
        });
    }
    let pairs = leading_number(first).context("the report does not start with a pair count")?;
    let boilerplate = first
        .split(", ")
        .find_map(|part| part.strip_suffix(" of those marked boilerplate)"))
        .and_then(|part| part.split_whitespace().last())
        .map_or(Ok(0), str::parse)
        .context("the boilerplate count is not a number")?;
    let structural = pairs.saturating_sub(boilerplate);
    let source_to_source = report
        .lines()
        .filter(|line| line.starts_with('D') && !line.contains(" boilerplate"))
        .filter_map(row_paths)
        .filter(|(a, b)| is_source(a) && is_source(b))
        .count();
    Ok(Counts {
        structural,
        source_to_source,
    })
}

fn leading_number(line: &str) -> Option<usize> {
    line.split_whitespace().next()?.parse().ok()
}

/// The two paths of a row `D1 a.rs:10-24 ~ b.rs:40-54 ...`.
fn row_paths(line: &str) -> Option<(&str, &str)> {
    let mut words = line.split_whitespace().skip(1);
    let first = words.next()?;
    (words.next()? == "~").then_some(())?;
    let second = words.next()?;
    Some((first.rsplit_once(':')?.0, second.rsplit_once(':')?.0))
}

/// Product source: not a test, a test helper, a benchmark or a document.
fn is_source(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    !(path.starts_with("tests/")
        || path.starts_with("docs/")
        || path.contains("/tests/")
        || path.contains("/benches/")
        || name.contains("test"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const REPORT: &str = "\
10 pairs of places (50 files read), each sharing runs of 6 or more identical or same-shape lines (6 by shape alone, 4 of those marked boilerplate)
D1 host/a.rs:1-9 ~ host/b.rs:3-11 (+2 more runs)
D2 tests/it/x.rs:1-9 ~ host/b.rs:3-11
D3 sdk/src/c.rs:1-9 ~ rulesets/shogun/src/d.rs:5-13 shape
D4 rulesets/shogun/tests/rules.rs:1-9 ~ rulesets/honshu/tests/rules.rs:1-9
D5 host/a.rs:1-7 ~ host/c.rs:1-7 shape boilerplate
";

    #[test]
    fn structural_pairs_are_those_not_marked_boilerplate() {
        assert_eq!(
            count(REPORT).unwrap(),
            Counts {
                structural: 6,
                source_to_source: 2
            }
        );
    }

    #[test]
    fn a_tree_without_duplicates_counts_nothing() {
        let counts = count("no duplicates (12 files read)\n").unwrap();
        assert_eq!(counts.structural, 0);
    }

    #[test]
    fn the_budget_needs_both_limits_and_refuses_strangers() {
        assert_eq!(
            parse_budget("# comment\nstructural 59\nsource-to-source 20\n").unwrap(),
            Budget {
                structural: 59,
                source_to_source: 20
            }
        );
        assert!(parse_budget("structural 59\n").is_err());
        assert!(parse_budget("structural 59\nsource-to-source 20\nother 1\n").is_err());
        assert!(parse_budget("structural many\nsource-to-source 20\n").is_err());
    }
}
