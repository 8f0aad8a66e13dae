//! `placement.txt`: the balancer's placement, one `placement key=value ...`
//! line per target.

use super::lines::{LineSink, Outcome};

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Placement {
    pub(crate) target: String,
    pub(crate) node: String,
    pub(crate) builder: Option<String>,
    pub(crate) queue: Option<u32>,
    pub(crate) build_s: Option<f64>,
    pub(crate) cache_bytes: Option<u64>,
    pub(crate) link_mbps: Option<f64>,
    /// The balancer's estimate: build_s + cache_bytes / (link_mbps * 1e6).
    pub(crate) est_s: Option<f64>,
    pub(crate) after: Option<String>,
    /// Keys given a value that is not a usable number (`est_s=NaN`,
    /// `cache_bytes=-1`), each with that value: the line has the key, but
    /// not the figure.
    pub(crate) unusable: Vec<(String, String)>,
}

impl Placement {
    /// What the line gives as `key=` when that is no usable number.
    pub(crate) fn unusable(&self, key: &str) -> Option<&str> {
        self.unusable.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }
}

#[derive(Debug, Default)]
pub(crate) struct Placements {
    pub(crate) items: Vec<Placement>,
}

/// Sets `slot` to `value`; whether there was one.
fn held<T>(slot: &mut Option<T>, value: Option<T>) -> bool {
    *slot = value;
    slot.is_some()
}

pub fn parse_line(line: &str) -> Result<Option<Placement>, String> {
    let mut words = line.split_whitespace();
    if words.next() != Some("placement") {
        return Ok(None);
    }
    let mut p = Placement::default();
    for word in words {
        let Some((key, value)) = word.split_once('=') else {
            continue;
        };
        let num = |v: &str| v.parse::<f64>().ok().filter(|x| x.is_finite() && *x >= 0.0);
        // Whether the value is one the key can hold (a number where one is wanted).
        let usable = match key {
            "queue" => held(&mut p.queue, value.parse().ok()),
            "build_s" => held(&mut p.build_s, num(value)),
            "cache_bytes" => held(&mut p.cache_bytes, value.parse().ok()),
            "link_mbps" => held(&mut p.link_mbps, num(value).filter(|x| *x > 0.0)),
            "est_s" => held(&mut p.est_s, num(value)),
            text => {
                match text {
                    "target" => p.target = value.to_string(),
                    "node" => p.node = value.to_string(),
                    "builder" => p.builder = Some(value.to_string()),
                    "after" => p.after = Some(value.to_string()),
                    _ => {}
                }
                true
            }
        };
        if !usable {
            p.unusable.push((key.to_string(), value.to_string()));
        }
    }
    match (p.target.is_empty(), p.node.is_empty()) {
        (false, false) => Ok(Some(p)),
        (true, true) => Err("placement line without `target=` and `node=`".into()),
        (true, false) => Err("placement line without `target=`".into()),
        (false, true) => Err("placement line without `node=`".into()),
    }
}

impl LineSink for Placements {
    fn line(&mut self, line: &[u8]) -> Outcome {
        let Ok(text) = std::str::from_utf8(line) else {
            return Outcome::Malformed("not UTF-8".into());
        };
        match parse_line(text) {
            Ok(Some(p)) => {
                self.items.push(p);
                Outcome::Record
            }
            Ok(None) => Outcome::Skipped,
            Err(e) => Outcome::Malformed(e.into()),
        }
    }
    fn merge_following(&mut self, later: Self) {
        self.items.extend(later.items);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spec_line_reads_every_key() {
        let p = parse_line("placement target=triton-wheel node=think builder=snoc-think queue=1 build_s=900 cache_bytes=6400000000 link_mbps=4.0 est_s=2500 after=pytorch")
            .unwrap()
            .unwrap();
        assert_eq!(p.target, "triton-wheel");
        assert_eq!(p.node, "think");
        assert_eq!(p.cache_bytes, Some(6_400_000_000));
        assert_eq!(p.est_s, Some(2500.0));
        assert_eq!(p.after.as_deref(), Some("pytorch"));
    }

    #[test]
    fn unknown_keys_and_other_lines_are_ignored_but_missing_node_is_not() {
        assert!(parse_line("placement target=a node=b colour=red").unwrap().is_some());
        assert!(parse_line("# balancer v2").unwrap().is_none());
        assert!(parse_line("placement target=a").unwrap_err().contains("node"));
    }

    #[test]
    fn a_key_whose_value_is_no_usable_number_is_kept_with_that_value() {
        let p = parse_line("placement target=a node=b est_s=NaN cache_bytes=-1 build_s=inf link_mbps=0 queue=x")
            .unwrap()
            .unwrap();
        assert_eq!(
            (p.est_s, p.cache_bytes, p.build_s, p.link_mbps),
            (None, None, None, None)
        );
        assert_eq!(p.unusable("est_s"), Some("NaN"));
        assert_eq!(p.unusable("cache_bytes"), Some("-1"));
        assert_eq!(p.unusable("link_mbps"), Some("0"));
        assert_eq!(p.unusable("queue"), Some("x"));
        // A key the line does not give is absent, not unusable.
        assert_eq!(
            parse_line("placement target=a node=b")
                .unwrap()
                .unwrap()
                .unusable("est_s"),
            None
        );
    }
}
