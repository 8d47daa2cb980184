# Entry points, each one script call; `make help` lists them.  See README.md.
# BASE selects the kernel base (configs/base-$(BASE).pin; the default is in
# scripts/lib.sh); every output goes to build/$(BASE)/.

VARIANT ?= patched
BASE ?=
# BASE= (empty) leaves the choice to scripts/lib.sh
export BASE
ifeq ($(BASE),)
unexport BASE
endif

.PHONY: all help demo bench deps tree export kernel image_name pcp-selftest selftest \
	mm-selftests check check-full series figures check-series clean

all: bench

help:
	@echo 'make [TARGET] [BASE=7.3|6.12] [VARIANT=patched|base|debug|tracers|rt]   (BASE: 7.3 = mainline, the default; 6.12 = the backport)'
	@echo '  bench         (= make, make demo) the benchmark: both kernels, every setting -> build/BASE/report/'
	@echo '  check         the test suite CI runs (tests/run; tests/run -l lists, -t NAME runs one)'
	@echo '  check-full    check + the slow tier: debug kernel, build matrix, mm selftests, bisect builds'
	@echo '  tree          build/BASE/linux: the base commit + the series, applied with git am'
	@echo '  export        write build/BASE/linux commits back to the series folder'
	@echo '  kernel        build the guest kernel VARIANT -> build/BASE/kernel-VARIANT/bzImage'
	@echo '  image_name    print the bzImage path make kernel builds for BASE and VARIANT'
	@echo '  pcp-selftest  the series kselftest -> build/BASE/selftests/pcp_batch_test (old name: selftest)'
	@echo '  mm-selftests  the kernel own mm selftests -> build/BASE/selftests/mm/'
	@echo '  series        build/BASE/outgoing/N-NAME/: one folder per posting (patches/postings), send-email ready'
	@echo '  figures       check every quoted figure against docs/results/ (bench/analysis/figures.py check)'
	@echo '  check-series  checkpatch, commit messages, W=1/sparse, and per posting: apply, cover letter, mail round trip'
	@echo '  deps          install the Debian packages the project needs'
	@echo '  clean         remove the outputs of every base except base trees and build/BASE/linux'

demo bench: deps
	@bench/run

deps:
	@scripts/deps

tree: deps
	@scripts/tree

export:
	@scripts/export

kernel: deps
	@scripts/kernel $(VARIANT)

image_name:
	@scripts/kernel --print-image $(VARIANT)

pcp-selftest selftest: deps
	@scripts/userspace pcp-selftest

mm-selftests: deps
	@scripts/userspace mm-selftests

check: deps
	@tests/run

check-full: deps
	@tests/run --full

series: deps
	@scripts/series

figures:
	@bench/analysis/figures.py check

check-series: deps
	@tests/check-series

clean:
	@scripts/clean
