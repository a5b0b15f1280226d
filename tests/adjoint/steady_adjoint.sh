#!/usr/bin/env bash
# Steady-state adjoints (-adjoint_steady, docs/steady.md) on one case, four runs of the same design:
#   1. the steady gradient (GMRES) on 1 rank, with a Taylor test (fails below rate 1.9),
#   2. the same on 2 ranks: equal to round-off,
#   3. the same by plain fixed-point iteration (KSP richardson: the unsteady reverse sweep at x*), with several times
#      as many step-adjoint applications: equal to round-off, so the parameter gradient that every application adds
#      inside the solver does not leak into the result (it is zeroed before the final application),
#   4. the ordinary unsteady revolve gradient of the same objective at the last step of a run long enough to be
#      steady: equal to the steady tolerance,
#   5. run 1 again with -steady_adjoint_retake_step (the forward step retaken at x* before every step-adjoint
#      application): bit for bit run 1's gradient, which took the step once (the solver's adjoint keeps the step's
#      intermediates: AdjStepperSetAdjointKeepsStep), as the recorded forward-step counts must show.
# The run files must record the steady run (adjoint_mode, the KSP's figures, final_step < N, stop_reason steady_tol).
# usage: steady_adjoint.sh <mpiexec> <adjsim> <python> <compare.py> <tag> <physics> <T> <N> <tol> <unsteady rtol>
#                          "<Taylor options>" -- options...
set -euo pipefail
mpiexec=$1 adj=$2 py=$3 compare=$4 tag=$5 phys=$6 T=$7 N=$8 tol=$9 urtol=${10} taylor=${11}
shift 11
[ "$1" = "--" ] && shift
run() { local np=$1; shift; "$mpiexec" -n "$np" --oversubscribe --bind-to none "$adj" "$@" -mode gradient \
  -${phys}_final_time "$T" -${phys}_steps "$N"; }
steady=(-adjoint_steady -steady_tol "$tol")

# shellcheck disable=SC2086
run 1 "$@" "${steady[@]}" -adjoint_taylor_test $taylor -output ${tag}_np1.h5 | grep -E 'steady adjoint|gradient:|Taylor test: smallest'
run 2 "$@" "${steady[@]}" -output ${tag}_np2.h5 | grep -E 'steady adjoint|gradient:'
run 1 "$@" "${steady[@]}" -steady_adjoint_ksp_type richardson -output ${tag}_fixedpoint.h5 | grep -E 'steady adjoint'
run 1 "$@" -checkpoint_ram 64 -output ${tag}_unsteady.h5 | grep -E 'gradient:'
run 1 "$@" "${steady[@]}" -steady_adjoint_retake_step -output ${tag}_retake.h5 | grep -E 'steady adjoint'
"$py" "$compare" ${tag}_np1.h5 ${tag}_retake.h5 --groups /gradients --exact
"$py" "$compare" ${tag}_np1.h5 ${tag}_np2.h5 --groups /gradients --rtol 1e-10
"$py" "$compare" ${tag}_np1.h5 ${tag}_fixedpoint.h5 --groups /gradients --rtol 1e-10
"$py" "$compare" ${tag}_np1.h5 ${tag}_unsteady.h5 --groups /gradients --rtol "$urtol"
"$py" - ${tag}_np1.h5 ${tag}_fixedpoint.h5 ${tag}_unsteady.h5 "$N" "$urtol" <<'PY'
import sys, h5py
g = [h5py.File(f, "r")["/gradients"].attrs for f in sys.argv[1:4]]
N, urtol = int(sys.argv[4]), float(sys.argv[5])
for a, kind in zip(g[:2], ("gmres", "richardson")):
    assert a["adjoint_mode"] == b"steady", f"adjoint_mode {a['adjoint_mode']!r}"
    assert a["steady_adjoint_ksp_type"] == kind.encode(), f"ksp type {a['steady_adjoint_ksp_type']!r} != {kind}"
    assert a["steady_adjoint_reason"].startswith(b"CONVERGED"), f"reason {a['steady_adjoint_reason']!r}"
    assert a["stop_reason"] == b"steady_tol" and a["final_step"][0] < N, f"stopped at {a['final_step']} of {N}"
    assert a["steady_adjoint_residual"] <= 1e-12 * a["steady_adjoint_rhs_norm"] * 1.0001, "residual above rtol"
na, nb = g[0]["steady_adjoint_applications"][0], g[1]["steady_adjoint_applications"][0]
r = h5py.File(sys.argv[1].replace("_np1.h5", "_retake.h5"), "r")["/gradients"].attrs
steps = (g[0]["steady_adjoint_forward_steps"][0], r["steady_adjoint_forward_steps"][0])
assert steps == (0, r["steady_adjoint_applications"][0]), f"forward steps at x* (once, retaken): {steps}"

assert nb >= 2 * na, f"fixed-point iteration used {nb} step-adjoint applications, GMRES {na}: not a pollution test"
J = [a["objective"] for a in g]
assert abs(J[0] - J[1]) <= 1e-12 * abs(J[0]), f"objectives differ: {J[0]!r} {J[1]!r}"
assert abs(J[0] - J[2]) <= urtol * abs(J[0]), f"steady J {J[0]!r} != unsteady J {J[2]!r}"
print(f"steady adjoint: GMRES {na}, fixed point {nb} step-adjoint applications, same gradient; "
      f"retaking the step {steps[1]} times gives it bit for bit; "
      f"steady state at step {g[0]['final_step'][0]} of {N}; J steady {J[0]!r} unsteady {J[2]!r}")
PY
