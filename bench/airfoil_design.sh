#!/usr/bin/env bash
# Lift-constrained drag minimization on the body-fitted airfoil solver (issue 14's validation case; not run by CI;
# the figures go to docs/airfoil.md, "Body-fitted airfoil design"):
#   1. the design: inputs/airfoil_design_lift_constrained.yaml (NACA 0012 at Re 1000, C_L = 0.25 over t in [6, 12],
#      t/c(0.3) >= 0.12, area >= start; 64 x 32 cells, far field 20), or the deck given as $2;
#   2. a fresh forward run of the start and of the final design on a finer grid (96 x 48 cells, far field 50 chords,
#      the validation's grid m) to t = 40 (and the same window [6, 12] averaged), forces from /history/forces;
#   3. the pictures: convergence, start/final shapes with the fine runs' C_p, the final shape as a Selig .dat file.
# usage: bash bench/airfoil_design.sh [ranks, default 2] [deck] [output dir]
#   The design, fine runs and pictures go to the output dir (default runs/bench-airfoil_design);
#   a design.h5 already there is reused (the fine runs likewise). Report: stdout and
#   bench/results/airfoil_design-<date>.txt. Environment: ADJSIM_BUILD (default <repo>/build-bench).
set -euo pipefail
np=${1:-2}
# shellcheck source=bench-lib.sh
source "$(dirname "$0")/bench-lib.sh"
bench_setup airfoil_design time
deck=${2:-$root/inputs/airfoil_design_lift_constrained.yaml}
out=${3:-$root/runs/bench-airfoil_design}
py=$ADJSIM_PYTHON
here=$root
run=$exe
bench_header "airfoil design on the body-fitted solver: $(basename "$deck"), $np ranks, output in $out"
mkdir -p "$out"
cd "$out"
design=design.h5
if [ ! -f $design ]; then
  t0=$(date +%s)
  mpiexec -n "$np" --oversubscribe --bind-to none "$run" -options_file "$deck" -output $design | tee design.log
  say "design wall time: $(( $(date +%s) - t0 )) s"
fi
grep -E "^optimize: (final|[0-9]+ evaluations|DIVERGED|CONVERGED)" design.log | tee -a "$report" || true
# start and final design: alpha and the NACA m, p, t from /optimization/design (row 0) and /parameters
read -r a0 s0 a1 s1 < <("$py" - "$design" <<'PY'
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
o = f["optimization"]
names = o.attrs["design_blocks"].decode().split(",")
off, size, scale = o.attrs["design_offsets"], o.attrs["design_sizes"], o.attrs["design_scales"]
row = {n: scale[k] * o["design"][0, off[k]:off[k] + size[k]] for k, n in enumerate(names)}
a0 = row.get("alpha", f["parameters/alpha"][()])[0]
s0 = row.get("shape", f["parameters/shape"][()])
a1, s1 = f["parameters/alpha"][0], f["parameters/shape"][()]
print(f"{a0:.17g}", ",".join(f"{v:.17g}" for v in s0), f"{a1:.17g}", ",".join(f"{v:.17g}" for v in s1))
PY
)
fine="-problem airfoil -airfoil_body naca4 -airfoil_re 1000 -airfoil_grid_around 96 -airfoil_grid_normal 50
      -airfoil_wall_spacing 0.00533 -airfoil_farfield 50 -airfoil_final_time 40 -airfoil_quiet -output_interval 100000"
for which in start final; do
  if [ $which = start ]; then a=$a0 s=$s0; else a=$a1 s=$s1; fi
  IFS=, read -r m p t <<<"$s"
  # the NACA block entries (m, p, t) given directly: a design's m, p, t are not a 4-digit designation
  t0=$(date +%s)
  [ -f fine_$which.h5 ] || mpiexec -n "$np" --oversubscribe --bind-to none "$run" $fine -airfoil_alpha "$a" \
      -airfoil_naca_mpt "$m,$p,$t" -output fine_$which.h5 > fine_$which.log
  "$py" - fine_$which.h5 $which "$a" "$s" $(( $(date +%s) - t0 )) <<'PY' | tee -a "$report"
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
h = f["history/forces"][()]
t = h[:, 1]
w = (t >= 6) & (t <= 12)
print(f"{sys.argv[2]:>6}: alpha {float(sys.argv[3]):.4f} m,p,t {sys.argv[4]}  fine grid 96 x 48, far field 50: "
      f"window [6,12] C_D {h[w, 2].mean():.5f} C_L {h[w, 3].mean():.5f}; t = {t[-1]:.1f}: C_D {h[-1, 2]:.5f} "
      f"C_L {h[-1, 3]:.5f}  ({sys.argv[5]} s)")
PY
done
"$py" "$here/postprocess/adjsim_airfoil_design.py" convergence $design -o convergence.png > convergence.txt
"$py" "$here/postprocess/adjsim_airfoil_design.py" shapes $design --cp fine_start.h5 fine_final.h5 \
  --labels start final -o shapes.png
"$py" "$here/postprocess/adjsim_airfoil_design.py" export-dat $design -o final.dat
say "pictures and the final shape: $out/convergence.png, shapes.png, final.dat"
