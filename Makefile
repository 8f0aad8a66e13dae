# Entry points of the fleet's perf tooling. PERF_ROOT is where the harness
# leaves one directory per run; RUN picks one (default: the newest).
PERF_ROOT ?= /var/tmp/rocm-perf
RUN ?=
OUT ?=
PERFREPORT ?= cargo run --release --quiet --

BENCH ?= bench.jsonl
FLEET ?=

.PHONY: perf-report perf-ratios samples test

perf-report:
	PERF_ROOT=$(PERF_ROOT) $(PERFREPORT) report $(RUN) $(if $(OUT),--out $(OUT))

perf-ratios:
	$(PERFREPORT) ratios $(BENCH) $(if $(FLEET),--fleet $(FLEET)) $(if $(OUT),--out $(OUT))

# Regenerate the bundled sample runs (deterministic: the same bytes every time).
samples:
	rm -rf sample-runs/*/
	cargo run --release --quiet --example synth -- samples sample-runs

test:
	cargo test
