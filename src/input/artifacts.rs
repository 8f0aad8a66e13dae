//! `artifacts.txt`: what was published, `<target> <file> <bytes> <sha256>`.

use super::lines::{LineSink, Outcome};
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Artifact {
    pub(crate) target: String,
    pub(crate) file: String,
    pub(crate) bytes: u64,
    pub(crate) sha256: String,
}

#[derive(Debug, Default)]
pub(crate) struct Artifacts {
    pub(crate) items: Vec<Artifact>,
}

impl LineSink for Artifacts {
    fn line(&mut self, line: &[u8]) -> Outcome {
        let Ok(text) = std::str::from_utf8(line) else {
            return Outcome::Malformed("not UTF-8".into());
        };
        let text = text.split('#').next().unwrap_or("").trim();
        if text.is_empty() {
            return Outcome::Skipped;
        }
        let fields: Vec<&str> = text.split_whitespace().collect();
        let [target, file, bytes, sha] = fields[..] else {
            return Outcome::Malformed(
                format!(
                    "expected 4 fields `<target> <file> <bytes> <sha256>`, found {}",
                    fields.len()
                )
                .into(),
            );
        };
        let Ok(bytes) = bytes.parse::<u64>() else {
            return Outcome::Malformed(format!("size `{bytes}` is not a whole number of bytes").into());
        };
        if sha.len() != 64 || !sha.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Outcome::Malformed("sha256 is not 64 hex digits".into());
        }
        self.items.push(Artifact {
            target: target.into(),
            file: file.into(),
            bytes,
            sha256: sha.to_ascii_lowercase(),
        });
        Outcome::Record
    }
    fn merge_following(&mut self, later: Self) {
        self.items.extend(later.items);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::lines::{parse_bytes, Tail};

    #[test]
    fn comments_are_skipped_and_bad_sizes_named() {
        let sha = "a".repeat(64);
        let text = format!("# published\npytorch torch-2.9.whl 123 {sha}\ntriton t.whl lots {sha}\n");
        let (a, stats) = parse_bytes(text.as_bytes(), Tail::Complete, Artifacts::default);
        assert_eq!(a.items.len(), 1);
        assert_eq!((stats.records, stats.skipped, stats.malformed), (1, 1, 1));
        assert_eq!(stats.problems[0].line, 3);
    }
}
