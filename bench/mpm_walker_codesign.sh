#!/usr/bin/env bash
# Co-design of the soft walker (inputs/mpm_walker_codesign.yaml, docs/mpm.md "Co-design"): open-loop actuation and
# Young's modulus per region optimized together, against the actuation alone at the fixed initial material
# (inputs/mpm_walker.yaml), from the same start, same objective (J = -c_x(T)/L + energy penalty) and the same number
# of iterations.  Measures the distance travelled per body length, (c_x(T) - c_x(0)) / L with L = 0.2 m, of both
# optima by forward runs without the penalty; prints both optimizer histories and the optimized E per region.
#
# usage: bash bench/mpm_walker_codesign.sh [ranks, default 2] [extra adjsim options for both, e.g. -tao_max_it 60]
# Environment: ADJSIM_BUILD (default <repo>/build-bench), BENCH_KEEP=1.
# Report: stdout and bench/results/mpm_walker_codesign-<date>.txt.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
np=${1:-2}
shift || true
# shellcheck source=bench-lib.sh
source "$root/bench/bench-lib.sh"
bench_setup mpm_walker_codesign time
bench_header "adjsim MPM soft walker: co-design (actuation + E per region) vs actuation only ($np ranks)"
codesign=$root/inputs/mpm_walker_codesign.yaml
actonly=$root/inputs/mpm_walker.yaml
PY=${ADJSIM_PYTHON:-/usr/bin/python3}

say "load $(load): optimizing actuation and E together ($*)"
t0=$(date +%s)
run codesign "$np" -options_file "$codesign" "$@"
t1=$(date +%s)
say "co-design optimization: $((t1 - t0)) s wall"
say "load $(load): optimizing the actuation alone ($*)"
run actonly "$np" -options_file "$actonly" "$@"
t2=$(date +%s)
say "actuation-only optimization: $((t2 - t1)) s wall"
fwd=(-options_file "$actonly" -mode forward -mpm_actuation_energy_weight 0 -output_interval 750)
run start "$np" "${fwd[@]}"
run codesign_after "$np" "${fwd[@]}" -mpm_actuation_coefficients "$(parameter_values codesign actuation)" -mpm_E "$(parameter_values codesign E)"
run actonly_after "$np" "${fwd[@]}" -mpm_actuation_coefficients "$(parameter_values actonly actuation)"

"$PY" - "$work" <<'PYEOF' | tee -a "$report"
import sys, h5py
work = sys.argv[1]
L = 0.2  # body length [m]

def distance(name):
    with h5py.File(f"{work}/{name}/run.h5", "r") as f:
        x = f["particles/position"][()]  # (T, N, 2)
        return (x[-1, :, 0].mean() - x[0, :, 0].mean()) / L

hist = {}
for name in ("codesign", "actonly"):
    with h5py.File(f"{work}/{name}/run.h5", "r") as f:
        o = f["optimization"]
        hist[name] = list(zip(o["iteration"][()], o["objective"][()], o["gradient_norm"][()]))
print("iteration  co-design: J          |grad|      actuation only: J     |grad|")
for i in range(max(len(h) for h in hist.values())):
    row = f"{i:9d}"
    for name in ("codesign", "actonly"):
        h = hist[name]
        row += f"  {h[i][1]: .10f}  {h[i][2]:.4e}" if i < len(h) else " " * 30
    print(row)
with h5py.File(f"{work}/codesign/run.h5", "r") as f:
    print("co-design E per label (body, back leg left, right, front leg left, right) [kPa]:",
          ", ".join(f"{e / 1e3:.2f}" for e in f["parameters/E"][()]))
print(f"distance per body length in T = 0.6 s (no penalty): start {distance('start'):.4f}, "
      f"actuation only {distance('actonly_after'):.4f}, co-design {distance('codesign_after'):.4f}")
PYEOF
