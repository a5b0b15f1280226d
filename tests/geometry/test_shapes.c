/* The geometry layer, shape by shape (circle, ellipse, NACA 4-digit, CST, plane; alpha 0 and not):
 *  - AdjShapeDistanceNormal gives the same distance as AdjShapeDistance, and a normal n equal to the
 *    central difference of d in the point (relative 1e-7), unit where d is an exact distance;
 *  - the parameter derivatives of AdjShapeDistance equal central differences in each parameter (1e-6,
 *    relative to max(|dd|, 1));
 *  - points known to be inside have d < 0, outside d > 0.
 * Every check fails on a NaN. Points of the airfoils are taken inside the body, where their distance is
 * smooth (outside it is a polygon distance, only its sign and size matter). */
#include <adjsim/geometry.h>
#include "adjtest.h"

typedef struct {
  const char *label;
  AdjShape    shape;
  PetscReal   inside[2], outside[2]; /* a point inside and one outside */
  PetscReal   box[4];                /* the random points: x in [box0, box1], y in [box2, box3] */
  PetscBool   exact;                 /* d is an exact distance: |n| = 1 */
} ShapeCase;

static PetscErrorCode Check(const char *label, const char *what, PetscReal err, PetscReal tol, PetscInt *fail)
{
  PetscFunctionBeginUser;
  if (!(err <= tol)) {
    (*fail)++;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL %s: %s: error %.3e > %.1e\n", label, what, (double)err, (double)tol));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* n against central differences of d, and the two paths' distances against each other, at (x, y). */
static PetscErrorCode CheckPoint(const ShapeCase *c, PetscReal x, PetscReal y, PetscReal *worst_n, PetscReal *worst_p)
{
  const AdjShape *s = &c->shape;
  const PetscReal h = 1e-6;
  PetscReal       d, d2, n[2], dd[ADJ_SHAPE_MAX_PARAMS], dp, dm, nn[2], fd[2], unused[2];

  PetscFunctionBeginUser;
  AdjShapeDistanceNormal(s, x, y, &d, n);
  AdjShapeDistance(s, x, y, &d2, dd);
  *worst_n = AdjTestMax(*worst_n, PetscAbsReal(d - d2) / PetscMax(PetscAbsReal(d), 1e-3));
  AdjShapeDistanceNormal(s, x + h, y, &dp, unused), AdjShapeDistanceNormal(s, x - h, y, &dm, unused);
  fd[0] = (dp - dm) / (2 * h);
  AdjShapeDistanceNormal(s, x, y + h, &dp, unused), AdjShapeDistanceNormal(s, x, y - h, &dm, unused);
  fd[1] = (dp - dm) / (2 * h);
  nn[0] = n[0], nn[1] = n[1];
  if (!c->exact) { /* the normalized gradient: compare directions */
    const PetscReal len = PetscSqrtReal(fd[0] * fd[0] + fd[1] * fd[1]);
    fd[0] /= len, fd[1] /= len;
  }
  *worst_n = AdjTestMax(*worst_n, PetscMax(PetscAbsReal(nn[0] - fd[0]), PetscAbsReal(nn[1] - fd[1])));
  if (c->exact) *worst_n = AdjTestMax(*worst_n, PetscAbsReal(PetscSqrtReal(n[0] * n[0] + n[1] * n[1]) - 1));
  for (PetscInt i = 0; i < s->np; i++) {
    AdjShape q = *s;

    q.poly         = NULL; /* AdjShapeSetUp samples a fresh polygon for the copy */
    PetscReal step = 1e-6 * PetscMax(PetscAbsReal(s->p[i]), 1), fdp;

    q.p[i] = s->p[i] + step;
    PetscCall(AdjShapeSetUp(PETSC_COMM_SELF, &q)); /* resamples airfoils; renormalizes a plane's normal */
    AdjShapeDistance(&q, x, y, &dp, NULL);
    PetscCall(AdjShapeDestroy(&q));
    q = *s, q.poly = NULL, q.p[i] = s->p[i] - step;
    PetscCall(AdjShapeSetUp(PETSC_COMM_SELF, &q));
    AdjShapeDistance(&q, x, y, &dm, NULL);
    PetscCall(AdjShapeDestroy(&q));
    fdp = (dp - dm) / (2 * step);
    /* a plane's (nx, ny) are renormalized at set-up, so only the component across the normal is free */
    if (s->type == ADJ_SHAPE_PLANE && i >= 3) continue;
    *worst_p = AdjTestMax(*worst_p, PetscAbsReal(dd[i] - fdp) / PetscMax(PetscAbsReal(dd[i]), 1));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckCase(ShapeCase *c, PetscRandom rnd, PetscInt *fail)
{
  PetscReal worst_n = 0, worst_p = 0, d, n[2];

  PetscFunctionBeginUser;
  PetscCall(AdjShapeSetUp(PETSC_COMM_SELF, &c->shape));
  AdjShapeDistanceNormal(&c->shape, c->inside[0], c->inside[1], &d, n);
  PetscCall(Check(c->label, "a point inside has d < 0", d < 0 ? 0 : PETSC_INFINITY, 0, fail));
  AdjShapeDistanceNormal(&c->shape, c->outside[0], c->outside[1], &d, n);
  PetscCall(Check(c->label, "a point outside has d > 0", d > 0 ? 0 : PETSC_INFINITY, 0, fail));
  for (PetscInt k = 0; k < 40; k++) {
    PetscReal u, v;

    PetscCall(PetscRandomGetValueReal(rnd, &u));
    PetscCall(PetscRandomGetValueReal(rnd, &v));
    PetscCall(CheckPoint(c, c->box[0] + u * (c->box[1] - c->box[0]), c->box[2] + v * (c->box[3] - c->box[2]), &worst_n,
                         &worst_p));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-28s normal and distance paths: %.2e   parameter derivatives: %.2e\n",
                        c->label, (double)worst_n, (double)worst_p));
  PetscCall(Check(c->label, "normal against differences of d", worst_n, 1e-7, fail));
  PetscCall(Check(c->label, "parameter derivatives against differences", worst_p, 1e-6, fail));
  PetscCall(AdjShapeDestroy(&c->shape));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt    fail = 0;
  PetscRandom rnd;
  ShapeCase   cases[] = {
        {"circle",
         {.type = ADJ_SHAPE_CIRCLE, .p = {0.4, 0.3, 0, 0.25}},
         {0.45, 0.3},
         {0.8, 0.3},
         {-0.5, 1.2, -0.6, 1.1},
         PETSC_TRUE},
        {"circle alpha 30",
         {.type = ADJ_SHAPE_CIRCLE, .p = {0.4, 0.3, 30, 0.25}},
         {0.45, 0.3},
         {0.8, 0.3},
         {-0.5, 1.2, -0.6, 1.1},
         PETSC_TRUE},
        {"plane",
         {.type = ADJ_SHAPE_PLANE, .p = {0.3, 0.35, 0, 1, 2}},
         {0.2, 0.2},
         {0.5, 0.5},
         {-1, 1, -1, 1},
         PETSC_TRUE},
        {"plane alpha -20",
         {.type = ADJ_SHAPE_PLANE, .p = {0.3, 0.35, -20, -0.4, 1}},
         {0.3, 0.2},
         {0.3, 0.6},
         {-1, 1, -1, 1},
         PETSC_TRUE},
        {"ellipse alpha 10",
         {.type = ADJ_SHAPE_ELLIPSE, .p = {0.5, 0.5, 10, 0.4, 0.2}},
         {0.5, 0.52},
         {0.5, 0.9},
         {0.2, 0.8, 0.35, 0.65},
         PETSC_FALSE},
        {"naca4 2412 alpha 5",
         {.type = ADJ_SHAPE_NACA4, .p = {0, 0, 5, 1, 0.02, 0.4, 0.12}},
         {0.1, 0.0},
         {0.1, 0.5},
         {-0.05, 0.4, -0.015, 0.015},
         PETSC_FALSE},
        {"cst alpha 4",
         {.type = ADJ_SHAPE_CST, .ncst = 2, .p = {0, 0, 4, 1, 0.2, 0.2, -0.15, -0.15}},
         {0.0, 0.0},
         {0.0, 0.5},
         {-0.1, 0.3, -0.02, 0.02},
         PETSC_FALSE},
  };

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 20261202));
  PetscCall(PetscRandomSeed(rnd));
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) PetscCall(CheckCase(&cases[i], rnd, &fail));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " failure(s)\n", fail ? "FAIL" : "ok", fail));
  PetscCall(PetscFinalize());
  return fail ? 1 : 0;
}
