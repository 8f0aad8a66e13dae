//! Renderers: one module per output format behind one trait, `Export`. They
//! read a view model and nothing else. The formats of a run's view: `json`
//! (data.json), `markdown` (report.md), `charts` (the SVGs), `html` (the page,
//! which embeds those three): the report's set, `render_all`; and on their
//! own, `metrics` (Prometheus text) and `perfetto` (trace-event JSON).
//! The views across runs take the same path: `markdown` writes compare's
//! report too, `text` what check, gate and history print, `junit` and
//! `job_summary` the night's verdicts for CI, `json` what every `--json`
//! prints; `history` holds history's files.

pub mod charts;
pub(crate) mod filters;
pub mod history;
pub(crate) mod html;
pub mod job_summary;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod metrics;
pub(crate) mod night;
pub mod perfetto;
pub mod placement;
pub mod ratios;
pub(crate) mod site;
pub mod text;

use crate::error::Result;
use crate::output::OutFile;
use crate::view::View;

/// One output format of a view: the report's [`View`] by default; compare's,
/// the gate's, check's and history's views go the same way.
pub trait Export<V: ?Sized = View> {
    fn render(&self, view: &V) -> Result<Vec<OutFile>>;
}

/// What `format` renders of `view`, as one text: what a command prints.
pub fn printed<V: ?Sized>(format: &impl Export<V>, view: &V) -> Result<String> {
    let files = format.render(view)?;
    Ok(files.iter().map(|f| String::from_utf8_lossy(&f.bytes)).collect())
}

/// The colours of nodes, shared by every chart and the page (Tableau 10:
/// distinguishable, and readable on light and dark backgrounds).
pub const PALETTE: [(u8, u8, u8); 10] = [
    (31, 119, 180),
    (255, 127, 14),
    (44, 160, 44),
    (214, 39, 40),
    (148, 103, 189),
    (140, 86, 75),
    (227, 119, 194),
    (127, 127, 127),
    (188, 189, 34),
    (23, 190, 207),
];

/// The cache lanes' series colours, by series name: the compiler cache's
/// hits, misses and writes, the registry's layer cache and images.
pub(crate) const LANE_COLOURS: [(&str, (u8, u8, u8)); 5] = [
    ("hits", (44, 160, 44)),
    ("misses", (214, 39, 40)),
    ("writes", (31, 119, 180)),
    ("layer cache", (148, 103, 189)),
    ("images", (127, 127, 127)),
];

pub(crate) fn colour(i: usize) -> (u8, u8, u8) {
    PALETTE[i % PALETTE.len()]
}

/// How each target on a node shades its builder's colour, in timeline
/// order: the first takes it as it is, the next ones darker or lighter
/// (a mix toward black when negative, toward white when positive), so two
/// targets on one node are told apart on the timeline and in the legend.
pub(crate) const SHADES: [f64; 4] = [0.0, -0.45, 0.45, -0.7];

/// The colour of the `shade`-th target on a node of colour `node`.
pub(crate) fn target_colour(node: usize, shade: usize) -> (u8, u8, u8) {
    let (r, g, b) = colour(node);
    let f = SHADES[shade % SHADES.len()];
    let mix = |c: u8| {
        let c = c as f64;
        (if f < 0.0 { c * (1.0 + f) } else { c + (255.0 - c) * f }).round() as u8
    };
    (mix(r), mix(g), mix(b))
}

/// The colour waiting for a dependency is drawn in: no builder's (grey
/// outline on a pale ground), so it reads as time not spent building.
pub(crate) const WAITING: (u8, u8, u8) = (120, 120, 120);

/// How much of a builder's colour the light bands (setup, export, a record
/// without steps) keep over the white ground.
pub const LIGHT_ALPHA: f64 = 0.35;

/// Uploads are hatched: dark ink stripes on paper, outlined in ink. A hatch is
/// told from a bar by its texture whatever the builder's colour, and black is
/// at least ΔE76 49 from every colour of the palette (an orange such as
/// #E6550D is 18 from one builder and 23 from another).
pub(crate) const UPLOAD_INK: (u8, u8, u8) = (0, 0, 0);
pub(crate) const UPLOAD_PAPER: (u8, u8, u8) = (255, 255, 255);
/// The hatch's period and stripe width in pixels, stripes at 45°.
pub(crate) const HATCH_PERIOD: u32 = 6;
pub(crate) const HATCH_STRIPE: u32 = 3;
/// The id of the hatch's `<pattern>` in the timeline's SVG.
pub(crate) const HATCH_ID: &str = "upload-hatch";

/// `#rrggbb`, as CSS and SVG take it.
pub(crate) fn hex((r, g, b): (u8, u8, u8)) -> String {
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// A colour at `alpha` over white, as it shows on the charts' ground.
pub(crate) fn over_white((r, g, b): (u8, u8, u8), alpha: f64) -> (u8, u8, u8) {
    let mix = |c: u8| (alpha * c as f64 + (1.0 - alpha) * 255.0).round() as u8;
    (mix(r), mix(g), mix(b))
}

/// WCAG 2 relative luminance of an sRGB colour.
pub(crate) fn relative_luminance((r, g, b): (u8, u8, u8)) -> f64 {
    let lin = |c: u8| {
        let c = c as f64 / 255.0;
        if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)
}

/// WCAG 2 contrast ratio, 1 to 21.
pub(crate) fn contrast(a: (u8, u8, u8), b: (u8, u8, u8)) -> f64 {
    let (la, lb) = (relative_luminance(a), relative_luminance(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

/// Black or white, whichever reads better on `ground`. On every colour of the
/// palette, and every lighter one, that is at least 4.5:1 (WCAG AA).
pub(crate) fn label_colour(ground: (u8, u8, u8)) -> (u8, u8, u8) {
    let (black, white) = ((0, 0, 0), (255, 255, 255));
    if contrast(black, ground) >= contrast(white, ground) {
        black
    } else {
        white
    }
}

/// The page's colours, from the same constants as the charts, so they are
/// defined once: embedded in `index.html` as JSON for `page.js`.
pub(crate) fn page_style() -> serde_json::Value {
    let label: Vec<String> = PALETTE.iter().map(|c| hex(label_colour(*c))).collect();
    serde_json::json!({
        "palette": PALETTE.iter().map(|c| hex(*c)).collect::<Vec<_>>(),
        "label": label,
        "targets": (0..PALETTE.len())
            .map(|n| (0..SHADES.len()).map(|s| hex(target_colour(n, s))).collect::<Vec<_>>())
            .collect::<Vec<_>>(),
        "target_labels": (0..PALETTE.len())
            .map(|n| (0..SHADES.len()).map(|s| hex(label_colour(target_colour(n, s)))).collect::<Vec<_>>())
            .collect::<Vec<_>>(),
        "waiting": hex(WAITING),
        "light_alpha": LIGHT_ALPHA,
        "lanes": LANE_COLOURS.iter().map(|(n, c)| (n.to_string(), serde_json::Value::from(hex(*c)))).collect::<serde_json::Map<_, _>>(),
        "upload": {
            "ink": hex(UPLOAD_INK),
            "paper": hex(UPLOAD_PAPER),
            "period": HATCH_PERIOD,
            "stripe": HATCH_STRIPE,
        },
    })
}

/// Everything a report consists of: data.json, charts, report.md, index.html.
pub(crate) fn render_all(view: &View) -> Result<Vec<OutFile>> {
    render_all_for(view, None)
}

/// As `render_all`; `site_root` is set for a run page of a published site.
pub(crate) fn render_all_for(view: &View, site_root: Option<&str>) -> Result<Vec<OutFile>> {
    // The page embeds the other three; those are independent of each other.
    let (charts, (markdown, json)) = rayon::join(
        || charts::Charts.render(view),
        || rayon::join(|| markdown::Markdown.render(view), || json::Json.render(view)),
    );
    let (charts, markdown, json) = (charts?, markdown?, json?);
    let html = html::Html {
        charts: &charts,
        markdown: &markdown,
        json: &json,
        site_root,
    }
    .render(view)?;
    Ok([json, markdown, charts, html].concat())
}
