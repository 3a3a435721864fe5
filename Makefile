# SPDX-License-Identifier: GPL-2.0
# Two commands do everything on a fresh machine (see README.md):
#   make report   build base and patched, run the suites, print the matrix
#   make test     the host scripts' unit tests, then the verification
PYTHON ?= python3
TOOL := $(PYTHON) scripts/mmseries.py

.PHONY: report test verify unit trees deps clean

report test verify unit trees deps:
	@$(TOOL) $@

# Results only; the kernel repo, worktrees and ccache stay in the cache.
clean:
	rm -rf build
