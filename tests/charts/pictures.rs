//! Pictures that hide nothing, read from the SVG
//! charts as written: where the legend lies, what the upload looks like
//! beside the builders' colours, and whether the bar labels can be read.
//! Colour science here is written from the formulas (sRGB → CIELAB, ΔE76,
//! WCAG 2 contrast), independently of the renderer's own.

use super::{data, report, sample, wide_run, COLD, WARM};
use perfreport::render::{LIGHT_ALPHA, PALETTE};

/// One element of a chart's SVG, in paint order.
#[derive(Debug)]
pub struct El {
    pub tag: String,
    pub attrs: Vec<(String, String)>,
    pub text: String,
}

impl El {
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
    fn num(&self, name: &str) -> f64 {
        self.attr(name).and_then(|v| v.parse().ok()).unwrap_or(0.0)
    }
}

/// The elements of an SVG as plotters writes it (one tag after another,
/// attributes in double quotes, text between a tag and the next).
pub fn elements(svg: &str) -> Vec<El> {
    let mut out = vec![];
    let mut rest = svg;
    while let Some(lt) = rest.find('<') {
        rest = &rest[lt + 1..];
        let Some(gt) = rest.find('>') else { break };
        let inner = &rest[..gt];
        rest = &rest[gt + 1..];
        if inner.starts_with('/') || inner.starts_with('!') || inner.starts_with('?') {
            continue;
        }
        let inner = inner.trim_end_matches('/');
        let (tag, mut attrs_src) = inner.split_once(char::is_whitespace).unwrap_or((inner, ""));
        let mut attrs = vec![];
        while let Some(eq) = attrs_src.find("=\"") {
            let name = attrs_src[..eq].trim().to_string();
            let after = &attrs_src[eq + 2..];
            let end = after.find('"').unwrap_or(after.len());
            attrs.push((name, after[..end].to_string()));
            attrs_src = &after[(end + 1).min(after.len())..];
        }
        let text = rest[..rest.find('<').unwrap_or(rest.len())].trim();
        out.push(El {
            tag: tag.to_string(),
            attrs,
            text: unescape(text),
        });
    }
    out
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

pub type Rgb = (u8, u8, u8);

/// `#rrggbb` or `rgb(r, g, b)`.
pub fn parse_colour(s: &str) -> Option<Rgb> {
    let s = s.trim();
    if let Some(hex) = s.strip_prefix('#').filter(|h| h.len() == 6) {
        let v = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).ok();
        return Some((v(0)?, v(2)?, v(4)?));
    }
    let body = s.strip_prefix("rgb(")?.strip_suffix(')')?;
    let v: Vec<u8> = body.split(',').filter_map(|x| x.trim().parse().ok()).collect();
    (v.len() == 3).then(|| (v[0], v[1], v[2]))
}

fn linear(c: u8) -> f64 {
    let c = c as f64 / 255.0;
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// WCAG 2 contrast ratio.
pub fn contrast(a: Rgb, b: Rgb) -> f64 {
    let l = |(r, g, b): Rgb| 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
    let (la, lb) = (l(a), l(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

/// CIELAB (D65) of an sRGB colour.
fn lab((r, g, b): Rgb) -> (f64, f64, f64) {
    let (r, g, b) = (linear(r), linear(g), linear(b));
    let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
    let y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
    let f = |t: f64| {
        if t > (6.0f64 / 29.0).powi(3) {
            t.cbrt()
        } else {
            t / (3.0 * (6.0f64 / 29.0).powi(2)) + 4.0 / 29.0
        }
    };
    (116.0 * f(y) - 16.0, 500.0 * (f(x) - f(y)), 200.0 * (f(y) - f(z)))
}

/// CIE76 colour difference (an upload orange such as #E6550D is 17.9 from
/// forge's orange and 23.3 from strix's red: too close to tell apart).
pub fn delta_e(a: Rgb, b: Rgb) -> f64 {
    let (a, b) = (lab(a), lab(b));
    ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2) + (a.2 - b.2).powi(2)).sqrt()
}

/// How far the upload's ink must be from every builder colour. The palette's
/// own closest pair (purple and pink) is 27.7 apart and an upload orange
/// 18 and 23 from two builders is hard to see: 40 puts the upload
/// further from every builder than any two builders are from each other.
pub const MIN_UPLOAD_DELTA_E: f64 = 40.0;

/// Every builder colour as the charts draw it: solid (own steps) and light
/// (setup, export) over white.
pub fn builder_colours() -> Vec<Rgb> {
    let light = |c: u8| (LIGHT_ALPHA * c as f64 + (1.0 - LIGHT_ALPHA) * 255.0).round() as u8;
    PALETTE
        .iter()
        .flat_map(|&(r, g, b)| [(r, g, b), (light(r), light(g), light(b))])
        .collect()
}

fn charts_of(stamp: &str) -> (tempfile::TempDir, Vec<(&'static str, String)>) {
    charts_at(&sample(stamp))
}

#[derive(Debug, Clone, Copy)]
struct Box2 {
    x0: f64,
    y0: f64,
    x1: f64,
    y1: f64,
}

impl Box2 {
    fn overlaps(&self, o: &Box2) -> bool {
        self.x0 < o.x1 && o.x0 < self.x1 && self.y0 < o.y1 && o.y0 < self.y1
    }
    fn contains(&self, (x, y): (f64, f64)) -> bool {
        (self.x0..=self.x1).contains(&x) && (self.y0..=self.y1).contains(&y)
    }
}

fn rect_box(e: &El) -> Box2 {
    let (x, y) = (e.num("x"), e.num("y"));
    Box2 {
        x0: x,
        y0: y,
        x1: x + e.num("width"),
        y1: y + e.num("height"),
    }
}

/// Each plot's area: the span of its vertical grid lines (plotters draws them
/// from the plot's bottom to its top), one plot per distinct vertical extent.
fn plot_areas(els: &[El]) -> Vec<Box2> {
    let mut areas: Vec<Box2> = vec![];
    for e in els.iter().filter(|e| e.tag == "line" && e.num("x1") == e.num("x2")) {
        let (y0, y1) = (e.num("y1").min(e.num("y2")), e.num("y1").max(e.num("y2")));
        let x = e.num("x1");
        match areas.iter_mut().find(|a| a.y0 == y0 && a.y1 == y1) {
            Some(a) => {
                a.x0 = a.x0.min(x);
                a.x1 = a.x1.max(x);
            }
            None => areas.push(Box2 { x0: x, y0, x1: x, y1 }),
        }
    }
    // Ticks and axis lines are short; a plot spans more than a few pixels.
    areas.retain(|a| a.y1 - a.y0 > 20.0 && a.x1 - a.x0 > 20.0);
    areas
}

/// A bug this pins: the CPU/memory legend sat over the newest minutes (65
/// points of the in-flight sample, 12 of the cold one), and every chart's
/// legend was drawn inside its plot. Each legend box must lie outside every
/// plot area, and no data point may fall inside it.
#[test]
fn chart_legends_lie_outside_the_plot_and_hide_no_data_point() {
    let mut failures = vec![];
    for stamp in [COLD, WARM] {
        let (_out, charts) = charts_of(stamp);
        for (name, svg) in &charts {
            let els = elements(svg);
            let legends: Vec<Box2> = els
                .iter()
                .filter(|e| e.tag == "rect" && e.attr("stroke").is_some_and(|s| s.eq_ignore_ascii_case("#B4B4B4")))
                .map(rect_box)
                .collect();
            let plots = plot_areas(&els);
            assert!(!legends.is_empty(), "{stamp} {name}: no legend found");
            assert!(!plots.is_empty(), "{stamp} {name}: no plot found");
            let points: Vec<(f64, f64)> = els
                .iter()
                .filter(|e| e.tag == "polyline" && e.attr("stroke-width") == Some("2"))
                .flat_map(|e| {
                    e.attr("points")
                        .unwrap_or("")
                        .split_whitespace()
                        .filter_map(|p| p.split_once(','))
                        .map(|(x, y)| (x.parse().unwrap_or(f64::NAN), y.parse().unwrap_or(f64::NAN)))
                        .collect::<Vec<_>>()
                })
                .collect();
            assert!(
                !points.is_empty() || *name == "charts/timeline.svg",
                "{stamp} {name}: no series found"
            );
            for l in &legends {
                let under = points.iter().filter(|p| l.contains(**p)).count();
                if under > 0 {
                    failures.push(format!("{stamp} {name}: {under} data points under the legend {l:?}"));
                }
                for p in plots.iter().filter(|p| p.overlaps(l)) {
                    failures.push(format!("{stamp} {name}: the legend {l:?} lies in the plot {p:?}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// The hatch pattern's id and its two fills, (paper, ink): the ink is the
/// narrower stripe.
pub fn hatch_of(svg: &str) -> Option<(String, Rgb, Rgb)> {
    let start = svg.find("<pattern")?;
    let end = start + svg[start..].find("</pattern>")?;
    let els = elements(&svg[start..end]);
    let pattern = els.first()?;
    let id = pattern.attr("id")?.to_string();
    assert!(
        pattern.attr("patternTransform").is_some_and(|t| t.contains("rotate")),
        "the hatch is diagonal"
    );
    let mut rects: Vec<&El> = els.iter().filter(|e| e.tag == "rect").collect();
    rects.sort_by(|a, b| b.num("width").total_cmp(&a.num("width")));
    let [paper, ink] = rects[..] else { return None };
    Some((id, parse_colour(paper.attr("fill")?)?, parse_colour(ink.attr("fill")?)?))
}

/// A bug this pins: an upload orange (#E6550D) ΔE 18 from forge's and 23
/// from strix's colour. Uploads are hatched, every upload interval is drawn
/// with the hatch, and its ink is far from every builder colour.
#[test]
fn timeline_uploads_are_hatched_far_from_every_builder_colour() {
    for stamp in [COLD, WARM] {
        let (out, charts) = charts_of(stamp);
        let svg = &charts.iter().find(|(n, _)| *n == "charts/timeline.svg").unwrap().1;
        let Some((id, paper, ink)) = hatch_of(svg) else {
            panic!("{stamp}: no hatch <pattern> in the timeline")
        };
        assert!(
            contrast(paper, ink) >= 3.0,
            "the hatch's stripes show: {paper:?} {ink:?}"
        );
        for c in builder_colours() {
            let d = delta_e(ink, c);
            assert!(
                d >= MIN_UPLOAD_DELTA_E,
                "{stamp}: upload ink {ink:?} is ΔE {d:.1} from builder colour {c:?}"
            );
        }
        let uploads: usize = data(out.path())["targets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["uploads"].as_array().map_or(0, |u| u.len()))
            .sum();
        assert!(uploads > 0, "{stamp}: the sample has uploads");
        let hatched = elements(svg)
            .iter()
            .filter(|e| e.tag == "rect" && e.attr("fill") == Some(&format!("url(#{id})")))
            .count();
        // Every upload, and the legend's swatch.
        assert_eq!(hatched, uploads + 1, "{stamp}: hatched rectangles");
    }
}

/// The colour under a point: every filled rectangle painted before element
/// `before` that covers it, composited over white in paint order.
fn ground(els: &[El], before: usize, p: (f64, f64)) -> Result<Rgb, String> {
    let mut c = (255.0, 255.0, 255.0);
    for e in els[..before]
        .iter()
        .filter(|e| e.tag == "rect" && rect_box(e).contains(p))
    {
        let fill = e.attr("fill").unwrap_or("none");
        if fill == "none" {
            continue;
        }
        let Some((r, g, b)) = parse_colour(fill) else {
            return Err(format!("over {fill}"));
        };
        let a = e.attr("opacity").and_then(|o| o.parse().ok()).unwrap_or(1.0);
        let mix = |under: f64, over: u8| a * over as f64 + (1.0 - a) * under;
        c = (mix(c.0, r), mix(c.1, g), mix(c.2, b));
    }
    Ok((c.0.round() as u8, c.1.round() as u8, c.2.round() as u8))
}

/// A bug this pins: black names on #1F77B4 (4.4:1) and #D62728 (4.2:1)
/// bars. Every bar's name, sampled across the room it takes, lies on one
/// fill and reads on it at WCAG AA's 4.5:1 or better.
#[test]
fn timeline_bar_labels_read_at_4_5_to_1_on_the_fill_under_them() {
    let mut failures = vec![];
    for stamp in [COLD, WARM] {
        let (out, charts) = charts_of(stamp);
        let svg = &charts.iter().find(|(n, _)| *n == "charts/timeline.svg").unwrap().1;
        let d = data(out.path());
        let names: Vec<&str> = d["targets"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| !t["start_s"].is_null())
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        let els = elements(svg);
        let mut labelled = vec![];
        for (i, e) in els.iter().enumerate().filter(|(_, e)| e.tag == "text") {
            let whole = names.contains(&e.text.as_str());
            let cut = e
                .text
                .strip_suffix('…')
                .is_some_and(|p| !p.is_empty() && names.iter().any(|n| n.starts_with(p)));
            if !whole && !cut {
                continue;
            }
            labelled.push(e.text.clone());
            let ink = parse_colour(e.attr("fill").unwrap()).unwrap();
            let size = e.num("font-size");
            // Wider than a sans-serif's average letter (about half an em).
            let width = 0.55 * size * e.text.chars().count() as f64;
            let (x, y) = (e.num("x"), e.num("y"));
            let mut seen = std::collections::BTreeSet::new();
            for dy in [-0.35 * size, 0.0, 0.35 * size] {
                let mut dx = 0.0;
                while dx <= width {
                    match ground(&els, i, (x + dx, y + dy)) {
                        Ok(g) => {
                            seen.insert(g);
                        }
                        Err(why) => failures.push(format!("{stamp} {:?} lies {why}", e.text)),
                    }
                    dx += 2.0;
                }
            }
            if seen.len() != 1 {
                failures.push(format!("{stamp} {:?} lies on {} fills: {seen:?}", e.text, seen.len()));
            }
            for g in seen {
                let c = contrast(ink, g);
                if c < 4.5 {
                    failures.push(format!("{stamp} {:?}: {ink:?} on {g:?} is {c:.2}:1", e.text));
                }
            }
        }
        assert_eq!(labelled.len(), names.len(), "{stamp}: a name per bar: {labelled:?}");
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// The charts of a run directory, as report writes them.
fn charts_at(run: &std::path::Path) -> (tempfile::TempDir, Vec<(&'static str, String)>) {
    let out = tempfile::tempdir().unwrap();
    let o = report(run, out.path(), &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let charts = perfreport::render::charts::ALL
        .iter()
        .map(|(name, _)| (*name, std::fs::read_to_string(out.path().join(name)).unwrap()))
        .collect();
    (out, charts)
}

/// The time axis's tick labels of a chart: value -> x (the labels centred
/// under a plot whose text is a number).
fn time_ticks(svg: &str) -> std::collections::BTreeMap<String, Vec<f64>> {
    let mut out: std::collections::BTreeMap<String, Vec<f64>> = Default::default();
    for e in elements(svg)
        .iter()
        .filter(|e| e.tag == "text" && e.attr("text-anchor") == Some("middle"))
    {
        if e.text.parse::<f64>().is_ok() {
            out.entry(e.text.clone()).or_default().push(e.num("x"));
        }
    }
    out
}

/// report.md's charts one under the other: their time axes started at
/// different x offsets (60, 162 and 58 px), so a minute on one was not the
/// same minute on the next. Every chart draws the same time ticks at the
/// same x, on the samples and on an 8-node, 24-target run.
#[test]
fn report_charts_share_one_time_axis_origin_and_range() {
    let wide = wide_run(8, 24);
    let runs = [sample(COLD), sample(WARM), wide.path().to_path_buf()];
    for run in &runs {
        let (_out, charts) = charts_at(run);
        let ticks: Vec<(&str, std::collections::BTreeMap<String, Vec<f64>>)> =
            charts.iter().map(|(name, svg)| (*name, time_ticks(svg))).collect();
        let (first, reference) = &ticks[0];
        assert!(reference.len() >= 3, "{run:?} {first}: time ticks {reference:?}");
        assert!(
            reference.contains_key("0"),
            "{run:?} {first}: no tick at the run's start"
        );
        for (name, t) in &ticks[1..] {
            assert_eq!(
                t.keys().collect::<Vec<_>>(),
                reference.keys().collect::<Vec<_>>(),
                "{run:?}: {name} and {first} tick different times"
            );
            for (value, xs) in t {
                for x in xs {
                    let want = reference[value][0];
                    assert!(
                        (x - want).abs() < 0.5,
                        "{run:?}: {name} draws minute {value} at x={x}, {first} at x={want}"
                    );
                }
            }
        }
    }
}

/// At fleet width (8 nodes, 24 targets) CPU and memory were ten-odd lines
/// knotted at 85–97 % on one axis, and the registry lane one line for every
/// node: think's 6.4 GB at 2.8 MB/s was a ripple at 0 beside 100 MB/s image
/// pushes. cpu-mem.svg draws a panel per node, on one 0–100 % scale, each
/// named; cache-lanes.svg a panel for every client together and one per
/// node in each lane, and think's panel tops out near its own rate.
#[test]
fn an_eight_node_run_draws_a_panel_per_node_for_cpu_memory_and_each_lane() {
    let wide = wide_run(8, 24);
    let (out, charts) = charts_at(wide.path());
    let d = data(out.path());
    let names: Vec<&str> = d["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 8);
    let svg = |name: &str| &charts.iter().find(|(n, _)| *n == name).unwrap().1;
    let cpu = elements(svg("charts/cpu-mem.svg"));
    assert_eq!(plot_areas(&cpu).len(), 8, "a panel per node");
    for n in &names {
        assert!(
            cpu.iter().any(|e| e.tag == "text" && e.text == *n),
            "{n} names its panel"
        );
    }
    let percent_tops = cpu.iter().filter(|e| e.tag == "text" && e.text == "100%").count();
    assert_eq!(percent_tops, 8, "every panel on the same 0–100 % scale");
    let lanes = elements(svg("charts/cache-lanes.svg"));
    assert_eq!(
        plot_areas(&lanes).len(),
        2 * (1 + 8),
        "all clients, then each node, in both lanes"
    );
    for n in &names {
        let named = lanes.iter().filter(|e| e.tag == "text" && e.text == *n).count();
        assert_eq!(named, 2, "{n} has a panel in each lane");
    }
    // think's own registry lane: its layer-cache upload near its link's 2.8 MB/s.
    let think = d["zot"]["by_node"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["node"] == "think")
        .unwrap();
    let bucket = d["zot"]["bucket_s"].as_f64().unwrap();
    let peak = think["cache_bytes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_f64().unwrap() / bucket / 1e6)
        .fold(0.0, f64::max);
    assert!((2.0..6.0).contains(&peak), "think uploads at its own pace: {peak} MB/s");
    let total: u64 = d["zot"]["series"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["cache_bytes"].as_u64().unwrap())
        .sum();
    let by_node: u64 = d["zot"]["by_node"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|n| n["cache_bytes"].as_array().unwrap().iter().map(|b| b.as_u64().unwrap()))
        .sum();
    assert_eq!(by_node, total, "every layer-cache byte of this run came from a node");
}

/// At fleet width some bars are too short for any readable part of their
/// name ("r…"): each target on the timeline is named in full, cut to a
/// readable prefix, or numbered on its bar with the number keyed in the
/// legend ("1 = rccl-tests"), never left nameless.
#[test]
fn every_target_on_a_fleet_timeline_is_named_or_numbered_and_keyed() {
    let wide = wide_run(8, 24);
    let (out, charts) = charts_at(wide.path());
    let d = data(out.path());
    let timeline = &charts.iter().find(|(n, _)| *n == "charts/timeline.svg").unwrap().1;
    let texts: Vec<String> = elements(timeline)
        .into_iter()
        .filter(|e| e.tag == "text")
        .map(|e| e.text)
        .collect();
    let keys: Vec<(String, String)> = texts
        .iter()
        .filter_map(|t| t.split_once(" = "))
        .map(|(n, name)| (n.to_string(), name.to_string()))
        .collect();
    assert!(
        !keys.is_empty(),
        "the generated fleet has bars too short to name: {texts:?}"
    );
    for t in d["targets"].as_array().unwrap() {
        let name = t["name"].as_str().unwrap();
        let whole = texts.iter().any(|s| s == name);
        let cut = texts.iter().any(|s| {
            s.strip_suffix('…')
                .is_some_and(|p| p.chars().count() >= 5 && name.starts_with(p))
        });
        let numbered = keys
            .iter()
            .any(|(n, keyed)| keyed == name && texts.iter().filter(|s| *s == n).count() == 1);
        assert!(
            whole || cut || numbered,
            "{name} is neither written nor numbered and keyed: {texts:?}"
        );
        assert!(!(numbered && whole), "{name} is both written and keyed");
    }
}

/// No legend label runs past its box as rsvg-convert draws it: plotters
/// lays a legend out by its own estimate of each label's width, and
/// "memory used" in the CPU/memory chart touched and passed the border in
/// rsvg-convert (DejaVu Sans runs wider than the estimate). Every chart of
/// both sample runs and of their history is drawn and read back by
/// tests/tools/svg/legend_fit.py.
#[test]
fn no_legend_label_runs_past_its_box_in_rsvg_convert() {
    let Some(_) = crate::outside_tool(std::path::PathBuf::from("/usr/bin/rsvg-convert"), "librsvg2-bin") else {
        return;
    };
    let runs = tempfile::tempdir().unwrap();
    let mut charts = vec![];
    let mut keep = vec![];
    for stamp in [COLD, WARM] {
        let dst = runs.path().join(stamp);
        std::fs::create_dir(&dst).unwrap();
        crate::copy_run(&sample(stamp), &dst);
        let out = tempfile::tempdir().unwrap();
        let o = report(&sample(stamp), out.path(), &[]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        charts.extend(crate::walk(out.path()));
        keep.push(out);
    }
    let history = tempfile::tempdir().unwrap();
    let o = crate::perfreport(&[
        "history",
        runs.path().to_str().unwrap(),
        "--out",
        history.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    charts.extend(crate::walk(history.path()));
    charts.retain(|p| p.extension().is_some_and(|e| e == "svg"));
    let script = crate::root().join("tests/tools/svg/legend_fit.py");
    let (mut boxes, mut failures) = (0, vec![]);
    for chart in &charts {
        let o = std::process::Command::new("python3")
            .arg(&script)
            .arg(chart)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{}: {}",
            chart.display(),
            String::from_utf8_lossy(&o.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        boxes += v["boxes"].as_u64().unwrap();
        for past in v["past"].as_array().unwrap() {
            failures.push(format!("{}: {past}", chart.display()));
        }
    }
    assert!(boxes >= 4, "legends found: {boxes} in {charts:?}");
    assert!(failures.is_empty(), "labels past their legend's box: {failures:#?}");
}
