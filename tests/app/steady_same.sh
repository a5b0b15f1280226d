#!/usr/bin/env bash
# Online checkpointing, run to steady state (issue 16): the gradient of a run that stops at steady state with
# -checkpoint_type online must equal, bit for bit (same rank count), the gradient of an offline revolve run with
# the number of steps fixed to the final n it reached (same dt: Tmax / N must be a power of two, so that
# T = n dt and dt = T / n are exact), and that of revolve with -steady_tol (which runs the forward model first).
# The run file must record where the run stopped (/gradients final_step, final_time, stop_reason = steady_tol).
# usage: steady_same.sh <mpiexec> <np> <adjsim> <python> <compare.py> <tag> <physics> <Tmax> <N> <tol> -- options...
set -euo pipefail
mpiexec=$1 np=$2 adj=$3 py=$4 compare=$5 tag=$6 phys=$7 tmax=$8 nmax=$9 tol=${10}
shift 10
[ "$1" = "--" ] && shift
run() { "$mpiexec" -n "$np" --oversubscribe --bind-to none "$adj" "$@" -mode gradient -checkpoint_ram 4; }

run "$@" -${phys}_final_time "$tmax" -${phys}_steps "$nmax" -steady_tol "$tol" -checkpoint_type online \
  -output ${tag}_online.h5 -checkpoint_monitor | grep -v '^checkpoint:'
read -r n T reason < <("$py" - ${tag}_online.h5 "$tmax" "$nmax" <<'PY'
import sys, h5py
f, tmax, nmax = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
dt = tmax / nmax
a = h5py.File(f, "r")["/gradients"].attrs
n = int(a["final_step"][0])
assert a["final_time"] == n * dt, f"final_time {a['final_time']} != {n} * {dt}"
print(n, repr(n * dt), a["stop_reason"].decode())
PY
)
echo "online run stopped at step $n of $nmax (t = $T s, $reason)"
[ "$reason" = steady_tol ] && [ "$n" -lt "$nmax" ] || { echo "FAIL: the run did not stop at steady state"; exit 1; }

run "$@" -${phys}_final_time "$T" -${phys}_steps "$n" -checkpoint_type revolve -output ${tag}_fixed.h5 | tail -3
run "$@" -${phys}_final_time "$tmax" -${phys}_steps "$nmax" -steady_tol "$tol" -output ${tag}_revolve.h5 | tail -3
"$py" "$compare" ${tag}_fixed.h5 ${tag}_online.h5 --groups /gradients --exact
"$py" "$compare" ${tag}_fixed.h5 ${tag}_revolve.h5 --groups /gradients --exact
"$py" - ${tag}_fixed.h5 ${tag}_online.h5 ${tag}_revolve.h5 <<'PY'
import sys, h5py
J = [h5py.File(f, "r")["/gradients"].attrs["objective"] for f in sys.argv[1:]]
assert J[0] == J[1] == J[2], f"objectives differ: fixed {J[0]!r} online {J[1]!r} revolve {J[2]!r}"
print("objective identical:", repr(J[0]))
PY
