# SPDX-License-Identifier: GPL-2.0
# Two commands do everything on a fresh machine (see README.md):
#   make report   build base and patched, run the suites, print the matrix
#   make test     the host scripts' unit tests, then the verification
#   make bench    the A/B benchmark report alone
#                 (PROFILE=smoke|quick|full, BOOTS=n, CLOCK=host|icount)
PYTHON ?= python3
TOOL := $(PYTHON) scripts/mmseries.py
PROFILE ?= quick
BOOTS ?= 4
CLOCK ?= host

.PHONY: report test verify unit trees deps bench clean

report test verify unit trees deps:
	@$(TOOL) $@

bench:
	@$(TOOL) bench --profile=$(PROFILE) --boots=$(BOOTS) --clock=$(CLOCK)

# Results only; the kernel repo, worktrees and ccache stay in the cache.
clean:
	rm -rf build
