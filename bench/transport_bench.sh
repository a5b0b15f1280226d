#!/usr/bin/env bash
# Scalar-transport benchmark (not a test: figures for the issue notes).  Measures, in one run:
#  1. forward throughput: cell-steps per second per core on a 1024x1024 periodic grid, 1 and 2 ranks;
#  2. one adjoint step relative to one forward step (kernel TrStepAdj vs TrStep, and the full
#     reverse step, which recomputes the forward step and adds the objective terms);
#  3. the total cost of a gradient with c = 10 revolve slots over n = 1000 steps, relative to
#     (n + t(n,c)) forward steps plus n adjoint steps measured in the same run.
# usage: bench/transport_bench.sh [grid for part 3 (default 256)]
set -euo pipefail
source "$(dirname "$0")/../jobs/lib/adjsim-env.sh"
adjsim_ensure_packages
adjsim_build
adjsim_mpi_env
ADJ=$ADJSIM_BUILD/adjsim
g3=${1:-256}
work=$(mktemp -d /tmp/adjsim-bench-XXXXXX)
cd "$work"

# event <logfile> <name> -> "count maxtime" from a -log_view table
event() { awk -v e="$2" '$1 == e { print $2, $4; exit }' "$1"; }

echo "== 1. forward throughput, 1024 x 1024 periodic, 40 steps"
for np in 1 2; do
  mpiexec -n $np "$ADJ" -transport_grid 1024,1024 -transport_steps 40 -transport_final_time 0.01 -transport_velocity rotation \
    -quiet -output fwd.h5 -log_view > fwd_np$np.log
  read -r n t < <(event fwd_np$np.log TrStep)
  awk -v n="$n" -v t="$t" -v np="$np" 'BEGIN { cs = 1024*1024*n/t; printf "  %d rank(s): %d steps in %.3f s: %.3e cell-steps/s, %.3e per core\n", np, n, t, cs, cs/np }'
done

echo "== 2. adjoint step vs forward step, 1024 x 1024, 40 steps, store-all"
mpiexec -n 1 "$ADJ" -transport_grid 1024,1024 -transport_steps 40 -transport_final_time 0.004 -transport_velocity rotation \
  -quiet -output target.h5 > /dev/null
mpiexec -n 1 "$ADJ" -transport_grid 1024,1024 -transport_steps 40 -transport_final_time 0.004 -transport_velocity rotation \
  -transport_kappa 2e-3 -transport_target_file target.h5 -mode gradient -checkpoint_type all -quiet -output adj.h5 -log_view > adj.log
read -r nf tf < <(event adj.log TrStep)
read -r na ta < <(event adj.log TrStepAdj)
read -r nr tr < <(event adj.log AdjReverseStep)
awk -v nf="$nf" -v tf="$tf" -v na="$na" -v ta="$ta" -v nr="$nr" -v tr="$tr" 'BEGIN {
  f = tf/nf; a = ta/na; r = tr/nr
  printf "  forward step %.4f s, adjoint step %.4f s: ratio %.2f\n", f, a, a/f
  printf "  full reverse step (recompute + objective + adjoint) %.4f s: ratio %.2f\n", r, r/f }'

echo "== 3. gradient with c = 10 slots over n = 1000 steps, ${g3} x ${g3}"
mpiexec -n 1 "$ADJ" -transport_grid $g3,$g3 -transport_steps 1000 -transport_final_time 0.2 -transport_velocity rotation \
  -quiet -output target3.h5 > /dev/null
mpiexec -n 1 "$ADJ" -transport_grid $g3,$g3 -transport_steps 1000 -transport_final_time 0.2 -transport_velocity rotation \
  -transport_kappa 2e-3 -transport_target_file target3.h5 -mode gradient -checkpoint_ram 10 -checkpoint_monitor false \
  -output grad3.h5 -log_view > grad3.log
read -r nf tf < <(event grad3.log TrStep)
read -r na ta < <(event grad3.log TrStepAdj)
read -r ng tg < <(event grad3.log AdjGradient)
grep -E "forward steps|recomputed|peak" grad3.log | sed 's/^/  /' || true
awk -v nf="$nf" -v tf="$tf" -v na="$na" -v ta="$ta" -v tg="$tg" 'BEGIN {
  # t(n,c) from the closed form: r smallest with C(c+r,c) >= n, t = r n - C(c+r, r-1)
  n = 1000; c = 10; r = 0; b = 1
  while (b < n) { r++; b = b * (c + r) / r }
  bm = 1; for (i = 1; i <= r - 1; i++) bm = bm * (c + 1 + i) / i
  t = r * n - bm
  f = tf/nf; a = ta/na; ideal = (n + t) * f + n * a
  printf "  r = %d, t(n,c) = %d, forward steps performed %d (n + t = %d)\n", r, t, nf, n + t
  printf "  gradient %.3f s; (n+t) forward + n adjoint steps = %.3f s; ratio %.3f\n", tg, ideal, tg/ideal
  printf "  gradient / one forward run (n steps) = %.2f\n", tg/(n*f) }'
echo "logs in $work"
