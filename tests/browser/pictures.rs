//! Pictures that hide nothing: legends outside the plots, uploads hatched,
//! bar names that read on their bars, a fleet's panels, the critical chain.

use super::*;

/// A bug this pins on the page: the cache lanes' legends were drawn inside
/// their plots, over the first minutes of the series. Every legend inside a
/// chart lies outside the plot area (the drag layer covers exactly that), and
/// no vertex of a series falls inside it.
#[test]
fn page_chart_legends_lie_outside_the_plot_area_and_hide_no_data() {
    let Some(path) = chromium() else { return };
    let browser = launch(path);
    for stamp in [COLD, WARM] {
        let out = tempfile::tempdir().unwrap();
        report(&sample(stamp), out.path(), &[]);
        let (tab, _) = open(&browser, &file_url(&out.path().join("index.html")));
        let js = r#"JSON.stringify([...document.querySelectorAll('#charts svg')].flatMap(svg => {
            const plot = svg.querySelector('.drag-layer').getBBox();
            const pts = [...svg.querySelectorAll('path.series')].flatMap(p =>
                [...p.getAttribute('d').matchAll(/[ML]([-\d.]+) ([-\d.]+)/g)].map(m => [+m[1], +m[2]]));
            return [...svg.querySelectorAll('[class*="legend"]')].map(l => {
                const b = l.getBBox();
                const overlaps = b.x < plot.x + plot.width && plot.x < b.x + b.width && b.y < plot.y + plot.height && plot.y < b.y + b.height;
                const under = pts.filter(([x, y]) => x >= b.x && x <= b.x + b.width && y >= b.y && y <= b.y + b.height).length;
                return { chart: svg.id, legend: [b.x, b.y, b.width, b.height], plot: [plot.x, plot.y, plot.width, plot.height], overlaps, under, series: pts.length };
            });
        }))"#;
        let found: Vec<Value> = serde_json::from_str(eval(&tab, js).as_str().unwrap()).unwrap();
        assert!(
            found.iter().any(|l| l["series"].as_u64() > Some(0)),
            "{stamp}: no legend beside a drawn series: {found:?}"
        );
        let bad: Vec<&Value> = found
            .iter()
            .filter(|l| l["overlaps"] == Value::Bool(true) || l["under"].as_u64() != Some(0))
            .collect();
        assert!(bad.is_empty(), "{stamp}: legends in the plot: {bad:#?}");
    }
}

/// A bug this pins on the page: uploads were filled with #e6550d, close
/// to forge's and strix's colours, and bar names were the page's text colour
/// over the bars (3.5:1 on #1f77b4). Uploads are hatched with an ink far from
/// every builder colour; each name reads at 4.5:1 on its bar and on its halo,
/// in light and dark mode.
#[test]
fn page_uploads_are_hatched_and_bar_names_read_on_their_bars() {
    use crate::pictures::{builder_colours, contrast, delta_e, parse_colour, MIN_UPLOAD_DELTA_E};
    let Some(path) = chromium() else { return };
    let out = tempfile::tempdir().unwrap();
    report(&sample(COLD), out.path(), &[]);
    let browser = launch(path);
    let (tab, _) = open(&browser, &file_url(&out.path().join("index.html")));
    for scheme in ["light", "dark"] {
        colour_scheme(&tab, scheme);
        let js = r#"JSON.stringify((() => {
            const svg = document.getElementById('chart-timeline');
            const uploads = [...svg.querySelectorAll('rect.band[data-phase="upload"]')].map(r => {
                const m = /^url\(["']?#([^"')]+)["']?\)$/.exec(getComputedStyle(r).fill) || /^url\(#(.+)\)$/.exec(r.getAttribute('fill') || '');
                const p = m && svg.querySelector('pattern#' + CSS.escape(m[1]));
                const fills = p ? [...p.querySelectorAll('rect')].map(x => [+x.getAttribute('width'), getComputedStyle(x).fill]) : [];
                return { fill: r.getAttribute('fill'), pattern: !!p, diagonal: !!p && /rotate/.test(p.getAttribute('patternTransform') || ''), fills };
            });
            const labels = [...svg.querySelectorAll('.bar-label')].map(t => {
                const name = t.getAttribute('data-target');
                const own = [...svg.querySelectorAll('rect.band[data-phase="build"]')].find(b => b.getAttribute('data-target') === name);
                const s = getComputedStyle(t);
                return { name, fill: s.fill, halo: s.stroke, bar: own ? getComputedStyle(own).fill : null };
            });
            return { uploads, labels };
        })())"#;
        let v: Value = serde_json::from_str(eval(&tab, js).as_str().unwrap()).unwrap();
        let uploads = v["uploads"].as_array().unwrap();
        assert!(!uploads.is_empty(), "the cold sample's uploads are drawn");
        for u in uploads {
            assert!(
                u["pattern"] == Value::Bool(true) && u["diagonal"] == Value::Bool(true),
                "{scheme}: an upload not hatched: {u}"
            );
            let mut fills: Vec<(f64, &str)> = u["fills"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| (f[0].as_f64().unwrap(), f[1].as_str().unwrap()))
                .collect();
            fills.sort_by(|a, b| a.0.total_cmp(&b.0));
            let ink = parse_colour(fills[0].1).unwrap();
            for c in builder_colours() {
                let d = delta_e(ink, c);
                assert!(
                    d >= MIN_UPLOAD_DELTA_E,
                    "{scheme}: upload ink {ink:?} is ΔE {d:.1} from {c:?}"
                );
            }
        }
        let labels = v["labels"].as_array().unwrap();
        assert_eq!(labels.len(), 10, "a name per bar: {labels:?}");
        for l in labels {
            let colour = |k: &str| parse_colour(l[k].as_str().unwrap_or("")).unwrap_or_else(|| panic!("{k} of {l}"));
            let (fill, halo, bar) = (colour("fill"), colour("halo"), colour("bar"));
            assert!(
                contrast(fill, bar) >= 4.5,
                "{scheme}: {l}: {:.2}:1 on its bar",
                contrast(fill, bar)
            );
            assert!(
                contrast(fill, halo) >= 4.5,
                "{scheme}: {l}: {:.2}:1 on its halo",
                contrast(fill, halo)
            );
        }
    }
}

/// The run page at fleet width (8 nodes, 24 targets): CPU and memory a panel
/// per node, each lane every client together then a panel per node, and no
/// label of those charts (a target on its bar, a node's name, a tick, a lane's legend) drawn over
/// another. Hiding a builder removes its panels.
#[test]
fn page_at_fleet_width_draws_a_panel_per_node_and_no_label_over_another() {
    let Some(path) = chromium() else { return };
    let run = crate::wide_run(8, 24);
    let out = tempfile::tempdir().unwrap();
    report(run.path(), out.path(), &[]);
    let browser = launch(path);
    let (tab, seen) = open(&browser, &file_url(&out.path().join("index.html")));
    assert_eq!(count(&tab, "#chart-cpu g.panel"), 8, "a CPU panel per node");
    assert_eq!(count(&tab, "#chart-sccache g.panel"), 9, "all clients, then each node");
    assert_eq!(count(&tab, "#chart-zot g.panel"), 9, "all clients, then each node");
    let overlaps = r#"JSON.stringify(['chart-timeline', 'chart-cpu', 'chart-sccache', 'chart-zot'].flatMap(id => {
        const texts = [...document.getElementById(id).querySelectorAll('text')]
            .filter(t => t.textContent.trim() && t.getAttribute('visibility') !== 'hidden')
            .map(t => ({ s: t.textContent, b: t.getBoundingClientRect() }));
        const out = [];
        texts.forEach((a, i) => texts.slice(i + 1).forEach(c => {
            const x = Math.min(a.b.right, c.b.right) - Math.max(a.b.left, c.b.left);
            const y = Math.min(a.b.bottom, c.b.bottom) - Math.max(a.b.top, c.b.top);
            if (x > 0.5 && y > 0.5) out.push(id + ': "' + a.s + '" over "' + c.s + '"');
        }));
        return out;
    }))"#;
    let found: Vec<String> = serde_json::from_str(eval(&tab, overlaps).as_str().unwrap()).unwrap();
    assert!(found.is_empty(), "labels drawn over each other: {found:#?}");
    click(&tab, "[data-legend-node=\"think\"]");
    assert_eq!(count(&tab, "#chart-cpu g.panel"), 7, "think's CPU panel hidden");
    assert_eq!(
        count(&tab, "#chart-zot g.panel[data-panel=\"think\"]"),
        0,
        "think's lane hidden"
    );
    screenshot(&tab, "fleet-width");
    no_errors(&seen);
}

/// The chain on the page: the after= arrow from pytorch to triton-wheel is
/// drawn thick (the critical path), wifi's wait is a band of its own, two
/// targets on one node wear different colours in the legend, and the
/// placement section says whether the balancer's prices or packing were off.
#[test]
fn page_draws_the_chain_the_wait_and_a_colour_per_target() {
    let Some(path) = chromium() else { return };
    let run = tempfile::tempdir().unwrap();
    crate::critical::chain_run(run.path());
    let out = tempfile::tempdir().unwrap();
    assert!(report(run.path(), out.path(), &[]).status.success());
    let browser = launch(path);
    let (tab, _seen) = open(&browser, &file_url(&out.path().join("index.html")));
    let edges = eval(
        &tab,
        "Array.from(document.querySelectorAll('#chart-timeline line.edge')).map(e => e.getAttribute('data-edge') + (e.classList.contains('critical') ? ' critical' : '')).join('|')",
    );
    assert_eq!(edges.as_str(), Some("pytorch→triton-wheel critical"));
    let waits = eval(
        &tab,
        "document.querySelectorAll('#chart-timeline rect.phase-waiting[data-target=\"triton-wheel\"]').length",
    );
    assert_eq!(waits.as_u64(), Some(1));
    let swatch = |t: &str| {
        eval(
            &tab,
            &format!("getComputedStyle(Array.from(document.querySelectorAll('[data-legend-target]')).find(b => b.getAttribute('data-legend-target') === '{t}').querySelector('.swatch')).backgroundColor"),
        )
    };
    assert_ne!(swatch("pytorch"), swatch("rccl-tests"), "two targets on strix");
    let verdict = eval(&tab, "document.getElementById('placement-verdict').textContent");
    assert!(verdict.as_str().unwrap().starts_with("The balancer"), "{verdict}");
}

/// Targets took their builder's colour, so two targets on one node shared
/// a legend chip and the target filter could not be read by colour: at
/// fleet width every two targets of a builder have chips of visibly
/// different colours (ΔE76 ≥ 10), in light and dark mode.
#[test]
fn page_targets_of_one_builder_have_distinct_legend_colours() {
    use crate::pictures::{delta_e, parse_colour};
    let Some(path) = chromium() else { return };
    let run = crate::wide_run(8, 24);
    let out = tempfile::tempdir().unwrap();
    report(run.path(), out.path(), &[]);
    let d: Value = serde_json::from_str(&std::fs::read_to_string(out.path().join("data.json")).unwrap()).unwrap();
    let browser = launch(path);
    let (tab, seen) = open(&browser, &file_url(&out.path().join("index.html")));
    for scheme in ["light", "dark"] {
        colour_scheme(&tab, scheme);
        let js = r#"JSON.stringify([...document.querySelectorAll('[data-legend-target]')].map(b =>
            [b.getAttribute('data-legend-target'), getComputedStyle(b.querySelector('.swatch')).backgroundColor]))"#;
        let chips: Vec<(String, String)> = serde_json::from_str(eval(&tab, js).as_str().unwrap()).unwrap();
        assert_eq!(chips.len(), 24, "{scheme}: a chip per target");
        let node_of = |name: &str| {
            d["targets"]
                .as_array()
                .unwrap()
                .iter()
                .find(|t| t["name"] == name)
                .and_then(|t| t["node"].as_str())
                .map(str::to_string)
        };
        let mut compared = 0;
        for (i, (a, ca)) in chips.iter().enumerate() {
            for (b, cb) in &chips[i + 1..] {
                if node_of(a) != node_of(b) {
                    continue;
                }
                let e = delta_e(parse_colour(ca).unwrap(), parse_colour(cb).unwrap());
                assert!(
                    e >= 10.0,
                    "{scheme}: {a} and {b} on one builder: ΔE {e:.1} ({ca} vs {cb})"
                );
                compared += 1;
            }
        }
        assert!(
            compared >= 8,
            "{scheme}: builders with several targets were compared ({compared})"
        );
    }
    no_errors(&seen);
}

/// A builder's darkest target shade sat at 1.1:1 on the dark page and its
/// lightest near that on white: some bars could not be seen. Every bar of
/// the timeline is outlined at 3:1 or more against the page, light and dark.
#[test]
fn page_every_timeline_bar_is_outlined_visibly_in_both_schemes() {
    use crate::pictures::{contrast, parse_colour};
    let Some(path) = chromium() else { return };
    let out = tempfile::tempdir().unwrap();
    report(&sample(COLD), out.path(), &[]);
    let browser = launch(path);
    let (tab, seen) = open(&browser, &file_url(&out.path().join("index.html")));
    for scheme in ["light", "dark"] {
        colour_scheme(&tab, scheme);
        let js = r#"JSON.stringify({
            ground: getComputedStyle(document.body).backgroundColor,
            bars: [...document.querySelectorAll('#chart-timeline rect.band')]
                .filter(r => ['build', 'setup', 'export', 'record'].includes(r.getAttribute('data-phase')))
                .map(r => { const s = getComputedStyle(r); return [r.getAttribute('data-target'), s.stroke, +s.strokeOpacity, parseFloat(s.strokeWidth)]; })
        })"#;
        let v: Value = serde_json::from_str(eval(&tab, js).as_str().unwrap()).unwrap();
        let ground = parse_colour(v["ground"].as_str().unwrap()).unwrap();
        let bars = v["bars"].as_array().unwrap();
        assert!(bars.len() >= 30, "{scheme}: the cold sample's bars: {}", bars.len());
        for b in bars {
            let stroke = parse_colour(b[1].as_str().unwrap_or("none"))
                .unwrap_or_else(|| panic!("{scheme}: a bar without an outline: {b}"));
            let alpha = b[2].as_f64().unwrap();
            let mix = |s: u8, g: u8| (s as f64 * alpha + g as f64 * (1.0 - alpha)).round() as u8;
            let seen_as = (
                mix(stroke.0, ground.0),
                mix(stroke.1, ground.1),
                mix(stroke.2, ground.2),
            );
            let c = contrast(seen_as, ground);
            assert!(
                c >= 3.0 && b[3].as_f64() > Some(0.0),
                "{scheme}: {b} outlined at {c:.2}:1"
            );
        }
    }
    no_errors(&seen);
}
