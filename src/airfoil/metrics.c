/* Geometry of the O-grid cells and faces, and the stencils (AirfoilForm) of face gradients and of the
 * Laplacian: pure functions of the node coordinates and the boundary description (the notation is
 * that of airfoilimpl.h).  Their derivatives in the coordinates (the shape gradient through the grid)
 * will sit next to them. */
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
