/* Airfoils read from Selig-format coordinate files (AdjShapeReadSelig, shape type dat):
 *  - a NACA 0012 file written from the geometry layer's own NACA curve (81 points per surface, cosine
 *    spaced) reads back as the same curve: the file airfoil's points at u equal the NACA points at u to
 *    the spline's interpolation error (1e-5 chords), and a cambered NACA 2412 file lies on the NACA 2412
 *    surface (its signed distance, 1e-4 chords);
 *  - a blunt trailing edge (the 2412 file with each surface sheared by x gap/2, gap 0.4% chord) is closed:
 *    the curve's two ends meet and it is the sharp file's curve again;
 *  - malformed files are refused with PETSC_ERR_USER_INPUT: text instead of numbers, too few points, the
 *    Lednicer layout, the surfaces in the wrong order, a missing file;
 *  - the O-grid around a file airfoil with Hicks-Henne bumps (the design parameters of a file airfoil):
 *    dot test of its adjoint (1e-12 of |T dx||y|) and Taylor test in the bump amplitudes and the chord.
 * Every check fails on a NaN. */
#include <adjsim/ogrid.h>
#include <sys/stat.h>
#include <unistd.h>
#include "adjtest.h"

static PetscErrorCode Check(const char *what, PetscReal err, PetscReal tol, PetscInt *fail)
{
  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s %s: %.3e (tol %.1e)\n", err <= tol ? "ok  " : "FAIL", what, (double)err,
                        (double)tol));
  if (!(err <= tol)) (*fail)++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A Selig file of a NACA shape (chord 1, leading edge at the origin): n points per surface from the
 * geometry layer's curve, trailing edge, upper surface, leading edge, lower surface, trailing edge;
 * blunt: the lower and upper trailing-edge points moved apart by gap. Rank 0 writes. */
static PetscErrorCode WriteNaca(const char *path, PetscReal m, PetscReal t, PetscInt n, PetscReal gap)
{
  AdjShape    s = {.type = ADJ_SHAPE_NACA4, .p = {0.25, 0, 0, 1.0, m, 0.4, t}};
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(AdjShapeSetUp(PETSC_COMM_SELF, &s));
  if (!rank) {
    FILE *fp = fopen(path, "w");
    PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot write %s", path);
    fprintf(fp, "NACA %g%g12 written by test_selig\n", (double)(100 * m), (double)(10 * 0.4));
    for (PetscInt k = 0; k <= 2 * (n - 1); k++) { /* u from 1 (upper trailing edge) down to 0 */
      const PetscReal u = 1 - (PetscReal)k / (2 * (n - 1));
      PetscReal       xy[2];
      AdjShapeSurfacePoint(&s, u >= 1 ? 0 : u, xy, NULL);
      xy[1] += (k <= n - 1 ? 0.5 : -0.5) * gap * xy[0]; /* open: each surface sheared by x gap/2 */
      fprintf(fp, " %.12f %.12f\n", (double)xy[0], (double)xy[1]);
    }
    fclose(fp);
  }
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscCall(AdjShapeDestroy(&s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ReadFile(const char *path, PetscInt nbump, AdjShape *s)
{
  PetscFunctionBeginUser;
  PetscCall(AdjShapeReadSelig(PETSC_COMM_WORLD, path, "test", nbump, s));
  s->p[0] = 0.25; /* the quarter chord, as the NACA shapes of WriteNaca */
  PetscCall(AdjShapeSetUp(PETSC_COMM_WORLD, s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The file airfoil against the NACA curve it was written from. */
static PetscErrorCode CheckNacaFiles(PetscInt *fail)
{
  AdjShape  dat, naca = {.type = ADJ_SHAPE_NACA4, .p = {0.25, 0, 0, 1.0, 0, 0.4, 0.12}};
  AdjShape  naca2 = {.type = ADJ_SHAPE_NACA4, .p = {0.25, 0, 0, 1.0, 0.02, 0.4, 0.12}};
  PetscReal same = 0, dist = 0, dle = 0, ends;

  PetscFunctionBeginUser;
  PetscCall(AdjShapeSetUp(PETSC_COMM_WORLD, &naca));
  PetscCall(AdjShapeSetUp(PETSC_COMM_WORLD, &naca2));
  PetscCall(WriteNaca("naca0012.dat", 0, 0.12, 81, 0));
  PetscCall(ReadFile("naca0012.dat", 0, &dat));
  for (PetscInt k = 0; k < 997; k++) {
    PetscReal a[2], b[2];
    AdjShapeSurfacePoint(&dat, k / 997.0, a, NULL);
    AdjShapeSurfacePoint(&naca, k / 997.0, b, NULL);
    same = AdjTestMax(same, PetscHypotReal(a[0] - b[0], a[1] - b[1]));
  }
  PetscCall(Check("NACA 0012 file vs NACA 0012 curve at the same u [chords]", same, 1e-5, fail));
  PetscCall(AdjShapeDestroy(&dat));
  PetscCall(WriteNaca("naca2412.dat", 0.02, 0.12, 81, 0));
  PetscCall(ReadFile("naca2412.dat", 0, &dat));
  for (PetscInt k = 1; k < 997; k++) {
    PetscReal a[2], d;
    AdjShapeSurfacePoint(&dat, k / 997.0, a, NULL);
    if (a[0] > 0.01) { /* the NACA point of the same side at the same x (bisection in u), exact */
      PetscReal lo = k < 498.5 ? 0 : 0.5, hi = k < 498.5 ? 0.5 : 1, b[2] = {0, 0};
      for (PetscInt it = 0; it < 60; it++) {
        const PetscReal mid = 0.5 * (lo + hi);
        AdjShapeSurfacePoint(&naca2, mid, b, NULL);
        if ((b[0] > a[0]) == (k < 498.5))
          lo = mid;
        else
          hi = mid;
      }
      dist = AdjTestMax(dist, PetscAbsReal(a[1] - b[1]));
    } else {
      AdjShapeDistance(&naca2, a[0], a[1], &d, NULL);
      dle = AdjTestMax(dle, PetscAbsReal(d));
    }
  }
  PetscCall(Check("NACA 2412 file points, x/c > 0.01: y against the NACA 2412 surface at the same x [chords]", dist,
                  1e-5, fail));
  /* Near the leading edge the cambered NACA upper surface curls to x/c = -7.9e-5 between the file's first
   * two upper points; a file airfoil is y(x) per surface from the point of smallest x, so it cannot follow
   * that (measured 3.2e-4 chords with 81 points per surface). */
  PetscCall(Check("NACA 2412 file points, x/c <= 0.01: distance [chords] (representation limit)", dle, 5e-4, fail));
  PetscCall(AdjShapeDestroy(&dat));
  PetscCall(WriteNaca("blunt.dat", 0.02, 0.12, 81, 0.004));
  PetscCall(ReadFile("blunt.dat", 0, &dat));
  {
    PetscReal a[2], b[2];
    AdjShapeSurfacePoint(&dat, 0, a, NULL);
    AdjShapeSurfacePoint(&dat, 1 - 1e-12, b, NULL);
    ends = PetscHypotReal(a[0] - b[0], a[1] - b[1]);
  }
  PetscCall(Check("blunt trailing edge closed: gap between the curve's ends [chords]", ends, 1e-9, fail));
  {
    AdjShape  sharp;
    PetscReal diff = 0;
    PetscCall(ReadFile("naca2412.dat", 0, &sharp));
    for (PetscInt k = 0; k < 997; k++) {
      PetscReal a[2], b[2];
      AdjShapeSurfacePoint(&dat, k / 997.0, a, NULL);
      AdjShapeSurfacePoint(&sharp, k / 997.0, b, NULL);
      diff = AdjTestMax(diff, PetscHypotReal(a[0] - b[0], a[1] - b[1]));
    }
    PetscCall(Check("closed blunt file vs the sharp file [chords]", diff, 1e-9, fail));
    PetscCall(AdjShapeDestroy(&sharp));
  }
  PetscCall(AdjShapeDestroy(&dat));
  PetscCall(AdjShapeDestroy(&naca));
  PetscCall(AdjShapeDestroy(&naca2));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A malformed file must be refused with PETSC_ERR_USER_INPUT. */
static PetscErrorCode CheckRefused(const char *what, const char *text, PetscInt *fail)
{
  AdjShape       s;
  PetscErrorCode ierr;
  PetscMPIInt    rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  if (!rank && text) {
    FILE *fp = fopen("bad.dat", "w");
    fputs(text, fp);
    fclose(fp);
  }
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = AdjShapeReadSelig(PETSC_COMM_WORLD, text ? "bad.dat" : "no-such-file.dat", "test", 0, &s);
  PetscCall(PetscPopErrorHandler());
  PetscCall(Check(what, ierr == PETSC_ERR_USER_INPUT ? 0 : 1, 0, fail));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The O-grid of a file airfoil with 3 bumps per surface: dot test and Taylor test in (chord, bumps). */
static PetscErrorCode CheckGrid(PetscInt *fail)
{
  AdjShape  dat;
  AdjOGrid  og;
  Vec       X, dX, Xb;
  PetscReal dp[ADJ_SHAPE_MAX_PARAMS] = {0}, pb[ADJ_SHAPE_MAX_PARAMS] = {0}, p[ADJ_SHAPE_MAX_PARAMS],
            q[ADJ_SHAPE_MAX_PARAMS];
  PetscReal lhs, rhs = 0, ndX, nXb, J0, g = 0, prev = -1, rate = PETSC_MAX_REAL;

  PetscFunctionBeginUser;
  PetscCall(ReadFile("naca2412.dat", 3, &dat));
  for (PetscInt k = 0; k < 3; k++) dat.p[4 + k] = 0.002 * (k + 1), dat.p[7 + k] = -0.001 * (k + 1);
  PetscCall(AdjOGridCreate(PETSC_COMM_WORLD, &og));
  PetscCall(AdjOGridSetShape(og, &dat));
  PetscCall(AdjOGridSetFromOptions(og));
  PetscCall(AdjOGridSetUp(og));
  PetscCall(AdjOGridGetCoordinates(og, NULL, &X));
  PetscCall(VecDuplicate(X, &dX));
  PetscCall(VecDuplicate(X, &Xb));
  PetscCall(AdjTestRandom(Xb, 3));
  dp[3] = 0.1;
  for (PetscInt k = 4; k < 10; k++) dp[k] = 0.01 * ((k % 3) - 1.2);
  PetscCall(AdjOGridGenerateTangent(og, dp, dX));
  PetscCall(VecDot(dX, Xb, &lhs));
  PetscCall(AdjOGridGenerateAdjoint(og, Xb, pb));
  for (PetscInt i = 0; i < dat.np; i++) rhs += dp[i] * pb[i];
  PetscCall(VecNorm(dX, NORM_2, &ndX));
  PetscCall(VecNorm(Xb, NORM_2, &nXb));
  PetscCall(AdjTestReportScaled("file airfoil O-grid: dot test", lhs, rhs, ndX * nXb, 1e-12, fail));
  PetscCall(VecDot(X, Xb, &J0));
  PetscCall(PetscArraycpy(p, dat.p, dat.np));
  for (PetscInt i = 0; i < dat.np; i++) g += pb[i] * dp[i];
  for (PetscInt k = 0; k < 4; k++) {
    const PetscReal h = 0.2 / (1 << k);
    PetscReal       J, r;
    for (PetscInt i = 0; i < dat.np; i++) q[i] = p[i] + h * dp[i];
    PetscCall(AdjOGridSetShapeParameters(og, q));
    PetscCall(VecDot(X, Xb, &J));
    r = PetscAbsReal(J - J0 - h * g);
    if (prev > 0) rate = AdjTestMin(rate, PetscLog2Real(prev / r));
    prev = r;
  }
  PetscCall(Check("file airfoil O-grid: Taylor rate deficit 2 - min rate", 2 - rate, 0.1, fail));
  PetscCall(VecDestroy(&dX));
  PetscCall(VecDestroy(&Xb));
  PetscCall(AdjOGridDestroy(&og));
  PetscCall(AdjShapeDestroy(&dat));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt fail = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  { /* the files of this run in a folder of its own: the 1- and 2-rank runs may run at once */
    PetscMPIInt size, rank;
    char        dir[32];
    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
    PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
    PetscCall(PetscSNPrintf(dir, sizeof(dir), "selig-np%d", (int)size));
    if (!rank) (void)mkdir(dir, 0755);
    PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
    PetscCheck(!chdir(dir), PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot enter %s", dir);
  }
  PetscCall(CheckNacaFiles(&fail));
  PetscCall(CheckRefused("refused: text instead of numbers", "title\n1.0 0.0\n0.5 abc\n", &fail));
  PetscCall(CheckRefused("refused: too few points", "title\n1 0\n0.5 0.05\n0 0\n0.5 -0.05\n1 0\n", &fail));
  PetscCall(CheckRefused("refused: Lednicer layout", "title\n61. 61.\n0 0\n", &fail));
  PetscCall(CheckRefused("refused: lower surface first",
                         "t\n1 0\n0.8 -0.02\n0.6 -0.04\n0.4 -0.05\n0.2 -0.05\n0 0\n0.2 0.05\n0.4 0.05\n0.6 0.04\n"
                         "0.8 0.02\n1 0\n",
                         &fail));
  PetscCall(CheckRefused("refused: x not monotonic on a surface",
                         "t\n1 0\n0.6 0.04\n0.8 0.02\n0.4 0.05\n0.2 0.05\n0 0\n0.2 -0.05\n0.4 -0.05\n0.6 -0.04\n"
                         "0.8 -0.02\n1 0\n",
                         &fail));
  PetscCall(CheckRefused("refused: missing file", NULL, &fail));
  PetscCall(CheckGrid(&fail));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " failure(s)\n", fail ? "FAILED" : "PASSED", fail));
  PetscCall(PetscFinalize());
  return fail ? 1 : 0;
}
