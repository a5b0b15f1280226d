#!/usr/bin/env bash
# -adjoint_fd_check picks distinct components, at least one from every active block, and the same
# ones on 1, 2 and 4 ranks (components are numbered in block order, which does not depend on the
# rank count).
# usage: fd_components.sh MPIEXEC ADJSIM COUNT BLOCKS [REGEX] -- adjsim args...
#   COUNT  the number of components the run must check
#   BLOCKS comma-separated names of the active blocks, each of which must be checked
#   REGEX  an extended regex the output must also contain (e.g. the cap message)
set -u
mpiexec=$1 adj=$2 count=$3 blocks=$4; shift 4
regex=""
if [ "$1" != "--" ]; then regex=$1; shift; fi
shift
fail=0 reference=""
for np in 1 2 4; do
  out=$(timeout 300 "$mpiexec" -n $np --oversubscribe --bind-to none "$adj" "$@" -output fd_components_np$np.h5 2>&1)
  rc=$?
  if [ $rc -ne 0 ]; then printf '%s\n' "$out" | tail -20; echo "FAIL: np $np exited $rc"; exit 1; fi
  picked=$(printf '%s\n' "$out" | sed -n 's/^ *component \([0-9]*\) *\(([^)]*)\)\{0,1\}.*/\1 \2/p')
  printf 'np %d checked:\n%s\n' $np "$picked"
  n=$(printf '%s\n' "$picked" | grep -c .)
  ndistinct=$(printf '%s\n' "$picked" | awk '{print $1}' | sort -u | grep -c .)
  if [ "$n" -ne "$count" ]; then echo "FAIL: np $np checked $n components, expected $count"; fail=1; fi
  if [ "$ndistinct" -ne "$n" ]; then echo "FAIL: np $np checked a component more than once"; fail=1; fi
  for b in ${blocks//,/ }; do
    if ! printf '%s\n' "$picked" | grep -q "($b\["; then echo "FAIL: np $np checked no component of block $b"; fail=1; fi
  done
  if [ -n "$regex" ] && ! printf '%s\n' "$out" | grep -Eq -- "$regex"; then
    echo "FAIL: np $np output lacks /$regex/"; fail=1
  fi
  if [ -z "$reference" ]; then reference=$picked
  elif [ "$picked" != "$reference" ]; then echo "FAIL: np $np checked other components than np 1"; fail=1; fi
done
[ $fail -eq 0 ] && echo "ok: $count distinct components covering $blocks, the same on 1, 2 and 4 ranks"
exit $fail
