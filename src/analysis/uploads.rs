//! How many bytes a target uploaded: the sizes on its trace's upload spans,
//! else the registry's completed writes from its node during its record,
//! else unknown with the reason. Never 0 by default: 0 only when the
//! registry saw no write and the trace no upload either.

use super::fleet;
use crate::input::zot::Writes;
use crate::timefmt::{human_bytes, Micros};

/// What is known of one target's upload, from its trace and the registry.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct UploadEvidence<'a> {
    /// The sum of the sizes on the trace's upload spans, when it carries them.
    pub(crate) traced: Option<u64>,
    /// Why the registry's log gave no writes to tie to the node, as a
    /// clause ("no zot.jsonl"); `None` when it was read.
    pub(crate) registry_unread: Option<&'a str>,
    /// The target's node's address (run.json `addr`).
    pub(crate) addr: Option<&'a str>,
    /// The registry's completed writes from `addr`; `None` when it logged none.
    pub(crate) writes: Option<&'a Writes>,
    /// The target's record.
    pub(crate) record: Option<(Micros, Micros)>,
    /// The trace's upload intervals.
    pub(crate) uploads: &'a [(Micros, Micros)],
    /// The records of the node's other targets.
    pub(crate) others: &'a [(Micros, Micros)],
    /// Upload time the trace shows.
    pub(crate) upload_s: Option<f64>,
    /// The record has not ended.
    pub(crate) open: bool,
}

/// The bytes and where they were measured (`trace` or `registry`), or why not.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum UploadBytes {
    Measured { bytes: u64, source: &'static str },
    Unknown { why: String },
}

pub(crate) fn attribute_upload(e: &UploadEvidence) -> UploadBytes {
    if let Some(bytes) = e.traced {
        return UploadBytes::Measured { bytes, source: "trace" };
    }
    let unknown = |why: String| UploadBytes::Unknown { why };
    if let Some(why) = e.registry_unread {
        return unknown(format!("no sizes on the trace's upload spans and {why}"));
    }
    let Some(addr) = e.addr else {
        return unknown("no sizes on the trace's upload spans, and the node's address (run.json addr) is unknown, so registry writes cannot be tied to it".into());
    };
    let Some(own) = e.record else {
        return unknown("the record's time range is unknown".into());
    };
    // Where the node's records overlap, a write belongs to whichever target was uploading then.
    let owns = |t| fleet::owns_write(t, own, e.uploads, e.others);
    match e.writes.and_then(|w| fleet::registry_bytes(w, owns)) {
        Some((bytes, 0)) => UploadBytes::Measured { bytes, source: "registry" },
        Some((bytes, no_size)) => unknown(format!(
            "{no_size} registry writes from {addr} in this record had no Content-Length; the {} known are a lower bound",
            human_bytes(bytes as f64)
        )),
        None if e.upload_s.unwrap_or(0.0) > 0.0 => unknown(format!(
            "the trace shows uploads but the registry logged no completed write from {addr} during the record{}",
            if e.open { " (still uploading?)" } else { "" }
        )),
        None => UploadBytes::Measured { bytes: 0, source: "registry" },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::input::zot::WriteEvent;
    use std::sync::LazyLock;

    static WRITES: LazyLock<Writes> = LazyLock::new(|| Writes::from_events(WRITES_READ));

    const WRITES_READ: [WriteEvent; 3] = [
        WriteEvent {
            time: 10_000_000,
            bytes: Some(1_000),
        },
        WriteEvent {
            time: 20_000_000,
            bytes: Some(500),
        },
        // After the record: another target's.
        WriteEvent {
            time: 90_000_000,
            bytes: Some(7),
        },
    ];

    fn evidence() -> UploadEvidence<'static> {
        UploadEvidence {
            registry_unread: None,
            addr: Some("10.0.0.1"),
            writes: Some(&WRITES),
            record: Some((0, 60_000_000)),
            upload_s: Some(12.0),
            ..Default::default()
        }
    }

    fn why(u: UploadBytes) -> String {
        match u {
            UploadBytes::Unknown { why } => why,
            m => panic!("measured: {m:?}"),
        }
    }

    #[test]
    fn upload_bytes_from_the_trace_win_over_the_registry() {
        let e = UploadEvidence {
            traced: Some(42),
            ..evidence()
        };
        assert_eq!(
            attribute_upload(&e),
            UploadBytes::Measured {
                bytes: 42,
                source: "trace"
            }
        );
    }

    #[test]
    fn upload_bytes_from_the_registry_are_the_writes_inside_the_record() {
        assert_eq!(
            attribute_upload(&evidence()),
            UploadBytes::Measured {
                bytes: 1_500,
                source: "registry"
            }
        );
    }

    #[test]
    fn upload_bytes_where_records_overlap_go_to_the_target_uploading_then() {
        // Another record covers 15-30 s: the write at 20 s is ours only inside our upload.
        let others = [(15_000_000, 30_000_000)];
        let e = UploadEvidence {
            others: &others,
            ..evidence()
        };
        assert_eq!(
            attribute_upload(&e),
            UploadBytes::Measured {
                bytes: 1_000,
                source: "registry"
            }
        );
        let uploads = [(18_000_000, 19_000_000)];
        let e = UploadEvidence {
            others: &others,
            uploads: &uploads,
            ..evidence()
        };
        assert_eq!(
            attribute_upload(&e),
            UploadBytes::Measured {
                bytes: 1_500,
                source: "registry"
            }
        );
    }

    #[test]
    fn upload_bytes_unknown_without_a_registry_log() {
        let e = UploadEvidence {
            registry_unread: Some("no zot.jsonl"),
            ..evidence()
        };
        assert_eq!(
            why(attribute_upload(&e)),
            "no sizes on the trace's upload spans and no zot.jsonl"
        );
    }

    #[test]
    fn upload_bytes_unknown_without_the_nodes_address() {
        let e = UploadEvidence {
            addr: None,
            ..evidence()
        };
        assert!(why(attribute_upload(&e)).contains("the node's address (run.json addr) is unknown"));
    }

    #[test]
    fn upload_bytes_unknown_without_the_records_time_range() {
        let e = UploadEvidence {
            record: None,
            ..evidence()
        };
        assert_eq!(why(attribute_upload(&e)), "the record's time range is unknown");
    }

    #[test]
    fn upload_bytes_unsized_writes_make_the_known_bytes_a_lower_bound() {
        let writes = Writes::from_events([
            WriteEvent {
                time: 1,
                bytes: Some(2_000_000),
            },
            WriteEvent { time: 2, bytes: None },
        ]);
        let e = UploadEvidence {
            writes: Some(&writes),
            ..evidence()
        };
        assert_eq!(
            why(attribute_upload(&e)),
            "1 registry writes from 10.0.0.1 in this record had no Content-Length; the 2.0 MB known are a lower bound"
        );
    }

    #[test]
    fn upload_bytes_unknown_when_the_trace_uploads_but_the_registry_saw_nothing() {
        let e = UploadEvidence {
            writes: None,
            ..evidence()
        };
        assert!(why(attribute_upload(&e)).ends_with("no completed write from 10.0.0.1 during the record"));
        let e = UploadEvidence {
            writes: None,
            open: true,
            ..evidence()
        };
        assert!(why(attribute_upload(&e)).ends_with("during the record (still uploading?)"));
        // Writes outside the record count as none.
        let e = UploadEvidence {
            record: Some((30_000_000, 40_000_000)),
            ..evidence()
        };
        assert!(why(attribute_upload(&e)).contains("no completed write"));
    }

    #[test]
    fn upload_bytes_are_zero_only_when_neither_trace_nor_registry_saw_an_upload() {
        let e = UploadEvidence {
            writes: None,
            upload_s: Some(0.0),
            ..evidence()
        };
        assert_eq!(
            attribute_upload(&e),
            UploadBytes::Measured {
                bytes: 0,
                source: "registry"
            }
        );
        let e = UploadEvidence {
            writes: None,
            upload_s: None,
            ..evidence()
        };
        assert_eq!(
            attribute_upload(&e),
            UploadBytes::Measured {
                bytes: 0,
                source: "registry"
            }
        );
    }
}
