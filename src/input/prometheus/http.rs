//! The server's HTTP API as perfreport asks it: one bounded GET of
//! `/api/v1/query_range` at a time per caller, a few at once over the whole
//! process, each with a timeout that covers the exchange and its body, and
//! a body read through a byte limit. Credentials are taken from the
//! environment, sent as a header, and never part of anything shown: the
//! server is always named by [`Server::shown`], which has none.

use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// Requests in flight at once, over every run the process reads (publish
/// reads runs side by side): a server shared by a fleet is not flooded.
pub(crate) const IN_FLIGHT: usize = 4;
/// The most bytes one answer may have, after gzip: a request asks for at
/// most `POINTS_PER_REQUEST` points of each series, which for 16 nodes'
/// CPU modes is a few MB.
pub(crate) const MAX_BODY: u64 = 32 << 20;
/// One request's default timeout, connection to the last byte of its body.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// All of one run's requests together, by default.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(300);

/// The environment variables credentials are read from, and only from.
pub(crate) const USER_VAR: &str = "PERF_PROMETHEUS_USER";
pub(crate) const PASSWORD_VAR: &str = "PERF_PROMETHEUS_PASSWORD";
pub(crate) const TOKEN_VAR: &str = "PERF_PROMETHEUS_TOKEN";

/// A Prometheus-compatible server: its base URL (without credentials) and
/// how it is asked.
pub struct Server {
    base: String,
    /// The `Authorization` header's value; never shown (see `Debug`).
    auth: Option<String>,
    auth_kind: Option<&'static str>,
    pub(crate) timeout: Duration,
    pub(crate) deadline: Duration,
    agent: ureq::Agent,
    slots: Arc<Slots>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("base", &self.base)
            .field("auth", &self.auth_kind)
            .field("timeout", &self.timeout)
            .field("deadline", &self.deadline)
            .finish()
    }
}

/// Why a request gave no usable answer, in words naming the server.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Failure {
    pub(crate) what: String,
    /// Every later request would fail the same way (the deadline passed):
    /// they are not sent.
    pub(crate) final_: bool,
}

/// The base URL: `http://` or `https://`, a host, perhaps a port and a
/// path prefix (Mimir's `/prometheus`); no credentials, query or fragment.
fn checked_base(url: &str) -> Result<String, String> {
    let url = url.trim();
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))
        .ok_or_else(|| "--prometheus: the URL must start with http:// or https://".to_string())?;
    if url.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return Err("--prometheus: the URL holds a space or a control character".into());
    }
    let authority = rest.split('/').next().unwrap_or_default();
    if authority.contains('@') {
        // Said without repeating the URL: it holds a password.
        return Err(format!(
            "--prometheus: the URL carries credentials (user@ or user:password@): they are not used from there; \
             give them in {USER_VAR} and {PASSWORD_VAR}, or {TOKEN_VAR}"
        ));
    }
    if authority.is_empty() {
        return Err("--prometheus: the URL names no host".into());
    }
    if rest.contains(['?', '#']) {
        return Err("--prometheus: the URL must be the server's base (no query or fragment)".into());
    }
    Ok(url.trim_end_matches('/').to_string())
}

/// The `Authorization` header the environment's credentials make, and its kind.
fn auth_from(env: &dyn Fn(&str) -> Option<String>) -> Result<Option<(String, &'static str)>, String> {
    let get = |k: &str| env(k).filter(|v| !v.is_empty());
    let (user, password, token) = (get(USER_VAR), get(PASSWORD_VAR), get(TOKEN_VAR));
    match (user, password, token) {
        (None, None, None) => Ok(None),
        (None, None, Some(t)) => Ok(Some((format!("Bearer {t}"), "bearer token"))),
        (Some(_), _, Some(_)) | (None, Some(_), Some(_)) => Err(format!(
            "both {TOKEN_VAR} and {USER_VAR}/{PASSWORD_VAR} are set: give one of them"
        )),
        (Some(u), Some(p), None) => {
            use base64::Engine;
            let encoded = base64::engine::general_purpose::STANDARD.encode(format!("{u}:{p}"));
            Ok(Some((format!("Basic {encoded}"), "basic")))
        }
        (Some(_), None, None) => Err(format!("{USER_VAR} is set without {PASSWORD_VAR}")),
        (None, Some(_), None) => Err(format!("{PASSWORD_VAR} is set without {USER_VAR}")),
    }
}

impl Server {
    /// A server from its base URL, with the credentials `env` gives (the
    /// process's environment, in the binary).
    pub fn new(
        url: &str,
        timeout: Duration,
        deadline: Duration,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Server, String> {
        let base = checked_base(url)?;
        let auth = auth_from(env)?;
        let config = ureq::Agent::config_builder()
            // A 4xx or 5xx is read like any answer: its body says why.
            .http_status_as_error(false)
            // A redirect is reported, not followed with the credentials.
            .max_redirects(0)
            .user_agent(concat!("perfreport/", env!("CARGO_PKG_VERSION")))
            .build();
        Ok(Server {
            base,
            auth_kind: auth.as_ref().map(|a| a.1),
            auth: auth.map(|a| a.0),
            timeout: timeout.max(Duration::from_millis(1)),
            deadline: deadline.max(Duration::from_millis(1)),
            agent: config.into(),
            slots: Arc::new(Slots::default()),
        })
    }

    /// The server as every output names it: its base URL, which holds no credentials.
    pub(crate) fn shown(&self) -> &str {
        &self.base
    }

    /// What a cache of figures read with this server is keyed by.
    pub(crate) fn tag(&self) -> String {
        format!("prometheus={}", self.base)
    }

    /// One `query_range` request, its answer's body within `MAX_BODY`;
    /// `budget` is what is left of the run's deadline.
    pub(crate) fn query_range(
        &self,
        query: &str,
        (start, end, step): (f64, f64, f64),
        budget: Duration,
    ) -> Result<Vec<u8>, Failure> {
        let _slot = self.slots.take();
        let timeout = self.timeout.min(budget);
        let url = format!("{}/api/v1/query_range", self.base);
        let mut request = self
            .agent
            .get(&url)
            .query("query", query)
            .query("start", secs(start))
            .query("end", secs(end))
            .query("step", secs(step))
            .header("Accept", "application/json");
        if let Some(a) = &self.auth {
            request = request.header("Authorization", a);
        }
        let mut response = request
            .config()
            .timeout_global(Some(timeout))
            .build()
            .call()
            .map_err(|e| self.transport(&e, timeout))?;
        let status = response.status();
        let body = response
            .body_mut()
            .with_config()
            .limit(MAX_BODY)
            .read_to_vec()
            .map_err(|e| self.transport(&e, timeout))?;
        if !status.is_success() {
            return Err(Failure {
                final_: false,
                what: format!(
                    "{} answered {status}{}",
                    self.base,
                    super::api::error_text(&body)
                        .map(|t| format!(": {t}"))
                        .unwrap_or_default()
                ),
            });
        }
        Ok(body)
    }

    /// A transport error in words (what the user can act on first); a
    /// server that cannot be reached or is too slow is not asked again.
    fn transport(&self, e: &ureq::Error, timeout: Duration) -> Failure {
        let server = &self.base;
        let final_ = matches!(
            e,
            ureq::Error::Timeout(_) | ureq::Error::HostNotFound | ureq::Error::ConnectionFailed | ureq::Error::Io(_)
        );
        let what = match e {
            ureq::Error::Timeout(_) => format!(
                "{server} gave no whole answer within {} (--prometheus-timeout, or what was left of --prometheus-deadline)",
                crate::timefmt::human_duration(timeout.as_secs_f64())
            ),
            ureq::Error::BodyExceedsLimit(_) => {
                format!("{server} answered with more than {} MiB: not read", MAX_BODY >> 20)
            }
            ureq::Error::HostNotFound => format!("cannot reach {server}: its host name does not resolve"),
            ureq::Error::ConnectionFailed => format!("cannot reach {server}: the connection failed"),
            ureq::Error::Io(io) => format!("cannot reach {server}: {io}"),
            other => format!("cannot read from {server}: {other}"),
        };
        Failure { what, final_ }
    }
}

/// Seconds as the API takes them: Unix seconds with milliseconds.
fn secs(t: f64) -> String {
    format!("{t:.3}")
}

/// The process's request slots.
#[derive(Default)]
struct Slots {
    taken: Mutex<usize>,
    freed: Condvar,
}

struct Slot<'a>(&'a Slots);

impl Slots {
    fn take(&self) -> Slot<'_> {
        let mut taken = self.taken.lock().unwrap_or_else(|p| p.into_inner());
        while *taken >= IN_FLIGHT {
            taken = self.freed.wait(taken).unwrap_or_else(|p| p.into_inner());
        }
        *taken += 1;
        Slot(self)
    }
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        let mut taken = self.0.taken.lock().unwrap_or_else(|p| p.into_inner());
        *taken = taken.saturating_sub(1);
        self.0.freed.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| vars.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string())
    }

    #[test]
    fn a_url_with_credentials_is_refused_without_repeating_them() {
        let e = checked_base("http://admin:hunter2@prom.lab:9090/").unwrap_err();
        assert!(e.contains(PASSWORD_VAR), "{e}");
        assert!(!e.contains("hunter2") && !e.contains("admin"), "{e}");
        assert_eq!(
            checked_base("https://prom.lab:9090/prometheus/").unwrap(),
            "https://prom.lab:9090/prometheus"
        );
        for bad in [
            "prom.lab:9090",
            "ftp://x",
            "http://",
            "http://x/?a=b",
            "http://x y",
            "http://x/#f",
        ] {
            assert!(checked_base(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn credentials_come_from_the_environment_as_one_kind_and_never_show_in_debug() {
        let (header, kind) = auth_from(&env(&[(USER_VAR, "u"), (PASSWORD_VAR, "p")]))
            .unwrap()
            .unwrap();
        assert_eq!((header.as_str(), kind), ("Basic dTpw", "basic"));
        let (header, _) = auth_from(&env(&[(TOKEN_VAR, "t0k")])).unwrap().unwrap();
        assert_eq!(header, "Bearer t0k");
        assert_eq!(auth_from(&env(&[])).unwrap(), None);
        assert!(auth_from(&env(&[(USER_VAR, "u")])).is_err());
        assert!(auth_from(&env(&[(TOKEN_VAR, "t"), (USER_VAR, "u"), (PASSWORD_VAR, "p")])).is_err());
        let s = Server::new(
            "http://127.0.0.1:9",
            DEFAULT_TIMEOUT,
            DEFAULT_DEADLINE,
            &env(&[(TOKEN_VAR, "s3cret-token")]),
        )
        .unwrap();
        let shown = format!("{s:?} {} {}", s.shown(), s.tag());
        assert!(!shown.contains("s3cret"), "{shown}");
        assert!(shown.contains("bearer token"), "{shown}");
    }

    #[test]
    fn no_more_than_a_few_requests_hold_a_slot_at_once() {
        let slots = Arc::new(Slots::default());
        let most = Arc::new(Mutex::new(0usize));
        std::thread::scope(|s| {
            for _ in 0..3 * IN_FLIGHT {
                let (slots, most) = (slots.clone(), most.clone());
                s.spawn(move || {
                    let _slot = slots.take();
                    let now = *slots.taken.lock().unwrap();
                    let mut m = most.lock().unwrap();
                    *m = (*m).max(now);
                    drop(m);
                    std::thread::yield_now();
                });
            }
        });
        assert!(*most.lock().unwrap() <= IN_FLIGHT);
        assert_eq!(*slots.taken.lock().unwrap(), 0);
    }
}
