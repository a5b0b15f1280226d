#!/usr/bin/env bash
# The default design deck (inputs/airfoil_design_default.yaml) shrunk to a few seconds: a 24 x 8 O-grid, 0.2 c/U,
# one outer iteration of TAOALMM with one subsolver step.  Requires exit 0, the constraints' Taylor tests (lift:
# rate 2; thickness: linear in the NACA parameters, round-off remainders; area: rate 2) passing, an iteration
# line with the constraint report, and the final report of every constraint.
# usage: design_small.sh ADJSIM DECK [mpiexec args...]
set -u
adjsim=$1 deck=$2; shift 2
out=$(mktemp)
trap 'rm -f "$out" afdesign_small.h5' EXIT
"$@" "$adjsim" -options_file "$deck" -airfoil_grid_around 24 -airfoil_grid_normal 9 -airfoil_wall_spacing 0.02 \
  -airfoil_farfield 6 -airfoil_final_time 0.2 -airfoil_objective_window 0.1,0.2 -tao_max_it 1 \
  -tao_almm_subsolver_tao_max_it 1 -optimize_constraints_taylor_test -optimize_constraints_taylor_levels 3 \
  -output afdesign_small.h5 >"$out" 2>&1
rc=$?
cat "$out"
[ $rc -eq 0 ] || { echo "FAIL: exit status $rc"; exit 1; }
for re in "Taylor test of constraint lift: smallest second-order rate [0-9.]+ .*PASS" \
          "Taylor test of constraint thickness@0.3: .*PASS" \
          "Taylor test of constraint area: smallest second-order rate [0-9.]+ .*PASS" \
          "optimize: iteration +1 +J = " \
          "KKT residual [0-9.e+-]+ +max violation [0-9.e+-]+ +lift = [0-9.]+ .*thickness@0.3 = 0.1[0-9]* .*area = 0.0[0-9]*" \
          "final constraint lift +=.*\(>= 0.3\) +violation" \
          "final constraint thickness@0.3 +=.*\(>= 0.12\) +violation" \
          "final constraint area +=.*\(>= 0.081706\) +violation"; do
  grep -Eq "$re" "$out" || { echo "FAIL: no line matching '$re'"; exit 1; }
done
echo "PASS"
