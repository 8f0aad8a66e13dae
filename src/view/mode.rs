//! What a total includes in this run's mode, said next to every total.

use super::{human_bytes, TargetView};
use crate::input::run_json::Mode;
use crate::timefmt;

/// A target's upload as its trace shows it: `None` without a trace, else
/// its upload time and bytes.
type UploadSeen<'a> = (&'a str, Option<(f64, Option<u64>)>);

pub(super) fn uploads_seen(targets: &[TargetView]) -> Vec<UploadSeen<'_>> {
    targets
        .iter()
        .map(|t| (t.name.as_str(), t.upload_s.get().map(|u| (u, t.upload_bytes.get()))))
        .collect()
}

/// What `total` includes, from the traces, not from the harness's intent: a
/// cold run clears the cache export, but a cold target whose trace shows
/// uploads did not have it cleared, and its total includes them.
pub(super) fn mode_note(mode: Option<Mode>, targets: &[UploadSeen]) -> String {
    match mode {
        Some(Mode::Warm) => "warm run: totals include the cache export".to_string(),
        None => "mode unknown (no run.json mode): whether totals include cache export is not known".to_string(),
        Some(Mode::Cold) => {
            let uploaded: Vec<String> = targets
                .iter()
                .filter_map(|(name, seen)| match seen {
                    Some((u, bytes)) if *u > 0.0 => {
                        let bytes = bytes.filter(|b| *b > 0).map(|b| format!(", {}", human_bytes(b as f64)));
                        Some(format!(
                            "{name} (uploaded {}{})",
                            timefmt::human_duration(*u),
                            bytes.unwrap_or_default()
                        ))
                    }
                    _ => None,
                })
                .collect();
            let clean: Vec<&str> = targets
                .iter()
                .filter(|(_, seen)| matches!(seen, Some((u, _)) if *u <= 0.0))
                .map(|(name, _)| *name)
                .collect();
            let unknown: Vec<&str> = targets.iter().filter(|(_, s)| s.is_none()).map(|(n, _)| *n).collect();
            let mut parts = vec![];
            if !uploaded.is_empty() {
                parts.push(format!(
                    "cold run, yet the traces show uploads: the cache export{} of {} {} not cleared, so {} total{} include{} it",
                    if uploaded.len() == 1 { "" } else { "s" },
                    uploaded.join(", "),
                    if uploaded.len() == 1 { "was" } else { "were" },
                    if uploaded.len() == 1 { "its" } else { "their" },
                    if uploaded.len() == 1 { "" } else { "s" },
                    if uploaded.len() == 1 { "s" } else { "" },
                ));
                if !clean.is_empty() {
                    parts.push(format!(
                        "{} showed no upload, so export is excluded there",
                        clean.join(", ")
                    ));
                }
            } else if !clean.is_empty() {
                parts.push("cold run: no trace shows an upload, so totals exclude export".to_string());
            } else {
                parts.push("cold run: no trace shows whether the cache export was cleared, so whether totals include it is not known".to_string());
            }
            if !(unknown.is_empty() || uploaded.is_empty() && clean.is_empty()) {
                parts.push(format!("for {} (no trace) it is not known", unknown.join(", ")));
            }
            parts.join("; ")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mode_note_warm_and_unknown_say_what_totals_include() {
        assert_eq!(
            mode_note(Some(Mode::Warm), &[]),
            "warm run: totals include the cache export"
        );
        assert!(mode_note(None, &[]).starts_with("mode unknown"));
    }

    #[test]
    fn mode_note_cold_names_each_target_that_uploaded_and_the_ones_not_known() {
        let seen: [UploadSeen; 3] = [
            ("a", Some((90.0, Some(6_400_000_000)))),
            ("b", Some((0.0, None))),
            ("c", None),
        ];
        assert_eq!(
            mode_note(Some(Mode::Cold), &seen),
            "cold run, yet the traces show uploads: the cache export of a (uploaded 1m30s, 6.4 GB) was not cleared, so its total includes it; b showed no upload, so export is excluded there; for c (no trace) it is not known"
        );
    }

    #[test]
    fn mode_note_cold_without_uploads_or_traces() {
        assert_eq!(
            mode_note(Some(Mode::Cold), &[("b", Some((0.0, None)))]),
            "cold run: no trace shows an upload, so totals exclude export"
        );
        assert_eq!(
            mode_note(Some(Mode::Cold), &[("c", None)]),
            "cold run: no trace shows whether the cache export was cleared, so whether totals include it is not known"
        );
    }
}
