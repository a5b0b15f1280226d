/* Online checkpointing, large n: full schedules that stop at n = 10^6 (s = 10 and 50) are executed by the
   value-checking simulator (onlinesim.h); the executed forward count must equal the formula
   AdjRevolveOnlineForwardCount, stay >= the offline optimum and within 10 % of it (measured: 0.7 % and 2.4 %,
   docs/checkpointing.md). Option -large_n <n> changes n. */
#include "onlinesim.h"

int main(int argc, char **argv)
{
  const PetscInt s_list[] = {10, 50};
  PetscInt       n_option = 1000000;
  PetscLogDouble t0, t1;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-large_n", &n_option, NULL));
  for (size_t i = 0; i < sizeof(s_list) / sizeof(s_list[0]); i++) {
    AdjStepIndex    n = n_option, opt, formula;
    PetscInt        s = s_list[i];
    OnlineSimResult res;

    PetscCall(PetscTime(&t0));
    PetscCall(OnlineSimulate(n, s, &res));
    PetscCall(PetscTime(&t1));
    PetscCall(AdjRevolveOnlineForwardCount(n, s, &formula));
    opt = n + AdjRevolveMinimalAdvances(n, s);
    PetscCheck(res.forward == formula, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "n=%" PRId64 " s=%" PetscInt_FMT ": executed %" PRId64 " forward steps, formula %" PRId64, (int64_t)n, s,
               (int64_t)res.forward, (int64_t)formula);
    PetscCheck(res.forward >= opt && (double)res.forward <= 1.1 * (double)opt, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "n=%" PRId64 " s=%" PetscInt_FMT ": %" PRId64 " forward steps, offline optimum %" PRId64
               " (ratio %.4f, want [1, 1.1])",
               (int64_t)n, s, (int64_t)res.forward, (int64_t)opt, (double)res.forward / (double)opt);
    PetscCheck(res.max_slot < s, PETSC_COMM_SELF, PETSC_ERR_PLIB, "slot %" PetscInt_FMT " used", res.max_slot);
    PetscCall(PetscPrintf(PETSC_COMM_SELF,
                          "online n=%" PRId64 " s=%" PetscInt_FMT ": %" PRId64 " forward steps (offline %" PRId64
                          ", ratio %.4f), %" PRId64 " snapshots, %" PRId64 " restores, %.2f s\n",
                          (int64_t)n, s, (int64_t)res.forward, (int64_t)opt, (double)res.forward / (double)opt,
                          (int64_t)res.takeshots, (int64_t)res.restores, t1 - t0));
  }
  PetscCall(PetscFinalize());
  return 0;
}
