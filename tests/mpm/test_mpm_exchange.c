/* The particle exchange decides its SF rebuilds without communication where it can (src/mpm/exchange.c, "Deciding
 * without communication"); run on 1, 2 and 4 ranks.  A box thrown down through the rank boundaries (y = 0.5 on 2
 * and 4 ranks) for 250 steps (it lands on the floor at about 0.17 s), then a reverse sweep over the stored states
 * (lambda_n a fixed vector, the step adjoints), twice: with the decisions from the owner records and with
 * -mpm_exchange_reduce_always (one global reduction at every set-up and every particle sent home -> owner at every
 * step: the exchange as it was).
 *  1. the same final state, lambda_0 and parameter gradients (E, nu, rho, gravity) bit for bit;
 *  2. the same as on one rank to round-off (1e-10: the ghost sums add in another order);
 *  3. the counts (MPMExchangeView), the same on every rank: the records run takes one reduction in all (its first
 *     set-up, before any SF exists) and decides the other 2n - 1 set-ups without communication, rebuilds the SF
 *     1 + 2C times (C = forward steps where some particle changed rank, C >= 1 on several ranks: the particles do
 *     cross) like the reduce-always run, and sends no particle home -> owner on the n - 1 - C forward steps that
 *     follow a step without a rebuild; the reduce-always run takes 2n reductions. */
#include "mpmtest.h"

static const char *const Falling[]      = {"-mpm_grid",
                                           "32,32",
                                           "-mpm_wall_ylo",
                                           "slip",
                                           "-mpm_E",
                                           "1e4",
                                           "-mpm_nu",
                                           "0.3",
                                           "-mpm_rho",
                                           "1000",
                                           "-mpm_model",
                                           "neo-hookean",
                                           "-mpm_body0",
                                           "box:0.3,0.55,0.5,0.7:0:0.5,-2",
                                           "-mpm_dt",
                                           "1e-3",
                                           "-mpm_final_time",
                                           "0.25",
                                           NULL};
static const char *const ReduceAlways[] = {"-mpm_exchange_reduce_always", "true", NULL};

typedef struct {
  Vec        x, lambda0; /* final state and lambda_0, gathered to rank 0 */
  PetscReal  grad[4];    /* sum over labels and ranks of gE, gnu, grho; gravity gy */
  PetscInt64 count[MPM_EXCHANGE_NCOUNTS];
  PetscInt64 spread;          /* max - min over the ranks of the counts */
  PetscInt64 nsteps, changed; /* steps; forward steps whose owner record says CHANGED */
} Result;

static PetscErrorCode GatherToZero(Vec x, Vec *seq)
{
  VecScatter sc;

  PetscFunctionBeginUser;
  PetscCall(VecScatterCreateToZero(x, &sc, seq));
  PetscCall(VecScatterBegin(sc, x, *seq, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(sc, x, *seq, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterDestroy(&sc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* lambda_n: a fixed function of the global entry index, the same on any rank count. */
static PetscErrorCode FinalAdjoint(Vec lam)
{
  PetscScalar *l;
  PetscInt     lo, hi;

  PetscFunctionBeginUser;
  PetscCall(VecGetOwnershipRange(lam, &lo, &hi));
  PetscCall(VecGetArrayWrite(lam, &l));
  for (PetscInt i = lo; i < hi; i++) l[i - lo] = PetscSinReal(1.0 + 0.37 * i);
  PetscCall(VecRestoreArrayWrite(lam, &l));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Forward run storing every state, then the reverse sweep: x_k recomputed from x_{k-1}, checked, its step adjoint. */
static PetscErrorCode Run(MPI_Comm comm, const char *const extra[], Result *r)
{
  AdjStepper   st;
  MPM          mpm;
  AdjStepIndex n;
  Vec         *X, y, lam, lamprev;
  PetscReal    g[4];
  PetscInt64   lo[MPM_EXCHANGE_NCOUNTS], hi[MPM_EXCHANGE_NCOUNTS];

  PetscFunctionBeginUser;
  PetscCall(MPMTestCreate(comm, Falling, extra, &st));
  PetscCall(AdjStepperGetContext(st, &mpm));
  PetscCall(AdjStepperGetTimes(st, &n, NULL));
  PetscCall(VecDuplicateVecs(mpm->x0, (PetscInt)n + 1, &X));
  PetscCall(VecDuplicate(mpm->x0, &y));
  PetscCall(VecDuplicate(mpm->x0, &lam));
  PetscCall(VecDuplicate(mpm->x0, &lamprev));
  PetscCall(AdjStepperInitialState(st, X[0]));
  for (AdjStepIndex k = 1; k <= n; k++) {
    PetscCall(AdjStepperStep(st, k, X[k - 1], X[k]));
    PetscCall(AdjStepperCheckState(st, k, X[k]));
  }
  r->changed = 0;
  for (AdjStepIndex k = 1; k <= n && mpm->owners_known; k++) r->changed += mpm->owners_known[k] == MPM_OWNERS_CHANGED;
  PetscCall(AdjStepperZeroGradient(st));
  PetscCall(FinalAdjoint(lam));
  for (AdjStepIndex k = n; k >= 1; k--) {
    PetscCall(AdjStepperStep(st, k, X[k - 1], y));
    PetscCall(AdjStepperCheckState(st, k, y));
    PetscCall(MPMStepAdjoint(mpm, k, X[k - 1], y, lam, lamprev));
    PetscCall(VecSwap(lam, lamprev));
  }
  g[0] = g[1] = g[2] = 0;
  for (PetscInt l = 0; l < mpm->nlabels; l++) g[0] += mpm->gE[l], g[1] += mpm->gnu[l], g[2] += mpm->grho[l];
  g[3] = mpm->ggravity[1];
  PetscCallMPI(MPI_Allreduce(g, r->grad, 4, MPIU_REAL, MPIU_SUM, comm));
  PetscCallMPI(MPI_Allreduce(mpm->exchange_count, lo, MPM_EXCHANGE_NCOUNTS, MPIU_INT64, MPI_MIN, comm));
  PetscCallMPI(MPI_Allreduce(mpm->exchange_count, hi, MPM_EXCHANGE_NCOUNTS, MPIU_INT64, MPI_MAX, comm));
  r->spread = 0;
  for (PetscInt c = 0; c < MPM_EXCHANGE_NCOUNTS; c++)
    r->count[c] = hi[c], r->spread = PetscMax(r->spread, hi[c] - lo[c]);
  r->nsteps = n;
  PetscCall(GatherToZero(X[n], &r->x));
  PetscCall(GatherToZero(lam, &r->lambda0));
  PetscCall(VecDestroyVecs((PetscInt)n + 1, &X));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&lam));
  PetscCall(VecDestroy(&lamprev));
  PetscCall(AdjStepperDestroy(&st));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ResultDestroy(Result *r)
{
  PetscFunctionBeginUser;
  PetscCall(VecDestroy(&r->x));
  PetscCall(VecDestroy(&r->lambda0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* max |a - b| / max |a| of two sequential Vecs (rank 0); 0 on the other ranks (empty). */
static PetscErrorCode RelDiff(Vec a, Vec b, PetscReal *rel)
{
  const PetscScalar *pa, *pb;
  PetscInt           n, nb;
  PetscReal          diff = 0, scale = 0;

  PetscFunctionBeginUser;
  PetscCall(VecGetLocalSize(a, &n));
  PetscCall(VecGetLocalSize(b, &nb));
  PetscCheck(n == nb, PETSC_COMM_SELF, PETSC_ERR_PLIB, "sizes differ: %" PetscInt_FMT " vs %" PetscInt_FMT, n, nb);
  PetscCall(VecGetArrayRead(a, &pa));
  PetscCall(VecGetArrayRead(b, &pb));
  for (PetscInt i = 0; i < n; i++) {
    diff  = AdjTestMax(diff, PetscAbsScalar(pa[i] - pb[i]));
    scale = AdjTestMax(scale, PetscAbsScalar(pa[i]));
  }
  PetscCall(VecRestoreArrayRead(a, &pa));
  PetscCall(VecRestoreArrayRead(b, &pb));
  *rel = n ? diff / scale : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Prints "name: got vs want" and counts a failure when they differ. */
static PetscErrorCode ReportCount(const char name[], PetscInt64 got, PetscInt64 want, PetscInt *fail)
{
  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-64s %" PetscInt64_FMT " (expected %" PetscInt64_FMT ")  %s\n", name, got,
                        want, got == want ? "ok" : "FAIL"));
  if (got != want) (*fail)++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt    fail = 0;
  PetscMPIInt rank, size;
  Result      rec, red, one = {0};
  PetscReal   d[6] = {0, 0, 0, 0, 0, 0}, gd = 0;
  PetscInt64  n, C;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(Run(PETSC_COMM_WORLD, NULL, &rec));
  PetscCall(Run(PETSC_COMM_WORLD, ReduceAlways, &red));
  if (!rank) PetscCall(Run(PETSC_COMM_SELF, NULL, &one));
  PetscCall(RelDiff(red.x, rec.x, &d[0]));
  PetscCall(RelDiff(red.lambda0, rec.lambda0, &d[1]));
  for (PetscInt c = 0; c < 4; c++) gd = AdjTestMax(gd, PetscAbsReal(red.grad[c] - rec.grad[c]));
  d[2] = gd;
  if (!rank) {
    PetscCall(RelDiff(one.x, rec.x, &d[3]));
    PetscCall(RelDiff(one.lambda0, rec.lambda0, &d[4]));
    for (PetscInt c = 0; c < 4; c++)
      d[5] = AdjTestMax(d[5], PetscAbsReal(one.grad[c] - rec.grad[c]) / PetscMax(PetscAbsReal(one.grad[c]), 1e-300));
  }
  PetscCallMPI(MPI_Bcast(d, 6, MPIU_REAL, 0, PETSC_COMM_WORLD));
  PetscCall(MPMTestReport("records vs reduce-always: final state, max rel. difference", d[0], 0.0, &fail));
  PetscCall(MPMTestReport("records vs reduce-always: lambda_0, max rel. difference", d[1], 0.0, &fail));
  PetscCall(
      MPMTestReport("records vs reduce-always: gradients (E, nu, rho, g), max abs. difference", d[2], 0.0, &fail));
  PetscCall(MPMTestReport("vs 1 rank: final state, max rel. difference", d[3], 1e-10, &fail));
  PetscCall(MPMTestReport("vs 1 rank: lambda_0, max rel. difference", d[4], 1e-10, &fail));
  PetscCall(MPMTestReport("vs 1 rank: gradients (E, nu, rho, g), max rel. difference", d[5], 1e-10, &fail));

  n = rec.nsteps, C = rec.changed;
  PetscCall(PetscPrintf(
      PETSC_COMM_WORLD,
      "%" PetscInt64_FMT " steps on %d rank(s); particles changed rank in %" PetscInt64_FMT " of them\n", n, size, C));
  if (size > 1) PetscCall(ReportCount("forward steps where particles changed rank, at least 1", C > 0, 1, &fail));
  PetscCall(ReportCount("records: counts differ between ranks by", rec.spread, 0, &fail));
  PetscCall(
      ReportCount("records: exchange set-ups (forward and reverse)", rec.count[MPM_EXCHANGE_SETUPS], 2 * n, &fail));
  PetscCall(ReportCount("records: decided by a global reduction", rec.count[MPM_EXCHANGE_REDUCED], 1, &fail));
  PetscCall(ReportCount("records: decided without communication", rec.count[MPM_EXCHANGE_LOCAL], 2 * n - 1, &fail));
  PetscCall(ReportCount("records: SF rebuilds (1 + 2 C)", rec.count[MPM_EXCHANGE_REBUILT], 1 + 2 * C, &fail));
  PetscCall(ReportCount("records: steps without home -> owner transfer (n - 1 - C)", rec.count[MPM_EXCHANGE_KEPT],
                        n - 1 - C, &fail));
  PetscCall(ReportCount("reduce-always: counts differ between ranks by", red.spread, 0, &fail));
  PetscCall(ReportCount("reduce-always: decided by a global reduction", red.count[MPM_EXCHANGE_REDUCED], 2 * n, &fail));
  PetscCall(ReportCount("reduce-always: SF rebuilds (as with the records)", red.count[MPM_EXCHANGE_REBUILT],
                        rec.count[MPM_EXCHANGE_REBUILT], &fail));
  PetscCall(ReportCount("reduce-always: steps without home -> owner transfer", red.count[MPM_EXCHANGE_KEPT], 0, &fail));
  PetscCall(ResultDestroy(&rec));
  PetscCall(ResultDestroy(&red));
  PetscCall(ResultDestroy(&one));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " check(s) failed\n", fail ? "FAIL" : "PASS", fail));
  PetscCall(PetscFinalize());
  return fail ? 1 : 0;
}
