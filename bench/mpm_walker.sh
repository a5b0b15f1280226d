#!/usr/bin/env bash
# The soft-walker locomotion demo (inputs/mpm_walker.yaml, docs/mpm.md "Actuation"): optimize the open-loop actuation
# of the two-legged walker from small random coefficients (fixed seed), then measure the distance travelled by the
# centre of mass per body length, (c_x(T) - c_x(0)) / L with L = 0.2 m, before and after, by forward runs without
# the energy penalty; prints the optimizer history (objective, gradient norm per iteration) and the wall times.
#
# usage: bash bench/mpm_walker.sh [ranks, default 2] [extra adjsim options, e.g. -tao_max_it 60]
# Environment: ADJSIM_BUILD (default <repo>/build-bench), BENCH_KEEP=1.
# Report: stdout and bench/results/mpm_walker-<date>.txt.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
np=${1:-2}
shift || true
# shellcheck source=bench-lib.sh
source "$root/bench/bench-lib.sh"
bench_setup mpm_walker time
bench_header "adjsim MPM soft walker: open-loop actuation optimized from small random coefficients ($np ranks)"
deck=$root/inputs/mpm_walker.yaml
PY=${ADJSIM_PYTHON:-/usr/bin/python3}

say "load $(load): optimizing ($*)"
t0=$(date +%s)
run optimize "$np" -options_file "$deck" "$@"
t1=$(date +%s)
say "optimization: $((t1 - t0)) s wall"
coef=$(parameter_values optimize actuation)
fwd=(-options_file "$deck" -mode forward -mpm_actuation_energy_weight 0 -output_interval 750)
run before "$np" "${fwd[@]}"
run after "$np" "${fwd[@]}" -mpm_actuation_coefficients "$coef"

"$PY" - "$work" <<'EOF' | tee -a "$report"
import sys, h5py, numpy as np
work = sys.argv[1]
L = 0.2  # body length [m]

def distance(name):
    with h5py.File(f"{work}/{name}/run.h5", "r") as f:
        x = f["particles/position"][()]  # (T, N, 2); every particle has the same mass (one density, one lattice)
        return (x[-1, :, 0].mean() - x[0, :, 0].mean()) / L, x[0, :, 0].mean()

with h5py.File(f"{work}/optimize/run.h5", "r") as f:
    o = f["optimization"]
    print("iteration  J (= -c_x(T)/L + energy penalty)  |grad|")
    for it, J, g in zip(o["iteration"][()], o["objective"][()], o["gradient_norm"][()]):
        print(f"{it:9d}  {J: .10f}                     {g:.4e}")
    print("optimized coefficients:", np.array2string(f["parameters/actuation"][()], precision=3, max_line_width=110))
d0, c0 = distance("before")
d1, _ = distance("after")
print(f"c_x(0) = {c0:.5f} m; distance per body length in T = 0.6 s: before {d0:.4f}, after {d1:.4f}")
EOF
