#!/usr/bin/env bash
# Runs the whole adjsim test suite: installs missing Debian packages (as root), configures,
# builds, and runs ctest.  Extra arguments go to ctest, e.g. tests/run.sh -L adjoint
set -euo pipefail
source "$(dirname "$0")/../jobs/lib/adjsim-env.sh"
adjsim_ensure_packages test
adjsim_build
adjsim_mpi_env
# Oversubscribed test runs (4 ranks on 2 cores): idle ranks yield the core instead of spinning.
export OMPI_MCA_mpi_yield_when_idle=1
cd "$ADJSIM_BUILD"
ctest --output-on-failure -j "$(nproc)" "$@"
