/* Geometric measures of airfoils (AdjShapeMeasureEvaluate), the quantities of geometric design constraints:
 *  - every parameter derivative equals the central difference in that parameter (h = 1e-6, error below 1e-7
 *    relative to max(|derivative|, 1)), for NACA 2412, NACA 0012, a 4- and a 6-coefficient CST section, at
 *    three thickness stations, the maximum thickness, the area, the leading-edge radius and the trailing-edge
 *    angle;
 *  - closed forms: NACA 0012 area = 10 t (2/3 0.2969 - 0.1260/2 - 0.3516/3 + 0.2843/4 - 0.1036/5) c^2 (the
 *    integral of its thickness polynomial; 0.08222 for t = 0.12), its maximum thickness 10 t max poly (0.1200 at
 *    x/c = 0.3), r_LE = 1.1019 t^2; a CST section's te_angle = atan(Au_n) - atan(Al_n);
 *  - the camber of NACA 2412 leaves its normal thickness at each station unchanged (that of NACA 0012).
 * Every check fails on a NaN. */
#include <adjsim/geometry.h>
#include "adjtest.h"

static PetscErrorCode Check(const char *label, const char *what, PetscReal err, PetscReal tol, PetscInt *fail)
{
  PetscFunctionBeginUser;
  if (!(err <= tol)) {
    (*fail)++;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL %s: %s: error %.3e > %.1e\n", label, what, (double)err, (double)tol));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Derivatives of measure m against central differences in every shape parameter. */
static PetscErrorCode CheckGradient(const char *label, const AdjShape *s0, AdjShapeMeasure m, PetscReal station,
                                    PetscInt *fail)
{
  PetscReal v, g[ADJ_SHAPE_MAX_PARAMS], worst = 0;
  char      what[128];

  PetscFunctionBeginUser;
  AdjShapeMeasureEvaluate(s0, m, station, &v, g);
  for (PetscInt i = 0; i < s0->np; i++) {
    AdjShape        s = *s0;
    const PetscReal h = 1e-6;
    PetscReal       vp, vm;
    s.p[i] = s0->p[i] + h;
    AdjShapeMeasureEvaluate(&s, m, station, &vp, NULL);
    s.p[i] = s0->p[i] - h;
    AdjShapeMeasureEvaluate(&s, m, station, &vm, NULL);
    worst = AdjTestMax(worst, PetscAbsReal((vp - vm) / (2 * h) - g[i]) / PetscMax(PetscAbsReal(g[i]), 1));
  }
  PetscCall(PetscSNPrintf(what, sizeof(what), "d %s(%g)/dp against central differences", AdjShapeMeasures[m],
                          (double)station));
  PetscCall(Check(label, what, worst, 1e-7, fail));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-8s %-14s x/c %-4g value %.12f  gradient error %.2e\n", label,
                        AdjShapeMeasures[m], (double)station, (double)v, (double)worst));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SetNaca(AdjShape *s, PetscReal m, PetscReal p, PetscReal t)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(s, sizeof(*s)));
  s->type = ADJ_SHAPE_NACA4;
  s->p[0] = 0.3, s->p[1] = -0.1, s->p[2] = 4, s->p[3] = 0.8, s->p[4] = m, s->p[5] = p, s->p[6] = t;
  PetscCall(AdjShapeSetUp(PETSC_COMM_WORLD, s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SetCst(AdjShape *s, PetscInt n, const PetscReal up[], const PetscReal lo[])
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(s, sizeof(*s)));
  s->type = ADJ_SHAPE_CST, s->ncst = n;
  s->p[0] = 0, s->p[1] = 0, s->p[2] = -2, s->p[3] = 1.3;
  for (PetscInt i = 0; i < n; i++) s->p[4 + i] = up[i], s->p[4 + n + i] = lo[i];
  PetscCall(AdjShapeSetUp(PETSC_COMM_WORLD, s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const PetscReal stations[3] = {0.05, 0.3, 0.8}, up4[4] = {0.17, 0.16, 0.15, 0.14},
                  lo4[4] = {-0.12, -0.1, -0.08, -0.1};
  const PetscReal up6[6] = {0.2, 0.18, 0.22, 0.15, 0.17, 0.12}, lo6[6] = {-0.15, -0.05, -0.12, -0.02, -0.1, -0.06};
  AdjShape        shapes[4];
  const char     *labels[4] = {"naca2412", "naca0012", "cst4", "cst6"};
  PetscInt        fail      = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(SetNaca(&shapes[0], 0.02, 0.4, 0.12));
  PetscCall(SetNaca(&shapes[1], 0.0, 0.4, 0.12));
  PetscCall(SetCst(&shapes[2], 4, up4, lo4));
  PetscCall(SetCst(&shapes[3], 6, up6, lo6));
  for (PetscInt k = 0; k < 4; k++) {
    for (PetscInt j = 0; j < 3; j++)
      PetscCall(CheckGradient(labels[k], &shapes[k], ADJ_SHAPE_MEASURE_THICKNESS, stations[j], &fail));
    for (PetscInt m = ADJ_SHAPE_MEASURE_MAX_THICKNESS; m <= ADJ_SHAPE_MEASURE_TE_ANGLE; m++)
      PetscCall(CheckGradient(labels[k], &shapes[k], (AdjShapeMeasure)m, 0, &fail));
  }
  { /* closed forms */
    const PetscReal t = 0.12, apoly = 2.0 / 3 * 0.2969 - 0.1260 / 2 - 0.3516 / 3 + 0.2843 / 4 - 0.1036 / 5;
    PetscReal       v, v2, tmax = 0;
    AdjShapeMeasureEvaluate(&shapes[1], ADJ_SHAPE_MEASURE_AREA, 0, &v, NULL);
    PetscCall(Check("naca0012", "area = 10 t int poly", PetscAbsReal(v - 10 * t * apoly), 1e-14, &fail));
    AdjShapeMeasureEvaluate(&shapes[0], ADJ_SHAPE_MEASURE_AREA, 0, &v2, NULL);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "area/c^2: NACA 0012 %.10f (closed form %.10f), NACA 2412 %.10f\n",
                          (double)v, (double)(10 * t * apoly), (double)v2));
    for (PetscInt k = 1; k < 100000; k++) { /* the thickness polynomial's maximum, sampled */
      const PetscReal x = k / 100000.0;
      const PetscReal p =
          0.2969 * PetscSqrtReal(x) - 0.1260 * x - 0.3516 * x * x + 0.2843 * x * x * x - 0.1036 * x * x * x * x;
      tmax = PetscMax(tmax, 10 * t * p);
    }
    AdjShapeMeasureEvaluate(&shapes[1], ADJ_SHAPE_MEASURE_MAX_THICKNESS, 0, &v, NULL);
    PetscCall(Check("naca0012", "max_thickness = 10 t max poly", PetscAbsReal(v - tmax), 1e-10, &fail));
    AdjShapeMeasureEvaluate(&shapes[1], ADJ_SHAPE_MEASURE_LE_RADIUS, 0, &v, NULL);
    PetscCall(Check("naca0012", "le_radius = 1.1019 t^2", PetscAbsReal(v - 1.1019 * t * t), 1e-6, &fail));
    AdjShapeMeasureEvaluate(&shapes[3], ADJ_SHAPE_MEASURE_TE_ANGLE, 0, &v, NULL);
    PetscCall(Check("cst6", "te_angle = atan(Au_n) - atan(Al_n)",
                    PetscAbsReal(v - (PetscAtanReal(0.12) - PetscAtanReal(-0.06)) * 180 / PETSC_PI), 1e-12, &fail));
    for (PetscInt j = 0; j < 3; j++) {
      AdjShapeMeasureEvaluate(&shapes[0], ADJ_SHAPE_MEASURE_THICKNESS, stations[j], &v, NULL);
      AdjShapeMeasureEvaluate(&shapes[1], ADJ_SHAPE_MEASURE_THICKNESS, stations[j], &v2, NULL);
      PetscCall(Check("naca2412", "normal thickness = NACA 0012's", PetscAbsReal(v - v2), 1e-14, &fail));
    }
  }
  for (PetscInt k = 0; k < 4; k++) PetscCall(AdjShapeDestroy(&shapes[k]));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " failures\n", fail ? "FAIL" : "PASS", fail));
  PetscCall(PetscFinalize());
  return fail ? 1 : 0;
}
