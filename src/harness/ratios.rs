//! Cache ratios from bench.jsonl rows, pooled by (target, builder, arch,
//! max_jobs). Whether a compile ran is judged on steps cached, never on
//! sccache having reported anything; a ratio exists only where both sides
//! share the whole key (dividing a cold build by a 3 s layer-cache hit once
//! printed "2297.3x").

use super::rows::{BenchRow, Scenario};
use crate::figures::{Measured, Missing, Value};
use crate::measured::explained::{explained, WhyNull};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// End load over this multiple of the start load (floored at 1) is suspect.
pub(crate) const LOAD_GROWTH: f64 = 4.0;

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub(crate) struct BenchKey {
    pub(crate) target: String,
    pub(crate) builder: String,
    pub(crate) arch: String,
    pub(crate) max_jobs: Option<u64>,
}

impl BenchKey {
    fn of(r: &BenchRow) -> BenchKey {
        BenchKey {
            target: r.target.clone(),
            builder: r.builder.clone(),
            arch: r.arch.clone(),
            max_jobs: r.max_jobs,
        }
    }
    pub(crate) fn jobs(&self) -> String {
        self.max_jobs.map(|j| j.to_string()).unwrap_or_else(|| "unknown".into())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Pool {
    Frozen,
    Cold,
    Compiled,
    Skipped,
}

impl Pool {
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Pool::Frozen => "frozen run with the registry evicted",
            Pool::Cold => "cold run",
            Pool::Compiled => "hot run with fewer than half its steps cached",
            Pool::Skipped => "hot run with at least half its steps cached",
        }
    }
}

/// Which pool a successful row belongs to, or why none.
pub(crate) fn pool_of(r: &BenchRow) -> Result<Pool, String> {
    match r.scenario {
        Scenario::Cold => Ok(Pool::Cold),
        Scenario::Frozen if r.registry_evicted == Some(true) => Ok(Pool::Frozen),
        Scenario::Frozen => Err("a frozen run whose registry was not evicted measures nothing of the registry".into()),
        Scenario::Hot => match (r.steps_cached, r.steps_total) {
            (Some(c), Some(t)) if t > 0 => Ok(if c * 2 < t { Pool::Compiled } else { Pool::Skipped }),
            _ => Err("a hot run without steps_cached/steps_total: whether it compiled cannot be judged".into()),
        },
    }
}

/// One sample as the report quotes it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct BenchSample {
    pub(crate) line: u64,
    pub ts: String,
    pub(crate) seconds: f64,
    pub(crate) load_start: Option<f64>,
    pub(crate) load_end: Option<f64>,
    /// Why the sample is suspect (load), if it is.
    pub(crate) suspect: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct PoolStats {
    pub(crate) n: usize,
    pub(crate) newest_s: f64,
    pub(crate) min_s: f64,
    pub(crate) max_s: f64,
    pub(crate) median_s: f64,
    pub(crate) newest: BenchSample,
    pub(crate) samples: Vec<BenchSample>,
}

explained! {
    /// A key's ratios, each its value or why it has none (said beside them,
    /// in the key's `why_null`).
    #[derive(Debug, Clone)]
    pub(crate) struct Ratios {
        [measured] pub(crate) registry: Measured<f64>,
        [measured] pub(crate) compiler_cache: Measured<f64>,
        [measured] pub(crate) layer_cache: Measured<f64>,
    }
}

explained! {
    #[derive(Debug, Clone)]
    pub(crate) struct KeyReport {
        [plain] pub(crate) key: BenchKey,
        [plain] pub(crate) pools: BTreeMap<Pool, PoolStats>,
        [group] pub(crate) ratios: Ratios,
        /// Why a ratio is `null`, by ratio name.
        [reasons] pub(crate) why_null: WhyNull,
        /// Ratios built on a suspect sample, by ratio name.
        [plain] pub(crate) suspect: BTreeMap<String, String>,
    }
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct FailedBuild {
    pub(crate) line: u64,
    pub(crate) ts: String,
    pub(crate) target: String,
    pub(crate) builder: String,
    pub(crate) rc: i64,
    pub(crate) failure: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Excluded {
    pub(crate) line: u64,
    pub(crate) reason: String,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct RatiosReport {
    pub(crate) schema: u32,
    pub(crate) keys: Vec<KeyReport>,
    pub(crate) failures: Vec<FailedBuild>,
    /// Valid rows that fit no pool, with the reason.
    pub(crate) excluded: Vec<Excluded>,
}

/// Whether a sample's node was loaded by something else. With the builder's
/// core count known (`--fleet`), an end load above it is the rule; without,
/// a load that grew several-fold is the fallback, and says it is one.
pub(crate) fn suspect(load_start: Option<f64>, load_end: Option<f64>, cores: Option<u32>) -> Option<String> {
    let end = load_end?;
    if let Some(c) = cores {
        return (end > c as f64).then(|| format!("load {end} at the end on {c} cores"));
    }
    let start = load_start.unwrap_or(0.0).max(1.0);
    (end > LOAD_GROWTH * start).then(|| {
        format!(
            "load grew from {} to {end} during the run (core count unknown: pass --fleet)",
            load_start.unwrap_or(0.0)
        )
    })
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        // Halved first: the sum of two large finite times can overflow.
        v[n / 2 - 1] / 2.0 + v[n / 2] / 2.0
    }
}

fn stats(rows: &[&BenchRow], cores: &dyn Fn(&str) -> Option<u32>) -> Option<PoolStats> {
    let mut sorted: Vec<&&BenchRow> = rows.iter().collect();
    sorted.sort_by_key(|r| (r.ts, r.line));
    let samples: Vec<BenchSample> = sorted
        .iter()
        .map(|r| BenchSample {
            line: r.line,
            ts: r.ts_text.clone(),
            seconds: r.seconds,
            load_start: r.load_start,
            load_end: r.load_end,
            suspect: suspect(r.load_start, r.load_end, cores(&r.builder)),
        })
        .collect();
    let newest = samples.last()?.clone();
    let mut secs: Vec<f64> = samples.iter().map(|s| s.seconds).collect();
    Some(PoolStats {
        n: samples.len(),
        newest_s: newest.seconds,
        min_s: secs.iter().copied().fold(f64::INFINITY, f64::min),
        max_s: secs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        median_s: median(&mut secs),
        newest,
        samples,
    })
}

/// Successful rows by key and pool; a row's key is its whole (target,
/// builder, arch, max_jobs).
type Pooled<'r> = BTreeMap<BenchKey, BTreeMap<Pool, Vec<&'r BenchRow>>>;

/// The max_jobs values each (target, builder, arch) has each pool at.
type Widths = BTreeMap<(String, String, String, Pool), BTreeSet<String>>;

impl FailedBuild {
    fn of(r: &BenchRow) -> FailedBuild {
        FailedBuild {
            line: r.line,
            ts: r.ts_text.clone(),
            target: r.target.clone(),
            builder: r.builder.clone(),
            rc: r.rc,
            failure: r.failure.clone(),
        }
    }
}

/// Failed builds are listed, never pooled; a successful row goes to its
/// pool, or is excluded with the reason it fits none.
fn pool_rows(rows: &[BenchRow]) -> (Pooled<'_>, Vec<FailedBuild>, Vec<Excluded>) {
    let mut failures = vec![];
    let mut excluded = vec![];
    let mut pooled: Pooled = BTreeMap::new();
    for r in rows {
        if r.rc != 0 {
            failures.push(FailedBuild::of(r));
            continue;
        }
        match pool_of(r) {
            Ok(p) => pooled.entry(BenchKey::of(r)).or_default().entry(p).or_default().push(r),
            Err(reason) => excluded.push(Excluded { line: r.line, reason }),
        }
    }
    (pooled, failures, excluded)
}

fn widths(pooled: &Pooled) -> Widths {
    let mut widths = Widths::new();
    for (k, pools) in pooled {
        for p in pools.keys() {
            widths
                .entry((k.target.clone(), k.builder.clone(), k.arch.clone(), *p))
                .or_default()
                .insert(k.jobs());
        }
    }
    widths
}

/// A ratio of the newest samples of two pools, rounded to hundredths unless
/// too large to scale; `Err` says why there is none.
fn ratio_of(num: &PoolStats, den: &PoolStats, den_pool: Pool) -> Result<f64, String> {
    // Written as `> 0` so that a NaN denominator is refused too.
    if den.newest_s > 0.0 {
        let ratio = num.newest_s / den.newest_s;
        if !ratio.is_finite() {
            return Err(format!(
                "{:e} s over {:e} s is past the largest number",
                num.newest_s, den.newest_s
            ));
        }
        return Ok(Some((ratio * 100.0).round() / 100.0)
            .filter(|v| v.is_finite())
            .unwrap_or(ratio));
    }
    Err(format!("the newest {} took 0 s", den_pool.describe()))
}

/// Why each sample a ratio is built on is suspect, joined; `None` when neither is.
fn suspect_sides(sides: [&PoolStats; 2]) -> Option<String> {
    let flags: Vec<String> = sides
        .iter()
        .filter_map(|s| {
            s.newest
                .suspect
                .as_ref()
                .map(|why| format!("line {}: {why}", s.newest.line))
        })
        .collect();
    (!flags.is_empty()).then(|| flags.join("; "))
}

/// Why a pool is missing at this key: at another max_jobs, say which; else
/// there is none for the target on that builder at all.
fn why_missing(key: &BenchKey, pool: Pool, widths: &Widths) -> String {
    match widths.get(&(key.target.clone(), key.builder.clone(), key.arch.clone(), pool)) {
        Some(w) => format!(
            "no {} at max_jobs={} (there is one at max_jobs={})",
            pool.describe(),
            key.jobs(),
            w.iter().cloned().collect::<Vec<_>>().join(", ")
        ),
        None => format!(
            "no {} for {} on {} ({})",
            pool.describe(),
            key.target,
            key.builder,
            key.arch
        ),
    }
}

/// Fills one ratio of a key's report: its value and suspicion, or why it is null.
/// One ratio of a key's pools, numerator `num` over denominator `den`, or
/// why it has none; a ratio resting on a suspect sample is noted in `suspect`
/// under `name`.
fn ratio(
    key: &BenchKey,
    pools: &BTreeMap<Pool, PoolStats>,
    (name, num, den): (&str, Pool, Pool),
    widths: &Widths,
    suspect: &mut BTreeMap<String, String>,
) -> Measured<f64> {
    match (pools.get(&num), pools.get(&den)) {
        (Some(a), Some(b)) => match ratio_of(a, b, den) {
            Ok(value) => {
                if let Some(why) = suspect_sides([a, b]) {
                    suspect.insert(name.into(), why);
                }
                Value(value)
            }
            Err(why) => Missing(why),
        },
        (a, b) => {
            let reasons: Vec<String> = [(num, a.is_none()), (den, b.is_none())]
                .into_iter()
                .filter(|x| x.1)
                .map(|(p, _)| why_missing(key, p, widths))
                .collect();
            Missing(reasons.join("; "))
        }
    }
}

fn key_report(
    key: &BenchKey,
    pools: &BTreeMap<Pool, Vec<&BenchRow>>,
    widths: &Widths,
    cores: &dyn Fn(&str) -> Option<u32>,
) -> KeyReport {
    let pools: BTreeMap<Pool, PoolStats> = pools
        .iter()
        .filter_map(|(p, rows)| Some((*p, stats(rows, cores)?)))
        .collect();
    let mut suspect = BTreeMap::new();
    let mut of = |named: (&str, Pool, Pool)| ratio(key, &pools, named, widths, &mut suspect);
    let ratios = Ratios {
        registry: of(("registry", Pool::Frozen, Pool::Cold)),
        compiler_cache: of(("compiler_cache", Pool::Cold, Pool::Compiled)),
        layer_cache: of(("layer_cache", Pool::Compiled, Pool::Skipped)),
    };
    KeyReport {
        key: key.clone(),
        pools,
        ratios,
        why_null: WhyNull,
        suspect,
    }
}

/// Pools the rows and computes every ratio. `cores` maps a builder to its core count.
pub(crate) fn analyse(rows: &[BenchRow], cores: &dyn Fn(&str) -> Option<u32>) -> RatiosReport {
    let (pooled, failures, excluded) = pool_rows(rows);
    let widths = widths(&pooled);
    RatiosReport {
        schema: 1,
        keys: pooled
            .iter()
            .map(|(key, pools)| key_report(key, pools, &widths, cores))
            .collect(),
        failures,
        excluded,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::rows::parse_row;

    fn row(line: u64, json: &str) -> BenchRow {
        parse_row(json.as_bytes(), line).unwrap()
    }

    fn no_cores(_: &str) -> Option<u32> {
        None
    }

    const COLD: &str = r#"{"ts": "2026-10-20T02:00:00+00:00", "scenario": "cold", "target": "pytorch", "builder": "snoc-think", "arch": "gfx950", "seconds": 2297.3, "rc": 0, "steps_cached": 0, "steps_total": 11, "max_jobs": 10}"#;
    const SKIPPED: &str = r#"{"ts": "2026-10-20T03:00:00+00:00", "scenario": "hot", "target": "pytorch", "builder": "snoc-think", "arch": "gfx950", "seconds": 1.0, "rc": 0, "steps_cached": 11, "steps_total": 11, "sccache_hits": 5674, "max_jobs": 10}"#;

    #[test]
    fn the_2297x_trap_cold_over_a_layer_cache_hit_is_no_compiler_cache_ratio() {
        let r = analyse(&[row(1, COLD), row(2, SKIPPED)], &no_cores);
        let k = &r.keys[0];
        assert_eq!(
            k.ratios.compiler_cache.get(),
            None,
            "a skipped hot run compiled nothing"
        );
        assert!(
            k.ratios
                .compiler_cache
                .why()
                .unwrap_or_default()
                .contains("fewer than half its steps cached"),
            "{:?}",
            k.ratios
        );
        assert_eq!(k.ratios.layer_cache.get(), None);
    }

    #[test]
    fn compiled_and_skipped_give_the_compiler_and_layer_cache_ratios() {
        let compiled = COLD
            .replace("\"cold\"", "\"hot\"")
            .replace("2297.3", "459.46")
            .replace("\"steps_cached\": 0", "\"steps_cached\": 3");
        let r = analyse(&[row(1, COLD), row(2, &compiled), row(3, SKIPPED)], &no_cores);
        let k = &r.keys[0];
        assert_eq!(k.ratios.compiler_cache.get(), Some(5.0));
        assert_eq!(k.ratios.layer_cache.get(), Some(459.46));
    }

    #[test]
    fn mismatched_max_jobs_gives_no_ratio_and_says_where_the_other_side_is() {
        let compiled = COLD
            .replace("\"cold\"", "\"hot\"")
            .replace("\"steps_cached\": 0", "\"steps_cached\": 3")
            .replace("\"max_jobs\": 10", "\"max_jobs\": 32");
        let r = analyse(&[row(1, COLD), row(2, &compiled)], &no_cores);
        assert_eq!(r.keys.len(), 2, "two keys: max_jobs is part of the key");
        let at10 = r.keys.iter().find(|k| k.key.max_jobs == Some(10)).unwrap();
        assert_eq!(at10.ratios.compiler_cache.get(), None);
        assert!(
            at10.ratios
                .compiler_cache
                .why()
                .unwrap_or_default()
                .contains("at max_jobs=10 (there is one at max_jobs=32)"),
            "{:?}",
            at10.ratios
        );
    }

    #[test]
    fn a_ratio_past_the_largest_number_is_null_with_its_reason() {
        let tiny = SKIPPED.replace("\"seconds\": 1.0", "\"seconds\": 5e-324");
        let huge = COLD.replace("\"seconds\": 2297.3", "\"seconds\": 1.5e308");
        let compiled = COLD.replace("\"scenario\": \"cold\"", "\"scenario\": \"hot\"");
        let r = analyse(
            &[row(1, &huge), row(2, &huge), row(3, &compiled), row(4, &tiny)],
            &no_cores,
        );
        let k = &r.keys[0];
        // Two cold rows of 1.5e308 s: their median must not overflow.
        assert_eq!(k.pools[&Pool::Cold].median_s, 1.5e308);
        assert_eq!(k.ratios.layer_cache.get(), None);
        assert!(
            k.ratios
                .layer_cache
                .why()
                .unwrap_or_default()
                .contains("past the largest number"),
            "{:?}",
            k.ratios
        );
        assert!(k.ratios.compiler_cache.get().is_some_and(f64::is_finite));
    }

    #[test]
    fn rows_without_arch_are_gfx950_and_pool_with_new_ones() {
        let old = COLD
            .replace(r#""arch": "gfx950", "#, "")
            .replace("02:00:00", "01:00:00");
        let r = analyse(&[row(1, &old), row(2, COLD)], &no_cores);
        assert_eq!(r.keys.len(), 1);
        assert_eq!(r.keys[0].pools[&Pool::Cold].n, 2);
    }

    #[test]
    fn the_newest_sample_is_quoted_with_n_and_range() {
        let older = COLD.replace("02:00:00", "01:00:00").replace("2297.3", "2400");
        let newer = COLD.replace("02:00:00", "05:00:00").replace("2297.3", "2350");
        let r = analyse(&[row(1, &newer), row(2, COLD), row(3, &older)], &no_cores);
        let p = &r.keys[0].pools[&Pool::Cold];
        assert_eq!(
            (p.n, p.newest_s, p.min_s, p.max_s, p.median_s),
            (3, 2350.0, 2297.3, 2400.0, 2350.0)
        );
        assert_eq!(p.newest.line, 1);
    }

    #[test]
    fn a_failed_build_is_listed_and_kept_out_of_the_pools() {
        let failed = COLD.replace("\"rc\": 0", "\"rc\": 2, \"failure\": \"nvcc: out of memory\"");
        let r = analyse(&[row(1, &failed)], &no_cores);
        assert!(r.keys.is_empty());
        assert_eq!(r.failures[0].failure.as_deref(), Some("nvcc: out of memory"));
        assert_eq!(r.failures[0].line, 1);
    }

    #[test]
    fn a_loaded_node_flags_the_sample_and_the_ratio_built_on_it() {
        let loaded = COLD.replace(
            "\"max_jobs\": 10",
            "\"max_jobs\": 10, \"node_load_at_start\": 0.4, \"node_load_at_end\": 41.0",
        );
        let compiled = COLD
            .replace("\"cold\"", "\"hot\"")
            .replace("\"steps_cached\": 0", "\"steps_cached\": 3");
        let cores = |b: &str| (b == "snoc-think").then_some(32);
        let r = analyse(&[row(1, &loaded), row(2, &compiled)], &cores);
        let k = &r.keys[0];
        assert_eq!(
            k.pools[&Pool::Cold].newest.suspect.as_deref(),
            Some("load 41 at the end on 32 cores")
        );
        assert!(k.suspect["compiler_cache"].contains("line 1"));
        // Without the fleet file, growth several-fold still flags it.
        assert!(suspect(Some(0.4), Some(41.0), None).unwrap().contains("grew"));
        assert_eq!(suspect(Some(10.0), Some(12.0), None), None);
    }

    #[test]
    fn a_frozen_run_counts_only_with_the_registry_evicted() {
        let frozen = COLD
            .replace("\"cold\"", "\"frozen\"")
            .replace("\"max_jobs\": 10", "\"max_jobs\": 10, \"registry_evicted\": true")
            .replace("2297.3", "4594.6");
        let not_evicted = frozen.replace("true", "false");
        let r = analyse(&[row(1, COLD), row(2, &frozen), row(3, &not_evicted)], &no_cores);
        assert_eq!(r.keys[0].ratios.registry.get(), Some(2.0));
        assert_eq!(r.excluded[0].line, 3);
    }

    #[test]
    fn a_zero_second_denominator_gives_no_ratio_and_says_so() {
        let compiled = COLD
            .replace("\"cold\"", "\"hot\"")
            .replace("\"steps_cached\": 0", "\"steps_cached\": 3");
        let zero = SKIPPED.replace("\"seconds\": 1.0", "\"seconds\": 0.0");
        let r = analyse(&[row(1, &compiled), row(2, &zero)], &no_cores);
        let k = &r.keys[0];
        assert_eq!(k.ratios.layer_cache.get(), None);
        assert_eq!(
            k.ratios.layer_cache.why().unwrap_or_default(),
            "the newest hot run with at least half its steps cached took 0 s"
        );
    }

    #[test]
    fn a_ratio_is_rounded_to_hundredths_unless_too_large_to_scale() {
        let side = |seconds: f64| {
            let rows = [row(1, &COLD.replace("2297.3", &seconds.to_string()))];
            stats(&rows.iter().collect::<Vec<_>>(), &no_cores).unwrap()
        };
        assert_eq!(ratio_of(&side(10.0), &side(3.0), Pool::Cold), Ok(3.33));
        assert_eq!(ratio_of(&side(2.0), &side(3.0), Pool::Cold), Ok(0.67));
        // Too large to scale by 100: kept unrounded rather than made infinite.
        let big = ratio_of(&side(1e307), &side(0.1), Pool::Cold);
        assert!(big.as_ref().is_ok_and(|v| v.is_finite() && *v > 9e307), "{big:?}");
    }

    #[test]
    fn a_ratio_missing_both_sides_gives_both_reasons() {
        let r = analyse(&[row(1, SKIPPED)], &no_cores);
        assert_eq!(
            r.keys[0].ratios.registry.why().unwrap_or_default(),
            "no frozen run with the registry evicted for pytorch on snoc-think (gfx950); \
             no cold run for pytorch on snoc-think (gfx950)"
        );
        // ratios.json: the ratio is null in `ratios`, its reason beside them.
        let json = serde_json::to_value(&r.keys[0]).unwrap();
        assert!(json["ratios"]["registry"].is_null(), "{json}");
        assert!(json["ratios"].get("why_null").is_none(), "{json}");
        assert_eq!(json["why_null"]["registry"], r.keys[0].ratios.registry.why().unwrap());
    }

    #[test]
    fn a_hot_run_without_step_counts_is_excluded_with_its_reason() {
        let bare = SKIPPED.replace("\"steps_cached\": 11, ", "");
        let r = analyse(&[row(7, &bare)], &no_cores);
        assert!(r.keys.is_empty());
        assert_eq!(r.excluded[0].line, 7);
        assert!(r.excluded[0].reason.contains("whether it compiled cannot be judged"));
    }
}
