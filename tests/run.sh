#!/usr/bin/env bash
# Runs the whole adjsim test suite: installs missing Debian packages (as root), configures,
# builds, and runs ctest.  Extra arguments go to ctest, e.g. tests/run.sh -L adjoint
set -euo pipefail
source "$(dirname "$0")/../jobs/lib/adjsim-env.sh"
adjsim_ensure_packages test
adjsim_build
adjsim_mpi_env
cd "$ADJSIM_BUILD"
ctest --output-on-failure -j "$(nproc)" "$@"
