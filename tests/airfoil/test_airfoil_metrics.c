/* Derivatives of the airfoil solver's metric layer (src/airfoil/metrics.c, shapeadjoint.c), on real O-grids
 * around a NACA 0012 (sharp trailing edge), a tilted, shifted NACA 2412 and a circle:
 *  - geometry (node coordinates -> xc, area, si, ai, bi, sj, aj, bj, ext): the tangent against central
 *    differences of AirfoilGeometryCreate (relative 1e-6 per array), and the dot test of the adjoint against
 *    the tangent, per array and for all arrays together (1e-12 relative to |T dx| |y|);
 *  - the forms (AirfoilFormIFace, JFace, Laplacian) in (ai, bi, aj, bj, ext, wf), per family of cells:
 *    interior, wall Dirichlet, wall extrapolated, far field.  A form's coefficients are polynomials of degree
 *    at most 2 in these (products coef * e, coef * w), so the central difference (F(x + dx) - F(x - dx)) / 2 is
 *    exactly its derivative along dx (up to round-off, any step): the dot test <F'(x) dx, Fb> = <dx, adjoint
 *    of Fb> checks the adjoint against the forward form itself (1e-12);
 *  - the chain shape parameters -> O-grid -> geometry (AirfoilShapeTangent / AirfoilShapeAdjoint) on the ranks
 *    of the run, each rank holding a share of the geometry bar: dot test (1e-12), the tangent against central
 *    differences of the regenerated grid's geometry (1e-6, step 1e-3 along a direction of relative size 0.05), the
 * gradient the same on every rank (bitwise) and equal to that of a one-rank grid (PETSC_COMM_SELF) to 1e-13 relative.
 * Every check fails on a NaN.  Options: the O-grid's (-airfoil_grid_around etc.). */
#include "airfoil/airfoilimpl.h"
#include "adjtest.h"

#define NARR 9 /* derived arrays of a geometry */

static PetscErrorCode Check(const char *label, const char *what, PetscReal err, PetscReal tol, PetscInt *fail)
{
  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s %s: %s %.3e (tol %.1e)\n", err <= tol ? "ok  " : "FAIL", label, what,
                        (double)err, (double)tol));
  if (!(err <= tol)) (*fail)++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The derived arrays of g and their lengths; [NARR] is xn. */
static const char *const arr_names[NARR + 1] = {"xc", "area", "si", "ai", "bi", "sj", "aj", "bj", "ext", "xn"};
static void              Arrays(const AirfoilGeometry *g, PetscReal *a[NARR + 1], PetscInt len[NARR + 1])
{
  const PetscInt nc = g->ni * g->nc, nn = g->ni * (g->nc + 1);

  a[0] = g->xc, a[1] = g->area, a[2] = g->si, a[3] = g->ai, a[4] = g->bi, a[5] = g->sj, a[6] = g->aj, a[7] = g->bj;
  a[8] = g->ext, a[9] = g->xn;
  len[0] = 2 * nc, len[1] = nc, len[2] = 2 * nc, len[3] = nc, len[4] = nc, len[5] = 2 * nn, len[6] = nn, len[7] = nn;
  len[8] = g->ni, len[9] = 2 * nn;
}

/* n uniform numbers in [-1, 1), the same on every rank for the same seed. */
static PetscErrorCode Random(PetscInt seed, PetscInt n, PetscReal a[])
{
  PetscFunctionBeginUser;
  PetscCall(AdjTestUniformArray(seed, 17, n, a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MakeGrid(MPI_Comm comm, const AdjShape *s, AdjOGrid *og, AirfoilGeometry *g)
{
  PetscInt   ni, nj;
  Vec        X;
  PetscReal *xn;

  PetscFunctionBeginUser;
  PetscCall(AdjOGridCreate(comm, og));
  PetscCall(AdjOGridSetShape(*og, s));
  PetscCall(AdjOGridSetFromOptions(*og));
  PetscCall(AdjOGridSetUp(*og));
  PetscCall(AdjOGridGetSizes(*og, &ni, &nj, NULL, NULL));
  PetscCall(AdjOGridGetCoordinates(*og, NULL, &X));
  PetscCall(PetscMalloc1(2 * ni * nj, &xn));
  PetscCall(AirfoilOGridGather(*og, X, xn));
  PetscCall(AirfoilGeometryCreate(ni, nj - 1, xn, g));
  PetscCall(PetscFree(xn));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* max |(P - M) / 2h - T| / max |T| per array of the geometries P, M (at xn +- h dxn) and the tangent T.  With polar
 * set, the maximum of |T| for beta (bi, bj) and the wall extrapolation weight (ext) is taken over alpha (ai, aj)
 * too, next to which they enter the stencils: on the polar grid of a circle beta is zero and stays zero under
 * all four parameters (translation, rotation, radius), and ext barely changes (measured against their own
 * round-off-sized tangents the differences would compare noise with noise: ext 4e-5 at h = 1e-3, falling as
 * 1/h, i.e. round-off). */
static const PetscInt own[NARR] = {0, 1, 2, 3, 4, 5, 6, 7, 8}, polar[NARR] = {0, 1, 2, 3, 3, 5, 6, 6, 6};
static PetscErrorCode CheckDifferences(const char *label, const AirfoilGeometry *P, const AirfoilGeometry *M,
                                       PetscReal h, const AirfoilGeometry *T, PetscBool polar_grid, PetscInt *fail)
{
  PetscReal *p[NARR + 1], *m[NARR + 1], *t[NARR + 1];
  PetscInt   len[NARR + 1];

  PetscFunctionBeginUser;
  Arrays(P, p, len), Arrays(M, m, len), Arrays(T, t, len);
  for (PetscInt a = 0; a < NARR; a++) {
    const PetscInt c   = polar_grid ? polar[a] : own[a];
    PetscReal      err = 0, big = 0;
    char           what[96];
    for (PetscInt k = 0; k < len[a]; k++) {
      err = AdjTestMax(err, PetscAbsReal((p[a][k] - m[a][k]) / (2 * h) - t[a][k]));
      big = AdjTestMax(big, PetscAbsReal(t[a][k]));
    }
    for (PetscInt k = 0; k < len[c]; k++) big = AdjTestMax(big, PetscAbsReal(t[c][k]));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s tangent vs central differences (relative)", arr_names[a]));
    PetscCall(Check(label, what, AdjTestRelative(err, big), 1e-6, fail));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Node displacements of a tenth of the local grid spacing (the nearest neighbour in j) in random directions. */
static PetscErrorCode RandomDisplacement(const AirfoilGeometry *g, PetscInt seed, PetscReal dxn[])
{
  const PetscInt ni = g->ni, nn = ni * (g->nc + 1);

  PetscFunctionBeginUser;
  PetscCall(Random(seed, 2 * nn, dxn));
  for (PetscInt n = 0; n < nn; n++) {
    const PetscInt   j = n / ni, o = j < g->nc ? n + ni : n - ni;
    const PetscReal *a = g->xn + 2 * n, *b = g->xn + 2 * o, hgt = PetscHypotReal(a[0] - b[0], a[1] - b[1]);
    dxn[2 * n] *= 0.1 * hgt, dxn[2 * n + 1] *= 0.1 * hgt;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The geometry in the node coordinates: tangent against central differences, adjoint against tangent. */
static PetscErrorCode CheckGeometry(const char *label, const AirfoilGeometry *g, PetscInt *fail)
{
  const PetscInt  nn = g->ni * (g->nc + 1);
  const PetscReal h  = 1e-5;
  AirfoilGeometry dg, gb, P, M;
  PetscReal      *dxn, *xp, *t[NARR + 1], *b[NARR + 1];
  PetscInt        len[NARR + 1];

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(2 * nn, &dxn, 2 * nn, &xp));
  PetscCall(RandomDisplacement(g, 1, dxn));
  PetscCall(AirfoilGeometryBarCreate(g, &dg));
  PetscCall(AirfoilGeometryBarCreate(g, &gb));
  AirfoilGeometryTangent(g, dxn, &dg);
  for (PetscInt k = 0; k < 2 * nn; k++) xp[k] = g->xn[k] + h * dxn[k];
  PetscCall(AirfoilGeometryCreate(g->ni, g->nc, xp, &P));
  for (PetscInt k = 0; k < 2 * nn; k++) xp[k] = g->xn[k] - h * dxn[k];
  PetscCall(AirfoilGeometryCreate(g->ni, g->nc, xp, &M));
  PetscCall(CheckDifferences(label, &P, &M, h, &dg, PETSC_FALSE, fail));
  /* dot tests: one array's bar alone, then all together */
  Arrays(&dg, t, len), Arrays(&gb, b, len);
  for (PetscInt a = 0; a <= NARR; a++) {
    PetscReal lhs = 0, nt = 0, ny = 0;
    char      name[96];

    PetscCall(AirfoilGeometryBarZero(&gb));
    for (PetscInt c = (a < NARR ? a : 0); c < (a < NARR ? a + 1 : NARR); c++) {
      PetscCall(Random(100 + c, len[c], b[c]));
      lhs += AdjTestArrayDot(len[c], t[c], b[c]), nt += AdjTestArrayDot(len[c], t[c], t[c]),
          ny += AdjTestArrayDot(len[c], b[c], b[c]);
    }
    AirfoilGeometryAdjoint(g, &gb);
    PetscCall(PetscSNPrintf(name, sizeof(name), "%s: geometry dot %s", label, a < NARR ? arr_names[a] : "all"));
    PetscCall(AdjTestReportScaled(name, lhs, AdjTestArrayDot(2 * nn, dxn, gb.xn), PetscSqrtReal(nt * ny), 1e-12, fail));
  }
  PetscCall(AirfoilGeometryDestroy(&P));
  PetscCall(AirfoilGeometryDestroy(&M));
  PetscCall(AirfoilGeometryDestroy(&dg));
  PetscCall(AirfoilGeometryDestroy(&gb));
  PetscCall(PetscFree2(dxn, xp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscReal FormDot(const AirfoilForm *F, const AirfoilForm *G)
{
  return AdjTestArrayDot(9, &F->c[0][0], &G->c[0][0]) + AdjTestArrayDot(3, F->w, G->w) + AdjTestArrayDot(3, F->f, G->f);
}

/* The form of kernel kind (0 i-face, 1 j-face, 2 Laplacian) about cell (i, j), side st. */
static void Form(PetscInt kind, const AirfoilGeometry *g, const AirfoilBoundary *bc, PetscInt i, PetscInt j,
                 PetscInt st, AirfoilForm *F)
{
  PetscBool ex;

  if (kind == 0)
    AirfoilFormIFace(g, bc, i, j, st, F);
  else if (kind == 1)
    AirfoilFormJFace(g, bc, i, j, st, F, &ex);
  else
    AirfoilFormLaplacian(g, bc, i, j, F);
}

static void FormAdjoint(PetscInt kind, const AirfoilGeometry *g, const AirfoilBoundary *bc, PetscInt i, PetscInt j,
                        PetscInt st, const AirfoilForm *Fb, AirfoilGeometry *gb, PetscReal wfb[])
{
  if (kind == 0)
    AirfoilFormIFaceAdjoint(g, bc, i, j, st, Fb, gb, wfb);
  else if (kind == 1)
    AirfoilFormJFaceAdjoint(g, bc, i, j, st, Fb, gb, wfb);
  else
    AirfoilFormLaplacianAdjoint(g, bc, i, j, Fb, gb, wfb);
}

/* Dot tests of the form adjoints in x = (ai, bi, aj, bj, ext, wf) for the cells of rows j0..j1. */
static PetscErrorCode CheckForms(const char *label, const AirfoilGeometry *g, const char *family, PetscInt j0,
                                 PetscInt j1, PetscBool dirichlet, PetscInt *fail)
{
  const PetscInt  ni       = g->ni;
  const char     *kinds[3] = {"i-face", "j-face", "Laplacian"};
  AirfoilGeometry dx, P, M, gb;
  PetscReal      *x[NARR + 1], *d[NARR + 1], *p[NARR + 1], *m[NARR + 1], *b[NARR + 1], *wf, *dwf, *wfp, *wfm, *wfb;
  PetscInt        len[NARR + 1];
  const PetscInt  used[5] = {3, 4, 6, 7, 8}; /* ai, bi, aj, bj, ext */

  PetscFunctionBeginUser;
  PetscCall(AirfoilGeometryBarCreate(g, &dx));
  PetscCall(AirfoilGeometryBarCreate(g, &P));
  PetscCall(AirfoilGeometryBarCreate(g, &M));
  PetscCall(AirfoilGeometryBarCreate(g, &gb));
  PetscCall(PetscMalloc5(ni, &wf, ni, &dwf, ni, &wfp, ni, &wfm, ni, &wfb));
  Arrays(g, x, len), Arrays(&dx, d, len), Arrays(&P, p, len), Arrays(&M, m, len);
  for (PetscInt u = 0; u < 5; u++) {
    const PetscInt a = used[u];
    PetscCall(Random(200 + a, len[a], d[a]));
    for (PetscInt k = 0; k < len[a]; k++) {
      d[a][k] *= PetscAbsReal(x[a][k]) + 1e-3;
      p[a][k] = x[a][k] + d[a][k], m[a][k] = x[a][k] - d[a][k];
    }
  }
  PetscCall(Random(300, ni, wf));
  PetscCall(Random(301, ni, dwf));
  for (PetscInt i = 0; i < ni; i++)
    wf[i] = 0.5 + 0.5 * wf[i], dwf[i] *= 0.3, wfp[i] = wf[i] + dwf[i], wfm[i] = wf[i] - dwf[i];
  for (PetscInt kind = 0; kind < 3; kind++) {
    const AirfoilBoundary bc = {dirichlet, wf}, bp = {dirichlet, wfp}, bm = {dirichlet, wfm};
    PetscReal             lhs = 0, rhs = 0, nt = 0, ny = 0;
    char                  name[128];

    PetscCall(AirfoilGeometryBarZero(&gb));
    PetscCall(PetscArrayzero(wfb, ni));
    for (PetscInt j = j0; j <= j1; j++)
      for (PetscInt i = 0; i < ni; i++)
        for (PetscInt st = 0; st < (kind < 2 ? 2 : 1); st++) {
          AirfoilForm Fp, Fm, Fb;
          Form(kind, &P, &bp, i, j, st, &Fp), Form(kind, &M, &bm, i, j, st, &Fm);
          PetscCall(Random(1000 + 7 * (j * ni + i) + st, 15, &Fb.c[0][0])); /* c, w, f: 15 contiguous reals */
          for (PetscInt k = 0; k < 15; k++) (&Fp.c[0][0])[k] = 0.5 * ((&Fp.c[0][0])[k] - (&Fm.c[0][0])[k]);
          lhs += FormDot(&Fp, &Fb), nt += FormDot(&Fp, &Fp), ny += FormDot(&Fb, &Fb);
          FormAdjoint(kind, g, &bc, i, j, st, &Fb, &gb, wfb);
        }
    Arrays(&gb, b, len);
    for (PetscInt u = 0; u < 5; u++) rhs += AdjTestArrayDot(len[used[u]], d[used[u]], b[used[u]]);
    rhs += AdjTestArrayDot(ni, dwf, wfb);
    PetscCall(PetscSNPrintf(name, sizeof(name), "%s: %s form %s", label, family, kinds[kind]));
    PetscCall(AdjTestReportScaled(name, lhs, rhs, PetscSqrtReal(nt * ny), 1e-12, fail));
  }
  PetscCall(PetscFree5(wf, dwf, wfp, wfm, wfb));
  PetscCall(AirfoilGeometryDestroy(&dx));
  PetscCall(AirfoilGeometryDestroy(&P));
  PetscCall(AirfoilGeometryDestroy(&M));
  PetscCall(AirfoilGeometryDestroy(&gb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The chain shape parameters -> geometry on the ranks of the run (see the head of the file). */
static PetscErrorCode CheckChain(const char *label, const AdjShape *s, AdjOGrid og, const AirfoilGeometry *g,
                                 PetscInt *fail)
{
  const PetscInt  np = s->np, ni = g->ni, nn = ni * (g->nc + 1);
  AirfoilGeometry dg, y, gb, P, M;
  AdjOGrid        serial;
  AirfoilGeometry gs, gbs;
  PetscReal       dp[ADJ_SHAPE_MAX_PARAMS], q[ADJ_SHAPE_MAX_PARAMS], pb[ADJ_SHAPE_MAX_PARAMS] = {0};
  PetscReal       pbs[ADJ_SHAPE_MAX_PARAMS] = {0}, pb0[ADJ_SHAPE_MAX_PARAMS];
  PetscReal      *t[NARR + 1], *yb[NARR + 1], *b[NARR + 1], *bs[NARR + 1], lhs = 0, rhs = 0, nt = 0, ny = 0;
  PetscReal       diff = 0, big = 0, *xn;
  const PetscReal h = 1e-3; /* the grid's round-off (relative to R) would show at 1e-5 */
  PetscInt        len[NARR + 1];
  PetscMPIInt     rank, size;
  Vec             X;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(Random(400, np, dp));
  for (PetscInt i = 0; i < np; i++) dp[i] *= i < 2 ? 0.1 : i == 2 ? 2.0 : 0.05 * PetscMax(PetscAbsReal(s->p[i]), 0.1);
  /* a symmetric NACA section sits at the edge m = 0 of the admissible cambers: no camber step there (the camber
   * direction is covered by the cambered case) */
  if (s->type == ADJ_SHAPE_NACA4 && s->p[4] == 0) dp[4] = 0;
  PetscCall(AirfoilGeometryBarCreate(g, &dg));
  PetscCall(AirfoilGeometryBarCreate(g, &y));
  PetscCall(AirfoilGeometryBarCreate(g, &gb));
  PetscCall(AirfoilShapeTangent(og, g, dp, &dg));
  /* y: a random bar of every array (xn too), the same on every rank; rank r's share: the entries k = r mod size */
  Arrays(&dg, t, len), Arrays(&y, yb, len), Arrays(&gb, b, len);
  for (PetscInt a = 0; a <= NARR; a++) {
    PetscCall(Random(500 + a, len[a], yb[a]));
    for (PetscInt k = rank; k < len[a]; k += size) b[a][k] = yb[a][k];
    lhs += AdjTestArrayDot(len[a], t[a], yb[a]), nt += AdjTestArrayDot(len[a], t[a], t[a]),
        ny += AdjTestArrayDot(len[a], yb[a], yb[a]);
  }
  PetscCall(AirfoilShapeAdjoint(og, g, &gb, pb));
  for (PetscInt i = 0; i < np; i++) rhs += dp[i] * pb[i];
  {
    char name[96];
    PetscCall(PetscSNPrintf(name, sizeof(name), "%s: chain dot (shares on %d ranks)", label, size));
    PetscCall(AdjTestReportScaled(name, lhs, rhs, PetscSqrtReal(nt * ny), 1e-12, fail));
  }
  /* the same gradient on every rank (bitwise) and on one rank */
  PetscCall(PetscArraycpy(pb0, pb, np));
  PetscCallMPI(MPI_Bcast(pb0, (PetscMPIInt)np, MPIU_REAL, 0, PETSC_COMM_WORLD));
  for (PetscInt i = 0; i < np; i++) diff = AdjTestMax(diff, PetscAbsReal(pb[i] - pb0[i]));
  PetscCall(AdjTestGlobalMax(PETSC_COMM_WORLD, diff, &diff));
  PetscCall(Check(label, "chain gradient differs between ranks (absolute)", diff, 0, fail));
  PetscCall(MakeGrid(PETSC_COMM_SELF, s, &serial, &gs));
  PetscCall(AirfoilGeometryBarCreate(&gs, &gbs));
  Arrays(&gbs, bs, len);
  for (PetscInt a = 0; a <= NARR; a++) PetscCall(PetscArraycpy(bs[a], yb[a], len[a]));
  PetscCall(AirfoilShapeAdjoint(serial, &gs, &gbs, pbs));
  diff = 0;
  for (PetscInt i = 0; i < np; i++)
    diff = AdjTestMax(diff, PetscAbsReal(pb[i] - pbs[i])), big = AdjTestMax(big, PetscAbsReal(pbs[i]));
  PetscCall(AdjTestGlobalMax(PETSC_COMM_WORLD, AdjTestRelative(diff, big), &diff));
  PetscCall(Check(label, "chain gradient vs one rank (relative)", diff, 1e-13, fail));
  PetscCall(AirfoilGeometryDestroy(&gs));
  PetscCall(AirfoilGeometryDestroy(&gbs));
  PetscCall(AdjOGridDestroy(&serial));
  /* the tangent against central differences of the regenerated grid's geometry */
  PetscCall(PetscMalloc1(2 * nn, &xn));
  PetscCall(AdjOGridGetCoordinates(og, NULL, &X));
  for (PetscInt sgn = -1; sgn <= 1; sgn += 2) {
    for (PetscInt i = 0; i < np; i++) q[i] = s->p[i] + sgn * h * dp[i];
    PetscCall(AdjOGridSetShapeParameters(og, q));
    PetscCall(AirfoilOGridGather(og, X, xn));
    PetscCall(AirfoilGeometryCreate(ni, g->nc, xn, sgn < 0 ? &M : &P));
  }
  PetscCall(AdjOGridSetShapeParameters(og, s->p));
  {
    char name[96];
    PetscCall(PetscSNPrintf(name, sizeof(name), "%s: chain", label));
    PetscCall(CheckDifferences(name, &P, &M, h, &dg, (PetscBool)(s->type == ADJ_SHAPE_CIRCLE), fail));
  }
  PetscCall(PetscFree(xn));
  PetscCall(AirfoilGeometryDestroy(&P));
  PetscCall(AirfoilGeometryDestroy(&M));
  PetscCall(AirfoilGeometryDestroy(&dg));
  PetscCall(AirfoilGeometryDestroy(&y));
  PetscCall(AirfoilGeometryDestroy(&gb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The Joukowski curve of the geometry layer against a direct construction (complex arithmetic, no Newton): the
 * image z = zeta + 1/zeta of the circle about (-eps, kappa) through 1, its leading edge the minimum of
 * Re(conj(u) z) along the cusp axis u = (1 - c)^2 / |1 - c|^2 (ternary search), turned and scaled so that the chord
 * runs from the leading to the trailing edge; every wall point of AdjShapeSurfacePoint must lie on the polyline of
 * 40000 points of that curve (distance in chords; the polyline's own chordal error is about 4e-8). On one rank
 * only (serial arithmetic). */
static PetscErrorCode CheckJoukowskiCurve(const AdjShape *s, PetscInt *fail)
{
  const PetscInt  n = 40000, m = 128;
  const PetscReal eps = s->p[4], kap = s->p[5], c = s->p[3];
  PetscReal      *pts, ur, ui, lo = 1, hi = 2 * PETSC_PI, zl[2], d[2], l2, worst = 0;

  PetscFunctionBeginUser;
  {
    const PetscReal ar = 1 + eps, ai = -kap, nr = ar * ar - ai * ai, ni = 2 * ar * ai,
                    nn = PetscSqrtReal(nr * nr + ni * ni);
    ur = nr / nn, ui = ni / nn;
  }
#define JZ(phi, z)                                                                                                     \
  do {                                                                                                                 \
    const PetscReal zr_ = -eps + (1 + eps) * PetscCosReal(phi) + kap * PetscSinReal(phi);                              \
    const PetscReal zi_ = kap + (1 + eps) * PetscSinReal(phi) - kap * PetscCosReal(phi), q_ = zr_ * zr_ + zi_ * zi_;   \
    (z)[0] = zr_ + zr_ / q_, (z)[1] = zi_ - zi_ / q_;                                                                  \
  } while (0)
  for (PetscInt it = 0; it < 200; it++) { /* ternary search for the minimum of Re(conj(u) z) */
    const PetscReal a = lo + (hi - lo) / 3, b = hi - (hi - lo) / 3;
    PetscReal       za[2], zb[2];
    JZ(a, za);
    JZ(b, zb);
    if (ur * za[0] + ui * za[1] < ur * zb[0] + ui * zb[1])
      hi = b;
    else
      lo = a;
  }
  JZ(0.5 * (lo + hi), zl);
  d[0] = 2 - zl[0], d[1] = -zl[1], l2 = d[0] * d[0] + d[1] * d[1];
  PetscCall(PetscMalloc1(2 * n, &pts));
  for (PetscInt k = 0; k < n; k++) { /* world frame: chord frame - quarter chord, times c */
    PetscReal z[2], v[2];
    JZ(2 * PETSC_PI * k / n, z);
    v[0] = z[0] - zl[0], v[1] = z[1] - zl[1];
    pts[2 * k] = c * ((d[0] * v[0] + d[1] * v[1]) / l2 - 0.25), pts[2 * k + 1] = c * (d[0] * v[1] - d[1] * v[0]) / l2;
  }
#undef JZ
  for (PetscInt i = 0; i < m; i++) {
    PetscReal xy[2], best = PETSC_MAX_REAL;
    AdjShapeSurfacePoint(s, (PetscReal)i / m, xy, NULL);
    for (PetscInt k = 0; k < n; k++) {
      const PetscReal *a = pts + 2 * k, *b = pts + 2 * ((k + 1) % n);
      const PetscReal  ex = b[0] - a[0], ey = b[1] - a[1], wx = xy[0] - a[0], wy = xy[1] - a[1];
      const PetscReal  t = PetscMin(1, PetscMax(0, (wx * ex + wy * ey) / (ex * ex + ey * ey)));
      best               = PetscMin(best, PetscHypotReal(wx - t * ex, wy - t * ey));
    }
    worst = AdjTestMax(worst, best / c);
  }
  PetscCall(PetscFree(pts));
  PetscCall(Check("joukowski", "wall points off the directly constructed curve [chords]", worst, 1e-6, fail));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt    fail = 0;
  PetscMPIInt size;
  AdjShape    n0012 = {.type = ADJ_SHAPE_NACA4, .p = {0, 0, 0, 1.0, 0, 0.4, 0.12}};
  AdjShape    n2412 = {.type = ADJ_SHAPE_NACA4, .p = {0.1, -0.2, 5, 1.0, 0.02, 0.4, 0.12}};
  AdjShape    circ  = {.type = ADJ_SHAPE_CIRCLE, .p = {0.05, 0.1, 0, 0.5}};
  AdjShape    jouk  = {.type = ADJ_SHAPE_JOUKOWSKI, .p = {-0.1, 0.05, 3, 1.2, 0.1, 0.05}};
  const struct {
    const char *label;
    AdjShape   *s;
  } cases[] = {
      {"naca0012", &n0012}, {"naca2412 alpha 5", &n2412}, {"circle", &circ}, {"joukowski 0.1,0.05 alpha 3", &jouk}};

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
    const char     *L   = cases[c].label;
    AdjShape        set = *cases[c].s;
    AdjOGrid        og;
    AirfoilGeometry g;

    set.poly = NULL;
    PetscCall(AdjShapeSetUp(PETSC_COMM_WORLD, &set)); /* np and the checks */
    PetscCall(MakeGrid(PETSC_COMM_WORLD, &set, &og, &g));
    PetscCall(CheckGeometry(L, &g, &fail));
    PetscCall(CheckForms(L, &g, "interior", 1, g.nc - 2, PETSC_FALSE, &fail));
    PetscCall(CheckForms(L, &g, "wall Dirichlet", 0, 0, PETSC_TRUE, &fail));
    PetscCall(CheckForms(L, &g, "wall extrapolated", 0, 0, PETSC_FALSE, &fail));
    PetscCall(CheckForms(L, &g, "far field", g.nc - 1, g.nc - 1, PETSC_FALSE, &fail));
    PetscCall(CheckChain(L, &set, og, &g, &fail));
    PetscCall(AirfoilGeometryDestroy(&g));
    PetscCall(AdjOGridDestroy(&og));
    PetscCall(AdjShapeDestroy(&set));
  }
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  if (size == 1) {
    AdjShape j = jouk;
    j.poly = NULL, j.p[0] = j.p[1] = j.p[2] = 0; /* the direct construction is in the body frame */
    PetscCall(AdjShapeSetUp(PETSC_COMM_WORLD, &j));
    PetscCall(CheckJoukowskiCurve(&j, &fail));
    PetscCall(AdjShapeDestroy(&j));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " failure(s)\n", fail ? "FAILED" : "PASSED", fail));
  PetscCall(PetscFinalize());
  return fail ? 1 : 0;
}
