//! CPU and memory of every node on ONE percent axis: colour follows the
//! builder, CPU solid, memory dashed. A second y-scale is not allowed.

use super::*;

/// The most nodes whose lines one chart draws.
const MAX_DRAWN_NODES: usize = 64;

/// Where the plot starts: the chart's margin and the y labels' width.
const PLOT_LEFT: i32 = 12 + 48;

pub fn draw(view: &View) -> Result<String> {
    let axis = TimeAxis::for_span(x_max(view));
    let span = axis.x(x_max(view));
    let drawn = |n: &&crate::view::NodeView| !n.cpu.t.is_empty() || !n.mem.t.is_empty();
    // A fleet past `MAX_DRAWN_NODES` (or a samples.jsonl naming thousands
    // of nodes) draws the first of them by name and says how many it left out.
    let shown: Vec<&crate::view::NodeView> = view.nodes.iter().filter(drawn).take(MAX_DRAWN_NODES).collect();
    let left_out = view.nodes.iter().filter(drawn).count() - shown.len();
    let mut entries: Vec<LegendEntry> = shown
        .iter()
        .map(|n| {
            let label = match &n.builder {
                Some(b) => format!("{} ({b})", n.name),
                None => n.name.clone(),
            };
            LegendEntry::new(label, Swatch::Line(rgb(n.colour)))
        })
        .collect();
    if left_out > 0 {
        entries.push(LegendEntry::new(
            format!("{left_out} more nodes not drawn (data.json has them all)"),
            Swatch::Line(WHITE),
        ));
    }
    if !entries.is_empty() {
        let grey = RGBColor(110, 110, 110);
        entries.push(LegendEntry::new("CPU busy", Swatch::Line(grey)));
        entries.push(LegendEntry::new("memory used", Swatch::Dashed(grey)));
    }
    let legend = Legend::new(entries, WIDTH - PLOT_LEFT as u32 - 12);
    svg("cpu-mem", (WIDTH, 440 + legend.height), |root| {
        root.fill(&WHITE)?;
        let below = root
            .margin(8, 0, 0, 0)
            .titled("CPU busy and memory used by node (%)", (FONT, 18))?;
        let plot = legend.draw(&below, PLOT_LEFT)?;
        let mut chart = ChartBuilder::on(&plot)
            .margin(12)
            .margin_top(4)
            .x_label_area_size(40)
            .y_label_area_size(48)
            .build_cartesian_2d(0f64..span, 0f64..100f64)?;
        chart
            .configure_mesh()
            .x_desc(axis.desc)
            .y_desc("% of node (CPU solid, memory dashed)")
            .x_label_formatter(&|v| axis.label(v))
            .light_line_style(RGBColor(235, 235, 235))
            .draw()?;
        if let Some(why) = view.why_empty.get(crate::view::CPU_MEM) {
            return message(&root, why);
        }
        let budget = Budget::for_nodes(shown.len());
        for n in &shown {
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
        }
        root.present()?;
        Ok(())
    })
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
