//! The timeline: a row per node, a bar per target split into setup, its own
//! steps and export, with its upload intervals banded over them. The idle
//! time between targets is the white between bars.

use super::*;
use crate::view::TargetView;
use plotters::style::text_anchor::{HPos, Pos, VPos};

const LANE_PX: u32 = 30;
pub const UPLOAD: RGBColor = RGBColor(230, 85, 13);

/// Rows of the chart: a node and its targets spread over lanes so that
/// targets running at once on one node do not hide each other.
pub struct Row<'a> {
    pub node: String,
    pub colour: usize,
    pub lanes: Vec<Vec<&'a TargetView>>,
}

pub fn rows(view: &View) -> Vec<Row<'_>> {
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
    for t in view.targets.iter().filter(|t| t.start_s.is_some()) {
        let idx = match &t.node {
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
        let start = t.start_s.unwrap_or(0.0);
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

fn end_of(t: &TargetView) -> f64 {
    t.end_s
        .or_else(|| t.phases.iter().map(|p| p.end_s).reduce(f64::max))
        .or(t.start_s)
        .unwrap_or(0.0)
}

pub fn draw(view: &View) -> Result<String> {
    let axis = TimeAxis::for_span(x_max(view));
    let span = axis.x(x_max(view));
    let rows = rows(view);
    // Two lanes more than the rows need: the legend's, above them.
    let lanes: u32 = rows.iter().map(|r| r.lanes.len() as u32).sum::<u32>().max(1);
    let height = 120 + (lanes + 2) * LANE_PX;
    svg("timeline", (WIDTH, height), |root| {
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                "Timeline: targets per node (setup · own steps · export, upload banded)",
                (FONT, 18),
            )
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(150)
            .build_cartesian_2d(0f64..span, 0f64..(lanes + 2) as f64)?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(0)
            .x_desc(axis.desc)
            .x_label_formatter(&|v| axis.label(v))
            .light_line_style(RGBColor(235, 235, 235))
            .draw()?;
        if view.targets.iter().all(|t| t.start_s.is_none()) {
            return message(
                &root,
                "no target has a readable trace: nothing to place on the timeline",
            );
        }
        let critical = view.fleet.critical.as_ref().map(|c| c.node.as_str());
        let name_style = TextStyle::from((FONT, 13).into_font()).pos(Pos::new(HPos::Right, VPos::Center));
        let bar_text = TextStyle::from((FONT, 11).into_font())
            .color(&BLACK)
            .pos(Pos::new(HPos::Left, VPos::Center));
        // Lanes are numbered from the top; y grows upwards in the chart.
        let mut lane_top = lanes as f64;
        for row in &rows {
            let c = rgb(row.colour);
            let h = row.lanes.len() as f64;
            // Row separator and the node's name left of the plot.
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(0.0, lane_top - h), (span, lane_top - h)],
                RGBColor(200, 200, 200).stroke_width(1),
            )))?;
            let (px, py) = chart.backend_coord(&(0.0, lane_top - h / 2.0));
            let label = if Some(row.node.as_str()) == critical {
                format!("★ {} (critical)", row.node)
            } else {
                row.node.clone()
            };
            root.draw(&Text::new(label, (px - 8, py), name_style.clone()))?;
            for (i, lane) in row.lanes.iter().enumerate() {
                let y1 = lane_top - i as f64 - 0.15;
                let y0 = lane_top - i as f64 - 0.85;
                for t in lane {
                    for p in &t.phases {
                        let style = match p.phase {
                            "build" => c.filled(),
                            _ => c.mix(0.35).filled(),
                        };
                        chart.draw_series(std::iter::once(Rectangle::new(
                            [(clamp(axis.x(p.start_s), span), y0), (clamp(axis.x(p.end_s), span), y1)],
                            style,
                        )))?;
                    }
                    if t.phases.is_empty() {
                        // A record without steps: one light bar for the whole record.
                        if let (Some(s), Some(e)) = (t.start_s, t.end_s) {
                            chart.draw_series(std::iter::once(Rectangle::new(
                                [(clamp(axis.x(s), span), y0), (clamp(axis.x(e), span), y1)],
                                c.mix(0.35).filled(),
                            )))?;
                        }
                    }
                    for u in &t.uploads {
                        let (ua, ub) = (y0, y0 + (y1 - y0) * 0.4);
                        chart.draw_series(std::iter::once(Rectangle::new(
                            [(clamp(axis.x(u[0]), span), ua), (clamp(axis.x(u[1]), span), ub)],
                            UPLOAD.filled(),
                        )))?;
                    }
                    if let Some(s) = t.start_s {
                        let (bx, by) = chart.backend_coord(&(clamp(axis.x(s), span), (y0 + y1) / 2.0 + 0.12));
                        root.draw(&Text::new(t.name.clone(), (bx + 3, by), bar_text.clone()))?;
                    }
                }
            }
            lane_top -= h;
        }
        // Legend by example.
        let examples: [(&str, ShapeStyle); 3] = [
            ("own steps", rgb(0).filled()),
            ("setup / export", rgb(0).mix(0.35).filled()),
            ("upload", UPLOAD.filled()),
        ];
        for (name, style) in examples {
            chart
                .draw_series(std::iter::empty::<Rectangle<(f64, f64)>>())?
                .label(name)
                .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 16, y + 5)], style));
        }
        legend(&mut chart, SeriesLabelPosition::UpperRight)?;
        root.present()?;
        Ok(())
    })
}
