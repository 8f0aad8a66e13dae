//! SVG charts, one chart per file under `charts/`, drawn with plotters.
//! Time is the offset from the run's start on every chart, so they line up.

pub(crate) mod cache_lanes;
pub(crate) mod cpu_mem;
pub(crate) mod timeline;

use super::{Export, LIGHT_ALPHA};
use crate::error::{Error, Result};
use crate::output::OutFile;
use crate::view::View;
use plotters::prelude::*;

pub(crate) type DrawResult = std::result::Result<(), Box<dyn std::error::Error>>;

pub(crate) const WIDTH: u32 = 1100;
pub(crate) const FONT: &str = "sans-serif";

/// Every chart's margin and the width of the label column left of its plot:
/// the same on every chart, so their time axes start at one x offset and
/// the charts of report.md line up one under the other.
pub(crate) const MARGIN: u32 = 12;
pub(crate) const LABEL_AREA: u32 = 150;
/// Where every plot starts.
pub(crate) const PLOT_LEFT: i32 = (MARGIN + LABEL_AREA) as i32;

pub(crate) struct Charts;

/// The charts in the order the report shows them: (file name, drawing function).
pub(crate) type DrawChart = fn(&View) -> Result<String>;

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

/// Draws into an SVG string of the given size; characters XML does not
/// allow, from any text drawn, are quoted (`escape::xml_chars`).
pub(crate) fn svg(
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
        // One escaper for every chart's text, whatever it came from.
        Ok(Ok(svg)) => Ok(crate::escape::xml_chars(&svg).into_owned()),
        Ok(Err(message)) => Err(chart_error(message)),
        Err(_) => Err(chart_error("the chart library panicked on this data".into())),
    }
}

/// A chart on two f64 axes, as every chart here is.
pub(crate) type Chart<'a> = ChartContext<
    'a,
    SVGBackend<'a>,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

/// What a legend entry shows beside its name.
#[derive(Clone, Copy)]
pub(crate) enum Swatch {
    Line(RGBColor),
    Dashed(RGBColor),
    /// A colour at an opacity over the white ground.
    Fill(RGBColor, f64),
    /// The upload hatch (see `hatched`).
    Hatch,
    Dot(RGBColor),
}

pub(crate) struct LegendEntry {
    pub(crate) label: String,
    pub(crate) swatch: Swatch,
}

impl LegendEntry {
    pub(crate) fn new(label: impl Into<String>, swatch: Swatch) -> Self {
        LegendEntry {
            label: label.into(),
            swatch,
        }
    }
}

const LEGEND_FONT: u32 = 13;
const LEGEND_ROW: i32 = 18;
const LEGEND_PAD: i32 = 6;
const LEGEND_GAP: i32 = 18;
const SWATCH_W: i32 = 18;
/// How much wider than plotters' estimate a legend label may be drawn.
const LABEL_WIDEN: f64 = 1.2;
/// The border of the legend's box; the tests find the legend by it.
pub(crate) const LEGEND_BORDER: RGBColor = RGBColor(180, 180, 180);

/// The series legend, styled alike on every chart, in a band of its own
/// between the caption and the plot: a legend drawn over the plot hid the
/// newest minutes of the data under it. Entries flow in rows, so any number
/// of nodes fits; the chart grows by `height`.
pub(crate) struct Legend {
    entries: Vec<LegendEntry>,
    /// Each entry's top-left corner inside the box.
    slots: Vec<(i32, i32)>,
    width: i32,
    /// The band's height, the space below the box included (0: no legend).
    pub(crate) height: u32,
}

impl Legend {
    /// Lays the entries out in rows at most `max_width` pixels wide.
    pub(crate) fn new(entries: Vec<LegendEntry>, max_width: u32) -> Self {
        let font = (FONT, LEGEND_FONT).into_font();
        let (mut x, mut row, mut width) = (LEGEND_PAD, 0, 0);
        let mut slots = Vec::with_capacity(entries.len());
        for e in &entries {
            // plotters' estimate of a label's width, widened for the fonts
            // viewers draw "sans-serif" with: DejaVu Sans (rsvg-convert and
            // Chromium on Linux) runs about 11% wider, and "memory used"
            // ran past its box.
            let text = font
                .box_size(&e.label)
                .map_or(8 * e.label.chars().count() as i32, |(w, _)| w as i32);
            let text = (text as f64 * LABEL_WIDEN).ceil() as i32 + 2;
            let w = SWATCH_W + 6 + text;
            if x > LEGEND_PAD && x + w + LEGEND_PAD > max_width as i32 {
                row += 1;
                x = LEGEND_PAD;
            }
            slots.push((x, LEGEND_PAD + row * LEGEND_ROW));
            width = width.max(x + w + LEGEND_PAD);
            x += w + LEGEND_GAP;
        }
        let height = if entries.is_empty() {
            0
        } else {
            ((row + 1) * LEGEND_ROW + 2 * LEGEND_PAD + 8) as u32
        };
        Legend {
            entries,
            slots,
            width,
            height,
        }
    }

    /// Draws the legend at the top of `area`, its box starting `left` pixels
    /// in (where the plot starts); returns the area below it for the plot.
    pub(crate) fn draw<'a>(
        &self,
        area: &DrawingArea<SVGBackend<'a>, plotters::coord::Shift>,
        left: i32,
    ) -> std::result::Result<DrawingArea<SVGBackend<'a>, plotters::coord::Shift>, Box<dyn std::error::Error>> {
        if self.entries.is_empty() {
            return Ok(area.clone());
        }
        let (band, rest) = area.split_vertically(self.height);
        let bottom = self.height as i32 - 8;
        band.draw(&Rectangle::new(
            [(left, 0), (left + self.width, bottom)],
            LEGEND_BORDER.stroke_width(1),
        ))?;
        let text = TextStyle::from((FONT, LEGEND_FONT).into_font()).pos(plotters::style::text_anchor::Pos::new(
            plotters::style::text_anchor::HPos::Left,
            plotters::style::text_anchor::VPos::Center,
        ));
        for (e, (x, y)) in self.entries.iter().zip(&self.slots) {
            let (x, y) = (left + x, y + LEGEND_ROW / 2);
            let line = [(x, y), (x + SWATCH_W, y)];
            match e.swatch {
                Swatch::Line(c) => band.draw(&PathElement::new(line, c.stroke_width(3)))?,
                Swatch::Dashed(c) => {
                    for d in [0, 8, 16] {
                        let end = (d + 5).min(SWATCH_W);
                        band.draw(&PathElement::new([(x + d, y), (x + end, y)], c.stroke_width(3)))?;
                    }
                }
                Swatch::Fill(c, alpha) => band.draw(&Rectangle::new(
                    [(x, y - 5), (x + SWATCH_W, y + 5)],
                    c.mix(alpha).filled(),
                ))?,
                Swatch::Hatch => band.draw(&Rectangle::new(
                    [(x, y - 5), (x + SWATCH_W, y + 5)],
                    HATCH_MARK.filled(),
                ))?,
                Swatch::Dot(c) => band.draw(&Circle::new((x + SWATCH_W / 2, y), 4, c.filled()))?,
            }
            band.draw(&Text::new(e.label.clone(), (x + SWATCH_W + 6, y), text.clone()))?;
        }
        Ok(rest)
    }
}

/// The fill that `hatched` turns into the upload hatch. No chart uses this
/// colour otherwise, and text cannot hold it (plotters escapes quotes).
pub(crate) const HATCH_MARK: RGBColor = RGBColor(1, 2, 3);

/// plotters has no patterns: the shapes filled with `HATCH_MARK` get the
/// hatch's `<pattern>` (defined once at the top of the SVG) and an ink outline.
pub(crate) fn hatched(svg: String) -> String {
    use super::{hex, HATCH_ID, HATCH_PERIOD, HATCH_STRIPE, UPLOAD_INK, UPLOAD_PAPER};
    let mark = format!(
        "fill=\"{}\" stroke=\"none\"",
        hex((HATCH_MARK.0, HATCH_MARK.1, HATCH_MARK.2)).to_uppercase()
    );
    if !svg.contains(&mark) {
        return svg;
    }
    let ink = hex(UPLOAD_INK);
    let defs = format!(
        "<defs><pattern id=\"{HATCH_ID}\" patternUnits=\"userSpaceOnUse\" width=\"{HATCH_PERIOD}\" height=\"{HATCH_PERIOD}\" patternTransform=\"rotate(45)\">\
         <rect width=\"{HATCH_PERIOD}\" height=\"{HATCH_PERIOD}\" fill=\"{}\"/><rect width=\"{HATCH_STRIPE}\" height=\"{HATCH_PERIOD}\" fill=\"{ink}\"/></pattern></defs>\n",
        hex(UPLOAD_PAPER)
    );
    let svg = svg.replace(
        &mark,
        &format!("fill=\"url(#{HATCH_ID})\" stroke=\"{ink}\" stroke-width=\"1\""),
    );
    match svg.find("<svg").and_then(|s| svg[s..].find('>').map(|e| s + e + 1)) {
        Some(at) => format!("{}\n{defs}{}", &svg[..at], svg[at..].trim_start_matches('\n')),
        None => svg,
    }
}

/// Keeps a value inside the axis range, so no point lands off the chart.
pub(crate) fn clamp(v: f64, max: f64) -> f64 {
    if v.is_nan() {
        0.0
    } else {
        v.clamp(0.0, max)
    }
}

pub(crate) fn rgb(i: usize) -> RGBColor {
    let (r, g, b) = super::colour(i);
    RGBColor(r, g, b)
}

/// The x range of every chart: the run's window, else what the data spans.
pub(crate) fn x_max(view: &View) -> f64 {
    spanned(view).unwrap_or(60.0)
}

/// What the run's time spans, when anything does: the window, else the
/// data's extent; `None` for a run with no length yet (in flight, nothing
/// of it in its window).
fn spanned(view: &View) -> Option<f64> {
    if let Some(w) = view.fleet.wall_s.get().filter(|w| *w > 0.0) {
        return Some(w);
    }
    let mut m: f64 = 0.0;
    for t in &view.targets {
        m = m.max(t.end_s.get().unwrap_or(0.0));
    }
    for n in &view.nodes {
        m = m.max(n.cpu.t.last().copied().unwrap_or(0.0));
    }
    (m > 0.0).then_some(m)
}

/// How many labels the time axis carries: none when the run has no length
/// yet, so the axis claims no minutes it has not seen (it read "0 0.1 … 1").
pub(crate) fn time_labels(view: &View) -> usize {
    if spanned(view).is_some() {
        10
    } else {
        0
    }
}

/// The time axis: minutes, or hours for runs longer than three hours.
/// Charts plot time in this unit so the tick marks land on round values.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TimeAxis {
    pub(crate) scale: f64,
    pub(crate) desc: &'static str,
    /// How many labels it carries ([`time_labels`]).
    pub(crate) labels: usize,
}

impl TimeAxis {
    /// The axis of every chart of `view`.
    pub(crate) fn of(view: &View) -> Self {
        TimeAxis {
            labels: time_labels(view),
            ..Self::for_span(x_max(view))
        }
    }

    pub(crate) fn for_span(span_s: f64) -> Self {
        if span_s > 3.0 * 3600.0 {
            TimeAxis {
                scale: 3600.0,
                desc: "time since run start (hours)",
                labels: 10,
            }
        } else {
            TimeAxis {
                scale: 60.0,
                desc: "time since run start (minutes)",
                labels: 10,
            }
        }
    }
    /// Seconds to axis units.
    pub(crate) fn x(&self, s: f64) -> f64 {
        s / self.scale
    }
    pub(crate) fn label(&self, v: &f64) -> String {
        if v.fract().abs() < 1e-9 {
            format!("{v:.0}")
        } else {
            format!("{v:.1}")
        }
    }
}

/// The name, or as much of it as fits in `width` pixels at `size` with an
/// ellipsis; `None` when not even its first letter does.
pub(crate) fn fitted(name: &str, width: i32, size: u32) -> Option<String> {
    let font = (FONT, size).into_font();
    let fits = |s: &str| font.box_size(s).is_ok_and(|(w, _)| w as i32 <= width);
    if fits(name) {
        return Some(name.to_string());
    }
    // The longest prefix that fits, found by halving: a hostile name may be long.
    let chars: Vec<char> = name.chars().collect();
    let cut = |n: usize| chars[..n].iter().collect::<String>() + "…";
    let (mut lo, mut hi) = (0, chars.len());
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if fits(&cut(mid)) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo > 0).then(|| cut(lo))
}

/// The least round value (1, 1.5, 2, 3, 4, 5, 6 or 8 times a power of ten)
/// at or above `v` (1 for 0): an axis's top whose ticks are round.
pub(crate) fn round_up(v: f64) -> f64 {
    if !v.is_finite() || v <= 0.0 {
        return 1.0;
    }
    // A power of ten below 1 divides, so 3 × 0.1 reads 0.3, not 0.30000000000000004.
    let k = v.log10().floor() as i32;
    let times = |m: f64| if k >= 0 { m * 10f64.powi(k) } else { m / 10f64.powi(-k) };
    [1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0]
        .into_iter()
        .map(times)
        .find(|c| *c >= v)
        .unwrap_or(times(10.0))
}

/// A centred message in place of a chart whose input is absent, broken
/// into lines at spaces so each fits the chart's width (a reason quoting a
/// window and a time range is longer than one line), as many as the
/// chart's height holds; a word longer than a line is cut with an ellipsis.
pub(crate) fn message(area: &DrawingArea<SVGBackend, plotters::coord::Shift>, text: &str) -> DrawResult {
    const SIZE: u32 = 16;
    const LINE: i32 = 20;
    let (w, h) = area.dim_in_pixel();
    // A margin for a browser font wider than the built-in estimate.
    let room = (w as i32 - 120).max(40);
    let lines = wrapped(text, room, SIZE, ((h as i32 - 8) / LINE).max(1) as usize);
    let style = TextStyle::from((FONT, SIZE).into_font())
        .color(&RGBColor(110, 110, 110))
        .pos(plotters::style::text_anchor::Pos::new(
            plotters::style::text_anchor::HPos::Center,
            plotters::style::text_anchor::VPos::Center,
        ));
    let top = h as i32 / 2 - (lines.len() as i32 - 1) * LINE / 2;
    for (i, line) in lines.into_iter().enumerate() {
        area.draw(&Text::new(line, ((w / 2) as i32, top + i as i32 * LINE), style.clone()))?;
    }
    Ok(())
}

/// `text` in lines of at most `width` pixels at `size`, broken at spaces,
/// at most `max_lines` of them (the last ends in an ellipsis when text is
/// left over).
pub(crate) fn wrapped(text: &str, width: i32, size: u32, max_lines: usize) -> Vec<String> {
    let font = (FONT, size).into_font();
    let fits = |s: &str| font.box_size(s).is_ok_and(|(w, _)| w as i32 <= width);
    let mut lines: Vec<String> = vec![];
    let mut cur = String::new();
    for word in text.split(' ') {
        let joined = if cur.is_empty() {
            word.to_string()
        } else {
            format!("{cur} {word}")
        };
        if fits(&joined) || cur.is_empty() {
            cur = joined;
        } else {
            lines.push(std::mem::replace(&mut cur, word.to_string()));
        }
    }
    lines.push(cur);
    let cut = lines.len() > max_lines;
    lines.truncate(max_lines);
    if let Some(last) = lines.last_mut() {
        let last_text = if cut { format!("{last} …") } else { last.clone() };
        *last = if fits(&last_text) {
            last_text
        } else {
            fitted(&last_text, width, size).unwrap_or_default()
        };
    }
    for l in lines.iter_mut() {
        if !fits(l) {
            *l = fitted(l, width, size).unwrap_or_default();
        }
    }
    lines
}

/// Splits a series at its `null`s into drawable runs.
/// Points outside `0..=x_max` are left out (and break the line).
pub(crate) fn segments(t: &[f64], v: &[Option<f64>], x_max: f64) -> Vec<Vec<(f64, f64)>> {
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
    fn an_axis_tops_out_at_a_round_value() {
        assert_eq!(round_up(0.0), 1.0);
        assert_eq!(round_up(4.96), 5.0);
        assert_eq!(round_up(5.0), 5.0);
        assert_eq!(round_up(1189.2), 1500.0);
        assert_eq!(round_up(33.0), 40.0);
        assert_eq!(round_up(0.3), 0.3);
        assert_eq!(round_up(0.31), 0.4);
    }

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
