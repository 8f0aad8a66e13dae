//! CPU and memory of every node on ONE percent axis: colour follows the
//! builder, CPU solid, memory dashed. A second y-scale is not allowed.

use super::*;

/// Where the plot starts: the chart's margin and the y labels' width.
const PLOT_LEFT: i32 = 12 + 48;

pub fn draw(view: &View) -> Result<String> {
    let axis = TimeAxis::for_span(x_max(view));
    let span = axis.x(x_max(view));
    let drawn = |n: &&crate::view::NodeView| !n.cpu.t.is_empty() || !n.mem.t.is_empty();
    let mut entries: Vec<LegendEntry> = view
        .nodes
        .iter()
        .filter(drawn)
        .map(|n| {
            let label = match &n.builder {
                Some(b) => format!("{} ({b})", n.name),
                None => n.name.clone(),
            };
            LegendEntry::new(label, Swatch::Line(rgb(n.colour)))
        })
        .collect();
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
        for n in &view.nodes {
            let c = rgb(n.colour);
            // About two points per pixel column is all an SVG can show; dashed
            // memory lines cost an element per dash, so they get fewer.
            let (cpu_t, cpu_v) = thin(&n.cpu.t, &n.cpu.v, 2 * WIDTH as usize, axis);
            let (mem_t, mem_v) = thin(&n.mem.t, &n.mem.v, WIDTH as usize / 2, axis);
            for seg in segments(&cpu_t, &cpu_v, span) {
                chart.draw_series(LineSeries::new(seg, c.stroke_width(2)))?;
            }
            for seg in segments(&mem_t, &mem_v, span) {
                chart.draw_series(DashedLineSeries::new(seg, 6, 4, c.stroke_width(2)))?;
            }
        }
        root.present()?;
        Ok(())
    })
}

/// A series in axis units, reduced to at most `max` points with peaks kept.
fn thin(t: &[f64], v: &[Option<f64>], max: usize, axis: TimeAxis) -> (Vec<f64>, Vec<Option<f64>>) {
    let points: Vec<(i64, Option<f64>)> = t.iter().zip(v).map(|(t, v)| ((t * 1e3) as i64, *v)).collect();
    let (reduced, _) = crate::view::reduce_min_max(&points, max);
    reduced.into_iter().map(|(t, v)| (axis.x(t as f64 / 1e3), v)).unzip()
}
