//! CPU and memory of every node on ONE percent axis: colour follows the
//! builder, CPU solid, memory dashed. A second y-scale is not allowed.

use super::*;

pub fn draw(view: &View) -> Result<String> {
    let axis = TimeAxis::for_span(x_max(view));
    let span = axis.x(x_max(view));
    svg("cpu-mem", (WIDTH, 440), |root| {
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(&root)
            .caption("CPU busy and memory used by node (%)", (FONT, 18))
            .margin(12)
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
        if view.nodes.iter().all(|n| n.cpu.t.is_empty() && n.mem.t.is_empty()) {
            let why = if view.inputs.get("samples.jsonl").is_some_and(|i| i.present) {
                "samples.jsonl holds no usable node samples"
            } else {
                "no samples.jsonl in this run"
            };
            return message(&root, why);
        }
        for n in &view.nodes {
            let c = rgb(n.colour);
            let label = match &n.builder {
                Some(b) => format!("{} ({b})", n.name),
                None => n.name.clone(),
            };
            let mut labelled = false;
            // About two points per pixel column is all an SVG can show; dashed
            // memory lines cost an element per dash, so they get fewer.
            let (cpu_t, cpu_v) = thin(&n.cpu.t, &n.cpu.v, 2 * WIDTH as usize, axis);
            let (mem_t, mem_v) = thin(&n.mem.t, &n.mem.v, WIDTH as usize / 2, axis);
            for seg in segments(&cpu_t, &cpu_v, span) {
                let s = chart.draw_series(LineSeries::new(seg, c.stroke_width(2)))?;
                if !labelled {
                    s.label(label.clone())
                        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], c.stroke_width(3)));
                    labelled = true;
                }
            }
            for seg in segments(&mem_t, &mem_v, span) {
                let s = chart.draw_series(DashedLineSeries::new(seg, 6, 4, c.stroke_width(2)))?;
                if !labelled {
                    s.label(label.clone())
                        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], c.stroke_width(3)));
                    labelled = true;
                }
            }
        }
        legend(&mut chart, SeriesLabelPosition::UpperRight)?;
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
