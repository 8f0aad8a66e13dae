//! SVG charts, one chart per file under `charts/`, drawn with plotters.
//! Time is the offset from the run's start on every chart, so they line up.

pub mod cache_lanes;
pub mod cpu_mem;
pub mod timeline;

use super::Export;
use crate::error::{Error, Result};
use crate::output::OutFile;
use crate::view::View;
use plotters::prelude::*;

pub type DrawResult = std::result::Result<(), Box<dyn std::error::Error>>;

pub const WIDTH: u32 = 1100;
pub const FONT: &str = "sans-serif";

pub struct Charts;

/// The charts in the order the report shows them: (file name, drawing function).
pub type DrawChart = fn(&View) -> Result<String>;

pub const ALL: [(&str, DrawChart); 3] = [
    ("charts/cpu-mem.svg", cpu_mem::draw),
    ("charts/timeline.svg", timeline::draw),
    ("charts/cache-lanes.svg", cache_lanes::draw),
];

impl Export for Charts {
    fn render(&self, view: &View) -> Result<Vec<OutFile>> {
        // One chart per core: plotters draws each independently.
        use rayon::prelude::*;
        ALL.par_iter()
            .map(|(name, draw)| Ok(OutFile::new(*name, draw(view)?)))
            .collect()
    }
}

/// Draws into an SVG string of the given size.
pub fn svg(
    name: &str,
    size: (u32, u32),
    draw: impl FnOnce(DrawingArea<SVGBackend, plotters::coord::Shift>) -> DrawResult,
) -> Result<String> {
    // Every coordinate is clipped before it is drawn; should plotters still
    // panic on some input, the report fails with a message, not a crash.
    let drawn = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut buf = String::new();
        {
            let root = SVGBackend::with_string(&mut buf, size).into_drawing_area();
            draw(root).map_err(|e| e.to_string())?;
        }
        Ok::<String, String>(buf)
    }));
    let chart_error = |message: String| Error::Chart {
        name: name.into(),
        message,
    };
    match drawn {
        Ok(Ok(svg)) => Ok(svg),
        Ok(Err(message)) => Err(chart_error(message)),
        Err(_) => Err(chart_error("the chart library panicked on this data".into())),
    }
}

/// A chart on two f64 axes, as every chart here is.
pub type Chart<'a> = ChartContext<
    'a,
    SVGBackend<'a>,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

/// The series legend, styled alike on every chart.
pub fn legend(chart: &mut Chart, position: SeriesLabelPosition) -> DrawResult {
    chart
        .configure_series_labels()
        .position(position)
        .label_font((FONT, 13))
        .background_style(WHITE.mix(0.85))
        .border_style(RGBColor(180, 180, 180))
        .draw()?;
    Ok(())
}

/// Keeps a value inside the axis range, so no point lands off the chart.
pub fn clamp(v: f64, max: f64) -> f64 {
    if v.is_nan() {
        0.0
    } else {
        v.clamp(0.0, max)
    }
}

pub fn rgb(i: usize) -> RGBColor {
    let (r, g, b) = super::colour(i);
    RGBColor(r, g, b)
}

/// The x range of every chart: the run's window, else what the data spans.
pub fn x_max(view: &View) -> f64 {
    if let Some(w) = view.fleet.wall_s.filter(|w| *w > 0.0) {
        return w;
    }
    let mut m: f64 = 0.0;
    for t in &view.targets {
        m = m.max(t.end_s.unwrap_or(0.0));
    }
    for n in &view.nodes {
        m = m.max(n.cpu.t.last().copied().unwrap_or(0.0));
    }
    if m > 0.0 {
        m
    } else {
        60.0
    }
}

/// The time axis: minutes, or hours for runs longer than three hours.
/// Charts plot time in this unit so the tick marks land on round values.
#[derive(Debug, Clone, Copy)]
pub struct TimeAxis {
    pub scale: f64,
    pub desc: &'static str,
}

impl TimeAxis {
    pub fn for_span(span_s: f64) -> Self {
        if span_s > 3.0 * 3600.0 {
            TimeAxis {
                scale: 3600.0,
                desc: "time since run start (hours)",
            }
        } else {
            TimeAxis {
                scale: 60.0,
                desc: "time since run start (minutes)",
            }
        }
    }
    /// Seconds to axis units.
    pub fn x(&self, s: f64) -> f64 {
        s / self.scale
    }
    pub fn label(&self, v: &f64) -> String {
        if v.fract().abs() < 1e-9 {
            format!("{v:.0}")
        } else {
            format!("{v:.1}")
        }
    }
}

/// A centred message in place of a chart whose input is absent.
pub fn message(area: &DrawingArea<SVGBackend, plotters::coord::Shift>, text: &str) -> DrawResult {
    let (w, h) = area.dim_in_pixel();
    let style = TextStyle::from((FONT, 16).into_font())
        .color(&RGBColor(110, 110, 110))
        .pos(plotters::style::text_anchor::Pos::new(
            plotters::style::text_anchor::HPos::Center,
            plotters::style::text_anchor::VPos::Center,
        ));
    area.draw(&Text::new(text.to_string(), ((w / 2) as i32, (h / 2) as i32), style))?;
    Ok(())
}

/// Splits a series at its `null`s into drawable runs.
/// Points outside `0..=x_max` are left out (and break the line).
pub fn segments(t: &[f64], v: &[Option<f64>], x_max: f64) -> Vec<Vec<(f64, f64)>> {
    let mut out = vec![];
    let mut cur = vec![];
    for (x, y) in t.iter().zip(v) {
        let inside = x.is_finite() && (0.0..=x_max).contains(x);
        match y {
            Some(y) if inside && y.is_finite() => cur.push((*x, *y)),
            _ => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nulls_break_the_line_into_runs() {
        let s = segments(
            &[0.0, 1.0, 2.0, 3.0, 4.0],
            &[Some(1.0), Some(2.0), None, Some(3.0), Some(4.0)],
            10.0,
        );
        assert_eq!(s, vec![vec![(0.0, 1.0), (1.0, 2.0)], vec![(3.0, 3.0), (4.0, 4.0)]]);
        // A point off the axis (a clock years away) is not drawn.
        let s = segments(&[0.0, 1.0e9, 2.0], &[Some(1.0), Some(2.0), Some(3.0)], 10.0);
        assert_eq!(s, vec![vec![(0.0, 1.0)], vec![(2.0, 3.0)]]);
    }
}
