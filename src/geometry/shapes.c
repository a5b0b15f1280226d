/* Signed distance of immersed-body shapes, differentiable in their parameters (see
 * include/adjsim/geometry.h for the shapes, their parameters and the accuracy of each distance). */
#include <adjsim/geometry.h>
#include "dual.h"
#include "shapeimpl.h"

const char *const AdjShapeTypes[] = {"circle", "ellipse",   "naca4",        "cst",        "plane",
                                     "dat",    "joukowski", "AdjShapeType", "ADJ_SHAPE_", NULL};

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

static void AdjAirfoilBranchPoint(const AdjShape *s, PetscInt side, PetscReal psi, PetscBool dpsi, AdjDual *X,
                                  AdjDual *Y);

/* Closest point of one surface branch to (px, py) (body frame, leading edge at the origin): Newton
 * on g(psi) = (S - P).S' = 0 from the nearest sampled station psi0, with S' exact (dual slot) and
 * S'' by differences of S' (it only sets the convergence rate, not the root); psi stays in
 * [0, pi], so the answer may be an end point (leading or trailing edge). */
static PetscReal AdjAirfoilBranchClosest(const AdjShape *s, PetscInt side, PetscReal px, PetscReal py, PetscReal psi)
{
  const PetscReal hp = 1e-6;

  for (PetscInt it = 0; it < 40; it++) {
    const PetscReal pc = PetscMin(PetscMax(psi, hp), PETSC_PI - hp);
    AdjDual         X, Y, Xa, Ya, Xb, Yb;
    PetscReal       sx, sy, sxx, syy, g, gp, next;

    AdjAirfoilBranchPoint(s, side, psi, PETSC_TRUE, &X, &Y);
    AdjAirfoilBranchPoint(s, side, pc - hp, PETSC_TRUE, &Xa, &Ya);
    AdjAirfoilBranchPoint(s, side, pc + hp, PETSC_TRUE, &Xb, &Yb);
    sx = X.d[ADJ_PSI_SLOT], sy = Y.d[ADJ_PSI_SLOT];
    sxx = (Xb.d[ADJ_PSI_SLOT] - Xa.d[ADJ_PSI_SLOT]) / (2 * hp),
    syy = (Yb.d[ADJ_PSI_SLOT] - Ya.d[ADJ_PSI_SLOT]) / (2 * hp);
    g   = (X.v - px) * sx + (Y.v - py) * sy;
    gp  = sx * sx + sy * sy + (X.v - px) * sxx + (Y.v - py) * syy;
    if (gp < 0.1 * (sx * sx + sy * sy)) gp = sx * sx + sy * sy; /* safeguard: Gauss-Newton */
    next = PetscMin(PETSC_PI, PetscMax(0, psi - g / gp));
    if (PetscAbsReal(next - psi) < 1e-15) break;
    psi = next;
  }
  return psi;
}

/* Airfoil, inside the body (the mask lives there): with du, dl the distances to the upper and the
 * lower surface (each a smooth open curve, closest points by AdjAirfoilBranchClosest),
 *   d = -(du + dl - sqrt(du^2 + dl^2)),
 * the Rvachev R-conjunction: zero on the surface with unit slope there (du -> 0 gives d ~ -du), and
 * smooth also where the two surfaces meet at the trailing edge and along the camber line, where the
 * plain distance min(du, dl) has a kink.  Outside the body the mask is zero, so d is just the
 * sampled polygon's distance (only its sign and size matter there).  Inside/outside from the
 * crossing-number test on the polygon; the parameter derivatives of du, dl at the converged closest
 * points are exact (the closest point is stationary, so its own dependence drops out). */
static AdjDual AdjAirfoilDistance(const AdjShape *s, AdjDual X, AdjDual Y)
{
  const AdjDual  px = AdjDualAdd(X, AdjDualScale(AdjDualVar(s->p[P_SIZE], P_SIZE), 0.25)), py = Y;
  const PetscInt n       = ADJ_AIRFOIL_POINTS;
  PetscInt       best[2] = {0, 0}, crossings = 0;
  PetscReal      dmin[2] = {PETSC_MAX_REAL, PETSC_MAX_REAL}, dpoly = PETSC_MAX_REAL;
  AdjDual        dist[2];

  for (PetscInt k = 0; k < s->npoly; k++) {
    const PetscInt   l = (k + 1) % s->npoly, side = k < n ? 0 : 1; /* vertex k's surface */
    const PetscReal *a = &s->poly[2 * k], *b = &s->poly[2 * l];
    const PetscReal  ex = b[0] - a[0], ey = b[1] - a[1], wx = px.v - a[0], wy = py.v - a[1];
    const PetscReal  vx = px.v - a[0], vy = py.v - a[1], dv = vx * vx + vy * vy;
    PetscReal        t = (wx * ex + wy * ey) / (ex * ex + ey * ey), qx, qy;

    t  = PetscMin(1, PetscMax(0, t));
    qx = wx - t * ex, qy = wy - t * ey;
    dpoly = PetscMin(dpoly, qx * qx + qy * qy);
    if (dv < dmin[side]) dmin[side] = dv, best[side] = k;
    if ((a[1] > py.v) != (b[1] > py.v) && px.v < a[0] + (py.v - a[1]) * ex / ey) crossings++;
  }
  if (crossings % 2 == 0) return AdjDualConst(PetscSqrtReal(dpoly)); /* outside */
  for (PetscInt side = 0; side < 2; side++) {
    const PetscInt  k   = best[side];
    const PetscInt  j   = k < n ? n - 1 - k : k - n + 1;
    const PetscReal psi = AdjAirfoilBranchClosest(s, side, px.v, py.v, PETSC_PI * j / (n - 1));
    AdjDual         SX, SY;

    AdjAirfoilBranchPoint(s, side, psi, PETSC_FALSE, &SX, &SY);
    dist[side] = AdjDualHypot(AdjDualSub(px, SX), AdjDualSub(py, SY));
  }
  return AdjDualScale(AdjDualSub(AdjDualAdd(dist[0], dist[1]), AdjDualHypot(dist[0], dist[1])), -1);
}

/* d = (X, Y) . (nx, ny) in the body frame, (nx, ny) unit (AdjShapeSetUp). */
static AdjDual AdjPlaneDistance(const AdjShape *s, AdjDual X, AdjDual Y)
{
  const AdjDual nx = AdjDualVar(s->p[P_SIZE], P_SIZE), ny = AdjDualVar(s->p[P_SIZE + 1], P_SIZE + 1);

  return AdjDualAdd(AdjDualMul(X, nx), AdjDualMul(Y, ny));
}

void AdjShapeDistance(const AdjShape *s, PetscReal x, PetscReal y, PetscReal *d, PetscReal dd[])
{
  AdjDual X, Y, r;

  AdjShapeBodyFrame(s, x, y, &X, &Y);
  switch (s->type) {
  case ADJ_SHAPE_PLANE:
    r = AdjPlaneDistance(s, X, Y);
    break;
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

/* Circle: d = |x - c| - R, n = (x - c) / |x - c|. Plane: with the body frame X = dx cos a - dy sin a,
 * Y = dx sin a + dy cos a (a = alpha in radians), d = X nx + Y ny and grad d = (nx cos a + ny sin a,
 * ny cos a - nx sin a); at a = 0 these are exactly dx nx + dy ny and (nx, ny). */
void AdjShapeDistanceNormal(const AdjShape *s, PetscReal x, PetscReal y, PetscReal *d, PetscReal n[2])
{
  const PetscReal dx = x - s->p[P_X0], dy = y - s->p[P_Y0];

  if (s->type == ADJ_SHAPE_CIRCLE) {
    const PetscReal len = PetscSqrtReal(dx * dx + dy * dy);

    if (len > 1e-12 * s->p[P_SIZE])
      n[0] = dx / len, n[1] = dy / len;
    else
      n[0] = 0, n[1] = 1;
    *d = len - s->p[P_SIZE];
  } else if (s->type == ADJ_SHAPE_PLANE) {
    const PetscReal a = s->p[P_ALPHA] * (PETSC_PI / 180), c = PetscCosReal(a), sn = PetscSinReal(a);
    const PetscReal X = dx * c - dy * sn, Y = dx * sn + dy * c, nx = s->p[P_SIZE], ny = s->p[P_SIZE + 1];

    *d   = X * nx + Y * ny;
    n[0] = nx * c + ny * sn, n[1] = ny * c - nx * sn;
  } else {
    PetscReal dd[ADJ_SHAPE_MAX_PARAMS], len;

    AdjShapeDistance(s, x, y, d, dd);
    len = PetscSqrtReal(dd[P_X0] * dd[P_X0] + dd[P_Y0] * dd[P_Y0]);
    if (len > 0)
      n[0] = -dd[P_X0] / len, n[1] = -dd[P_Y0] / len;
    else
      n[0] = 0, n[1] = 1;
  }
}

/* NACA 4-digit surface point at the chord station t = sigma^2 (upper: side = +1), in units of the
 * chord, from the camber line yc and the closed-trailing-edge thickness yt laid off normal to it.
 * sigma = sqrt(t) is a dual number so that the surface can be differentiated along itself (the
 * projection of a point on the surface, AdjAirfoilBranchClosest); sigma = sin(psi/2) makes the
 * point a smooth function of psi through the leading edge. */
void AdjNaca4Point(const AdjShape *s, AdjDual sigma, PetscReal side, AdjDual *X, AdjDual *Y)
{
  const AdjDual m = AdjDualVar(s->p[P_SIZE + 1], P_SIZE + 1), p = AdjDualVar(s->p[P_SIZE + 2], P_SIZE + 2);
  const AdjDual th = AdjDualVar(s->p[P_SIZE + 3], P_SIZE + 3), t = AdjDualMul(sigma, sigma);
  const AdjDual t2 = AdjDualMul(t, t), t3 = AdjDualMul(t2, t), t4 = AdjDualMul(t2, t2);
  AdjDual       poly = AdjDualScale(sigma, 0.2969), yt, yc, slope, q, cs, sn;

  poly = AdjDualSub(poly, AdjDualScale(t, 0.1260));
  poly = AdjDualSub(poly, AdjDualScale(t2, 0.3516));
  poly = AdjDualAdd(poly, AdjDualScale(t3, 0.2843));
  poly = AdjDualSub(poly, AdjDualScale(t4, 0.1036));
  yt   = AdjDualScale(AdjDualMul(th, poly), 5);
  if (t.v < s->p[P_SIZE + 2]) { /* m/p^2 (2 p t - t^2), slope 2 m/p^2 (p - t) */
    q     = AdjDualDiv(m, AdjDualMul(p, p));
    yc    = AdjDualMul(q, AdjDualSub(AdjDualScale(AdjDualMul(p, t), 2), t2));
    slope = AdjDualScale(AdjDualMul(q, AdjDualSub(p, t)), 2);
  } else { /* m/(1-p)^2 (1 - 2p + 2 p t - t^2), slope 2 m/(1-p)^2 (p - t) */
    const AdjDual omp = AdjDualShift(AdjDualScale(p, -1), 1);
    q                 = AdjDualDiv(m, AdjDualMul(omp, omp));
    yc    = AdjDualMul(q, AdjDualSub(AdjDualShift(AdjDualScale(AdjDualMul(p, AdjDualShift(t, -1)), 2), 1), t2));
    slope = AdjDualScale(AdjDualMul(q, AdjDualSub(p, t)), 2);
  }
  cs = AdjDualDiv(AdjDualConst(1), AdjDualSqrt(AdjDualShift(AdjDualMul(slope, slope), 1)));
  sn = AdjDualMul(slope, cs);
  *X = AdjDualSub(t, AdjDualScale(AdjDualMul(yt, sn), side));
  *Y = AdjDualAdd(yc, AdjDualScale(AdjDualMul(yt, cs), side));
}

/* CST surface at the station t = sigma^2: sigma (1 - t) sum_i A_i C(n,i) t^i (1-t)^(n-i), in units of
 * the chord (sigma a dual number, as for AdjNaca4Point). */
static AdjDual AdjCstSurface(const AdjShape *s, AdjDual sigma, PetscInt first)
{
  const PetscInt n = s->ncst - 1;
  const AdjDual  t = AdjDualMul(sigma, sigma), omt = AdjDualShift(AdjDualScale(t, -1), 1);
  AdjDual        sum   = AdjDualConst(0);
  PetscReal      binom = 1;

  for (PetscInt i = 0; i <= n; i++) {
    AdjDual b = AdjDualConst(binom);
    for (PetscInt k = 0; k < i; k++) b = AdjDualMul(b, t);
    for (PetscInt k = 0; k < n - i; k++) b = AdjDualMul(b, omt);
    sum   = AdjDualAdd(sum, AdjDualMul(AdjDualVar(s->p[first + i], first + i), b));
    binom = binom * (n - i) / (i + 1);
  }
  return AdjDualMul(sum, AdjDualMul(sigma, omt));
}

/* Surface of an airfoil read from a file at the station t = sigma^2: the natural cubic spline y/c(sigma) of
 * the side (AdjShapeReadSelig) plus the Hicks-Henne bumps b_k sin^3(pi t^e_k), e_k = log(1/2) / log(h_k),
 * h_k = k / (n + 1) (each bump peaks at t = h_k and vanishes at both edges), in units of the chord. */
static AdjDual AdjDatSurface(const AdjShape *s, AdjDual sigma, PetscInt side)
{
  const PetscInt   n = s->ndat[side];
  const PetscReal *t = s->dat[side][0], *y = s->dat[side][1], *M = s->dat[side][2];
  PetscInt         lo = 0, hi = n - 1;
  AdjDual          A, B, r;

  while (hi - lo > 1) { /* the knot interval holding sigma */
    const PetscInt mid = (lo + hi) / 2;
    if (t[mid] <= sigma.v)
      lo = mid;
    else
      hi = mid;
  }
  {
    const PetscReal h = t[hi] - t[lo];
    A                 = AdjDualScale(AdjDualShift(AdjDualScale(sigma, -1), t[hi]), 1 / h);
    B                 = AdjDualScale(AdjDualShift(sigma, -t[lo]), 1 / h);
    r                 = AdjDualAdd(AdjDualScale(A, y[lo]), AdjDualScale(B, y[hi]));
    r                 = AdjDualAdd(r, AdjDualScale(AdjDualSub(AdjDualMul(AdjDualMul(A, A), A), A), M[lo] * h * h / 6));
    r                 = AdjDualAdd(r, AdjDualScale(AdjDualSub(AdjDualMul(AdjDualMul(B, B), B), B), M[hi] * h * h / 6));
  }
  for (PetscInt k = 0; k < s->nbump; k++) {
    const PetscInt  i  = P_SIZE + 1 + side * s->nbump + k;
    const PetscReal e  = PetscLogReal(0.5) / PetscLogReal((k + 1.0) / (s->nbump + 1));
    const AdjDual   sn = AdjDualSin(AdjDualScale(AdjDualPow(sigma, 2 * e), PETSC_PI));

    r = AdjDualAdd(r, AdjDualMul(AdjDualVar(s->p[i], i), AdjDualMul(sn, AdjDualMul(sn, sn))));
  }
  return r;
}

/* y/c of the upper (side 0) or lower (side 1) surface at the station t = sigma^2 of a CST or file airfoil. */
AdjDual AdjAirfoilSurfaceY(const AdjShape *s, AdjDual sigma, PetscInt side)
{
  if (s->type == ADJ_SHAPE_DAT) return AdjDatSurface(s, sigma, side);
  return AdjCstSurface(s, sigma, P_SIZE + 1 + side * s->ncst);
}

/* ---- Joukowski airfoils ----
 * The circle through the singular point zeta = 1 about c = (-eps, kappa), zeta(phi) = c + (1 - c) e^(i phi), mapped by
 * z = zeta + 1/zeta: a cusped trailing edge at z(0) = 2, thickness from eps, camber from kappa.  Near the trailing
 * edge z - 2 ~ -(1 - c)^2 phi^2: both surfaces arrive along the cusp axis u = (1 - c)^2 / |1 - c|^2.  Stations are
 * measured along that axis: the leading edge is the point of the body farthest up the axis, z(phi_L) with phi_L the
 * minimum of h = Re(conj(u) z) (Newton), and the station of a point is s = Re(conj(u) (z - z_LE)) / L,
 * L = Re(conj(u) (2 - z_LE)); s rises monotonically from 0 to 1 along each surface (checked on a fine sampling for
 * eps in [0.001, 0.5] and |kappa| <= 0.3, the accepted range), and the surface point at the station t is the point
 * of that surface with s = t (upper: phi in [0, phi_L], lower: [phi_L, 2 pi]; safeguarded Newton).  So the upper
 * and lower points of one station sit symmetrically about the cusp (with the circle angle as the parameter they
 * would not: the grid's trailing-edge normal came out 30 degrees off and the O-grid folded; with stations along the
 * chord the normal missed the cusp axis by the trailing-edge camber slope and the first cell folded).  The points
 * are returned in the chord frame, leading edge at the origin and trailing edge at (1, 0): with d = 2 - z_LE and
 * v = z - z_LE, X = Re(conj(d) v) / |d|^2, Y = Im(conj(d) v) / |d|^2.
 * Derivatives: phi_L and phi are roots, so one Newton step in dual numbers at the converged root,
 * phi = phi* - F(phi*) / F'(phi*) with F in dual numbers, gives their exact parameter (and psi) derivatives.  At the
 * leading edge (t = 0, where s' = 0) phi = phi_L with dphi/dpsi = -+ 1 / sqrt(2 s''(phi_L)) (s ~ s'' (phi - phi_L)^2
 * / 2, t ~ psi^2 / 4); at the trailing edge phi = 0 or 2 pi for all parameters (z' = 0 there). */
typedef struct {
  PetscReal r, i;
} JkR; /* a complex number */
typedef struct {
  AdjDual r, i;
} JkD; /* a complex dual number */

static inline JkR JkRMul(JkR a, JkR b)
{
  JkR p = {a.r * b.r - a.i * b.i, a.r * b.i + a.i * b.r};
  return p;
}

static inline JkR JkRInv(JkR a)
{
  const PetscReal n = a.r * a.r + a.i * a.i;
  JkR             p = {a.r / n, -a.i / n};
  return p;
}

static inline JkD JkDMul(JkD a, JkD b)
{
  JkD p = {AdjDualSub(AdjDualMul(a.r, b.r), AdjDualMul(a.i, b.i)),
           AdjDualAdd(AdjDualMul(a.r, b.i), AdjDualMul(a.i, b.r))};
  return p;
}

static inline JkD JkDInv(JkD a)
{
  const AdjDual in = AdjDualDiv(AdjDualConst(1), AdjDualAdd(AdjDualMul(a.r, a.r), AdjDualMul(a.i, a.i)));
  JkD           p  = {AdjDualMul(a.r, in), AdjDualScale(AdjDualMul(a.i, in), -1)};
  return p;
}

/* z, z' and z'' at phi (plain numbers): zeta' = i (zeta - c), zeta'' = -(zeta - c), z' = zeta' (1 - zeta^-2),
 * z'' = zeta'' (1 - zeta^-2) + 2 zeta'^2 zeta^-3. */
static void JkReal(PetscReal eps, PetscReal kappa, PetscReal phi, JkR *z, JkR *z1, JkR *z2)
{
  const JkR r    = JkRMul((JkR){1 + eps, -kappa}, (JkR){PetscCosReal(phi), PetscSinReal(phi)}),
            zeta = {r.r - eps, r.i + kappa};
  const JkR iz = JkRInv(zeta), iz2 = JkRMul(iz, iz), f = {1 - iz2.r, -iz2.i}, ir = {-r.i, r.r};
  const JkR a = JkRMul((JkR){-r.r, -r.i}, f), b = JkRMul(JkRMul(ir, ir), JkRMul(iz2, iz));

  *z = (JkR){zeta.r + iz.r, zeta.i + iz.i}, *z1 = JkRMul(ir, f), *z2 = (JkR){a.r + 2 * b.r, a.i + 2 * b.i};
}

/* z and z' at phi in dual numbers (parameters eps, kappa; phi may carry derivatives). */
static void JkDual(AdjDual eps, AdjDual kappa, AdjDual phi, JkD *z, JkD *z1)
{
  const JkD r = JkDMul((JkD){AdjDualShift(eps, 1), AdjDualScale(kappa, -1)}, (JkD){AdjDualCos(phi), AdjDualSin(phi)});
  const JkD zeta = {AdjDualSub(r.r, eps), AdjDualAdd(r.i, kappa)}, iz = JkDInv(zeta), iz2 = JkDMul(iz, iz);
  const JkD f = {AdjDualScale(AdjDualShift(iz2.r, -1), -1), AdjDualScale(iz2.i, -1)}, ir = {AdjDualScale(r.i, -1), r.r};

  z->r = AdjDualAdd(zeta.r, iz.r), z->i = AdjDualAdd(zeta.i, iz.i);
  if (z1) *z1 = JkDMul(ir, f);
}

/* phi_L, the minimum of h = Re(conj(u) z): the best of 64 samples, then Newton on h' = Re(conj(u) z') = 0. */
static PetscReal JkLeadingEdgeAngle(PetscReal eps, PetscReal kappa, JkR u)
{
  PetscReal phi = PETSC_PI, best = PETSC_MAX_REAL;
  JkR       z, z1, z2;

  for (PetscInt k = 1; k < 64; k++) {
    const PetscReal a = 2 * PETSC_PI * k / 64;
    JkReal(eps, kappa, a, &z, &z1, &z2);
    if (u.r * z.r + u.i * z.i < best) best = u.r * z.r + u.i * z.i, phi = a;
  }
  for (PetscInt it = 0; it < 50; it++) {
    PetscReal h1, h2, step;
    JkReal(eps, kappa, phi, &z, &z1, &z2);
    h1   = u.r * z1.r + u.i * z1.i;
    h2   = u.r * z2.r + u.i * z2.i;
    step = h2 > 0 ? -h1 / h2 : (h1 > 0 ? -0.01 : 0.01); /* descent where not convex */
    phi += step;
    if (PetscAbsReal(step) < 1e-15) break;
  }
  return phi;
}

/* Re(conj(a) b) of complex dual numbers. */
static inline AdjDual JkDDot(JkD a, JkD b)
{
  return AdjDualAdd(AdjDualMul(a.r, b.r), AdjDualMul(a.i, b.i));
}

void AdjJoukowskiPoint(const AdjShape *s, AdjDual psi, PetscReal side, AdjDual *X, AdjDual *Y)
{
  const PetscReal e = s->p[P_SIZE + 1], k = s->p[P_SIZE + 2], tv = PetscSqr(PetscSinReal(0.5 * psi.v));
  const AdjDual   eps = AdjDualVar(e, P_SIZE + 1), kappa = AdjDualVar(k, P_SIZE + 2), ope = AdjDualShift(eps, 1);
  const AdjDual   n2   = AdjDualAdd(AdjDualMul(ope, ope), AdjDualMul(kappa, kappa)); /* |1 - c|^2 */
  const JkD       u    = {AdjDualDiv(AdjDualSub(AdjDualMul(ope, ope), AdjDualMul(kappa, kappa)), n2),
                          AdjDualDiv(AdjDualScale(AdjDualMul(ope, kappa), -2), n2)}; /* (1 - c)^2 / |1 - c|^2 */
  const JkR       ur   = {u.r.v, u.i.v};
  const PetscReal phiL = JkLeadingEdgeAngle(e, k, ur);
  JkR             zr, z1r, z2r;
  JkD             z, z1, zl, d;
  AdjDual         phi, L, il2;
  PetscReal       Lr, zlr[2];

  /* phi_L in dual numbers: one Newton step of h' at the root; then z_LE, the axis length L and the chord d */
  JkReal(e, k, phiL, &zr, &z1r, &z2r);
  JkDual(eps, kappa, AdjDualConst(phiL), &z, &z1);
  phi = AdjDualShift(AdjDualScale(JkDDot(u, z1), -1 / (ur.r * z2r.r + ur.i * z2r.i)), phiL);
  JkDual(eps, kappa, phi, &zl, NULL);
  d.r = AdjDualScale(AdjDualShift(zl.r, -2), -1), d.i = AdjDualScale(zl.i, -1);
  L   = JkDDot(u, d);
  il2 = AdjDualDiv(AdjDualConst(1), JkDDot(d, d));
  Lr = L.v, zlr[0] = zl.r.v, zlr[1] = zl.i.v;
  if (tv == 0) { /* the leading edge */
    const PetscReal s2  = (ur.r * z2r.r + ur.i * z2r.i) / Lr;
    phi.d[ADJ_PSI_SLOT] = psi.d[ADJ_PSI_SLOT] * (side > 0 ? -1 : 1) / PetscSqrtReal(2 * s2);
  } else if (psi.v >= PETSC_PI) { /* the trailing edge: zeta = 1 for all parameters */
    phi = AdjDualConst(side > 0 ? 0 : 2 * PETSC_PI);
  } else { /* s(phi) = t on the surface's bracket: s increases from phi_L towards 0 (upper) or 2 pi (lower) */
    PetscReal lo = side > 0 ? 0 : phiL, hi = side > 0 ? phiL : 2 * PETSC_PI, p = 0.5 * (lo + hi), s1;
    AdjDual   F, td = AdjDualConst(tv);
    JkD       v;

    for (PetscInt it = 0; it < 100; it++) {
      PetscReal F0, next;
      JkReal(e, k, p, &zr, &z1r, &z2r);
      F0 = (ur.r * (zr.r - zlr[0]) + ur.i * (zr.i - zlr[1])) / Lr - tv;
      s1 = (ur.r * z1r.r + ur.i * z1r.i) / Lr;
      if ((F0 > 0) == (side < 0))
        hi = p; /* keep the root bracketed */
      else
        lo = p;
      next = p - F0 / s1;
      if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
      if (PetscAbsReal(next - p) < 1e-15 || hi - lo < 1e-15) {
        p = next;
        break;
      }
      p = next;
    }
    JkReal(e, k, p, &zr, &z1r, &z2r);
    s1                 = (ur.r * z1r.r + ur.i * z1r.i) / Lr;
    td.d[ADJ_PSI_SLOT] = 0.5 * PetscSinReal(psi.v) * psi.d[ADJ_PSI_SLOT]; /* dt/dpsi */
    JkDual(eps, kappa, AdjDualConst(p), &z, NULL);
    v.r = AdjDualSub(z.r, zl.r), v.i = AdjDualSub(z.i, zl.i);
    F   = AdjDualSub(AdjDualDiv(JkDDot(u, v), L), td);
    phi = AdjDualShift(AdjDualScale(F, -1 / s1), p);
  }
  JkDual(eps, kappa, phi, &z, NULL);
  z.r = AdjDualSub(z.r, zl.r), z.i = AdjDualSub(z.i, zl.i); /* v */
  *X = AdjDualMul(JkDDot(d, z), il2);
  *Y = AdjDualMul(AdjDualSub(AdjDualMul(d.r, z.i), AdjDualMul(d.i, z.r)), il2);
}

/* Point of the upper (side 0) or lower (side 1) surface at psi in [0, pi] (station
 * t = sin^2(psi/2): psi = 0 the leading edge, pi the trailing edge), in metres in the body frame
 * with the leading edge at the origin.  With dpsi, the slot ADJ_PSI_SLOT carries dS/dpsi. */
static void AdjAirfoilBranchPoint(const AdjShape *s, PetscInt side, PetscReal psi, PetscBool dpsi, AdjDual *X,
                                  AdjDual *Y)
{
  const AdjDual c     = AdjDualVar(s->p[P_SIZE], P_SIZE);
  AdjDual       sigma = AdjDualConst(PetscSinReal(0.5 * psi));

  if (dpsi) sigma.d[ADJ_PSI_SLOT] = 0.5 * PetscCosReal(0.5 * psi);
  if (s->type == ADJ_SHAPE_JOUKOWSKI) {
    AdjDual ps = AdjDualConst(psi);
    if (dpsi) ps.d[ADJ_PSI_SLOT] = 1;
    AdjJoukowskiPoint(s, ps, side ? -1.0 : 1.0, X, Y);
  } else if (s->type == ADJ_SHAPE_NACA4)
    AdjNaca4Point(s, sigma, side ? -1.0 : 1.0, X, Y);
  else {
    *X = AdjDualMul(sigma, sigma);
    *Y = AdjAirfoilSurfaceY(s, sigma, side);
  }
  *X = AdjDualMul(*X, c);
  *Y = AdjDualMul(*Y, c);
}

/* World frame of a body-frame point (X, Y) relative to the reference point: turned by -alpha, then
 * translated to (x0, y0) (the inverse of AdjShapeBodyFrame). */
static void AdjShapeWorldFrame(const AdjShape *s, AdjDual X, AdjDual Y, AdjDual *x, AdjDual *y)
{
  const AdjDual a = AdjDualScale(AdjDualVar(s->p[P_ALPHA], P_ALPHA), PETSC_PI / 180);
  const AdjDual c = AdjDualCos(a), sn = AdjDualSin(a);

  *x = AdjDualAdd(AdjDualVar(s->p[P_X0], P_X0), AdjDualAdd(AdjDualMul(X, c), AdjDualMul(Y, sn)));
  *y = AdjDualAdd(AdjDualVar(s->p[P_Y0], P_Y0), AdjDualSub(AdjDualMul(Y, c), AdjDualMul(X, sn)));
}

void AdjShapeSurfacePoint(const AdjShape *s, PetscReal u, PetscReal xy[2], PetscReal dxy[2][ADJ_SHAPE_MAX_PARAMS])
{
  AdjDual X, Y, w[2];

  if (s->type == ADJ_SHAPE_NACA4 || s->type == ADJ_SHAPE_CST || s->type == ADJ_SHAPE_DAT ||
      s->type == ADJ_SHAPE_JOUKOWSKI) {
    /* branch points have the leading edge at the origin; the reference point is the quarter chord */
    AdjAirfoilBranchPoint(s, u < 0.5 ? 1 : 0, PETSC_PI * PetscAbsReal(1 - 2 * u), PETSC_FALSE, &X, &Y);
    X = AdjDualSub(X, AdjDualScale(AdjDualVar(s->p[P_SIZE], P_SIZE), 0.25));
  } else {
    const PetscInt  b = s->type == ADJ_SHAPE_ELLIPSE ? P_SIZE + 1 : P_SIZE;
    const AdjDual   a = AdjDualVar(s->p[P_SIZE], P_SIZE), bb = AdjDualVar(s->p[b], b);
    const PetscReal th = -2 * PETSC_PI * u;

    X = AdjDualScale(a, PetscCosReal(th)), Y = AdjDualScale(bb, PetscSinReal(th));
  }
  AdjShapeWorldFrame(s, X, Y, &w[0], &w[1]);
  for (PetscInt c = 0; c < 2; c++) {
    xy[c] = w[c].v;
    if (dxy)
      for (PetscInt i = 0; i < s->np; i++) dxy[c][i] = w[c].d[i];
  }
}

static void AdjShapeSetVertexMetres(AdjShape *s, PetscInt k, AdjDual X, AdjDual Y)
{
  const AdjDual v[2] = {X, Y};

  for (PetscInt q = 0; q < 2; q++) s->poly[2 * k + q] = v[q].v;
}

/* The closed polygon: upper surface from the trailing edge to the leading edge, then the lower
 * surface back to the trailing edge (cosine spacing: fine at both edges). */
static PetscErrorCode AdjAirfoilSample(MPI_Comm comm, AdjShape *s)
{
  const PetscInt n = ADJ_AIRFOIL_POINTS;

  PetscFunctionBeginUser;
  s->npoly = 2 * n - 2;
  PetscCall(PetscFree(s->poly));
  PetscCall(PetscMalloc1(2 * s->npoly, &s->poly));
  for (PetscInt k = 0; k < s->npoly; k++) {
    const PetscInt j = k < n ? n - 1 - k : k - n + 1; /* station index: psi = pi j/(n - 1) */
    AdjDual        X, Y;

    AdjAirfoilBranchPoint(s, k < n ? 0 : 1, PETSC_PI * j / (n - 1), PETSC_FALSE, &X, &Y);
    AdjShapeSetVertexMetres(s, k, X, Y);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* CST and file surfaces (with their bumps) must not cross: upper above lower at every interior station. */
static PetscErrorCode AdjCstCheck(MPI_Comm comm, const AdjShape *s)
{
  PetscFunctionBeginUser;
  for (PetscInt j = 1; j < ADJ_AIRFOIL_POINTS - 1; j++) {
    const PetscReal t  = 0.5 * (1 - PetscCosReal(PETSC_PI * j / (ADJ_AIRFOIL_POINTS - 1)));
    const AdjDual   sg = AdjDualConst(PetscSqrtReal(t));
    const PetscReal yu = AdjAirfoilSurfaceY(s, sg, 0).v, yl = AdjAirfoilSurfaceY(s, sg, 1).v;
    PetscCheck(yu > yl, comm, PETSC_ERR_USER_INPUT,
               "%s airfoil: the upper surface (y/c = %g) is not above the lower one (y/c = %g) at x/c = %.4f: the "
               "surfaces cross (check %s)",
               s->type == ADJ_SHAPE_DAT ? "File" : "CST", (double)yu, (double)yl, (double)t,
               s->type == ADJ_SHAPE_DAT ? "the coordinates and the bump amplitudes"
                                        : "the upper and lower CST coefficients");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjShapeSetUp(MPI_Comm comm, AdjShape *s)
{
  const PetscReal *q = s->p + P_SIZE;

  PetscFunctionBeginUser;
  switch (s->type) {
  case ADJ_SHAPE_PLANE: {
    const PetscReal len = PetscSqrtReal(q[0] * q[0] + q[1] * q[1]);

    s->np = P_SIZE + 2;
    PetscCheck(len > 0 && PetscIsNormalReal(len), comm, PETSC_ERR_USER_INPUT,
               "Plane normal (%g, %g) must be a nonzero finite vector", (double)q[0], (double)q[1]);
    s->p[P_SIZE] /= len, s->p[P_SIZE + 1] /= len;
    s->radius = PETSC_MAX_REAL; /* unbounded */
  } break;
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
    PetscCheck(s->ncst >= 1 && s->np <= ADJ_PSI_SLOT, comm, PETSC_ERR_USER_INPUT,
               "CST airfoil: give 1 to %d coefficients per surface, got %" PetscInt_FMT,
               (ADJ_PSI_SLOT - P_SIZE - 1) / 2, s->ncst);
    PetscCheck(q[0] > 0, comm, PETSC_ERR_USER_INPUT, "Airfoil chord %g m must be > 0", (double)q[0]);
    PetscCall(AdjCstCheck(comm, s));
    s->radius = q[0];
    PetscCall(AdjAirfoilSample(comm, s));
    break;
  case ADJ_SHAPE_JOUKOWSKI:
    s->np = P_SIZE + 3;
    PetscCheck(q[0] > 0, comm, PETSC_ERR_USER_INPUT, "Airfoil chord %g m must be > 0", (double)q[0]);
    PetscCheck(q[1] >= 0.001 && q[1] <= 0.5, comm, PETSC_ERR_USER_INPUT,
               "Joukowski thickness parameter eps = %g must be in [0.001, 0.5] (t/c about 1.3 eps; 0 is a flat plate)",
               (double)q[1]);
    PetscCheck(PetscAbsReal(q[2]) <= 0.3, comm, PETSC_ERR_USER_INPUT,
               "Joukowski camber parameter kappa = %g must be in [-0.3, 0.3] (camber about kappa / 2 of the chord)",
               (double)q[2]);
    s->radius = q[0];
    PetscCall(AdjAirfoilSample(comm, s));
    break;
  case ADJ_SHAPE_DAT:
    s->np = P_SIZE + 1 + 2 * s->nbump;
    PetscCheck(s->ndat[0] >= 2 && s->ndat[1] >= 2, comm, PETSC_ERR_ORDER,
               "Read the airfoil file (AdjShapeReadSelig) first");
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
  PetscCall(PetscFree(s->poly));
  s->npoly = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

void AdjShapeParameterName(const AdjShape *s, PetscInt i, const char **name, const char **unit)
{
  static const char *common[]    = {"x0", "y0", "alpha"},
                    *sizes[5][4] = {{"R"}, {"a", "b"}, {"chord", "m", "p", "t"}, {"chord"}, {"nx", "ny"}};

  *unit = i == P_ALPHA ? "deg" : "m";
  if (i < P_SIZE)
    *name = common[i];
  else if (i == P_SIZE && (s->type == ADJ_SHAPE_DAT || s->type == ADJ_SHAPE_JOUKOWSKI))
    *name = "chord";
  else if (s->type == ADJ_SHAPE_JOUKOWSKI)
    *name = i == P_SIZE + 1 ? "eps" : "kappa";
  else if (s->type == ADJ_SHAPE_DAT)
    *name = i - P_SIZE - 1 < s->nbump ? "bump_upper" : "bump_lower";
  else if (s->type != ADJ_SHAPE_CST || i == P_SIZE)
    *name = sizes[s->type][i - P_SIZE];
  else
    *name = i - P_SIZE - 1 < s->ncst ? "Au" : "Al";
  if (s->type == ADJ_SHAPE_NACA4 && i > P_SIZE) *unit = "1";
  if ((s->type == ADJ_SHAPE_CST || s->type == ADJ_SHAPE_DAT || s->type == ADJ_SHAPE_JOUKOWSKI) && i > P_SIZE)
    *unit = "1";
  if (s->type == ADJ_SHAPE_PLANE && i >= P_SIZE) *unit = "1";
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
  case ADJ_SHAPE_PLANE:
    *thickness = *reflength = PETSC_MAX_REAL;
    break;
  default: {
    PetscReal tmax = 0;
    for (PetscInt k = 1; k < s->npoly / 2; k++) /* upper vertex k and lower vertex npoly - k: the same station */
      tmax = PetscMax(tmax, s->poly[2 * k + 1] - s->poly[2 * (s->npoly - k) + 1]);
    *thickness = tmax, *reflength = q[0];
  }
  }
}
