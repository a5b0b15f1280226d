/* Prints the recomputation of online checkpointing (AdjRevolveOnline) against offline revolve for the same final n
   and slot count s (the offline count is the lower bound for any schedule with s slots). Run by
   bench/online_checkpointing.sh; options -slots s1,s2,.. and -nmax N (powers of ten from 100 to N).
   Columns: forward step evaluations per step for both (the forward sweep and every recomputation, reversals
   included: 2 means no recomputation beyond the reversal's own re-run), and their ratio. */
#include <adjsim/revolve.h>

int main(int argc, char **argv)
{
  PetscInt       slots[16] = {10, 20, 50}, nslots = 3;
  PetscInt       nmax = 1000000; /* PetscInt is 32-bit here: -nmax up to 10^9 */
  PetscLogDouble t0, t1;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  {
    PetscInt  nread = 16;
    PetscBool set;
    PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-slots", slots, &nread, &set));
    if (set) nslots = nread;
  }
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nmax", &nmax, NULL));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "| n | s | offline forward/n | online forward/n | online / offline |\n"));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "|---:|---:|---:|---:|---:|\n"));
  PetscCall(PetscTime(&t0));
  for (AdjStepIndex n = 100; n <= nmax; n *= 10) {
    for (PetscInt k = 0; k < nslots; k++) {
      AdjStepIndex off = n + AdjRevolveMinimalAdvances(n, slots[k]), onl;
      PetscCall(AdjRevolveOnlineForwardCount(n, slots[k], &onl));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "| %" PRId64 " | %" PetscInt_FMT " | %.3f | %.3f | %.4f |\n", (int64_t)n,
                            slots[k], (double)off / (double)n, (double)onl / (double)n, (double)onl / (double)off));
    }
  }
  PetscCall(PetscTime(&t1));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "(%.1f s)\n", t1 - t0));
  PetscCall(PetscFinalize());
  return 0;
}
