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

.PHONY: perf-report perf-ratios perf-publish perf-serve samples test

perf-report:
	PERF_ROOT=$(PERF_ROOT) $(PERFREPORT) report $(RUN) $(if $(OUT),--out $(OUT))

perf-publish:
	$(PERFREPORT) publish $(PERF_ROOT) --site $(SITE) $(if $(BENCH_SITE),--bench $(BENCH_SITE))
ifeq ($(PUSH),1)
	@test -n "$(PUBLISH_CMD)" || { echo "PUSH=1 needs PUBLISH_CMD (e.g. an rsync to the web host)"; exit 2; }
	$(PUBLISH_CMD)
endif

perf-serve:
	PERF_ROOT=$(PERF_ROOT) $(PERFREPORT) serve $(RUN) --bind $(PERF_BIND)

perf-ratios:
	$(PERFREPORT) ratios $(BENCH) $(if $(FLEET),--fleet $(FLEET)) $(if $(OUT),--out $(OUT))

# Regenerate the bundled sample runs (deterministic: the same bytes every time).
samples:
	rm -rf sample-runs/*/
	cargo run --release --quiet --example synth -- samples sample-runs

test:
	cargo test
