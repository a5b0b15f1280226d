/* Dot-product tests of the geometry bars of the airfoil flow adjoint (the shape gradient through the grid,
 * docs/airfoil.md), on a small O-grid around a NACA 2412 at 8 degrees, on 1 and 2 ranks: for each geometric array
 * the flow sees (areas, face vectors si, sj, wall extrapolation weights ext, the face coefficients ai, bi, aj, bj that
 * make the forms, and the node coordinates xn of the moment arms and the far-field vortex), perturbed alone by a random
 * relative direction d (the forms, matrices and far-field weights rebuilt from the perturbed arrays), the tangent
 * <y, dQ/dg d> against <d, gbar> of the adjoint for
 *   - the force coefficients cb . C(x) at a fixed state,
 *   - the impulsive start x0 (its projection),
 *   - the step at its first (Euler) and a later (Adams-Bashforth 2) step, without and with the far-field vortex.
 * The tangent is a central difference with Richardson extrapolation (h = 1e-2 relative, error O(h^4)): the gaps are
 * judged against 1e-7 relative to |tangent| + |adjoint| (measured at most 8e-9: the differences of the solves, run to
 * 1e-14, limit them; with h = 1e-3 they grow to 3e-8, with the round-off over h).  The forces and the start, nearly
 * linear in the arrays, agree to 1e-11. * An array a quantity does not depend on shows exactly zero bars.
 * The tolerance 1e-7 is the solver-limited one of this step-level check (the chain through the KSP solves, the
 * far-field vortex data and the impulsive start, which no kernel-level test reaches); the project's 1e-12 rule for the
 * adjoint kernels is carried by test_airfoil_shape_kernels.c (every ...GeometryAdjoint kernel and the solves' operator
 * bars, with exact tangents at a fixed state). */
#include "airfoil/airfoilimpl.h"
#include "steppertest.h"
#include "adjtest.h"
#include "airfoiltest.h"

static const PetscReal tol = 1e-7;

static const char *const Base[] = {AIRFOIL_TEST_CASE, AIRFOIL_TEST_SMALL_GRID, AIRFOIL_TEST_TIGHT_KSP, NULL};

typedef enum { G_AREA, G_SI, G_SJ, G_EXT, G_AI, G_BI, G_AJ, G_BJ, G_XN, G_N } GArray;
static const char *const GNames[G_N] = {"area", "si", "sj", "ext", "ai", "bi", "aj", "bj", "xn"};

static PetscReal *GArrayGet(AirfoilGeometry *g, GArray a, PetscInt *n)
{
  const PetscInt   ncell = g->ni * g->nc, nn = g->ni * (g->nc + 1);
  PetscReal *const p[G_N] = {g->area, g->si, g->sj, g->ext, g->ai, g->bi, g->aj, g->bj, g->xn};
  const PetscInt   s[G_N] = {ncell, 2 * ncell, 2 * nn, g->ni, ncell, ncell, nn, nn, 2 * nn};
  *n                      = s[a];
  return p[a];
}

typedef enum { Q_FORCES, Q_START, Q_STEP } Quantity;

typedef struct {
  AdjStepper   st;
  Airfoil      af;
  Quantity     what;
  AdjStepIndex k;
  Vec          x, y, out, lin;
} Setting;

/* Q = y . (the quantity) at the current geometry (rebuilt operators). */
static PetscErrorCode Evaluate(Setting *s, PetscReal *Q)
{
  const PetscReal cb[3] = {0.7, -1.3, 2.1};

  PetscFunctionBeginUser;
  PetscCall(AirfoilOperatorsSetGeometry(s->af));
  PetscCall(AirfoilAdjointSetUp(s->af));
  if (s->what == Q_FORCES) {
    PetscReal c[3];
    PetscCall(AirfoilForces(s->af, s->x, c));
    *Q = cb[0] * c[0] + cb[1] * c[1] + cb[2] * c[2];
  } else {
    if (s->what == Q_START)
      PetscCall(AirfoilInitialState(s->af, s->out));
    else
      PetscCall(AdjStepperStep(s->st, s->k, s->x, s->out));
    PetscCall(VecDot(s->y, s->out, Q));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The adjoint's share of the geometry bar (this rank's) into t. */
static PetscErrorCode Adjoint(Setting *s, AirfoilGeometry *t)
{
  Airfoil         af    = s->af;
  const PetscInt  n     = af->xm * af->ym;
  const PetscReal cb[3] = {0.7, -1.3, 2.1};

  PetscFunctionBeginUser;
  PetscCall(AirfoilOperatorsSetGeometry(af));
  PetscCall(AirfoilAdjointSetUp(af));
  PetscCall(AirfoilGeometryBarZero(&af->geob));
  PetscCall(PetscArrayzero(af->lapvb, n));
  PetscCall(PetscArrayzero(af->lappb, n));
  PetscCall(PetscArrayzero(af->gfib, n));
  PetscCall(PetscArrayzero(af->gfjb, n));
  PetscCall(PetscArrayzero(af->gftb, n));
  if (s->what == Q_FORCES)
    PetscCall(AirfoilForcesGeometryAdjoint(af, s->x, cb, &af->geob));
  else if (s->what == Q_START)
    PetscCall(AirfoilInitialStateAdjoint(af, s->y));
  else {
    PetscCall(AdjStepperStep(s->st, s->k, s->x, s->out));
    PetscCall(AdjStepperStepAdjoint(s->st, s->k, s->x, s->out, s->y, s->lin));
  }
  PetscCall(AirfoilGeometryBarZero(t));
  PetscCall(AirfoilShapeGeometryBar(af, t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DotArray(Setting *s, GArray a, const char name[], PetscInt *fail)
{
  AirfoilGeometry *g = &s->af->geo, t;
  PetscInt         n;
  PetscReal       *v = GArrayGet(g, a, &n), *base, *d, F[4], lhs, rhs = 0, D1, D2;
  const PetscReal  h = 1e-2, hs[4] = {h, -h, h / 2, -h / 2};
  char             label[128];

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(n, &base, n, &d));
  PetscCall(PetscArraycpy(base, v, n));
  PetscCall(AdjTestUniformArray(0, 1234 + a, n, d)); /* the same on every rank (replicated geometry) */
  for (PetscInt k = 0; k < n; k++) d[k] *= PetscAbsReal(base[k]) > 0 ? base[k] : 1e-3;
  for (PetscInt m = 0; m < 4; m++) {
    for (PetscInt k = 0; k < n; k++) v[k] = base[k] + hs[m] * d[k];
    PetscCall(Evaluate(s, &F[m]));
  }
  PetscCall(PetscArraycpy(v, base, n));
  D1  = (F[0] - F[1]) / (2 * h);
  D2  = (F[2] - F[3]) / h;
  lhs = (4 * D2 - D1) / 3;
  PetscCall(AirfoilGeometryBarCreate(g, &t));
  PetscCall(Adjoint(s, &t));
  {
    PetscInt   nt;
    PetscReal *tb = GArrayGet(&t, a, &nt);
    for (PetscInt k = 0; k < n; k++) rhs += tb[k] * d[k];
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &rhs, 1, MPIU_REAL, MPIU_SUM, s->af->comm));
  PetscCall(AirfoilGeometryDestroy(&t));
  PetscCall(PetscSNPrintf(label, sizeof(label), "%s: geometry array %s", name, GNames[a]));
  if (rhs == 0 && PetscAbsReal(lhs) <= 1e-12) /* an array the quantity does not depend on (e.g. the nodes without the
                                                  vortex): the difference is zero up to the solves' round-off */
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-48s both sides exactly zero: not an input of this quantity\n", label));
  else
    PetscCall(AdjTestReportScaled(label, lhs, rhs, PetscAbsReal(lhs) + PetscAbsReal(rhs), tol, fail));
  PetscCall(PetscFree2(base, d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DotAll(AdjStepper st, Quantity what, AdjStepIndex k, const char name[], PetscInt *fail)
{
  Setting s = {.st = st, .what = what, .k = k};
  Vec     r;

  PetscFunctionBeginUser;
  PetscCall(AdjStepperGetContext(st, &s.af));
  PetscCall(AirfoilShapeBarsSetUp(s.af));
  PetscCall(AdjStepperCreateState(st, &s.x));
  PetscCall(VecDuplicate(s.x, &s.y));
  PetscCall(VecDuplicate(s.x, &s.out));
  PetscCall(VecDuplicate(s.x, &s.lin));
  PetscCall(VecDuplicate(s.x, &r));
  PetscCall(AdjTestStepperRun(st, 2, s.x, NULL, NULL));
  PetscCall(AdjTestRandom(r, 7));
  PetscCall(VecAXPY(s.x, 0.1, r));
  PetscCall(AdjTestRandom(s.y, 13));
  for (GArray a = 0; a < G_N; a++) PetscCall(DotArray(&s, a, name, fail));
  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&s.x));
  PetscCall(VecDestroy(&s.y));
  PetscCall(VecDestroy(&s.out));
  PetscCall(VecDestroy(&s.lin));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  AdjStepper st;
  PetscInt   fail = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(AdjStepperRegisterAll());
  PetscCall(AdjTestStepperCreate(PETSC_COMM_WORLD, "airfoil", Base, NULL, &st));
  PetscCall(DotAll(st, Q_FORCES, 0, "forces", &fail));
  PetscCall(DotAll(st, Q_START, 0, "impulsive start", &fail));
  PetscCall(DotAll(st, Q_STEP, 1, "step 1 (Euler)", &fail));
  PetscCall(DotAll(st, Q_STEP, 3, "step 3 (AB2)", &fail));
  PetscCall(AdjStepperDestroy(&st));
  PetscCall(AdjTestStepperCreate(PETSC_COMM_WORLD, "airfoil", Base, AirfoilTestVortex, &st));
  PetscCall(DotAll(st, Q_STEP, 3, "step 3, far-field vortex", &fail));
  PetscCall(AdjStepperDestroy(&st));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " failure(s)\n", fail ? "FAIL" : "PASS", fail));
  PetscCall(PetscFinalize());
  return fail ? 1 : 0;
}
