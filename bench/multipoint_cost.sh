#!/usr/bin/env bash
# Cost of concurrent design points (docs/multipoint.md, "Cost: concurrent points"): the wall time of one gradient
# evaluation of inputs/airfoil_design_multipoint.yaml with its 2 points on 2 ranks (one each) and on 4 ranks (two
# each), against one point alone on 1 and 2 ranks (the same deck without its design_point keys), `repeats` times each.
# Printed: the single point's AdjGradient time (-log_view) and the multipoint evaluation's wall time and its points'
# solve times (the multipoint: lines). On dedicated cores the ratio (2 points on 2R ranks) / (1 point on R ranks)
# should be close to 1; on a loaded or oversubscribed machine the points share cores and it approaches 2.
# usage: bash bench/multipoint_cost.sh [build dir] [repeats]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$here/build}" && pwd)
repeats=${2:-3}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
run=$build/adjsim
[ -x "$run" ] || { echo "build first: cmake -S $here -B $build && cmake --build $build"; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
deck=$here/inputs/airfoil_design_multipoint.yaml
grep -vE '^design_point|^  fluid_body_alpha: 6|^  constraint_lift_point' "$deck" >"$out/single.yaml"
echo "cores $(nproc), load average $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$repeats"); do
  for np in 1 2; do
    t=$(cd "$out" && mpiexec -n $np --bind-to none "$run" -options_file single.yaml -mode gradient -quiet \
      -output s.h5 -log_view | awk '$1 == "AdjGradient" { print $4 }')
    echo "repeat $r: 1 point on $np rank(s): AdjGradient $t s"
    (cd "$out" && mpiexec -n $((2 * np)) --bind-to none "$run" -options_file "$deck" -mode gradient -quiet \
      -output m.h5 | grep -E '^multipoint:' | sed "s/^/repeat $r: 2 points on $((2 * np)) ranks: /")
  done
done
