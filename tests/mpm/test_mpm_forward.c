/* MPM forward solver checks (run on 1, 2 and 4 ranks):
 *  1. uniform translation and free fall: every particle follows the discrete ballistic path
 *     x_n = x_0 + v_0 t_n + g t_n (t_n + dt) / 2 (symplectic Euler) to round-off, F stays I;
 *  2. two elastic disks collide with no walls and no gravity: total momentum conserved to round-off
 *     (energy drift reported);
 *  3. the collision gives the same state on this rank count as on one rank (particles cross rank
 *     boundaries), and the same with the particles numbered in another order. */
#include "mpmtest.h"

static const char *const Ballistic[] = {"-mpm_grid",
                                        "32,32",
                                        "-mpm_wall_xlo",
                                        "none",
                                        "-mpm_wall_xhi",
                                        "none",
                                        "-mpm_wall_ylo",
                                        "none",
                                        "-mpm_wall_yhi",
                                        "none",
                                        "-mpm_E",
                                        "2e4,5e4",
                                        "-mpm_nu",
                                        "0.3,0.2",
                                        "-mpm_rho",
                                        "1000,500",
                                        "-mpm_model",
                                        "fixed-corotated,neo-hookean",
                                        "-mpm_body0",
                                        "box:0.3,0.4,0.5,0.6:0:0.5,0.25",
                                        "-mpm_body1",
                                        "disk:0.7,0.7,0.08:1:-0.25,0.5",
                                        "-mpm_final_time",
                                        "0.1",
                                        NULL};
static const char *const Collision[] = {"-mpm_grid",
                                        "40,40",
                                        "-mpm_wall_xlo",
                                        "none",
                                        "-mpm_wall_xhi",
                                        "none",
                                        "-mpm_wall_ylo",
                                        "none",
                                        "-mpm_wall_yhi",
                                        "none",
                                        "-mpm_gravity",
                                        "0,0",
                                        "-mpm_E",
                                        "1e4,3e4",
                                        "-mpm_nu",
                                        "0.3,0.25",
                                        "-mpm_rho",
                                        "1000,800",
                                        "-mpm_model",
                                        "fixed-corotated,neo-hookean",
                                        "-mpm_body0",
                                        "disk:0.3,0.5,0.12:0:1.5,0.3",
                                        "-mpm_body1",
                                        "disk:0.7,0.55,0.1:1:-1.5,0",
                                        "-mpm_final_time",
                                        "0.2",
                                        NULL};

typedef struct {
  PetscReal g[2], dt, err, Jerr;
  Vec       x0;
} BallisticCtx;

/* Largest distance of a particle from its ballistic position, largest |J - 1|. */
static PetscErrorCode BallisticMonitor(AdjStepper st, AdjStepIndex k, Vec x, void *vctx)
{
  BallisticCtx      *c = (BallisticCtx *)vctx;
  const MPMParticle *p, *p0;
  PetscInt           n;
  PetscReal          err[2] = {0, 0}, gerr[2];
  const PetscReal    t      = k * c->dt;

  PetscFunctionBeginUser;
  if (k == 0) PetscCall(VecCopy(x, c->x0));
  PetscCall(VecGetLocalSize(x, &n));
  n /= MPM_NSTATE;
  PetscCall(VecGetArrayRead(x, (const PetscScalar **)&p));
  PetscCall(VecGetArrayRead(c->x0, (const PetscScalar **)&p0));
  for (PetscInt i = 0; i < n; i++) {
    for (PetscInt d = 0; d < MPM_DIM; d++)
      err[0] =
          AdjTestMax(err[0], PetscAbsReal(p[i].x[d] - (p0[i].x[d] + p0[i].v[d] * t + 0.5 * c->g[d] * t * (t + c->dt))));
    err[1] = AdjTestMax(err[1], PetscAbsReal(MPMDeterminant(p[i].F) - 1));
  }
  PetscCall(VecRestoreArrayRead(c->x0, (const PetscScalar **)&p0));
  PetscCall(VecRestoreArrayRead(x, (const PetscScalar **)&p));
  /* maxima that keep a NaN (PetscMax and MPI_MAX can drop one, and the check would pass) */
  for (PetscInt j = 0; j < 2; j++) PetscCall(AdjTestGlobalMax(PETSC_COMM_WORLD, err[j], &gerr[j]));
  c->err  = AdjTestMax(c->err, gerr[0]);
  c->Jerr = AdjTestMax(c->Jerr, gerr[1]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestBallistic(PetscInt *fail)
{
  const char *const gravity[2][3] = {{"-mpm_gravity", "0,0", NULL}, {"-mpm_gravity", "0.5,-9.81", NULL}};
  const char *const label[2]      = {"uniform translation", "free fall"};

  PetscFunctionBeginUser;
  for (PetscInt c = 0; c < 2; c++) {
    AdjStepper   st;
    Vec          x;
    BallisticCtx ctx = {{0, 0}, 0, 0, 0, NULL};
    MPMSummary   s0, s1;
    char         name[128];
    MPM          mpm;

    PetscCall(MPMTestCreate(PETSC_COMM_WORLD, Ballistic, gravity[c], &st));
    PetscCall(AdjStepperGetContext(st, &mpm));
    ctx.g[0] = mpm->gravity[0], ctx.g[1] = mpm->gravity[1], ctx.dt = mpm->dt;
    PetscCall(mpm->x0 ? VecDuplicate(mpm->x0, &x) : PETSC_ERR_PLIB);
    PetscCall(VecDuplicate(x, &ctx.x0));
    PetscCall(MPMTestRun(st, -1, x, BallisticMonitor, &ctx));
    PetscCall(MPMSummarize(st, ctx.x0, &s0));
    PetscCall(MPMSummarize(st, x, &s1));
    PetscCall(PetscSNPrintf(name, sizeof(name), "%s: max particle distance from ballistic path [m]", label[c]));
    PetscCall(MPMTestReport(name, ctx.err, 1e-12, fail));
    PetscCall(PetscSNPrintf(name, sizeof(name), "%s: max |J - 1|", label[c]));
    PetscCall(MPMTestReport(name, ctx.Jerr, 1e-12, fail));
    {
      const PetscReal T  = mpm->nsteps * mpm->dt;
      PetscReal       cm = 0, v0[2];

      for (PetscInt d = 0; d < MPM_DIM; d++) {
        v0[d] = s0.momentum[d] / s0.mass;
        cm    = AdjTestMax(cm,
                           PetscAbsReal(s1.centre[d] - (s0.centre[d] + v0[d] * T + 0.5 * ctx.g[d] * T * (T + mpm->dt))));
      }
      PetscCall(PetscSNPrintf(name, sizeof(name), "%s: centre of mass from ballistic path at t = %g s [m]", label[c],
                              (double)T));
      PetscCall(MPMTestReport(name, cm, 1e-12, fail));
    }
    PetscCall(VecDestroy(&ctx.x0));
    PetscCall(VecDestroy(&x));
    PetscCall(AdjStepperDestroy(&st));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  MPMSummary s0;
  PetscReal  perr, pscale;
} MomentumCtx;

static PetscErrorCode MomentumMonitor(AdjStepper st, AdjStepIndex k, Vec x, void *vctx)
{
  MomentumCtx *c = (MomentumCtx *)vctx;
  MPMSummary   s;

  PetscFunctionBeginUser;
  PetscCall(MPMSummarize(st, x, &s));
  if (k == 0) {
    MPM                     mpm;
    const MPMParticle      *p;
    const MPMMaterialPoint *mat;
    PetscReal               sc = 0;

    c->s0 = s;
    PetscCall(AdjStepperGetContext(st, &mpm));
    PetscCall(VecGetArrayRead(x, (const PetscScalar **)&p));
    PetscCall(VecGetArrayRead(mpm->mat, (const PetscScalar **)&mat));
    for (PetscInt i = 0; i < mpm->nhome; i++)
      sc += mat[i].mass * PetscSqrtReal(PetscSqr(p[i].v[0]) + PetscSqr(p[i].v[1]));
    PetscCall(VecRestoreArrayRead(mpm->mat, (const PetscScalar **)&mat));
    PetscCall(VecRestoreArrayRead(x, (const PetscScalar **)&p));
    PetscCallMPI(MPI_Allreduce(&sc, &c->pscale, 1, MPIU_REAL, MPIU_SUM, PETSC_COMM_WORLD));
  }
  for (PetscInt d = 0; d < MPM_DIM; d++)
    c->perr = AdjTestMax(c->perr, AdjTestRelative(PetscAbsReal(s.momentum[d] - c->s0.momentum[d]), c->pscale));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestMomentum(PetscInt *fail)
{
  AdjStepper  st;
  Vec         x;
  MomentumCtx ctx = {{0}, 0, 0};
  MPMSummary  s1;
  MPM         mpm;
  PetscReal   e0, e1;

  PetscFunctionBeginUser;
  PetscCall(MPMTestCreate(PETSC_COMM_WORLD, Collision, NULL, &st));
  PetscCall(AdjStepperGetContext(st, &mpm));
  PetscCall(VecDuplicate(mpm->x0, &x));
  PetscCall(MPMTestRun(st, -1, x, MomentumMonitor, &ctx));
  PetscCall(MPMSummarize(st, x, &s1));
  e0 = ctx.s0.kinetic + ctx.s0.elastic, e1 = s1.kinetic + s1.elastic;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "collision: %" PetscInt_FMT " particles, %" PetscInt64_FMT
                        " steps; energy %.6e -> %.6e J/m (drift %.2f %%), min J %.4f, max J %.4f\n",
                        mpm->N, (PetscInt64)mpm->nsteps, (double)e0, (double)e1, (double)(100 * (e1 - e0) / e0),
                        (double)s1.min_J, (double)s1.max_J));
  PetscCall(MPMTestReport("collision, no walls, no gravity: max |P(t) - P(0)| / sum m|v|", ctx.perr, 1e-13, fail));
  PetscCall(VecDestroy(&x));
  PetscCall(AdjStepperDestroy(&st));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Initial and final state on rank 0 of the world (a sequential Vec there, empty elsewhere). */
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

/* Runs the collision on comm (with extra options) and returns initial and final states on rank 0. */
static PetscErrorCode RunCollision(MPI_Comm comm, const char *const extra[], Vec *init, Vec *final)
{
  AdjStepper st;
  MPM        mpm;
  Vec        x;

  PetscFunctionBeginUser;
  PetscCall(MPMTestCreate(comm, Collision, extra, &st));
  PetscCall(AdjStepperGetContext(st, &mpm));
  PetscCall(VecDuplicate(mpm->x0, &x));
  PetscCall(GatherToZero(mpm->x0, init));
  PetscCall(MPMTestRun(st, -1, x, NULL, NULL));
  PetscCall(GatherToZero(x, final));
  PetscCall(VecDestroy(&x));
  PetscCall(AdjStepperDestroy(&st));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Particles in order of their initial lattice position (y, then x). */
static const MPMParticle *SortKey;
static int                CompareInitial(const void *a, const void *b)
{
  const MPMParticle *pa = &SortKey[*(const PetscInt *)a], *pb = &SortKey[*(const PetscInt *)b];

  if (pa->x[1] != pb->x[1]) return pa->x[1] < pb->x[1] ? -1 : 1;
  if (pa->x[0] != pb->x[0]) return pa->x[0] < pb->x[0] ? -1 : 1;
  return 0;
}

static PetscErrorCode SortedOrder(Vec init, PetscInt **perm, PetscInt *n)
{
  PetscFunctionBeginUser;
  PetscCall(VecGetLocalSize(init, n));
  *n /= MPM_NSTATE;
  PetscCall(PetscMalloc1(*n, perm));
  for (PetscInt i = 0; i < *n; i++) (*perm)[i] = i;
  PetscCall(VecGetArrayRead(init, (const PetscScalar **)&SortKey));
  qsort(*perm, (size_t)*n, sizeof(PetscInt), CompareInitial);
  PetscCall(VecRestoreArrayRead(init, (const PetscScalar **)&SortKey));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* max |a - b| / max |a| over matched particles (rank 0; 0 elsewhere); NaN when an entry is NaN, infinite when there
 * are no particles or all of a is zero (then the comparison tests nothing). */
static PetscErrorCode CompareMatched(Vec ia, Vec fa, Vec ib, Vec fb, PetscReal *rel)
{
  PetscInt          *pa, *pb, na, nb;
  const PetscScalar *a, *b;
  PetscReal          diff = 0, scale = 0;

  PetscFunctionBeginUser;
  PetscCall(SortedOrder(ia, &pa, &na));
  PetscCall(SortedOrder(ib, &pb, &nb));
  PetscCheck(na == nb, PETSC_COMM_SELF, PETSC_ERR_PLIB, "particle counts differ: %" PetscInt_FMT " vs %" PetscInt_FMT,
             na, nb);
  PetscCall(VecGetArrayRead(fa, &a));
  PetscCall(VecGetArrayRead(fb, &b));
  for (PetscInt i = 0; i < na; i++)
    for (PetscInt c = 0; c < MPM_NSTATE; c++) {
      diff  = AdjTestMax(diff, PetscAbsScalar(a[pa[i] * MPM_NSTATE + c] - b[pb[i] * MPM_NSTATE + c]));
      scale = AdjTestMax(scale, PetscAbsScalar(a[pa[i] * MPM_NSTATE + c]));
    }
  PetscCall(VecRestoreArrayRead(fa, &a));
  PetscCall(VecRestoreArrayRead(fb, &b));
  PetscCall(PetscFree(pa));
  PetscCall(PetscFree(pb));
  *rel = AdjTestRelative(diff, scale); /* na = 0 leaves scale = 0: infinite */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestRankInvariance(PetscInt *fail)
{
  const char *const permuted[] = {"-mpm_permute", "5", NULL};
  Vec               iw, fw, ip, fp, is = NULL, fs = NULL;
  PetscMPIInt       rank, size;
  PetscReal         rel[2] = {0, 0};
  char              name[128];

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(RunCollision(PETSC_COMM_WORLD, NULL, &iw, &fw));
  PetscCall(RunCollision(PETSC_COMM_WORLD, permuted, &ip, &fp));
  if (!rank) {
    PetscCall(RunCollision(PETSC_COMM_SELF, NULL, &is, &fs));
    PetscCall(CompareMatched(is, fs, iw, fw, &rel[0]));
    PetscCall(CompareMatched(is, fs, ip, fp, &rel[1]));
  }
  PetscCallMPI(MPI_Bcast(rel, 2, MPIU_REAL, 0, PETSC_COMM_WORLD));
  PetscCall(PetscSNPrintf(name, sizeof(name), "collision: state on %d rank(s) vs 1 rank, max rel. difference", size));
  PetscCall(MPMTestReport(name, rel[0], 1e-11, fail));
  PetscCall(PetscSNPrintf(name, sizeof(name), "collision: permuted particle order on %d rank(s) vs 1 rank", size));
  PetscCall(MPMTestReport(name, rel[1], 1e-11, fail));
  PetscCall(VecDestroy(&iw));
  PetscCall(VecDestroy(&fw));
  PetscCall(VecDestroy(&ip));
  PetscCall(VecDestroy(&fp));
  PetscCall(VecDestroy(&is));
  PetscCall(VecDestroy(&fs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt fail = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(TestBallistic(&fail));
  PetscCall(TestMomentum(&fail));
  PetscCall(TestRankInvariance(&fail));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " check(s) failed\n", fail ? "FAIL" : "PASS", fail));
  PetscCall(PetscFinalize());
  return fail ? 1 : 0;
}
