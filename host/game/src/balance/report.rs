//! The balance report as one self-contained HTML file: inline CSS, plots as inline SVG drawn
//! with plotters, no script and nothing fetched, so it opens offline and can be mailed.
//!
//! Every figure is drawn once per rule set, side by side on the same axes, with a table of the
//! numbers (each row carries them as `data-` attributes too, for tools) and a plain-words line
//! on what differs significantly at p < 0.05: win rates by a two-proportion z-test, means by a
//! permutation test (see [`super::stats`]).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use plotters::prelude::*;
use sdk::svg::escape;
use serde::Serialize;

use super::{ArmResult, GameStats, Simulation};
use crate::stats::{
    PERMUTATIONS, Proportion, SIGNIFICANCE, mean, permutation_p, two_proportion_p, wilson,
};

/// Colours of the rule set under test and of the one compared with.
const ARM_COLOURS: [RGBColor; 2] = [RGBColor(38, 96, 160), RGBColor(200, 110, 30)];

/// One figure's size in pixels: two fit side by side in a 1000-pixel page.
const FIGURE: (u32, u32) = (480, 300);

/// How many bars a histogram has at most.
const BINS: usize = 24;

/// A difference between the two rule sets, tested.
struct Finding {
    /// What is compared.
    measure: Measure,
    /// The value under the rules under test (a rate in `0..=1` or a mean).
    tested: f64,
    /// The value under the rules compared with.
    baseline: f64,
    /// The p-value.
    p: f64,
    /// The test.
    test: Test,
}

impl Finding {
    fn significant(&self) -> bool {
        self.p < SIGNIFICANCE
    }

    /// The value under the rules under test, then compared with, in words.
    fn values(&self) -> (String, String) {
        match self.test {
            Test::TwoProportions => (percent(self.tested), percent(self.baseline)),
            Test::Permutation => (
                format!("mean {:.2}", self.tested),
                format!("mean {:.2}", self.baseline),
            ),
        }
    }
}

/// What a finding compares. The report words it in English; the variant lab's page gets it as
/// data (with its seat or its catalogue key) and words it in the reader's language.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "measure", rename_all = "kebab-case")]
pub enum Measure {
    /// A seat's win rate (seats counted from 0).
    SeatWinRate { seat: u32 },
    /// The first mover's win rate.
    FirstMoverWinRate,
    /// The mean score.
    MeanScore,
    /// The winning score.
    WinningScore,
    /// The winner's lead over the second.
    WinnersLead,
    /// The number of actions in a game.
    Actions,
    /// The number of milestones in a game.
    Milestones,
    /// The number of stages in a game.
    Stages,
    /// A score line's points total, by its catalogue key.
    ScoreLine { key: String },
    /// How often an event happened, by its catalogue key.
    Event { key: String },
    /// The cubes dropped into the battle tower.
    TowerDropped,
    /// The cubes that came out of the tower.
    TowerOut,
    /// The cubes the tower kept.
    TowerKept,
}

impl Measure {
    /// The measure in English, as HTML (a catalogue key in `<code>`).
    fn words(&self) -> String {
        match self {
            Measure::SeatWinRate { seat } => format!("seat {seat}'s win rate"),
            Measure::FirstMoverWinRate => "the first mover's win rate".to_owned(),
            Measure::MeanScore => "the mean score".to_owned(),
            Measure::WinningScore => "the winning score".to_owned(),
            Measure::WinnersLead => "the winner's lead".to_owned(),
            Measure::Actions => "the number of actions".to_owned(),
            Measure::Milestones => "the number of milestones".to_owned(),
            Measure::Stages => "the number of stages".to_owned(),
            Measure::ScoreLine { key } => {
                format!("the points total for <code>{}</code>", escape(key))
            }
            Measure::Event { key } => {
                format!("the count of the event <code>{}</code>", escape(key))
            }
            Measure::TowerDropped => "the number of cubes dropped into the tower".to_owned(),
            Measure::TowerOut => "the number of cubes out of the tower".to_owned(),
            Measure::TowerKept => "the number of cubes the tower kept".to_owned(),
        }
    }
}

/// How a finding was tested.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Test {
    /// Win rates: a two-proportion z-test; the values are rates in `0..=1`.
    TwoProportions,
    /// Means: a permutation test; the values are means.
    Permutation,
}

impl Test {
    fn words(self) -> &'static str {
        match self {
            Test::TwoProportions => "two-proportion z-test",
            Test::Permutation => "permutation test",
        }
    }
}

/// A significant difference between the two rule sets, as data and as a plain English line.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Difference {
    /// What differs.
    #[serde(flatten)]
    pub measure: Measure,
    /// The value under the rules under test (a rate in `0..=1` for win rates, else a mean).
    pub tested: f64,
    /// The value under the rules compared with.
    pub baseline: f64,
    /// The p-value.
    pub p: f64,
    /// The test that found it.
    pub test: Test,
    /// The line in plain English words, as the report says it.
    pub line: String,
}

/// The report of `simulation` as an HTML document.
pub fn html(simulation: &Simulation) -> String {
    html_and_differences(simulation).0
}

/// The report of `simulation` as an HTML document, and each significant difference it names
/// (none with one rule set), for a caller that shows them apart (the server's variant lab).
pub fn html_and_differences(simulation: &Simulation) -> (String, Vec<Difference>) {
    let mut report = Report {
        simulation,
        findings: Vec::new(),
        body: String::new(),
    };
    report.win_rates();
    report.first_player();
    report.scores();
    report.length();
    report.score_lines();
    report.events();
    report.tower();
    let differences = if report.compared() {
        report
            .findings
            .iter()
            .filter(|finding| finding.significant())
            .map(|finding| Difference {
                measure: finding.measure.clone(),
                tested: finding.tested,
                baseline: finding.baseline,
                p: finding.p,
                test: finding.test,
                line: plain_text(&report.sentence(finding)),
            })
            .collect()
    } else {
        Vec::new()
    };
    (report.finish(), differences)
}

/// The words of a section of per-game counts by key ([`Report::keyed_section`]).
struct KeyedSection {
    id: &'static str,
    title: &'static str,
    intro: &'static str,
    /// What the verdict finds no difference in, when no key differs.
    nothing: &'static str,
}

struct Report<'a> {
    simulation: &'a Simulation,
    findings: Vec<Finding>,
    body: String,
}

impl Report<'_> {
    fn arms(&self) -> &[ArmResult] {
        &self.simulation.arms
    }

    /// Each arm's [`even_share`] of the wins.
    fn even_shares(&self, seats: u32) -> Vec<f64> {
        self.arms()
            .iter()
            .map(|arm| even_share(arm, seats))
            .collect()
    }

    /// Every game of every arm.
    fn games(&self) -> impl Iterator<Item = &GameStats> {
        self.arms().iter().flat_map(|a| &a.games)
    }

    fn compared(&self) -> bool {
        self.arms().len() == 2
    }

    fn label(&self, arm: usize) -> &str {
        &self.arms()[arm].arm.label
    }

    /// A key with its English text, when the ruleset's catalogue has one.
    fn key_label(&self, key: &str) -> String {
        match self.simulation.texts.get(key) {
            Some(text) => format!(
                "<code>{}</code> <span class=\"text\">{}</span>",
                escape(key),
                escape(&shorten(text, 90))
            ),
            None => format!("<code>{}</code>", escape(key)),
        }
    }

    /// The figures of one section, one per arm, side by side.
    fn figures(&mut self, draw: impl Fn(usize, &mut String) -> Result<(), String>) {
        self.body.push_str("<div class=\"figures\">");
        for arm in 0..self.arms().len() {
            let mut svg = String::new();
            match draw(arm, &mut svg) {
                Ok(()) => {
                    let _ = write!(
                        self.body,
                        "<figure>{svg}<figcaption>{}</figcaption></figure>",
                        escape(self.label(arm))
                    );
                }
                Err(error) => {
                    let _ = write!(
                        self.body,
                        "<p class=\"error\">The figure could not be drawn: {}</p>",
                        escape(&error)
                    );
                }
            }
        }
        self.body.push_str("</div>");
    }

    /// Tests and words for one section: each finding's line if significant, else one line that
    /// nothing in it differs.
    fn verdict(&mut self, findings: Vec<Finding>, nothing: &str) {
        if !self.compared() {
            return;
        }
        let significant: Vec<&Finding> = findings.iter().filter(|f| f.significant()).collect();
        self.body.push_str("<p class=\"verdict\">");
        if significant.is_empty() {
            let _ = write!(
                self.body,
                "No significant difference {} between {} and {} (p ≥ 0.05).",
                escape(nothing),
                escape(self.label(0)),
                escape(self.label(1))
            );
        } else {
            let lines: Vec<String> = significant
                .iter()
                .map(|f| self.sentence(f))
                .collect::<Vec<_>>();
            self.body.push_str(&lines.join(" "));
        }
        self.body.push_str("</p>");
        self.findings.extend(findings);
    }

    fn sentence(&self, finding: &Finding) -> String {
        let (tested, baseline) = finding.values();
        format!(
            "{} differs: {} under {} against {} under {} (p {}, {}).",
            capitalise(&finding.measure.words()),
            escape(&tested),
            escape(self.label(0)),
            escape(&baseline),
            escape(self.label(1)),
            format_p(finding.p),
            finding.test.words()
        )
    }

    fn section(&mut self, id: &str, title: &str, intro: &str) {
        let _ = write!(
            self.body,
            "<section id=\"{id}\"><h2>{}</h2><p>{intro}</p>",
            escape(title)
        );
    }

    fn end_section(&mut self) {
        self.body.push_str("</section>");
    }

    fn win_rates(&mut self) {
        let seats = self.simulation.seats;
        self.section(
            "win-rate",
            "Win rate per seat",
            "The share of games each seat won (a shared first place counts as a win for each), \
             with its 95 % Wilson interval. The dashed line is an even share: the wins of all \
             seats divided by the seats.",
        );
        let rates: Vec<Vec<Proportion>> = self
            .arms()
            .iter()
            .map(|arm| {
                (0..seats)
                    .map(|seat| wilson(wins(&arm.games, seat), arm.games.len() as u64))
                    .collect()
            })
            .collect();
        let even = self.even_shares(seats);
        let top = rates
            .iter()
            .flatten()
            .map(|p| p.high)
            .fold(even.iter().copied().fold(0.0, f64::max), f64::max);
        let top = (top * 1.15).clamp(0.05, 1.0);
        self.figures(|arm, svg| {
            let labels: Vec<String> = (0..seats).map(|seat| format!("seat {seat}")).collect();
            proportion_chart(svg, &labels, &rates[arm], even[arm], top, ARM_COLOURS[arm])
        });
        let mut table = String::from(
            "<table><thead><tr><th>rules</th><th>seat</th><th>bot</th><th>wins</th><th>games</th>\
             <th>win rate</th><th>95 % interval</th></tr></thead><tbody>",
        );
        for (arm, rates) in rates.iter().enumerate() {
            for (seat, rate) in rates.iter().enumerate() {
                let _ = write!(
                    table,
                    "<tr data-arm=\"{arm}\" data-seat=\"{seat}\" data-wins=\"{}\" data-games=\"{}\">\
                     <td>{}</td><td>{seat}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{} – {}</td></tr>",
                    rate.hits,
                    rate.trials,
                    escape(self.label(arm)),
                    bot_name(self.simulation, seat),
                    rate.hits,
                    rate.trials,
                    percent(rate.rate),
                    percent(rate.low),
                    percent(rate.high)
                );
            }
        }
        table.push_str("</tbody></table>");
        self.body.push_str(&table);
        let mut outside = Vec::new();
        for (arm, rates) in rates.iter().enumerate() {
            for (seat, rate) in rates.iter().enumerate() {
                if rate.low > even[arm] {
                    outside.push(format!(
                        "under {}, seat {seat} wins more than an even share ({} against {})",
                        escape(self.label(arm)),
                        percent(rate.rate),
                        percent(even[arm])
                    ));
                } else if rate.high < even[arm] {
                    outside.push(format!(
                        "under {}, seat {seat} wins less than an even share ({} against {})",
                        escape(self.label(arm)),
                        percent(rate.rate),
                        percent(even[arm])
                    ));
                }
            }
        }
        if outside.is_empty() {
            self.body
                .push_str("<p class=\"verdict\">Every seat's interval includes an even share.</p>");
        } else {
            let _ = write!(
                self.body,
                "<p class=\"verdict\">Outside an even share: {}.</p>",
                outside.join("; ")
            );
        }
        if self.compared() {
            let findings = (0..seats as usize)
                .map(|seat| Finding {
                    measure: Measure::SeatWinRate { seat: seat as u32 },
                    tested: rates[0][seat].rate,
                    baseline: rates[1][seat].rate,
                    p: two_proportion_p(&rates[0][seat], &rates[1][seat]),
                    test: Test::TwoProportions,
                })
                .collect();
            self.verdict(findings, "in any seat's win rate");
        }
        self.end_section();
    }

    fn first_player(&mut self) {
        let seats = self.simulation.seats;
        self.section(
            "first-player",
            "First-player advantage",
            "How often the seat that made the game's first move went on to win, against an even \
             share. The first mover is whoever the ruleset asked first.",
        );
        let rates: Vec<Proportion> = self
            .arms()
            .iter()
            .map(|arm| {
                let moved_first: Vec<&GameStats> = arm
                    .games
                    .iter()
                    .filter(|g| g.first_seat.is_some())
                    .collect();
                let won = moved_first
                    .iter()
                    .filter(|g| {
                        g.first_seat
                            .and_then(|seat| g.ranks.get(seat as usize))
                            .is_some_and(|rank| *rank == 1)
                    })
                    .count() as u64;
                wilson(won, moved_first.len() as u64)
            })
            .collect();
        let even = self.even_shares(seats);
        let top = (rates.iter().map(|p| p.high).fold(0.0, f64::max) * 1.15).clamp(0.05, 1.0);
        self.figures(|arm, svg| {
            proportion_chart(
                svg,
                &["first mover".to_owned()],
                &rates[arm..=arm],
                even[arm],
                top,
                ARM_COLOURS[arm],
            )
        });
        let mut table = String::from(
            "<table><thead><tr><th>rules</th><th>first mover won</th><th>games</th><th>rate</th>\
             <th>95 % interval</th><th>even share</th></tr></thead><tbody>",
        );
        for (arm, rate) in rates.iter().enumerate() {
            let _ = write!(
                table,
                "<tr data-arm=\"{arm}\" data-first-won=\"{}\" data-games=\"{}\"><td>{}</td>\
                 <td>{}</td><td>{}</td><td>{}</td><td>{} – {}</td><td>{}</td></tr>",
                rate.hits,
                rate.trials,
                escape(self.label(arm)),
                rate.hits,
                rate.trials,
                percent(rate.rate),
                percent(rate.low),
                percent(rate.high),
                percent(even[arm])
            );
        }
        table.push_str("</tbody></table>");
        self.body.push_str(&table);
        let words: Vec<String> = rates
            .iter()
            .enumerate()
            .map(|(arm, rate)| {
                let verdict = if rate.low > even[arm] {
                    "an advantage"
                } else if rate.high < even[arm] {
                    "a disadvantage"
                } else {
                    "no clear advantage"
                };
                format!(
                    "under {}, moving first is {verdict} ({} against an even {})",
                    escape(self.label(arm)),
                    percent(rate.rate),
                    percent(even[arm])
                )
            })
            .collect();
        let _ = write!(
            self.body,
            "<p class=\"verdict\">{}.</p>",
            capitalise(&words.join("; "))
        );
        if self.compared() {
            let finding = Finding {
                measure: Measure::FirstMoverWinRate,
                tested: rates[0].rate,
                baseline: rates[1].rate,
                p: two_proportion_p(&rates[0], &rates[1]),
                test: Test::TwoProportions,
            };
            self.verdict(vec![finding], "in the first mover's win rate");
        }
        self.end_section();
    }

    fn scores(&mut self) {
        self.section(
            "scores",
            "Score distributions",
            "Every seat's final score in every game.",
        );
        let all: Vec<Vec<i64>> = self
            .arms()
            .iter()
            .map(|arm| arm.games.iter().flat_map(|g| g.scores.clone()).collect())
            .collect();
        let range = common_range(all.iter().flatten().copied());
        self.figures(|arm, svg| histogram(svg, &all[arm], range, "final score", ARM_COLOURS[arm]));
        let seats = self.simulation.seats as usize;
        let mut table = String::from(
            "<table><thead><tr><th>rules</th><th>mean score</th><th>mean winning score</th>\
             <th>mean lead over the runner-up</th>",
        );
        for seat in 0..seats {
            let _ = write!(table, "<th>seat {seat}</th>");
        }
        table.push_str("</tr></thead><tbody>");
        let per_game = |arm: &ArmResult, f: &dyn Fn(&GameStats) -> f64| -> Vec<f64> {
            arm.games.iter().map(f).collect()
        };
        let mut columns: Vec<[Vec<f64>; 3]> = Vec::new();
        for (arm, result) in self.arms().iter().enumerate() {
            let mean_score = per_game(result, &|g| mean_of_i64(&g.scores));
            let winning = per_game(result, &|g| {
                g.scores.iter().copied().max().unwrap_or(0) as f64
            });
            let lead = per_game(result, &|g| {
                let mut sorted = g.scores.clone();
                sorted.sort_unstable_by(|a, b| b.cmp(a));
                (sorted.first().copied().unwrap_or(0) - sorted.get(1).copied().unwrap_or(0)) as f64
            });
            let _ = write!(
                table,
                "<tr data-arm=\"{arm}\"><td>{}</td><td>{:.2}</td><td>{:.2}</td><td>{:.2}</td>",
                escape(self.label(arm)),
                mean(&mean_score),
                mean(&winning),
                mean(&lead)
            );
            for seat in 0..seats {
                let scores: Vec<f64> = result
                    .games
                    .iter()
                    .filter_map(|g| g.scores.get(seat).map(|s| *s as f64))
                    .collect();
                let _ = write!(table, "<td>{:.2}</td>", mean(&scores));
            }
            table.push_str("</tr>");
            columns.push([mean_score, winning, lead]);
        }
        table.push_str("</tbody></table>");
        self.body.push_str(&table);
        let measures = [
            Measure::MeanScore,
            Measure::WinningScore,
            Measure::WinnersLead,
        ];
        self.end_measured_section(measures, &columns, "in scores");
    }

    fn length(&mut self) {
        let has_milestones = self.games().any(|g| g.milestones > 0);
        let has_stages = self.games().any(|g| g.stages > 0);
        self.section(
            "length",
            "Game length",
            "Actions per game (every answer of every seat). Where the ruleset marks them, the \
             table also counts its milestones (public events keyed <code>milestone.</code>, such \
             as a year's scoring) and the stages it pauses on (events with a summary, such as \
             a season or a round).",
        );
        let actions: Vec<Vec<i64>> = self
            .arms()
            .iter()
            .map(|arm| arm.games.iter().map(|g| g.actions as i64).collect())
            .collect();
        let range = common_range(actions.iter().flatten().copied());
        self.figures(|arm, svg| {
            histogram(
                svg,
                &actions[arm],
                range,
                "actions per game",
                ARM_COLOURS[arm],
            )
        });
        let mut table = String::from(
            "<table><thead><tr><th>rules</th><th>games</th><th>mean actions</th><th>shortest</th>\
             <th>longest</th>",
        );
        if has_milestones {
            table.push_str("<th>mean milestones</th>");
        }
        if has_stages {
            table.push_str("<th>mean stages</th>");
        }
        table.push_str("</tr></thead><tbody>");
        let mut series: Vec<[Vec<f64>; 3]> = Vec::new();
        for (arm, result) in self.arms().iter().enumerate() {
            let counts: [Vec<f64>; 3] = [
                result.games.iter().map(|g| g.actions as f64).collect(),
                result.games.iter().map(|g| g.milestones as f64).collect(),
                result.games.iter().map(|g| g.stages as f64).collect(),
            ];
            let total_actions: u64 = result.games.iter().map(|g| g.actions).sum();
            let _ = write!(
                table,
                "<tr data-arm=\"{arm}\" data-games=\"{}\" data-actions=\"{total_actions}\">\
                 <td>{}</td><td>{}</td><td>{:.1}</td><td>{}</td><td>{}</td>",
                result.games.len(),
                escape(self.label(arm)),
                result.games.len(),
                mean(&counts[0]),
                actions[arm].iter().min().copied().unwrap_or(0),
                actions[arm].iter().max().copied().unwrap_or(0)
            );
            if has_milestones {
                let _ = write!(table, "<td>{:.2}</td>", mean(&counts[1]));
            }
            if has_stages {
                let _ = write!(table, "<td>{:.2}</td>", mean(&counts[2]));
            }
            table.push_str("</tr>");
            series.push(counts);
        }
        table.push_str("</tbody></table>");
        self.body.push_str(&table);
        if self.compared() {
            let mut findings = vec![mean_finding(Measure::Actions, &series[0][0], &series[1][0])];
            if has_milestones {
                findings.push(mean_finding(
                    Measure::Milestones,
                    &series[0][1],
                    &series[1][1],
                ));
            }
            if has_stages {
                findings.push(mean_finding(Measure::Stages, &series[0][2], &series[1][2]));
            }
            self.verdict(findings, "in game length");
        }
        self.end_section();
    }

    /// Ends a section whose table holds three measures per arm (`columns[arm][measure]`): a
    /// test of each when two arms are compared, and the verdict.
    fn end_measured_section(
        &mut self,
        measures: [Measure; 3],
        columns: &[[Vec<f64>; 3]],
        nothing: &str,
    ) {
        if self.compared() {
            let findings = measures
                .into_iter()
                .enumerate()
                .map(|(i, measure)| mean_finding(measure, &columns[0][i], &columns[1][i]))
                .collect();
            self.verdict(findings, nothing);
        }
        self.end_section();
    }

    /// A table of per-game counts by key, with a test per key.
    fn keyed_table(
        &mut self,
        keys: &BTreeSet<String>,
        per_game: impl Fn(&GameStats, &str) -> f64,
        measure: impl Fn(&str) -> Measure,
    ) -> Vec<Finding> {
        let mut table = String::from("<table><thead><tr><th>key</th>");
        for arm in 0..self.arms().len() {
            let _ = write!(table, "<th>mean per game, {}</th>", escape(self.label(arm)));
        }
        if self.compared() {
            table.push_str("<th>p</th>");
        }
        table.push_str("</tr></thead><tbody>");
        let mut findings = Vec::new();
        for key in keys {
            let values: Vec<Vec<f64>> = self
                .arms()
                .iter()
                .map(|arm| arm.games.iter().map(|g| per_game(g, key)).collect())
                .collect();
            let totals: Vec<f64> = values.iter().map(|v| v.iter().sum()).collect();
            let _ = write!(
                table,
                "<tr data-key=\"{}\" data-totals=\"{}\"><td>{}</td>",
                escape(key),
                totals
                    .iter()
                    .map(|t| format!("{t}"))
                    .collect::<Vec<_>>()
                    .join(" "),
                self.key_label(key)
            );
            for v in &values {
                let _ = write!(table, "<td>{:.2}</td>", mean(v));
            }
            if self.compared() {
                let finding = mean_finding(measure(key), &values[0], &values[1]);
                let class = if finding.significant() {
                    " class=\"significant\""
                } else {
                    ""
                };
                let _ = write!(
                    table,
                    "<td{class}>{}</td>",
                    format_p(finding.p).trim_start_matches("= ")
                );
                findings.push(finding);
            }
            table.push_str("</tr>");
        }
        table.push_str("</tbody></table>");
        self.body.push_str(&table);
        findings
    }

    fn score_lines(&mut self) {
        self.keyed_section(
            KeyedSection {
                id: "score-lines",
                title: "Points by scoring category",
                intro: "The lines of the final result's score breakdown, by label, summed over the seats: \
             the points a game hands out for each category, per game.",
                nothing: "in the points of any category",
            },
            |g| &g.score_lines,
            |points| points as f64,
            |key| Measure::ScoreLine { key },
        );
    }

    fn events(&mut self) {
        self.keyed_section(
            KeyedSection {
                id: "events",
                title: "Events",
                intro: "Public events of the game log counted by catalogue key, per game: what happened at \
             the table (for example battles won and lost, revolts, cards played), as far as the \
             ruleset's keys tell it apart.",
                nothing: "in the count of any event",
            },
            |g| &g.events,
            |count| count as f64,
            |key| Measure::Event { key },
        );
    }

    /// A section of per-game counts by key (a game's `counts`), with a test per key; none when
    /// no game counts anything.
    fn keyed_section<V: Copy>(
        &mut self,
        section: KeyedSection,
        counts: fn(&GameStats) -> &BTreeMap<String, V>,
        as_number: fn(V) -> f64,
        measure: fn(String) -> Measure,
    ) {
        let keys: BTreeSet<String> = self
            .games()
            .flat_map(|g| counts(g).keys().cloned())
            .collect();
        if keys.is_empty() {
            return;
        }
        self.section(section.id, section.title, section.intro);
        let findings = self.keyed_table(
            &keys,
            |g, key| counts(g).get(key).copied().map_or(0.0, as_number),
            |key| measure(key.to_owned()),
        );
        self.verdict(findings, section.nothing);
        self.end_section();
    }

    fn tower(&mut self) {
        let used = self.games().any(|g| g.tower_in > 0);
        if !used {
            return;
        }
        self.section(
            "tower",
            "Battle tower",
            "Cubes dropped into the battle tower per game, the cubes that came out, and the \
             difference: what the tower kept over the game.",
        );
        let mut table = String::from(
            "<table><thead><tr><th>rules</th><th>dropped in</th><th>came out</th><th>kept</th>\
             </tr></thead><tbody>",
        );
        let mut series: Vec<[Vec<f64>; 3]> = Vec::new();
        for (arm, result) in self.arms().iter().enumerate() {
            let values: [Vec<f64>; 3] = [
                result.games.iter().map(|g| g.tower_in as f64).collect(),
                result.games.iter().map(|g| g.tower_out as f64).collect(),
                result
                    .games
                    .iter()
                    .map(|g| g.tower_in as f64 - g.tower_out as f64)
                    .collect(),
            ];
            let _ = write!(
                table,
                "<tr data-arm=\"{arm}\"><td>{}</td><td>{:.1}</td><td>{:.1}</td><td>{:.1}</td></tr>",
                escape(self.label(arm)),
                mean(&values[0]),
                mean(&values[1]),
                mean(&values[2])
            );
            series.push(values);
        }
        table.push_str("</tbody></table>");
        self.body.push_str(&table);
        let measures = [Measure::TowerDropped, Measure::TowerOut, Measure::TowerKept];
        self.end_measured_section(measures, &series, "in the battle tower");
    }

    fn finish(self) -> String {
        let simulation = self.simulation;
        let title = if self.compared() {
            format!(
                "Balance report: {}, {} against {}",
                simulation.ruleset,
                self.label(0),
                self.label(1)
            )
        } else {
            format!("Balance report: {}, {}", simulation.ruleset, self.label(0))
        };
        let mut out = String::with_capacity(self.body.len() + 8_000);
        let _ = write!(
            out,
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
             <title>{}</title><style>{STYLE}</style></head><body><main><h1>{}</h1>",
            escape(&title),
            escape(&title)
        );
        let games: Vec<String> = simulation
            .arms
            .iter()
            .map(|arm| format!("{} games of {}", arm.games.len(), escape(&arm.arm.label)))
            .collect();
        let bots: Vec<String> = simulation
            .bots
            .iter()
            .enumerate()
            .map(|(seat, bot)| format!("seat {seat}: {}", super::bot_name(*bot)))
            .collect();
        let played: usize = simulation.arms.iter().map(|a| a.games.len()).sum();
        let _ = write!(
            out,
            "<dl class=\"setup\" id=\"setup\"{}>\
             <dt>ruleset</dt><dd><code>{}</code> (content hash <code>{}</code>)</dd>\
             <dt>map</dt><dd>{}</dd><dt>players</dt><dd>{}</dd><dt>bots</dt><dd>{}</dd>\
             <dt>games</dt><dd>{} (the same {} seeds for each rule set, from seed {})</dd>\
             <dt>rules</dt><dd>{}</dd>\
             <dt>time</dt><dd>{:.1} s on {} thread(s), {:.1} games per second</dd></dl>",
            simulation
                .arms
                .iter()
                .enumerate()
                .map(|(i, a)| format!(" data-games-{i}=\"{}\"", a.games.len()))
                .collect::<String>(),
            escape(&simulation.ruleset),
            escape(&simulation.ruleset_hash[..simulation.ruleset_hash.len().min(16)]),
            escape(&simulation.map),
            simulation.seats,
            bots.join(", "),
            games.join(", "),
            simulation.games_asked,
            simulation.seed,
            simulation
                .arms
                .iter()
                .map(|a| format!("{}: {}", escape(&a.arm.label), options_text(&a.arm.options)))
                .collect::<Vec<_>>()
                .join("; "),
            simulation.wall_seconds,
            simulation.jobs,
            played as f64 / simulation.wall_seconds.max(1e-9)
        );
        let failures: Vec<String> = simulation
            .arms
            .iter()
            .flat_map(|arm| {
                arm.failures.iter().map(|(index, why)| {
                    format!("{} game {index}: {}", escape(&arm.arm.label), escape(why))
                })
            })
            .collect();
        if simulation.cancelled {
            out.push_str(
                "<p class=\"error\">The simulation was cancelled: the figures cover the games \
                 finished before.</p>",
            );
        }
        if !failures.is_empty() {
            let _ = write!(
                out,
                "<p class=\"error\">{} game(s) failed and are left out. First: {}</p>",
                failures.len(),
                failures[0]
            );
        }
        if self.compared() {
            let significant: Vec<String> = self
                .findings
                .iter()
                .filter(|f| f.significant())
                .map(|f| format!("<li>{}</li>", self.sentence(f)))
                .collect();
            let tests = self.findings.len();
            let _ = write!(
                out,
                "<section id=\"differences\"><h2>What differs significantly</h2><p>{} of {} \
                 comparisons differ at p &lt; 0.05 (win rates by a two-proportion z-test, means \
                 by a permutation test). With this many comparisons about {:.0} would by chance \
                 alone: read a single borderline p with care.</p>",
                significant.len(),
                tests,
                tests as f64 * SIGNIFICANCE
            );
            if significant.is_empty() {
                out.push_str("<p>Nothing differs significantly.</p>");
            } else {
                let _ = write!(out, "<ul>{}</ul>", significant.join(""));
            }
            out.push_str("</section>");
        }
        out.push_str(&self.body);
        let _ = write!(
            out,
            "<section id=\"method\"><h2>How this was measured</h2><p>Bots played every seat. \
             Game <i>i</i> of each rule set starts from the same seed, so both sets of games \
             face the same shuffles until their rules make them part. Win rates carry 95 % \
             Wilson score intervals. A win rate is compared between the rule sets by a pooled \
             two-proportion z-test; a mean (score, length, a count) by a two-sided permutation \
             test of the difference of means with {PERMUTATIONS} random relabellings (from a \
             fixed seed, so the same games give the same p). A difference is called significant \
             at p &lt; 0.05. Games are treated as independent samples. The bots decide how the \
             games are played: a rule that rewards planning may show little with bots that do \
             not plan.</p></section>"
        );
        out.push_str("</main></body></html>\n");
        out
    }
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:0;color:#1d1d1f;background:#fbfaf7}\
main{max-width:1000px;margin:0 auto;padding:1rem 1.25rem 3rem}\
h1{font-size:1.5rem}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #ddd}\
.setup{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem}.setup dt{font-weight:600}\
.setup dd{margin:0}.figures{display:flex;flex-wrap:wrap;gap:1rem}\
figure{margin:0;flex:1 1 420px;max-width:480px}figure svg{width:100%;height:auto}\
figcaption{text-align:center;font-size:.9rem;color:#444}\
table{border-collapse:collapse;margin:.75rem 0;font-size:.9rem}\
th,td{border-bottom:1px solid #e3e3e3;padding:.25rem .6rem;text-align:right;vertical-align:top}\
th:first-child,td:first-child{text-align:left}.text{color:#666;font-size:.8rem}\
td.significant{font-weight:700;color:#a4001a}.verdict{background:#eef3f9;padding:.5rem .75rem;\
border-left:4px solid #2660a0}.error{background:#fde8e8;padding:.5rem .75rem}\
code{font-size:.85em}";

/// A bar with its 95 % interval per label, and a dashed even-share line.
fn proportion_chart(
    svg: &mut String,
    labels: &[String],
    rates: &[Proportion],
    even: f64,
    top: f64,
    colour: RGBColor,
) -> Result<(), String> {
    let count = labels.len();
    {
        let root = SVGBackend::with_string(svg, FIGURE).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let mut chart = ChartBuilder::on(&root)
            .margin(12)
            .x_label_area_size(28)
            .y_label_area_size(48)
            .build_cartesian_2d(-0.5f64..count as f64 - 0.5, 0f64..top)
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(count.max(2))
            .x_label_formatter(&|x| {
                let index = x.round();
                if (x - index).abs() < 1e-6 && index >= 0.0 {
                    labels.get(index as usize).cloned().unwrap_or_default()
                } else {
                    String::new()
                }
            })
            .y_label_formatter(&|y| format!("{:.0} %", y * 100.0))
            .y_desc("win rate")
            .draw()
            .map_err(|e| e.to_string())?;
        chart
            .draw_series(rates.iter().enumerate().map(|(i, rate)| {
                let x = i as f64;
                Rectangle::new(
                    [(x - 0.3, 0.0), (x + 0.3, rate.rate)],
                    colour.mix(0.75).filled(),
                )
            }))
            .map_err(|e| e.to_string())?;
        chart
            .draw_series(rates.iter().enumerate().map(|(i, rate)| {
                ErrorBar::new_vertical(
                    i as f64,
                    rate.low,
                    rate.rate,
                    rate.high,
                    BLACK.stroke_width(1),
                    10,
                )
            }))
            .map_err(|e| e.to_string())?;
        chart
            .draw_series(DashedLineSeries::new(
                [(-0.5, even), (count as f64 - 0.5, even)],
                6,
                4,
                BLACK.mix(0.6).stroke_width(1),
            ))
            .map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// A histogram of `values` over `range` (shared by the figures side by side).
fn histogram(
    svg: &mut String,
    values: &[i64],
    (low, high): (i64, i64),
    what: &str,
    colour: RGBColor,
) -> Result<(), String> {
    let span = (high - low + 1).max(1);
    let width = (span + BINS as i64 - 1) / BINS as i64;
    let bins = ((span + width - 1) / width) as usize;
    let mut counts = vec![0u64; bins];
    for value in values {
        let bin = ((value - low) / width).clamp(0, bins as i64 - 1) as usize;
        counts[bin] += 1;
    }
    let share: Vec<f64> = counts
        .iter()
        .map(|c| *c as f64 / values.len().max(1) as f64)
        .collect();
    let top = (share.iter().copied().fold(0.0, f64::max) * 1.15).max(0.01);
    {
        let root = SVGBackend::with_string(svg, FIGURE).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let x_end = low + width * bins as i64;
        let mut chart = ChartBuilder::on(&root)
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(48)
            .build_cartesian_2d(low as f64..x_end as f64, 0f64..top)
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_desc(what)
            .y_desc("share of values")
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| format!("{:.0} %", y * 100.0))
            .draw()
            .map_err(|e| e.to_string())?;
        chart
            .draw_series(share.iter().enumerate().map(|(i, share)| {
                let from = (low + width * i as i64) as f64;
                Rectangle::new(
                    [(from, 0.0), (from + width as f64, *share)],
                    colour.mix(0.75).filled(),
                )
            }))
            .map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// The smallest and largest of `values`, (0, 1) when there are none.
fn common_range(values: impl Iterator<Item = i64>) -> (i64, i64) {
    values
        .fold(None, |range: Option<(i64, i64)>, v| {
            Some(range.map_or((v, v), |(lo, hi)| (lo.min(v), hi.max(v))))
        })
        .unwrap_or((0, 1))
}

fn mean_finding(measure: Measure, tested: &[f64], baseline: &[f64]) -> Finding {
    Finding {
        measure,
        tested: mean(tested),
        baseline: mean(baseline),
        p: permutation_p(tested, baseline),
        test: Test::Permutation,
    }
}

fn wins(games: &[GameStats], seat: u32) -> u64 {
    games
        .iter()
        .filter(|g| g.ranks.get(seat as usize) == Some(&1))
        .count() as u64
}

/// A seat's even share of the wins: all wins (shared first places count for each) over all
/// seat-games.
fn even_share(arm: &ArmResult, seats: u32) -> f64 {
    let wins: u64 = (0..seats).map(|seat| wins(&arm.games, seat)).sum();
    wins as f64 / (arm.games.len() as f64 * f64::from(seats)).max(1.0)
}

fn mean_of_i64(values: &[i64]) -> f64 {
    if values.is_empty() {
        0.0
    } else {
        values.iter().sum::<i64>() as f64 / values.len() as f64
    }
}

fn bot_name(simulation: &Simulation, seat: usize) -> &'static str {
    simulation
        .bots
        .get(seat)
        .map_or("", |bot| super::bot_name(*bot))
}

fn options_text(options: &[sdk::OptionSetting]) -> String {
    if options.is_empty() {
        return "the ruleset's defaults".to_owned();
    }
    options
        .iter()
        .map(|o| {
            format!(
                "<code>{}</code>",
                escape(&format!("{} = {}", o.name, option_value(&o.value)))
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn option_value(value: &sdk::OptionValue) -> String {
    match value {
        sdk::OptionValue::Boolean(b) => b.to_string(),
        sdk::OptionValue::Integer(i) => i.to_string(),
        sdk::OptionValue::Decimal(d) => d.to_string(),
        sdk::OptionValue::Choice(c) => format!("\"{c}\""),
    }
}

fn percent(rate: f64) -> String {
    format!("{:.1} %", rate * 100.0)
}

/// A p-value with its relation, as HTML: `= 0.012`, `&lt; 0.001`.
fn format_p(p: f64) -> String {
    if p < 0.001 {
        "&lt; 0.001".to_owned()
    } else {
        format!("= {p:.3}")
    }
}

fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

fn shorten(text: &str, most: usize) -> String {
    if text.chars().count() <= most {
        text.to_owned()
    } else {
        let cut: String = text.chars().take(most).collect();
        format!("{cut}…")
    }
}

/// The text of a fragment of the report's HTML: its tags dropped and the entities [`escape`]
/// writes turned back into characters. Every text in the report is escaped, so only the
/// report's own tags are dropped.
fn plain_text(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

#[cfg(test)]
mod tests {
    use super::{Difference, Measure, Test, escape, plain_text};

    /// A difference's line in the lab's figures is plain text: the report's tags dropped, and a
    /// text that looked like markup given back as it was written.
    #[test]
    fn regression_lab_differences_showed_catalogue_keys() {
        // The lab's page showed "The points total for score.buildings differs": it had only
        // the English line. A difference now carries its measure and key as data too.
        let difference = Difference {
            measure: Measure::ScoreLine {
                key: "score.buildings".to_owned(),
            },
            tested: 30.63,
            baseline: 26.84,
            p: 0.026,
            test: Test::Permutation,
            line: String::new(),
        };
        let json = serde_json::to_value(&difference).unwrap();
        assert_eq!(json["measure"], "score-line");
        assert_eq!(json["key"], "score.buildings");
        assert_eq!(json["test"], "permutation");
        let seat = serde_json::to_value(Measure::SeatWinRate { seat: 2 }).unwrap();
        assert_eq!(
            seat,
            serde_json::json!({ "measure": "seat-win-rate", "seat": 2 })
        );
    }

    #[test]
    fn regression_plain_differences_carried_the_reports_markup() {
        let html = format!(
            "The count of the event <code>{}</code> differs (p &lt; 0.001).",
            escape("log.<b>&'\"")
        );
        assert_eq!(
            plain_text(&html),
            "The count of the event log.<b>&'\" differs (p < 0.001)."
        );
    }
}
