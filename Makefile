# SPDX-License-Identifier: GPL-2.0
# Two commands do everything on a fresh machine (see README.md):
#   make report   build base and patched, run the suites, print the matrix,
#                 checkpatch every patch, then the A/B benchmark report
#   make test     the host scripts' tests, the verification, checkpatch and
#                 a smoke run of every benchmark; ends "N passed, N failed"
#   make bench    the A/B benchmark report alone
#                 (both: PROFILE=smoke|quick|full, BOOTS=n,
#                 CLOCK=host|icount|both, by default both side by side)
#   make mutants  every mutant of kunit/mutants/ must be killed (MUTANT=names,
#                 GRANULE=16k|64k|nothp moves the main lane's ones there)
#   make mutate   generated mutants of each patch's added C lines and of
#                 the base lines of every function it changes, judged
#                 (PATCH="00NN ...", SCOPE=added|touched|both, SAMPLE=n
#                 per patch and scope, SEED=s); on demand; verdicts are
#                 committed (kunit/mutate-verdicts.tsv), keyed by content
#   make hunks    which hunks of the series a mutant pins (no kernel build)
#   make walk     the suites at every prefix of the series (BENCH=glob,
#                 BOOTS=n, CLOCK=icount by default, or host: which patch
#                 moved which benchmark; GRANULE=main|16k|64k|nothp)
#   make granules both trees on 4K, 16K, 64K pages and without THP
#   make sanitize the patched tree under KASAN, lockdep, kmemleak & co.
#   make cross    every prefix for x86_64 and riscv64; suites on x86_64
#   make stable   the series on the newest linux-source-6.12 of the archive
#                 (VERSION=..., LANES=main,16k); on demand, never make test
#   make lava     every cell as a LAVA job (LANES=a,b URL=... BOARD=type)
#   make lava-run the qemu jobs here with lava-run (LANES=main,ptc,16k)
#   make lava-submit LAB=identity / make lava-collect LAB=identity
PYTHON ?= python3
TOOL := $(PYTHON) scripts/mmseries.py
PROFILE ?= quick
BOOTS ?= 3
CLOCK ?= both

.PHONY: report test verify unit trees deps bench mutants mutate walk \
	sanitize cross granules hunks clean lava lava-run lava-submit \
	lava-collect stable

test verify unit trees deps sanitize cross granules hunks:
	@$(TOOL) $@

report bench:
	@$(TOOL) $@ --profile=$(PROFILE) --boots=$(BOOTS) --clock=$(CLOCK)

mutants:
	@$(TOOL) mutants $(if $(GRANULE),--granule=$(GRANULE)) \
		$(if $(LAVA),--lava) $(MUTANT)

mutate:
	@$(TOOL) mutate $(if $(PATCH),--patch $(PATCH)) \
		$(if $(SAMPLE),--sample=$(SAMPLE)) $(if $(SEED),--seed=$(SEED)) \
		$(if $(SCOPE),--scope=$(SCOPE)) $(if $(LAVA),--lava) \
		$(if $(SEPARATE),--separate) $(if $(RECHECK),--recheck) \
		$(if $(ID0),--id0="$(ID0)")

stable:
	@$(TOOL) stable $(if $(VERSION),--version=$(VERSION)) \
		$(if $(LANES),--lanes=$(LANES))

lava:
	@$(TOOL) lava $(if $(LANES),--lanes=$(LANES)) $(if $(URL),--url=$(URL)) \
		$(if $(BOARD),--board=$(BOARD)) $(if $(DTB),--dtb=$(DTB))

lava-run:
	@$(TOOL) lava-run $(if $(LANES),--lanes=$(LANES))

lava-submit lava-collect:
	@$(TOOL) $@ --lab=$(LAB) $(if $(filter lava-submit,$@),$(if $(BOARD),--board))

walk:
	@$(TOOL) walk $(if $(GRANULE),--granule=$(GRANULE)) \
		$(if $(BENCH),--bench=$(BENCH) --boots=$(BOOTS) \
		--clock=$(if $(filter both,$(CLOCK)),icount,$(CLOCK)))

# Results only; the kernel repo, worktrees and ccache stay in the cache.
clean:
	rm -rf build
