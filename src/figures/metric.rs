//! The figures compared across runs, each named once: its field name in
//! data.json and history.json, its unit, its label for people, which way is
//! worse, and how it is read. Compare, the gate, history and the site refer
//! to a metric by this type, never by its name as a string.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A figure of a target or a node that runs are compared on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Metric {
    /// The whole record: the root span's end minus its start.
    Total,
    /// The target's own steps: the last step's end minus the first step's start.
    Build,
    /// Total minus build: setup plus export.
    Gap,
    /// The union of its upload spans.
    Upload,
    /// Steps served from the layer cache.
    StepsCached,
    /// A node's time with a target record open.
    Busy,
    /// A node's time with none open, inside the run's window.
    Idle,
    /// A node's mean CPU busy percent.
    CpuMean,
}

/// What a metric's value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unit {
    Seconds,
    Count,
    Percent,
}

impl Metric {
    /// A target's metrics, in the order tables show them.
    pub(crate) const TARGET: [Metric; 5] = [
        Metric::Total,
        Metric::Build,
        Metric::Gap,
        Metric::Upload,
        Metric::StepsCached,
    ];
    /// A node's metrics, as compare weighs them.
    pub(crate) const NODE: [Metric; 3] = [Metric::Busy, Metric::Idle, Metric::CpuMean];

    /// Its field name in data.json, history.json and compare's JSON.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            Metric::Total => "total_s",
            Metric::Build => "build_s",
            Metric::Gap => "gap_s",
            Metric::Upload => "upload_s",
            Metric::StepsCached => "steps_cached",
            Metric::Busy => "busy_s",
            Metric::Idle => "idle_s",
            Metric::CpuMean => "cpu_pct_mean",
        }
    }

    /// Its label for people ("build", "steps cached").
    pub(crate) const fn label(self) -> &'static str {
        match self {
            Metric::Total => "total",
            Metric::Build => "build",
            Metric::Gap => "gap",
            Metric::Upload => "upload",
            Metric::StepsCached => "steps cached",
            Metric::Busy => "busy",
            Metric::Idle => "idle",
            Metric::CpuMean => "mean CPU",
        }
    }

    pub(crate) const fn unit(self) -> Unit {
        match self {
            Metric::StepsCached => Unit::Count,
            Metric::CpuMean => Unit::Percent,
            _ => Unit::Seconds,
        }
    }

    /// A time is a duration (gated with the fleet's resolution as its floor).
    pub(crate) const fn is_time(self) -> bool {
        matches!(self.unit(), Unit::Seconds)
    }

    /// Lower is better for a time; for steps cached, higher is.
    pub(crate) const fn lower_is_better(self) -> bool {
        !matches!(self, Metric::StepsCached)
    }

    pub(crate) fn from_name(name: &str) -> Option<Metric> {
        Metric::TARGET
            .into_iter()
            .chain(Metric::NODE)
            .find(|m| m.name() == name)
    }
}

/// A target's figure beside its steps: what is said, after the steps, when
/// a change of its total is explained ("upload 1m00s → 3m00s").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Alongside {
    Setup,
    Export,
    Upload,
    UploadBytes,
    UploadRate,
}

impl Alongside {
    /// In the order a sentence says them.
    pub(crate) const ALL: [Alongside; 5] = [
        Alongside::Setup,
        Alongside::Export,
        Alongside::Upload,
        Alongside::UploadBytes,
        Alongside::UploadRate,
    ];

    /// Its field name in data.json and compare's JSON.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            Alongside::Setup => "setup_s",
            Alongside::Export => "export_s",
            Alongside::Upload => "upload_s",
            Alongside::UploadBytes => "upload_bytes",
            Alongside::UploadRate => "upload_mbps",
        }
    }

    /// Its label for people.
    pub(crate) const fn label(self) -> &'static str {
        match self {
            Alongside::Setup => "setup",
            Alongside::Export => "export",
            Alongside::Upload => "upload",
            Alongside::UploadBytes => "upload bytes",
            Alongside::UploadRate => "upload rate",
        }
    }

    /// A phase of the target's time (a duration), not a size or a rate.
    pub(crate) const fn is_phase(self) -> bool {
        matches!(self, Alongside::Setup | Alongside::Export | Alongside::Upload)
    }
}

impl Serialize for Alongside {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl std::fmt::Display for Metric {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Ordered by name, as the maps keyed by it in history.json always were.
impl Ord for Metric {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.name().cmp(other.name())
    }
}

impl PartialOrd for Metric {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Serialize for Metric {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Metric {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = std::borrow::Cow::<str>::deserialize(d)?;
        Metric::from_name(&name).ok_or_else(|| serde::de::Error::custom(format!("no metric named {name:?}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_metric_is_found_by_its_own_name_and_sorts_by_it() {
        for m in Metric::TARGET.into_iter().chain(Metric::NODE) {
            assert_eq!(Metric::from_name(m.name()), Some(m));
            let json = serde_json::to_string(&m).unwrap();
            assert_eq!(serde_json::from_str::<Metric>(&json).unwrap(), m);
        }
        let mut sorted = Metric::TARGET.to_vec();
        sorted.sort();
        let names: Vec<&str> = sorted.iter().map(|m| m.name()).collect();
        assert_eq!(names, ["build_s", "gap_s", "steps_cached", "total_s", "upload_s"]);
        assert!(!Metric::StepsCached.lower_is_better() && Metric::Build.lower_is_better());
    }
}
