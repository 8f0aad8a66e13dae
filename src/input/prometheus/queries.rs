//! The PromQL perfreport asks: one query per figure for a group of nodes at
//! once (a regex over their `instance` labels), each summed by the rules the
//! harness's poller sums by, grouped by `instance` and `job` (and `mode` for
//! the CPU), so each node's series come back apart.

/// A figure of a poll, as one query gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Figure {
    /// The time of the scrape each point's values came from (`timestamp()`),
    /// so a scrape seen at two steps is one poll, at its own time.
    Scraped,
    Cpu,
    MemTotal,
    MemAvailable,
    DiskRead,
    DiskWritten,
    NetRx,
    NetTx,
    Load1,
}

/// Every figure, in the order they are asked.
pub(crate) const FIGURES: [Figure; 9] = [
    Figure::Scraped,
    Figure::Cpu,
    Figure::MemTotal,
    Figure::MemAvailable,
    Figure::DiskRead,
    Figure::DiskWritten,
    Figure::NetRx,
    Figure::NetTx,
    Figure::Load1,
];

/// The labels the answers are grouped by.
pub(crate) const INSTANCE: &str = "instance";
pub(crate) const JOB: &str = "job";
pub(crate) const MODE: &str = "mode";

impl Figure {
    /// The words a message names the query by.
    pub(crate) fn words(self) -> &'static str {
        match self {
            Figure::Scraped => "scrape times",
            Figure::Cpu => "CPU",
            Figure::MemTotal => "memory total",
            Figure::MemAvailable => "memory available",
            Figure::DiskRead => "disk read",
            Figure::DiskWritten => "disk written",
            Figure::NetRx => "network received",
            Figure::NetTx => "network sent",
            Figure::Load1 => "load",
        }
    }

    /// The query for the nodes `matcher` matches (see [`instance_matcher`]).
    pub(crate) fn query(self, matcher: &str) -> String {
        let by = "sum by (instance, job)";
        let of = |metric: &str, devices: &str| format!("{metric}{{instance=~\"{matcher}\"{devices}}}");
        match self {
            // Every metric of a node_exporter comes from the same scrape;
            // the newest of these is the scrape the others' values are from.
            Figure::Scraped => format!(
                "max by (instance, job) (timestamp({}) or timestamp({}) or timestamp({}))",
                of("node_cpu_seconds_total", ""),
                of("node_memory_MemAvailable_bytes", ""),
                of("node_load1", "")
            ),
            Figure::Cpu => format!("sum by (instance, job, mode) ({})", of("node_cpu_seconds_total", "")),
            Figure::MemTotal => format!("{by} ({})", of("node_memory_MemTotal_bytes", "")),
            Figure::MemAvailable => format!("{by} ({})", of("node_memory_MemAvailable_bytes", "")),
            Figure::DiskRead => format!("{by} ({})", of("node_disk_read_bytes_total", ",device!~\"dm-.*\"")),
            Figure::DiskWritten => format!("{by} ({})", of("node_disk_written_bytes_total", ",device!~\"dm-.*\"")),
            Figure::NetRx => format!(
                "{by} ({})",
                of("node_network_receive_bytes_total", ",device!~\"lo|veth.*\"")
            ),
            Figure::NetTx => format!(
                "{by} ({})",
                of("node_network_transmit_bytes_total", ",device!~\"lo|veth.*\"")
            ),
            Figure::Load1 => format!("{by} ({})", of("node_load1", "")),
        }
    }
}

/// A node's `instance` as a PromQL label value may hold it: `None` for one
/// with a control character, which no real label has.
pub(crate) fn usable_instance(instance: &str) -> bool {
    !instance.is_empty() && !instance.chars().any(char::is_control)
}

/// The regex (RE2, anchored by PromQL) matching exactly these instances,
/// written as the inside of a PromQL double-quoted string.
pub(crate) fn instance_matcher<'a>(instances: impl IntoIterator<Item = &'a str>) -> String {
    let mut out = String::new();
    for (i, instance) in instances.into_iter().enumerate() {
        if i > 0 {
            out.push('|');
        }
        for c in instance.chars() {
            // Regex metacharacters escaped (as Go's regexp.QuoteMeta), then the
            // string literal's own: each backslash doubled, a quote escaped.
            if r"\.+*?()|[]{}^$".contains(c) {
                out.push_str(r"\\");
            }
            match c {
                '\\' => out.push_str(r"\\"),
                '"' => out.push_str("\\\""),
                c => out.push(c),
            }
        }
    }
    out
}

/// node_exporter's port: a node is its `addr` there unless run.json names its `instance`.
pub(crate) const NODE_EXPORTER_PORT: u16 = 9100;

/// The `instance` a node's series carry: run.json's, else `addr:9100`
/// (an IPv6 address in brackets).
pub(crate) fn instance_of(instance: Option<&str>, addr: Option<&str>) -> Option<String> {
    if let Some(i) = instance {
        return Some(i.to_string());
    }
    let addr = addr?;
    Some(if addr.contains(':') && !addr.starts_with('[') {
        format!("[{addr}]:{NODE_EXPORTER_PORT}")
    } else {
        format!("{addr}:{NODE_EXPORTER_PORT}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_queries_sum_by_the_pollers_rules_and_keep_each_node_apart() {
        let m = instance_matcher(["10.0.3.12:9100", "10.0.3.14:9100"]);
        assert_eq!(m, r"10\\.0\\.3\\.12:9100|10\\.0\\.3\\.14:9100");
        assert_eq!(
            Figure::Cpu.query(&m),
            r#"sum by (instance, job, mode) (node_cpu_seconds_total{instance=~"10\\.0\\.3\\.12:9100|10\\.0\\.3\\.14:9100"})"#
        );
        assert!(Figure::DiskRead.query(&m).contains(r#"device!~"dm-.*""#));
        assert!(Figure::NetTx
            .query(&m)
            .contains(r#"node_network_transmit_bytes_total{instance=~"#));
        assert!(Figure::NetRx.query(&m).contains(r#"device!~"lo|veth.*""#));
        assert!(Figure::Load1
            .query(&m)
            .starts_with("sum by (instance, job) (node_load1{"));
    }

    /// The string literal's value, as PromQL reads it; `None` where a quote
    /// would end it early.
    fn literal_value(inside: &str) -> Option<String> {
        let (mut out, mut chars) = (String::new(), inside.chars());
        while let Some(c) = chars.next() {
            match c {
                '\\' => out.push(chars.next()?),
                '"' => return None,
                c => out.push(c),
            }
        }
        Some(out)
    }

    #[test]
    fn a_hostile_instance_cannot_leave_its_string_or_widen_the_regex() {
        let hostile = [r#"a"}) or vector(1) # .*|\"#, "b(c)+[d]{2}^$?", "10.0.3.12:9100"];
        let m = instance_matcher(hostile);
        let regex = literal_value(&m).expect("no quote ends the string early");
        // RE2 and the regex crate share this syntax; PromQL anchors the match.
        let re = regex::Regex::new(&format!("^(?:{regex})$")).unwrap();
        for h in hostile {
            assert!(re.is_match(h), "{h} matches itself");
        }
        for other in ["a", "10x0x3x12:9100", "bcc[d]{2}^$?", ""] {
            assert!(!re.is_match(other), "{other} matches no hostile instance");
        }
        assert!(!usable_instance("a\nb") && !usable_instance("") && usable_instance("h:9100"));
    }

    #[test]
    fn a_node_is_its_addr_on_node_exporters_port_unless_it_names_its_instance() {
        assert_eq!(instance_of(None, Some("10.0.3.12")).as_deref(), Some("10.0.3.12:9100"));
        assert_eq!(instance_of(None, Some("fd00::7")).as_deref(), Some("[fd00::7]:9100"));
        assert_eq!(
            instance_of(Some("strix.lab:9100"), Some("10.0.3.12")).as_deref(),
            Some("strix.lab:9100")
        );
        assert_eq!(instance_of(None, None), None);
    }
}
