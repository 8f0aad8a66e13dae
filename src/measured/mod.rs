//! A value as it was measured, or the reason it has none, decided in the one
//! place the value is computed (a figure by analysis, a file's size or hash
//! by its reader). Every reader (the view, compare, the gate, history) takes
//! the two together, so a `null` in any output says why without anyone
//! deciding it a second time; `explained` is the one serializer that writes
//! them. Below every other module: inputs and figures alike use it.

pub(crate) mod explained;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A value, or why there is none: never a `0` standing in for "not measured".
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Measured<T> {
    Value(T),
    Missing(String),
}

pub(crate) use Measured::{Missing, Value};

impl<T> Measured<T> {
    /// `value`, or `why` when there is none.
    pub(crate) fn from_option(value: Option<T>, why: impl FnOnce() -> String) -> Measured<T> {
        match value {
            Some(v) => Value(v),
            None => Missing(why()),
        }
    }

    pub(crate) fn missing(why: impl Into<String>) -> Measured<T> {
        Missing(why.into())
    }

    pub(crate) fn value(&self) -> Option<&T> {
        match self {
            Value(v) => Some(v),
            Missing(_) => None,
        }
    }

    /// Why there is no value; `None` when there is one.
    pub(crate) fn why(&self) -> Option<&str> {
        match self {
            Value(_) => None,
            Missing(w) => Some(w),
        }
    }

    pub(crate) fn is_missing(&self) -> bool {
        matches!(self, Missing(_))
    }

    pub(crate) fn as_ref(&self) -> Measured<&T> {
        match self {
            Value(v) => Value(v),
            Missing(w) => Missing(w.clone()),
        }
    }

    pub(crate) fn map<U>(self, f: impl FnOnce(T) -> U) -> Measured<U> {
        match self {
            Value(v) => Value(f(v)),
            Missing(w) => Missing(w),
        }
    }

    /// A figure derived from this one that may itself be missing.
    pub(crate) fn and_then<U>(self, f: impl FnOnce(T) -> Measured<U>) -> Measured<U> {
        match self {
            Value(v) => f(v),
            Missing(w) => Missing(w),
        }
    }

    /// Both values, or the first one's reason: a figure derived from two
    /// others is missing for the reason of the first of them that is.
    pub(crate) fn zip<U>(self, other: Measured<U>) -> Measured<(T, U)> {
        match (self, other) {
            (Value(a), Value(b)) => Value((a, b)),
            (Missing(w), _) | (_, Missing(w)) => Missing(w),
        }
    }
}

impl Measured<String> {
    pub(crate) fn as_deref(&self) -> Option<&str> {
        self.value().map(String::as_str)
    }
}

impl<T: Copy> Measured<T> {
    /// The value, copied out.
    pub(crate) fn get(&self) -> Option<T> {
        self.value().copied()
    }
}

/// What a cache or a site's manifest stores: the value as it is, or
/// `{"why": "..."}`. (An output a person or another tool reads writes the
/// value, or `null` beside a `why_null` entry: `measured::explained`.)
impl<T: Serialize> Serialize for Measured<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Why<'a> {
            why: &'a str,
        }
        match self {
            Value(v) => v.serialize(s),
            Missing(w) => Why { why: w }.serialize(s),
        }
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Measured<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Stored<T> {
            Missing { why: String },
            Value(T),
        }
        Ok(match Stored::deserialize(d)? {
            Stored::Value(v) => Value(v),
            Stored::Missing { why } => Missing(why),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_figure_derived_from_two_is_missing_for_the_first_ones_reason() {
        let total: Measured<f64> = Missing("no root span".into());
        let build: Measured<f64> = Value(10.0);
        assert_eq!(total.clone().zip(build.clone()).why(), Some("no root span"));
        assert_eq!(build.clone().zip(total).why(), Some("no root span"));
        assert_eq!(build.clone().zip(Value(2.0)).map(|(a, b)| a - b), Value(8.0));
    }

    #[test]
    fn a_stored_figure_keeps_its_reason() {
        let v: Vec<Measured<f64>> = vec![Value(1.5), Missing("not measured".into())];
        let text = serde_json::to_string(&v).unwrap();
        assert_eq!(text, r#"[1.5,{"why":"not measured"}]"#);
        let back: Vec<Measured<f64>> = serde_json::from_str(&text).unwrap();
        assert_eq!(back, v);
        let s: Measured<String> = serde_json::from_str(r#""strix""#).unwrap();
        assert_eq!(s, Value("strix".to_string()));
    }
}
