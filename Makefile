# Entry points; each one calls a script in scripts/, tests/ or bench/.
# make          the main job (= make demo): measure every setting, write build/report/
# make check    the test suite CI runs
# See README.md.

VARIANT ?= patched
SELFTEST := build/selftests/pcp_batch_test

.PHONY: all demo deps tree export kernel selftest mm-selftests check check-full series check-series clean

all: demo

deps:
	@scripts/deps

demo: deps
	@bench/run

tree: deps
	@scripts/tree

export:
	@scripts/export

kernel: deps
	@scripts/kernel $(VARIANT)

# The series' kselftest, built with the kernel's own selftests Makefile.
selftest: deps
	@[ -d build/linux/.git ] || scripts/tree
	@mkdir -p build/selftests
	@$(MAKE) -s -C build/linux/tools/testing/selftests/mm \
		OUTPUT=$(CURDIR)/build/selftests $(CURDIR)/$(SELFTEST)

# The kernel's own mm selftests (tests/peer), against the patched tree's
# uapi headers.  -k: khugepaged.c does not build in 6.12.117 (KSFT_SKIP
# undeclared); its tests then fail alike on both kernels.
mm-selftests: deps
	@[ -d build/linux/.git ] || scripts/tree
	@scripts/kernel patched headers
	@mkdir -p build/selftests/mm
	@$(MAKE) -k -s -C build/linux/tools/testing/selftests/mm \
		OUTPUT=$(CURDIR)/build/selftests/mm \
		KHDR_INCLUDES="-isystem $(CURDIR)/build/kernel-patched/usr/include" || \
		echo "mm-selftests: some did not build (see above); tests/peer compares what did"

check: deps
	@tests/run

check-full: deps
	@tests/run --full

series: deps
	@scripts/series

check-series: deps
	@tests/check-series

clean:
	rm -rf build/kernel-* build/selftests build/report build/outgoing build/vm
