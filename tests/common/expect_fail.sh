#!/usr/bin/env bash
# Bad-input check: runs a command that must fail, and requires
#   - a nonzero exit within the time limit (no hang),
#   - the expected message (an extended regex) in its output,
#   - no file at any path given with --absent (nothing left that looks complete),
#   - every file given with --unchanged identical before and after (no damage to earlier output),
#   - no AddressSanitizer, LeakSanitizer or UBSan report (the sanitize build, tests/sanitize.sh: a memory
#     error on the way to the refusal also exits nonzero, so the exit code alone would hide it).
# usage: expect_fail.sh 'regex' [--absent path]... [--unchanged path]... -- command args...
set -u
regex=$1; shift
absent=(); unchanged=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  case $1 in
    --absent) absent+=("$2"); shift 2 ;;
    --unchanged) unchanged+=("$2"); shift 2 ;;
    *) echo "expect_fail.sh: unknown argument $1"; exit 2 ;;
  esac
done
shift
[ -n "$regex" ] || { echo "FAIL: empty regex: every output would match"; exit 2; }
[ $# -gt 0 ] || { echo "FAIL: no command after --"; exit 2; }
declare -A before
for f in "${unchanged[@]}"; do
  # a file missing before the run would be "unchanged" (missing after it too): that check would test nothing
  before[$f]=$(sha256sum "$f" 2>/dev/null | cut -d' ' -f1)
  [ -n "${before[$f]}" ] || { echo "FAIL: --unchanged $f does not exist before the run: nothing to protect"; exit 2; }
done
for f in "${absent[@]}"; do rm -f "$f"; done
# A rank that exits nonzero makes Open MPI's mpiexec wait odls_base_sigkill_timeout (1 s, about 2 s in all)
# before it kills the job's other processes; every rank of a refused run has already stopped, so the wait only
# slows the suite (about 2 s per bad-input test; set here, for these runs only: signal tests keep the default).
export OMPI_MCA_odls_base_sigkill_timeout=0
out=$(timeout 120 "$@" 2>&1); rc=$?
printf '%s\n' "$out" | head -40
fail=0
if [ $rc -eq 0 ]; then echo "FAIL: command exited 0, expected a nonzero exit"; fail=1; fi
if [ $rc -eq 124 ]; then echo "FAIL: command hung (killed after 120 s)"; fail=1; fi
if printf '%s\n' "$out" | grep -Eq -- '(ERROR: (Address|Leak)Sanitizer|runtime error: )'; then
  printf '%s\n' "$out" | grep -E -A30 -- '(ERROR: (Address|Leak)Sanitizer|runtime error: )' | head -60
  echo "FAIL: sanitizer report"; fail=1
fi
if ! printf '%s\n' "$out" | grep -Eq -- "$regex"; then echo "FAIL: output lacks the expected message /$regex/"; fail=1; fi
for f in "${absent[@]}"; do
  if [ -e "$f" ]; then echo "FAIL: $f exists after a failed run"; fail=1; fi
done
for f in "${unchanged[@]}"; do
  now=$(sha256sum "$f" 2>/dev/null | cut -d' ' -f1)
  if [ "$now" != "${before[$f]}" ]; then echo "FAIL: $f changed by a failed run"; fail=1; fi
done
[ $fail -eq 0 ] && echo "ok: exit $rc with the expected message"
exit $fail
