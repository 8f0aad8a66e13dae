//! History's outputs, from the history view only: `history.json`,
//! `history.md` (tera, escaped as report.md is) with one chart per key under
//! `charts/`, and the site's `history.html`.

pub(crate) mod chart;
pub(crate) mod page;

use crate::error::{Error, Result};
use crate::history::view::{ChangePoint, HistoryView, KeyView, LeftOutRun, LevelStepView, MetricView};
use crate::output::OutFile;
use crate::view::Tool;
use std::collections::{BTreeMap, HashMap};
use tera::Value;

pub(crate) const MARKDOWN: &str = "history.md";
const TEMPLATE: &str = include_str!("../../../templates/history.md.tera");

/// A figure built by perfreport from a number: no escaping needed.
struct Safe(fn(&Value, &HashMap<String, Value>) -> tera::Result<Value>);

impl tera::Filter for Safe {
    fn filter(&self, v: &Value, args: &HashMap<String, Value>) -> tera::Result<Value> {
        (self.0)(v, args)
    }
    fn is_safe(&self) -> bool {
        true
    }
}

/// A metric's value as the report writes it (`15m37s`, a count as an
/// integer); null as a dash.
fn value(v: &Value, args: &HashMap<String, Value>) -> tera::Result<Value> {
    let metric = args.get("metric").and_then(Value::as_str).unwrap_or("");
    Ok(Value::String(match v.as_f64() {
        Some(x) => crate::fmt::metric(metric, x),
        None => crate::render::filters::DASH.into(),
    }))
}

/// A change in percent with its sign; null as a dash.
fn signed(v: &Value, _: &HashMap<String, Value>) -> tera::Result<Value> {
    Ok(Value::String(
        v.as_f64()
            .map(|p| crate::fmt::change(p, 1))
            .unwrap_or_else(|| crate::render::filters::DASH.into()),
    ))
}

fn template_error(name: &str) -> impl Fn(tera::Error) -> Error + '_ {
    move |e| Error::Template {
        name: name.into(),
        message: format!("{e:?}"),
    }
}

/// history.md: every input string escaped as markdown text.
pub(crate) fn markdown(view: &HistoryView) -> Result<String> {
    let mut t = crate::render::markdown::markdown_engine(MARKDOWN, TEMPLATE)?;
    t.register_filter("value", Safe(value));
    t.register_filter("signed", Safe(signed));
    let mut ctx = tera::Context::from_serialize(TextView::of(view)).map_err(|e| Error::Template {
        name: MARKDOWN.into(),
        message: e.to_string(),
    })?;
    ctx.insert("metrics", &crate::figures::Metric::TARGET);
    ctx.insert("pooled", &view.keys.iter().map(|k| k.runs.len()).sum::<usize>());
    // The keys the text lists apart, picked here: tera's `filter` and
    // `concat` copy every key they are given, each with all its runs'
    // figures, which was most of adding a run to a site of hundreds.
    let moved: Vec<Listed> = view
        .keys
        .iter()
        .filter(|k| k.newest_regressed)
        .map(Listed::of)
        .collect();
    let ones: Vec<Listed> = view.keys.iter().filter(|k| k.runs.len() == 1).map(Listed::of).collect();
    ctx.insert("moved", &moved);
    ctx.insert("ones", &ones);
    let text = t.render(MARKDOWN, &ctx).map_err(template_error(MARKDOWN))?;
    Ok(tidy(&text))
}

/// What history.md reads of the view: the tables' figures, not the points
/// and step lines behind the charts. tera copies all it is given into its
/// context, and those grow with every run of a site.
#[derive(serde::Serialize)]
struct TextView<'a> {
    root: &'a str,
    estimator: &'a str,
    loaded_rule: &'a str,
    keys: Vec<TextKey<'a>>,
    left_out: &'a [LeftOutRun],
    tool: &'a Tool,
}

#[derive(serde::Serialize)]
struct TextKey<'a> {
    label: &'a str,
    runs: &'a [String],
    newest_verdict_words: Option<&'a str>,
    chart: Option<&'a str>,
    targets: BTreeMap<&'a str, BTreeMap<&'a str, TextMetric<'a>>>,
    loaded: &'a BTreeMap<String, BTreeMap<String, String>>,
    /// How many runs `load_unknown` names.
    load_unknown_runs: usize,
}

/// A metric's row: [`MetricView`] without its points.
#[derive(serde::Serialize)]
struct TextMetric<'a> {
    n: usize,
    median: Option<f64>,
    newest: Option<f64>,
    newest_vs_median_pct: Option<f64>,
    level: Option<f64>,
    newest_vs_level_pct: Option<f64>,
    spread_pct: Option<f64>,
    step: Option<&'a LevelStepView>,
    loaded: Option<usize>,
    change_point: Option<&'a ChangePoint>,
    change_points: &'a [ChangePoint],
}

impl<'a> TextView<'a> {
    fn of(v: &'a HistoryView) -> Self {
        let metric = |m: &'a MetricView| TextMetric {
            n: m.n,
            median: m.median.get(),
            newest: m.newest.get(),
            newest_vs_median_pct: m.newest_vs_median_pct.get(),
            level: m.level.get(),
            newest_vs_level_pct: m.newest_vs_level_pct.get(),
            spread_pct: m.spread_pct.get(),
            step: m.step.value(),
            loaded: m.loaded.get(),
            change_point: m.change_point.value(),
            change_points: &m.change_points,
        };
        let key = |k: &'a KeyView| TextKey {
            label: &k.label,
            runs: &k.runs,
            newest_verdict_words: k.newest_verdict_words.as_deref(),
            chart: k.chart.as_deref(),
            targets: k
                .targets
                .iter()
                .map(|(t, ms)| (t.as_str(), ms.iter().map(|(m, v)| (m.name(), metric(v))).collect()))
                .collect(),
            loaded: &k.loaded,
            load_unknown_runs: k.load_unknown.len(),
        };
        TextView {
            root: &v.root,
            estimator: v.estimator,
            loaded_rule: v.loaded_rule,
            keys: v.keys.iter().map(key).collect(),
            left_out: &v.left_out,
            tool: &v.tool,
        }
    }
}

/// A key as history.md lists it on one line: its label, first and newest
/// runs and the verdict on the newest.
#[derive(serde::Serialize)]
struct Listed<'a> {
    label: &'a str,
    first: Option<&'a str>,
    last: Option<&'a str>,
    words: Option<&'a str>,
}

impl<'a> Listed<'a> {
    fn of(k: &'a KeyView) -> Self {
        Listed {
            label: &k.label,
            first: k.runs.first().map(String::as_str),
            last: k.runs.last().map(String::as_str),
            words: k.newest_verdict_words.as_deref(),
        }
    }
}

/// Collapses the blank lines the template's loops leave behind.
fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank = 0;
    for line in text.lines().map(str::trim_end) {
        blank = if line.is_empty() { blank + 1 } else { 0 };
        if blank < 2 {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// The site's `history.html` and `history.json` (without the charts the page draws itself).
pub(crate) fn site_files(history: HistoryView) -> Result<Vec<OutFile>> {
    let page = page::render(&history)?;
    Ok(vec![
        OutFile::new(page::FILE, page),
        OutFile::new(
            crate::history::view::FILE,
            super::json::compact(&history.without_charts()),
        ),
    ])
}

/// The `history` command's files: history.json, history.md, a chart per key.
pub fn render_all(view: &HistoryView) -> Result<Vec<OutFile>> {
    use rayon::prelude::*;
    let charts: Vec<OutFile> = view
        .keys
        .par_iter()
        .filter_map(|k: &KeyView| Some((k.chart.value()?.clone(), k)))
        .map(|(name, k)| Ok(OutFile::new(name, chart::draw(k)?)))
        .collect::<Result<_>>()?;
    let mut files = vec![
        OutFile::new(crate::history::view::FILE, super::json::compact(view)),
        OutFile::new(MARKDOWN, markdown(view)?),
    ];
    files.extend(charts);
    Ok(files)
}
