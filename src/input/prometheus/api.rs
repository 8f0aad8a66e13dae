//! The answers of the HTTP API (`/api/v1/query_range`): a range vector
//! (`resultType` `matrix`), each series its labels and `[unix seconds,
//! "value"]` pairs; or an error with its type and words.

use serde::Deserialize;
use std::borrow::Cow;
use std::collections::BTreeMap;

#[derive(Deserialize)]
struct Answer<'a> {
    status: Cow<'a, str>,
    #[serde(borrow, default)]
    data: Option<Data<'a>>,
    #[serde(default)]
    error: Option<String>,
    #[serde(rename = "errorType", default)]
    error_type: Option<String>,
    #[serde(default)]
    warnings: Vec<String>,
}

#[derive(Deserialize)]
struct Data<'a> {
    #[serde(rename = "resultType")]
    result_type: Cow<'a, str>,
    #[serde(borrow)]
    result: Vec<ApiSeries<'a>>,
}

/// One series of a range vector: its labels and its points, the values as
/// the text the server wrote (`"1.5"`, `"NaN"`, `"+Inf"`).
#[derive(Deserialize, Debug)]
pub(crate) struct ApiSeries<'a> {
    #[serde(default)]
    pub(crate) metric: BTreeMap<String, String>,
    #[serde(borrow, default)]
    pub(crate) values: Vec<(f64, Cow<'a, str>)>,
}

/// A decoded answer: its series and the server's own warnings.
#[derive(Debug)]
pub(crate) struct Matrix<'a> {
    pub(crate) series: Vec<ApiSeries<'a>>,
    pub(crate) warnings: Vec<String>,
}

/// The longest piece of a server's own words quoted in a message.
const QUOTED: usize = 200;

fn quoted(s: &str) -> String {
    match s.char_indices().nth(QUOTED) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_string(),
    }
}

/// The series of an answer, or why it is not one.
pub(crate) fn matrix(body: &[u8]) -> Result<Matrix<'_>, String> {
    let a: Answer = serde_json::from_slice(body).map_err(|e| {
        format!(
            "the answer is not the API's JSON ({e}; it begins {:?})",
            quoted(&String::from_utf8_lossy(&body[..body.len().min(QUOTED)]))
        )
    })?;
    if a.status != "success" {
        return Err(format!(
            "the query failed ({}): {}",
            quoted(a.error_type.as_deref().unwrap_or("no error type")),
            quoted(a.error.as_deref().unwrap_or("no reason given"))
        ));
    }
    let data = a.data.ok_or("the answer has no `data`")?;
    if data.result_type != "matrix" {
        return Err(format!(
            "the answer is a {} where a range query gives a matrix",
            quoted(&data.result_type)
        ));
    }
    Ok(Matrix {
        series: data.result,
        warnings: a.warnings.iter().map(|w| quoted(w)).collect(),
    })
}

/// The server's words in an answer that failed (an API error, or the first
/// line of a proxy's page), for the message.
pub(crate) fn error_text(body: &[u8]) -> Option<String> {
    if let Ok(a) = serde_json::from_slice::<Answer>(body) {
        if let Some(e) = a.error {
            return Some(quoted(&e));
        }
    }
    let text = String::from_utf8_lossy(body);
    let line = text.lines().map(str::trim).find(|l| !l.is_empty())?;
    Some(quoted(line))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documented_matrix_answer_reads_with_its_labels_and_points() {
        let body = br#"{"status":"success","data":{"resultType":"matrix","result":[
            {"metric":{"__name__":"up","job":"prometheus","instance":"localhost:9090"},"values":[[1435781430.781,"1"],[1435781445.781,"1"]]},
            {"metric":{"job":"node","instance":"localhost:9091"},"values":[[1435781430.781,"NaN"]]}]}}"#;
        let m = matrix(body).unwrap();
        assert_eq!(m.series.len(), 2);
        assert_eq!(m.series[0].metric["instance"], "localhost:9090");
        assert_eq!(m.series[0].values[1], (1435781445.781, Cow::Borrowed("1")));
        assert_eq!(m.series[1].values[0].1, "NaN");
    }

    #[test]
    fn an_error_answer_or_a_page_that_is_not_json_says_what_it_is() {
        let e = matrix(br#"{"status":"error","errorType":"bad_data","error":"parse error at char 3"}"#).unwrap_err();
        assert!(e.contains("bad_data") && e.contains("parse error at char 3"), "{e}");
        let e = matrix(b"<html><body>502 Bad Gateway</body></html>").unwrap_err();
        assert!(e.contains("not the API's JSON") && e.contains("<html>"), "{e}");
        let e = matrix(br#"{"status":"success","data":{"resultType":"vector","result":[]}}"#).unwrap_err();
        assert!(e.contains("vector"), "{e}");
        assert_eq!(
            error_text(br#"{"status":"error","error":"too many samples"}"#).as_deref(),
            Some("too many samples")
        );
        assert_eq!(
            error_text(b"\n  upstream timed out\nmore").as_deref(),
            Some("upstream timed out")
        );
        let long = "x".repeat(5000);
        assert!(error_text(long.as_bytes()).unwrap().chars().count() <= QUOTED + 1);
    }
}
