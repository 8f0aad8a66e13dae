//! The provenance section: what is needed to decide later whether a figure
//! still holds (the tool, each input's identity, the run's coordinates).

use super::{InputIdentity, NodeCoordinate, NodeView, Provenance, RunCoordinates, ServerRead, Tool};
use crate::model::Run;
use std::collections::BTreeMap;

/// Run coordinates run.json leaves out say why.
pub(super) fn build(run: &Run, nodes: &[NodeView]) -> Provenance {
    let info = run.info.as_ref();
    let mut why = BTreeMap::new();
    let mut check = |field: &str, key: &str, missing: bool| {
        if missing {
            let reason = if info.is_none() {
                "no run.json in this run".to_string()
            } else {
                format!("run.json has no `{key}`")
            };
            why.insert(field.to_string(), reason);
        }
    };
    check("mode", "mode", info.and_then(|i| i.mode).is_none());
    check("arch", "arch", info.and_then(|i| i.arch.as_ref()).is_none());
    check("job_width", "max_jobs", info.and_then(|i| i.job_width).is_none());
    check("revision", "revision", info.and_then(|i| i.revision.as_ref()).is_none());
    Provenance {
        tool: Tool::this(),
        inputs: run
            .inputs
            .iter()
            .filter(|i| i.present)
            .map(|i| {
                let id = InputIdentity {
                    bytes: i.bytes,
                    mtime: i.mtime.clone(),
                    xxh3: i.xxh3.clone(),
                    read_as: i.format.clone(),
                    why_null: BTreeMap::new(),
                    source: i.source.as_ref().map(|s| ServerRead {
                        server: s.server.clone(),
                        start: s.start.clone(),
                        end: s.end.clone(),
                        step_s: s.step_s,
                        queries: s.queries.clone(),
                        points: s.points,
                    }),
                };
                (i.name.clone(), id)
            })
            .collect(),
        run: RunCoordinates {
            stamp: run.stamp().to_string(),
            mode: info.and_then(|i| i.mode),
            arch: info.and_then(|i| i.arch.clone()),
            namespace: info.and_then(|i| i.namespace.clone()),
            sccache_prefix: info.and_then(|i| i.sccache_prefix.clone()),
            nodes: nodes
                .iter()
                .map(|n| NodeCoordinate {
                    name: n.name.clone(),
                    cores: n.cores,
                })
                .collect(),
            job_width: info.and_then(|i| i.job_width),
            revision: info.and_then(|i| i.revision.clone()),
            why_null: why,
        },
    }
}
