//! The timeline: a row per node, a bar per target split into setup, its own
//! steps and export, with its upload intervals banded over them. Each target
//! takes a shade of its builder's colour. A node idle while a target waits
//! for its `after=` dependency shows that wait (grey, outlined), and an
//! arrow runs from the dependency's end to the target's start (black and
//! thick on the critical path). Idle with nothing to do is the white.

use super::*;
use crate::render::target_colour;
use crate::view::TargetView;
use plotters::style::text_anchor::{HPos, Pos, VPos};

const LANE_PX: u32 = 30;
const LABEL_FONT: u32 = 11;
/// At most this many rows; past it, idle nodes (no target placed) are left
/// out, so a samples.jsonl naming thousands of nodes cannot make the chart
/// thousands of rows tall.
const MAX_ROWS: usize = 64;

/// Rows of the chart: a node and its targets spread over lanes so that
/// targets running at once on one node do not hide each other.
pub(crate) struct Row<'a> {
    pub(crate) node: String,
    pub(crate) colour: usize,
    pub(crate) lanes: Vec<Vec<&'a TargetView>>,
}

pub(crate) fn rows(view: &View) -> Vec<Row<'_>> {
    let mut rows: Vec<Row> = view
        .nodes
        .iter()
        .map(|n| Row {
            node: n.name.clone(),
            colour: n.colour,
            lanes: vec![],
        })
        .collect();
    let unplaced = rows.len();
    for t in view.targets.iter().filter(|t| t.start_s.get().is_some()) {
        let idx = match t.node.value() {
            Some(n) => rows.iter().position(|r| &r.node == n).unwrap_or(unplaced),
            None => unplaced,
        };
        if idx == rows.len() {
            rows.push(Row {
                node: "(no placement)".into(),
                colour: 7,
                lanes: vec![],
            });
        }
        let start = t.start_s.get().unwrap_or(0.0);
        let row = &mut rows[idx];
        let free = row
            .lanes
            .iter()
            .position(|lane| lane.last().is_none_or(|l| end_of(l) <= start));
        match free {
            Some(i) => row.lanes[i].push(t),
            None => row.lanes.push(vec![t]),
        }
    }
    for r in &mut rows {
        if r.lanes.is_empty() {
            r.lanes.push(vec![]);
        }
    }
    rows
}

/// The rows drawn, and how many idle nodes were left out: every row with a
/// target, then idle nodes in the view's order up to `MAX_ROWS` rows.
fn bounded(rows: Vec<Row<'_>>) -> (Vec<Row<'_>>, usize) {
    let busy = rows.iter().filter(|r| r.lanes.iter().any(|l| !l.is_empty())).count();
    let mut idle_room = MAX_ROWS.saturating_sub(busy);
    let total = rows.len();
    let kept: Vec<Row> = rows
        .into_iter()
        .filter(|r| {
            let idle = r.lanes.iter().all(|l| l.is_empty());
            if !idle {
                return true;
            }
            let keep = idle_room > 0;
            idle_room = idle_room.saturating_sub(1);
            keep
        })
        .collect();
    let left_out = total - kept.len();
    (kept, left_out)
}

fn end_of(t: &TargetView) -> f64 {
    t.end_s
        .get()
        .or_else(|| t.phases.iter().map(|p| p.end_s).reduce(f64::max))
        .or(t.start_s.get())
        .unwrap_or(0.0)
}

/// A target whose name fits nowhere on or beside its bar readably is
/// numbered there instead, and the number keyed under the legend: first
/// drawn without a key to find them (only the plot's height depends on the
/// key, not where a bar's pixels are), then again with it.
pub(crate) fn draw(view: &View) -> Result<String> {
    let (svg, keyed) = draw_keyed(view, &[])?;
    if keyed.is_empty() {
        return Ok(svg);
    }
    draw_keyed(view, &keyed).map(|(svg, _)| svg)
}

/// A name cut shorter than this many letters (and its ellipsis) says too
/// little: the target gets a number and a line in the key instead.
const READABLE_CHARS: usize = 5;

/// A target numbered on its bar: its name and colour, for the key.
type Keyed = (String, RGBColor);

/// The chart with the numbered targets `keyed`, and the targets whose name
/// did not fit readably (with no key, every one of them; with one, none).
fn draw_keyed(view: &View, keyed: &[Keyed]) -> Result<(String, Vec<Keyed>)> {
    let axis = TimeAxis::of(view);
    let span = axis.x(x_max(view));
    let (rows, left_out) = bounded(rows(view));
    let lanes: u32 = rows.iter().map(|r| r.lanes.len() as u32).sum::<u32>().max(1);
    let any = view.targets.iter().any(|t| t.start_s.get().is_some());
    let legend = Legend::new(
        legend_entries(view, any, left_out, keyed),
        WIDTH - PLOT_LEFT as u32 - 12,
    );
    let height = 120 + lanes * LANE_PX + legend.height;
    let mut unreadable = vec![];
    let svg = svg("timeline", (WIDTH, height), |root| {
        root.fill(&WHITE)?;
        let below = root.margin(8, 0, 0, 0).titled(
            "Timeline: targets per node (setup · own steps · export, upload hatched)",
            (FONT, 18),
        )?;
        let plot = legend.draw(&below, PLOT_LEFT)?;
        let mut chart = ChartBuilder::on(&plot)
            .margin(MARGIN)
            .margin_top(4)
            .x_label_area_size(40)
            .y_label_area_size(LABEL_AREA)
            .build_cartesian_2d(0f64..span, 0f64..lanes as f64)?;
        time_mesh(&mut chart, &axis)?;
        if !any {
            return message(
                &root,
                "no target has a readable trace: nothing to place on the timeline",
            );
        }
        let critical = view.fleet.critical.value().map(|c| c.node.as_str());
        // Where each target's bar sits: its lane's middle, for the arrows.
        let mut mid: std::collections::HashMap<&str, f64> = std::collections::HashMap::new();
        // Lanes are numbered from the top; y grows upwards in the chart.
        let mut lane_top = lanes as f64;
        for row in &rows {
            let h = row.lanes.len() as f64;
            draw_row_name(&mut chart, &root, row, critical, (lane_top - h, lane_top), span)?;
            for (i, lane) in row.lanes.iter().enumerate() {
                let (y0, y1) = (lane_top - i as f64 - 0.85, lane_top - i as f64 - 0.15);
                for (j, t) in lane.iter().enumerate() {
                    mid.insert(t.name.as_str(), (y0 + y1) / 2.0);
                    let c = target_colour(row.colour, t.shade);
                    draw_bands(&mut chart, &axis, span, t, c, (y0, y1))?;
                    // The white after the record, up to the lane's next target.
                    let next = lane.get(j + 1).and_then(|n| n.start_s.get()).unwrap_or(f64::INFINITY);
                    let px = |s: f64| chart.backend_coord(&(clamp(axis.x(s), span), 0.0)).0;
                    let after = (px(end_of(t)), px(next.min(x_max(view))));
                    let number = keyed.iter().position(|(name, _)| *name == t.name);
                    let text = number.map_or_else(|| t.name.clone(), |n| (n + 1).to_string());
                    let placed = label_place(&text, t, c, after, px);
                    if number.is_none() && !placed.as_ref().is_some_and(|(_, l, _)| readable(l, &t.name)) {
                        let (r, g, b) = c;
                        unreadable.push((t.name.clone(), RGBColor(r, g, b)));
                    }
                    if let Some(placed) = placed {
                        draw_label(&chart, &root, placed, (y0 + y1) / 2.0)?;
                    }
                }
            }
            lane_top -= h;
        }
        draw_edges(
            view,
            &mid,
            |(x, y)| chart.backend_coord(&(clamp(axis.x(x), span), y)),
            &root,
        )?;
        root.present()?;
        Ok(())
    })?;
    Ok((hatched(svg), unreadable))
}

/// The time axis along the bottom, and no lines across: the rows draw
/// their own separators.
fn time_mesh(chart: &mut Chart<'_>, axis: &TimeAxis) -> DrawResult {
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(0)
        .x_labels(axis.labels)
        .x_desc(axis.desc)
        .x_label_formatter(&|v| axis.label(v))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()?;
    Ok(())
}

/// A target's name (or number) where `label_place` put it, at its lane's
/// middle `mid`, in the ink that reads on the colour under it.
fn draw_label(
    chart: &Chart<'_>,
    root: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    (x, name, ground): (i32, String, (u8, u8, u8)),
    mid: f64,
) -> DrawResult {
    let (_, by) = chart.backend_coord(&(0.0, mid + 0.12));
    let (r, g, b) = crate::render::label_colour(ground);
    let ink = RGBColor(r, g, b);
    let style = TextStyle::from((FONT, LABEL_FONT).into_font())
        .color(&ink)
        .pos(Pos::new(HPos::Left, VPos::Center));
    root.draw(&Text::new(name, (x + 3, by), style))?;
    Ok(())
}

/// A row's separator below it (`y0`) and its node's name left of the plot,
/// starred on the critical node.
fn draw_row_name(
    chart: &mut Chart<'_>,
    root: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    row: &Row<'_>,
    critical: Option<&str>,
    (y0, y1): (f64, f64),
    span: f64,
) -> DrawResult {
    chart.draw_series(std::iter::once(PathElement::new(
        vec![(0.0, y0), (span, y0)],
        RGBColor(200, 200, 200).stroke_width(1),
    )))?;
    let (px, py) = chart.backend_coord(&(0.0, (y0 + y1) / 2.0));
    let label = if Some(row.node.as_str()) == critical {
        format!("★ {} (critical)", row.node)
    } else {
        row.node.clone()
    };
    let style = TextStyle::from((FONT, 13).into_font()).pos(Pos::new(HPos::Right, VPos::Center));
    root.draw(&Text::new(label, (px - 8, py), style))?;
    Ok(())
}

/// Whether a name as written on the chart says which target it is.
fn readable(label: &str, name: &str) -> bool {
    label == name || label.chars().count() > READABLE_CHARS
}

/// The legend: what the bands mean, then the numbered targets' key.
fn legend_entries(view: &View, any: bool, left_out: usize, keyed: &[Keyed]) -> Vec<LegendEntry> {
    let mut entries = vec![];
    if any {
        // A legend by example: the colour is the builder's, so the first one's.
        entries.extend([
            LegendEntry::new("own steps", Swatch::Fill(rgb(0), 1.0)),
            LegendEntry::new("setup / export", Swatch::Fill(rgb(0), LIGHT_ALPHA)),
            LegendEntry::new("upload", Swatch::Hatch),
        ]);
        if view.targets.iter().any(|t| !t.waiting.is_empty()) {
            entries.push(LegendEntry::new(
                "waiting for a dependency",
                Swatch::Fill(waiting_rgb(), WAITING_ALPHA),
            ));
        }
        if view.targets.iter().any(|t| t.after.is_some()) {
            entries.push(LegendEntry::new("after= (critical path: thick)", Swatch::Line(BLACK)));
        }
    }
    if left_out > 0 {
        entries.push(LegendEntry::new(
            format!("{left_out} idle nodes not drawn (data.json has them all)"),
            Swatch::Line(WHITE),
        ));
    }
    for (i, (name, colour)) in keyed.iter().enumerate() {
        entries.push(LegendEntry::new(
            format!("{} = {name}", i + 1),
            Swatch::Fill(*colour, 1.0),
        ));
    }
    entries
}

/// One target's bands in its lane (`y0..y1`): the waits, the phases (or the
/// whole record when it has no steps) and the uploads hatched over them.
fn draw_bands(
    chart: &mut Chart<'_>,
    axis: &TimeAxis,
    span: f64,
    t: &TargetView,
    colour: (u8, u8, u8),
    (y0, y1): (f64, f64),
) -> DrawResult {
    let c = RGBColor(colour.0, colour.1, colour.2);
    let x = |s: f64| clamp(axis.x(s), span);
    for w in &t.waiting {
        let corners = [(x(w[0]), y0 + 0.1), (x(w[1]), y1 - 0.1)];
        chart.draw_series(std::iter::once(Rectangle::new(
            corners,
            waiting_rgb().mix(WAITING_ALPHA).filled(),
        )))?;
        chart.draw_series(std::iter::once(Rectangle::new(corners, waiting_rgb().stroke_width(1))))?;
    }
    for p in &t.phases {
        let style = match p.phase {
            "build" => c.filled(),
            _ => c.mix(LIGHT_ALPHA).filled(),
        };
        chart.draw_series(std::iter::once(Rectangle::new(
            [(x(p.start_s), y0), (x(p.end_s), y1)],
            style,
        )))?;
    }
    if t.phases.is_empty() {
        // A record without steps: one light bar for the whole record.
        if let (Some(s), Some(e)) = (t.start_s.get(), t.end_s.get()) {
            chart.draw_series(std::iter::once(Rectangle::new(
                [(x(s), y0), (x(e), y1)],
                c.mix(LIGHT_ALPHA).filled(),
            )))?;
        }
    }
    for u in &t.uploads {
        let (ua, ub) = (y0, y0 + (y1 - y0) * 0.4);
        chart.draw_series(std::iter::once(Rectangle::new(
            [(x(u[0]), ua), (x(u[1]), ub)],
            HATCH_MARK.filled(),
        )))?;
    }
    Ok(())
}

/// How strongly the waiting band's grey shows over the white.
const WAITING_ALPHA: f64 = 0.18;

fn waiting_rgb() -> RGBColor {
    let (r, g, b) = crate::render::WAITING;
    RGBColor(r, g, b)
}

/// An arrow per `after=` whose both ends are drawn: from the dependency's
/// end to the target's start, black and thick where it links the critical
/// path, grey and thin elsewhere. `at` maps (seconds, lane y) to pixels.
fn draw_edges<DB: DrawingBackend>(
    view: &View,
    mid: &std::collections::HashMap<&str, f64>,
    at: impl Fn((f64, f64)) -> (i32, i32),
    root: &DrawingArea<DB, plotters::coord::Shift>,
) -> std::result::Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let by_name: std::collections::HashMap<&str, &TargetView> =
        view.targets.iter().map(|t| (t.name.as_str(), t)).collect();
    let on_chain = |target: &str, dep: &str| {
        view.critical_path
            .value()
            .into_iter()
            .flatten()
            .any(|l| l.target == target && l.waited_for.as_deref() == Some(dep))
    };
    for t in &view.targets {
        let Some(dep) = t.after.as_deref().and_then(|d| by_name.get(d)) else {
            continue;
        };
        let (Some(s), Some(e), Some(&yt), Some(&yd)) = (
            t.start_s.get(),
            dep.end_s.get(),
            mid.get(t.name.as_str()),
            mid.get(dep.name.as_str()),
        ) else {
            continue;
        };
        let (from, to) = (at((e, yd)), at((s, yt)));
        let critical = on_chain(&t.name, &dep.name);
        let (ink, width) = if critical {
            (BLACK, 2)
        } else {
            (RGBColor(90, 90, 90), 1)
        };
        root.draw(&PathElement::new(vec![from, to], ink.stroke_width(width)))?;
        root.draw(&Circle::new(from, 2 + width as i32, ink.filled()))?;
        // The head points along the line, at the target's start.
        let (dx, dy) = ((to.0 - from.0) as f64, (to.1 - from.1) as f64);
        let len = dx.hypot(dy).max(1.0);
        let (ux, uy) = (dx / len, dy / len);
        let size = 5.0 + width as f64;
        let point = |along: f64, across: f64| {
            (
                (to.0 as f64 - ux * along - uy * across).round() as i32,
                (to.1 as f64 - uy * along + ux * across).round() as i32,
            )
        };
        root.draw(&Polygon::new(
            vec![to, point(size * 1.6, size * 0.7), point(size * 1.6, -size * 0.7)],
            ink.filled(),
        ))?;
    }
    Ok(())
}

/// Where a target's name (or number) is written (its left edge in pixels), the name cut
/// to fit there, and the colour under it. The name stays inside one band of
/// its record, so its colour is chosen against one known fill: its own steps
/// (the solid bar) when it fits there whole, else another band of the record,
/// else the white `after` it, else the place it fits best in.
fn label_place(
    text: &str,
    t: &TargetView,
    c: (u8, u8, u8),
    after: (i32, i32),
    px: impl Fn(f64) -> i32,
) -> Option<(i32, String, (u8, u8, u8))> {
    let light = crate::render::over_white(c, LIGHT_ALPHA);
    let whole = t.start_s.get().zip(t.end_s.get()).filter(|_| t.phases.is_empty());
    let mut bands: Vec<(i32, i32, (u8, u8, u8))> = t
        .phases
        .iter()
        .map(|p| (p.start_s, p.end_s, if p.phase == "build" { c } else { light }))
        .chain(whole.map(|(s, e)| (s, e, light)))
        .map(|(s, e, fill)| (px(s), px(e), fill))
        .collect();
    // The solid bar first, then the widest, then the white after the record.
    bands.sort_by_key(|(s, e, fill)| (*fill != c, s - e));
    bands.push((after.0 + 2, after.1 - 4, (255, 255, 255)));
    let mut best: Option<(i32, String, (u8, u8, u8))> = None;
    for (s, e, fill) in bands {
        let Some(name) = fitted(text, e - s - 6, LABEL_FONT) else {
            continue;
        };
        if name == text {
            return Some((s, name, fill));
        }
        if best.as_ref().is_none_or(|b| b.1.chars().count() < name.chars().count()) {
            best = Some((s, name, fill));
        }
    }
    best
}
