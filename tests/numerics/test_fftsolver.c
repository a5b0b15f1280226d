/* AdjFFTSolver (include/adjsim/fftsolver.h): (a I + b K) x = r by the tridiagonal y method and by the
 * transform method, for every combination of boundary conditions (x: periodic, Neumann and
 * Dirichlet on either side; y: Neumann and Dirichlet on either side), a = 0 (Poisson, singular
 * without Dirichlet sides) and a > 0, on DMDAs split in rows, in columns and the default way,
 * with an even Mx (Makhoul's DCT for Neumann-Neumann x), an odd one (FFTW's REDFT plans) and a long
 * one (rows transformed in several chunks).
 * Checks, each relative and failing by exit code:
 *   - both methods agree (1e-12),
 *   - the residual of the assembled operator, A x - Pi r (Pi: removal of the mean when singular), and
 *     the mean of x when singular (1e-12),
 *   - the solve is symmetric, <S r, s> = <r, S s> (1e-12), as the fluid adjoint assumes,
 *   - a solve after another (a, b) refactors: the first answer again, bit for bit,
 *   - a periodic box (real-to-complex transforms, even and odd sizes): residual, mean, symmetry,
 *     and the solve in place on the solver's rows (AdjFFTSolverSolveRows) gives the same bits,
 *   - asking for the tridiagonal method with a periodic y direction is refused. */
#include <adjsim/fftsolver.h>
#include "adjtest.h"

typedef struct {
  PetscInt  failures, cases;
  PetscReal worst[4]; /* method gap, residual, mean, symmetry */
} Tally;

static PetscErrorCode Check(Tally *t, PetscInt k, const char *what, const char *label, PetscReal value, PetscReal tol)
{
  PetscFunctionBeginUser;
  t->worst[k] = AdjTestMax(t->worst[k], value); /* the summary shows a NaN, as the check below fails on it */
  if (!(value <= tol)) {
    t->failures++;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL %s: %s = %.3e > %.1e\n", label, what, (double)value, (double)tol));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a I + b K with the solver's boundary rules: a face to a neighbour (or periodic image) couples
 * with b/h^2; a Neumann face adds nothing, a Dirichlet face 2 b/h^2 to the diagonal. */
static PetscErrorCode AssembleOperator(DM da, const PetscReal h[2], const AdjFFTBoundary bc[2][2], PetscReal a,
                                       PetscReal b, Mat *A)
{
  PetscInt xs, ys, xm, ym, M[2];

  PetscFunctionBeginUser;
  PetscCall(DMDAGetInfo(da, NULL, &M[0], &M[1], NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetCorners(da, &xs, &ys, NULL, &xm, &ym, NULL));
  PetscCall(DMCreateMatrix(da, A));
  for (PetscInt j = ys; j < ys + ym; j++)
    for (PetscInt i = xs; i < xs + xm; i++) {
      MatStencil  row = {.i = i, .j = j}, col[5];
      PetscScalar val[5];
      PetscInt    n = 1, idx[2] = {i, j};
      col[0] = row, val[0] = a;
      for (PetscInt d = 0; d < 2; d++)
        for (PetscInt s = 0; s < 2; s++) {
          const PetscReal c  = b / (h[d] * h[d]);
          const PetscInt  nb = idx[d] + (s ? 1 : -1);
          if (bc[d][0] == ADJ_FFT_PERIODIC || (nb >= 0 && nb < M[d])) {
            col[n]                       = row;
            *(d ? &col[n].j : &col[n].i) = nb;
            val[n++]                     = -c;
            val[0] += c;
          } else if (bc[d][s] == ADJ_FFT_DIRICHLET)
            val[0] += 2 * c;
        }
      PetscCall(MatSetValuesStencil(*A, 1, &row, n, col, val, INSERT_VALUES));
    }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RelDiff(Vec a, Vec b, Vec work, PetscReal *rel)
{
  PetscReal na, nb, nd;

  PetscFunctionBeginUser;
  PetscCall(VecWAXPY(work, -1.0, a, b));
  PetscCall(VecNorm(work, NORM_INFINITY, &nd));
  PetscCall(VecNorm(a, NORM_INFINITY, &na));
  PetscCall(VecNorm(b, NORM_INFINITY, &nb));
  {
    const PetscReal either = AdjTestMax(na, nb); /* NaN when one is NaN; zero when a and b both are */

    /* both zero compare equal whatever the solver does: infinite, which fails */
    *rel = AdjTestRelative(nd, either > 0 ? PetscMax(na, PETSC_SMALL) : either);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One (a, b): both methods, residual, mean, symmetry. */
static PetscErrorCode CheckSolve(DM da, AdjFFTSolver tr, AdjFFTSolver li, const PetscReal h[2],
                                 const AdjFFTBoundary bc[2][2], PetscReal a, PetscReal b, const char *label, Tally *t)
{
  Vec       r, s, xt, xl, ys, w;
  Mat       A;
  PetscReal rel, nA, nx, sr, rs, ny, nr;
  PetscBool singular = (PetscBool)(a == 0);

  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < 2; d++)
    for (PetscInt k = 0; k < 2; k++)
      if (bc[d][k] == ADJ_FFT_DIRICHLET) singular = PETSC_FALSE;
  PetscCall(DMCreateGlobalVector(da, &r));
  PetscCall(VecDuplicate(r, &s));
  PetscCall(VecDuplicate(r, &xt));
  PetscCall(VecDuplicate(r, &xl));
  PetscCall(VecDuplicate(r, &ys));
  PetscCall(VecDuplicate(r, &w));
  PetscCall(AdjTestRandom(r, 1));
  PetscCall(AdjTestRandom(s, 2));
  PetscCall(AdjFFTSolverSolve(tr, a, b, r, xt));
  if (li) { /* both methods */
    PetscCall(AdjFFTSolverSolve(li, a, b, r, xl));
    PetscCall(RelDiff(xt, xl, w, &rel));
    PetscCall(Check(t, 0, "|x_tridiagonal - x_transform| / |x|", label, rel, 1e-12));
  } else {
    li = tr;
    PetscCall(VecCopy(xt, xl));
  }
  PetscCall(AssembleOperator(da, h, bc, a, b, &A));
  PetscCall(MatMult(A, xl, w));
  if (singular) { /* A x - Pi r = A x - r + mean(r) */
    PetscScalar sum;
    PetscInt    N;
    PetscCall(VecSum(r, &sum));
    PetscCall(VecGetSize(r, &N));
    PetscCall(VecShift(w, sum / N));
  }
  PetscCall(VecAXPY(w, -1.0, r));
  PetscCall(MatNorm(A, NORM_INFINITY, &nA));
  PetscCall(VecNorm(xl, NORM_INFINITY, &nx));
  PetscCall(VecNorm(w, NORM_INFINITY, &nr));
  PetscCall(Check(t, 1, "|A x - Pi r| / (|A| |x|)", label, nr / (nA * nx), 1e-12));
  if (singular) {
    PetscScalar mean;
    PetscInt    N;
    PetscCall(VecSum(xl, &mean));
    PetscCall(VecGetSize(xl, &N));
    PetscCall(Check(t, 2, "|mean x| / |x|", label, PetscAbsScalar(mean) / N / nx, 1e-12));
  }
  PetscCall(AdjFFTSolverSolve(li, a, b, s, ys));
  PetscCall(VecDot(xl, s, &sr));
  PetscCall(VecDot(r, ys, &rs));
  PetscCall(VecNorm(xl, NORM_2, &nx));
  PetscCall(VecNorm(s, NORM_2, &ny));
  PetscCall(Check(t, 3, "|<S r, s> - <r, S s>| / (|S r| |s|)", label, PetscAbsReal(sr - rs) / (nx * ny), 1e-12));
  t->cases++;
  PetscCall(MatDestroy(&A));
  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&s));
  PetscCall(VecDestroy(&xt));
  PetscCall(VecDestroy(&xl));
  PetscCall(VecDestroy(&ys));
  PetscCall(VecDestroy(&w));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One DMDA split (m x n ranks, PETSC_DECIDE for the default) and one boundary combination. */
static PetscErrorCode CheckCase(PetscInt Mx, PetscInt m, PetscInt n, const AdjFFTBoundary bc[2][2], const char *label,
                                Tally *t)
{
  const PetscInt  My       = 20;
  const PetscReal h[2]     = {1.3 / Mx, 1.0 / My};
  const PetscReal ab[3][2] = {{0, 1}, {1.5, 0.3}, {0, 1}};
  DM              da;
  AdjFFTSolver    tr, li;
  AdjFFTYMethod   method;
  Vec             r, x0, x1;

  PetscFunctionBeginUser;
  PetscCall(DMDACreate2d(PETSC_COMM_WORLD, bc[0][0] == ADJ_FFT_PERIODIC ? DM_BOUNDARY_PERIODIC : DM_BOUNDARY_NONE,
                         DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, Mx, My, m, n, 1, 1, NULL, NULL, &da));
  PetscCall(DMSetUp(da));
  PetscCall(AdjFFTSolverCreateWith(da, h, bc, ADJ_FFT_Y_TRANSFORM, PETSC_FALSE, &tr));
  PetscCall(AdjFFTSolverCreateWith(da, h, bc, ADJ_FFT_Y_TRIDIAGONAL, PETSC_FALSE, &li));
  PetscCall(AdjFFTSolverGetYMethod(li, &method));
  PetscCheck(method == ADJ_FFT_Y_TRIDIAGONAL, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "tridiagonal method not in use");
  PetscCall(DMCreateGlobalVector(da, &r));
  PetscCall(VecDuplicate(r, &x0));
  PetscCall(VecDuplicate(r, &x1));
  PetscCall(AdjTestRandom(r, 3));
  PetscCall(AdjFFTSolverSolve(li, ab[0][0], ab[0][1], r, x0));
  for (PetscInt k = 0; k < 3; k++) PetscCall(CheckSolve(da, tr, li, h, bc, ab[k][0], ab[k][1], label, t));
  PetscCall(AdjFFTSolverSolve(li, ab[1][0], ab[1][1], r, x1)); /* factors for (1.5, 0.3) ... */
  PetscCall(AdjFFTSolverSolve(li, ab[0][0], ab[0][1], r, x1)); /* ... then (0, 1) again */
  {
    PetscReal rel;
    PetscCall(RelDiff(x0, x1, r, &rel));
    if (rel != 0) {
      t->failures++;
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL %s: a repeated solve after refactoring differs by %.3e\n", label,
                            (double)rel));
    }
  }
  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&x0));
  PetscCall(VecDestroy(&x1));
  PetscCall(AdjFFTSolverDestroy(&tr));
  PetscCall(AdjFFTSolverDestroy(&li));
  PetscCall(DMDestroy(&da));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A periodic box (the real-to-complex transforms; the transform method only): residual, mean,
 * symmetry, and the same answer twice, bit for bit, for an even and an odd Mx, on every split. */
static PetscErrorCode CheckPeriodicBox(PetscInt Mx, PetscInt My, PetscInt m, PetscInt n, const char *label, Tally *t)
{
  const AdjFFTBoundary bc[2][2] = {{ADJ_FFT_PERIODIC, ADJ_FFT_PERIODIC}, {ADJ_FFT_PERIODIC, ADJ_FFT_PERIODIC}};
  const PetscReal      h[2]     = {1.3 / Mx, 1.0 / My};
  DM                   da;
  AdjFFTSolver         tr;
  Vec                  r, x0, x1;
  PetscReal            rel;

  PetscFunctionBeginUser;
  PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_PERIODIC, DM_BOUNDARY_PERIODIC, DMDA_STENCIL_STAR, Mx, My, m, n,
                         1, 1, NULL, NULL, &da));
  PetscCall(DMSetUp(da));
  PetscCall(AdjFFTSolverCreate(da, h, bc, &tr));
  PetscCall(CheckSolve(da, tr, NULL, h, bc, 0, 1, label, t));
  PetscCall(CheckSolve(da, tr, NULL, h, bc, 1.5, 0.3, label, t));
  PetscCall(DMCreateGlobalVector(da, &r));
  PetscCall(VecDuplicate(r, &x0));
  PetscCall(VecDuplicate(r, &x1));
  PetscCall(AdjTestRandom(r, 4));
  PetscCall(AdjFFTSolverSolve(tr, 0, 1, r, x0));
  PetscCall(AdjFFTSolverSolve(tr, 1.5, 0.3, r, x1));
  PetscCall(AdjFFTSolverSolve(tr, 0, 1, r, x1));
  PetscCall(RelDiff(x0, x1, r, &rel));
  if (rel != 0) {
    t->failures++;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL %s: a repeated solve differs by %.3e\n", label, (double)rel));
  }
  { /* in place on the solver's rows (when it has them: the DMDA owns FFTW's slabs): the same bits */
    PetscScalar       *rows, *y;
    PetscInt           ld, xs, ys, xm, ym, bad = 0;
    const PetscScalar *in;
    PetscCall(AdjFFTSolverGetRows(tr, &rows, &ld));
    if (rows) {
      PetscCall(DMDAGetCorners(da, &xs, &ys, NULL, &xm, &ym, NULL));
      PetscCall(AdjTestRandom(r, 5));
      PetscCall(AdjFFTSolverSolve(tr, 1.5, -0.3, r, x0));
      PetscCall(VecGetArrayRead(r, &in));
      for (PetscInt j = 0; j < ym; j++) PetscCall(PetscArraycpy(rows + j * ld, in + j * xm, xm));
      PetscCall(VecRestoreArrayRead(r, &in));
      PetscCall(AdjFFTSolverSolveRows(tr, 1.5, -0.3));
      PetscCall(VecGetArray(x0, &y));
      for (PetscInt j = 0; j < ym; j++)
        for (PetscInt i = 0; i < xm; i++) bad += y[j * xm + i] != rows[j * ld + i];
      PetscCall(VecRestoreArray(x0, &y));
      PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
      if (bad) {
        t->failures++;
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL %s: the solve on the rows differs in %" PetscInt_FMT " cells\n",
                              label, bad));
      }
    }
  }
  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&x0));
  PetscCall(VecDestroy(&x1));
  PetscCall(AdjFFTSolverDestroy(&tr));
  PetscCall(DMDestroy(&da));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The tridiagonal method refuses a periodic y direction with a message. */
static PetscErrorCode CheckRefusal(Tally *t)
{
  const AdjFFTBoundary bc[2][2] = {{ADJ_FFT_NEUMANN, ADJ_FFT_NEUMANN}, {ADJ_FFT_PERIODIC, ADJ_FFT_PERIODIC}};
  DM                   da;
  const PetscReal      unit[2] = {1.0, 1.0};
  AdjFFTSolver         fs      = NULL;
  PetscErrorCode       ierr;

  PetscFunctionBeginUser;
  PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_PERIODIC, DMDA_STENCIL_STAR, 16, 16,
                         PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, &da));
  PetscCall(DMSetUp(da));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = AdjFFTSolverCreateWith(da, unit, bc, ADJ_FFT_Y_TRIDIAGONAL, PETSC_FALSE, &fs);
  PetscCall(PetscPopErrorHandler());
  if (ierr != PETSC_ERR_USER_INPUT) {
    t->failures++;
    PetscCall(
        PetscPrintf(PETSC_COMM_WORLD, "FAIL: a periodic y with the tridiagonal method gave error %d\n", (int)ierr));
  }
  PetscCall(DMDestroy(&da));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const AdjFFTBoundary P = ADJ_FFT_PERIODIC, N = ADJ_FFT_NEUMANN, D = ADJ_FFT_DIRICHLET;
  const AdjFFTBoundary xs[5][2] = {{P, P}, {N, N}, {D, D}, {N, D}, {D, N}}, ys[4][2] = {{N, N}, {D, D}, {N, D}, {D, N}};
  const char          *name[3] = {"P", "N", "D"};
  Tally                t       = {0};
  PetscMPIInt          size;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  for (PetscInt split = 0; split < 5; split++) {
    /* 23: odd, FFTW's REDFT plans, not Makhoul's DCT; 1100: rows of 8.6 kB, so the 20 rows are
       transformed in chunks of 7, 7 and 6 (the remainder plan) */
    const PetscInt Mx = split == 3 ? 23 : split == 4 ? 1100 : 24;
    const PetscInt m  = split == 1 ? 1 : split == 2 ? size : PETSC_DECIDE;
    const PetscInt n  = split == 1 ? size : split == 2 ? 1 : PETSC_DECIDE;
    if (split == 2 && size > 4) continue; /* columns of 24 / size cells */
    for (PetscInt i = 0; i < 5; i++)
      for (PetscInt j = 0; j < 4; j++) {
        const AdjFFTBoundary bc[2][2] = {{xs[i][0], xs[i][1]}, {ys[j][0], ys[j][1]}};
        char                 label[64];
        PetscCall(PetscSNPrintf(label, sizeof(label), "%" PetscInt_FMT " x 20, split %s, x %s%s, y %s%s", Mx,
                                split == 1   ? "rows"
                                : split == 2 ? "columns"
                                             : "default",
                                name[xs[i][0]], name[xs[i][1]], name[ys[j][0]], name[ys[j][1]]));
        PetscCall(CheckCase(Mx, m, n, bc, label, &t));
      }
  }
  for (PetscInt split = 0; split < 3; split++)
    for (PetscInt odd = 0; odd < 2; odd++) {
      const PetscInt Mx = odd ? 23 : 24, My = odd ? 21 : 20;
      const PetscInt m = split == 1 ? 1 : split == 2 ? size : PETSC_DECIDE;
      const PetscInt n = split == 1 ? size : split == 2 ? 1 : PETSC_DECIDE;
      char           label[64];
      PetscCall(PetscSNPrintf(label, sizeof(label), "%" PetscInt_FMT " x %" PetscInt_FMT ", split %d, periodic box", Mx,
                              My, (int)split));
      PetscCall(CheckPeriodicBox(Mx, My, m, n, label, &t));
    }
  PetscCall(CheckRefusal(&t));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "%" PetscInt_FMT " solves on %d rank(s); worst: method gap %.2e, residual %.2e, mean %.2e, "
                        "symmetry %.2e\n%s: %" PetscInt_FMT " failure(s)\n",
                        t.cases, size, (double)t.worst[0], (double)t.worst[1], (double)t.worst[2], (double)t.worst[3],
                        t.failures ? "FAIL" : "PASS", t.failures));
  PetscCall(PetscFinalize());
  return t.failures ? 1 : 0;
}
