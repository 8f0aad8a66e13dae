//! The night's verdicts as a markdown job summary, the form CI job-summary
//! files take (`$GITHUB_STEP_SUMMARY`, GitLab's and Forgejo's alike): a
//! heading with the lane's verdict, a line per gated run with its verdict,
//! then each regression with its band and n, and with a site's address a
//! link to each run's page on it.
//!
//! When the night could not be judged in full (the lane's exit 2), the
//! heading says so and names each run, target and input behind it, and a
//! run left out for its date is named with the reason.
//!
//! A CI view takes at most 1 MiB of summary: past [`LISTED`] regressions
//! (or runs) the rest are counted and linked, not listed, each name is cut
//! at [`NAME_CHARS`], and the whole is held under [`MAX_BYTES`] whatever
//! the night.

use super::Export;
use crate::error::Result;
use crate::gate::night::{GatedRun, Night, Verdict, EXIT_REGRESSED, EXIT_UNUSABLE};
use crate::gate::unjudged::Unjudged;
use crate::output::OutFile;
use crate::term::quote;
use crate::timefmt::human_duration;

pub(crate) const FILE: &str = "summary.md";

/// How many regressions, runs and unjudged items the summary lists; the rest are counted.
pub(crate) const LISTED: usize = 50;
/// How many of a run's regressions its verdict line names.
const NAMED_PER_RUN: usize = 5;
/// How many unjudged items the heading names.
const NAMED_IN_HEADING: usize = 10;
/// A name longer than this is cut (with "…") where the summary shows it.
pub(crate) const NAME_CHARS: usize = 200;
/// A reason (perfreport's words around the names it quotes) is cut here.
const REASON_CHARS: usize = 600;
/// The summary's bound: under the 1 MiB a CI job summary accepts, with room
/// for what the step had written before it.
pub(crate) const MAX_BYTES: usize = 768 * 1024;

/// An input's string for the summary: cut at [`NAME_CHARS`], its control,
/// bidi and invisible characters shown as the terminal shows them
/// ([`quote`]), so a summary view cannot reorder or hide a name.
fn shown(s: &str) -> String {
    cut(s, NAME_CHARS)
}

/// `s` cut at `chars` characters, quoted as for the terminal.
fn cut(s: &str, chars: usize) -> String {
    let cut = match s.char_indices().nth(chars) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    };
    quote(&cut).into_owned()
}

/// Markdown text of an input's string ([`shown`] first).
fn md_text(s: &str) -> String {
    crate::escape::md_text(&shown(s))
}

/// An input's string as a markdown code span ([`shown`] first).
fn md_code(s: &str) -> String {
    crate::escape::md_code(&shown(s))
}

/// The job summary, as `gate --summary` appends it. `page_of`: where a
/// run's page is on the published site (from its folder under the root),
/// when there is one.
pub struct JobSummary<'a> {
    pub page_of: Option<&'a dyn Fn(&str) -> String>,
}

impl Export<Night> for JobSummary<'_> {
    fn render(&self, night: &Night) -> Result<Vec<OutFile>> {
        Ok(vec![OutFile::new(FILE, summary(night, self.page_of))])
    }
}

type PageOf<'a> = Option<&'a dyn Fn(&str) -> String>;

/// A run named in the summary: linked to its page on the site when there is one.
fn run_name(run: &GatedRun, page_of: PageOf) -> String {
    match page_of {
        Some(page_of) => format!("[{}]({})", md_text(&run.stamp), page_of(&run.dir)),
        None => md_code(&run.stamp),
    }
}

/// One unjudged item in a few words: "`n8` `pytorch`: not measured in this run: …".
fn unjudged_phrase(u: &Unjudged) -> String {
    let who = match u.run {
        Some(run) => md_code(&run.stamp),
        None => md_code(u.dir),
    };
    let why = crate::escape::md_text(&cut(&u.why, REASON_CHARS));
    match u.target {
        Some(t) => format!("{who} {}: {why}", md_code(t)),
        None => format!("{who}: {why}"),
    }
}

/// "N more …, see …": what is counted instead of listed.
fn more(n: usize, what: (&str, &str), where_: &str) -> String {
    format!(
        "… and {} more, not listed here: {where_}",
        crate::fmt::counted(n as u64, what.0, what.1)
    )
}

/// Where the whole of a night is: the site's pages, or the gate's other outputs.
fn elsewhere(page_of: PageOf, run: Option<&GatedRun>) -> String {
    match (page_of, run) {
        (Some(page_of), Some(run)) => format!("see [the run's page]({})", page_of(&run.dir)),
        _ => "see the JUnit report or `perfreport gate --history` for every one".into(),
    }
}

fn headline(night: &Night, unjudged: &[Unjudged]) -> String {
    let gated = night.runs.iter().filter(|r| r.verdict != Verdict::NotGated).count();
    let not_gated = night.runs.len() - gated;
    let also = if not_gated > 0 {
        format!(" ({} not gated)", crate::fmt::counted(not_gated as u64, "run", "runs"))
    } else {
        String::new()
    };
    // The lane's status without --allow-empty: 0 and 3 read the same here.
    match night.exit_status(true) {
        EXIT_REGRESSED => {
            let regressed = night.runs.iter().filter(|r| r.verdict == Verdict::Regressed).count();
            format!(
                "❌ {} in {regressed} of {}{also}",
                crate::fmt::counted(night.regressions as u64, "regression", "regressions"),
                crate::fmt::counted(gated as u64, "gated run", "gated runs"),
            )
        }
        EXIT_UNUSABLE => {
            let named: Vec<String> = unjudged.iter().take(NAMED_IN_HEADING).map(unjudged_phrase).collect();
            let rest = unjudged.len().saturating_sub(NAMED_IN_HEADING);
            let rest = if rest > 0 {
                format!("; and {} more, listed below", rest)
            } else {
                String::new()
            };
            format!("⛔ the night could not be judged: {}{rest}", named.join("; "))
        }
        _ if night.checked > 0 => format!(
            "✅ passed, {} over {}{also}",
            crate::fmt::counted(night.checked as u64, "check", "checks"),
            crate::fmt::counted(gated as u64, "gated run", "gated runs")
        ),
        _ => "⚪ nothing could be gated".to_string(),
    }
}

fn summary(night: &Night, page_of: PageOf) -> String {
    let unjudged = night.unjudged();
    let mut s = Bounded::new(format!(
        "### perfreport gate: {}\n\nThe night: the newest run of each key that started within {} of {}.\n\n",
        headline(night, &unjudged),
        human_duration(night.window_s),
        night.newest.as_deref().map_or("—".into(), md_code)
    ));
    // A night with a regression and something it could not judge says both.
    if !unjudged.is_empty() {
        s.push(&format!(
            "⛔ Could not be judged ({}):\n\n",
            crate::fmt::counted(unjudged.len() as u64, "item", "items")
        ));
        for u in unjudged.iter().take(LISTED) {
            s.push(&format!("- {}\n", unjudged_phrase(u)));
        }
        if unjudged.len() > LISTED {
            s.push(&format!(
                "- {}\n",
                more(unjudged.len() - LISTED, ("item", "items"), &elsewhere(None, None))
            ));
        }
        s.push("\n");
    }
    for run in night.runs.iter().take(LISTED) {
        s.push(&run_line(run, page_of));
    }
    if night.runs.len() > LISTED {
        s.push(&format!(
            "- {}\n",
            more(night.runs.len() - LISTED, ("run", "runs"), &elsewhere(None, None))
        ));
    }
    regressions(&mut s, night, page_of);
    open_list(&mut s, night);
    if !night.keys_outside.is_empty() {
        s.push(&format!(
            "\nNot part of this night ({} whose newest run started earlier): {}\n",
            crate::fmt::counted(night.keys_outside.len() as u64, "key", "keys"),
            night
                .keys_outside
                .iter()
                .take(LISTED)
                .map(|k| md_text(k))
                .collect::<Vec<_>>()
                .join("; ")
        ));
    }
    s.push("\n");
    s.finish()
}

/// The regressions open since an earlier night (the first [`LISTED`]),
/// each with the id that accepts it.
fn open_list(s: &mut Bounded, night: &Night) {
    let open: Vec<&crate::history::regressions::Regression> = night.runs.iter().flat_map(|r| r.open.iter()).collect();
    if open.is_empty() {
        return;
    }
    s.push("\nOpen since an earlier night (red on the night each was called; accept one in perf-accepted.toml by its id):\n\n");
    for o in open.iter().take(LISTED) {
        s.push(&format!(
            "- {} ({})\n",
            md_text(&cut(&o.line(), REASON_CHARS)),
            md_code(&o.shift.id)
        ));
    }
    if open.len() > LISTED {
        s.push(&format!(
            "- {}\n",
            more(
                open.len() - LISTED,
                ("regression", "regressions"),
                &elsewhere(None, None)
            )
        ));
    }
}

/// Each regression with its band and n (the first [`LISTED`]; the rest
/// counted and linked), then the steps behind each.
fn regressions(s: &mut Bounded, night: &Night, page_of: PageOf) {
    let regressions: Vec<_> = night
        .runs
        .iter()
        .flat_map(|r| r.regressed_checks().into_iter().map(move |c| (r, c)))
        .collect();
    if regressions.is_empty() {
        return;
    }
    s.push("\n| run | target | metric | measured | expected | change | band (n) |\n|---|---|---|---|---|---|---|\n");
    for (run, c) in regressions.iter().take(LISTED) {
        let n = run.comparable_runs.to_string();
        s.push(&format!(
            "| {} | {} | {} | {} | {} | {} | {} (n = {n}) |\n",
            md_code(&run.stamp),
            md_code(&c.target),
            md_code(c.metric.name()),
            c.measured
                .map_or("—".into(), |m| crate::fmt::metric(c.metric.name(), m)),
            c.expected
                .map_or("—".into(), |e| crate::fmt::metric(c.metric.name(), e)),
            c.change_words().unwrap_or_else(|| "—".into()),
            md_text(&c.band_from),
        ));
        if let Some(load) = &c.rests_on_loaded {
            s.push(&format!("| | ⚠ rests on a loaded run: {} | | | | | |\n", md_text(load)));
        }
    }
    if regressions.len() > LISTED {
        // Counted, and linked where the whole list is: each run's page.
        let mut by_run: Vec<(&GatedRun, usize)> = vec![];
        for (run, _) in &regressions[LISTED..] {
            match by_run.last_mut() {
                Some((r, n)) if std::ptr::eq(*r, *run) => *n += 1,
                _ => by_run.push((run, 1)),
            }
        }
        let where_: Vec<String> = by_run
            .iter()
            .take(LISTED)
            .map(|(run, n)| format!("{n} of {}, {}", md_code(&run.stamp), elsewhere(page_of, Some(run))))
            .collect();
        s.push(&format!(
            "\n{}\n",
            more(
                regressions.len() - LISTED,
                ("regression", "regressions"),
                &where_.join("; ")
            )
        ));
    }
    // The steps behind each regression: a sentence is no table cell.
    let whys: Vec<String> = regressions
        .iter()
        .take(LISTED)
        .filter_map(|(run, c)| {
            let why = c.why.as_ref()?;
            let (stamp, target, metric) = (md_code(&run.stamp), md_code(&c.target), md_code(c.metric.name()));
            // Markdown already (its names escaped); the terminal's quoting
            // shows its bidi and invisible characters, as every name's.
            Some(format!("- {stamp} {target} {metric}: {}\n", quote(&why.text)))
        })
        .collect();
    if !whys.is_empty() {
        s.push("\nWhy it moved:\n\n");
        for why in &whys {
            s.push(why);
        }
    }
}

fn run_line(run: &GatedRun, page_of: PageOf) -> String {
    let mark = match run.verdict {
        Verdict::Regressed => "❌ **regressed**",
        Verdict::Passed if run.unusable => "⛔ **not judged in full**",
        Verdict::Passed => "✅ passed",
        Verdict::NotGated if run.unusable => "⛔ **could not be judged**",
        Verdict::NotGated => "⚪ not gated",
    };
    let rest = match run.verdict {
        Verdict::Regressed => {
            let checks = run.regressed_checks();
            let mut named: Vec<String> = checks
                .iter()
                .take(NAMED_PER_RUN)
                .map(|c| format!("{} {}", md_code(&c.target), md_code(c.metric.name())))
                .collect();
            if checks.len() > NAMED_PER_RUN {
                named.push(format!("and {} more", checks.len() - NAMED_PER_RUN));
            }
            format!(": {}", named.join(", "))
        }
        Verdict::Passed => format!(" ({})", crate::fmt::counted(run.checked as u64, "check", "checks")),
        Verdict::NotGated => format!(
            ": {}",
            crate::escape::md_text(&cut(run.not_gated.as_deref().unwrap_or("no check ran"), REASON_CHARS))
        ),
    };
    let unmeasured = match run.unmeasured.len() {
        0 => String::new(),
        n => format!(
            "; {} not measured in this run",
            crate::fmt::counted(n as u64, "target", "targets")
        ),
    };
    format!(
        "- {mark} {} ({}){rest}{unmeasured}\n",
        run_name(run, page_of),
        md_text(&run.key)
    )
}

/// The summary's text, held under [`MAX_BYTES`]: a line that would pass the
/// bound is not written, and the summary ends saying where it stopped.
struct Bounded {
    text: String,
    full: bool,
}

/// What ends a summary cut at its bound.
const CUT: &str = "\n… the summary stops here, at its size limit: see the JUnit report or `perfreport gate --history` for the rest.\n";

impl Bounded {
    fn new(head: String) -> Self {
        let mut b = Bounded {
            text: String::new(),
            full: false,
        };
        b.push(&head);
        b
    }

    fn push(&mut self, line: &str) {
        if self.full {
            return;
        }
        if self.text.len() + line.len() + CUT.len() > MAX_BYTES {
            self.full = true;
            self.text.push_str(CUT);
            return;
        }
        self.text.push_str(line);
    }

    fn finish(self) -> String {
        self.text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figures::Figures;

    /// A warm gfx1201 run starting `hours` after the epoch whose `n` targets
    /// (long names) build in `build` s.
    fn run(stamp: &str, hours: i64, n: usize, build: f64) -> Figures {
        let mut r = crate::history::bands::tests::run(stamp, 0, Some("warm"), build, false);
        r.started = crate::figures::Value(hours * 3_600_000_000);
        r.arch = crate::figures::Value("gfx1201".into());
        let t = r.targets.remove("pytorch").unwrap_or_else(|| unreachable!());
        for i in 0..n {
            // Each name the length of a file name, and full of what the summary quotes.
            let name = format!("{i:04}-{}", "\u{202e}\u{200f}x_".repeat(60));
            r.targets.insert(name, t.clone());
        }
        r
    }

    #[test]
    fn a_summary_of_two_thousand_regressed_targets_stays_under_a_mebibyte_and_counts_the_rest() {
        let n = crate::model::MAX_TARGETS;
        // Twelve quiet nights, then two at a new level: called on the second.
        let mut all: Vec<Figures> = (0..12)
            .map(|d| run(&format!("n{d}"), d * 24, n, 1000.0 + (d % 3) as f64))
            .collect();
        all.push(run("n12", 12 * 24, n, 1200.0));
        all.push(run("n13", 13 * 24, n, 1200.0));
        let opts = crate::gate::judge::GateOptions::default();
        let night = crate::gate::night::gate_night(&all, 24.0 * 3600.0, i64::MAX / 2, &opts);
        assert!(night.regressions >= n, "{}", night.regressions);
        let page = |dir: &str| format!("https://perf.example/runs/{dir}/");
        let s = summary(&night, Some(&page));
        assert!(s.len() < 1024 * 1024, "{} bytes", s.len());
        let head: String = s.chars().take(300).collect();
        let counted = crate::fmt::counted(night.regressions as u64, "regression", "regressions");
        assert!(
            s.starts_with(&format!("### perfreport gate: ❌ {counted} in 1 of 1 gated run")),
            "{head}"
        );
        let rows = s.lines().filter(|l| l.starts_with("| `n13` |")).count();
        assert_eq!(rows, LISTED, "regressions past the limit are not listed");
        assert!(
            s.contains(&format!(
                "… and {} more, not listed here: ",
                crate::fmt::counted((night.regressions - LISTED) as u64, "regression", "regressions")
            )) && s.contains("see [the run's page](https://perf.example/runs/n13/)"),
            "counted and linked"
        );
        assert!(
            !s.contains('\u{202e}') && !s.contains('\u{200f}'),
            "bidi shown, not acting"
        );
        assert!(s.contains("\\u{202e}\\u{200f}x"), "{head}");
    }

    #[test]
    fn a_summary_is_held_under_its_bound_whatever_it_lists() {
        let mut b = Bounded::new("head\n".into());
        let line = "x".repeat(1000) + "\n";
        for _ in 0..10_000 {
            b.push(&line);
        }
        let s = b.finish();
        assert!(s.len() <= MAX_BYTES, "{}", s.len());
        assert!(s.ends_with(CUT), "it says where it stopped");
        assert_eq!(shown(&"é".repeat(NAME_CHARS + 5)).chars().count(), NAME_CHARS + 1);
    }
}
