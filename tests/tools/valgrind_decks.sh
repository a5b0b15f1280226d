#!/usr/bin/env bash
# valgrind memcheck over one small deck per solver (not part of CI: 12.5 minutes measured on the loaded 2-core
# machine, one run at a time; the sanitize build of tests/sanitize.sh checks the same code paths in CI).
#
#   bash tests/tools/valgrind_decks.sh [OUT_DIR]      # default OUT_DIR: <build>/valgrind
#
# Runs, with the Release build in $ADJSIM_BUILD (default <repo>/build; built if missing), on $NP ranks
# (default 1), these cases ($CASES, default all; transport_gradient and _restart need transport_forward's files),
# each under valgrind --tool=memcheck --leak-check=full --track-origins=yes:
#   transport_forward   tests/app/small.yaml, forward with a restart file (the observations of the next run)
#   transport_gradient  the same deck, gradient against those observations, revolve with RAM + disk checkpoints
#   transport_restart   the forward run continued from its restart file
#   fluid_gradient      inputs/fluid_gradient_check.yaml on 8 x 8 cells (forward, adjoint, revolve)
#   mpm_gradient        inputs/mpm_gradient_check.yaml (forward, adjoint, revolve; particles, two materials)
# A run fails if valgrind reports any error (invalid read/write, use of uninitialised values, invalid free,
# mismatched MPI buffers...) or any definitely, indirectly or possibly lost block that the suppressions do not
# cover: tests/sanitize/valgrind.supp (memory that Open MPI allocates in MPI_Init, MPI_Finalize and its runtime
# thread and never frees; each entry says why it is not ours; HDF5 needed none) and Open MPI's own
# /usr/share/openmpi/openmpi-valgrind.supp.  "still reachable" blocks (pointers held at exit by the
# libraries' globals) are not errors.  Logs: OUT_DIR/<case>.log; the last line sums up.
set -uo pipefail
source "$(dirname "$0")/../../jobs/lib/adjsim-env.sh"
adjsim_ensure_packages || exit 1
if ! command -v valgrind >/dev/null 2>&1; then
  [ "$(id -u)" -eq 0 ] || { echo "valgrind_decks: apt-get install valgrind (as root)" >&2; exit 1; }
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends valgrind >/dev/null
fi
[ -x "$ADJSIM_BUILD/adjsim" ] || adjsim_build || exit 1
adjsim_mpi_env
export OMPI_MCA_mpi_yield_when_idle=1
NP=${NP:-1}
out=${1:-$ADJSIM_BUILD/valgrind}
mkdir -p "$out" && cd "$out" || exit 1
adj=$ADJSIM_BUILD/adjsim
supp=(--suppressions="$ADJSIM_ROOT/tests/sanitize/valgrind.supp")
[ -f /usr/share/openmpi/openmpi-valgrind.supp ] && supp+=(--suppressions=/usr/share/openmpi/openmpi-valgrind.supp)
vg=(valgrind --tool=memcheck --leak-check=full --show-leak-kinds=definite,indirect,possible
    --errors-for-leak-kinds=definite,indirect,possible --track-origins=yes --num-callers=40 --error-exitcode=99
    --gen-suppressions=all "${supp[@]}")
deck=$ADJSIM_ROOT/tests/app/small.yaml
declare -A cmd
cmd[transport_forward]="-options_file $deck -transport_source gaussian -transport_source_blobs 0.6,0.5,0.2,3e-3 -output_interval 4 -restart_interval 8 -output vg_truth.h5"
cmd[transport_gradient]="-options_file $deck -mode gradient -transport_obs_file vg_truth.h5 -transport_kappa 3e-3 -checkpoint_ram 1 -checkpoint_disk 2 -checkpoint_disk_file vg_ckpt.h5 -output vg_grad.h5"
cmd[transport_restart]="-options_file $deck -transport_source gaussian -transport_source_blobs 0.6,0.5,0.2,3e-3 -restart vg_truth-restart.h5 -output vg_cont.h5"
cmd[fluid_gradient]="-options_file $ADJSIM_ROOT/inputs/fluid_gradient_check.yaml -fluid_grid 8,8 -output vg_fluid.h5"
cmd[mpm_gradient]="-options_file $ADJSIM_ROOT/inputs/mpm_gradient_check.yaml -output vg_mpm.h5"
fail=0
for c in ${CASES:-transport_forward transport_gradient transport_restart fluid_gradient mpm_gradient}; do
  start=$SECONDS
  # shellcheck disable=SC2086
  mpiexec -n "$NP" --oversubscribe --bind-to none "${vg[@]}" --log-file="$c.%p.vg" "$adj" ${cmd[$c]} > "$c.log" 2>&1
  rc=$?
  cat "$c".*.vg >> "$c.log" && rm -f "$c".*.vg
  errors=$(grep -h "ERROR SUMMARY" "$c.log" | awk '{s += $4} END {print s + 0}')
  lost=$(grep -hE "(definitely|indirectly|possibly) lost:" "$c.log" | awk '{gsub(",", "", $4); s += $4} END {print s + 0}')
  if [ $rc -ne 0 ] || [ "$errors" -ne 0 ] || [ "$lost" -ne 0 ]; then
    echo "FAIL $c: exit $rc, $errors valgrind errors, $lost bytes lost ($((SECONDS - start)) s; see $out/$c.log)"
    fail=1
  else
    echo "ok   $c: no valgrind error, no leak ($((SECONDS - start)) s)"
  fi
done
[ $fail -eq 0 ] && echo "valgrind_decks: clean on $NP rank(s)" || echo "valgrind_decks: FAILED (logs in $out)"
exit $fail
