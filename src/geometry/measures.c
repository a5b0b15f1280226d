/* Geometric measures of airfoils and their exact parameter derivatives (include/adjsim/geometry.h): the
 * quantities of geometric design constraints.  Each is written once in the dual numbers of the surface
 * formulas of shapes.c (shapeimpl.h), so its derivatives in every shape parameter are exact to round-off. */
#include "shapeimpl.h"

const char *const AdjShapeMeasures[] = {"thickness",       "max_thickness",      "area", "le_radius", "te_angle",
                                        "AdjShapeMeasure", "ADJ_SHAPE_MEASURE_", NULL};

#define ADJ_GAUSS_N 24 /* Gauss-Legendre points per interval: exact for polynomials of degree 47 */

/* Gauss-Legendre nodes and weights on [0, 1], by Newton's method on P_N (computed once). */
static void AdjGaussLegendre(const PetscReal **x, const PetscReal **w)
{
  static PetscReal xs[ADJ_GAUSS_N], ws[ADJ_GAUSS_N];
  static PetscBool done = PETSC_FALSE;

  if (!done) {
    for (PetscInt i = 0; i < ADJ_GAUSS_N; i++) {
      PetscReal z = PetscCosReal(PETSC_PI * (i + 0.75) / (ADJ_GAUSS_N + 0.5)), dp = 1;
      for (PetscInt it = 0; it < 100; it++) {
        PetscReal p0 = 1, p1 = z, dz;
        for (PetscInt k = 2; k <= ADJ_GAUSS_N; k++) {
          const PetscReal p2 = ((2 * k - 1) * z * p1 - (k - 1) * p0) / k;
          p0 = p1, p1 = p2;
        }
        dp = ADJ_GAUSS_N * (z * p1 - p0) / (z * z - 1);
        dz = p1 / dp;
        z -= dz;
        if (PetscAbsReal(dz) < 1e-16) break;
      }
      xs[i] = 0.5 * (1 - z);
      ws[i] = 1.0 / ((1 - z * z) * dp * dp); /* 2/((1-z^2) P'^2) on [-1,1], halved */
    }
    done = PETSC_TRUE;
  }
  *x = xs, *w = ws;
}

/* Thickness at the station t = sigma^2 in chord units (see the header for each family's definition). */
static AdjDual AdjThicknessAt(const AdjShape *s, AdjDual sigma)
{
  if (s->type == ADJ_SHAPE_NACA4) {
    AdjDual xu, yu, xl, yl;
    AdjNaca4Point(s, sigma, 1.0, &xu, &yu);
    AdjNaca4Point(s, sigma, -1.0, &xl, &yl);
    return AdjDualHypot(AdjDualSub(xu, xl), AdjDualSub(yu, yl));
  }
  return AdjDualSub(AdjAirfoilSurfaceY(s, sigma, 0), AdjAirfoilSurfaceY(s, sigma, 1));
}

/* The local area density d A / d sigma at sigma: (thickness per unit x) * dx/dsigma, dx/dsigma = 2 sigma.
 * naca4: the upper and lower points are offset by y_t along the camber normal (-sin, cos), so the exact area
 * between them per unit x is 2 y_t / cos theta = |Pu - Pl|^2 / (Yu - Yl) (integration by parts of the
 * camber terms; y_t vanishes at both edges). */
static AdjDual AdjAreaDensity(const AdjShape *s, AdjDual sigma)
{
  AdjDual a;

  if (s->type == ADJ_SHAPE_NACA4) {
    AdjDual xu, yu, xl, yl, dx, dy;
    AdjNaca4Point(s, sigma, 1.0, &xu, &yu);
    AdjNaca4Point(s, sigma, -1.0, &xl, &yl);
    dx = AdjDualSub(xu, xl), dy = AdjDualSub(yu, yl);
    a = AdjDualDiv(AdjDualAdd(AdjDualMul(dx, dx), AdjDualMul(dy, dy)), dy);
  } else
    a = AdjThicknessAt(s, sigma);
  return AdjDualMul(a, AdjDualScale(sigma, 2));
}

/* Area by Gauss-Legendre quadrature in sigma over [lo, hi] (dual ends: a naca4 interval ends at the camber
 * position sqrt(p), a design parameter). */
static AdjDual AdjAreaInterval(const AdjShape *s, AdjDual lo, AdjDual hi)
{
  const PetscReal *x, *w;
  const AdjDual    len = AdjDualSub(hi, lo);
  AdjDual          sum = AdjDualConst(0);

  AdjGaussLegendre(&x, &w);
  for (PetscInt i = 0; i < ADJ_GAUSS_N; i++) {
    const AdjDual sg = AdjDualAdd(lo, AdjDualScale(len, x[i]));
    sum              = AdjDualAdd(sum, AdjDualScale(AdjAreaDensity(s, sg), w[i]));
  }
  return AdjDualMul(sum, len);
}

static AdjDual AdjArea(const AdjShape *s)
{
  if (s->type == ADJ_SHAPE_NACA4) { /* the camber line's curvature jumps at x/c = p: one interval on each side */
    const AdjDual sp = AdjDualSqrt(AdjDualVar(s->p[P_SIZE + 2], P_SIZE + 2));
    return AdjDualAdd(AdjAreaInterval(s, AdjDualConst(0), sp), AdjAreaInterval(s, sp, AdjDualConst(1)));
  }
  return AdjAreaInterval(s, AdjDualConst(0), AdjDualConst(1));
}

/* The station sigma of the largest thickness: the best of a fine sampling, refined by golden-section search
 * (to 1e-12 in sigma; the value is flat there, so its error is of the order of 1e-24). */
static PetscReal AdjMaxThicknessStation(const AdjShape *s)
{
  const PetscInt  n    = 400;
  const PetscReal g    = 0.5 * (PetscSqrtReal(5.0) - 1);
  PetscReal       best = -PETSC_MAX_REAL, sb = 0.5, a, b, c, d, fc, fd;

  for (PetscInt k = 1; k < n; k++) {
    const PetscReal sg = (PetscReal)k / n, t = AdjThicknessAt(s, AdjDualConst(sg)).v;
    if (t > best) best = t, sb = sg;
  }
  a = PetscMax(sb - 1.0 / n, 1e-6), b = PetscMin(sb + 1.0 / n, 1 - 1e-6);
  c = b - g * (b - a), d = a + g * (b - a);
  fc = AdjThicknessAt(s, AdjDualConst(c)).v, fd = AdjThicknessAt(s, AdjDualConst(d)).v;
  while (b - a > 1e-12) {
    if (fc > fd) {
      b = d, d = c, fd = fc;
      c  = b - g * (b - a);
      fc = AdjThicknessAt(s, AdjDualConst(c)).v;
    } else {
      a = c, c = d, fc = fd;
      d  = a + g * (b - a);
      fd = AdjThicknessAt(s, AdjDualConst(d)).v;
    }
  }
  return 0.5 * (a + b);
}

/* naca4: (5 * 0.2969 t)^2 / 2 (y_t ~ 5 t 0.2969 sqrt(x) near the leading edge: y^2 = 2 r x); cst: the mean
 * of A_0^2 / 2 over the two surfaces (y ~ A_0 sqrt(x)). */
static AdjDual AdjLeadingEdgeRadius(const AdjShape *s)
{
  if (s->type == ADJ_SHAPE_NACA4) {
    const AdjDual a = AdjDualScale(AdjDualVar(s->p[P_SIZE + 3], P_SIZE + 3), 5 * 0.2969);
    return AdjDualScale(AdjDualMul(a, a), 0.5);
  } else {
    const PetscInt i = P_SIZE + 1, j = P_SIZE + 1 + s->ncst;
    const AdjDual  au = AdjDualVar(s->p[i], i), al = AdjDualVar(s->p[j], j);
    return AdjDualScale(AdjDualAdd(AdjDualMul(au, au), AdjDualMul(al, al)), 0.25);
  }
}

static AdjDual AdjAtan(AdjDual a)
{
  return AdjDualChain(a, PetscAtanReal(a.v), 1 / (1 + a.v * a.v));
}

/* Trailing-edge wedge angle [degrees].  naca4: in the camber-line frame the upper and lower tangents at x = 1
 * are (1/cos theta, +-y_t'), so the angle is 2 atan(-y_t'(1) cos theta) with y_t'(1) = 5 t (0.2969/2 - 0.1260
 * - 2 0.3516 + 3 0.2843 - 4 0.1036) and tan theta = yc'(1) = -2 m / (1 - p).  cst: the surfaces end with
 * slopes -Au_n and -Al_n. */
static AdjDual AdjTrailingEdgeAngle(const AdjShape *s)
{
  AdjDual a;

  if (s->type == ADJ_SHAPE_NACA4) {
    const PetscReal k = 0.2969 / 2 - 0.1260 - 2 * 0.3516 + 3 * 0.2843 - 4 * 0.1036;
    const AdjDual   m = AdjDualVar(s->p[P_SIZE + 1], P_SIZE + 1), p = AdjDualVar(s->p[P_SIZE + 2], P_SIZE + 2);
    const AdjDual   dyt = AdjDualScale(AdjDualVar(s->p[P_SIZE + 3], P_SIZE + 3), 5 * k);
    const AdjDual   tn  = AdjDualDiv(AdjDualScale(m, -2), AdjDualShift(AdjDualScale(p, -1), 1));
    const AdjDual   cs  = AdjDualDiv(AdjDualConst(1), AdjDualSqrt(AdjDualShift(AdjDualMul(tn, tn), 1)));
    a                   = AdjDualScale(AdjAtan(AdjDualScale(AdjDualMul(dyt, cs), -1)), 2);
  } else {
    const PetscInt i = P_SIZE + s->ncst, j = P_SIZE + 2 * s->ncst;
    a = AdjDualSub(AdjAtan(AdjDualVar(s->p[i], i)), AdjAtan(AdjDualVar(s->p[j], j)));
  }
  return AdjDualScale(a, 180 / PETSC_PI);
}

PetscErrorCode AdjShapeMeasureCheck(MPI_Comm comm, const AdjShape *s, AdjShapeMeasure m, PetscReal station,
                                    const char option[])
{
  const PetscBool airfoil =
      (PetscBool)(s->type == ADJ_SHAPE_NACA4 || s->type == ADJ_SHAPE_CST || s->type == ADJ_SHAPE_DAT);

  PetscFunctionBeginUser;
  PetscCheck(airfoil, comm, PETSC_ERR_USER_INPUT,
             "%s: the geometric measure %s is defined for airfoils (naca4, cst, dat), not for a %s", option,
             AdjShapeMeasures[m], AdjShapeTypes[s->type]);
  PetscCheck(!((m == ADJ_SHAPE_MEASURE_LE_RADIUS || m == ADJ_SHAPE_MEASURE_TE_ANGLE) && s->type == ADJ_SHAPE_DAT), comm,
             PETSC_ERR_USER_INPUT,
             "%s: %s is defined for naca4 and cst airfoils only (a .dat airfoil's edges are spline fits)", option,
             AdjShapeMeasures[m]);
  PetscCheck(m != ADJ_SHAPE_MEASURE_THICKNESS || (station > 0 && station < 1), comm, PETSC_ERR_USER_INPUT,
             "%s: the thickness station x/c = %g must lie strictly between 0 and 1", option, (double)station);
  PetscFunctionReturn(PETSC_SUCCESS);
}

void AdjShapeMeasureEvaluate(const AdjShape *s, AdjShapeMeasure m, PetscReal station, PetscReal *value,
                             PetscReal grad[])
{
  AdjDual r = AdjDualConst(0);

  switch (m) {
  case ADJ_SHAPE_MEASURE_THICKNESS:
    r = AdjThicknessAt(s, AdjDualConst(PetscSqrtReal(station)));
    break;
  case ADJ_SHAPE_MEASURE_MAX_THICKNESS:
    r = AdjThicknessAt(s, AdjDualConst(AdjMaxThicknessStation(s)));
    break;
  case ADJ_SHAPE_MEASURE_AREA:
    r = AdjArea(s);
    break;
  case ADJ_SHAPE_MEASURE_LE_RADIUS:
    r = AdjLeadingEdgeRadius(s);
    break;
  case ADJ_SHAPE_MEASURE_TE_ANGLE:
    r = AdjTrailingEdgeAngle(s);
    break;
  }
  *value = r.v;
  if (grad)
    for (PetscInt i = 0; i < s->np; i++) grad[i] = r.d[i];
}
