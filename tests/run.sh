#!/usr/bin/env bash
# Runs the adjsim test suite: installs missing Debian packages (as root), configures, builds, and runs
#   1. the main suite: every test, ctest -j$(nproc) in $ADJSIM_BUILD (default build/);
#   2. the sanitize part (tests/sanitize.sh): an AddressSanitizer + UBSan build in build-sanitize/ and there the
#      tests labelled sanitize (every solver's forward, gradient, restart and bad-input tests, I/O, revolve).
# Exits nonzero if either fails.  Extra arguments go to the main suite's ctest and skip the sanitize part,
# e.g. tests/run.sh -L adjoint.
set -euo pipefail
source "$(dirname "$0")/../jobs/lib/adjsim-env.sh"
adjsim_ensure_packages test
adjsim_build
adjsim_mpi_env
# Oversubscribed test runs (4 ranks on 2 cores): idle ranks yield the core instead of spinning.
export OMPI_MCA_mpi_yield_when_idle=1
cd "$ADJSIM_BUILD"
# ctest starts the tests that took longest last time first (Testing/Temporary/CTestCostData.txt, which it
# rewrites after every run), so that no long test starts last and runs alone; a fresh build directory has no
# such file: seed it with the times of a measured run (tests/ctest-cost.txt; regenerate it by copying that
# file of a full run).
if [ ! -f Testing/Temporary/CTestCostData.txt ]; then
  mkdir -p Testing/Temporary && cp "$ADJSIM_ROOT/tests/ctest-cost.txt" Testing/Temporary/CTestCostData.txt
fi
rc=0
ctest --output-on-failure -j "$(nproc)" "$@" || rc=$?
if [ $# -eq 0 ]; then
  bash "$ADJSIM_ROOT/tests/sanitize.sh" || rc=1
fi
exit $rc
