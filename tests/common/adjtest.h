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

/* sum_k a_k b_k of two local arrays (no reduction over ranks). */
static inline PetscReal AdjTestArrayDot(PetscInt n, const PetscReal *a, const PetscReal *b)
{
  PetscReal s = 0;
  for (PetscInt k = 0; k < n; k++) s += a[k] * b[k];
  return s;
}

/* n uniform numbers in [-1, 1), the same on every rank: stream 7919 seed + salt (each test keeps its own salt, so
 * that its numbers do not change when it moves to this helper). */
static inline PetscErrorCode AdjTestUniformArray(PetscInt seed, PetscInt salt, PetscInt n, PetscReal a[])
{
  PetscRandom r;

  PetscFunctionBeginUser;
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &r));
  PetscCall(PetscRandomSetInterval(r, -1, 1));
  PetscCall(PetscRandomSetSeed(r, (unsigned long)(7919 * seed + salt)));
  PetscCall(PetscRandomSeed(r));
  for (PetscInt k = 0; k < n; k++) PetscCall(PetscRandomGetValueReal(r, &a[k]));
  PetscCall(PetscRandomDestroy(&r));
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

/* max(a, b) that keeps a NaN.  PetscMax(a, b) is (a < b ? b : a): it returns a whenever b is NaN, so a running
 * maximum of errors started at 0 silently drops a NaN and the check on it passes. */
static inline PetscReal AdjTestMax(PetscReal a, PetscReal b)
{
  return (PetscIsNanReal(a) || a > b) ? a : b;
}

/* The maximum of local over the ranks of comm, NaN when any rank's value is NaN (MPI_MAX on a NaN depends on
 * the order of the operands, like PetscMax). */
static inline PetscErrorCode AdjTestGlobalMax(MPI_Comm comm, PetscReal local, PetscReal *global)
{
  PetscReal in[2] = {PetscIsNanReal(local) ? PETSC_NINFINITY : local, PetscIsNanReal(local) ? 1.0 : 0.0}, out[2];

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Allreduce(in, out, 2, MPIU_REAL, MPIU_MAX, comm));
  *global = out[1] > 0 ? (PetscReal)NAN : out[0];
  PetscFunctionReturn(0);
}

/* min(a, b) that keeps a NaN (PetscMin(a, b) is (a < b ? a : b): it drops a NaN in a, so a running minimum of rates
 * or distances that sees a NaN early forgets it). */
static inline PetscReal AdjTestMin(PetscReal a, PetscReal b)
{
  return (PetscIsNanReal(a) || a < b) ? a : b;
}

/* The minimum of local over the ranks of comm, NaN when any rank's value is NaN. */
static inline PetscErrorCode AdjTestGlobalMin(MPI_Comm comm, PetscReal local, PetscReal *global)
{
  PetscReal neg = 0;

  PetscFunctionBeginUser;
  PetscCall(AdjTestGlobalMax(comm, -local, &neg));
  *global = -neg;
  PetscFunctionReturn(0);
}

/* gap / scale for a difference gap between two states measured against scale, the size of the states (e.g.
 * max(|a|, |b|)): NaN when either is NaN, and IEEE +infinity (not PETSC_INFINITY, a finite number) when scale is
 * zero or negative: two zero states compare equal whatever the code computes, so such a comparison tests nothing and
 * must not pass. */
static inline PetscReal AdjTestRelative(PetscReal gap, PetscReal scale)
{
  if (PetscIsNanReal(gap) || PetscIsNanReal(scale)) return (PetscReal)NAN;
  return scale > 0 ? gap / scale : (PetscReal)INFINITY;
}

/* The verdict on a dot-product test, "ok" or "FAIL" with the reason, for a gap checked against tol that is
 * |lhs - rhs| over max(scale, PETSC_SMALL) or over more.  Fails when a side is NaN or infinite, when the scale is not
 * positive and finite, when the test is vacuous: both sides zero, or at most tol max(scale, PETSC_SMALL) (then the gap
 * passes whatever the adjoint returns, a zero adjoint too: a dot test with zero on both sides tests nothing), and when
 * the gap exceeds tol or is NaN. */
static inline PetscBool AdjTestVerdict(PetscReal lhs, PetscReal rhs, PetscReal scale, PetscReal gap, PetscReal tol,
                                       char verdict[], size_t len)
{
  const PetscReal big = PetscMax(PetscAbsReal(lhs), PetscAbsReal(rhs)), lim = tol * PetscMax(scale, PETSC_SMALL);
  const char     *why = NULL;

  if (PetscIsInfOrNanReal(lhs) || PetscIsInfOrNanReal(rhs))
    why = "FAIL (a side is not finite)";
  else if (big == 0)
    why = "FAIL (vacuous: both sides are zero; a dot test with zero on both sides tests nothing)";
  else if (!(scale > 0) || PetscIsInfReal(scale))
    why = "FAIL (the scale of the gap is not positive and finite)";
  else if (!(big > lim)) {
    (void)PetscSNPrintf(verdict, len, "FAIL (vacuous: both sides are at most %.1e, where a zero adjoint passes too)",
                        (double)lim);
    return PETSC_FALSE;
  } else if (!(gap <= tol))
    why = "FAIL";
  (void)PetscSNPrintf(verdict, len, "%s", why ? why : "ok");
  return (PetscBool)!why;
}

/* Compares <J dx, y> with <dx, J^T y>; counts a failure when the relative gap exceeds tol, when a side is NaN or
 * infinite, and when both sides are zero or below tol PETSC_SMALL (the gap is relative to max(|lhs|, |rhs|,
 * PETSC_SMALL), so below that any adjoint, also a zero one, would pass). */
static inline PetscErrorCode AdjTestReport(const char name[], PetscReal lhs, PetscReal rhs, PetscReal tol,
                                           PetscInt *failures)
{
  const PetscReal rel = PetscAbsReal(lhs - rhs) / PetscMax(PetscMax(PetscAbsReal(lhs), PetscAbsReal(rhs)), PETSC_SMALL);
  char            verdict[128];
  PetscBool       ok;

  PetscFunctionBeginUser;
  ok = AdjTestVerdict(lhs, rhs, PETSC_SMALL, rel, tol, verdict, sizeof(verdict));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-44s <J dx,y> = % .16e  <dx,J^T y> = % .16e  rel %.2e  %s\n", name,
                        (double)lhs, (double)rhs, (double)rel, verdict));
  if (!ok) (*failures)++;
  PetscFunctionReturn(0);
}

/* The same, with the gap measured relative to scale = |T dx| |y|, the Cauchy-Schwarz bound of both
 * sides: round-off in either side is relative to it, whereas <T dx, y> of two random vectors can
 * cancel to a small fraction of it (then the plain relative gap measures that cancellation, not
 * the adjoint).  Both gaps are printed.  Also fails when scale is not positive and finite, and when both sides
 * are zero or at most tol max(scale, PETSC_SMALL) (any adjoint, also a zero one, would pass). */
static inline PetscErrorCode AdjTestReportScaled(const char name[], PetscReal lhs, PetscReal rhs, PetscReal scale,
                                                 PetscReal tol, PetscInt *failures)
{
  const PetscReal rel = PetscAbsReal(lhs - rhs) / PetscMax(PetscMax(PetscAbsReal(lhs), PetscAbsReal(rhs)), PETSC_SMALL);
  const PetscReal srel = PetscAbsReal(lhs - rhs) / PetscMax(scale, PETSC_SMALL);
  char            verdict[128];
  PetscBool       ok;

  PetscFunctionBeginUser;
  ok = AdjTestVerdict(lhs, rhs, scale, srel, tol, verdict, sizeof(verdict));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "%-40s <T dx,y> = % .16e  <dx,T^T y> = % .16e  rel %.1e  rel(|T dx||y|) %.1e  %s\n", name,
                        (double)lhs, (double)rhs, (double)rel, (double)srel, verdict));
  if (!ok) (*failures)++;
  PetscFunctionReturn(0);
}
