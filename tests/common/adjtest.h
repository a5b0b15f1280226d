/* Small helpers shared by adjsim's C tests: random vectors and a pass/fail report. */
#pragma once

#include <petscvec.h>

/* Uniform [-1,1) entries; each rank draws from its own seeded stream. */
static inline PetscErrorCode AdjTestRandom(Vec v, PetscInt seed)
{
  PetscRandom rnd;
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  PetscCall(PetscRandomSetSeed(rnd, (unsigned long)(1000 * seed + rank + 1)));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(VecSetRandom(v, rnd));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscFunctionReturn(0);
}

/* Sum over ranks of the local dot products: the inner product on concatenated local vectors. */
static inline PetscErrorCode AdjTestLocalDot(Vec a, Vec b, PetscReal *dot)
{
  PetscScalar local;

  PetscFunctionBeginUser;
  PetscCall(VecDot(a, b, &local)); /* a, b sequential (local) vectors */
  PetscCallMPI(MPI_Allreduce(&local, dot, 1, MPIU_REAL, MPIU_SUM, PETSC_COMM_WORLD));
  PetscFunctionReturn(0);
}

/* Compares <J dx, y> with <dx, J^T y>; counts a failure when the relative gap exceeds tol. */
static inline PetscErrorCode AdjTestReport(const char name[], PetscReal lhs, PetscReal rhs, PetscReal tol,
                                           PetscInt *failures)
{
  const PetscReal rel = PetscAbsReal(lhs - rhs) / PetscMax(PetscMax(PetscAbsReal(lhs), PetscAbsReal(rhs)), PETSC_SMALL);

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-44s <J dx,y> = % .16e  <dx,J^T y> = % .16e  rel %.2e  %s\n", name,
                        (double)lhs, (double)rhs, (double)rel, rel <= tol ? "ok" : "FAIL"));
  if (!(rel <= tol)) (*failures)++;
  PetscFunctionReturn(0);
}

/* The same, with the gap measured relative to scale = |T dx| |y|, the Cauchy-Schwarz bound of both
 * sides: round-off in either side is relative to it, whereas <T dx, y> of two random vectors can
 * cancel to a small fraction of it (then the plain relative gap measures that cancellation, not
 * the adjoint).  Both gaps are printed. */
static inline PetscErrorCode AdjTestReportScaled(const char name[], PetscReal lhs, PetscReal rhs, PetscReal scale,
                                                 PetscReal tol, PetscInt *failures)
{
  const PetscReal rel = PetscAbsReal(lhs - rhs) / PetscMax(PetscMax(PetscAbsReal(lhs), PetscAbsReal(rhs)), PETSC_SMALL);
  const PetscReal srel = PetscAbsReal(lhs - rhs) / PetscMax(scale, PETSC_SMALL);

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "%-40s <T dx,y> = % .16e  <dx,T^T y> = % .16e  rel %.1e  rel(|T dx||y|) %.1e  %s\n", name,
                        (double)lhs, (double)rhs, (double)rel, (double)srel, srel <= tol ? "ok" : "FAIL"));
  if (!(srel <= tol)) (*failures)++;
  PetscFunctionReturn(0);
}
