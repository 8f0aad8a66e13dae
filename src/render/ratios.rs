//! The benchmark-ratios report: `ratios.md`, `ratios.json`, one chart per key
//! under `charts/`, and a self-contained `ratios.html`.

use super::charts::{rgb, svg, Legend, LegendEntry, Swatch, FONT, WIDTH};
use crate::error::{Error, Result};
use crate::harness::ratios::Pool;
use crate::harness::view::RatiosView;
use crate::output::OutFile;
use plotters::prelude::*;

const TEMPLATE: &str = include_str!("../../templates/ratios.md.tera");
pub(crate) const PAGE: &str = include_str!("../../templates/markdown.html.tera");
pub(crate) const CSS: &str = include_str!("../../assets/report.css");

fn chart_name(i: usize) -> String {
    format!("charts/ratios-{i}.svg")
}

fn pool_chart(view: &RatiosView, i: usize) -> Result<String> {
    let k = &view.report.keys[i];
    let all: Vec<(i64, f64)> = k
        .pools
        .values()
        .flat_map(|p| p.samples.iter())
        .filter_map(|s| crate::timefmt::parse_rfc3339(&s.ts).map(|t| (t, s.seconds)))
        .collect();
    let t0 = all.iter().map(|x| x.0).min().unwrap_or(0);
    let days = |t: i64| (t - t0) as f64 / 86_400e6;
    let xmax = all.iter().map(|x| days(x.0)).fold(0.0, f64::max).max(1.0) * 1.05;
    let ymax = all.iter().map(|x| x.1).fold(0.0, f64::max).max(1.0) * 1.15;
    let title = format!(
        "{} on {} ({}, max_jobs={}): seconds per build",
        k.key.target,
        k.key.builder,
        k.key.arch,
        k.key.jobs()
    );
    let entries = k
        .pools
        .iter()
        .enumerate()
        .map(|(idx, (pool, stats))| {
            let label = format!(
                "{pool:?} (median {} s, n={})",
                crate::fmt::seconds(stats.median_s),
                stats.n
            )
            .to_lowercase();
            LegendEntry::new(label, Swatch::Dot(rgb(idx)))
        })
        .collect();
    // Beside the plot's left edge: the chart's margin and the y labels.
    let left = 12 + 60;
    let legend = Legend::new(entries, WIDTH - left as u32 - 12);
    svg(&chart_name(i), (WIDTH, 360 + legend.height), |root| {
        root.fill(&WHITE)?;
        let below = root.margin(8, 0, 0, 0).titled(&title, (FONT, 16))?;
        let plot = legend.draw(&below, left)?;
        // An axis past the largest number has no ticks to compute: said, not drawn.
        if !(xmax.is_finite() && ymax.is_finite()) {
            super::charts::message(&plot, "not drawn: a sample's time is too large to put on an axis")?;
            root.present()?;
            return Ok(());
        }
        let mut chart = ChartBuilder::on(&plot)
            .margin(12)
            .margin_top(4)
            .x_label_area_size(36)
            .y_label_area_size(60)
            .build_cartesian_2d(-0.02f64..xmax, 0f64..ymax)?;
        chart
            .configure_mesh()
            .x_desc("days since the first sample")
            .y_desc("seconds")
            .light_line_style(RGBColor(235, 235, 235))
            .draw()?;
        for (idx, stats) in k.pools.values().enumerate() {
            let c = rgb(idx);
            let pts: Vec<(f64, f64)> = stats
                .samples
                .iter()
                .filter_map(|s| crate::timefmt::parse_rfc3339(&s.ts).map(|t| (days(t), s.seconds)))
                .collect();
            chart.draw_series(pts.iter().map(|p| Circle::new(*p, 4, c.filled())))?;
            chart.draw_series(DashedLineSeries::new(
                vec![(0.0, stats.median_s), (xmax, stats.median_s)],
                6,
                4,
                c.stroke_width(1),
            ))?;
        }
        root.present()?;
        Ok(())
    })
}

pub fn render(view: &RatiosView) -> Result<Vec<OutFile>> {
    let mut files = vec![];
    let mut json = serde_json::to_vec_pretty(view).unwrap_or_else(|_| b"{}".to_vec());
    json.push(b'\n');
    files.push(OutFile::new("ratios.json", json));
    let mut charts = vec![];
    for i in 0..view.report.keys.len() {
        charts.push(OutFile::new(chart_name(i), pool_chart(view, i)?));
    }
    let t = super::markdown::markdown_engine("ratios.md", TEMPLATE)?;
    let mut ctx = tera::Context::from_serialize(view).map_err(|e| Error::Template {
        name: "ratios.md".into(),
        message: e.to_string(),
    })?;
    ctx.insert(
        "charts",
        &(0..view.report.keys.len()).map(chart_name).collect::<Vec<_>>(),
    );
    ctx.insert("pool_names", &[Pool::Frozen, Pool::Cold, Pool::Compiled, Pool::Skipped]);
    let md = t.render("ratios.md", &ctx).map_err(|e| Error::Template {
        name: "ratios.md".into(),
        message: format!("{e:?}"),
    })?;
    let body = super::html::markdown_with_inline_charts(&md, &charts);
    let mut page = super::markdown::engine("ratios.html", PAGE)?;
    page.autoescape_on(vec!["ratios.html"]);
    let mut pctx = tera::Context::new();
    pctx.insert("css", CSS);
    pctx.insert("title", "cache ratios");
    pctx.insert("body", &body);
    let html = page.render("ratios.html", &pctx).map_err(|e| Error::Template {
        name: "ratios.html".into(),
        message: format!("{e:?}"),
    })?;
    files.push(OutFile::new("ratios.md", md));
    files.push(OutFile::new("ratios.html", html));
    files.extend(charts);
    Ok(files)
}
