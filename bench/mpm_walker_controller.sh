#!/usr/bin/env bash
# The soft walker driven by a closed-loop neural-network controller (inputs/mpm_walker_controller.yaml, docs/mpm.md
# "Closed-loop controller"), optimized from its seeded initialization, against the open-loop walker
# (inputs/mpm_walker.yaml) optimized from its small random coefficients with the same objective (the energy penalty
# off: the controller has none) and the same number of iterations.  Measures the distance travelled by the particle
# centroid per body length, (c_x(T) - c_x(0)) / L with L = 0.2 m, before and after, by forward runs; prints both
# optimizer histories (objective, gradient norm per iteration) and the wall times.
#
# usage: bash bench/mpm_walker_controller.sh [ranks, default 2] [extra adjsim options for both, e.g. -tao_max_it 60]
# Environment: ADJSIM_BUILD (default <repo>/build-bench), BENCH_KEEP=1.
# Report: stdout and bench/results/mpm_walker_controller-<date>.txt.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
np=${1:-2}
shift || true
# shellcheck source=bench-lib.sh
source "$root/bench/bench-lib.sh"
bench_setup mpm_walker_controller time
bench_header "adjsim MPM soft walker: closed-loop controller vs open-loop actuation ($np ranks)"
ctrl=$root/inputs/mpm_walker_controller.yaml
open=$root/inputs/mpm_walker.yaml
PY=${ADJSIM_PYTHON:-/usr/bin/python3}

say "load $(load): optimizing the controller ($*)"
t0=$(date +%s)
run ctrl_optimize "$np" -options_file "$ctrl" "$@"
t1=$(date +%s)
say "controller optimization: $((t1 - t0)) s wall"
say "load $(load): optimizing the open-loop signal, energy penalty off ($*)"
run open_optimize "$np" -options_file "$open" -mpm_actuation_energy_weight 0 "$@"
t2=$(date +%s)
say "open-loop optimization: $((t2 - t1)) s wall"
w=$(parameter_values ctrl_optimize controller)
c=$(parameter_values open_optimize actuation)
run ctrl_before "$np" -options_file "$ctrl" -mode forward -output_interval 750
run ctrl_after "$np" -options_file "$ctrl" -mode forward -output_interval 750 -mpm_controller_weights "$w"
run open_before "$np" -options_file "$open" -mode forward -mpm_actuation_energy_weight 0 -output_interval 750
run open_after "$np" -options_file "$open" -mode forward -mpm_actuation_energy_weight 0 -output_interval 750 \
  -mpm_actuation_coefficients "$c"

"$PY" - "$work" <<'PYEOF' | tee -a "$report"
import sys, h5py
work = sys.argv[1]
L = 0.2  # body length [m]

def distance(name):
    with h5py.File(f"{work}/{name}/run.h5", "r") as f:
        x = f["particles/position"][()]  # (T, N, 2); every particle has the same mass (one density, one lattice)
        return (x[-1, :, 0].mean() - x[0, :, 0].mean()) / L

hist = {}
for name in ("ctrl_optimize", "open_optimize"):
    with h5py.File(f"{work}/{name}/run.h5", "r") as f:
        o = f["optimization"]
        hist[name] = list(zip(o["iteration"][()], o["objective"][()], o["gradient_norm"][()]))
print("iteration  controller: J = -c_x(T)/L   |grad|      open loop: J = -c_x(T)/L   |grad|")
for i in range(max(len(h) for h in hist.values())):
    row = f"{i:9d}"
    for name in ("ctrl_optimize", "open_optimize"):
        h = hist[name]
        row += f"  {h[i][1]: .10f}  {h[i][2]:.4e}  " if i < len(h) else " " * 34
    print(row)
for label, pre in (("controller (548 weights)", "ctrl"), ("open loop (20 coefficients)", "open")):
    print(f"{label:28s} distance per body length in T = 0.6 s: before {distance(pre + '_before'):.4f}, "
          f"after {distance(pre + '_after'):.4f}")
PYEOF
