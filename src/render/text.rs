//! Text for a terminal: what `check`, `gate` and `history` print. Every
//! field that comes from the inputs is quoted on its own ([`quote`]: a
//! name's newline shown as `\n`), so no name can forge a line or a row;
//! the commands quote the rest but keep the layout's newlines.

use super::Export;
use crate::check::CheckReport;
use crate::error::Result;
use crate::gate::night::Night;
use crate::gate::{Check, GateReport};
use crate::history::view::HistoryView;
use crate::output::OutFile;
use crate::term::quote;
use crate::timefmt::human_duration;
use std::fmt::Write;

/// What each text is called as a file.
pub(crate) const CHECK: &str = "check.txt";
pub(crate) const GATE: &str = "gate.txt";
pub(crate) const HISTORY: &str = "history.txt";

/// The terminal's text. `allow_empty`: a night that gated nothing passes
/// (gate's `--allow-empty`), as its verdict line says.
#[derive(Debug, Clone, Copy, Default)]
pub struct Text {
    pub allow_empty: bool,
}

impl Export<CheckReport> for Text {
    fn render(&self, r: &CheckReport) -> Result<Vec<OutFile>> {
        Ok(vec![OutFile::new(CHECK, check(r))])
    }
}

impl Export<GateReport> for Text {
    fn render(&self, r: &GateReport) -> Result<Vec<OutFile>> {
        Ok(vec![OutFile::new(GATE, gate(r))])
    }
}

impl Export<Night> for Text {
    fn render(&self, n: &Night) -> Result<Vec<OutFile>> {
        Ok(vec![OutFile::new(GATE, night(n, self.allow_empty))])
    }
}

impl Export<HistoryView> for Text {
    fn render(&self, view: &HistoryView) -> Result<Vec<OutFile>> {
        Ok(vec![OutFile::new(HISTORY, history(view))])
    }
}

/// The plain-text form, for a terminal: every field quoted
/// ([`quote`]), since run paths, file names, node names and quoted log
/// lines come from the inputs.
fn check(r: &CheckReport) -> String {
    let bad = r.findings.iter().filter(|f| !f.ok).count();
    let mut out = format!(
        "perfreport check {}: {}\n",
        quote(&r.run),
        if bad == 0 {
            "every producer and consumer agree".to_string()
        } else {
            match bad {
                1 => "1 input broke its contract".to_string(),
                n => format!("{n} inputs broke their contract"),
            }
        }
    );
    let width = r
        .findings
        .iter()
        .map(|f| quote(&f.input).chars().count())
        .max()
        .unwrap_or(10);
    for f in &r.findings {
        out.push_str(&format!(
            "  {}  {:width$}  {}\n",
            if f.ok { "ok  " } else { "FAIL" },
            quote(&f.input),
            quote(&f.summary)
        ));
        for p in &f.problems {
            out.push_str(&format!("        {}\n", quote(p)));
        }
    }
    out
}

/// The gate's report for a terminal. Every field from the inputs is quoted
/// on its own (a target name's newline shown as `\n`), so a name cannot
/// forge a row; the caller quotes the rest but keeps the layout's newlines.
fn gate(r: &GateReport) -> String {
    if let Some(why) = &r.refused {
        return format!(
            "perfreport gate {}: refused, the run is not comparable with the expectations: {}\n",
            quote(&r.run),
            quote(why)
        );
    }
    let mut s = format!(
        "{} gate {}: {} of {} ran, {}; against {}\n",
        r.tool,
        quote(&r.run),
        crate::fmt::counted(r.checked as u64, "check", "checks"),
        r.checks.len(),
        crate::fmt::counted(r.regressions as u64, "regression", "regressions"),
        quote(&r.against),
    );
    s.push_str(&checks_table(&r.checks));
    s
}

/// The checks as a table for a terminal, each input field quoted.
fn checks_table(checks: &[Check]) -> String {
    if checks.is_empty() {
        return String::new();
    }
    let mut s = format!(
        "  {:<16} {:<13} {:>10} {:>10} {:>8} {:>7}  verdict (band from)\n",
        "target", "metric", "measured", "expected", "drift", "band"
    );
    for c in checks {
        let measured = c
            .measured
            .map(|x| crate::fmt::metric(c.metric.name(), x))
            .unwrap_or_else(|| "—".into());
        let drift = c.drift_pct.map_or("—".into(), crate::gate::shown_drift);
        let band = c.band_pct.map_or("—".into(), crate::gate::shown_band);
        // A band beside a verdict it decided; "not gateable" and "ungateable" say why themselves.
        let from = if c.verdict.contains("gateable") {
            String::new()
        } else {
            format!(" ({})", quote(&c.band_from))
        };
        s.push_str(&format!(
            "  {:<16} {:<13} {:>10} {:>10} {:>8} {:>7}  {}{from}\n",
            quote(&c.target),
            quote(c.metric.name()),
            measured,
            c.expected
                .map_or("—".into(), |e| crate::fmt::metric(c.metric.name(), e)),
            drift,
            band,
            quote(&c.verdict)
        ));
        if let Some(why) = &c.why {
            s.push_str(&format!("    why: {}\n", quote(&why.text)));
        }
        if let Some(why) = c.rests_on_loaded.as_ref().filter(|_| c.is_regression()) {
            s.push_str(&format!(
                "    ⚠ this regression rests on a loaded run: {}\n",
                quote(why)
            ));
        }
    }
    s
}

/// The night's report for a terminal: a verdict line per gated run, its
/// checks below it, and the lane's verdict last.
fn night(n: &Night, allow_empty: bool) -> String {
    let mut s = format!(
        "{} gate: the night of {} (the newest run of each key started within {} of it): {}\n",
        crate::view::Tool::this(),
        n.newest.as_deref().map_or("no run".into(), quote),
        human_duration(n.window_s),
        crate::fmt::counted(n.runs.len() as u64, "run", "runs")
    );
    for r in &n.runs {
        s.push_str(&format!(
            "\n{} ({}): {}\n",
            quote(&r.stamp),
            quote(&r.key),
            quote(&r.verdict_line())
        ));
        if !r.against.is_empty() {
            s.push_str(&format!("  against {}\n", quote(&r.against)));
        }
        s.push_str(&checks_table(&r.checks));
        for o in &r.open {
            s.push_str(&format!("  open: {} (id {})\n", quote(&o.line()), quote(&o.shift.id)));
        }
    }
    if !n.keys_outside.is_empty() {
        s.push_str(&format!(
            "\n{} whose newest run started earlier, not part of this night: {}\n",
            crate::fmt::counted(n.keys_outside.len() as u64, "other key", "other keys"),
            quote(&n.keys_outside.join("; "))
        ));
    }
    if !n.dated_in_future.is_empty() {
        s.push_str(&format!(
            "\n⚠ dated after this machine's clock, left out of the night (a clock's error?): {}\n",
            quote(&n.dated_in_future.join(", "))
        ));
    }
    s.push_str(&format!(
        "\nverdict: {} over {}, {}; {}\n",
        crate::fmt::counted(n.checked as u64, "check", "checks"),
        crate::fmt::counted(n.runs.len() as u64, "run", "runs"),
        crate::fmt::counted(n.regressions as u64, "regression", "regressions"),
        n.status_line(allow_empty)
    ));
    s
}

/// What a person at a terminal wants first: per key its runs, each step with
/// the run it starts at, each metric too wide to gate; then what was left out.
fn history(view: &HistoryView) -> String {
    let pooled: usize = view.keys.iter().map(|k| k.runs.len()).sum();
    let mut s = format!(
        "perfreport history {}: {pooled} run{} in {} key{}, {} left out\n",
        view.root,
        if pooled == 1 { "" } else { "s" },
        view.keys.len(),
        if view.keys.len() == 1 { "" } else { "s" },
        view.left_out.len()
    );
    for k in &view.keys {
        let span = match (k.runs.first(), k.runs.last()) {
            (Some(a), Some(b)) if k.runs.len() > 1 => format!("{a} to {b}"),
            _ => k.note.clone().unwrap_or_default(),
        };
        let _ = writeln!(
            s,
            "  {}: {}, {span}",
            k.label,
            crate::fmt::counted(k.runs.len() as u64, "run", "runs")
        );
        for (target, metrics) in &k.targets {
            for m in crate::figures::Metric::TARGET {
                let Some(v) = metrics.get(&m) else { continue };
                if let Some(step) = v.step.value() {
                    let _ = writeln!(
                        s,
                        "    {target} {m}: step {} from {} ({} → {})",
                        crate::fmt::change(step.change_pct, 1),
                        step.stamp,
                        crate::fmt::metric(m.name(), step.before),
                        crate::fmt::metric(m.name(), step.after)
                    );
                }
                if let Some(cp) = v.change_point.value() {
                    let _ = writeln!(s, "      {}", cp.why);
                }
                if let Some(sp) = v
                    .spread_pct
                    .get()
                    .filter(|sp| *sp > crate::analysis::spread::MAX_GATE_SPREAD_PCT)
                {
                    let _ = writeln!(
                        s,
                        "    {target} {m}: not gateable: spread {}% over {}",
                        crate::fmt::fixed(sp, 1),
                        crate::fmt::counted(v.n as u64, "run", "runs")
                    );
                }
            }
        }
        if !k.loaded.is_empty() {
            let _ = writeln!(
                s,
                "    loaded: {} ({})",
                crate::fmt::counted(k.loaded.len() as u64, "run", "runs"),
                k.loaded.keys().cloned().collect::<Vec<_>>().join(", ")
            );
        }
    }
    for l in &view.left_out {
        let _ = writeln!(s, "  left out: {}: {}", l.run, l.reason);
    }
    s
}
