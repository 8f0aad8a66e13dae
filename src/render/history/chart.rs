//! One SVG per key: small multiples, a panel per target with total and build
//! per run (both durations, so one y axis per panel, never two), each with
//! its level line (the median of each stretch between changes of level,
//! stepping where the change lands); a loaded point ringed in red, each
//! change of level marked where it starts. Every panel of a key shares one y scale, in round minutes (hours
//! past three), and the x axis names the runs' days.

use crate::error::Result;
use crate::figures::Metric;
use crate::history::view::{KeyView, MetricView};
use crate::render::charts::{rgb, round_up, svg, Chart, DrawResult, Legend, LegendEntry, Swatch, FONT, WIDTH};
use plotters::coord::Shift;
use plotters::prelude::*;

/// The two metrics drawn, with their colour index.
const SERIES: [(Metric, usize); 2] = [(Metric::Total, 0), (Metric::Build, 1)];
const COLUMNS: usize = 2;
const PANEL_HEIGHT: u32 = 210;
/// The ring around a loaded point: red, apart from both series' colours.
const LOADED: RGBColor = RGBColor(214, 39, 40);
const LEFT: i32 = 12;
/// A chart draws the newest this many runs of its key (a year of nights):
/// two points a pixel say nothing more and cost a megabyte; history.json
/// and history.html keep every point.
pub(crate) const CHART_RUNS: usize = 365;

/// The chart of `key` (which must have a `chart` name).
pub(crate) fn draw(key: &KeyView) -> Result<String> {
    let name = key.chart.value().cloned().unwrap_or_default();
    let entries = vec![
        LegendEntry::new("total per run", Swatch::Dot(rgb(0))),
        LegendEntry::new("build per run", Swatch::Dot(rgb(1))),
        LegendEntry::new(
            "level: the median between changes",
            Swatch::Line(RGBColor(110, 110, 110)),
        ),
        LegendEntry::new("loaded: node past its cores at the end", Swatch::Dot(LOADED)),
        LegendEntry::new("a change of level starts", Swatch::Dashed(RGBColor(0, 0, 0))),
    ];
    let legend = Legend::new(entries, WIDTH - LEFT as u32 - 12);
    let rows = key.targets.len().div_ceil(COLUMNS).max(1) as u32;
    let first = key.runs.len().saturating_sub(CHART_RUNS);
    let runs = first..key.runs.len();
    let scale = Scale::of(key, &runs);
    let title = if first > 0 {
        format!(
            "{}: {} per run, the newest {CHART_RUNS} of {} runs",
            key.label,
            scale.unit_name,
            key.runs.len()
        )
    } else {
        format!("{}: {} per run, oldest to newest", key.label, scale.unit_name)
    };
    svg(&name, (WIDTH, 40 + legend.height + rows * PANEL_HEIGHT), |root| {
        root.fill(&WHITE)?;
        let below = root.margin(8, 0, 0, 0).titled(&title, (FONT, 16))?;
        let plots = legend.draw(&below, LEFT)?;
        let panels = plots.split_evenly((rows as usize, COLUMNS));
        for ((target, metrics), area) in key.targets.iter().zip(panels.iter()) {
            panel(area, key, target, metrics, runs.clone(), &scale)?;
        }
        root.present()?;
        Ok(())
    })
}

/// The y scale every panel of a key shares: its unit and a round top.
struct Scale {
    /// Seconds per axis unit: 60 (minutes), or 3600 past three hours.
    unit: f64,
    unit_name: &'static str,
    suffix: &'static str,
    /// The top, in axis units.
    top: f64,
}

impl Scale {
    fn of(key: &KeyView, runs: &std::ops::Range<usize>) -> Scale {
        let max = key
            .targets
            .values()
            .flat_map(|metrics| SERIES.iter().filter_map(|(m, _)| metrics.get(m)))
            .flat_map(|m| m.points.iter().filter(|p| runs.contains(&p.run)).map(|p| p.value))
            .filter(|v| v.is_finite())
            .fold(0.0, f64::max);
        let (unit, unit_name, suffix) = if max > 3.0 * 3600.0 {
            (3600.0, "hours", "h")
        } else {
            (60.0, "minutes", "m")
        };
        Scale {
            unit,
            unit_name,
            suffix,
            top: round_up(max / unit),
        }
    }
}

/// The day run `i` started (`2026-10-01`), else its stamp.
fn day(key: &KeyView, i: usize) -> String {
    match key.run_days.get(i) {
        Some(Some(d)) => d.clone(),
        _ => key.runs.get(i).cloned().unwrap_or_default(),
    }
}

/// One target's panel: its caption, axes, and each metric drawn.
fn panel(
    area: &DrawingArea<SVGBackend, Shift>,
    key: &KeyView,
    target: &str,
    metrics: &std::collections::BTreeMap<Metric, MetricView>,
    runs: std::ops::Range<usize>,
    scale: &Scale,
) -> DrawResult {
    let series: Vec<(&MetricView, &str, usize)> = SERIES
        .iter()
        .filter_map(|(m, c)| Some((metrics.get(m)?, m.label(), *c)))
        .collect();
    let mut chart = ChartBuilder::on(area)
        .caption(caption(key, target, &series, &runs), (FONT, 14))
        .margin(8)
        .margin_right(36)
        .x_label_area_size(28)
        .y_label_area_size(56)
        .build_cartesian_2d(
            runs.start as f64 - 0.5..(runs.end.max(runs.start + 1) as f64 - 0.5),
            0f64..scale.top,
        )?;
    mesh(&mut chart, key, scale)?;
    for (m, _, c) in &series {
        draw_metric(&mut chart, key, m, rgb(*c), (&runs, scale))?;
    }
    Ok(())
}

/// The panel's caption: its target, and each metric's change of level
/// among the runs drawn with the day it came.
fn caption(
    key: &KeyView,
    target: &str,
    series: &[(&MetricView, &str, usize)],
    runs: &std::ops::Range<usize>,
) -> String {
    let steps: Vec<String> = series
        .iter()
        .filter_map(|(m, label, _)| {
            let s = m.step.value().filter(|s| runs.contains(&s.run))?;
            Some(format!(
                "{label} {} from {}",
                crate::fmt::change(s.change_pct, 1),
                day(key, s.run)
            ))
        })
        .collect();
    if steps.is_empty() {
        target.to_string()
    } else {
        format!("{target}: {}", steps.join(", "))
    }
}

/// The panel's axes: the runs' days along, the scale's unit up.
fn mesh(chart: &mut Chart<'_>, key: &KeyView, scale: &Scale) -> DrawResult {
    chart
        .configure_mesh()
        .y_desc(scale.unit_name)
        .x_labels(4)
        .y_labels(5)
        .x_label_formatter(&|v| {
            let i = v.round();
            // Only whole runs carry a day; a tick between two is left blank.
            if (v - i).abs() < 1e-6 && i >= 0.0 {
                day(key, i as usize)
            } else {
                String::new()
            }
        })
        .y_label_formatter(&|v| {
            format!(
                "{}{}",
                crate::fmt::fixed(*v, if v.fract() == 0.0 { 0 } else { 1 }),
                scale.suffix
            )
        })
        .light_line_style(RGBColor(235, 235, 235))
        .draw()?;
    Ok(())
}

/// One metric over the runs drawn: its level line, its points (a loaded
/// one ringed) and a dashed mark where each change of level starts.
fn draw_metric(
    chart: &mut Chart<'_>,
    key: &KeyView,
    m: &MetricView,
    colour: RGBColor,
    (runs, scale): (&std::ops::Range<usize>, &Scale),
) -> DrawResult {
    let ymax = scale.top;
    // The level line steps at each change of level, where it happens.
    let shown: Vec<(&crate::history::view::PointView, f64)> = m
        .points
        .iter()
        .filter(|p| runs.contains(&p.run))
        .map(|p| (p, p.level))
        .collect();
    let xy = |p: &crate::history::view::PointView, v: f64| (p.run as f64, (v / scale.unit).clamp(0.0, ymax));
    let line: Vec<(f64, f64)> = shown.iter().map(|(p, level)| xy(p, *level)).collect();
    chart.draw_series(LineSeries::new(line, colour.stroke_width(2)))?;
    chart.draw_series(
        shown
            .iter()
            .map(|(p, _)| Circle::new(xy(p, p.value), 3, colour.filled())),
    )?;
    let loaded = shown.iter().filter(|(p, _)| p.loaded == Some(true));
    chart.draw_series(loaded.map(|(p, _)| Circle::new(xy(p, p.value), 6, LOADED.stroke_width(2))))?;
    for c in &m.change_points {
        let Some(at) = key
            .runs
            .iter()
            .position(|r| *r == c.stamp)
            .filter(|at| runs.contains(at))
        else {
            continue;
        };
        let x = at as f64 - 0.5;
        chart.draw_series(DashedLineSeries::new(
            vec![(x, 0.0), (x, ymax)],
            5,
            4,
            BLACK.stroke_width(1),
        ))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figures::{Figures, Load, TargetFigures, Value};

    #[test]
    fn a_chart_draws_the_newest_year_of_runs_and_says_so() {
        let runs: Vec<Figures> = (0..400)
            .map(|i| {
                let mut r = Figures::dated(&format!("n{i:03}"), i, Some("warm"));
                let mut t = TargetFigures::unmeasured("not measured");
                t.set(Metric::Total, 1100.0).set(Metric::Build, 1000.0);
                t.load = Value(if i == 10 || i == 399 {
                    Load::Loaded("n0 ended the run loaded".into())
                } else {
                    Load::Clear
                });
                r.targets.insert("pytorch".into(), t);
                r
            })
            .collect();
        let view = crate::history::view::build("/root", &runs, &Default::default());
        let svg = draw(&view.keys[0]).unwrap();
        assert!(
            svg.contains("the newest 365 of 400 runs"),
            "the title says what is left out"
        );
        // Two series of 365 points; run 399 ringed on both (run 10 lies outside); three legend dots.
        assert_eq!(svg.matches("<circle").count(), 2 * CHART_RUNS + 2 + 3);
    }
}
