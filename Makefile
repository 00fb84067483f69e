# Energy-aware scheduling on a simulated hybrid x86: kernels, guest runs, analysis.
# `make demo` and `make check` are the two entry points; see README.md.

SHELL := /bin/bash
PYTHON := /usr/bin/python3
# A module of analysis/ (contract, easan, easlab) as a command.
PYMOD := PYTHONPATH=$(CURDIR)/analysis $(PYTHON) -m
BUILD := $(CURDIR)/build

KERNEL ?= patched
KCONFIG ?= default
PROFILE ?= rt-app-profiles/smoke.json
DEMO_PROFILE ?= rt-app-profiles/capped-hogs.json
export CPUS CMDLINE TIMEOUT MEM ACCEL SETUP SETUPS PLATFORM

READER := $(BUILD)/analysis/eas-trace-reader
RUNS ?=
VS ?=

.PHONY: all deps kernel kernels initramfs run demo check check-host check-guest \
	check-debug debug-profiles clean help analysis report bench-analysis bench-speed bench-push bench-trace \
	experiments experiments-slurm experiments-lava lava-results check-slurm deps-slurm prefixes soak

all: help

help:
	@echo "make demo                 install, build both kernels, run $(DEMO_PROFILE) on each, A/B report"
	@echo "make check                every test: check-host, check-guest, check-debug (each on its own too)"
	@echo "make run PROFILE=F [KERNEL=base|patched|notrace] [KCONFIG=default|debug] [CPUS=n] [CMDLINE=...]"
	@echo "make kernel [KERNEL=..] [KCONFIG=..], make kernels, make initramfs, make deps"
	@echo "make report RUNS='dir...' [VS='dir...']  report.html/md + metrics.json (A/B with VS)"
	@echo "make bench-analysis [BENCH_RUN=dir|synthetic]  analysis speed vs trace-cmd report on a 1 M-event trace"
	@echo "make prefixes [FROM=n]    every prefix of the series builds (slow; FROM: the n-th on)"
	@echo "make bench-speed [REPS=n] capacity-faithful speed: E-core vs P-core run time"
	@echo "make bench-push [REPS=n]  fair push on/off: hackbench and a pipe ping-pong, interleaved"
	@echo "make bench-trace [REPS=n] trace events off vs a kernel without them (notrace), interleaved boots"
	@echo "make experiments [EXPERIMENTS='a b'] [REPS=n] [JOBS=j] [SMALL=1]  experiments/*.json, claims judged"
	@echo "make experiments-slurm [EXPERIMENTS=..] [REPS=n] [WAIT=1]  the same sweep as Slurm job arrays"
	@echo "make experiments-lava ARTIFACTS=URL [DEVICE=qemu|x86] [RAMDISKS=1] [EXPERIMENTS=..]  LAVA job"
	@echo "                          definitions (RAMDISKS=1: and build/lava/artifacts/ to serve at URL)"
	@echo "make lava-results LOG=job.log OUT=dir  a lab run's folder from its console log, judged"
	@echo "make check-slurm          a two-run sweep on a single-node Slurm started here (slower than check)"
	@echo "make soak                 200 CPU offline/online cycles while pushes fire (debug kernel)"
	@echo "make debug-profiles       every profile on the debug (lockdep) kernel (not a test: a sweep)"
	@echo "make clean                remove build/ (the ccache stays)"
	@echo "variables (make run, demo, experiments): PROFILE, KERNEL, KCONFIG, PLATFORM (TYPE:COUNT:CAP,..),"
	@echo "  CPUS, CMDLINE, SETUP, SETUPS (guest/vm/setups/*.sh), TIMEOUT (s), MEM, ACCEL (auto|tcg|kvm),"
	@echo "  DEMO_PROFILE, RUNS, VS, REPS, JOBS, EXPERIMENTS, SMALL, WAIT, ARTIFACTS, DEVICE, RAMDISKS,"
	@echo "  LOG, OUT, BENCH_RUN"

deps:
	@guest/host/deps.sh

kernel: deps
	@guest/kernel/kernel.sh $(KERNEL) $(KCONFIG)

kernels: deps
	@guest/kernel/kernel.sh base default
	@guest/kernel/kernel.sh patched default

# The C trace reader the analysis calls (libtracecmd).
analysis: $(READER)

$(READER): analysis/reader/eas-trace-reader.c | deps
	@mkdir -p $(dir $@)
	$(CC) -O2 -Wall -Wextra -Wno-missing-field-initializers -o $@ $< \
		$$(pkg-config --cflags --libs libtracecmd)

report: $(READER)
	@test -n "$(RUNS)" || { echo "usage: make report RUNS='build/runs/A ...' [VS='build/runs/B ...']" >&2; exit 2; }
	@analysis/report $(RUNS) $(if $(VS),--vs $(VS))

# Not a test: the analysis of a >= 1 M-event trace vs trace-cmd report, as a ratio; of a
# guest run of rt-app-profiles/bench/churn.json, or BENCH_RUN (a run folder, or synthetic: one
# written on the host, no kernel needed).
bench-analysis: $(READER) $(if $(BENCH_RUN),,kernels initramfs)
	@$(PYMOD) easlab.bench_analysis $(if $(filter synthetic,$(BENCH_RUN)),--synthetic,$(BENCH_RUN))

# Slow: the series applies with git am and every prefix of it builds.
prefixes: deps
	@PREFIXES_FROM=$(FROM) guest/kernel/kernel.sh --prefixes

# Not a test: capacity-faithful speed (E/P run time, P-core overhead), two boots per REPS.
bench-speed: kernels initramfs
	@$(PYMOD) easlab.bench_speed

# Not a test: the fair push's cost on hackbench and a pipe ping-pong, push on/off
# interleaved in one boot of the patched kernel; REPS=n (default 10) pairs.
bench-push: kernels initramfs
	@$(PYMOD) easlab.bench_push

# The trace events' cost while off: base against the series cut before them.
bench-trace: kernels initramfs
	@guest/kernel/kernel.sh notrace default
	@$(PYMOD) easlab.bench_trace

# Not part of check: the hotplug test's job with 200 cycles instead of 20.
soak: deps initramfs
	@guest/kernel/kernel.sh patched debug
	@run=$$(SETUP=guest/vm/setups/hotplug-soak.sh JOB=guest/vm/jobs/hotplug-push.sh \
		TIMEOUT=$${TIMEOUT:-3600} guest/host/run.sh rt-app-profiles/capped-hogs.json patched debug) && \
		$(PYMOD) easlab.hotplug_check "$$(tail -n 1 <<<"$$run")" 200

# experiments/NAME.json as sweeps (analysis/sweep): REPS, JOBS, SMALL=1 from the
# command line; build/reports/experiments/index.html.
experiments: kernels initramfs $(READER)
	@analysis/sweep run $(EXPERIMENTS)

experiments-slurm: kernels initramfs $(READER)
	@analysis/sweep slurm $(if $(WAIT),--wait) $(EXPERIMENTS)

experiments-lava: deps $(if $(RAMDISKS),kernels initramfs)
	@analysis/sweep lava --artifacts "$(ARTIFACTS)" --device $(or $(DEVICE),qemu) \
		$(if $(RAMDISKS),--ramdisks) $(EXPERIMENTS)

lava-results: deps
	@analysis/sweep lava-results "$(LOG)" --out "$(OUT)"

deps-slurm:
	@guest/host/deps.sh slurm

# Not part of check: a single-node Slurm (munged, slurmctld, slurmd) on localhost,
# a two-run sweep of experiments/smoke.json submitted to it, daemons stopped after.
check-slurm: deps-slurm kernels initramfs $(READER)
	@guest/host/slurm-local.sh $(BUILD)/slurm $(PYTHON) -m pytest -q -p no:cacheprovider tests/slurm

initramfs: deps
	@guest/host/initramfs.sh

# Checks happen in run.sh before anything is built or booted, so a bad PROFILE or
# KERNEL fails in a second.
run: deps
	@guest/host/run.sh --check-only "$(PROFILE)" "$(KERNEL)" "$(KCONFIG)"
	@guest/kernel/kernel.sh $(KERNEL) $(KCONFIG)
	@guest/host/initramfs.sh
	@guest/host/run.sh "$(PROFILE)" "$(KERNEL)" "$(KCONFIG)"

demo: kernels initramfs $(READER)
	@guest/host/demo.sh "$(DEMO_PROFILE)"

check: check-host check-guest check-debug

check-host: deps $(READER)
	@$(PYTHON) -m pytest -q -p no:cacheprovider tests/host

check-guest: kernels initramfs $(READER)
	@$(PYTHON) -m pytest -q -p no:cacheprovider tests/guest

# The debug kernel: a profile and the cpufreq mode switches, no splat allowed.
check-debug: deps initramfs $(READER)
	@guest/kernel/kernel.sh patched debug
	@$(PYTHON) -m pytest -q -p no:cacheprovider tests/debug

# Every profile of the library on the debug kernel (slower; a sweep, not part of check).
debug-profiles: deps initramfs
	@guest/kernel/kernel.sh patched debug
	@for p in rt-app-profiles/*.json; do guest/host/run.sh "$$p" patched debug || exit 1; done

clean:
	rm -rf $(BUILD)
