#!/usr/bin/env bash
# jobs/slurm/design-multipoint.sbatch outside Slurm (mpiexec, 2 ranks): a two-point optimization of
# tests/optim/multipoint.yaml with ADJSIM_RANKS_PER_POINT=1 finishes and writes the multipoint datasets; a split
# that does not fit the ranks (2 per point x 2 points on 2 ranks) is refused by adjsim with its message and a
# nonzero exit; ADJSIM_RANKS_PER_POINT that is not a count is refused by the script (exit 2).
# usage: design_multipoint_local.sh <adjsim> <python with h5py> <repository>
set -u -o pipefail
adjsim=$1 python=$2 root=$3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
export ADJSIM_BIN=$adjsim ADJSIM_LAUNCHER=mpiexec ADJSIM_NP=2 ADJSIM_ROOT=$root ADJSIM_MPIEXEC_FLAGS=--oversubscribe
fail() { echo "FAIL: $*"; exit 1; }
rm -rf mp && mkdir mp && cd mp || fail "cannot create mp/"
job() { bash "$root/jobs/slurm/design-multipoint.sbatch" "$root/tests/optim/multipoint.yaml" "$PWD/$1" -mode optimize \
  -design_points 2 -design_point1_fluid_body_alpha 8 -tao_max_it 1; }
ADJSIM_RANKS_PER_POINT=1 job ok >ok.log 2>&1 || { cat ok.log; fail "the two-point job exited nonzero"; }
grep -q "1 rank(s) per point" ok.log || { cat ok.log; fail "the job did not pass the ranks per point"; }
"$python" - <<'PY' || fail "the run file lacks the multipoint datasets"
import h5py, sys
f = h5py.File("ok/multipoint.h5", "r")
o = f["optimization"]
ok = "multipoint_weights" in o and "stop_reason" in o.attrs and len(o["objective"]) >= 1
print("run file:", list(o), dict(o.attrs).get("stop_reason"))
sys.exit(0 if ok else 1)
PY
ADJSIM_RANKS_PER_POINT=2 job split >split.log 2>&1 && { cat split.log; fail "2 ranks per point x 2 points on 2 ranks exited 0"; }
grep -q "needs 4 ranks, this run has 2" split.log || { cat split.log; fail "the refusal of the split does not say why"; }
ADJSIM_RANKS_PER_POINT=two job word >word.log 2>&1
rc=$?
[ "$rc" -eq 2 ] || { cat word.log; fail "ADJSIM_RANKS_PER_POINT=two exited $rc, expected 2"; }
grep -q "ADJSIM_RANKS_PER_POINT=two: not a positive whole number" word.log || { cat word.log; fail "no message for ADJSIM_RANKS_PER_POINT=two"; }
echo "ok: two-point design job, refused splits"
