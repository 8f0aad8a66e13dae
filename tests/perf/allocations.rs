//! Work counted, not timed: a parser's cost pinned by the allocations it
//! makes per line, counted on the test's own thread by a counting global
//! allocator (a count is the same on any machine under any load; a
//! wall-clock limit is not).

use perfreport::input::sccache::LogFormat;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// The system allocator, counting each allocation made on this thread.
struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

fn count() {
    // A thread being torn down has no counter left: not counted.
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
}

// SAFETY: every call is passed on to the system allocator unchanged; the
// counter is a const-initialised thread-local Cell, which never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: the caller's contract, passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// What `f` returns, and how many allocations it made on this thread.
fn allocations<R>(f: impl FnOnce() -> R) -> (R, u64) {
    let before = ALLOCATIONS.with(Cell::get);
    let r = f();
    (r, ALLOCATIONS.with(Cell::get) - before)
}

/// An `escape=json` format writing the five variables the report reads and
/// `extra` more it does not (upstream times, headers, TLS, ...), and one
/// line nginx writes in it: the extra values strings (some with escapes),
/// numbers and, as a hostile line may hold, arrays and objects.
fn format_and_line(extra: usize) -> (String, String) {
    let mut format = String::from(
        r#"log_format js escape=json '{"addr":"$remote_addr","t":"$time_iso8601","req":"$request","status":$status,"len":$request_length"#,
    );
    let mut line = String::from(
        r#"{"addr":"10.0.3.12","t":"2026-10-20T02:00:14+00:00","req":"PUT /perf-1/a/b HTTP/1.1","status":201,"len":310"#,
    );
    for i in 0..extra {
        format += &format!(r#","k{i}":"$http_x_{i}""#);
        line += &match i % 4 {
            0 => format!(r#","k{i}":"value-{i}""#),
            1 => format!(r#","k{i}":"a \"quoted\" \u00e9 value {i}""#),
            2 => format!(r#","k{i}":{i}.25"#),
            _ => format!(r#","k{i}":{{"x":[1,"two",{{"y":null}}],"z":"{i}"}}"#),
        };
    }
    format += "}';";
    line += "}";
    (format, line)
}

/// An nginx log in `escape=json` with many keys was several times slower
/// per byte than the default format: each key of a line became a string,
/// was searched for among all the format's keys, and its value was decoded
/// into a JSON value and a string, though the report reads five of them.
/// Only the keys whose variables the report uses are looked up and
/// decoded, the rest passed over, and what is read is borrowed from the
/// line: a line's allocations do not grow with its keys (before, 40 more
/// keys cost 184 more allocations a line).
#[test]
fn an_escape_json_line_costs_no_allocation_for_the_keys_the_report_does_not_read() {
    let cost = |extra: usize| {
        let (format, line) = format_and_line(extra);
        let format = LogFormat::from_directive(&format).unwrap();
        let (r, n) = allocations(|| {
            format
                .parse_line(line.as_bytes())
                .map(|r| (r.method.to_string(), r.path.to_string(), r.status))
        });
        let r = r.unwrap_or_else(|e| panic!("{extra} extra keys: {e}"));
        assert_eq!(r, ("PUT".to_string(), "/perf-1/a/b".to_string(), 201), "{extra}");
        n
    };
    let few = cost(0);
    for extra in [40, 400] {
        let many = cost(extra);
        assert!(
            many <= few + 2,
            "{extra} keys the report does not read cost {} more allocations a line ({few} -> {many})",
            many.saturating_sub(few)
        );
    }
}
