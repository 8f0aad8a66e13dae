//! The one serializer of `Measured` figures in an output: a figure is its
//! value or `null`, and the object holding it carries `why_null`, the
//! reason of every field of it that is `null`, keyed by field name. The
//! reasons are the figures' own (set where each value was computed): this
//! only gathers them, so no output decides a reason a second time.
//!
//! `explained!` declares such a struct. Each field has a kind:
//! `[plain]` serialized as it is; `[measured]` a `Measured<T>`, its value or
//! `null`; `[section]` an `Option<Measured<T>>` of a section that may be
//! missing as a whole (its own `why` says so: `None` is `null` with no reason
//! of its own); `[skip_none]` an `Option` left out when `None`; `[skip_empty]` a
//! collection left out when empty; `[hidden]` not serialized; `[why_null]`
//! where the reasons go (its own type, `Reasons`, holds reasons for parts of
//! other fields, such as a series' nulls, merged in); `[why_null_or_skip]`
//! the same, left out when there is none; `[group]` a struct declared by
//! this macro with no place of its own for reasons, serialized as it is,
//! whose fields' reasons go to this one's `why_null` (ratios.json keeps a
//! key's ratios in `ratios` and their reasons beside it); `[reasons]` where the reasons go
//! when there are none for parts (its type `WhyNull` holds nothing);
//! `[reasons_or_skip]` the same, left out when there is none; `[notes]` the
//! same reasons grouped for people ("`total_s`, `gap_s`: why").

use std::collections::BTreeMap;

/// Reasons for parts of fields (`cpu.v`: why a series has nulls), beside
/// those the `Measured` fields carry; keyed by the part's path.
pub(crate) type Reasons = BTreeMap<String, String>;

/// The place of the gathered reasons in an output (`[reasons]`), for a struct
/// whose every reason is a field's own.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct WhyNull;

/// The place of the grouped reasons in an output (`[notes]`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Notes;

/// Groups fields that are null for the same reason: "`total_s`, `gap_s`: why".
pub(crate) fn group_reasons(why: &Reasons) -> Vec<String> {
    let mut by_reason: Vec<(&str, Vec<&str>)> = vec![];
    for (field, reason) in why {
        match by_reason.iter_mut().find(|(r, _)| r == reason) {
            Some((_, fields)) => fields.push(field),
            None => by_reason.push((reason, vec![field])),
        }
    }
    by_reason
        .into_iter()
        .map(|(reason, fields)| {
            let fields: Vec<String> = fields.iter().map(|f| format!("`{f}`")).collect();
            format!("{}: {reason}", fields.join(", "))
        })
        .collect()
}

/// Declares an output struct whose `[measured]` fields serialize as value or
/// `null` with their reasons gathered under `why_null` (see the module).
macro_rules! explained {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            $(
                $(#[$fmeta:meta])*
                [$kind:ident] $fvis:vis $field:ident : $ty:ty
            ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        $vis struct $name {
            $( $(#[$fmeta])* $fvis $field: $ty, )*
        }

        impl $name {
            /// The reason of every field that is `null`, keyed by field name.
            #[allow(dead_code)]
            pub(crate) fn reasons(&self) -> $crate::measured::explained::Reasons {
                let mut reasons = $crate::measured::explained::Reasons::new();
                $( explained!(@collect reasons, $kind, self, $field); )*
                reasons
            }

            /// Those reasons grouped for people.
            #[allow(dead_code)]
            pub(crate) fn notes(&self) -> Vec<String> {
                $crate::measured::explained::group_reasons(&self.reasons())
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeStruct;
                let reasons = self.reasons();
                // The number of fields at most (a JSON writer takes 0 for an
                // empty object and closes it at once).
                const FIELDS: usize = [$(stringify!($field)),*].len();
                let mut st = s.serialize_struct(stringify!($name), FIELDS)?;
                $( explained!(@write st, reasons, $kind, self, $field); )*
                let _ = &reasons;
                st.end()
            }
        }
    };

    (@collect $r:ident, measured, $self:ident, $field:ident) => {
        if let Some(w) = $self.$field.why() {
            $r.insert(stringify!($field).to_string(), w.to_string());
        }
    };
    (@collect $r:ident, section, $self:ident, $field:ident) => {
        if let Some(w) = $self.$field.as_ref().and_then(|m| m.why()) {
            $r.insert(stringify!($field).to_string(), w.to_string());
        }
    };
    (@collect $r:ident, group, $self:ident, $field:ident) => {
        $r.extend($self.$field.reasons());
    };
    (@collect $r:ident, why_null, $self:ident, $field:ident) => {
        for (k, v) in &$self.$field {
            $r.entry(k.clone()).or_insert_with(|| v.clone());
        }
    };
    (@collect $r:ident, why_null_or_skip, $self:ident, $field:ident) => {
        explained!(@collect $r, why_null, $self, $field);
    };
    (@collect $r:ident, $other:ident, $self:ident, $field:ident) => {};

    (@write $st:ident, $r:ident, group, $self:ident, $field:ident) => {
        $st.serialize_field(stringify!($field), &$self.$field)?;
    };
    (@write $st:ident, $r:ident, plain, $self:ident, $field:ident) => {
        $st.serialize_field(stringify!($field), &$self.$field)?;
    };
    (@write $st:ident, $r:ident, measured, $self:ident, $field:ident) => {
        $st.serialize_field(stringify!($field), &$self.$field.value())?;
    };
    (@write $st:ident, $r:ident, section, $self:ident, $field:ident) => {
        $st.serialize_field(stringify!($field), &$self.$field.as_ref().and_then(|m| m.value()))?;
    };
    (@write $st:ident, $r:ident, skip_none, $self:ident, $field:ident) => {
        match &$self.$field {
            Some(v) => $st.serialize_field(stringify!($field), v)?,
            None => $st.skip_field(stringify!($field))?,
        }
    };
    (@write $st:ident, $r:ident, skip_empty, $self:ident, $field:ident) => {
        if $self.$field.is_empty() {
            $st.skip_field(stringify!($field))?
        } else {
            $st.serialize_field(stringify!($field), &$self.$field)?
        }
    };
    (@write $st:ident, $r:ident, hidden, $self:ident, $field:ident) => {};
    (@write $st:ident, $r:ident, why_null, $self:ident, $field:ident) => {
        $st.serialize_field("why_null", &$r)?;
    };
    (@write $st:ident, $r:ident, reasons, $self:ident, $field:ident) => {
        let _ = &$self.$field;
        $st.serialize_field("why_null", &$r)?;
    };
    (@write $st:ident, $r:ident, reasons_or_skip, $self:ident, $field:ident) => {
        let _ = &$self.$field;
        if $r.is_empty() {
            $st.skip_field("why_null")?
        } else {
            $st.serialize_field("why_null", &$r)?
        }
    };
    (@write $st:ident, $r:ident, why_null_or_skip, $self:ident, $field:ident) => {
        if $r.is_empty() {
            $st.skip_field("why_null")?
        } else {
            $st.serialize_field("why_null", &$r)?
        }
    };
    (@write $st:ident, $r:ident, notes, $self:ident, $field:ident) => {
        let _ = &$self.$field;
        $st.serialize_field(stringify!($field), &$crate::measured::explained::group_reasons(&$r))?;
    };
}

pub(crate) use explained;

#[cfg(test)]
mod tests {
    use crate::measured::{Measured, Missing, Value};

    explained! {
        #[derive(Debug)]
        struct Example {
            [plain] name: String,
            [measured] total_s: Measured<f64>,
            [measured] gap_s: Measured<f64>,
            [skip_none] after: Option<String>,
            [why_null] why_null: super::Reasons,
            [notes] notes: super::Notes,
        }
    }

    #[test]
    fn a_missing_figure_is_null_beside_its_reason_and_only_there() {
        let mut extra = super::Reasons::new();
        extra.insert("cpu.v".into(), "a gap breaks the line".into());
        let e = Example {
            name: "pytorch".into(),
            total_s: Value(12.5),
            gap_s: Missing("no root span".into()),
            after: None,
            why_null: extra,
            notes: super::Notes,
        };
        assert_eq!(
            serde_json::to_string(&e).unwrap(),
            r#"{"name":"pytorch","total_s":12.5,"gap_s":null,"why_null":{"cpu.v":"a gap breaks the line","gap_s":"no root span"},"notes":["`cpu.v`: a gap breaks the line","`gap_s`: no root span"]}"#
        );
    }
}
