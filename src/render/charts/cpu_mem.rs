//! CPU and memory as small multiples: a panel per node, every panel on the
//! same 0–100 % scale and the same time axis, the node's name left of its
//! panel. Colour follows the builder, CPU solid, memory dashed. Ten lines on
//! one axis knotted at 85–97 % on a fleet of five; a panel each reads.

use super::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// The most nodes whose panels one chart draws.
const MAX_DRAWN_NODES: usize = 64;
/// Space between two panels.
const PANEL_GAP: u32 = 14;
/// Under the last panel: the time axis's labels and its name.
const AXIS_PX: u32 = 40;
const NAME_FONT: u32 = 13;

/// A panel's plot height: a small fleet's panels are taller.
fn panel_px(nodes: usize) -> u32 {
    match nodes {
        0..=8 => 72,
        9..=24 => 52,
        _ => 36,
    }
}

/// The legend: what the two line styles mean (when any node is drawn),
/// and how many nodes past `MAX_DRAWN_NODES` were left out.
fn legend_entries(shown: usize, left_out: usize) -> Vec<LegendEntry> {
    let mut entries = vec![];
    if shown > 0 {
        let grey = RGBColor(110, 110, 110);
        entries.push(LegendEntry::new("CPU busy", Swatch::Line(grey)));
        entries.push(LegendEntry::new("memory used", Swatch::Dashed(grey)));
    }
    if left_out > 0 {
        entries.push(LegendEntry::new(
            format!(
                "{left_out} more {} not drawn (data.json has them all)",
                crate::fmt::plural(left_out as u64, "node", "nodes")
            ),
            Swatch::Line(WHITE),
        ));
    }
    entries
}

pub(crate) fn draw(view: &View) -> Result<String> {
    let axis = TimeAxis::of(view);
    let span = axis.x(x_max(view));
    let drawn = |n: &&crate::view::NodeView| !n.cpu.t.is_empty() || !n.mem.t.is_empty();
    // A fleet past `MAX_DRAWN_NODES` (or a samples.jsonl naming thousands
    // of nodes) draws the first of them by name and says how many it left out.
    let shown: Vec<&crate::view::NodeView> = view.nodes.iter().filter(drawn).take(MAX_DRAWN_NODES).collect();
    let left_out = view.nodes.iter().filter(drawn).count() - shown.len();
    let legend = Legend::new(legend_entries(shown.len(), left_out), WIDTH - PLOT_LEFT as u32 - MARGIN);
    // Without a node to draw, one empty panel carries the reason.
    let empty = view.why_empty.get(crate::view::CPU_MEM);
    let panels = if empty.is_some() { 1 } else { shown.len().max(1) };
    let ph = if empty.is_some() { 160 } else { panel_px(panels) };
    let height = 40 + legend.height + panels as u32 * (ph + PANEL_GAP) + AXIS_PX;
    svg("cpu-mem", (WIDTH, height), |root| {
        root.fill(&WHITE)?;
        let below = root
            .margin(8, 0, 0, 0)
            .titled("CPU busy and memory used, % of each node", (FONT, 18))?;
        let plot = legend.draw(&below, PLOT_LEFT)?;
        let budget = Budget::for_nodes(shown.len());
        let name_style = TextStyle::from((FONT, NAME_FONT).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
        let builder_style = TextStyle::from((FONT, 11).into_font())
            .color(&RGBColor(90, 90, 90))
            .pos(Pos::new(HPos::Left, VPos::Center));
        let mut rest = plot;
        for i in 0..panels {
            let last = i + 1 == panels;
            let h = ph + PANEL_GAP + if last { AXIS_PX } else { 0 };
            let (area, below) = rest.split_vertically(h);
            rest = below;
            let mut chart = ChartBuilder::on(&area)
                .margin(MARGIN)
                .margin_top(PANEL_GAP / 2)
                .margin_bottom(PANEL_GAP / 2)
                .x_label_area_size(if last { AXIS_PX - PANEL_GAP / 2 } else { 0 })
                .y_label_area_size(LABEL_AREA)
                .build_cartesian_2d(0f64..span, 0f64..100f64)?;
            panel_mesh(&mut chart, axis, panels, last)?;
            if let Some(why) = empty {
                message(&area, why)?;
                continue;
            }
            let Some(n) = shown.get(i) else {
                message(&area, "no node polled: nothing to draw")?;
                continue;
            };
            node_name(&root, &chart, n, ph, (&name_style, &builder_style))?;
            node_lines(&mut chart, n, budget, (axis, span))?;
        }
        root.present()?;
        Ok(())
    })
}

/// A panel's axes: percent up, time along (named under the last panel).
fn panel_mesh(chart: &mut Chart<'_>, axis: TimeAxis, panels: usize, last: bool) -> DrawResult {
    let (percent, time) = (|v: &f64| format!("{v:.0}%"), |v: &f64| axis.label(v));
    let mut mesh = chart.configure_mesh();
    // Past eight panels the light grid would cost more than the lines.
    mesh.y_labels(3)
        .x_labels(axis.labels)
        .y_max_light_lines(1)
        .x_max_light_lines(if panels > crate::view::FULL_DETAIL_NODES { 0 } else { 4 })
        .y_label_style((FONT, 11))
        .x_label_style((FONT, 12))
        .axis_desc_style((FONT, 12))
        .y_label_formatter(&percent)
        .x_label_formatter(&time)
        .light_line_style(RGBColor(240, 240, 240));
    if last {
        mesh.x_desc(axis.desc);
    }
    mesh.draw()?;
    Ok(())
}

/// The node's name (and builder, when the panel is tall enough) in the
/// label column, left of its ticks; the chart's coordinates are the whole
/// SVG's, as `root`'s.
fn node_name(
    root: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    chart: &Chart<'_>,
    n: &crate::view::NodeView,
    ph: u32,
    (name_style, builder_style): (&TextStyle, &TextStyle),
) -> DrawResult {
    let (_, top) = chart.backend_coord(&(0.0, 100.0));
    let (_, bottom) = chart.backend_coord(&(0.0, 0.0));
    let mid = (top + bottom) / 2;
    let name_width = LABEL_AREA as i32 - 44;
    let builder = n.builder.as_deref().filter(|_| ph >= 50);
    let name_y = if builder.is_some() { mid - 8 } else { mid };
    if let Some(name) = fitted(&n.name, name_width, NAME_FONT) {
        root.draw(&Text::new(name, (MARGIN as i32, name_y), name_style.clone()))?;
    }
    if let Some(b) = builder.and_then(|b| fitted(b, name_width, 11)) {
        root.draw(&Text::new(b, (MARGIN as i32, mid + 9), builder_style.clone()))?;
    }
    Ok(())
}

/// The node's CPU line, solid, and its memory line, dashed within the
/// node's budget of dashes; each thinned to the points the budget allows.
fn node_lines(
    chart: &mut Chart<'_>,
    n: &crate::view::NodeView,
    budget: Budget,
    (axis, span): (TimeAxis, f64),
) -> DrawResult {
    let c = rgb(n.colour);
    let (cpu_t, cpu_v) = thin(&n.cpu.t, &n.cpu.v, budget.cpu_points, axis);
    let (mem_t, mem_v) = thin(&n.mem.t, &n.mem.v, budget.mem_points, axis);
    for seg in segments(&cpu_t, &cpu_v, span) {
        chart.draw_series(LineSeries::new(seg, c.stroke_width(2)))?;
    }
    let mem = segments(&mem_t, &mem_v, span);
    let pixels: f64 = mem
        .iter()
        .flat_map(|seg| seg.windows(2))
        .map(|w| {
            let (a, b) = (chart.backend_coord(&w[0]), chart.backend_coord(&w[1]));
            f64::from(a.0 - b.0).hypot(f64::from(a.1 - b.1))
        })
        .sum();
    let (dash, gap) = budget.dash(pixels);
    for seg in mem {
        chart.draw_series(DashedLineSeries::new(seg, dash, gap, c.stroke_width(2)))?;
    }
    Ok(())
}

/// What one node's lines may cost, so the chart's size has a ceiling
/// however many nodes polled: up to `FULL_DETAIL_NODES` each node gets
/// the full detail, a larger fleet shares what eight would have.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Budget {
    cpu_points: usize,
    mem_points: usize,
    /// Dashes one node's memory line may draw: each is an SVG element.
    dashes: f64,
}

impl Budget {
    /// About two points per pixel column is all an SVG can show; a dashed
    /// memory line costs an element per dash, so it gets fewer points.
    const FULL: Budget = Budget {
        cpu_points: 2 * WIDTH as usize,
        mem_points: WIDTH as usize / 2,
        // One node's share of the fleet's dashes: even at full detail a
        // zig-zag memory line would otherwise draw a dash per 10 px of its
        // length, 13 MB for eight nodes.
        dashes: Budget::FLEET_DASHES / crate::view::FULL_DETAIL_NODES as f64,
    };
    /// Every node's memory lines together, at most (eight nodes' worth).
    const FLEET_DASHES: f64 = 2000.0;

    fn for_nodes(nodes: usize) -> Budget {
        let full = crate::view::FULL_DETAIL_NODES;
        if nodes <= full {
            return Budget::FULL;
        }
        // Four points is the least a reduced line keeps (a bucket's extremes).
        let share = |n: usize| (n * full / nodes).max(4);
        Budget {
            cpu_points: share(Budget::FULL.cpu_points),
            mem_points: share(Budget::FULL.mem_points),
            dashes: Budget::FLEET_DASHES / nodes as f64,
        }
    }

    /// Dash and gap (pixels) for a memory line `pixels` long: 6 and 4 unless
    /// that would draw more dashes than the budget, then longer in proportion.
    fn dash(&self, pixels: f64) -> (i32, i32) {
        let stretch = (pixels / 10.0 / self.dashes).max(1.0);
        if stretch == 1.0 {
            return (6, 4);
        }
        ((6.0 * stretch).ceil() as i32, (4.0 * stretch).ceil() as i32)
    }
}

/// A series in axis units, reduced to at most `max` points with peaks kept.
fn thin(t: &[f64], v: &[Option<f64>], max: usize, axis: TimeAxis) -> (Vec<f64>, Vec<Option<f64>>) {
    let points: Vec<(i64, Option<f64>)> = t.iter().zip(v).map(|(t, v)| ((t * 1e3) as i64, *v)).collect();
    let (reduced, _) = crate::view::reduce_min_max(&points, max);
    reduced.into_iter().map(|(t, v)| (axis.x(t as f64 / 1e3), v)).unzip()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fleet_of_eight_or_fewer_keeps_the_full_detail() {
        for n in 0..=crate::view::FULL_DETAIL_NODES {
            assert_eq!(Budget::for_nodes(n), Budget::FULL);
        }
        // A memory line across the chart and back keeps the usual dash.
        assert_eq!(Budget::FULL.dash(2.0 * f64::from(WIDTH)), (6, 4));
    }

    #[test]
    fn a_zig_zag_memory_line_of_a_small_fleet_draws_at_most_its_share_of_dashes() {
        let (dash, gap) = Budget::FULL.dash(1e6);
        let drawn = 1e6 / f64::from(dash + gap);
        assert!(
            drawn * crate::view::FULL_DETAIL_NODES as f64 <= Budget::FLEET_DASHES,
            "{drawn}"
        );
    }

    #[test]
    fn a_large_fleet_shares_the_detail_of_eight() {
        let b = Budget::for_nodes(64);
        assert_eq!(b.cpu_points, 2 * WIDTH as usize / 8);
        assert!(b.cpu_points * 64 <= Budget::FULL.cpu_points * 8);
        // A memory line 100,000 px long (a zig-zag) draws at most its share of dashes.
        let (dash, gap) = b.dash(100_000.0);
        let drawn = 100_000.0 / f64::from(dash + gap);
        assert!(drawn <= Budget::FLEET_DASHES / 64.0, "{drawn}");
        // A short one keeps the usual dash.
        assert_eq!(b.dash(100.0), (6, 4));
    }
}
