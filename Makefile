# Energy-aware scheduling on a simulated hybrid x86: kernels, guest runs, analysis.
# `make demo` and `make check` are the two entry points; see README.md.

SHELL := /bin/bash
PYTHON := /usr/bin/python3
BUILD := $(CURDIR)/build

KERNEL ?= patched
KCONFIG ?= default
PROFILE ?= rt-app-profiles/smoke.json
DEMO_PROFILE ?= rt-app-profiles/smoke.json
export CPUS CMDLINE TIMEOUT MEM ACCEL SETUP PLATFORM

.PHONY: all deps kernel kernels initramfs run demo check check-host check-guest \
	check-debug debug-check clean help

all: help

help:
	@echo "make demo                 install, build both kernels, run $(DEMO_PROFILE) on each"
	@echo "make check                every test (host and guest)"
	@echo "make run PROFILE=F [KERNEL=base|patched] [KCONFIG=default|debug] [CPUS=n] [CMDLINE=...]"
	@echo "make kernel [KERNEL=..] [KCONFIG=..], make kernels, make initramfs, make deps"
	@echo "make debug-check          every profile on the debug (lockdep) kernel"
	@echo "make clean                remove build/ (the ccache stays)"

deps:
	@guest/deps.sh

kernel: deps
	@guest/kernel.sh $(KERNEL) $(KCONFIG)

kernels: deps
	@guest/kernel.sh base default
	@guest/kernel.sh patched default

initramfs: deps
	@guest/initramfs.sh

# Checks happen in run.sh before anything is built or booted, so a bad PROFILE or
# KERNEL fails in a second.
run: deps
	@guest/run.sh --check-only "$(PROFILE)" "$(KERNEL)" "$(KCONFIG)"
	@guest/kernel.sh $(KERNEL) $(KCONFIG)
	@guest/initramfs.sh
	@guest/run.sh "$(PROFILE)" "$(KERNEL)" "$(KCONFIG)"

demo: kernels initramfs
	@guest/demo.sh "$(DEMO_PROFILE)"

check: check-host check-guest check-debug

check-host: deps
	@$(PYTHON) -m pytest -q -p no:cacheprovider tests/host

check-guest: kernels initramfs
	@$(PYTHON) -m pytest -q -p no:cacheprovider tests/guest

# The debug kernel: a profile and the cpufreq mode switches, no splat allowed.
check-debug: deps initramfs
	@guest/kernel.sh patched debug
	@$(PYTHON) -m pytest -q -p no:cacheprovider tests/debug

# Every profile of the library on the debug kernel (slower; not part of check).
debug-check: deps initramfs
	@guest/kernel.sh patched debug
	@for p in rt-app-profiles/*.json; do guest/run.sh "$$p" patched debug || exit 1; done

clean:
	rm -rf $(BUILD)
