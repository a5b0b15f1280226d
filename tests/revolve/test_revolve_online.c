/* Online checkpointing, exhaustive: every final step n <= 300 with every slot count s <= 10.
   - the schedule decides its checkpoints without knowing n (it is only told to stop after the ADVANCE that
     reaches n) and is executed by a simulator that checks every action by state value (onlinesim.h): every
     REVERSE gets the right state, no slot outside 0..s-1, nothing restored that was not stored there;
   - its forward count is >= the offline optimum n + t(n,s), equals the formula AdjRevolveOnlineForwardCount,
     and is exactly the optimum + 1 when every state fits (s >= n - 1);
   - misuse (Stop before any step, Stop twice, no slot) is refused. */
#include "onlinesim.h"

#define NMAX 300
#define SMAX 10

static PetscErrorCode CheckMisuse(void)
{
  AdjRevolveOnline on = NULL;
  AdjRevolveAction a;
  PetscErrorCode   e0, e1, e2;

  PetscFunctionBeginUser;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  e0 = AdjRevolveOnlineCreate(0, &on);
  PetscCall(AdjRevolveOnlineCreate(2, &on));
  PetscCall(AdjRevolveOnlineNext(on, &a)); /* TAKESHOT x_0 */
  e1 = AdjRevolveOnlineStop(on);           /* no step advanced yet */
  PetscCall(AdjRevolveOnlineNext(on, &a)); /* ADVANCE 0 -> 1 */
  PetscCall(AdjRevolveOnlineStop(on));
  e2 = AdjRevolveOnlineStop(on);
  PetscCall(PetscPopErrorHandler());
  PetscCall(AdjRevolveOnlineDestroy(&on));
  PetscCheck(e0 == PETSC_ERR_ARG_OUTOFRANGE && e1 == PETSC_ERR_ORDER && e2 == PETSC_ERR_ORDER, PETSC_COMM_SELF,
             PETSC_ERR_PLIB, "misuse: Create(0) gave %d (want %d), early Stop %d and second Stop %d (want %d)", (int)e0,
             (int)PETSC_ERR_ARG_OUTOFRANGE, (int)e1, (int)e2, (int)PETSC_ERR_ORDER);
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscLogDouble t0, t1;
  AdjStepIndex   worst_n = 0, total = 0, total_opt = 0;
  PetscInt       worst_s = 0;
  double         worst   = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscTime(&t0));
  PetscCall(CheckMisuse());
  for (AdjStepIndex n = 1; n <= NMAX; n++) {
    for (PetscInt s = 1; s <= SMAX; s++) {
      OnlineSimResult res;
      AdjStepIndex    opt = n + AdjRevolveMinimalAdvances(n, s), formula;

      PetscCall(OnlineSimulate(n, s, &res));
      PetscCall(AdjRevolveOnlineForwardCount(n, s, &formula));
      PetscCheck(res.forward >= opt, PETSC_COMM_SELF, PETSC_ERR_PLIB,
                 "n=%" PRId64 " s=%" PetscInt_FMT ": online %" PRId64
                 " forward steps, below the offline optimum %" PRId64,
                 n, s, res.forward, opt);
      PetscCheck(res.forward == formula, PETSC_COMM_SELF, PETSC_ERR_PLIB,
                 "n=%" PRId64 " s=%" PetscInt_FMT ": executed %" PRId64 " forward steps, formula %" PRId64, n, s,
                 res.forward, formula);
      PetscCheck(s < n - 1 || res.forward == opt + 1, PETSC_COMM_SELF, PETSC_ERR_PLIB,
                 "n=%" PRId64 " s=%" PetscInt_FMT ": every state fits, yet %" PRId64 " forward steps (optimum %" PRId64
                 " + 1)",
                 n, s, res.forward, opt);
      if ((double)res.forward / (double)opt > worst) {
        worst   = (double)res.forward / (double)opt;
        worst_n = n;
        worst_s = s;
      }
      total += res.forward;
      total_opt += opt;
    }
  }
  PetscCall(PetscTime(&t1));
  PetscCall(PetscPrintf(PETSC_COMM_SELF,
                        "online schedules n <= %d, s <= %d: all valid; forward steps %" PRId64 " vs offline %" PRId64
                        " in all, worst ratio %.4f at n=%" PRId64 " s=%" PetscInt_FMT " (%.2f s)\n",
                        NMAX, SMAX, total, total_opt, worst, worst_n, worst_s, t1 - t0));
  PetscCall(PetscFinalize());
  return 0;
}
