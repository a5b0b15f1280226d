/* Signed distance of immersed-body shapes, differentiable in their parameters (see
 * include/adjsim/geometry.h for the shapes, their parameters and the accuracy of each distance). */
#include <adjsim/geometry.h>
#include "dual.h"

const char *const AdjShapeTypes[] = {"circle", "ellipse", "naca4", "cst", "AdjShapeType", "ADJ_SHAPE_", NULL};

enum { P_X0, P_Y0, P_ALPHA, P_SIZE }; /* parameters common to every shape, then the sizes */

/* Body-frame coordinates (X, Y) of the world point (x, y): translate to the reference point, turn
 * by +alpha (the body is turned by -alpha), so that the body's own axis is X. */
static void AdjShapeBodyFrame(const AdjShape *s, PetscReal x, PetscReal y, AdjDual *X, AdjDual *Y)
{
  const AdjDual dx = AdjDualSub(AdjDualConst(x), AdjDualVar(s->p[P_X0], P_X0));
  const AdjDual dy = AdjDualSub(AdjDualConst(y), AdjDualVar(s->p[P_Y0], P_Y0));
  const AdjDual a  = AdjDualScale(AdjDualVar(s->p[P_ALPHA], P_ALPHA), PETSC_PI / 180);
  const AdjDual c = AdjDualCos(a), sn = AdjDualSin(a);

  *X = AdjDualSub(AdjDualMul(dx, c), AdjDualMul(dy, sn));
  *Y = AdjDualAdd(AdjDualMul(dx, sn), AdjDualMul(dy, c));
}

static AdjDual AdjCircleDistance(const AdjShape *s, AdjDual X, AdjDual Y)
{
  const AdjDual r = AdjDualHypot(X, Y);
  if (r.v < 1e-14 * s->p[P_SIZE]) return AdjDualScale(AdjDualVar(s->p[P_SIZE], P_SIZE), -1);
  return AdjDualSub(r, AdjDualVar(s->p[P_SIZE], P_SIZE));
}

/* g = rho - 1 with rho = |(X/a, Y/b)|; d = g / |grad g| = (rho - 1) rho / |(X/a^2, Y/b^2)|. */
static AdjDual AdjEllipseDistance(const AdjShape *s, AdjDual X, AdjDual Y)
{
  const AdjDual a = AdjDualVar(s->p[P_SIZE], P_SIZE), b = AdjDualVar(s->p[P_SIZE + 1], P_SIZE + 1);
  const AdjDual xa = AdjDualDiv(X, a), yb = AdjDualDiv(Y, b), rho = AdjDualHypot(xa, yb);
  const AdjDual grad = AdjDualHypot(AdjDualDiv(xa, a), AdjDualDiv(yb, b));

  if (rho.v < 1e-12) return AdjDualScale(a.v < b.v ? a : b, -1);
  return AdjDualDiv(AdjDualMul(AdjDualShift(rho, -1), rho), grad);
}

/* Distance from P to the segment AB (duals; A, B carry the derivatives of the sampled surface). */
static AdjDual AdjSegmentDistance(AdjDual px, AdjDual py, AdjDual ax, AdjDual ay, AdjDual bx, AdjDual by)
{
  const AdjDual ex = AdjDualSub(bx, ax), ey = AdjDualSub(by, ay), wx = AdjDualSub(px, ax), wy = AdjDualSub(py, ay);
  const AdjDual len2 = AdjDualAdd(AdjDualMul(ex, ex), AdjDualMul(ey, ey));
  AdjDual       t    = AdjDualDiv(AdjDualAdd(AdjDualMul(wx, ex), AdjDualMul(wy, ey)), len2);

  if (t.v <= 0)
    t = AdjDualConst(0);
  else if (t.v >= 1)
    t = AdjDualConst(1);
  return AdjDualHypot(AdjDualSub(wx, AdjDualMul(t, ex)), AdjDualSub(wy, AdjDualMul(t, ey)));
}

static AdjDual AdjPolyVertex(const AdjShape *s, PetscInt k, PetscInt c)
{
  AdjDual v = AdjDualConst(s->poly[2 * k + c]);
  for (PetscInt i = 0; i < s->np; i++) v.d[i] = s->dpoly[(2 * k + c) * s->np + i];
  return v;
}

/* Airfoil: the polygon of the sampled surface, leading edge at X = -chord/4 (quarter-chord
 * reference point); the nearest segment is found on values, its distance taken in duals; the
 * sign from the crossing-number test (inside: negative). */
static AdjDual AdjAirfoilDistance(const AdjShape *s, AdjDual X, AdjDual Y)
{
  const AdjDual px = AdjDualAdd(X, AdjDualScale(AdjDualVar(s->p[P_SIZE], P_SIZE), 0.25)), py = Y;
  PetscInt      best = 0, crossings = 0;
  PetscReal     dmin = PETSC_MAX_REAL;
  AdjDual       d;

  for (PetscInt k = 0; k < s->npoly; k++) {
    const PetscInt   l = (k + 1) % s->npoly;
    const PetscReal *a = &s->poly[2 * k], *b = &s->poly[2 * l];
    const PetscReal  ex = b[0] - a[0], ey = b[1] - a[1], wx = px.v - a[0], wy = py.v - a[1];
    PetscReal        t = (wx * ex + wy * ey) / (ex * ex + ey * ey), qx, qy, dist;

    t  = PetscMin(1, PetscMax(0, t));
    qx = wx - t * ex, qy = wy - t * ey;
    dist = qx * qx + qy * qy;
    if (dist < dmin) dmin = dist, best = k;
    if ((a[1] > py.v) != (b[1] > py.v) && px.v < a[0] + (py.v - a[1]) * ex / ey) crossings++;
  }
  d = AdjSegmentDistance(px, py, AdjPolyVertex(s, best, 0), AdjPolyVertex(s, best, 1),
                         AdjPolyVertex(s, (best + 1) % s->npoly, 0), AdjPolyVertex(s, (best + 1) % s->npoly, 1));
  return crossings % 2 ? AdjDualScale(d, -1) : d;
}

void AdjShapeDistance(const AdjShape *s, PetscReal x, PetscReal y, PetscReal *d, PetscReal dd[])
{
  AdjDual X, Y, r;

  AdjShapeBodyFrame(s, x, y, &X, &Y);
  switch (s->type) {
  case ADJ_SHAPE_CIRCLE:
    r = AdjCircleDistance(s, X, Y);
    break;
  case ADJ_SHAPE_ELLIPSE:
    r = AdjEllipseDistance(s, X, Y);
    break;
  default:
    r = AdjAirfoilDistance(s, X, Y);
  }
  *d = r.v;
  if (dd)
    for (PetscInt i = 0; i < s->np; i++) dd[i] = r.d[i];
}

/* NACA 4-digit surface point at the chord station t in [0,1] (upper: side = +1), in units of the
 * chord, from the camber line yc and the closed-trailing-edge thickness yt laid off normal to it. */
static void AdjNaca4Point(const AdjShape *s, PetscReal t, PetscReal side, AdjDual *X, AdjDual *Y)
{
  const AdjDual   m = AdjDualVar(s->p[P_SIZE + 1], P_SIZE + 1), p = AdjDualVar(s->p[P_SIZE + 2], P_SIZE + 2);
  const AdjDual   th = AdjDualVar(s->p[P_SIZE + 3], P_SIZE + 3);
  const PetscReal poly =
      0.2969 * PetscSqrtReal(t) - 0.1260 * t - 0.3516 * t * t + 0.2843 * t * t * t - 0.1036 * t * t * t * t;
  const AdjDual yt = AdjDualScale(th, 5 * poly);
  AdjDual       yc, slope, q, cs, sn;

  if (t < s->p[P_SIZE + 2]) { /* m/p^2 (2 p t - t^2), slope 2 m/p^2 (p - t) */
    q     = AdjDualDiv(m, AdjDualMul(p, p));
    yc    = AdjDualMul(q, AdjDualShift(AdjDualScale(p, 2 * t), -t * t));
    slope = AdjDualScale(AdjDualMul(q, AdjDualShift(p, -t)), 2);
  } else { /* m/(1-p)^2 (1 - 2p + 2 p t - t^2), slope 2 m/(1-p)^2 (p - t) */
    const AdjDual omp = AdjDualShift(AdjDualScale(p, -1), 1);
    q                 = AdjDualDiv(m, AdjDualMul(omp, omp));
    yc                = AdjDualMul(q, AdjDualShift(AdjDualScale(p, 2 * t - 2), 1 - t * t));
    slope             = AdjDualScale(AdjDualMul(q, AdjDualShift(p, -t)), 2);
  }
  cs = AdjDualDiv(AdjDualConst(1), AdjDualSqrt(AdjDualShift(AdjDualMul(slope, slope), 1)));
  sn = AdjDualMul(slope, cs);
  *X = AdjDualShift(AdjDualScale(AdjDualMul(yt, sn), -side), t);
  *Y = AdjDualAdd(yc, AdjDualScale(AdjDualMul(yt, cs), side));
}

/* CST surface at station t: sqrt(t) (1 - t) sum_i A_i C(n,i) t^i (1-t)^(n-i), in units of the chord. */
static AdjDual AdjCstSurface(const AdjShape *s, PetscReal t, PetscInt first)
{
  const PetscInt n     = s->ncst - 1;
  AdjDual        sum   = AdjDualConst(0);
  PetscReal      binom = 1;

  for (PetscInt i = 0; i <= n; i++) {
    const PetscReal b = binom * PetscPowReal(t, (PetscReal)i) * PetscPowReal(1 - t, (PetscReal)(n - i));
    sum               = AdjDualAdd(sum, AdjDualScale(AdjDualVar(s->p[first + i], first + i), b));
    binom             = binom * (n - i) / (i + 1);
  }
  return AdjDualScale(sum, PetscSqrtReal(t) * (1 - t));
}

static void AdjShapeSetVertex(AdjShape *s, PetscInt k, AdjDual X, AdjDual Y)
{
  const AdjDual c    = AdjDualVar(s->p[P_SIZE], P_SIZE);
  const AdjDual v[2] = {AdjDualMul(X, c), AdjDualMul(Y, c)};

  for (PetscInt q = 0; q < 2; q++) {
    s->poly[2 * k + q] = v[q].v;
    for (PetscInt i = 0; i < s->np; i++) s->dpoly[(2 * k + q) * s->np + i] = v[q].d[i];
  }
}

/* The closed polygon: upper surface from the trailing edge to the leading edge, then the lower
 * surface back to the trailing edge (cosine spacing: fine at both edges). */
static PetscErrorCode AdjAirfoilSample(MPI_Comm comm, AdjShape *s)
{
  const PetscInt n = ADJ_AIRFOIL_POINTS;

  PetscFunctionBeginUser;
  s->npoly = 2 * n - 2;
  PetscCall(PetscFree2(s->poly, s->dpoly));
  PetscCall(PetscMalloc2(2 * s->npoly, &s->poly, 2 * s->npoly * s->np, &s->dpoly));
  for (PetscInt k = 0; k < s->npoly; k++) {
    const PetscInt  j    = k < n ? n - 1 - k : k - n + 1; /* station index */
    const PetscReal t    = 0.5 * (1 - PetscCosReal(PETSC_PI * j / (n - 1)));
    const PetscReal side = k < n ? 1.0 : -1.0;
    AdjDual         X, Y;

    if (s->type == ADJ_SHAPE_NACA4)
      AdjNaca4Point(s, t, side, &X, &Y);
    else {
      X = AdjDualConst(t);
      Y = AdjCstSurface(s, t, P_SIZE + 1 + (k < n ? 0 : s->ncst));
    }
    AdjShapeSetVertex(s, k, X, Y);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* CST surfaces must not cross: upper above lower at every interior station. */
static PetscErrorCode AdjCstCheck(MPI_Comm comm, const AdjShape *s)
{
  PetscFunctionBeginUser;
  for (PetscInt j = 1; j < ADJ_AIRFOIL_POINTS - 1; j++) {
    const PetscReal t  = 0.5 * (1 - PetscCosReal(PETSC_PI * j / (ADJ_AIRFOIL_POINTS - 1)));
    const PetscReal yu = AdjCstSurface(s, t, P_SIZE + 1).v, yl = AdjCstSurface(s, t, P_SIZE + 1 + s->ncst).v;
    PetscCheck(yu > yl, comm, PETSC_ERR_USER_INPUT,
               "CST airfoil: the upper surface (y/c = %g) is not above the lower one (y/c = %g) at x/c = %.4f: the "
               "surfaces cross (check -fluid_body_cst_upper and -fluid_body_cst_lower)",
               (double)yu, (double)yl, (double)t);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjShapeSetUp(MPI_Comm comm, AdjShape *s)
{
  const PetscReal *q = s->p + P_SIZE;

  PetscFunctionBeginUser;
  switch (s->type) {
  case ADJ_SHAPE_CIRCLE:
    s->np = P_SIZE + 1;
    PetscCheck(q[0] > 0, comm, PETSC_ERR_USER_INPUT, "Circle radius %g m must be > 0", (double)q[0]);
    s->radius = q[0];
    break;
  case ADJ_SHAPE_ELLIPSE:
    s->np = P_SIZE + 2;
    PetscCheck(q[0] > 0 && q[1] > 0, comm, PETSC_ERR_USER_INPUT, "Ellipse semi-axes %g, %g m must be > 0", (double)q[0],
               (double)q[1]);
    s->radius = PetscMax(q[0], q[1]);
    break;
  case ADJ_SHAPE_NACA4:
    s->np = P_SIZE + 4;
    PetscCheck(q[0] > 0, comm, PETSC_ERR_USER_INPUT, "Airfoil chord %g m must be > 0", (double)q[0]);
    PetscCheck(q[3] > 0 && q[3] < 0.5, comm, PETSC_ERR_USER_INPUT,
               "NACA thickness t = %g (fraction of the chord) must be in (0, 0.5)", (double)q[3]);
    PetscCheck(q[1] >= 0 && q[1] < 0.2, comm, PETSC_ERR_USER_INPUT,
               "NACA camber m = %g (fraction of the chord) must be in [0, 0.2)", (double)q[1]);
    PetscCheck(q[2] > 0 && q[2] < 1, comm, PETSC_ERR_USER_INPUT,
               "NACA camber position p = %g (fraction of the chord) must be in (0, 1)", (double)q[2]);
    s->radius = q[0];
    PetscCall(AdjAirfoilSample(comm, s));
    break;
  case ADJ_SHAPE_CST:
    s->np = P_SIZE + 1 + 2 * s->ncst;
    PetscCheck(s->ncst >= 1 && s->np <= ADJ_SHAPE_MAX_PARAMS, comm, PETSC_ERR_USER_INPUT,
               "CST airfoil: give 1 to %d coefficients per surface, got %" PetscInt_FMT,
               (ADJ_SHAPE_MAX_PARAMS - P_SIZE - 1) / 2, s->ncst);
    PetscCheck(q[0] > 0, comm, PETSC_ERR_USER_INPUT, "Airfoil chord %g m must be > 0", (double)q[0]);
    PetscCall(AdjCstCheck(comm, s));
    s->radius = q[0];
    PetscCall(AdjAirfoilSample(comm, s));
    break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjShapeDestroy(AdjShape *s)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree2(s->poly, s->dpoly));
  s->npoly = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

void AdjShapeParameterName(const AdjShape *s, PetscInt i, const char **name, const char **unit)
{
  static const char *common[]    = {"x0", "y0", "alpha"},
                    *sizes[4][4] = {{"R"}, {"a", "b"}, {"chord", "m", "p", "t"}, {"chord"}};

  *unit = i == P_ALPHA ? "deg" : "m";
  if (i < P_SIZE)
    *name = common[i];
  else if (s->type != ADJ_SHAPE_CST || i == P_SIZE)
    *name = sizes[s->type][i - P_SIZE];
  else
    *name = i - P_SIZE - 1 < s->ncst ? "Au" : "Al";
  if (s->type == ADJ_SHAPE_NACA4 && i > P_SIZE) *unit = "1";
  if (s->type == ADJ_SHAPE_CST && i > P_SIZE) *unit = "1";
}

void AdjShapeSizes(const AdjShape *s, PetscReal *thickness, PetscReal *reflength)
{
  const PetscReal *q = s->p + P_SIZE;

  switch (s->type) {
  case ADJ_SHAPE_CIRCLE:
    *thickness = *reflength = 2 * q[0];
    break;
  case ADJ_SHAPE_ELLIPSE:
    *thickness = 2 * PetscMin(q[0], q[1]), *reflength = 2 * q[0];
    break;
  case ADJ_SHAPE_NACA4:
    *thickness = q[3] * q[0], *reflength = q[0];
    break;
  default: {
    PetscReal tmax = 0;
    for (PetscInt k = 1; k < s->npoly / 2; k++) /* upper vertex k and lower vertex npoly - k: the same station */
      tmax = PetscMax(tmax, s->poly[2 * k + 1] - s->poly[2 * (s->npoly - k) + 1]);
    *thickness = tmax, *reflength = q[0];
  }
  }
}
