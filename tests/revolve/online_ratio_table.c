/* Prints the recomputation of online checkpointing (AdjRevolveOnline) against offline revolve for the same final n
   and slot count s (the offline count n + t(n,s) is the lower bound for any schedule with s slots). Run by
   bench/online_checkpointing.sh; options -slots s1,s2,.. (default 10,20,50), -nmax N (rows at n = 100, 1000, ...,
   N; default 10^6) and -scan_max M (default 10^5): for n <= M the online cost of EVERY n is computed in the same
   sweep (AdjRevolveOnlineCountIfStopped), and the worst ratio over (n/10, n] is printed too.
   Columns: forward step evaluations per step (the forward sweep and every recomputation, reversals included: 2
   means nothing recomputed beyond the reversal's own re-run) offline and online, their ratio at n, and the
   worst ratio over the decade ending at n. */
#include <adjsim/revolve.h>

#define MAX_ROWS 12

typedef struct {
  AdjStepIndex n, offline, online, worst_n;
  double       worst; /* worst online/offline over (n/10, n], 0 if not scanned */
} TableRow;

/* One forward sweep of the online schedule with s slots up to nmax, costing the decade points and (up to
   scan_max) every n. */
static PetscErrorCode OnlineSweep(PetscInt s, AdjStepIndex nmax, AdjStepIndex scan_max, TableRow rows[],
                                  PetscInt *nrows)
{
  AdjRevolveOnline on;
  AdjRevolveAction a;
  AdjStepIndex     next_row = 100;
  double           worst    = 0;
  AdjStepIndex     worst_n  = 0;

  PetscFunctionBeginUser;
  *nrows = 0;
  PetscCall(AdjRevolveOnlineCreate(s, &on));
  while (next_row <= nmax) {
    PetscCall(AdjRevolveOnlineNext(on, &a));
    if (a.type != ADJ_REVOLVE_ADVANCE) continue;
    if (a.to <= scan_max || a.to == next_row) {
      AdjStepIndex online, offline = a.to + AdjRevolveMinimalAdvances(a.to, s);
      PetscCall(AdjRevolveOnlineCountIfStopped(on, &online));
      if ((double)online / (double)offline > worst && a.to > next_row / 10) {
        worst   = (double)online / (double)offline;
        worst_n = a.to;
      }
      if (a.to == next_row) {
        rows[*nrows] = (TableRow){a.to, offline, online, worst_n, a.to <= scan_max ? worst : 0};
        (*nrows)++;
        next_row *= 10;
        worst = 0;
      }
    }
  }
  PetscCall(AdjRevolveOnlineDestroy(&on));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt       slots[16] = {10, 20, 50}, nslots = 3, nmax = 1000000, scan_max = 100000, nrows[16];
  TableRow       rows[16][MAX_ROWS];
  PetscLogDouble t0, t1;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  {
    PetscInt  nread = 16;
    PetscBool set;
    PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-slots", slots, &nread, &set));
    if (set) nslots = nread;
  }
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nmax", &nmax, NULL)); /* PetscInt: up to 2^31 here */
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-scan_max", &scan_max, NULL));
  PetscCall(PetscTime(&t0));
  for (PetscInt k = 0; k < nslots; k++) PetscCall(OnlineSweep(slots[k], nmax, scan_max, rows[k], &nrows[k]));
  PetscCall(PetscTime(&t1));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "| n | s | offline forward/n | online forward/n | online/offline at n | "
                                         "worst online/offline in (n/10, n] |\n"));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "|---:|---:|---:|---:|---:|---:|\n"));
  for (PetscInt r = 0; r < nrows[0]; r++) {
    for (PetscInt k = 0; k < nslots; k++) {
      TableRow *t         = &rows[k][r];
      char      worst[64] = "not scanned";
      if (t->worst > 0)
        PetscCall(PetscSNPrintf(worst, sizeof(worst), "%.4f (n = %" PRId64 ")", t->worst, (int64_t)t->worst_n));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "| %" PRId64 " | %" PetscInt_FMT " | %.3f | %.3f | %.4f | %s |\n",
                            (int64_t)t->n, slots[k], (double)t->offline / (double)t->n,
                            (double)t->online / (double)t->n, (double)t->online / (double)t->offline, worst));
    }
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "(%.1f s)\n", t1 - t0));
  PetscCall(PetscFinalize());
  return 0;
}
