#!/usr/bin/env bash
# The default job, on a workstation or laptop (no Slurm): the inverse scalar-transport demo.
#  1. a forward run writes dye snapshots (the "observations"),
#  2. an inverse run recovers the diffusivity and the initial dye field from them with TAO,
#  3. a summary compares what was recovered with the truth.
# Installs missing Debian packages (as root) and builds adjsim first.
# usage: jobs/run-local.sh [ranks (default 2)] [output directory (default runs/demo)]
set -euo pipefail
source "$(dirname "$0")/lib/adjsim-env.sh"
np=${1:-2}
out=${2:-$ADJSIM_ROOT/runs/demo}
adjsim_ensure_packages
adjsim_build
adjsim_mpi_env
mkdir -p "$out"
cd "$out"
echo "== 1/3 forward run: observations (inputs/transport_truth.yaml, $np ranks)"
mpiexec -n "$np" "$ADJSIM_BUILD/adjsim" -options_file "$ADJSIM_ROOT/inputs/transport_truth.yaml"
echo "== 2/3 inverse run: recover kappa and the initial field (inputs/transport_inverse.yaml)"
mpiexec -n "$np" "$ADJSIM_BUILD/adjsim" -options_file "$ADJSIM_ROOT/inputs/transport_inverse.yaml"
echo "== 3/3 summary of $out/demo-inverse.h5"
"$ADJSIM_PYTHON" "$ADJSIM_ROOT/postprocess/adjsim_summary.py" demo-inverse.h5 --truth demo-observations.h5
echo "Files in $out: demo-observations.h5/.xmf (open the .xmf in ParaView), demo-inverse.h5/.xmf"
