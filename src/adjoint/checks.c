/* User-facing gradient checks: the Taylor test and central finite differences. */
#include "driverimpl.h"

#include "paramsimpl.h" /* ADJ_PARAMS_MAX */

/* Random direction of unit root-mean-square entry, reproducible for a given seed and rank count. */
static PetscErrorCode AdjRandomDirection(Vec d, unsigned long seed)
{
  PetscRandom rnd;
  PetscReal   nrm;
  PetscInt    N;

  PetscFunctionBeginUser;
  PetscCall(PetscRandomCreate(PetscObjectComm((PetscObject)d), &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  PetscCall(PetscRandomSetSeed(rnd, seed));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(VecSetRandom(d, rnd));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecGetSize(d, &N));
  PetscCall(VecNorm(d, NORM_2, &nrm));
  PetscCall(VecScale(d, PetscSqrtReal((PetscReal)N) / nrm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjDriverHoldFinalStep - with -steady_tol, hold (PETSC_TRUE) the run length of forward runs and gradients at
    the n the last run reached: a gradient check takes the gradient of J for a fixed n (the stopping decision is not
    differentiated), and a perturbed run stopping one step earlier or later would add a jump to the differences.
    Call it right after the gradient at p; PETSC_FALSE releases it. Without -steady_tol it does nothing.
    Collective (prints the held n). @*/
PetscErrorCode AdjDriverHoldFinalStep(AdjDriver drv, PetscBool hold)
{
  PetscFunctionBeginUser;
  if (drv->steady_tol <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(AdjDriverSetFixedSteps(drv, hold ? drv->final_step : -1));
  if (hold)
    PetscCall(PetscPrintf(drv->comm, "gradient check: n = %" PetscInt64_FMT " (reached at p) held fixed\n",
                          (PetscInt64)drv->final_step));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* J at p + h d, by a forward run without output. */
static PetscErrorCode AdjPerturbedObjective(AdjDriver drv, Vec p, PetscReal h, Vec d, Vec work, PetscReal *J)
{
  PetscFunctionBeginUser;
  PetscCall(VecWAXPY(work, h, d, p));
  PetscCall(AdjDriverForward(drv, work, PETSC_FALSE, J));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One line of the sweep's table; *counted and *min_rate2 take the level's rate unless r2 is at round-off. */
static PetscErrorCode AdjTaylorSweepLevel(MPI_Comm comm, PetscInt l, PetscReal h, PetscReal vh, PetscReal v0,
                                          PetscReal gd, PetscReal r[2], PetscInt *counted, PetscReal *min_rate2)
{
  const PetscReal r1 = PetscAbsReal(vh - v0), r2 = PetscAbsReal(vh - v0 - h * gd);
  const PetscBool noise = (PetscBool)(r2 < 1e3 * PETSC_MACHINE_EPSILON * PetscMax(PetscAbsReal(v0), PETSC_SMALL));
  PetscReal       rate1 = 0, rate2 = 0;

  PetscFunctionBeginUser;
  if (l > 0) {
    rate1 = PetscLog2Real(r[0] / r1);
    rate2 = PetscLog2Real(r[1] / r2);
    if (!noise) {
      *min_rate2 = PetscMin(*min_rate2, rate2);
      (*counted)++;
    }
  }
  PetscCall(PetscPrintf(comm, "  %-12.4e %-24.16e %-12.4e %-7.3f %-12.4e %-7.3f%s\n", (double)h, (double)vh, (double)r1,
                        (double)rate1, (double)r2, (double)rate2, noise ? "  (round-off)" : ""));
  r[0] = r1;
  r[1] = r2;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Taylor test of a scalar function v of the design with gradient g at p: with r1(h) = |v(p+hd) - v(p)| and
 * r2(h) = |v(p+hd) - v(p) - h g.d|, a correct gradient gives r1 = O(h) and r2 = O(h^2): observed rates
 * log2(r(h)/r(h/2)) -> 1 and 2. v(p) comes from the same function as v(p+hd) (forward runs), so that the
 * remainders compare like with like. Remainders below 1e3 eps |v(p)| are round-off and do not count toward the
 * rate. d: random (ts->seed), unit root-mean-square entry, the same for a given rank count; h0 = 0: 1e-2 max(1,
 * RMS(p)). */
PetscErrorCode AdjTaylorSweep(const AdjTaylorSettings *ts, AdjTaylorFunction f, void *ctx, Vec p, Vec g,
                              PetscReal *min_rate2)
{
  MPI_Comm  comm;
  Vec       d, q;
  PetscReal v0, vh, gd, h, rms, r[2] = {0, 0};
  PetscInt  N, counted = 0;
  char      column[64];

  PetscFunctionBeginUser;
  PetscCall(PetscObjectGetComm((PetscObject)p, &comm));
  PetscCall(VecDuplicate(p, &d));
  PetscCall(VecDuplicate(p, &q));
  PetscCall(f(ctx, p, &v0));
  PetscCall(AdjRandomDirection(d, ts->seed));
  PetscCall(VecDot(g, d, &gd));
  PetscCall(VecGetSize(p, &N));
  PetscCall(VecNorm(p, NORM_2, &rms));
  rms        = rms / PetscSqrtReal((PetscReal)N);
  h          = ts->h0 > 0 ? ts->h0 : 1e-2 * PetscMax(1.0, rms);
  *min_rate2 = PETSC_MAX_REAL;
  PetscCall(PetscPrintf(comm, "Taylor test%s: %s(p) = %.16e, g.d = %.16e (random direction, unit RMS)\n", ts->title,
                        ts->symbol, (double)v0, (double)gd));
  PetscCall(PetscSNPrintf(column, sizeof(column), "%s(p+hd)", ts->symbol));
  PetscCall(PetscPrintf(comm, "  %-12s %-24s %-12s %-7s %-12s %-7s\n", "h", column, "r1", "rate1", "r2", "rate2"));
  for (PetscInt l = 0; l < ts->levels; l++, h *= 0.5) {
    PetscCall(VecWAXPY(q, h, d, p));
    PetscCall(f(ctx, q, &vh));
    PetscCall(AdjTaylorSweepLevel(comm, l, h, vh, v0, gd, r, &counted, min_rate2));
  }
  PetscCall(VecDestroy(&d));
  PetscCall(VecDestroy(&q));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* J(q) by a forward run without output: the driver's function for AdjTaylorSweep. */
static PetscErrorCode AdjDriverTaylorObjective(void *ctx, Vec q, PetscReal *J)
{
  PetscFunctionBeginUser;
  PetscCall(AdjDriverForward((AdjDriver)ctx, q, PETSC_FALSE, J));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjDriverTaylorTest(AdjDriver drv, Vec p, PetscReal *min_rate2)
{
  AdjTaylorSettings ts = {"", "J", drv->taylor_h0, drv->taylor_levels, ADJ_TAYLOR_SEED};
  Vec               g;
  PetscReal         Jg;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(p, &g));
  PetscCall(AdjDriverGradient(drv, p, &Jg, g));
  PetscCall(AdjDriverHoldFinalStep(drv, PETSC_TRUE));
  PetscCall(AdjTaylorSweep(&ts, AdjDriverTaylorObjective, drv, p, g, min_rate2));
  PetscCall(AdjDriverHoldFinalStep(drv, PETSC_FALSE));
  PetscCheck(*min_rate2 < PETSC_MAX_REAL, drv->comm, PETSC_ERR_USER_INPUT,
             "Taylor test: all second-order remainders are at round-off level; raise -adjoint_taylor_h0");
  PetscCall(VecDestroy(&g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Entry i of a distributed vector, on every rank. */
static PetscErrorCode AdjVecGetGlobalEntry(Vec v, PetscInt i, PetscReal *value)
{
  PetscInt           lo, hi;
  const PetscScalar *a;
  PetscReal          local = 0;

  PetscFunctionBeginUser;
  PetscCall(VecGetOwnershipRange(v, &lo, &hi));
  PetscCall(VecGetArrayRead(v, &a));
  if (i >= lo && i < hi) local = PetscRealPart(a[i - lo]);
  PetscCall(VecRestoreArrayRead(v, &a));
  PetscCallMPI(MPI_Allreduce(&local, value, 1, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)v)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The active blocks in block order (AdjParamsCreateBlockOrder): name, first index and length. */
static PetscErrorCode AdjFDActiveBlocks(AdjParams params, PetscInt *nb, const char *name[], PetscInt start[],
                                        PetscInt len[])
{
  PetscInt nblocks, at = 0;

  PetscFunctionBeginUser;
  PetscCall(AdjParamsGetNumBlocks(params, &nblocks));
  *nb = 0;
  for (PetscInt b = 0; b < nblocks; b++) {
    PetscBool active;
    PetscInt  n;

    PetscCall(AdjParamsGetBlockInfo(params, b, &name[*nb], NULL, NULL, &n, &active));
    if (!active) continue;
    start[*nb] = at;
    len[*nb]   = n;
    at += n;
    (*nb)++;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The ncomp (<= design size) distinct components to check, as block-order indices, so the same on any
 * number of ranks: imax first, then one more per active block in turn (round robin: every block is
 * covered once ncomp >= number of blocks, a short array block entry by entry before a field gets many),
 * spread evenly within each block over its entries other than imax: with m candidates and k picks,
 * pick j takes candidate floor((2j+1) m / 2k); consecutive picks differ by m/k >= 1, so all differ. */
static PetscErrorCode AdjFDChooseComponents(PetscInt nb, const PetscInt start[], const PetscInt len[], PetscInt imax,
                                            PetscInt ncomp, PetscInt chosen[])
{
  PetscInt *k, bmax = 0, left = ncomp - 1, c = 1;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc1(nb, &k));
  while (bmax < nb - 1 && imax >= start[bmax] + len[bmax]) bmax++;
  k[bmax]   = 1;
  chosen[0] = imax;
  for (PetscInt level = 1; left > 0; level++)
    for (PetscInt b = 0; b < nb && left > 0; b++)
      if (k[b] < level && k[b] < len[b]) {
        k[b]++;
        left--;
      }
  for (PetscInt b = 0; b < nb; b++) {
    const PetscInt m = len[b] - (b == bmax), picks = k[b] - (b == bmax);

    for (PetscInt j = 0; j < picks; j++) {
      PetscInt i = start[b] + (PetscInt)(((PetscInt64)(2 * j + 1) * m) / (2 * picks));

      if (b == bmax && i >= imax) i++; /* skip imax, already chosen */
      chosen[c++] = i;
    }
  }
  PetscCall(PetscFree(k));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The block-order index of the largest |g|; entries within a relative 1e-6 of the largest count as
 * equal and the first wins, so round-off between rank counts does not change the choice. */
static PetscErrorCode AdjFDLargestEntry(Vec gordered, PetscReal *gmax, PetscInt *imax)
{
  const PetscScalar *a;
  PetscInt           lo, hi, first = PETSC_MAX_INT;

  PetscFunctionBeginUser;
  PetscCall(VecNorm(gordered, NORM_INFINITY, gmax));
  PetscCall(VecGetOwnershipRange(gordered, &lo, &hi));
  PetscCall(VecGetArrayRead(gordered, &a));
  for (PetscInt i = lo; i < hi && first == PETSC_MAX_INT; i++)
    if (PetscAbsScalar(a[i - lo]) >= (1 - 1e-6) * *gmax) first = i;
  PetscCall(VecRestoreArrayRead(gordered, &a));
  PetscCallMPI(MPI_Allreduce(&first, imax, 1, MPIU_INT, MPI_MIN, PetscObjectComm((PetscObject)gordered)));
  if (*imax == PETSC_MAX_INT) *imax = 0; /* a NaN gradient: no entry compares; start at the first */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Central differences (J(p + h e_i) - J(p - h e_i)) / 2h for ncomp distinct components
 * (AdjFDChooseComponents), numbered in block order: the numbers, and the components, are the same on
 * any number of ranks. */
PetscErrorCode AdjDriverFDCheck(AdjDriver drv, Vec p, PetscInt ncomp, PetscReal *max_rel_err)
{
  MPI_Comm    comm;
  AdjParams   params;
  Vec         g, e, work, pO, gO, eO;
  VecScatter  toblocks;
  PetscReal   J, gmax;
  PetscInt    N, imax, nb = 0, start[ADJ_PARAMS_MAX], len[ADJ_PARAMS_MAX], *chosen;
  const char *name[ADJ_PARAMS_MAX];

  PetscFunctionBeginUser;
  PetscCall(PetscObjectGetComm((PetscObject)p, &comm));
  PetscCall(AdjStepperGetParams(drv->stepper, &params));
  PetscCall(AdjFDActiveBlocks(params, &nb, name, start, len));
  PetscCall(VecDuplicate(p, &g));
  PetscCall(VecDuplicate(p, &e));
  PetscCall(VecDuplicate(p, &work));
  PetscCall(AdjDriverGradient(drv, p, &J, g));
  PetscCall(AdjDriverHoldFinalStep(drv, PETSC_TRUE));
  PetscCall(AdjParamsCreateBlockOrder(params, p, &pO, &toblocks));
  PetscCall(VecDuplicate(pO, &gO));
  PetscCall(VecDuplicate(pO, &eO));
  PetscCall(VecScatterBegin(toblocks, p, pO, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(toblocks, p, pO, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterBegin(toblocks, g, gO, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(toblocks, g, gO, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecGetSize(p, &N));
  if (ncomp > N)
    PetscCall(PetscPrintf(comm,
                          "-adjoint_fd_check %" PetscInt_FMT " exceeds the design size %" PetscInt_FMT
                          ": checking all %" PetscInt_FMT " components\n",
                          ncomp, N, N));
  ncomp = PetscMin(ncomp, N);
  PetscCall(AdjFDLargestEntry(gO, &gmax, &imax));
  PetscCall(PetscMalloc1(ncomp, &chosen));
  PetscCall(AdjFDChooseComponents(nb, start, len, imax, ncomp, chosen));
  *max_rel_err = 0;
  PetscCall(PetscPrintf(comm,
                        "Finite-difference check of %" PetscInt_FMT " of %" PetscInt_FMT
                        " components (central, relative step %g), errors relative to max|g| = %.6e\n",
                        ncomp, N, (double)drv->fd_h, (double)gmax));
  for (PetscInt c = 0; c < ncomp; c++) {
    const PetscInt i = chosen[c];
    PetscInt       b = 0;
    PetscReal      pi, gi, h, Jp, Jm, fd, err;

    while (b < nb - 1 && i >= start[b] + len[b]) b++;
    PetscCall(AdjVecGetGlobalEntry(pO, i, &pi));
    PetscCall(AdjVecGetGlobalEntry(gO, i, &gi));
    h = drv->fd_h * PetscMax(1.0, PetscAbsReal(pi));
    PetscCall(VecSet(eO, 0.0));
    PetscCall(VecSetValue(eO, i, 1.0, INSERT_VALUES));
    PetscCall(VecAssemblyBegin(eO));
    PetscCall(VecAssemblyEnd(eO));
    PetscCall(VecScatterBegin(toblocks, eO, e, INSERT_VALUES, SCATTER_REVERSE));
    PetscCall(VecScatterEnd(toblocks, eO, e, INSERT_VALUES, SCATTER_REVERSE));
    PetscCall(AdjPerturbedObjective(drv, p, h, e, work, &Jp));
    PetscCall(AdjPerturbedObjective(drv, p, -h, e, work, &Jm));
    fd           = (Jp - Jm) / (2 * h);
    err          = PetscAbsReal(fd - gi) / PetscMax(gmax, PETSC_SMALL);
    *max_rel_err = PetscMax(*max_rel_err, err);
    PetscCall(PetscPrintf(
        comm, "  component %-8" PetscInt_FMT " (%s[%" PetscInt_FMT "]) adjoint % .10e  fd % .10e  rel.err %.2e\n", i,
        name[b], i - start[b], (double)gi, (double)fd, (double)err));
  }
  PetscCall(AdjDriverHoldFinalStep(drv, PETSC_FALSE));
  PetscCall(PetscFree(chosen));
  PetscCall(VecScatterDestroy(&toblocks));
  PetscCall(VecDestroy(&pO));
  PetscCall(VecDestroy(&gO));
  PetscCall(VecDestroy(&eO));
  PetscCall(VecDestroy(&g));
  PetscCall(VecDestroy(&e));
  PetscCall(VecDestroy(&work));
  PetscFunctionReturn(PETSC_SUCCESS);
}
