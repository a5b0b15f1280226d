/* Body-fitted O-grids (include/adjsim/ogrid.h), for a NACA 4-digit airfoil (alpha 0 and not), a CST
 * airfoil and an ellipse, on the ranks of the run:
 *  - geometry: the wall ring is the body curve (trailing edge at u = 0, leading edge at u = 1/2 for the
 *    airfoils), the far ring lies on the circle of radius R about the reference point, the first cell
 *    has the requested wall spacing, the grid is unfolded and its lines leave the wall at right angles;
 *  - dot-product test of the adjoint against the tangent, <dX/dp dp, Xb> = <dp, (dX/dp)^T Xb>, 1e-12 relative;
 *  - the tangent against central differences of the grid (relative 1e-6);
 *  - Taylor test of J(p) = <w, X(p)> with the adjoint gradient: the first-order remainder falls at rate 2;
 *  - the gradient on the run's ranks equals that of a one-rank grid (PETSC_COMM_SELF) to 1e-13 relative;
 *  (the CST case has 9 coefficients per surface: Bernstein order 8, 22 parameters)
 *  - refusals: a cell angle below -airfoil_grid_min_angle, a wall spacing that is not small, growth and
 *    node count given together.
 * Every check fails on a NaN.  Options: -airfoil_grid_around etc. as adjsim reads them. */
#include <adjsim/ogrid.h>
#include "adjtest.h"

static PetscErrorCode Check(const char *label, const char *what, PetscReal err, PetscReal tol, PetscInt *fail)
{
  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s %s: %s %.3e (tol %.1e)\n", err <= tol ? "ok  " : "FAIL", label, what,
                        (double)err, (double)tol));
  if (!(err <= tol)) (*fail)++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MakeGrid(MPI_Comm comm, const AdjShape *s, AdjOGrid *og)
{
  PetscFunctionBeginUser;
  PetscCall(AdjOGridCreate(comm, og));
  PetscCall(AdjOGridSetShape(*og, s));
  PetscCall(AdjOGridSetFromOptions(*og));
  PetscCall(AdjOGridSetUp(*og));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Largest distance of the far ring from R about the reference point, relative to R; the wall ring's
 * first point and middle point (trailing and leading edge of the airfoils) against te, le. */
static PetscErrorCode CheckRings(const char *label, AdjOGrid og, const AdjShape *s, const PetscReal te[2],
                                 const PetscReal le[2], PetscInt *fail)
{
  DM                   da;
  Vec                  X;
  const PetscScalar ***x;
  PetscInt             xs, ys, xm, ym, ni, nj;
  PetscReal            R, g, far = 0, edge = 0;

  PetscFunctionBeginUser;
  PetscCall(AdjOGridGetCoordinates(og, &da, &X));
  PetscCall(AdjOGridGetSizes(og, &ni, &nj, &g, &R));
  PetscCall(DMDAGetCorners(da, &xs, &ys, NULL, &xm, &ym, NULL));
  PetscCall(DMDAVecGetArrayDOFRead(da, X, &x));
  for (PetscInt i = xs; i < xs + xm; i++) {
    if (ys + ym == nj)
      far = AdjTestMax(far, PetscAbsReal(PetscHypotReal(x[nj - 1][i][0] - s->p[0], x[nj - 1][i][1] - s->p[1]) - R) / R);
    if (ys == 0 && te && (i == 0 || i == ni / 2)) {
      const PetscReal *e = i == 0 ? te : le;
      edge               = AdjTestMax(edge, PetscHypotReal(x[0][i][0] - e[0], x[0][i][1] - e[1]));
    }
  }
  PetscCall(DMDAVecRestoreArrayDOFRead(da, X, &x));
  PetscCall(AdjTestGlobalMax(PETSC_COMM_WORLD, far, &far));
  PetscCall(AdjTestGlobalMax(PETSC_COMM_WORLD, edge, &edge));
  PetscCall(Check(label, "far ring off the circle of radius R (relative)", far, 1e-13, fail));
  if (te) PetscCall(Check(label, "trailing and leading edge of the wall ring [m]", edge, 1e-13, fail));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscInt og_smoothing = 8; /* -airfoil_grid_smoothing of this run */

static PetscErrorCode CheckQuality(const char *label, AdjOGrid og, PetscReal wall, PetscInt *fail)
{
  AdjOGridQuality q;

  PetscFunctionBeginUser;
  PetscCall(AdjOGridView(og, PETSC_VIEWER_STDOUT_WORLD));
  PetscCall(AdjOGridGetQuality(og, &q));
  PetscCall(Check(label, "folded (smallest Jacobian <= 0)", q.min_jacobian > 0 ? 0 : 1, 0, fail));
  /* the grid lines leave the wall along the normal (of the central difference of the wall points); the first
   * cell's line has turned a little towards the smoothed direction (at a sharp trailing edge up to 1 degree
   * with the default blending) */
  PetscCall(Check(label, "wall angle error of the first cell [deg]", q.wall_angle_error, 2.0, fail));
  /* neighbouring cell widths around the body: smooth except at a sharp trailing edge without smoothing */
  PetscCall(Check(label, "size ratio around", q.max_ratio_i, og_smoothing ? 6.0 : 400.0, fail));
  PetscCall(Check(label, "first cell height vs -airfoil_wall_spacing (relative)",
                  PetscAbsReal(q.wall_spacing - wall) / wall, 0.05, fail));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Dot test, tangent against central differences, Taylor test and the one-rank comparison along a random
 * direction dp of the np shape parameters (scaled by the parameters' sizes). */
static PetscErrorCode CheckDerivatives(const char *label, AdjOGrid og, const AdjShape *s, PetscInt *fail)
{
  DM        da;
  Vec       X, dX, Xb, Xp, Xm;
  PetscReal p[ADJ_SHAPE_MAX_PARAMS], dp[ADJ_SHAPE_MAX_PARAMS], pb[ADJ_SHAPE_MAX_PARAMS] = {0}, q[ADJ_SHAPE_MAX_PARAMS];
  PetscReal lhs, rhs = 0, fd, nrm, J0, g = 0, rate = PETSC_MAX_REAL, prev = -1;
  PetscRandom rnd;

  PetscFunctionBeginUser;
  PetscCall(AdjOGridGetCoordinates(og, &da, &X));
  PetscCall(VecDuplicate(X, &dX));
  PetscCall(VecDuplicate(X, &Xb));
  PetscCall(VecDuplicate(X, &Xp));
  PetscCall(VecDuplicate(X, &Xm));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1, 1));
  PetscCall(PetscArraycpy(p, s->p, s->np));
  for (PetscInt i = 0; i < s->np; i++) {
    PetscReal r;
    PetscCall(PetscRandomGetValueReal(rnd, &r));
    dp[i] = r * (i < 2 ? 0.1 : i == 2 ? 2.0 : 0.05 * PetscMax(PetscAbsReal(p[i]), 0.1));
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(AdjTestRandom(Xb, 7));
  PetscCall(AdjOGridGenerateTangent(og, dp, dX));
  PetscCall(VecDot(dX, Xb, &lhs));
  PetscCall(AdjOGridGenerateAdjoint(og, Xb, pb));
  for (PetscInt i = 0; i < s->np; i++) rhs += dp[i] * pb[i];
  {
    PetscReal ndX, nXb;
    char      name[96];
    PetscCall(VecNorm(dX, NORM_2, &ndX));
    PetscCall(VecNorm(Xb, NORM_2, &nXb));
    PetscCall(PetscSNPrintf(name, sizeof(name), "%s: grid dot test", label));
    PetscCall(AdjTestReportScaled(name, lhs, rhs, ndX * nXb, 1e-12, fail));
  }
  /* tangent against central differences, h = 1e-5 along dp */
  for (PetscInt sgn = -1; sgn <= 1; sgn += 2) {
    for (PetscInt i = 0; i < s->np; i++) q[i] = p[i] + sgn * 1e-5 * dp[i];
    PetscCall(AdjOGridSetShapeParameters(og, q));
    PetscCall(VecCopy(X, sgn < 0 ? Xm : Xp));
  }
  PetscCall(VecAXPBYPCZ(Xp, -1 / 2e-5, -1, 1 / 2e-5, Xm, dX)); /* Xp = (Xp - Xm)/2h - dX */
  PetscCall(VecNorm(Xp, NORM_INFINITY, &fd));
  PetscCall(VecNorm(dX, NORM_INFINITY, &nrm));
  PetscCall(Check(label, "tangent vs central differences (relative)", fd / nrm, 1e-6, fail));
  /* Taylor: J(p + h dp) - J(p) - h <pb, dp>, J = <Xb, X>, halving h */
  PetscCall(AdjOGridSetShapeParameters(og, p));
  PetscCall(VecDot(X, Xb, &J0));
  for (PetscInt i = 0; i < s->np; i++) g += pb[i] * dp[i];
  for (PetscInt k = 0; k < 4; k++) {
    const PetscReal h = 0.05 / (1 << k);
    PetscReal       J, r;
    for (PetscInt i = 0; i < s->np; i++) q[i] = p[i] + h * dp[i];
    PetscCall(AdjOGridSetShapeParameters(og, q));
    PetscCall(VecDot(X, Xb, &J));
    r = PetscAbsReal(J - J0 - h * g);
    if (prev > 0) rate = AdjTestMin(rate, PetscLog2Real(prev / r));
    prev = r;
  }
  PetscCall(AdjOGridSetShapeParameters(og, p));
  PetscCall(Check(label, "Taylor rate deficit 2 - min rate", 2 - rate, 0.1, fail));
  PetscCall(VecDestroy(&dX));
  PetscCall(VecDestroy(&Xb));
  PetscCall(VecDestroy(&Xp));
  PetscCall(VecDestroy(&Xm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The gradient of J = sum of the node coordinates weighted by (1, 2), on the run's ranks and on one rank. */
static PetscErrorCode CheckRankIndependence(const char *label, AdjOGrid og, const AdjShape *s, PetscInt *fail)
{
  AdjOGrid  serial;
  PetscReal g[2][ADJ_SHAPE_MAX_PARAMS] = {{0}}, diff = 0, big = 0;

  PetscFunctionBeginUser;
  PetscCall(MakeGrid(PETSC_COMM_SELF, s, &serial));
  for (PetscInt k = 0; k < 2; k++) {
    AdjOGrid grid = k ? serial : og;
    Vec      X, Xb;

    PetscCall(AdjOGridGetCoordinates(grid, NULL, &X));
    PetscCall(VecDuplicate(X, &Xb));
    PetscCall(VecStrideSet(Xb, 0, 1.0));
    PetscCall(VecStrideSet(Xb, 1, 2.0));
    PetscCall(AdjOGridGenerateAdjoint(grid, Xb, g[k]));
    PetscCall(VecDestroy(&Xb));
  }
  for (PetscInt i = 0; i < s->np; i++)
    diff = AdjTestMax(diff, PetscAbsReal(g[0][i] - g[1][i])), big = AdjTestMax(big, PetscAbsReal(g[1][i]));
  PetscCall(AdjTestGlobalMax(PETSC_COMM_WORLD, diff / big, &diff));
  PetscCall(Check(label, "gradient on these ranks vs one rank (relative)", diff, 1e-13, fail));
  PetscCall(AdjOGridDestroy(&serial));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A grid the options make impossible must be refused with PETSC_ERR_USER_INPUT. */
static PetscErrorCode CheckRefused(const char *label, const AdjShape *s, const char *opt, const char *val,
                                   PetscInt *fail)
{
  AdjOGrid       og;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsSetValue(NULL, opt, val));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MakeGrid(PETSC_COMM_WORLD, s, &og);
  PetscCall(PetscPopErrorHandler());
  PetscCall(PetscOptionsClearValue(NULL, opt));
  PetscCall(Check(label, opt, ierr == PETSC_ERR_USER_INPUT ? 0 : 1, 0, fail));
  if (!ierr) PetscCall(AdjOGridDestroy(&og));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt fail = 0;
  AdjShape naca = {.type = ADJ_SHAPE_NACA4, .p = {0.1, -0.2, 0, 1.0, 0.02, 0.4, 0.12}};
  AdjShape tilt = {.type = ADJ_SHAPE_NACA4, .p = {0, 0, 7.5, 2.0, 0.04, 0.3, 0.15}};
  /* CST of Bernstein order 8 (9 coefficients per surface, the most the geometry layer takes) */
  AdjShape cst = {.type = ADJ_SHAPE_CST, .ncst = 9, .p = {0,     0,     0,     1.0,   0.17,  0.165, 0.16,  0.155,
                                                          0.15,  0.145, 0.14,  0.135, 0.13,  -0.15, -0.13, -0.12,
                                                          -0.11, -0.1,  -0.09, -0.08, -0.07, -0.06}};
  AdjShape ell = {.type = ADJ_SHAPE_ELLIPSE, .p = {0, 0, 20, 0.5, 0.25}};
  const struct {
    const char *label;
    AdjShape   *s;
  } cases[] = {{"naca2412", &naca}, {"naca4315 alpha 7.5", &tilt}, {"cst", &cst}, {"ellipse", &ell}};

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-airfoil_grid_smoothing", &og_smoothing, NULL));
  for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
    AdjOGrid  og;
    AdjShape *s = cases[c].s, set = *s;
    PetscReal ref = s->type == ADJ_SHAPE_ELLIPSE ? 2 * s->p[3] : s->p[3];

    set.poly = NULL;
    PetscCall(AdjShapeSetUp(PETSC_COMM_WORLD, &set));
    PetscCall(MakeGrid(PETSC_COMM_WORLD, s, &og));
    if (s->type == ADJ_SHAPE_NACA4 && s->p[2] == 0) {
      const PetscReal te[2] = {s->p[0] + 0.75 * s->p[3], s->p[1]}, le[2] = {s->p[0] - 0.25 * s->p[3], s->p[1]};
      PetscCall(CheckRings(cases[c].label, og, &set, te, le, &fail));
    } else
      PetscCall(CheckRings(cases[c].label, og, &set, NULL, NULL, &fail));
    PetscCall(CheckQuality(cases[c].label, og, 1e-3 * ref, &fail));
    PetscCall(CheckDerivatives(cases[c].label, og, &set, &fail));
    PetscCall(CheckRankIndependence(cases[c].label, og, &set, &fail));
    PetscCall(AdjOGridDestroy(&og));
    PetscCall(AdjShapeDestroy(&set));
  }
  PetscCall(CheckRefused("refused", &naca, "-airfoil_grid_min_angle", "89", &fail));
  PetscCall(CheckRefused("refused", &naca, "-airfoil_wall_spacing", "1", &fail));
  PetscCall(CheckRefused("refused", &naca, "-airfoil_grid_normal", "40", &fail)); /* with -airfoil_growth given */
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " failure(s)\n", fail ? "FAILED" : "PASSED", fail));
  PetscCall(PetscFinalize());
  return fail ? 1 : 0;
}
