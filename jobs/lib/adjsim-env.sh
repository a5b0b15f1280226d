# adjsim set-up helpers, sourced by jobs/run-local.sh, tests/run.sh and bench/ scripts.
#   adjsim_ensure_packages [test]  install what is missing (Debian 12, as root) or explain what is missing
#   adjsim_build [cmake -D...] configure (with these extra settings) and build into $ADJSIM_BUILD (default <repo>/build)
#   adjsim_mpi_env           Open MPI settings for this script's own runs (root, oversubscription)
# Nothing here is exported to the caller's shell beyond the sourcing script.

ADJSIM_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ADJSIM_BUILD=${ADJSIM_BUILD:-$ADJSIM_ROOT/build}
ADJSIM_PYTHON=${ADJSIM_PYTHON:-/usr/bin/python3}

# Debian 12 packages adjsim needs to build, run and post-process,
ADJSIM_PACKAGES=(cmake make gcc pkg-config openmpi-bin libopenmpi-dev petsc-dev libfftw3-dev libfftw3-mpi-dev
  libhdf5-openmpi-dev python3-h5py python3-numpy python3-matplotlib)
# and those only the test suite needs (a real Slurm, ParaView under a virtual display).
ADJSIM_TEST_PACKAGES=(munge slurm-wlm python3-paraview xvfb xauth)

adjsim_missing_packages() {
  local p missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  echo "${missing[@]:-}"
}

# adjsim_ensure_packages [test]: the build/run packages, and with "test" the test-suite ones too.
adjsim_ensure_packages() {
  local wanted=("${ADJSIM_PACKAGES[@]}")
  [ "${1:-}" = test ] && wanted+=("${ADJSIM_TEST_PACKAGES[@]}")
  if ! command -v dpkg-query >/dev/null 2>&1; then
    # Not Debian (a cluster with modules): trust the environment if the libraries are visible.
    if pkg-config --exists PETSc && command -v mpicc >/dev/null && command -v cmake >/dev/null; then return 0; fi
    echo "adjsim: PETSc (pkg-config PETSc), MPI (mpicc) and CMake are needed; load them (e.g. module load petsc) and retry" >&2
    return 1
  fi
  local missing
  missing=$(adjsim_missing_packages "${wanted[@]}")
  [ -z "$missing" ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    echo "adjsim: missing Debian packages: $missing" >&2
    echo "adjsim: ask an administrator to run: apt-get install $missing" >&2
    return 1
  fi
  echo "adjsim: installing $missing"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
}

adjsim_build() {
  adjsim_configure "$@" && cmake --build "$ADJSIM_BUILD" -j "$(nproc)" >/dev/null
}

# adjsim_configure [cmake -D...]: only the configure step of adjsim_build.
adjsim_configure() {
  local type=${ADJSIM_BUILD_TYPE:-Release}
  cmake -S "$ADJSIM_ROOT" -B "$ADJSIM_BUILD" -DCMAKE_BUILD_TYPE="$type" -DADJSIM_PYTHON="$ADJSIM_PYTHON" "$@" >/dev/null
}

adjsim_mpi_env() {
  # Open MPI refuses to run as root unless told; only for this script's own runs.
  if [ "$(id -u)" -eq 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  fi
  # Let small machines run more ranks than cores.
  export OMPI_MCA_rmaps_base_oversubscribe=1
}
