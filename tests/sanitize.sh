#!/usr/bin/env bash
# The sanitize part of the suite (run by tests/run.sh after the main suite, and in CI): builds the library,
# adjsim and the tests with AddressSanitizer + UndefinedBehaviorSanitizer (-DADJSIM_SANITIZE=ON) in
# $ADJSIM_SANITIZE_BUILD (default <repo>/build-sanitize), and runs there the tests labelled sanitize: every
# solver's (transport, fluid, MPM) forward, gradient, restart and bad-input tests, the I/O, checkpoint and revolve
# tests (tests/*/CMakeLists.txt: adjsim_sanitize(...)).  A memory error or an undefined behaviour stops the
# program with a report and a nonzero exit, so the test fails; tests/common/expect_fail.sh also fails a refusal
# test whose output holds a sanitizer report.
# Extra arguments go to ctest.
set -euo pipefail
source "$(dirname "$0")/../jobs/lib/adjsim-env.sh"
adjsim_ensure_packages test
ADJSIM_BUILD=${ADJSIM_SANITIZE_BUILD:-$ADJSIM_ROOT/build-sanitize}
# -O2 as the Release build (the same code paths), with line numbers in the reports.
ADJSIM_BUILD_TYPE=RelWithDebInfo adjsim_configure -DADJSIM_SANITIZE=ON

cmake --build "$ADJSIM_BUILD" -j "$(nproc)" >/dev/null

adjsim_mpi_env
export OMPI_MCA_mpi_yield_when_idle=1
# halt_on_error: the first report stops the program.  Leaks: LeakSanitizer's scan at exit costs tens of
# seconds per process (measured 20-100 s on the loaded 2-core machine), so it is off here, and on (LSAN_OPTIONS in
# the test's environment, adjsim_sanitize_leaks in tests/*/CMakeLists.txt) for one gradient run per solver with
# disk checkpoints.  tests/sanitize/lsan.supp lists what it suppresses (Open MPI's memory of MPI_Init and
# MPI_Finalize) and why; its entries match function names deep in the allocation stack, so those tests also set
# fast_unwind_on_malloc=0 (whole stacks through the Debian libraries, built without frame pointers).
# tests/tools/valgrind_decks.sh looks for leaks on every path of one small deck per solver (not in CI).
export ASAN_OPTIONS=halt_on_error=1:detect_leaks=0:strict_string_checks=1
export LSAN_OPTIONS=suppressions=$ADJSIM_ROOT/tests/sanitize/lsan.supp
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
cd "$ADJSIM_BUILD"
ctest --output-on-failure --no-tests=error -j "$(nproc)" -L sanitize "$@"
