/* Online checkpointing, large n: full schedules that stop at n = 10^6 (s = 10 and 50) are executed by the
   value-checking simulator (onlinesim.h); the executed forward count must equal the formula
   AdjRevolveOnlineForwardCount, stay >= the offline optimum and within 10 % of it (measured: 0.7 % and 2.4 %,
   docs/checkpointing.md). The formula must also give the counts of an independent Python re-implementation
   (tests/revolve/online_reference.py) at n = 10^5 and 10^6. Option -large_n <n> changes n of the executed runs. */
#include "onlinesim.h"

/* Reference counts from `python3 tests/revolve/online_reference.py <n> <s>`. */
static PetscErrorCode CheckReferenceCounts(void)
{
  const struct {
    AdjStepIndex n;
    PetscInt     s;
    AdjStepIndex forward;
  } ref[] = {{100000, 10, 994178}, {100000, 50, 479888}, {1000000, 10, 12735292}, {1000000, 50, 5795246}};

  PetscFunctionBeginUser;
  for (size_t i = 0; i < sizeof(ref) / sizeof(ref[0]); i++) {
    AdjStepIndex forward;
    PetscCall(AdjRevolveOnlineForwardCount(ref[i].n, ref[i].s, &forward));
    PetscCheck(forward == ref[i].forward, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "n=%" PRId64 " s=%" PetscInt_FMT ": formula %" PRId64 ", Python reference %" PRId64, (int64_t)ref[i].n,
               ref[i].s, (int64_t)forward, (int64_t)ref[i].forward);
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "online counts == Python reference at n = 10^5, 10^6 (s = 10, 50)\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const PetscInt s_list[] = {10, 50};
  PetscInt       n_option = 1000000;
  PetscLogDouble t0, t1;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-large_n", &n_option, NULL));
  PetscCall(CheckReferenceCounts());
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
