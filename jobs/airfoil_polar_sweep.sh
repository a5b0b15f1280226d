#!/usr/bin/env bash
# A polar sweep of one airfoil on the body-fitted solver: one forward run (adjsim -problem airfoil) per angle of
# attack, each writing PREFIX_aALPHA.h5, one after the other on NP ranks. The runs of two designs (e.g. NACA 0012
# and an optimized shape exported with `postprocess/adjsim_airfoil_design.py export-dat`) then go to
#   /usr/bin/python3 postprocess/adjsim_airfoil_design.py polar --design start A_a*.h5 --design final B_a*.h5 -o polar.png
# (docs/postprocess-design.md).
#
# usage: jobs/airfoil_polar_sweep.sh [-n NP] [-x ADJSIM] -a "ALPHA ALPHA ..." -o PREFIX [-- adjsim options...]
#   -n NP       ranks per run (default 1)
#   -x ADJSIM   the adjsim executable (default: $ADJSIM, else build/adjsim of this checkout)
#   -a ALPHAS   the angles of attack [deg], separated by spaces or commas
#   -o PREFIX   output prefix: files PREFIX_a<alpha>.h5 (the directory must exist)
#   after --     options for every run, e.g. -options_file inputs/airfoil_naca0012_re1000.yaml, or
#                -airfoil_body dat -airfoil_dat final.dat, grid and time options
# A failed run stops the sweep with its exit status; a bad option of this script exits 2.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
np=1
exe=${ADJSIM:-$here/build/adjsim}
alphas=""
prefix=""
usage() { sed -n '8,15p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    -n) [ $# -ge 2 ] || usage; np=$2; shift 2 ;;
    -x) [ $# -ge 2 ] || usage; exe=$2; shift 2 ;;
    -a) [ $# -ge 2 ] || usage; alphas=${2//,/ }; shift 2 ;;
    -o) [ $# -ge 2 ] || usage; prefix=$2; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "airfoil_polar_sweep.sh: unknown argument '$1'" >&2; usage ;;
  esac
done
[ -n "$alphas" ] || { echo "airfoil_polar_sweep.sh: give the angles of attack with -a \"0 2 4\"" >&2; exit 2; }
[ -n "$prefix" ] || { echo "airfoil_polar_sweep.sh: give the output prefix with -o PREFIX" >&2; exit 2; }
[[ $np =~ ^[1-9][0-9]*$ ]] || { echo "airfoil_polar_sweep.sh: -n $np: give a positive number of ranks" >&2; exit 2; }
[ -x "$exe" ] || { echo "airfoil_polar_sweep.sh: $exe is not an executable (-x or \$ADJSIM)" >&2; exit 2; }
for a in $alphas; do
  [[ $a =~ ^[-+]?[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?$ ]] || {
    echo "airfoil_polar_sweep.sh: -a: '$a' is not a number" >&2; exit 2; }
done
mpiexec=${MPIEXEC:-mpiexec}
for a in $alphas; do
  out="${prefix}_a${a}.h5"
  echo "== alpha $a deg -> $out"
  "$mpiexec" -n "$np" "$exe" -problem airfoil "$@" -airfoil_alpha "$a" -output "$out" -quiet || {
    rc=$?; echo "airfoil_polar_sweep.sh: the run at alpha $a failed (exit $rc)" >&2; exit $rc; }
done
