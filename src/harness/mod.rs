//! The serial benchmark harness's outputs (not perfreport's own speed, which
//! is `benches/`): `bench.jsonl` rows pooled into cache ratios,
//! and the figures `bench.sh` scrapes from a BuildKit plain-progress log.

pub mod buildlog;
pub(crate) mod ratios;
pub(crate) mod rows;
pub(crate) mod view;

use crate::error::{Error, Result};
use crate::input::lines::{self, Tail};
use crate::input::InputReport;
use std::collections::BTreeMap;
use std::path::Path;
use view::{RatiosProvenance, RatiosView};

/// Core counts by builder and node name, from a run.json-style `nodes` list.
pub(crate) fn fleet_cores(path: &Path) -> Result<BTreeMap<String, u32>> {
    let text =
        crate::input::read_named(path, crate::input::ReadLinks::Follow, 16 << 20).map_err(|source| Error::Io {
            path: path.to_path_buf(),
            error: source,
        })?;
    let v: serde_json::Value = serde_json::from_slice(&text).map_err(|e| Error::NotARun {
        path: path.to_path_buf(),
        reason: format!("not a fleet file (JSON with a `nodes` list): {e}"),
    })?;
    let nodes = v.get("nodes").unwrap_or(&v).as_array().cloned().unwrap_or_default();
    let mut out = BTreeMap::new();
    for n in nodes {
        let Some(cores) = n
            .get("cores")
            .and_then(|c| c.as_u64())
            .and_then(|c| u32::try_from(c).ok())
        else {
            continue;
        };
        for k in ["builder", "name"] {
            if let Some(name) = n.get(k).and_then(|x| x.as_str()) {
                out.insert(name.to_string(), cores);
            }
        }
    }
    Ok(out)
}

/// Reads bench.jsonl into the ratios report's view; `render::ratios` renders it.
pub fn ratios_view(bench: &Path, fleet: Option<&Path>) -> Result<RatiosView> {
    let name = bench
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "bench.jsonl".into());
    let cannot = |source: std::io::Error| Error::NotARun {
        path: bench.to_path_buf(),
        reason: format!("cannot read: {source}"),
    };
    // Streamed by lines, so no size bound; a FIFO or device is refused.
    let (mut file, meta) = crate::input::read::open_named(bench, crate::input::ReadLinks::Follow).map_err(cannot)?;
    let parsed = lines::parse_reader(&mut file, Tail::MayBePartial, rows::BenchRows::default).map_err(cannot)?;
    let mtime = crate::model::mtime_of(&meta);
    let input = InputReport::from_parse(
        &name,
        parsed.bytes,
        Some("bench.jsonl: JSON lines".into()),
        &parsed.stats,
    )
    .with_identity(mtime, parsed.xxh3);
    let cores = match fleet {
        Some(f) => fleet_cores(f)?,
        None => BTreeMap::new(),
    };
    let report = ratios::analyse(&parsed.sink.rows, &|b: &str| cores.get(b).copied());
    let mut inputs = BTreeMap::new();
    inputs.insert(name.clone(), crate::measure::identity(&input));
    Ok(RatiosView {
        report,
        input,
        fleet: fleet.map(|f| f.display().to_string()),
        provenance: RatiosProvenance {
            tool: crate::view::Tool::this(),
            inputs,
        },
    })
}
