//! Cache lanes over time: the compiler cache's hits, misses and writes, and
//! the registry's write rate, for every client together and then a panel
//! per node (its run.json `addr`), each on its own scale, so a slow node's
//! upload at a few MB/s shows beside another node's image pushes instead of
//! a ripple at 0. An absent input's lane says why; a present input that
//! measured zero is drawn.

use super::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// The plot height of the all-clients panel and of a node's.
const FLEET_PX: u32 = 110;
fn node_px(nodes: usize) -> u32 {
    if nodes <= 8 {
        48
    } else {
        34
    }
}
/// Space between two panels.
const PANEL_GAP: u32 = 14;
const CAPTION_PX: u32 = 30;
/// Under a section's last panel: the time axis's labels (and name).
const AXIS_PX: u32 = 40;
/// Room for the note of what a lane leaves out.
const NOTE_PX: u32 = 18;

/// One panel: its name in the label column and its lines.
struct Panel {
    name: String,
    lines: Vec<(RGBColor, Vec<(f64, f64)>)>,
}

/// A section's height with `nodes` panels of nodes after the fleet's.
fn section_px(nodes: usize, legend: &Legend, note: bool) -> u32 {
    let body = FLEET_PX + PANEL_GAP + nodes as u32 * (node_px(nodes) + PANEL_GAP);
    CAPTION_PX + legend.height + body + AXIS_PX + if note { NOTE_PX } else { 0 }
}

pub(crate) fn draw(view: &View) -> Result<String> {
    let axis = TimeAxis::of(view);
    let max_width = WIDTH - PLOT_LEFT as u32 - MARGIN;
    let sccache = Legend::new(sccache_entries(view), max_width);
    let zot = Legend::new(zot_entries(view), max_width);
    let s_nodes = if view.sccache.why.is_none() {
        view.sccache.by_node.len()
    } else {
        0
    };
    let z_nodes = if view.zot.why.is_none() {
        view.zot.by_node.len()
    } else {
        0
    };
    let top = section_px(s_nodes, &sccache, view.sccache.lane_why.is_some());
    let bottom = section_px(z_nodes, &zot, view.zot.lane_why.is_some());
    svg("cache-lanes", (WIDTH, top + bottom), |root| {
        root.fill(&WHITE)?;
        let (upper, lower) = root.split_vertically(top);
        sccache_lane(view, axis, &root, &upper, &sccache)?;
        zot_lane(view, axis, &root, &lower, &zot)?;
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
    root: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    area: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    legend: &Legend,
) -> DrawResult {
    let s = &view.sccache;
    let bucket = s.bucket_s;
    let caption = format!("Compiler cache (sccache): requests per {bucket} s, all clients, then each node");
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
    let t: Vec<f64> = s.series.iter().map(|p| clamp(axis.x(p.t_s), span)).collect();
    let line =
        |colour: RGBColor, v: Vec<u64>| (colour, t.iter().copied().zip(v.into_iter().map(|v| v as f64)).collect());
    let mut panels = vec![Panel {
        name: "all clients".into(),
        lines: SCCACHE_LANES
            .iter()
            .map(|(_, colour, get)| line(*colour, s.series.iter().map(get).collect()))
            .collect(),
    }];
    panels.extend(s.by_node.iter().map(|n| Panel {
        name: n.node.clone(),
        lines: vec![
            line(SCCACHE_LANES[0].1, n.hits.clone()),
            line(SCCACHE_LANES[1].1, n.misses.clone()),
            line(SCCACHE_LANES[2].1, n.writes.clone()),
        ],
    }));
    let below = area.margin(6, 0, 0, 0).titled(&caption, (FONT, 16))?;
    let plot = legend.draw(&below, PLOT_LEFT)?;
    draw_panels(root, &plot, axis, span, &panels, "requests", crate::fmt::tick)?;
    lane_note(area, s.lane_why.as_deref())?;
    Ok(())
}

fn zot_lane(
    view: &View,
    axis: TimeAxis,
    root: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    area: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    legend: &Legend,
) -> DrawResult {
    let z = &view.zot;
    let bucket = z.bucket_s;
    let caption = format!("Registry (zot): write rate over {bucket} s buckets, all clients, then each node");
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
    let t: Vec<f64> = z.series.iter().map(|p| clamp(axis.x(p.t_s), span)).collect();
    let line = |colour: RGBColor, v: &[u64]| (colour, t.iter().copied().zip(v.iter().map(|b| mb(*b))).collect());
    let fleet = |get: fn(&crate::view::ZotPoint) -> u64| z.series.iter().map(get).collect::<Vec<u64>>();
    let mut panels = vec![Panel {
        name: "all clients".into(),
        lines: ZOT_LANES
            .iter()
            .map(|(_, colour, get)| line(*colour, &fleet(*get)))
            .collect(),
    }];
    panels.extend(z.by_node.iter().map(|n| Panel {
        name: n.node.clone(),
        lines: vec![
            line(ZOT_LANES[0].1, &n.cache_bytes),
            line(ZOT_LANES[1].1, &n.image_bytes),
        ],
    }));
    let below = area.margin(6, 0, 0, 0).titled(&caption, (FONT, 16))?;
    let plot = legend.draw(&below, PLOT_LEFT)?;
    draw_panels(root, &plot, axis, span, &panels, "MB/s", crate::fmt::tick)?;
    lane_note(area, z.lane_why.as_deref())?;
    Ok(())
}

/// The panels one under the other in `area`: the first (every client) taller,
/// each on its own scale from 0 to a round value above its peak, its name in
/// the label column; the time axis under the last.
fn draw_panels(
    root: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    area: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    axis: TimeAxis,
    span: f64,
    panels: &[Panel],
    unit: &str,
    tick: impl Fn(f64) -> String,
) -> DrawResult {
    let nodes = panels.len().saturating_sub(1);
    let name_style = TextStyle::from((FONT, 13).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
    let mut rest = area.clone();
    for (i, p) in panels.iter().enumerate() {
        let last = i + 1 == panels.len();
        let ph = if i == 0 { FLEET_PX } else { node_px(nodes) };
        let (here, below) = rest.split_vertically(ph + PANEL_GAP + if last { AXIS_PX } else { 0 });
        rest = below;
        let peak = p
            .lines
            .iter()
            .flat_map(|(_, l)| l.iter().map(|(_, y)| *y))
            .fold(0.0, f64::max);
        let top = round_up(peak);
        let mut chart = ChartBuilder::on(&here)
            .margin(MARGIN)
            .margin_top(PANEL_GAP / 2)
            .margin_bottom(PANEL_GAP / 2)
            .x_label_area_size(if last { AXIS_PX - PANEL_GAP / 2 } else { 0 })
            .y_label_area_size(LABEL_AREA)
            .build_cartesian_2d(0f64..span, 0f64..top)?;
        let (y_tick, time) = (|v: &f64| tick(*v), |v: &f64| axis.label(v));
        let mut mesh = chart.configure_mesh();
        mesh.y_labels(if ph < 40 { 2 } else { 3 })
            .x_labels(axis.labels)
            .y_max_light_lines(1)
            .x_max_light_lines(if nodes > crate::view::FULL_DETAIL_NODES { 0 } else { 4 })
            .y_label_style((FONT, 11))
            .x_label_style((FONT, 12))
            .axis_desc_style((FONT, 12))
            .y_label_formatter(&y_tick)
            .x_label_formatter(&time)
            .light_line_style(RGBColor(240, 240, 240));
        if last {
            mesh.x_desc(axis.desc);
        }
        mesh.draw()?;
        // Two points a pixel column (its lowest and highest) draw exactly
        // what every point would: a 12-hour run has about five 10 s buckets
        // a column, and each point costs the SVG a dozen bytes.
        let (columns, _) = chart.plotting_area().dim_in_pixel();
        for (colour, line) in &p.lines {
            let line = thinned(line, 2 * columns as usize);
            chart.draw_series(LineSeries::new(line, colour.stroke_width(2)))?;
        }
        let (_, y0) = chart.backend_coord(&(0.0, top));
        let (_, y1) = chart.backend_coord(&(0.0, 0.0));
        let (mid, width) = ((y0 + y1) / 2, LABEL_AREA as i32 - 48);
        if let Some(name) = fitted(&p.name, width, 13) {
            let y = if i == 0 { mid - 8 } else { mid };
            root.draw(&Text::new(name, (MARGIN as i32, y), name_style.clone()))?;
        }
        if i == 0 {
            let unit_style = TextStyle::from((FONT, 11).into_font())
                .color(&RGBColor(90, 90, 90))
                .pos(Pos::new(HPos::Left, VPos::Center));
            root.draw(&Text::new(unit.to_string(), (MARGIN as i32, mid + 9), unit_style))?;
        }
    }
    Ok(())
}

/// `line` reduced to at most `max` points, each bucket's lowest and highest
/// kept in time order (`view::reduce_min_max`), so no peak is lost.
fn thinned(line: &[(f64, f64)], max: usize) -> Vec<(f64, f64)> {
    if line.len() <= max {
        return line.to_vec();
    }
    // Whole microseconds of the axis's unit: far finer than a pixel.
    let points: Vec<(i64, Option<f64>)> = line.iter().map(|&(x, y)| ((x * 1e6) as i64, Some(y))).collect();
    let (reduced, _) = crate::view::reduce_min_max(&points, max);
    reduced
        .into_iter()
        .filter_map(|(x, y)| Some((x as f64 / 1e6, y?)))
        .collect()
}

/// A lane that draws part of its input says what it leaves out, under the plot.
fn lane_note(area: &DrawingArea<SVGBackend, plotters::coord::Shift>, why: Option<&str>) -> DrawResult {
    let Some(why) = why else { return Ok(()) };
    let (_, h) = area.dim_in_pixel();
    let style = TextStyle::from((FONT, 12).into_font()).color(&RGBColor(90, 90, 90));
    area.draw(&Text::new(
        format!("not drawn: {why}"),
        (PLOT_LEFT, h as i32 - 14),
        style,
    ))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::thinned;

    #[test]
    fn a_line_thinned_to_two_points_a_column_keeps_every_peak_and_trough() {
        // 4,320 buckets (12 hours of 10 s) of a saw-tooth with one spike.
        let line: Vec<(f64, f64)> = (0..4320)
            .map(|i| (i as f64 / 360.0, if i == 2999 { 500.0 } else { (i % 7) as f64 }))
            .collect();
        let thin = thinned(&line, 1800);
        assert!(thin.len() <= 1800, "{} points", thin.len());
        let top = thin.iter().map(|p| p.1).fold(0.0, f64::max);
        let bottom = thin.iter().map(|p| p.1).fold(f64::MAX, f64::min);
        assert_eq!((top, bottom), (500.0, 0.0));
        assert!(thin.windows(2).all(|w| w[0].0 <= w[1].0), "in time order");
        // A short line is drawn as it is.
        assert_eq!(thinned(&line[..100], 1800), line[..100].to_vec());
    }
}
