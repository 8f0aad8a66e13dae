//! Cache lanes over time: the compiler cache's hits, misses and writes, and
//! the registry's write bytes. An absent input's lane says why; a present
//! input that measured zero is drawn.

use super::*;

/// Where each lane's plot starts: its margin and the y labels' width.
const PLOT_LEFT: i32 = 10 + 48;

pub fn draw(view: &View) -> Result<String> {
    let axis = TimeAxis::for_span(x_max(view));
    let max_width = WIDTH - PLOT_LEFT as u32 - 10;
    let sccache = Legend::new(sccache_entries(view), max_width);
    let zot = Legend::new(zot_entries(view), max_width);
    svg("cache-lanes", (WIDTH, 520 + sccache.height + zot.height), |root| {
        root.fill(&WHITE)?;
        let (top, bottom) = root.split_vertically(260 + sccache.height);
        sccache_lane(view, axis, &top, &sccache)?;
        zot_lane(view, axis, &bottom, &zot)?;
        root.present()?;
        Ok(())
    })
}

/// The `i`th lane series of `LANE_COLOURS` (which the page reads too): its name and colour.
const fn lane(i: usize) -> (&'static str, RGBColor) {
    let (name, (r, g, b)) = crate::render::LANE_COLOURS[i];
    (name, RGBColor(r, g, b))
}

type SccacheLane = (&'static str, RGBColor, fn(&crate::view::SccachePoint) -> u64);
const SCCACHE_LANES: [SccacheLane; 3] = [
    (lane(0).0, lane(0).1, |p| p.hits),
    (lane(1).0, lane(1).1, |p| p.misses),
    (lane(2).0, lane(2).1, |p| p.writes),
];

type ZotLane = (&'static str, RGBColor, fn(&crate::view::ZotPoint) -> u64);
const ZOT_LANES: [ZotLane; 2] = [
    (lane(3).0, lane(3).1, |p| p.cache_bytes),
    (lane(4).0, lane(4).1, |p| p.image_bytes),
];

fn sccache_entries(view: &View) -> Vec<LegendEntry> {
    let s = &view.sccache;
    if s.why.is_some() {
        return vec![];
    }
    SCCACHE_LANES
        .iter()
        .map(|(name, colour, get)| {
            let total = s.series.iter().map(get).fold(0u64, u64::saturating_add);
            LegendEntry::new(format!("{name} ({total})"), Swatch::Line(*colour))
        })
        .collect()
}

fn zot_entries(view: &View) -> Vec<LegendEntry> {
    let z = &view.zot;
    if z.why.is_some() {
        return vec![];
    }
    ZOT_LANES
        .iter()
        .map(|(name, colour, get)| {
            let total = z.series.iter().map(get).fold(0u64, u64::saturating_add);
            let label = format!("{name} ({})", crate::view::human_bytes(total as f64));
            LegendEntry::new(label, Swatch::Line(*colour))
        })
        .collect()
}

fn sccache_lane(
    view: &View,
    axis: TimeAxis,
    area: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    legend: &Legend,
) -> DrawResult {
    let s = &view.sccache;
    let bucket = s.bucket_s;
    let caption = format!("Compiler cache (sccache): requests per {bucket} s");
    let span = axis.x(x_max(view));
    if let Some(why) = &s.why {
        let area = area.margin(6, 0, 0, 0).titled(&caption, (FONT, 16))?;
        return message(&area, &format!("not drawn: {why}"));
    }
    if let Some(why) = &s.lane_why {
        if s.series.iter().all(|p| p.hits == 0 && p.misses == 0 && p.writes == 0) {
            let area = area.margin(6, 0, 0, 0).titled(&caption, (FONT, 16))?;
            return message(&area, &format!("nothing drawn: {why}"));
        }
    }
    let ymax = s
        .series
        .iter()
        .map(|p| p.hits.max(p.misses).max(p.writes))
        .max()
        .unwrap_or(0)
        .max(1) as f64
        * 1.1;
    let below = area.margin(6, 0, 0, 0).titled(&caption, (FONT, 16))?;
    let plot = legend.draw(&below, PLOT_LEFT)?;
    let mut chart = ChartBuilder::on(&plot)
        .margin(10)
        .margin_top(4)
        .x_label_area_size(32)
        .y_label_area_size(48)
        .build_cartesian_2d(0f64..span, 0f64..ymax)?;
    chart
        .configure_mesh()
        .x_label_formatter(&|v| axis.label(v))
        .y_desc("requests")
        .light_line_style(RGBColor(235, 235, 235))
        .draw()?;
    for (_, colour, get) in SCCACHE_LANES {
        chart.draw_series(LineSeries::new(
            s.series.iter().map(|p| (clamp(axis.x(p.t_s), span), get(p) as f64)),
            colour.stroke_width(2),
        ))?;
    }
    lane_note(area, s.lane_why.as_deref())?;
    Ok(())
}

fn zot_lane(
    view: &View,
    axis: TimeAxis,
    area: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    legend: &Legend,
) -> DrawResult {
    let z = &view.zot;
    let bucket = z.bucket_s;
    let caption = format!("Registry (zot): write rate, MB/s over {bucket} s buckets");
    let span = axis.x(x_max(view));
    if let Some(why) = &z.why {
        let area = area.margin(6, 0, 0, 0).titled(&caption, (FONT, 16))?;
        return message(&area, &format!("not drawn: {why}"));
    }
    // The lane and the Registry table must agree: an empty lane beside
    // written bytes says why, instead of "images (0 B)".
    if let Some(why) = &z.lane_why {
        if z.series.iter().all(|p| p.cache_bytes == 0 && p.image_bytes == 0) {
            let area = area.margin(6, 0, 0, 0).titled(&caption, (FONT, 16))?;
            return message(&area, &format!("nothing drawn: {why}"));
        }
    }
    let mb = |b: u64| b as f64 / 1e6 / bucket as f64;
    let ymax = z
        .series
        .iter()
        .map(|p| mb(p.cache_bytes).max(mb(p.image_bytes)))
        .fold(0.0, f64::max)
        .max(1.0)
        * 1.1;
    let below = area.margin(6, 0, 0, 0).titled(&caption, (FONT, 16))?;
    let plot = legend.draw(&below, PLOT_LEFT)?;
    let mut chart = ChartBuilder::on(&plot)
        .margin(10)
        .margin_top(4)
        .x_label_area_size(40)
        .y_label_area_size(48)
        .build_cartesian_2d(0f64..span, 0f64..ymax)?;
    chart
        .configure_mesh()
        .x_label_formatter(&|v| axis.label(v))
        .x_desc(axis.desc)
        .y_desc("MB/s")
        .light_line_style(RGBColor(235, 235, 235))
        .draw()?;
    for (_, colour, get) in ZOT_LANES {
        chart.draw_series(LineSeries::new(
            z.series.iter().map(|p| (clamp(axis.x(p.t_s), span), mb(get(p)))),
            colour.stroke_width(2),
        ))?;
    }
    lane_note(area, z.lane_why.as_deref())?;
    Ok(())
}

/// A lane that draws part of its input says what it leaves out, under the plot.
fn lane_note(area: &DrawingArea<SVGBackend, plotters::coord::Shift>, why: Option<&str>) -> DrawResult {
    let Some(why) = why else { return Ok(()) };
    let (_, h) = area.dim_in_pixel();
    let style = TextStyle::from((FONT, 12).into_font()).color(&RGBColor(90, 90, 90));
    area.draw(&Text::new(format!("not drawn: {why}"), (60, h as i32 - 12), style))?;
    Ok(())
}
