//! Cache lanes over time: the compiler cache's hits, misses and writes, and
//! the registry's write bytes. An absent input's lane says why; a present
//! input that measured zero is drawn.

use super::*;

pub fn draw(view: &View) -> Result<String> {
    let axis = TimeAxis::for_span(x_max(view));
    svg("cache-lanes", (WIDTH, 520), |root| {
        root.fill(&WHITE)?;
        let (top, bottom) = root.split_vertically(260);
        sccache_lane(view, axis, &top)?;
        zot_lane(view, axis, &bottom)?;
        root.present()?;
        Ok(())
    })
}

fn sccache_lane(view: &View, axis: TimeAxis, area: &DrawingArea<SVGBackend, plotters::coord::Shift>) -> DrawResult {
    let s = &view.sccache;
    let bucket = s.bucket_s;
    let caption = format!("Compiler cache (sccache): requests per {bucket} s");
    let span = axis.x(x_max(view));
    if let Some(why) = &s.why {
        let area = area.titled(&caption, (FONT, 16))?;
        return message(&area, &format!("not drawn: {why}"));
    }
    if let Some(why) = &s.lane_why {
        if s.series.iter().all(|p| p.hits == 0 && p.misses == 0 && p.writes == 0) {
            let area = area.titled(&caption, (FONT, 16))?;
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
    let mut chart = ChartBuilder::on(area)
        .caption(caption, (FONT, 16))
        .margin(10)
        .x_label_area_size(32)
        .y_label_area_size(48)
        .build_cartesian_2d(0f64..span, 0f64..ymax)?;
    chart
        .configure_mesh()
        .x_label_formatter(&|v| axis.label(v))
        .y_desc("requests")
        .light_line_style(RGBColor(235, 235, 235))
        .draw()?;
    type Lane = (&'static str, RGBColor, fn(&crate::view::SccachePoint) -> u64);
    let lanes: [Lane; 3] = [
        ("hits", RGBColor(44, 160, 44), |p| p.hits),
        ("misses", RGBColor(214, 39, 40), |p| p.misses),
        ("writes", RGBColor(31, 119, 180), |p| p.writes),
    ];
    for (name, colour, get) in lanes {
        let total = s.series.iter().map(get).fold(0u64, u64::saturating_add);
        chart
            .draw_series(LineSeries::new(
                s.series.iter().map(|p| (clamp(axis.x(p.t_s), span), get(p) as f64)),
                colour.stroke_width(2),
            ))?
            .label(format!("{name} ({total})"))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], colour.stroke_width(3)));
    }
    legend(&mut chart, SeriesLabelPosition::UpperRight)?;
    lane_note(area, s.lane_why.as_deref())?;
    Ok(())
}

fn zot_lane(view: &View, axis: TimeAxis, area: &DrawingArea<SVGBackend, plotters::coord::Shift>) -> DrawResult {
    let z = &view.zot;
    let bucket = z.bucket_s;
    let caption = format!("Registry (zot): write rate, MB/s over {bucket} s buckets");
    let span = axis.x(x_max(view));
    if let Some(why) = &z.why {
        let area = area.titled(&caption, (FONT, 16))?;
        return message(&area, &format!("not drawn: {why}"));
    }
    // The lane and the Registry table must agree: an empty lane beside
    // written bytes says why, instead of "images (0 B)".
    if let Some(why) = &z.lane_why {
        if z.series.iter().all(|p| p.cache_bytes == 0 && p.image_bytes == 0) {
            let area = area.titled(&caption, (FONT, 16))?;
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
    let mut chart = ChartBuilder::on(area)
        .caption(caption, (FONT, 16))
        .margin(10)
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
    type Lane = (&'static str, RGBColor, fn(&crate::view::ZotPoint) -> u64);
    let lanes: [Lane; 2] = [
        ("layer cache", RGBColor(148, 103, 189), |p| p.cache_bytes),
        ("images", RGBColor(127, 127, 127), |p| p.image_bytes),
    ];
    for (name, colour, get) in lanes {
        let total = z.series.iter().map(get).fold(0u64, u64::saturating_add);
        chart
            .draw_series(LineSeries::new(
                z.series.iter().map(|p| (clamp(axis.x(p.t_s), span), mb(get(p)))),
                colour.stroke_width(2),
            ))?
            .label(format!("{name} ({})", crate::view::human_bytes(total as f64)))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], colour.stroke_width(3)));
    }
    legend(&mut chart, SeriesLabelPosition::UpperRight)?;
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
