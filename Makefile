# Entry points of the fleet's perf tooling. PERF_ROOT is where the harness
# leaves one directory per run; RUN picks one (default: the newest).
PERF_ROOT ?= /var/tmp/rocm-perf
RUN ?=
OUT ?=
PERFREPORT ?= cargo run --release --quiet --

BENCH ?= bench.jsonl
FLEET ?=

SITE ?= site
PERF_BIND ?= 127.0.0.1:8090
# Set by the user, e.g. PUBLISH_CMD='rsync -a --delete site/ web:/srv/perf/'
PUBLISH_CMD ?=
PUSH ?=
# A bench.jsonl whose ratios page the site links, if any.
BENCH_SITE ?=
# The nightly gate's reports for CI: JUnit XML and a markdown job summary
# (e.g. JUNIT=gate.xml SUMMARY=$$GITHUB_STEP_SUMMARY); SITE_URL links the summary to the site.
JUNIT ?=
SUMMARY ?=
SITE_URL ?=
# ALLOW_EMPTY=1: a night with nothing to gate (a lane's first nights) passes.
ALLOW_EMPTY ?=
# The reviewed file of accepted regressions (default: perf-accepted.toml in
# PERF_ROOT); FAIL_ON_OPEN=1 keeps the lane red while one is open and not
# accepted. A lane that shares PERF_ROOT with others gates only its own keys:
# GATE_ARCH, GATE_MODE, GATE_JOBS; LANE names it in the root's ledger of calls.
ACCEPTED ?=
FAIL_ON_OPEN ?=
GATE_ARCH ?=
GATE_MODE ?=
GATE_JOBS ?=
LANE ?=
# A file the gate's own exit status is written to (make reports any failed
# recipe as 2; scripts/nightly.sh reads the gate's 1 or 3 from here).
GATE_STATUS ?=
# The fleet's Prometheus, e.g. PERF_PROMETHEUS=http://prometheus.lab:9090:
# report, publish and serve read the nodes' samples from it instead of
# samples.jsonl (credentials in PERF_PROMETHEUS_USER/PASSWORD or _TOKEN).
PERF_PROMETHEUS ?=
# Handed to the commands through the environment, never spliced into the
# shell line: a URL's `&` or a path's space stays a character.
export PERF_ROOT RUN OUT SITE BENCH_SITE PERF_BIND BENCH FLEET JUNIT SUMMARY SITE_URL GATE_STATUS PERF_PROMETHEUS ACCEPTED GATE_ARCH GATE_MODE GATE_JOBS LANE

.PHONY: perf-report perf-gate perf-ratios perf-publish perf-serve samples test

perf-report:
	$(PERFREPORT) report $(if $(RUN),"$$RUN") $(if $(OUT),--out "$$OUT")

# Gates the night: the newest run of every key that started within 24 h of
# the newest run under PERF_ROOT. Exit 0 passed, 1 regressed, 2 unusable, 3 nothing gated.
perf-gate:
	$(PERFREPORT) gate --history "$$PERF_ROOT" $(if $(JUNIT),--junit "$$JUNIT") $(if $(SUMMARY),--summary "$$SUMMARY") $(if $(SITE_URL),--site-url "$$SITE_URL") $(if $(filter 1,$(ALLOW_EMPTY)),--allow-empty) \
	  $(if $(ACCEPTED),--accepted "$$ACCEPTED") $(if $(filter 1,$(FAIL_ON_OPEN)),--fail-on-open) \
	  $(if $(GATE_ARCH),--arch "$$GATE_ARCH") $(if $(GATE_MODE),--mode "$$GATE_MODE") $(if $(GATE_JOBS),--jobs "$$GATE_JOBS") $(if $(LANE),--lane "$$LANE"); \
	status=$$?; if [ -n "$$GATE_STATUS" ]; then echo $$status > "$$GATE_STATUS"; fi; exit $$status

perf-publish:
	$(if $(filter 1,$(PUSH)),@test -n "$(PUBLISH_CMD)" || { echo "PUSH=1 needs PUBLISH_CMD (e.g. an rsync to the web host): nothing was published"; exit 2; })
	$(PERFREPORT) publish "$$PERF_ROOT" --site "$$SITE" $(if $(BENCH_SITE),--bench "$$BENCH_SITE")
ifeq ($(PUSH),1)
	$(PUBLISH_CMD)
endif

perf-serve:
	$(PERFREPORT) serve $(if $(RUN),"$$RUN") --bind "$$PERF_BIND"

perf-ratios:
	$(PERFREPORT) ratios "$$BENCH" $(if $(FLEET),--fleet "$$FLEET") $(if $(OUT),--out "$$OUT")

# Regenerate the bundled sample runs (deterministic: the same bytes every time).
samples:
	rm -rf sample-runs/*/
	cargo run --release --quiet --example synth -- samples sample-runs

test:
	cargo test
