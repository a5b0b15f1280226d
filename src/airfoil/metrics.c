/* Geometry of the O-grid cells and faces, and the stencils (AirfoilForm) of face gradients and of the
 * Laplacian: pure functions of the node coordinates and the boundary description (the notation is
 * that of airfoilimpl.h), with their derivatives: the tangent and adjoint of the geometry in the node
 * coordinates and the adjoints of the forms in the geometry and the far-field weights (the shape gradient
 * through the grid; the chain on to the shape parameters is in shapeadjoint.c). */
#include "airfoilimpl.h"

/* Node (i, j), i wrapped around. */
static inline const PetscReal *Node(const AirfoilGeometry *g, PetscInt i, PetscInt j)
{
  return g->xn + 2 * (j * g->ni + (i + g->ni) % g->ni);
}

static inline PetscInt Wrap(const AirfoilGeometry *g, PetscInt i)
{
  return (i + 2 * g->ni) % g->ni;
}

/* grad q . S = alpha da + beta db for the linear field with difference da along a and db along b,
 * S = (b_y, -b_x): alpha = |b|^2 / (a x b), beta = -(a . b) / (a x b). */
void AirfoilFaceCoefficients(const PetscReal a[2], const PetscReal b[2], PetscReal *alpha, PetscReal *beta)
{
  const PetscReal cross = a[0] * b[1] - a[1] * b[0];

  *alpha = (b[0] * b[0] + b[1] * b[1]) / cross;
  *beta  = -(a[0] * b[0] + a[1] * b[1]) / cross;
}

/* Centroid (mean of the four corners) and area (half the cross product of the diagonals) of cell (i, j). */
static void CellGeometry(const AirfoilGeometry *g, PetscInt i, PetscInt j, PetscReal xc[2], PetscReal *area)
{
  const PetscReal *p1 = Node(g, i, j), *p2 = Node(g, i + 1, j), *p3 = Node(g, i + 1, j + 1), *p4 = Node(g, i, j + 1);
  const PetscReal  d1[2] = {p3[0] - p1[0], p3[1] - p1[1]}, d2[2] = {p4[0] - p2[0], p4[1] - p2[1]};

  for (PetscInt d = 0; d < 2; d++) xc[d] = 0.25 * (p1[d] + p2[d] + p3[d] + p4[d]);
  *area = 0.5 * (d1[0] * d2[1] - d1[1] * d2[0]);
}

/* The i-face (i, j) between cells (i - 1, j) and (i, j): edge b from node (i, j) to (i, j + 1). */
static void IFaceGeometry(AirfoilGeometry *g, PetscInt i, PetscInt j)
{
  const PetscInt   f = j * g->ni + i;
  const PetscReal *p = Node(g, i, j), *q = Node(g, i, j + 1), *cl = g->xc + 2 * (j * g->ni + Wrap(g, i - 1)),
                  *cr  = g->xc + 2 * f;
  const PetscReal b[2] = {q[0] - p[0], q[1] - p[1]}, a[2] = {cr[0] - cl[0], cr[1] - cl[1]};

  g->si[2 * f] = b[1], g->si[2 * f + 1] = -b[0];
  AirfoilFaceCoefficients(a, b, &g->ai[f], &g->bi[f]);
}

/* The j-face (i, j) between cells (i, j - 1) and (i, j), j = 0 the wall, nc the far field: edge b from
 * node (i + 1, j) to (i, j); a from the cell centroid below (or the face midpoint) to the one above. */
static void JFaceGeometry(AirfoilGeometry *g, PetscInt i, PetscInt j)
{
  const PetscInt   f = j * g->ni + i, nc = g->nc;
  const PetscReal *p = Node(g, i + 1, j), *q = Node(g, i, j);
  const PetscReal  b[2] = {q[0] - p[0], q[1] - p[1]}, mid[2] = {0.5 * (p[0] + q[0]), 0.5 * (p[1] + q[1])};
  const PetscReal *lo = j > 0 ? g->xc + 2 * ((j - 1) * g->ni + i) : mid, *hi = j < nc ? g->xc + 2 * f : mid;
  const PetscReal  a[2] = {hi[0] - lo[0], hi[1] - lo[1]};

  g->sj[2 * f] = b[1], g->sj[2 * f + 1] = -b[0];
  AirfoilFaceCoefficients(a, b, &g->aj[f], &g->bj[f]);
  if (j == 0) { /* extrapolation to the wall along the first two centroids: e = d0 / (d1 - d0) */
    const PetscReal *c1 = g->xc + 2 * (g->ni + i);
    const PetscReal  d0 = PetscHypotReal(hi[0] - mid[0], hi[1] - mid[1]),
                    d1  = PetscHypotReal(c1[0] - mid[0], c1[1] - mid[1]);
    g->ext[i]           = d0 / (d1 - d0);
  }
}

/*@ AirfoilGeometryCreate - cell centroids and areas, face area vectors and gradient coefficients, and the
    wall extrapolation weights of the grid with node coordinates xn (ni x (nc + 1) nodes, copied). Not
    collective. @*/
PetscErrorCode AirfoilGeometryCreate(PetscInt ni, PetscInt nc, const PetscReal xn[], AirfoilGeometry *g)
{
  const PetscInt nn = ni * (nc + 1), ncell = ni * nc;

  PetscFunctionBeginUser;
  g->ni = ni, g->nc = nc;
  PetscCall(PetscMalloc4(2 * nn, &g->xn, 2 * ncell, &g->xc, ncell, &g->area, ni, &g->ext));
  PetscCall(PetscMalloc3(2 * ncell, &g->si, ncell, &g->ai, ncell, &g->bi));
  PetscCall(PetscMalloc3(2 * nn, &g->sj, nn, &g->aj, nn, &g->bj));
  PetscCall(PetscArraycpy(g->xn, xn, 2 * nn));
  for (PetscInt j = 0; j < nc; j++)
    for (PetscInt i = 0; i < ni; i++) CellGeometry(g, i, j, g->xc + 2 * (j * ni + i), &g->area[j * ni + i]);
  for (PetscInt j = 0; j < nc; j++)
    for (PetscInt i = 0; i < ni; i++) IFaceGeometry(g, i, j);
  for (PetscInt j = 0; j <= nc; j++)
    for (PetscInt i = 0; i < ni; i++) JFaceGeometry(g, i, j);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AirfoilGeometryDestroy(AirfoilGeometry *g)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree4(g->xn, g->xc, g->area, g->ext));
  PetscCall(PetscFree3(g->si, g->ai, g->bi));
  PetscCall(PetscFree3(g->sj, g->aj, g->bj));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- Derivatives of the geometry in the node coordinates (tangent and adjoint) ----
 *
 * Every derived array is a smooth function of the node coordinates xn (away from degenerate cells):
 *   centroid  xc = (p1 + p2 + p3 + p4) / 4                       dxc = (dp1 + dp2 + dp3 + dp4) / 4
 *   area      A = (d1 x d2) / 2, d1 = p3 - p1, d2 = p4 - p2      dA = (dd1 x d2 + d1 x dd2) / 2
 *   area vector S = (b_y, -b_x) of the edge b                    dS = (db_y, -db_x)
 *   alpha = |b|^2 / C, beta = -(a . b) / C, C = a x b:
 *     dC = da x b + a x db, dalpha = (2 b . db - alpha dC) / C, dbeta = -(da . b + a . db + beta dC) / C
 *   wall extrapolation e = d0 / (d1 - d0), d0 = |x_c(i, 0) - m|, d1 = |x_c(i, 1) - m|, m the wall-face midpoint:
 *     de = (dd0 d1 - d0 dd1) / (d1 - d0)^2,  dd0 = (x_c(i, 0) - m) . (dx_c(i, 0) - dm) / d0 (likewise dd1).
 * The face vectors a join centroids (or a face midpoint at the wall and the far field), so alpha, beta and e
 * depend on xn through xc.  The adjoint runs these in reverse: each face's bars give bars of its edge
 * (nodes), of its centroids and midpoints; a centroid's bar goes straight on to its four corners (xc is
 * linear in xn), so the caller's derived bars are only read and nothing but gb->xn is written. */

static inline PetscReal *NodeBar(AirfoilGeometry *gb, PetscInt i, PetscInt j)
{
  return gb->xn + 2 * (j * gb->ni + (i + gb->ni) % gb->ni);
}

/* gb->xn += (dxc(i, j)/dxn)^T cb: a quarter to each corner of cell (i, j). */
static void CentroidBar(AirfoilGeometry *gb, PetscInt i, PetscInt j, const PetscReal cb[2])
{
  PetscReal *p[4] = {NodeBar(gb, i, j), NodeBar(gb, i + 1, j), NodeBar(gb, i + 1, j + 1), NodeBar(gb, i, j + 1)};

  for (PetscInt k = 0; k < 4; k++) p[k][0] += 0.25 * cb[0], p[k][1] += 0.25 * cb[1];
}

/* Tangent of AirfoilFaceCoefficients along (da, db). */
static void FaceCoefficientsTangent(const PetscReal a[2], const PetscReal b[2], const PetscReal da[2],
                                    const PetscReal db[2], PetscReal *dalpha, PetscReal *dbeta)
{
  const PetscReal cross = a[0] * b[1] - a[1] * b[0], alpha = (b[0] * b[0] + b[1] * b[1]) / cross,
                  beta   = -(a[0] * b[0] + a[1] * b[1]) / cross;
  const PetscReal dcross = da[0] * b[1] + a[0] * db[1] - da[1] * b[0] - a[1] * db[0];

  *dalpha = (2 * (b[0] * db[0] + b[1] * db[1]) - alpha * dcross) / cross;
  *dbeta  = (-(da[0] * b[0] + da[1] * b[1] + a[0] * db[0] + a[1] * db[1]) - beta * dcross) / cross;
}

/* Adjoint of AirfoilFaceCoefficients: ab += (dalpha/da)^T alphab + (dbeta/da)^T betab, bb likewise, with
 * Cb = -(alpha alphab + beta betab) / C and dC/da = (b_y, -b_x), dC/db = (-a_y, a_x). */
static void FaceCoefficientsAdjoint(const PetscReal a[2], const PetscReal b[2], PetscReal alphab, PetscReal betab,
                                    PetscReal ab[2], PetscReal bb[2])
{
  const PetscReal cross = a[0] * b[1] - a[1] * b[0], alpha = (b[0] * b[0] + b[1] * b[1]) / cross,
                  beta = -(a[0] * b[0] + a[1] * b[1]) / cross, crossb = -(alpha * alphab + beta * betab) / cross;

  ab[0] += -betab * b[0] / cross + crossb * b[1];
  ab[1] += -betab * b[1] / cross - crossb * b[0];
  bb[0] += (2 * alphab * b[0] - betab * a[0]) / cross - crossb * a[1];
  bb[1] += (2 * alphab * b[1] - betab * a[1]) / cross + crossb * a[0];
}

/* Tangent of CellGeometry: dg->xn holds dxn. */
static void CellGeometryTangent(const AirfoilGeometry *g, AirfoilGeometry *dg, PetscInt i, PetscInt j)
{
  const PetscInt   c  = j * g->ni + i;
  const PetscReal *p1 = Node(g, i, j), *p2 = Node(g, i + 1, j), *p3 = Node(g, i + 1, j + 1), *p4 = Node(g, i, j + 1);
  const PetscReal *q1 = Node(dg, i, j), *q2 = Node(dg, i + 1, j), *q3 = Node(dg, i + 1, j + 1),
                  *q4   = Node(dg, i, j + 1);
  const PetscReal d1[2] = {p3[0] - p1[0], p3[1] - p1[1]}, d2[2] = {p4[0] - p2[0], p4[1] - p2[1]};
  const PetscReal e1[2] = {q3[0] - q1[0], q3[1] - q1[1]}, e2[2] = {q4[0] - q2[0], q4[1] - q2[1]};

  for (PetscInt d = 0; d < 2; d++) dg->xc[2 * c + d] = 0.25 * (q1[d] + q2[d] + q3[d] + q4[d]);
  dg->area[c] = 0.5 * (e1[0] * d2[1] - e1[1] * d2[0] + d1[0] * e2[1] - d1[1] * e2[0]);
}

/* Adjoint of CellGeometry: the centroid bar to the corners; the area bar through d1 x d2. */
static void CellGeometryAdjoint(const AirfoilGeometry *g, AirfoilGeometry *gb, PetscInt i, PetscInt j)
{
  const PetscInt   c  = j * g->ni + i;
  const PetscReal *p1 = Node(g, i, j), *p2 = Node(g, i + 1, j), *p3 = Node(g, i + 1, j + 1), *p4 = Node(g, i, j + 1);
  const PetscReal d1[2] = {p3[0] - p1[0], p3[1] - p1[1]}, d2[2] = {p4[0] - p2[0], p4[1] - p2[1]}, A = 0.5 * gb->area[c];
  const PetscReal d1b[2] = {A * d2[1], -A * d2[0]}, d2b[2] = {-A * d1[1], A * d1[0]};
  PetscReal      *b1 = NodeBar(gb, i, j), *b2 = NodeBar(gb, i + 1, j), *b3 = NodeBar(gb, i + 1, j + 1),
            *b4 = NodeBar(gb, i, j + 1);

  CentroidBar(gb, i, j, gb->xc + 2 * c);
  for (PetscInt d = 0; d < 2; d++) b3[d] += d1b[d], b1[d] -= d1b[d], b4[d] += d2b[d], b2[d] -= d2b[d];
}

/* Tangent of IFaceGeometry (the centroid tangents dg->xc already computed). */
static void IFaceGeometryTangent(const AirfoilGeometry *g, AirfoilGeometry *dg, PetscInt i, PetscInt j)
{
  const PetscInt   f = j * g->ni + i, l = 2 * (j * g->ni + Wrap(g, i - 1));
  const PetscReal *p = Node(g, i, j), *q = Node(g, i, j + 1), *dp = Node(dg, i, j), *dq = Node(dg, i, j + 1);
  const PetscReal  b[2] = {q[0] - p[0], q[1] - p[1]}, a[2] = {g->xc[2 * f] - g->xc[l], g->xc[2 * f + 1] - g->xc[l + 1]};
  const PetscReal  db[2] = {dq[0] - dp[0], dq[1] - dp[1]},
                  da[2]  = {dg->xc[2 * f] - dg->xc[l], dg->xc[2 * f + 1] - dg->xc[l + 1]};

  dg->si[2 * f] = db[1], dg->si[2 * f + 1] = -db[0];
  FaceCoefficientsTangent(a, b, da, db, &dg->ai[f], &dg->bi[f]);
}

/* Adjoint of IFaceGeometry: bars of the edge b = q - p (from S and the coefficients) and of a = x_c(i, j) -
 * x_c(i - 1, j). */
static void IFaceGeometryAdjoint(const AirfoilGeometry *g, AirfoilGeometry *gb, PetscInt i, PetscInt j)
{
  const PetscInt   f = j * g->ni + i, l = 2 * (j * g->ni + Wrap(g, i - 1));
  const PetscReal *p = Node(g, i, j), *q = Node(g, i, j + 1);
  const PetscReal  b[2] = {q[0] - p[0], q[1] - p[1]}, a[2] = {g->xc[2 * f] - g->xc[l], g->xc[2 * f + 1] - g->xc[l + 1]};
  PetscReal        bb[2] = {-gb->si[2 * f + 1], gb->si[2 * f]}, ab[2] = {0, 0}, mab[2];
  PetscReal       *pb = NodeBar(gb, i, j), *qb = NodeBar(gb, i, j + 1);

  FaceCoefficientsAdjoint(a, b, gb->ai[f], gb->bi[f], ab, bb);
  for (PetscInt d = 0; d < 2; d++) qb[d] += bb[d], pb[d] -= bb[d], mab[d] = -ab[d];
  CentroidBar(gb, i, j, ab), CentroidBar(gb, Wrap(g, i - 1), j, mab);
}

/* The points lo, hi whose difference is the vector a = hi - lo of j-face (i, j): the centroid of the cell below
 * (lo) and above (hi), as cell indices, or -1 for the face midpoint (at the wall lo, at the far field hi). */
static void JFacePoints(const AirfoilGeometry *g, PetscInt i, PetscInt j, PetscInt *lo, PetscInt *hi)
{
  *lo = j > 0 ? (j - 1) * g->ni + i : -1;
  *hi = j < g->nc ? j * g->ni + i : -1;
}

/* Tangent of JFaceGeometry (with dg->xc). */
static void JFaceGeometryTangent(const AirfoilGeometry *g, AirfoilGeometry *dg, PetscInt i, PetscInt j)
{
  const PetscInt   f = j * g->ni + i;
  const PetscReal *p = Node(g, i + 1, j), *q = Node(g, i, j), *dp = Node(dg, i + 1, j), *dq = Node(dg, i, j);
  const PetscReal  b[2] = {q[0] - p[0], q[1] - p[1]}, db[2] = {dq[0] - dp[0], dq[1] - dp[1]};
  const PetscReal  mid[2] = {0.5 * (p[0] + q[0]), 0.5 * (p[1] + q[1])},
                  dmid[2] = {0.5 * (dp[0] + dq[0]), 0.5 * (dp[1] + dq[1])};
  PetscInt l, h;
  JFacePoints(g, i, j, &l, &h);
  const PetscReal *lo = l >= 0 ? g->xc + 2 * l : mid, *hi = h >= 0 ? g->xc + 2 * h : mid;
  const PetscReal *dlo = l >= 0 ? dg->xc + 2 * l : dmid, *dhi = h >= 0 ? dg->xc + 2 * h : dmid;
  const PetscReal  a[2] = {hi[0] - lo[0], hi[1] - lo[1]}, da[2] = {dhi[0] - dlo[0], dhi[1] - dlo[1]};

  dg->sj[2 * f] = db[1], dg->sj[2 * f + 1] = -db[0];
  FaceCoefficientsTangent(a, b, da, db, &dg->aj[f], &dg->bj[f]);
  if (j == 0) {
    const PetscReal *c1 = g->xc + 2 * (g->ni + i), *dc1 = dg->xc + 2 * (g->ni + i);
    const PetscReal  u0[2] = {hi[0] - mid[0], hi[1] - mid[1]}, u1[2] = {c1[0] - mid[0], c1[1] - mid[1]};
    const PetscReal  d0 = PetscHypotReal(u0[0], u0[1]), d1 = PetscHypotReal(u1[0], u1[1]);
    const PetscReal  dd0 = (u0[0] * (dhi[0] - dmid[0]) + u0[1] * (dhi[1] - dmid[1])) / d0;
    const PetscReal  dd1 = (u1[0] * (dc1[0] - dmid[0]) + u1[1] * (dc1[1] - dmid[1])) / d1;

    dg->ext[i] = (dd0 * d1 - d0 * dd1) / ((d1 - d0) * (d1 - d0));
  }
}

/* gb->xn += the bar pb of a point of j-face (i, j) that is the centroid of cell k (k >= 0) or the midpoint. */
static void JFacePointBar(AirfoilGeometry *gb, PetscInt i, PetscInt j, PetscInt k, const PetscReal pb[2])
{
  if (k >= 0)
    CentroidBar(gb, k % gb->ni, k / gb->ni, pb);
  else {
    PetscReal *p = NodeBar(gb, i + 1, j), *q = NodeBar(gb, i, j);
    for (PetscInt d = 0; d < 2; d++) p[d] += 0.5 * pb[d], q[d] += 0.5 * pb[d];
  }
}

/* Adjoint of JFaceGeometry: bars of the edge, of a = hi - lo and, at the wall, of e through d0 and d1. */
static void JFaceGeometryAdjoint(const AirfoilGeometry *g, AirfoilGeometry *gb, PetscInt i, PetscInt j)
{
  const PetscInt   f = j * g->ni + i;
  const PetscReal *p = Node(g, i + 1, j), *q = Node(g, i, j);
  const PetscReal  b[2] = {q[0] - p[0], q[1] - p[1]}, mid[2] = {0.5 * (p[0] + q[0]), 0.5 * (p[1] + q[1])};
  PetscInt         l, h;
  JFacePoints(g, i, j, &l, &h);
  const PetscReal *lo = l >= 0 ? g->xc + 2 * l : mid, *hi = h >= 0 ? g->xc + 2 * h : mid;
  const PetscReal  a[2]  = {hi[0] - lo[0], hi[1] - lo[1]};
  PetscReal        bb[2] = {-gb->sj[2 * f + 1], gb->sj[2 * f]}, ab[2] = {0, 0}, mab[2], midb[2] = {0, 0};
  PetscReal       *pb = NodeBar(gb, i + 1, j), *qb = NodeBar(gb, i, j);

  FaceCoefficientsAdjoint(a, b, gb->aj[f], gb->bj[f], ab, bb);
  for (PetscInt d = 0; d < 2; d++) qb[d] += bb[d], pb[d] -= bb[d];
  if (j == 0) { /* e = d0 / (d1 - d0): d0b = eb d1 / (d1 - d0)^2, d1b = -eb d0 / (d1 - d0)^2 */
    const PetscReal *c1    = g->xc + 2 * (g->ni + i);
    const PetscReal  u0[2] = {hi[0] - mid[0], hi[1] - mid[1]}, u1[2] = {c1[0] - mid[0], c1[1] - mid[1]};
    const PetscReal  d0 = PetscHypotReal(u0[0], u0[1]), d1 = PetscHypotReal(u1[0], u1[1]), r = d1 - d0;
    const PetscReal  d0b = gb->ext[i] * d1 / (r * r), d1b = -gb->ext[i] * d0 / (r * r);
    PetscReal        c1b[2];

    for (PetscInt d = 0; d < 2; d++) {
      ab[d] += d0b * u0[d] / d0; /* at the wall a = hi - mid = u0: d0's bar goes with a's */
      c1b[d] = d1b * u1[d] / d1, midb[d] -= c1b[d];
    }
    CentroidBar(gb, i, 1, c1b);
  }
  for (PetscInt d = 0; d < 2; d++) mab[d] = -ab[d];
  JFacePointBar(gb, i, j, h, ab), JFacePointBar(gb, i, j, l, mab), JFacePointBar(gb, i, j, -1, midb);
}

/*@ AirfoilGeometryBarCreate - a geometry of the sizes of g with every array zero (xn included): the bars of
    its arrays for AirfoilGeometryAdjoint and the form adjoints, or the tangents of AirfoilGeometryTangent.
    Destroy with AirfoilGeometryDestroy. Not collective. @*/
PetscErrorCode AirfoilGeometryBarCreate(const AirfoilGeometry *g, AirfoilGeometry *gb)
{
  const PetscInt ni = g->ni, nc = g->nc, nn = ni * (nc + 1), ncell = ni * nc;

  PetscFunctionBeginUser;
  gb->ni = ni, gb->nc = nc;
  PetscCall(PetscCalloc4(2 * nn, &gb->xn, 2 * ncell, &gb->xc, ncell, &gb->area, ni, &gb->ext));
  PetscCall(PetscCalloc3(2 * ncell, &gb->si, ncell, &gb->ai, ncell, &gb->bi));
  PetscCall(PetscCalloc3(2 * nn, &gb->sj, nn, &gb->aj, nn, &gb->bj));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AirfoilGeometryBarZero - every array of gb (xn included) to zero. Not collective. @*/
PetscErrorCode AirfoilGeometryBarZero(AirfoilGeometry *gb)
{
  const PetscInt nn = gb->ni * (gb->nc + 1), ncell = gb->ni * gb->nc;

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(gb->xn, 2 * nn));
  PetscCall(PetscArrayzero(gb->xc, 2 * ncell));
  PetscCall(PetscArrayzero(gb->area, ncell));
  PetscCall(PetscArrayzero(gb->ext, gb->ni));
  PetscCall(PetscArrayzero(gb->si, 2 * ncell));
  PetscCall(PetscArrayzero(gb->ai, ncell));
  PetscCall(PetscArrayzero(gb->bi, ncell));
  PetscCall(PetscArrayzero(gb->sj, 2 * nn));
  PetscCall(PetscArrayzero(gb->aj, nn));
  PetscCall(PetscArrayzero(gb->bj, nn));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AirfoilGeometryTangent - dg = the derivative of every derived array of g (xc, area, si, ai, bi, sj, aj, bj,
    ext) along the node displacement dxn (copied to dg->xn; dxn may be dg->xn).  dg from
    AirfoilGeometryBarCreate. Not collective. @*/
void AirfoilGeometryTangent(const AirfoilGeometry *g, const PetscReal dxn[], AirfoilGeometry *dg)
{
  const PetscInt ni = g->ni, nc = g->nc;

  if (dg->xn != dxn) PetscArraycpy(dg->xn, dxn, 2 * ni * (nc + 1));
  for (PetscInt j = 0; j < nc; j++)
    for (PetscInt i = 0; i < ni; i++) CellGeometryTangent(g, dg, i, j);
  for (PetscInt j = 0; j < nc; j++)
    for (PetscInt i = 0; i < ni; i++) IFaceGeometryTangent(g, dg, i, j);
  for (PetscInt j = 0; j <= nc; j++)
    for (PetscInt i = 0; i < ni; i++) JFaceGeometryTangent(g, dg, i, j);
}

/*@ AirfoilGeometryAdjoint - gb->xn += (d derived / d xn)^T (the bars gb->xc, area, si, ai, bi, sj, aj, bj,
    ext): the reverse of AirfoilGeometryCreate, faces first (their bars of the centroids passed straight on to
    the corners), then the cells.  Only gb->xn is written.  Linear in gb, so the bars of a rank's share of
    the cells may be put through it and the results summed over the ranks (AirfoilShapeAdjoint). Not
    collective. @*/
void AirfoilGeometryAdjoint(const AirfoilGeometry *g, AirfoilGeometry *gb)
{
  const PetscInt ni = g->ni, nc = g->nc;

  for (PetscInt j = nc; j >= 0; j--)
    for (PetscInt i = ni - 1; i >= 0; i--) JFaceGeometryAdjoint(g, gb, i, j);
  for (PetscInt j = nc - 1; j >= 0; j--)
    for (PetscInt i = ni - 1; i >= 0; i--) IFaceGeometryAdjoint(g, gb, i, j);
  for (PetscInt j = nc - 1; j >= 0; j--)
    for (PetscInt i = ni - 1; i >= 0; i--) CellGeometryAdjoint(g, gb, i, j);
}

static inline void FormCell(AirfoilForm *F, PetscInt di, PetscInt dj, PetscReal c)
{
  F->c[dj + 1][di + 1] += c;
}

/* F += coef q(node (ic + ni_, jc + nj_)), ni_, nj_ in {0, 1}: the mean of the four cells around it, or
 * at the wall the wall data (Dirichlet) or the extrapolated values of the two wall cells, or at the far
 * field the mean of the two far-field face values. */
static void FormNode(const AirfoilGeometry *g, const AirfoilBoundary *bc, PetscInt ic, PetscInt jc, PetscInt ni_,
                     PetscInt nj_, PetscReal coef, AirfoilForm *F)
{
  const PetscInt J = jc + nj_;

  if (J > 0 && J < g->nc) {
    for (PetscInt a = -1; a <= 0; a++)
      for (PetscInt b = -1; b <= 0; b++) FormCell(F, ni_ + a, nj_ + b, 0.25 * coef);
  } else if (J == 0) {
    for (PetscInt k = ni_ - 1; k <= ni_; k++) {
      const PetscReal e = g->ext[Wrap(g, ic + k)];
      if (bc->wall_dirichlet)
        F->w[k + 1] += 0.5 * coef;
      else
        FormCell(F, k, 0, 0.5 * coef * (1 + e)), FormCell(F, k, 1, -0.5 * coef * e);
    }
  } else {
    for (PetscInt k = ni_ - 1; k <= ni_; k++) {
      const PetscReal w = bc->wf[Wrap(g, ic + k)];
      F->f[k + 1] += 0.5 * coef * w;
      FormCell(F, k, 0, 0.5 * coef * (1 - w));
    }
  }
}

/*@ AirfoilFormIFace - F = grad q . S on the left i-face of cell (i + s, j), s in {0, 1}, as a form about
    cell (i, j). Not collective. @*/
void AirfoilFormIFace(const AirfoilGeometry *g, const AirfoilBoundary *bc, PetscInt i, PetscInt j, PetscInt s,
                      AirfoilForm *F)
{
  const PetscInt f = j * g->ni + Wrap(g, i + s);

  PetscMemzero(F, sizeof(*F));
  FormCell(F, s, 0, g->ai[f]), FormCell(F, s - 1, 0, -g->ai[f]);
  FormNode(g, bc, i, j, s, 1, g->bi[f], F), FormNode(g, bc, i, j, s, 0, -g->bi[f], F);
}

/*@ AirfoilFormJFace - F = grad q . S on the bottom j-face of cell (i, j + t), t in {0, 1}, as a form about
    cell (i, j); *excluded when that face is the wall and the wall is not Dirichlet (its flux is given:
    F is zero). Not collective. @*/
void AirfoilFormJFace(const AirfoilGeometry *g, const AirfoilBoundary *bc, PetscInt i, PetscInt j, PetscInt t,
                      AirfoilForm *F, PetscBool *excluded)
{
  const PetscInt J = j + t, f = J * g->ni + i;

  PetscMemzero(F, sizeof(*F));
  *excluded = (PetscBool)(J == 0 && !bc->wall_dirichlet);
  if (*excluded) return;
  if (J == 0)
    FormCell(F, 0, 0, g->aj[f]), F->w[1] -= g->aj[f];
  else if (J == g->nc) { /* far-field value wf qf + (1 - wf) q minus q */
    const PetscReal w = bc->wf[i];
    F->f[1] += g->aj[f] * w, FormCell(F, 0, t - 1, -g->aj[f] * w);
  } else
    FormCell(F, 0, t, g->aj[f]), FormCell(F, 0, t - 1, -g->aj[f]);
  FormNode(g, bc, i, j, 0, t, g->bj[f], F), FormNode(g, bc, i, j, 1, t, -g->bj[f], F);
}

static void FormAdd(AirfoilForm *F, PetscReal s, const AirfoilForm *G)
{
  for (PetscInt a = 0; a < 3; a++) {
    for (PetscInt b = 0; b < 3; b++) F->c[a][b] += s * G->c[a][b];
    F->w[a] += s * G->w[a], F->f[a] += s * G->f[a];
  }
}

/*@ AirfoilFormLaplacian - F = sum over the faces of cell (i, j) of grad q . S (outward): the integral of
    the Laplacian over the cell (excluded wall faces contribute nothing). Not collective. @*/
void AirfoilFormLaplacian(const AirfoilGeometry *g, const AirfoilBoundary *bc, PetscInt i, PetscInt j, AirfoilForm *F)
{
  AirfoilForm G;
  PetscBool   ex;

  PetscMemzero(F, sizeof(*F));
  AirfoilFormIFace(g, bc, i, j, 1, &G), FormAdd(F, 1, &G);
  AirfoilFormIFace(g, bc, i, j, 0, &G), FormAdd(F, -1, &G);
  AirfoilFormJFace(g, bc, i, j, 1, &G, &ex), FormAdd(F, 1, &G);
  AirfoilFormJFace(g, bc, i, j, 0, &G, &ex), FormAdd(F, -1, &G);
}

/* ---- Adjoints of the forms in the geometry and the far-field weights ----
 * A form's coefficients are sums of products coef * (1, e or w) with coef one of ai, bi, aj, bj (FormNode:
 * coef (1 + e), -coef e, coef w, coef (1 - w)): given the bar Fb of its coefficients c, w, f, the bars of
 * those factors are the matching sums of Fb entries.  The adjoints accumulate (+=) into gb (its ai, bi, aj,
 * bj, ext) and into wfb (the bars of bc->wf; NULL: not wanted). */

/* The bar of coef in FormNode's F += ..., and gb->ext, wfb += the bars of e, w. */
static PetscReal FormNodeAdjoint(const AirfoilGeometry *g, const AirfoilBoundary *bc, PetscInt ic, PetscInt jc,
                                 PetscInt ni_, PetscInt nj_, PetscReal coef, const AirfoilForm *Fb, AirfoilGeometry *gb,
                                 PetscReal wfb[])
{
  const PetscInt J  = jc + nj_;
  PetscReal      cb = 0;

  if (J > 0 && J < g->nc) {
    for (PetscInt a = -1; a <= 0; a++)
      for (PetscInt b = -1; b <= 0; b++) cb += 0.25 * Fb->c[nj_ + b + 1][ni_ + a + 1];
  } else if (J == 0) {
    for (PetscInt k = ni_ - 1; k <= ni_; k++) {
      const PetscInt  n = Wrap(g, ic + k);
      const PetscReal e = g->ext[n], c0 = Fb->c[1][k + 1], c1 = Fb->c[2][k + 1];
      if (bc->wall_dirichlet)
        cb += 0.5 * Fb->w[k + 1];
      else
        cb += 0.5 * ((1 + e) * c0 - e * c1), gb->ext[n] += 0.5 * coef * (c0 - c1);
    }
  } else {
    for (PetscInt k = ni_ - 1; k <= ni_; k++) {
      const PetscInt  n = Wrap(g, ic + k);
      const PetscReal w = bc->wf[n], fw = Fb->f[k + 1], c0 = Fb->c[1][k + 1];
      cb += 0.5 * (w * fw + (1 - w) * c0);
      if (wfb) wfb[n] += 0.5 * coef * (fw - c0);
    }
  }
  return cb;
}

/*@ AirfoilFormIFaceAdjoint - the reverse of AirfoilFormIFace: given the bar Fb of the form's coefficients,
    gb->ai, gb->bi, gb->ext and wfb (if not NULL) += their bars. Not collective. @*/
void AirfoilFormIFaceAdjoint(const AirfoilGeometry *g, const AirfoilBoundary *bc, PetscInt i, PetscInt j, PetscInt s,
                             const AirfoilForm *Fb, AirfoilGeometry *gb, PetscReal wfb[])
{
  const PetscInt f = j * g->ni + Wrap(g, i + s);

  gb->ai[f] += Fb->c[1][s + 1] - Fb->c[1][s];
  gb->bi[f] += FormNodeAdjoint(g, bc, i, j, s, 1, g->bi[f], Fb, gb, wfb) -
               FormNodeAdjoint(g, bc, i, j, s, 0, -g->bi[f], Fb, gb, wfb);
}

/*@ AirfoilFormJFaceAdjoint - the reverse of AirfoilFormJFace (nothing for an excluded wall face): gb->aj,
    gb->bj, gb->ext and wfb (if not NULL) += the bars. Not collective. @*/
void AirfoilFormJFaceAdjoint(const AirfoilGeometry *g, const AirfoilBoundary *bc, PetscInt i, PetscInt j, PetscInt t,
                             const AirfoilForm *Fb, AirfoilGeometry *gb, PetscReal wfb[])
{
  const PetscInt J = j + t, f = J * g->ni + i;

  if (J == 0 && !bc->wall_dirichlet) return;
  if (J == 0)
    gb->aj[f] += Fb->c[1][1] - Fb->w[1];
  else if (J == g->nc) { /* F->f[1] += aj w, F->c[t][1] -= aj w */
    const PetscReal w = bc->wf[i], d = Fb->f[1] - Fb->c[t][1];
    gb->aj[f] += w * d;
    if (wfb) wfb[i] += g->aj[f] * d;
  } else
    gb->aj[f] += Fb->c[t + 1][1] - Fb->c[t][1];
  gb->bj[f] += FormNodeAdjoint(g, bc, i, j, 0, t, g->bj[f], Fb, gb, wfb) -
               FormNodeAdjoint(g, bc, i, j, 1, t, -g->bj[f], Fb, gb, wfb);
}

/*@ AirfoilFormLaplacianAdjoint - the reverse of AirfoilFormLaplacian: the four face adjoints with Fb, -Fb. Not
    collective. @*/
void AirfoilFormLaplacianAdjoint(const AirfoilGeometry *g, const AirfoilBoundary *bc, PetscInt i, PetscInt j,
                                 const AirfoilForm *Fb, AirfoilGeometry *gb, PetscReal wfb[])
{
  AirfoilForm Mb;

  PetscMemzero(&Mb, sizeof(Mb));
  FormAdd(&Mb, -1, Fb);
  AirfoilFormIFaceAdjoint(g, bc, i, j, 1, Fb, gb, wfb);
  AirfoilFormIFaceAdjoint(g, bc, i, j, 0, &Mb, gb, wfb);
  AirfoilFormJFaceAdjoint(g, bc, i, j, 1, Fb, gb, wfb);
  AirfoilFormJFaceAdjoint(g, bc, i, j, 0, &Mb, gb, wfb);
}

/*@ AirfoilFormApplyData - the part of F's value about a cell of column i that comes from the boundary data qw, qf
    (ni values each; NULL: zero). Not collective. @*/
PetscReal AirfoilFormApplyData(const AirfoilForm *F, PetscInt i, PetscInt ni, const PetscReal qw[],
                               const PetscReal qf[])
{
  PetscReal s = 0;

  for (PetscInt a = -1; a <= 1; a++) {
    const PetscInt k = (i + a + 2 * ni) % ni;
    if (qw && F->w[a + 1] != 0) s += F->w[a + 1] * qw[k];
    if (qf && F->f[a + 1] != 0) s += F->f[a + 1] * qf[k];
  }
  return s;
}

/*@ AirfoilFormApply - the value of F about cell (i, j) for the ghosted cell array q and the boundary data
    qw, qf (ni values each; NULL: zero). Zero coefficients are skipped, so rows outside the grid are never
    read. Not collective. @*/
PetscReal AirfoilFormApply(const AirfoilForm *F, PetscInt i, PetscInt j, PetscInt ni, PetscScalar **q,
                           const PetscReal qw[], const PetscReal qf[])
{
  PetscReal s = 0;

  for (PetscInt b = -1; b <= 1; b++)
    for (PetscInt a = -1; a <= 1; a++)
      if (F->c[b + 1][a + 1] != 0) s += F->c[b + 1][a + 1] * q[j + b][i + a];
  return s + AirfoilFormApplyData(F, i, ni, qw, qf);
}
