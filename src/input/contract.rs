//! The input contract, in one place: when do a producer and its parser
//! disagree? The report's warnings, `check`, `--strict`, the summary and the
//! metrics all read the verdict made here (`InputReport::contract_broken`
//! and `InputReport::breaches`), so they cannot tell different stories.
//!
//! A contract is broken when a present file yields no record, when more
//! than [`MALFORMED_SHARE`] of what was read is malformed (or, of
//! samples.jsonl's polls, left out for arriving too late), or when the file
//! does not fit the format it should have (it cannot be read or decoded at
//! all). A few stray lines are only warnings, each with its line number: a
//! log that rotates or a writer that was killed mid-line leaves them, and
//! they do not mean the parser misreads the rest.

use super::Problem;

/// More malformed items than this share of all items read is a broken contract.
pub(crate) const MALFORMED_SHARE: f64 = 0.01;

/// What one parse of a present input saw, as the contract judges it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Observed<'a> {
    pub(crate) bytes: Option<u64>,
    pub(crate) lines: u64,
    pub(crate) records: u64,
    pub(crate) skipped: u64,
    pub(crate) malformed: u64,
    /// Which reader read the file, for the message when nothing fit it.
    pub(crate) format: Option<&'a str>,
    /// The first problem the parser noted, quoted when nothing fit.
    pub(crate) first_problem: Option<&'a Problem>,
    /// Why the file does not fit its format at all (not readable, not decodable).
    pub(crate) unfit: Option<&'a str>,
}

/// Every way the reading breaks the contract; empty when it holds.
pub(crate) fn breaches(r: &Observed) -> Vec<String> {
    // A file that does not fit its format has nothing more to say.
    if let Some(why) = r.unfit {
        return vec![why.to_string()];
    }
    let mut out = vec![];
    if r.records == 0 {
        out.push(no_record(r));
    } else if malformed_share_exceeded(r.malformed, items(r)) {
        out.push(format!(
            "{} of {} {} malformed ({:.1}%, more than {:.0}%): the producer's format may have changed",
            r.malformed,
            items(r),
            if items(r) == r.lines { "lines" } else { "items read" },
            100.0 * r.malformed as f64 / items(r) as f64,
            100.0 * MALFORMED_SHARE
        ));
    }
    out
}

/// Records read but left out of the figures because they arrived too late
/// (samples.jsonl: a node's poll older than its summarised ones): past the
/// malformed share, the producer no longer writes in the order the parser
/// needs, and that breaks the contract too.
pub(crate) fn left_out_breach(left_out: u64, records: u64) -> Option<String> {
    malformed_share_exceeded(left_out, records).then(|| {
        format!(
            "{left_out} of {records} polls left out because they arrived after later ones had been summarised ({:.1}%, more than {:.0}%): the poller may no longer write them in time order",
            100.0 * left_out as f64 / records as f64,
            100.0 * MALFORMED_SHARE
        )
    })
}

/// What was read: every line of a log (or every span of a trace, whose
/// line count says nothing) is a record, skipped or malformed.
fn items(r: &Observed) -> u64 {
    r.records + r.skipped + r.malformed
}

fn malformed_share_exceeded(malformed: u64, items: u64) -> bool {
    items > 0 && malformed as f64 > MALFORMED_SHARE * items as f64
}

/// What the no-record breach ([`no_record`]) says, past its count of lines.
const NO_RECORD: &str = " read but no record recognised";

/// Whether `breach` is the no-record one: not so when the records were
/// recognised and all left out for lying outside the run's window (the
/// window's own breach then says why nothing is measured).
pub(crate) fn is_no_record(breach: &str) -> bool {
    breach.contains(NO_RECORD) && breach.contains("the producer's format may have changed")
}

/// The reason every figure taken from this input is `null`.
fn no_record(r: &Observed) -> String {
    if r.bytes == Some(0) {
        return "the file is empty; nothing in this report comes from it".into();
    }
    let read_as = r.format.map(|f| format!(" as {f}")).unwrap_or_default();
    // Where the lines went wrong, not the parser's words for it: those are
    // in the input's warnings, line by line; this sentence reaches the
    // summary and the charts.
    let first = match r.first_problem {
        Some(p) if p.line > 0 => format!(
            "; {} did not match it, the first at line {} (the input's warnings say why)",
            crate::fmt::counted(r.malformed.max(1), "line", "lines"),
            p.line
        ),
        Some(p) => format!("; {}", p.reason),
        None => String::new(),
    };
    format!(
        "{}{NO_RECORD}{read_as}: the producer's format may have changed{first}",
        crate::fmt::counted(r.lines, "line", "lines")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(lines: u64, records: u64, malformed: u64) -> Observed<'static> {
        Observed {
            bytes: Some(lines * 100),
            lines,
            records,
            skipped: lines - records - malformed,
            malformed,
            format: None,
            first_problem: None,
            unfit: None,
        }
    }

    #[test]
    fn one_stray_line_in_2900_keeps_the_contract_thirty_break_it() {
        assert!(breaches(&reading(2901, 2900, 1)).is_empty());
        let b = breaches(&reading(2930, 2900, 30));
        assert_eq!(b.len(), 1, "{b:?}");
        assert!(
            b[0].starts_with("30 of 2930 lines malformed (1.0%, more than 1%)"),
            "{b:?}"
        );
    }

    #[test]
    fn no_record_from_a_present_file_breaks_it_and_says_where_the_lines_went_wrong() {
        let p = Problem {
            line: 1,
            reason: "expected \" - \" at column 9".into(),
        };
        let r = Observed {
            first_problem: Some(&p),
            format: Some("log_format sccache"),
            ..reading(200, 0, 200)
        };
        let b = breaches(&r);
        assert_eq!(b.len(), 1);
        assert!(
            b[0].starts_with("200 lines read but no record recognised as log_format sccache"),
            "{b:?}"
        );
        assert!(
            b[0].ends_with("; 200 lines did not match it, the first at line 1 (the input's warnings say why)"),
            "{b:?}"
        );
        assert!(
            !b[0].contains("column 9"),
            "the parser's words stay in the warnings: {b:?}"
        );
    }

    #[test]
    fn a_file_that_does_not_fit_its_format_breaks_it_whatever_it_held() {
        let r = Observed {
            unfit: Some("unknown trace encoding"),
            ..reading(10, 10, 0)
        };
        assert_eq!(breaches(&r), vec!["unknown trace encoding".to_string()]);
    }

    #[test]
    fn polls_left_out_past_the_malformed_share_break_the_contract() {
        assert_eq!(left_out_breach(0, 100), None);
        assert_eq!(left_out_breach(1, 100), None, "1% is a few stray polls");
        let b = left_out_breach(4488, 15000).expect("breach");
        assert!(b.starts_with("4488 of 15000 polls left out because they arrived after later ones had been summarised (29.9%, more than 1%)"), "{b}");
        assert_eq!(left_out_breach(3, 0), None);
    }
}
