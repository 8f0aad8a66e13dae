//! The placement's outputs: its report section (report.md's and the
//! `placement` command's, from `templates/placement.md.tera`), the summary
//! line, and the balancer's own input forms: a `target-costs` file and a
//! fleet manifest of measured links. They read the placement view only.

use super::markdown::markdown_engine;
use crate::error::{Error, Result};
use crate::input::run_json::Mode;
use crate::view::placement::PlacementView;

/// The section's template name, as report.md includes it.
pub(crate) const SECTION: &str = "placement.md";
const TEMPLATE: &str = include_str!("../../templates/placement.md.tera");

/// A link in MB/s as a rate people read (`2.8 MB/s`, `25 B/s`); null as a dash.
fn rate_filter(v: &tera::Value, _: &std::collections::HashMap<String, tera::Value>) -> tera::Result<tera::Value> {
    Ok(tera::Value::String(match v.as_f64() {
        Some(x) => crate::view::placement::rate(x),
        None => super::filters::DASH.into(),
    }))
}

/// Makes the section includable from another markdown template of `t`.
pub(crate) fn add_section(t: &mut tera::Tera) -> Result<()> {
    t.register_filter("rate", rate_filter);
    t.add_raw_template(SECTION, TEMPLATE).map_err(|e| Error::Template {
        name: SECTION.into(),
        message: format!("{e:?}"),
    })
}

/// The section on its own, with every target's costs and their sources
/// (what `perfreport placement` prints).
pub fn markdown(p: &PlacementView) -> Result<String> {
    let mut t = markdown_engine(SECTION, "")?;
    add_section(&mut t)?;
    let mut ctx = tera::Context::new();
    ctx.insert("placement", p);
    ctx.insert("full", &true);
    ctx.insert("sources", &source_lines(p));
    let text = t.render(SECTION, &ctx).map_err(|e| Error::Template {
        name: SECTION.into(),
        message: format!("{e:?}"),
    })?;
    Ok(super::markdown::tidy(&format!(
        "# Run {}\n\n{text}",
        crate::escape::md_text(&p.stamp)
    )))
}

/// Every figure's source and n, said once for all the targets (or nodes)
/// it holds for: "`build_s` of every target: its trace (...), n = 1 each".
fn source_lines(p: &PlacementView) -> Vec<String> {
    use std::collections::BTreeMap;
    // Keyed by (order, kind, field, source, n): targets, then nodes, then the replay.
    let mut groups: BTreeMap<(u8, &str, &str, &str, u32), Vec<&str>> = BTreeMap::new();
    for t in &p.targets {
        for (field, s) in &t.sources {
            groups
                .entry((0, "target", field, &s.from, s.n))
                .or_default()
                .push(&t.name);
        }
    }
    for n in &p.nodes {
        for (field, s) in &n.sources {
            groups
                .entry((1, "node", field, &s.from, s.n))
                .or_default()
                .push(&n.name);
        }
    }
    for (field, s) in &p.replay.sources {
        groups.entry((2, "replay", field, &s.from, s.n)).or_default();
    }
    groups
        .into_iter()
        .map(|((_, kind, field, from, n), names)| {
            let all = match kind {
                "target" => p.targets.len(),
                _ => p.nodes.len(),
            };
            let of = match (kind, names.len()) {
                ("replay", _) => "of the replay".to_string(),
                (_, k) if k == all && k > 1 => format!("of every {kind}"),
                _ => format!("of {}", names.join(", ")),
            };
            let each = if names.len() > 1 { " each" } else { "" };
            format!("`{field}` {of}: {from} (n = {n}{each})")
        })
        .collect()
}

/// A target name the `target-costs` form can carry: one word, nothing a
/// line-oriented reader would split or stop at.
fn writable(name: &str) -> bool {
    !name.is_empty() && !name.starts_with('#') && !name.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// Seconds as the balancer writes them: whole, or to a tenth.
fn seconds(s: f64) -> String {
    let tenths = (s * 10.0).round() / 10.0;
    if tenths.fract() == 0.0 {
        format!("{tenths:.0}")
    } else {
        format!("{tenths:.1}")
    }
}

/// The measured costs in the balancer's `target-costs` form (`build
/// <target> <seconds>`, `cache <target> <bytes>`), with the history's
/// medians where there is one; and what was left out, each with why.
pub fn costs_file(p: &PlacementView) -> (String, Vec<String>) {
    let mut text = String::new();
    let mut left = vec![];
    for t in &p.targets {
        if !writable(&t.name) {
            left.push(format!(
                "{}: the name cannot be written in the target-costs form (empty, a space, a control character or a leading #)",
                t.name
            ));
            continue;
        }
        let (build, weighed) = match &t.history {
            Some(h) => (
                h.build_s.median.get(),
                h.cache_bytes.median.get().map(|b| b.round() as u64),
            ),
            None => (t.build_s.get(), t.cache_bytes.get()),
        };
        match build {
            Some(b) => text.push_str(&format!("build {} {}\n", t.name, seconds(b))),
            None => {
                let why = t.history.as_ref().map_or(t.build_s.why(), |h| h.build_s.median.why());
                left.push(format!("build {}: {}", t.name, why.unwrap_or_default()))
            }
        }
        // Only a warm run's export is what the balancer prices, with or without history.
        match (weighed, p.mode.get()) {
            (Some(b), Some(Mode::Warm)) => text.push_str(&format!("cache {} {b}\n", t.name)),
            (Some(_), mode) => left.push(format!(
                "cache {}: measured in a {} run, whose export is not what the balancer prices (a warm run's is)",
                t.name,
                mode.map(|m| format!("{m:?}").to_lowercase())
                    .unwrap_or_else(|| "run of unknown kind".into())
            )),
            (None, _) => {
                let why = t
                    .history
                    .as_ref()
                    .map_or(t.cache_bytes.why(), |h| h.cache_bytes.median.why());
                left.push(format!("cache {}: {}", t.name, why.unwrap_or_default()))
            }
        }
    }
    (text, left)
}

/// One line of a comment: what follows `#` ends at the line's end, so no
/// control character (a newline least of all) may pass.
fn comment(s: &str) -> String {
    s.chars().map(|c| if c.is_control() { ' ' } else { c }).collect()
}

/// A node's name as a YAML scalar: double-quoted with JSON's escapes, which
/// YAML's double-quoted style reads alike, so no name can end the line.
fn yaml_name(name: &str) -> String {
    serde_json::to_string(name).unwrap_or_else(|_| "\"\"".into())
}

/// The nodes' measured links as a fleet manifest, each node's
/// `link_mbps: <MB/s>` (the history's medians where there is one), with
/// where it came from and its n in a comment; nodes not measured are listed
/// in comments with why, never written as a link.
pub fn fleet_file(p: &PlacementView) -> String {
    let mut text = format!(
        "# Fleet manifest: each node's upload link in MB/s as perfreport measured it (run {}).\nnodes:\n",
        comment(&p.stamp)
    );
    let mut not_measured = vec![];
    for n in &p.nodes {
        let measured = match &n.history {
            Some(h) => h.median.get().map(|m| (m, h.n, format!("median over {} runs", h.n))),
            None => n.link_mbps_measured.get().map(|m| {
                let from = n.sources.get("link_mbps_measured").map(|s| s.from.clone());
                (m, n.link_n, from.unwrap_or_default())
            }),
        };
        match measured {
            Some((link_mbps, count, from)) => text.push_str(&format!(
                "  - name: {}\n    link_mbps: {} # n={count}: {}\n",
                yaml_name(&n.name),
                sig6(link_mbps),
                comment(&from)
            )),
            None => {
                let why = match &n.history {
                    Some(h) => h.median.why(),
                    None => n.link_mbps_measured.why(),
                };
                not_measured.push(format!(
                    "#   {}: {}\n",
                    comment(&n.name),
                    comment(why.unwrap_or_default())
                ));
            }
        }
    }
    if !not_measured.is_empty() {
        text.push_str("# Not measured, so not written:\n");
        text.extend(not_measured);
    }
    text
}

/// Six significant digits, as the measured link is kept.
fn sig6(x: f64) -> f64 {
    format!("{x:.5e}").parse().unwrap_or(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_are_whole_or_to_a_tenth() {
        assert_eq!(seconds(948.0), "948");
        assert_eq!(seconds(949.711), "949.7");
        assert_eq!(seconds(0.04), "0");
    }

    #[test]
    fn a_name_the_costs_form_would_split_is_not_written() {
        assert!(writable("triton-wheel"));
        for bad in ["", "two words", "new\nline", "#comment", "tab\tbed"] {
            assert!(!writable(bad), "{bad:?}");
        }
    }
}
