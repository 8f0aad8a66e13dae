//! One SVG per key: small multiples, a panel per target with total and build
//! per run (both seconds, so one y axis per panel, never two), each with its
//! running median; a loaded point ringed in red, a step marked where it starts.

use crate::analysis::spread;
use crate::error::Result;
use crate::history::view::{KeyView, MetricView};
use crate::render::charts::{rgb, svg, DrawResult, Legend, LegendEntry, Swatch, FONT, WIDTH};
use plotters::coord::Shift;
use plotters::prelude::*;

/// The two metrics drawn, with their colour index.
const SERIES: [(&str, &str, usize); 2] = [("total_s", "total", 0), ("build_s", "build", 1)];
const COLUMNS: usize = 2;
const PANEL_HEIGHT: u32 = 210;
/// The ring around a loaded point: red, apart from both series' colours.
const LOADED: RGBColor = RGBColor(214, 39, 40);
const LEFT: i32 = 12;

/// The chart of `key` (which must have a `chart` name).
pub fn draw(key: &KeyView) -> Result<String> {
    let name = key.chart.clone().unwrap_or_default();
    let entries = vec![
        LegendEntry::new("total per run", Swatch::Dot(rgb(0))),
        LegendEntry::new("build per run", Swatch::Dot(rgb(1))),
        LegendEntry::new(
            format!("running median of {} runs", spread::RUNNING),
            Swatch::Line(RGBColor(110, 110, 110)),
        ),
        LegendEntry::new("loaded: node past its cores at the end", Swatch::Dot(LOADED)),
        LegendEntry::new("step: a change of level starts", Swatch::Dashed(RGBColor(0, 0, 0))),
    ];
    let legend = Legend::new(entries, WIDTH - LEFT as u32 - 12);
    let rows = key.targets.len().div_ceil(COLUMNS).max(1) as u32;
    let title = format!("{}: seconds per run, oldest to newest", key.label);
    svg(&name, (WIDTH, 40 + legend.height + rows * PANEL_HEIGHT), |root| {
        root.fill(&WHITE)?;
        let below = root.margin(8, 0, 0, 0).titled(&title, (FONT, 16))?;
        let plots = legend.draw(&below, LEFT)?;
        let panels = plots.split_evenly((rows as usize, COLUMNS));
        for ((target, metrics), area) in key.targets.iter().zip(panels.iter()) {
            panel(area, target, metrics, key.runs.len())?;
        }
        root.present()?;
        Ok(())
    })
}

fn panel(
    area: &DrawingArea<SVGBackend, Shift>,
    target: &str,
    metrics: &std::collections::BTreeMap<String, MetricView>,
    runs: usize,
) -> DrawResult {
    let series: Vec<(&MetricView, &str, usize)> = SERIES
        .iter()
        .filter_map(|(m, label, c)| Some((metrics.get(*m)?, *label, *c)))
        .collect();
    let ymax = series
        .iter()
        .flat_map(|(m, _, _)| m.points.iter().map(|p| p.value))
        .filter(|v| v.is_finite())
        .fold(0.0, f64::max)
        .max(1.0)
        * 1.1;
    let steps: Vec<String> = series
        .iter()
        .filter_map(|(m, label, _)| {
            let s = m.step.as_ref()?;
            Some(format!("{label} {:+.1}% from {}", s.change_pct, s.stamp))
        })
        .collect();
    let caption = if steps.is_empty() {
        target.to_string()
    } else {
        format!("{target}: {}", steps.join(", "))
    };
    let mut chart = ChartBuilder::on(area)
        .caption(caption, (FONT, 14))
        .margin(8)
        .x_label_area_size(28)
        .y_label_area_size(56)
        .build_cartesian_2d(-0.5f64..(runs.max(1) as f64 - 0.5), 0f64..ymax)?;
    chart
        .configure_mesh()
        .x_desc("run")
        .y_desc("seconds")
        .x_labels(6)
        .y_labels(5)
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| format!("{v:.0}"))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()?;
    for (m, _, c) in &series {
        let colour = rgb(*c);
        let pts: Vec<(f64, f64)> = m
            .points
            .iter()
            .map(|p| (p.run as f64, p.value.clamp(0.0, ymax)))
            .collect();
        let medians = spread::running_median(&pts.iter().map(|p| p.1).collect::<Vec<_>>());
        let line: Vec<(f64, f64)> = pts.iter().zip(medians).map(|(p, m)| (p.0, m)).collect();
        chart.draw_series(LineSeries::new(line, colour.stroke_width(2)))?;
        chart.draw_series(pts.iter().map(|p| Circle::new(*p, 3, colour.filled())))?;
        let loaded = m.points.iter().zip(&pts).filter(|(p, _)| p.loaded == Some(true));
        chart.draw_series(loaded.map(|(_, xy)| Circle::new(*xy, 6, LOADED.stroke_width(2))))?;
        if let Some(s) = &m.step {
            let x = s.run as f64 - 0.5;
            chart.draw_series(DashedLineSeries::new(
                vec![(x, 0.0), (x, ymax)],
                5,
                4,
                BLACK.stroke_width(1),
            ))?;
        }
    }
    Ok(())
}
