//! The section a published run's page leads with (`gate::page::RunNight`):
//! the night's verdict in the gate's own words, each regression with its
//! size, band, n, the night it started and its cause from the pair of
//! nights it rests on, what is watched, open or loaded, each target against
//! the comparable night before, and links to the neighbours and the
//! history. Markdown, every input string escaped for where it lands.

use crate::escape::{md_code, md_text};
use crate::gate::page::RunNight;
use crate::gate::Check;

/// Links from a run's page (`runs/<folder>/`) to a sibling run's page.
fn sibling(stamp: &str, dir: &str) -> String {
    format!(
        "[{}](../{}/index.html)",
        md_text(stamp),
        crate::escape::url_segment(dir)
    )
}

fn history_link(c: &Check) -> String {
    format!("[history](../../history.html#metric={})", c.metric.name())
}

fn value(c: &Check, v: Option<f64>) -> String {
    v.map_or("—".into(), |x| crate::fmt::metric(c.metric.name(), x))
}

/// A regression called tonight, in one line with its cause after it.
fn regression_line(c: &Check, n: usize) -> String {
    let drift = c.change_words().map_or(String::new(), |w| format!(" {w}"));
    let band = c
        .band_pct
        .map_or(String::new(), |b| format!(" beyond {}", crate::gate::shown_band(b)));
    let mut line = format!(
        "- **{} {}{drift}**: {} against its level {}{band}, n = {n} nights; {}. {}\n",
        md_text(&c.target),
        md_code(c.metric.name()),
        value(c, c.measured),
        value(c, c.expected),
        md_text(&c.band_from),
        history_link(c)
    );
    if let Some(r) = &c.regression {
        let cause = &r.shift.cause;
        if !cause.kinds.is_empty() {
            line.push_str(&format!("  - cause: {}\n", md_text(&cause.kinds.join(", "))));
        }
        line.push_str(&format!("  - {}\n", cause.why));
        if let (Some(a), Some(b)) = (&cause.revision_before, &cause.revision_after) {
            line.push_str(&format!("  - revision {} → {}\n", md_code(a), md_code(b)));
        }
    }
    line
}

/// The night's section, first on the run's page.
pub(crate) fn markdown(n: &RunNight) -> String {
    let g = &n.gated;
    let mut s = format!("## This night: {}\n\n", md_text(&g.verdict_line()));
    let mut about = vec![md_text(&g.key)];
    about.push(match &n.revision {
        Some(r) => format!("revision {}", md_code(r)),
        None => "revision not recorded".into(),
    });
    if let Some((stamp, dir)) = &n.previous {
        about.push(format!("previous: {}", sibling(stamp, dir)));
    }
    if let Some((stamp, dir)) = &n.next {
        about.push(format!("next: {}", sibling(stamp, dir)));
    }
    about.push("[history](../../history.html)".into());
    s.push_str(&format!("{}\n\n", about.join(" · ")));
    if !g.against.is_empty() {
        s.push_str(&format!("Judged against {}.\n\n", md_text(&g.against)));
    }
    let called: Vec<&Check> = g.regressed_checks();
    if !called.is_empty() {
        s.push_str("Regressions called tonight:\n\n");
        for c in called {
            s.push_str(&regression_line(c, g.comparable_runs));
        }
        s.push('\n');
    }
    list(
        &mut s,
        "Watched: one night beyond its level (the next night tells a change from an outlier):",
        g,
        "watch",
    );
    list(
        &mut s,
        "Loaded: the node ended the run past its cores, so the night neither confirms nor denies a change:",
        g,
        "loaded",
    );
    if !g.open.is_empty() {
        s.push_str("Open since an earlier night (accept one in perf-accepted.toml by its id):\n\n");
        for o in &g.open {
            s.push_str(&format!("- {} ({})\n", md_text(&o.line()), md_code(&o.shift.id)));
        }
        s.push('\n');
    }
    targets(&mut s, n);
    s
}

/// The checks whose verdict starts with `prefix`, with their why.
fn list(s: &mut String, heading: &str, g: &crate::gate::night::GatedRun, prefix: &str) {
    let checks: Vec<&Check> = g.checks.iter().filter(|c| c.verdict.starts_with(prefix)).collect();
    if checks.is_empty() {
        return;
    }
    s.push_str(&format!("{heading}\n\n"));
    for c in checks {
        let drift = c.change_words().map_or(String::new(), |w| format!(" {w}"));
        s.push_str(&format!(
            "- {} {}{drift}: {} against its level {}. {}\n",
            md_text(&c.target),
            md_code(c.metric.name()),
            value(c, c.measured),
            value(c, c.expected),
            history_link(c)
        ));
        if let Some(why) = &c.why {
            s.push_str(&format!("  - {}\n", why.text));
        } else if let Some(load) = &c.rests_on_loaded {
            s.push_str(&format!("  - {}\n", md_text(load)));
        }
    }
    s.push('\n');
}

/// Each target that moved since the comparable night before, with why.
fn targets(s: &mut String, n: &RunNight) {
    let Some((stamp, _)) = &n.previous else { return };
    if n.targets.is_empty() {
        s.push_str(&format!(
            "Since the previous night ({}): no target's total moved more than 1% and 5 s.\n\n",
            md_text(stamp)
        ));
        return;
    }
    s.push_str(&format!("Since the previous night ({}):\n\n", md_text(stamp)));
    for t in &n.targets {
        let fmt = |v: Option<f64>| v.map_or("not measured".into(), crate::fmt::duration);
        let change = t
            .change_pct
            .map_or(String::new(), |p| format!(" ({})", crate::gate::shown_drift(p)));
        s.push_str(&format!(
            "- {} total {} → {}{change}: {}\n",
            md_text(&t.target),
            fmt(t.before),
            fmt(t.now),
            t.cause.why
        ));
    }
    s.push('\n');
}
