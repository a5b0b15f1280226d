/* User-facing gradient checks: the Taylor test and central finite differences. */
#include "driverimpl.h"

/* Random direction of unit root-mean-square entry, reproducible for a given rank count. */
static PetscErrorCode AdjRandomDirection(Vec d)
{
  PetscRandom rnd;
  PetscReal   nrm;
  PetscInt    N;

  PetscFunctionBeginUser;
  PetscCall(PetscRandomCreate(PetscObjectComm((PetscObject)d), &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  PetscCall(PetscRandomSetSeed(rnd, 20261129));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(VecSetRandom(d, rnd));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecGetSize(d, &N));
  PetscCall(VecNorm(d, NORM_2, &nrm));
  PetscCall(VecScale(d, PetscSqrtReal((PetscReal)N) / nrm));
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

/* Taylor test: with r1(h) = |J(p+hd) - J(p)| and r2(h) = |J(p+hd) - J(p) - h g.d|, a correct
 * gradient gives r1 = O(h) and r2 = O(h^2): observed rates log2(r(h)/r(h/2)) -> 1 and 2.
 * Remainders below 1e3 eps |J| are round-off and do not count toward the rate. */
PetscErrorCode AdjDriverTaylorTest(AdjDriver drv, Vec p, PetscReal *min_rate2)
{
  MPI_Comm  comm;
  Vec       g, d, work;
  PetscReal J0, Jg, gd, h, rms, r1prev = 0, r2prev = 0;
  PetscInt  N, counted = 0;
  PetscBool quiet;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectGetComm((PetscObject)p, &comm));
  PetscCall(AdjDriverIsQuiet(drv, &quiet));
  PetscCall(VecDuplicate(p, &g));
  PetscCall(VecDuplicate(p, &d));
  PetscCall(VecDuplicate(p, &work));
  PetscCall(AdjDriverGradient(drv, p, &Jg, g));
  PetscCall(AdjDriverForward(drv, p, PETSC_FALSE, &J0));
  PetscCall(AdjRandomDirection(d));
  PetscCall(VecDot(g, d, &gd));
  PetscCall(VecGetSize(p, &N));
  PetscCall(VecNorm(p, NORM_2, &rms));
  rms        = rms / PetscSqrtReal((PetscReal)N);
  h          = drv->taylor_h0 > 0 ? drv->taylor_h0 : 1e-2 * PetscMax(1.0, rms);
  *min_rate2 = PETSC_MAX_REAL;
  PetscCall(PetscPrintf(comm, "Taylor test: J(p) = %.16e, g.d = %.16e (random direction, unit RMS)\n", (double)J0,
                        (double)gd));
  PetscCall(PetscPrintf(comm, "  %-12s %-24s %-12s %-7s %-12s %-7s\n", "h", "J(p+hd)", "r1", "rate1", "r2", "rate2"));
  for (PetscInt l = 0; l < drv->taylor_levels; l++, h *= 0.5) {
    PetscReal Jh, r1, r2, rate1 = 0, rate2 = 0;
    PetscBool noise;

    PetscCall(AdjPerturbedObjective(drv, p, h, d, work, &Jh));
    r1    = PetscAbsReal(Jh - J0);
    r2    = PetscAbsReal(Jh - J0 - h * gd);
    noise = (PetscBool)(r2 < 1e3 * PETSC_MACHINE_EPSILON * PetscMax(PetscAbsReal(J0), PETSC_SMALL));
    if (l > 0) {
      rate1 = PetscLog2Real(r1prev / r1);
      rate2 = PetscLog2Real(r2prev / r2);
      if (!noise) {
        *min_rate2 = PetscMin(*min_rate2, rate2);
        counted++;
      }
    }
    PetscCall(PetscPrintf(comm, "  %-12.4e %-24.16e %-12.4e %-7.3f %-12.4e %-7.3f%s\n", (double)h, (double)Jh,
                          (double)r1, (double)rate1, (double)r2, (double)rate2, noise ? "  (round-off)" : ""));
    r1prev = r1;
    r2prev = r2;
  }
  PetscCheck(counted > 0, comm, PETSC_ERR_USER_INPUT,
             "Taylor test: all second-order remainders are at round-off level; raise -adjoint_taylor_h0");
  PetscCall(VecDestroy(&g));
  PetscCall(VecDestroy(&d));
  PetscCall(VecDestroy(&work));
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

/* Central differences (J(p + h e_i) - J(p - h e_i)) / 2h for the largest gradient entry and
 * components spread evenly over the design vector. */
PetscErrorCode AdjDriverFDCheck(AdjDriver drv, Vec p, PetscInt ncomp, PetscReal *max_rel_err)
{
  MPI_Comm  comm;
  Vec       g, e, work;
  PetscReal J, gmax;
  PetscInt  N, imax;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectGetComm((PetscObject)p, &comm));
  PetscCall(VecDuplicate(p, &g));
  PetscCall(VecDuplicate(p, &e));
  PetscCall(VecDuplicate(p, &work));
  PetscCall(AdjDriverGradient(drv, p, &J, g));
  PetscCall(VecGetSize(p, &N));
  PetscCall(VecNorm(g, NORM_INFINITY, &gmax));
  PetscCall(VecCopy(g, work));
  PetscCall(VecAbs(work));
  PetscCall(VecMax(work, &imax, &gmax));
  *max_rel_err = 0;
  PetscCall(PetscPrintf(comm, "Finite-difference check (central, relative step %g), errors relative to max|g| = %.6e\n",
                        (double)drv->fd_h, (double)gmax));
  for (PetscInt c = 0; c < PetscMin(ncomp, N); c++) {
    const PetscInt i = c == 0 ? imax : (PetscInt)(((PetscInt64)c * N) / ncomp);
    PetscReal      pi, gi, h, Jp, Jm, fd, err;

    PetscCall(AdjVecGetGlobalEntry(p, i, &pi));
    PetscCall(AdjVecGetGlobalEntry(g, i, &gi));
    h = drv->fd_h * PetscMax(1.0, PetscAbsReal(pi));
    PetscCall(VecSet(e, 0.0));
    PetscCall(VecSetValue(e, i, 1.0, INSERT_VALUES));
    PetscCall(VecAssemblyBegin(e));
    PetscCall(VecAssemblyEnd(e));
    PetscCall(AdjPerturbedObjective(drv, p, h, e, work, &Jp));
    PetscCall(AdjPerturbedObjective(drv, p, -h, e, work, &Jm));
    fd           = (Jp - Jm) / (2 * h);
    err          = PetscAbsReal(fd - gi) / PetscMax(gmax, PETSC_SMALL);
    *max_rel_err = PetscMax(*max_rel_err, err);
    PetscCall(PetscPrintf(comm, "  component %-8" PetscInt_FMT " adjoint % .10e  fd % .10e  rel.err %.2e\n", i,
                          (double)gi, (double)fd, (double)err));
  }
  PetscCall(VecDestroy(&g));
  PetscCall(VecDestroy(&e));
  PetscCall(VecDestroy(&work));
  PetscFunctionReturn(PETSC_SUCCESS);
}
