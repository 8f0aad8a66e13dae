//! Whether a node was contended: it ended the run loaded beyond its cores.
//! The same rule as the benchmark harness's suspect samples (end load above
//! the core count): contention is the likeliest cause of an outlier, so a
//! point measured on such a node is marked wherever it is shown.

/// A node's load at the end of the run, judged.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum LoadJudged {
    /// Loaded beyond its cores, in words.
    Loaded(String),
    Clear,
    /// Not known, and why.
    Unknown(String),
}

/// `load_end`: the node's last 1-minute load average in the run; `cores`
/// from run.json.
pub(crate) fn judge(node: &str, load_end: Option<f64>, cores: Option<u32>) -> LoadJudged {
    match (load_end, cores) {
        (None, _) => LoadJudged::Unknown(format!("no load samples from {node}")),
        (Some(_), None) => LoadJudged::Unknown(format!("run.json gives no cores for {node}")),
        (Some(l), Some(c)) if l > c as f64 => {
            LoadJudged::Loaded(format!("{node} ended the run at load {l:.1} on {c} cores"))
        }
        (Some(_), Some(_)) => LoadJudged::Clear,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_node_past_its_cores_at_the_end_is_loaded() {
        assert_eq!(
            judge("strix", Some(41.0), Some(32)),
            LoadJudged::Loaded("strix ended the run at load 41.0 on 32 cores".into())
        );
        assert_eq!(
            judge("strix", Some(32.0), Some(32)),
            LoadJudged::Clear,
            "at its cores is not beyond"
        );
        assert_eq!(judge("strix", Some(0.3), Some(32)), LoadJudged::Clear);
        assert_eq!(
            judge("strix", None, Some(32)),
            LoadJudged::Unknown("no load samples from strix".into())
        );
        assert_eq!(
            judge("strix", Some(41.0), None),
            LoadJudged::Unknown("run.json gives no cores for strix".into())
        );
    }
}
