#!/usr/bin/env bash
# The steady adjoint's options (docs/steady.md) on the small Brinkman cylinder of steady_adjoint_fluid:
#   1. a forward run to the steady state (its run file keeps the final state in /restart),
#   2. the steady gradient, plain GMRES(100), 1 rank,
#   3. the same preconditioned by 4 fixed-point sweeps (-steady_adjoint_sweeps 4) on 2 ranks: the same gradient to
#      round-off (1e-10), in fewer KSP iterations, each worth 4 step adjoints (the run file records the sweeps),
#   4. the gradient marching from run 1's final state (-steady_initial, with -steady_monitor): the march takes one
#      step, the gradient equals run 2's to the steady tolerance (1e-9, as against the unsteady gradient), and its
#      Taylor test passes (rate 2; the checks' fixed-length runs march from the initial state: from the warm state a
#      fixed step count would not be the steady objective at the perturbed parameters).
# usage: steady_options.sh <mpiexec> <adjsim> <python> <compare.py> <deck>
set -euo pipefail
mpiexec=$1 adj=$2 py=$3 compare=$4 deck=$5
run() { local np=$1; shift; "$mpiexec" -n "$np" --oversubscribe --bind-to none "$adj" -options_file "$deck" \
  -fluid_final_time 17.5 -fluid_steps 320 -adjoint_steady -steady_tol 1e-10 "$@"; }
run 1 -mode forward -output stopt_forward.h5 | grep -E 'forward:'
run 1 -output stopt_gmres.h5 | grep -E 'steady adjoint'
run 2 -steady_adjoint_sweeps 4 -output stopt_sweeps.h5 | grep -E 'steady adjoint'
run 1 -steady_initial stopt_forward.h5 -steady_monitor 1 -adjoint_taylor_test -adjoint_taylor_h0 2e-3 \
  -adjoint_taylor_levels 3 -output stopt_initial.h5 | tee stopt_initial.log |
  grep -E 'steady adjoint|Taylor test: smallest'
"$py" "$compare" stopt_gmres.h5 stopt_sweeps.h5 --groups /gradients --rtol 1e-10
"$py" "$compare" stopt_gmres.h5 stopt_initial.h5 --groups /gradients --rtol 1e-9
"$py" - <<'PY'
import h5py
fw = h5py.File("stopt_forward.h5", "r")["/"].attrs
g, s, i = (h5py.File(f"stopt_{r}.h5", "r")["/gradients"].attrs for r in ("gmres", "sweeps", "initial"))
its = (g["steady_adjoint_iterations"][0], s["steady_adjoint_iterations"][0])
assert (g["steady_adjoint_sweeps"][0], s["steady_adjoint_sweeps"][0]) == (1, 4), "sweeps not recorded"
assert its[1] < its[0], f"4 sweeps per iteration did not cut the KSP iterations: {its}"
assert s["steady_adjoint_applications"][0] >= 3 * its[1], "the sweeps were not applied"
assert s["steady_adjoint_residual"] <= 1e-12 * s["steady_adjoint_rhs_norm"] * 1.0001, "true residual above rtol"
n0, n1 = fw["final_step"][0], i["final_step"][0]
assert n1 == n0 + 1, f"the warm-started march should take one step from step {n0}, stopped at {n1}"
lines = [l for l in open("stopt_initial.log") if l.startswith("steady march:")]
assert lines and f"step {n1} " in lines[0], f"-steady_monitor 1 printed {lines[:3]}"
assert any(l.startswith("steady march: step 1 ") for l in lines[1:]), "the Taylor test's runs did not march from 0"
print(f"steady options: GMRES {its[0]} iterations, with 4 sweeps {its[1]} ({s['steady_adjoint_applications'][0]} "
      f"step adjoints), same gradient; warm start from step {n0}: steady at step {n1}, same gradient")
PY
