//! BuildKit span names: which are steps, which are cached, which are setup,
//! export or upload.

/// The span name of a step, if it is one: `[<stage> <n>/<m>] <command>`,
/// with padding (`[builder  4/11]`), a platform (`[linux/amd64->arm64 build 3/13]`)
/// or a bake target (`[pytorch builder 4/11]`) in front of the numbers.
pub(crate) fn is_step(name: &str) -> bool {
    step_numbers(name).is_some()
}

/// `(n, m)` of a step name.
pub(crate) fn step_numbers(name: &str) -> Option<(u32, u32)> {
    let inner = name.strip_prefix('[')?;
    let close = inner.find(']')?;
    let label = inner[..close].trim();
    let last = label.rsplit(char::is_whitespace).next()?;
    let (n, m) = last.split_once('/')?;
    let (n, m) = (n.parse().ok()?, m.parse().ok()?);
    (n >= 1 && n <= m).then_some((n, m))
}

/// A step's name without its numbering, padding, platform or bake target:
/// `[linux/amd64 pytorch builder  4/11] RUN make` is `builder RUN make`, so
/// the same step matches across runs that renumbered or retargeted it. The
/// stage stays: two stages may run the same command. `None` for no step.
pub(crate) fn match_key(name: &str) -> Option<String> {
    step_numbers(name)?;
    let inner = name.strip_prefix('[')?;
    let close = inner.find(']')?;
    let mut words = inner[..close].split_whitespace();
    words.next_back(); // n/m
                       // A platform holds a `/`; a stage name never does.
    let stage = words.next_back().filter(|w| !w.contains('/'));
    let command = inner[close + 1..].trim();
    Some(match stage {
        Some(stage) => [stage, command].join(" "),
        None => command.to_string(),
    })
}

/// A step's place in its Dockerfile, `builder 5/11` of `[linux/amd64
/// builder  5/11] RUN ...`: its stage and numbering, without its command,
/// platform or padding (a Dockerfile of another length has other places).
/// `None` for no step.
pub(crate) fn place(name: &str) -> Option<String> {
    let (n, m) = step_numbers(name)?;
    let inner = name.strip_prefix('[')?;
    let close = inner.find(']')?;
    let mut words = inner[..close].split_whitespace();
    words.next_back();
    let stage = words.next_back().filter(|w| !w.contains('/')).unwrap_or("");
    Some(format!("{stage} {n}/{m}"))
}

/// The step a `load cache: <step>` span served from the layer cache.
pub(crate) fn cached_step(name: &str) -> Option<&str> {
    name.strip_prefix("load cache: ").filter(|s| is_step(s))
}

/// An upload span: `HTTP PUT`/`POST`/`PATCH` (by name or by method tag).
pub(crate) fn is_upload(name: &str, method: Option<&str>) -> bool {
    let method = method.or_else(|| name.strip_prefix("HTTP "));
    name.starts_with("HTTP ") && matches!(method, Some("PUT" | "POST" | "PATCH"))
}

/// The inner span of a registry call (`HTTP <METHOD>`).
pub(crate) fn is_http(name: &str) -> bool {
    name.starts_with("HTTP ")
}

/// The outer span of a registry call, which wraps an `HTTP <METHOD>` span.
pub(crate) fn is_resolver_request(name: &str) -> bool {
    name == "remotes.docker.resolver.HTTPRequest"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_names_with_padding_platform_and_bake_prefix() {
        assert_eq!(step_numbers("[builder 4/11] RUN make"), Some((4, 11)));
        assert_eq!(step_numbers("[builder  4/11] RUN make"), Some((4, 11)));
        assert_eq!(step_numbers("[linux/amd64->arm64 build 3/13] RUN x"), Some((3, 13)));
        assert_eq!(step_numbers("[pytorch builder 4/11] RUN x"), Some((4, 11)));
        assert_eq!(step_numbers("[ 1/2] FROM x"), Some((1, 2)));
        assert_eq!(step_numbers("[internal] load build context"), None);
        assert_eq!(step_numbers("[stage 5/4] impossible"), None);
        assert_eq!(step_numbers("exporting to image"), None);
    }

    #[test]
    fn a_step_matches_without_numbers_padding_platform_or_bake_target() {
        let key = |n| match_key(n).unwrap();
        assert_eq!(key("[builder 4/11] RUN make"), "builder RUN make");
        assert_eq!(key("[builder  5/12] RUN make"), "builder RUN make");
        assert_eq!(key("[linux/amd64->arm64 builder 3/13] RUN make"), "builder RUN make");
        assert_eq!(key("[pytorch builder 4/11] RUN make"), "builder RUN make");
        assert_eq!(key("[ 1/2] FROM x"), "FROM x");
        assert_eq!(key("[linux/arm64 1/2] FROM x"), "FROM x");
        assert_ne!(key("[base 2/3] COPY . ."), key("[builder 2/3] COPY . ."));
        assert_eq!(match_key("[internal] load build context"), None);
    }

    #[test]
    fn load_cache_names_a_step_but_cache_request_does_not_count() {
        assert_eq!(
            cached_step("load cache: [build 1/3] FROM alpine"),
            Some("[build 1/3] FROM alpine")
        );
        assert_eq!(cached_step("cache request: [build 1/3] FROM alpine"), None);
        assert_eq!(cached_step("load cache: docker-image://docker.io/x"), None);
    }

    #[test]
    fn uploads_are_put_post_patch_by_name_or_by_either_tag_generation() {
        assert!(is_upload("HTTP PUT", None));
        assert!(is_upload("HTTP PATCH", Some("PATCH")));
        assert!(!is_upload("HTTP HEAD", Some("HEAD")));
        assert!(!is_upload("remotes.docker.resolver.HTTPRequest", Some("PUT")));
    }
}
