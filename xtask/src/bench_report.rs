//! BENCHMARKS.md's header and the merging of repeated runs: a reader must be able to tell which
//! code and which tools a figure was measured with, and how much it moves from run to run.

use std::fmt::Write as _;

/// Where and with what the benchmarks ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct BenchEnvironment {
    /// The commit (`git rev-parse --short HEAD`), with `-dirty` when the tree had changes.
    pub(crate) commit: String,
    /// `rustc --version`.
    pub(crate) rustc: String,
    /// `node --version` (the peer benchmark's servers and load generator).
    pub(crate) node: String,
    /// The CPU model.
    pub(crate) machine: String,
    /// How many cores the process may use.
    pub(crate) cores: usize,
    /// The machine's memory (`MemTotal` of /proc/meminfo), as text: `23.4 GiB`.
    pub(crate) memory: String,
}

/// Runs of the same benchmarks merged into one text, with how far they spread.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct MergedRuns {
    /// The first run's text with every figure of every table row replaced by the median of the
    /// runs.
    pub(crate) text: String,
    /// How many runs were merged.
    pub(crate) runs: usize,
    /// Per figure merged, (largest - smallest) / |median|, with the row it belongs to.
    pub(crate) spreads: Vec<(String, f64)>,
    /// Whether the runs printed differently shaped text (other rows or other words), in which
    /// case `text` is the first run as it is and no spread could be measured.
    pub(crate) shapes_differ: bool,
}

/// A number in a table cell: its text's position in the line and the value.
struct Figure {
    start: usize,
    end: usize,
    value: f64,
    decimals: usize,
}

/// The figures of a line: runs of digits, with one decimal point inside, not part of a word
/// (so `opt-level = 3` counts and `v0_2` or `sha256` do not).
fn figures(line: &str) -> Vec<Figure> {
    let bytes = line.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let starts_word = i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        if !bytes[i].is_ascii_digit() || starts_word {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        let mut decimals = 0;
        if i + 1 < bytes.len() && bytes[i] == b'.' && bytes[i + 1].is_ascii_digit() {
            i += 1;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
                decimals += 1;
            }
        }
        let ends_word = i < bytes.len() && (bytes[i].is_ascii_alphabetic() && bytes[i] != b'x');
        if ends_word {
            // `2x` is a ratio; `3rd` or `10k` are words.
            continue;
        }
        if let Ok(value) = line[start..i].parse() {
            found.push(Figure {
                start,
                end: i,
                value,
                decimals,
            });
        }
    }
    found
}

/// The line with its figures replaced by `#`: two runs of a row have the same shape.
fn shape(line: &str) -> String {
    let mut out = String::new();
    let mut last = 0;
    for figure in figures(line) {
        out.push_str(&line[last..figure.start]);
        out.push('#');
        last = figure.end;
    }
    out.push_str(&line[last..]);
    out
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let middle = values.len() / 2;
    if values.len() % 2 == 1 {
        values[middle]
    } else {
        (values[middle - 1] + values[middle]) / 2.0
    }
}

/// Merges the texts of repeated runs of the same benchmarks: each figure of a table row (a line
/// starting with `|`) becomes the median of the runs, written with the first run's decimals;
/// other lines are the first run's.
pub(crate) fn merge_runs(runs: &[String]) -> MergedRuns {
    let first = runs.first().cloned().unwrap_or_default();
    let lines: Vec<Vec<&str>> = runs.iter().map(|run| run.lines().collect()).collect();
    let same_shape = lines.iter().all(|run| {
        run.len() == lines[0].len()
            && run
                .iter()
                .zip(&lines[0])
                .all(|(line, first)| shape(line) == shape(first))
    });
    if !same_shape {
        return MergedRuns {
            text: first,
            runs: runs.len(),
            spreads: Vec::new(),
            shapes_differ: true,
        };
    }
    let mut text = String::new();
    let mut spreads = Vec::new();
    for (index, line) in lines.first().into_iter().flatten().enumerate() {
        if !line.starts_with('|') {
            text.push_str(line);
            text.push('\n');
            continue;
        }
        let per_run: Vec<Vec<Figure>> = lines.iter().map(|run| figures(run[index])).collect();
        let row = line
            .split('|')
            .map(str::trim)
            .find(|cell| !cell.is_empty())
            .unwrap_or("")
            .to_owned();
        let mut last = 0;
        for (position, figure) in per_run[0].iter().enumerate() {
            let mut values: Vec<f64> = per_run.iter().map(|run| run[position].value).collect();
            let (low, high) = values
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(low, high), v| {
                    (low.min(*v), high.max(*v))
                });
            let middle = median(&mut values);
            if middle != 0.0 && runs.len() > 1 {
                spreads.push((row.clone(), (high - low) / middle.abs()));
            }
            text.push_str(&line[last..figure.start]);
            let _ = write!(text, "{middle:.*}", figure.decimals);
            last = figure.end;
        }
        text.push_str(&line[last..]);
        text.push('\n');
    }
    if !first.ends_with('\n') {
        text.pop();
    }
    MergedRuns {
        text,
        runs: runs.len(),
        spreads,
        shapes_differ: false,
    }
}

/// The first lines of BENCHMARKS.md: the command, the commit and tools, the machine, how many
/// runs each figure is the median of and how far the runs spread.
pub(crate) fn header(environment: &BenchEnvironment, merged: &MergedRuns) -> String {
    let BenchEnvironment {
        commit,
        rustc,
        node,
        machine,
        cores,
        ..
    } = environment;
    let mut out = format!(
        "# Benchmarks\n\nProduced by `cargo xtask bench` at commit `{commit}` (release build; {rustc}; \
         Node {node}; {cores} cores, {machine}).\n"
    );
    if merged.shapes_differ {
        let _ = writeln!(
            out,
            "The throughput and server benchmarks ran {} times but printed differently shaped \
             results, so the first run is shown and no spread is given.",
            merged.runs
        );
    } else if merged.runs > 1 {
        let mut spreads: Vec<f64> = merged.spreads.iter().map(|(_, spread)| *spread).collect();
        let typical = if spreads.is_empty() {
            0.0
        } else {
            median(&mut spreads)
        };
        let widest = merged
            .spreads
            .iter()
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map_or_else(
                || "none".to_owned(),
                |(row, spread)| format!("{:.1} % (\"{row}\")", spread * 100.0),
            );
        let _ = writeln!(
            out,
            "The throughput and server benchmarks ran {} times: each figure in their tables is the \
             median of the runs. Spread of a figure, (largest - smallest) / median: {:.1} % for \
             the median figure, widest {widest}. The peer benchmark ran once.",
            merged.runs,
            typical * 100.0,
        );
    } else {
        out.push_str("Each benchmark ran once: no spread is measured.\n");
    }
    out.push_str("Ratios compare with a baseline measured in the same run.\n");
    out
}

/// Where BENCHMARKS.md's bot tournaments begin: `tenka arena --markdown` writes them, not
/// `cargo xtask bench` (they take hours), so a bench run keeps them as they are.
pub(crate) const BOTS_BEGIN: &str = "<!-- bots: begin -->";
/// Where they end.
pub(crate) const BOTS_END: &str = "<!-- bots: end -->";

/// `report` with the bots region of `old` (the file being replaced) added at its end, markers
/// included; `report` as it is when `old` has no such region.
pub(crate) fn keep_bots_region(old: &str, report: &str) -> String {
    let region = old.find(BOTS_BEGIN).and_then(|begin| {
        old[begin..]
            .find(BOTS_END)
            .map(|end| &old[begin..begin + end + BOTS_END.len()])
    });
    match region {
        Some(region) => format!("{}\n\n{region}\n", report.trim_end()),
        None => report.to_owned(),
    }
}

/// The markers around a region of BENCHMARKS.md that one benchmark writes and that its own
/// command (`cargo xtask bench --bot-load`, `--soak`) may rewrite alone, keeping the rest.
pub(crate) struct Markers {
    pub(crate) begin: &'static str,
    pub(crate) end: &'static str,
}

/// The bot-load benchmark's region: people's moves while hard bots think.
pub(crate) const BOT_LOAD: Markers = Markers {
    begin: "<!-- bot-load: begin -->",
    end: "<!-- bot-load: end -->",
};

/// The soak benchmark's region: turn-based games over simulated days on two servers.
pub(crate) const SOAK: Markers = Markers {
    begin: "<!-- soak: begin -->",
    end: "<!-- soak: end -->",
};

/// A benchmark's `section` (a `## ` heading, then the text) as a region between its markers,
/// with the command, the commit, the compiler and the machine under its heading: the region may
/// be rewritten alone, after the file's header was.
pub(crate) fn region(
    markers: &Markers,
    environment: &BenchEnvironment,
    command: &str,
    section: &str,
) -> String {
    let BenchEnvironment {
        commit,
        rustc,
        machine,
        cores,
        memory,
        ..
    } = environment;
    let Markers { begin, end } = markers;
    let section = section.trim();
    let (heading, body) = section.split_once("\n\n").unwrap_or((section, ""));
    format!(
        "{begin}\n\n{heading}\n\nMeasured by `{command}` at commit `{commit}` (release \
         build; {rustc}; {cores} cores, {machine}, {memory} of memory).\n\n{body}\n\n\
         {end}\n"
    )
}

/// `old` (BENCHMARKS.md) with `region` in place of its region between `markers`; when it has
/// none, the region goes before the bot tournaments (and their heading), or at the end.
pub(crate) fn put_region(markers: &Markers, old: &str, region: &str) -> String {
    let region = region.trim_end();
    if let Some(begin) = old.find(markers.begin)
        && let Some(length) = old[begin..].find(markers.end)
    {
        let end = begin + length + markers.end.len();
        return format!("{}{region}{}", &old[..begin], &old[end..]);
    }
    let Some(bots) = old.find(BOTS_BEGIN) else {
        return format!("{}\n\n{region}\n", old.trim_end());
    };
    // The tournaments' heading sits just above their marker.
    let before = old[..bots].trim_end();
    let last_line = before.rfind('\n').map_or(0, |at| at + 1);
    let cut = if before[last_line..].starts_with("## ") {
        last_line
    } else {
        bots
    };
    format!("{}\n\n{region}\n\n{}", old[..cut].trim_end(), &old[cut..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn environment() -> BenchEnvironment {
        BenchEnvironment {
            commit: "b37ece5".into(),
            rustc: "rustc 1.95.0 (59807616e 2026-04-14)".into(),
            node: "v22.12.0".into(),
            machine: "AMD EPYC".into(),
            cores: 2,
            memory: "23.4 GiB".into(),
        }
    }

    fn run(native: &str, component: &str) -> String {
        format!(
            "## Games\n\n| what | per action | ratio to native |\n|---|---|---|\n\
             | native ruleset (baseline) | {native} µs | 1.00x |\n\
             | WebAssembly component | {component} µs | 1.29x |\n\n\
             2374 actions per run, opt-level = 3.\n"
        )
    }

    #[test]
    fn figures_are_numbers_not_parts_of_words() {
        let found: Vec<f64> = figures("| v0_2 at 58.6 µs, 1.29x, 3rd of 12 games, sha256 |")
            .iter()
            .map(|f| f.value)
            .collect();
        assert_eq!(found, vec![58.6, 1.29, 12.0]);
    }

    #[test]
    fn merged_runs_show_each_table_figure_as_the_median_with_its_decimals() {
        let merged = merge_runs(&[
            run("58.6", "75.3"),
            run("60.2", "71.0"),
            run("59.0", "80.1"),
        ]);
        assert!(!merged.shapes_differ);
        assert!(
            merged
                .text
                .contains("| native ruleset (baseline) | 59.0 µs | 1.00x |"),
            "{}",
            merged.text
        );
        assert!(
            merged
                .text
                .contains("| WebAssembly component | 75.3 µs | 1.29x |"),
            "{}",
            merged.text
        );
        // Text outside tables is the first run's.
        assert!(
            merged
                .text
                .contains("2374 actions per run, opt-level = 3.\n")
        );
        let component = merged
            .spreads
            .iter()
            .find(|(row, spread)| row == "WebAssembly component" && *spread > 0.1)
            .expect("the component's spread");
        assert!((component.1 - (80.1 - 71.0) / 75.3).abs() < 1e-9);
    }

    #[test]
    fn runs_of_another_shape_are_not_merged() {
        let merged = merge_runs(&[run("58.6", "75.3"), "## Games\n\nfailed\n".to_owned()]);
        assert!(merged.shapes_differ);
        assert_eq!(merged.text, run("58.6", "75.3"));
        let header = header(&environment(), &merged);
        assert!(header.contains("differently shaped"), "{header}");
    }

    #[test]
    fn the_header_names_commit_tools_machine_and_spread() {
        let merged = merge_runs(&[
            run("58.6", "75.3"),
            run("60.2", "71.0"),
            run("59.0", "80.1"),
        ]);
        let header = header(&environment(), &merged);
        assert!(
            header.starts_with(
                "# Benchmarks\n\nProduced by `cargo xtask bench` at commit `b37ece5` (release \
                 build; rustc 1.95.0 (59807616e 2026-04-14); Node v22.12.0; 2 cores, AMD EPYC).\n"
            ),
            "{header}"
        );
        // Six figures: the two times spread 2.7 % and 12.1 %, the four ratios not at all.
        assert!(
            header.contains("ran 3 times: each figure in their tables is the median of the runs"),
            "{header}"
        );
        assert!(header.contains("1.4 % for the median figure"), "{header}");
        assert!(
            header.contains("widest 12.1 % (\"WebAssembly component\")"),
            "{header}"
        );
        assert!(header.ends_with("Ratios compare with a baseline measured in the same run.\n"));
    }

    #[test]
    fn one_run_says_no_spread_was_measured() {
        let merged = merge_runs(&[run("58.6", "75.3")]);
        assert_eq!(merged.text, run("58.6", "75.3"));
        assert!(header(&environment(), &merged).contains("ran once: no spread is measured"));
    }

    #[test]
    fn a_bench_run_keeps_the_bot_tournaments() {
        let old = format!(
            "# Benchmarks\n\nold figures\n\n{BOTS_BEGIN}\n## Bots\n\n| hard | +300 |\n{BOTS_END}\n"
        );
        let kept = keep_bots_region(&old, "# Benchmarks\n\nnew figures\n");
        assert!(
            kept.starts_with("# Benchmarks\n\nnew figures\n\n"),
            "{kept}"
        );
        assert!(!kept.contains("old figures"));
        assert!(kept.ends_with(&format!(
            "{BOTS_BEGIN}\n## Bots\n\n| hard | +300 |\n{BOTS_END}\n"
        )));
        assert_eq!(keep_bots_region("no region", "new\n"), "new\n");
    }

    #[test]
    fn the_bot_load_region_names_command_commit_and_machine() {
        let region = region(
            &BOT_LOAD,
            &environment(),
            "cargo xtask bench --bot-load",
            "## Bots and people\n\n| what | p99 |\n|---|---|\n| people | 2.00 ms |\n",
        );
        assert_eq!(
            region,
            format!(
                "{}\n\n## Bots and people\n\nMeasured by `cargo xtask bench \
                 --bot-load` at commit `b37ece5` (release build; rustc 1.95.0 (59807616e \
                 2026-04-14); 2 cores, AMD EPYC, 23.4 GiB of memory).\n\n| what | p99 |\n\
                 |---|---|\n| people | 2.00 ms |\n\n{}\n",
                BOT_LOAD.begin, BOT_LOAD.end
            )
        );
    }

    #[test]
    fn each_region_is_replaced_alone() {
        let region = |markers: &Markers, figure: &str| {
            format!(
                "{}\n\n## Load\n\n{figure}\n\n{}\n",
                markers.begin, markers.end
            )
        };
        let bots = format!("## Bots: tournaments\n\n{BOTS_BEGIN}\n| hard | +300 |\n{BOTS_END}\n");
        // No region yet: it goes before the tournaments' heading.
        let first = put_region(
            &BOT_LOAD,
            &format!("# Benchmarks\n\nfigures\n\n{bots}"),
            &region(&BOT_LOAD, "1 ms"),
        );
        assert_eq!(
            first,
            format!(
                "# Benchmarks\n\nfigures\n\n{}\n{bots}",
                region(&BOT_LOAD, "1 ms")
            )
        );
        // Then it is replaced where it is, everything else kept.
        let second = put_region(&BOT_LOAD, &first, &region(&BOT_LOAD, "2 ms"));
        assert_eq!(
            second,
            format!(
                "# Benchmarks\n\nfigures\n\n{}\n{bots}",
                region(&BOT_LOAD, "2 ms")
            )
        );
        // The soak's region comes after it, and changes leave the bot-load region as it is.
        let third = put_region(&SOAK, &second, &region(&SOAK, "9 min"));
        assert_eq!(
            third,
            format!(
                "# Benchmarks\n\nfigures\n\n{}\n{}\n{bots}",
                region(&BOT_LOAD, "2 ms"),
                region(&SOAK, "9 min")
            )
        );
        let fourth = put_region(&SOAK, &third, &region(&SOAK, "8 min"));
        assert_eq!(fourth, third.replace("9 min", "8 min"));
        assert_eq!(
            put_region(&BOT_LOAD, "# Benchmarks\n", &region(&BOT_LOAD, "3 ms")),
            format!("# Benchmarks\n\n{}", region(&BOT_LOAD, "3 ms"))
        );
    }
}
