/* Kernel-level dot-product tests <T dg, y> = <dg, T^T y> (1e-12) of the geometry bars of the airfoil flow adjoint
 * (the `...GeometryAdjoint` kernels of src/airfoil/operators.c, solve.c, forces.c; the shape gradient through the grid,
 * docs/airfoil.md), at a fixed random flow state on a small O-grid around a NACA 2412 at 8 degrees, on the ranks of the
 * run (each rank's kernels act on its owned cells and add its share of the bars: the right-hand sides are summed).
 * Random ghosted inputs (fluxes, cell fields, wall and far-field data, far-field weights in (0, 1)), deterministic
 * output bars y.  The tangent T dg comes from the forward kernel alone, exactly (up to round-off, no step to tune):
 *  - group "S, e, forms": every array of the geometry but the areas (xn, xc, si, ai, bi, sj, aj, bj, ext) and the
 *    coefficients of the owned cells' forms (lapv, lapp, gfi, gfj, gft; the cells of a stencil inside the grid and the
 *    data coefficients), perturbed together by a random direction d (relative size 0.5 for the arrays, 2 for the form
 *    coefficients: any size is exact, and a large one keeps the round-off of the difference small where an exact large
 *    part cancels, A u* / dt in K u*).  At a fixed area every kernel is a polynomial of degree <= 2 in these (u . S,
 *    q_wall(e) S, form . q), so the central difference with the unit step, (f(g + d) - f(g - d)) / 2, is exactly
 *    f'(g) d;
 *  - group "area": the areas alone, dA = 0.5 r A (|r| < 1).  Each output of a cell depends on its own cell's area only,
 *    as a + b A + c / A (the divisions of the Green-Gauss gradient and the convection, the factor A of the momentum
 *    right-hand side and of K = A/dt - theta nu Lv), for which the three-point formula
 *      f'(A) h = (f(A + h) - f(A - h)) / 2 + h (f(A + h) + f(A - h) - 2 f(A)) / (2 A)
 *    is exact (it is for 1, A and 1/A), so T dg is again the forward kernel's own derivative.
 * A group a kernel does not read must give a tangent and bars that are both exactly zero (no stray bars).  The gap
 * is judged relative to sum |y_k (T dg)_k| (<= |T dg| |y|, so stricter than the Cauchy-Schwarz scale).
 * The transposed solves' operator bars (AirfoilViscousSolveGeometryAdjoint, AirfoilPressureSolveGeometryAdjoint) are
 * the bars of g -> -rb^T K(g) u* and g -> -bb^T P(g) phi (since du = -K^-1 dK u); their forward K u*, P phi is
 * applied from the stencils like AirfoilAssemble does and checked against MatMult with the assembled K, P (1e-13).
 * The forces (AirfoilForcesGeometryAdjoint: the wall face forms are rebuilt from aj, bj, ext inside) are cubic in the
 * arrays together (the moment arm, linear in xn, times the wall force): the five-point difference
 * (f(-2) - 8 f(-1) + 8 f(1) - f(2)) / 12 with unit step is exact up to degree 4.  The far-field weights
 * (AirfoilFarWeightsGeometryAdjoint, wf = (1 - tanh(c / w)) / 2, c = S . e / |S|: not polynomial) use a tangent
 * written here from that formula, itself checked against central differences (1e-6).
 * Not reachable from here (static in solve.c): AirfoilFarFieldDataAdjoint's geometry bar (the far-field vortex's
 * midpoints) and AirfoilInitialStateGeometryAdjoint (its kernels are tested here); test_airfoil_shape.c checks them
 * through the whole step against differences at the solvers' accuracy. */
#include "airfoil/airfoilimpl.h"
#include "steppertest.h"
#include "adjtest.h"
#include "airfoiltest.h"

static const PetscReal tol = 1e-12;

static const char *const Base[] = {AIRFOIL_TEST_CASE, AIRFOIL_TEST_SMALL_GRID, NULL};

/* ---- the arrays of a geometry and the form families of the owned cells ---- */
#define NARR 10
enum { A_XN, A_XC, A_AREA, A_SI, A_AI, A_BI, A_SJ, A_AJ, A_BJ, A_EXT };
static void Arrays(const AirfoilGeometry *g, PetscReal *a[NARR], PetscInt len[NARR])
{
  const PetscInt nc = g->ni * g->nc, nn = g->ni * (g->nc + 1);

  a[A_XN] = g->xn, a[A_XC] = g->xc, a[A_AREA] = g->area, a[A_SI] = g->si, a[A_AI] = g->ai, a[A_BI] = g->bi;
  a[A_SJ] = g->sj, a[A_AJ] = g->aj, a[A_BJ] = g->bj, a[A_EXT] = g->ext;
  len[A_XN] = 2 * nn, len[A_XC] = 2 * nc, len[A_AREA] = nc, len[A_SI] = 2 * nc, len[A_AI] = nc, len[A_BI] = nc;
  len[A_SJ] = 2 * nn, len[A_AJ] = nn, len[A_BJ] = nn, len[A_EXT] = g->ni;
}

#define NFORM 5  /* lapv, lapp, gfi, gfj, gft */
#define FLEN  15 /* the reals of a form: c (9), w (3), f (3), contiguous */
static void Forms(Airfoil af, AirfoilForm *f[NFORM])
{
  f[0] = af->lapv, f[1] = af->lapp, f[2] = af->gfi, f[3] = af->gfj, f[4] = af->gft;
}

/* n uniform numbers in [-1, 1), the same on every rank for the same seed. */
static PetscErrorCode Random(PetscInt seed, PetscInt n, PetscReal a[])
{
  PetscFunctionBeginUser;
  PetscCall(AdjTestUniformArray(seed, 101, n, a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The output bar m of cell (i, j): deterministic, the same on every rank count. */
static PetscReal Bar(PetscInt i, PetscInt j, PetscInt m)
{
  return PetscSinReal(1.3 + 3.1 * i + 1.7 * j + 2.9 * m);
}

/* ---- the kernels ---- */
typedef enum {
  K_WALL,
  K_GRAD,
  K_GRAD_ZERO,
  K_CONV,
  K_FORM,
  K_MOM1,
  K_MOM3,
  K_VISC,
  K_PRED,
  K_PRES,
  K_CORR,
  K_N
} Kernel;
static const char *const Names[K_N] = {"WallValue",
                                       "CellGradient (wall extrapolated)",
                                       "CellGradient (wall zero)",
                                       "Convection",
                                       "FormApplyForm",
                                       "MomentumRHS (Euler)",
                                       "MomentumRHS (AB2)",
                                       "ViscousSolve (K bar)",
                                       "PredictFluxes",
                                       "PressureSolve (P bar)",
                                       "Correct"};
/* the groups each kernel reads: [0] S, e and forms, [1] areas */
static const PetscBool Reads[K_N][2] = {{1, 0}, {1, 1}, {1, 1}, {0, 1}, {1, 0}, {1, 1},
                                        {1, 1}, {1, 1}, {1, 0}, {1, 0}, {1, 1}};
#define NOUT 6 /* outputs per cell at most (the correction: u, v, p, U, V, Vt) */

typedef struct {
  Airfoil         af;
  PetscInt        n;                  /* owned cells */
  Vec             X, Q[3], Xl, Ql[3]; /* random inputs: a state-like array and three cell fields; ghosted copies */
  Vec             Y, R[2], YB, RB[2]; /* outputs and their bars (owned) */
  PetscReal      *qw, *qd, *data;     /* wall and far-field data of the cell kernels; af's qf, pf, wf replaced */
  PetscReal      *saved[4];           /* af's own qf[0], qf[1], pf, wf */
  AirfoilGeometry base, d[2], geob;   /* the geometry, the perturbations of the two groups, the bars */
  AirfoilForm    *fbase[NFORM], *df[NFORM], *fb[NFORM];
  PetscReal      *out[3]; /* per owned cell NOUT outputs at t = -1, 0, 1 */
} Ctx;

/* af's geometry = base + t d[set]; the forms = base + t df (group 0 only). */
static void Perturb(Ctx *C, PetscReal t, PetscInt set)
{
  PetscReal   *b[NARR], *d[NARR], *g[NARR];
  PetscInt     len[NARR];
  AirfoilForm *f[NFORM];

  Arrays(&C->base, b, len), Arrays(&C->d[set], d, len), Arrays(&C->af->geo, g, len);
  for (PetscInt a = 0; a < NARR; a++)
    for (PetscInt k = 0; k < len[a]; k++) g[a][k] = b[a][k] + t * d[a][k];
  Forms(C->af, f);
  for (PetscInt s = 0; s < NFORM; s++)
    for (PetscInt k = 0; k < FLEN * C->n; k++)
      (&f[s][0].c[0][0])[k] = (&C->fbase[s][0].c[0][0])[k] + (set == 0 ? t : 0) * (&C->df[s][0].c[0][0])[k];
}

/* The outputs of kernel kk at af's current geometry and forms, per owned cell (out[NOUT c + m]). */
static PetscErrorCode Eval(Ctx *C, Kernel kk, PetscReal *out)
{
  Airfoil                af = C->af;
  const AirfoilGeometry *g  = &af->geo;
  const PetscInt         ni = g->ni;
  const AirfoilCell    **x;
  AirfoilCell          **y;
  PetscScalar          **q[3], **r[2];

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(out, NOUT * C->n));
  PetscCall(VecCopy(C->X, C->Y)); /* the correction's pass-through entries */
  for (PetscInt c = 0; c < 2; c++) PetscCall(VecSet(C->R[c], 0));
  PetscCall(DMDAVecGetArrayRead(af->sda, C->Xl, &x));
  for (PetscInt c = 0; c < 3; c++) PetscCall(DMDAVecGetArray(af->da, C->Ql[c], &q[c]));
  PetscCall(DMDAVecGetArray(af->sda, C->Y, &y));
  for (PetscInt c = 0; c < 2; c++) PetscCall(DMDAVecGetArray(af->da, C->R[c], &r[c]));
  if (kk == K_MOM1 || kk == K_MOM3) PetscCall(AirfoilMomentumRHS(af, kk == K_MOM1 ? 1 : 3, x, q, y, r[0], r[1]));
  if (kk == K_PRED) AirfoilPredictFluxes(af, x, q[2], q[0], q[1], y);
  if (kk == K_CORR) AirfoilCorrect(af, q[2], q[0], q[1], x, y);
  for (PetscInt j = af->ys; j < af->ys + af->ym; j++)
    for (PetscInt i = af->xs; i < af->xs + af->xm; i++) {
      const PetscInt c = (j - af->ys) * af->xm + (i - af->xs);
      PetscReal     *o = out + NOUT * c;

      switch (kk) {
      case K_WALL:
        if (j == 0) o[0] = AirfoilWallValue(g, i, q[0]);
        break;
      case K_GRAD:
      case K_GRAD_ZERO:
        AirfoilCellGradient(g, i, j, q[0], (PetscBool)(kk == K_GRAD_ZERO), C->qd[i], o);
        break;
      case K_CONV:
        o[0] = AirfoilConvection(g, af->wf, i, j, x, q[0], C->qw[i], C->qd[i]);
        break;
      case K_FORM:
        o[0] = AirfoilFormApply(&af->lapv[c], i, j, ni, q[0], C->qw, C->qd);
        break;
      case K_MOM1:
      case K_MOM3:
        o[0] = r[0][j][i], o[1] = r[1][j][i], o[2] = y[j][i].Nu, o[3] = y[j][i].Nv;
        break;
      case K_VISC: /* -(K u*)_c, K = A/dt - theta nu Lv (AirfoilAssemble) */
        o[0] = -(g->area[j * ni + i] * q[0][j][i] / af->dt -
                 af->theta * af->nu * AirfoilFormApply(&af->lapv[c], i, j, ni, q[0], NULL, NULL));
        break;
      case K_PRED:
        o[0] = y[j][i].U, o[1] = y[j][i].V, o[2] = y[j][i].Vt;
        break;
      case K_PRES: /* -(P phi)_c, P = -Lp */
        o[0] = AirfoilFormApply(&af->lapp[c], i, j, ni, q[2], NULL, NULL);
        break;
      default:
        o[0] = y[j][i].u, o[1] = y[j][i].v, o[2] = y[j][i].p, o[3] = y[j][i].U, o[4] = y[j][i].V, o[5] = y[j][i].Vt;
      }
    }
  for (PetscInt c = 0; c < 2; c++) PetscCall(DMDAVecRestoreArray(af->da, C->R[c], &r[c]));
  PetscCall(DMDAVecRestoreArray(af->sda, C->Y, &y));
  for (PetscInt c = 0; c < 3; c++) PetscCall(DMDAVecRestoreArray(af->da, C->Ql[c], &q[c]));
  PetscCall(DMDAVecRestoreArrayRead(af->sda, C->Xl, &x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The geometry and form bars of kernel kk at the base geometry for the output bars Bar (into C->geob, C->fb). */
static PetscErrorCode Adjoint(Ctx *C, Kernel kk)
{
  Airfoil                af = C->af;
  const AirfoilGeometry *g  = &af->geo;
  const AirfoilCell    **x;
  AirfoilCell          **yb;
  PetscScalar          **q[3], **rb[2];
  AirfoilGeometry       *gb = &C->geob;

  PetscFunctionBeginUser;
  PetscCall(AirfoilGeometryBarZero(gb));
  for (PetscInt s = 0; s < NFORM; s++) PetscCall(PetscArrayzero(C->fb[s], C->n));
  PetscCall(VecSet(C->YB, 0));
  PetscCall(DMDAVecGetArrayRead(af->sda, C->Xl, &x));
  for (PetscInt c = 0; c < 3; c++) PetscCall(DMDAVecGetArray(af->da, C->Ql[c], &q[c]));
  PetscCall(DMDAVecGetArray(af->sda, C->YB, &yb));
  for (PetscInt c = 0; c < 2; c++) PetscCall(DMDAVecGetArray(af->da, C->RB[c], &rb[c]));
  for (PetscInt j = af->ys; j < af->ys + af->ym; j++) /* the output bars in the kernels' arrays */
    for (PetscInt i = af->xs; i < af->xs + af->xm; i++) {
      AirfoilCell *b = &yb[j][i];
      rb[0][j][i] = Bar(i, j, 0), rb[1][j][i] = Bar(i, j, 1);
      if (kk == K_MOM1 || kk == K_MOM3) b->Nu = Bar(i, j, 2), b->Nv = Bar(i, j, 3);
      if (kk == K_PRED) b->U = Bar(i, j, 0), b->V = Bar(i, j, 1), b->Vt = Bar(i, j, 2);
      if (kk == K_CORR) {
        b->u = Bar(i, j, 0), b->v = Bar(i, j, 1), b->p = Bar(i, j, 2);
        b->U = Bar(i, j, 3), b->V = Bar(i, j, 4), b->Vt = Bar(i, j, 5);
      }
    }
  switch (kk) {
  case K_MOM1:
  case K_MOM3:
    AirfoilMomentumRHSGeometryAdjoint(af, kk == K_MOM1 ? 1 : 3, x, q, rb[0], rb[1], (const AirfoilCell *const *)yb, gb,
                                      C->fb[0]);
    break;
  case K_VISC:
    AirfoilViscousSolveGeometryAdjoint(af, q[0], rb[0], gb, C->fb[0]);
    break;
  case K_PRED:
    AirfoilPredictFluxesGeometryAdjoint(af, (const AirfoilCell *const *)yb, x, q[2], q[0], q[1], gb, C->fb[2],
                                        C->fb[3]);
    break;
  case K_PRES:
    AirfoilPressureSolveGeometryAdjoint(af, rb[0], q[2], C->fb[1]);
    break;
  case K_CORR:
    AirfoilCorrectGeometryAdjoint(af, (const AirfoilCell *const *)yb, q[2], gb, C->fb[2], C->fb[3], C->fb[4]);
    break;
  default: /* the cell kernels of operators.c, cell by cell */
    for (PetscInt j = af->ys; j < af->ys + af->ym; j++)
      for (PetscInt i = af->xs; i < af->xs + af->xm; i++) {
        const PetscInt  c     = (j - af->ys) * af->xm + (i - af->xs);
        const PetscReal b0    = Bar(i, j, 0);
        const PetscReal gr[2] = {b0, Bar(i, j, 1)};
        if (kk == K_WALL && j == 0) AirfoilWallValueGeometryAdjoint(g, i, q[0], b0, gb);
        if (kk == K_GRAD || kk == K_GRAD_ZERO)
          AirfoilCellGradientGeometryAdjoint(g, i, j, q[0], (PetscBool)(kk == K_GRAD_ZERO), C->qd[i], gr, gb);
        if (kk == K_CONV) AirfoilConvectionGeometryAdjoint(g, af->wf, i, j, x, q[0], C->qw[i], C->qd[i], b0, gb);
        if (kk == K_FORM) AirfoilFormApplyFormAdjoint(i, j, g->ni, g->nc, b0, q[0], C->qw, C->qd, &C->fb[0][c]);
      }
  }
  for (PetscInt c = 0; c < 2; c++) PetscCall(DMDAVecRestoreArray(af->da, C->RB[c], &rb[c]));
  PetscCall(DMDAVecRestoreArray(af->sda, C->YB, &yb));
  for (PetscInt c = 0; c < 3; c++) PetscCall(DMDAVecRestoreArray(af->da, C->Ql[c], &q[c]));
  PetscCall(DMDAVecRestoreArrayRead(af->sda, C->Xl, &x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* <d[set], bars> summed over ranks: the areas for set 1, every other array and the form bars for set 0. */
static PetscErrorCode BarDot(Ctx *C, PetscInt set, PetscReal *rhs)
{
  PetscReal *d[NARR], *b[NARR];
  PetscInt   len[NARR];

  PetscFunctionBeginUser;
  Arrays(&C->d[set], d, len), Arrays(&C->geob, b, len);
  *rhs = 0;
  for (PetscInt a = 0; a < NARR; a++)
    if ((a == A_AREA) == (set == 1)) *rhs += AdjTestArrayDot(len[a], d[a], b[a]);
  if (set == 0)
    for (PetscInt s = 0; s < NFORM; s++)
      *rhs += AdjTestArrayDot(FLEN * C->n, &C->df[s][0].c[0][0], &C->fb[s][0].c[0][0]);
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, rhs, 1, MPIU_REAL, MPIU_SUM, C->af->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One kernel, one group: the exact tangent from the forward kernel (see the head of the file) against the bars. */
static PetscErrorCode DotKernel(Ctx *C, Kernel kk, PetscInt set, PetscInt *fail)
{
  Airfoil         af     = C->af;
  const PetscReal ts[3]  = {-1, 0, 1};
  PetscReal       loc[2] = {0, 0}, rhs;
  char            label[128];

  PetscFunctionBeginUser;
  for (PetscInt s = 0; s < 3; s++) {
    if (set == 0 && s == 1) continue; /* the central difference needs no midpoint */
    Perturb(C, ts[s], set);
    PetscCall(Eval(C, kk, C->out[s]));
  }
  Perturb(C, 0, set);
  for (PetscInt j = af->ys; j < af->ys + af->ym; j++)
    for (PetscInt i = af->xs; i < af->xs + af->xm; i++) {
      const PetscInt  c = (j - af->ys) * af->xm + (i - af->xs), f = j * af->geo.ni + i;
      const PetscReal A = C->base.area[f], h = C->d[1].area[f];
      for (PetscInt m = 0; m < NOUT; m++) {
        const PetscReal fm = C->out[0][NOUT * c + m], fp = C->out[2][NOUT * c + m];
        const PetscReal t = 0.5 * (fp - fm) + (set == 1 ? h * (fp + fm - 2 * C->out[1][NOUT * c + m]) / (2 * A) : 0);
        loc[0] += Bar(i, j, m) * t, loc[1] += PetscAbsReal(Bar(i, j, m) * t);
      }
    }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, loc, 2, MPIU_REAL, MPIU_SUM, af->comm));
  PetscCall(Adjoint(C, kk));
  PetscCall(BarDot(C, set, &rhs));
  PetscCall(PetscSNPrintf(label, sizeof(label), "%s in %s", Names[kk], set == 0 ? "S, e, forms" : "area"));
  if (Reads[kk][set])
    PetscCall(AdjTestReportScaled(label, loc[0], rhs, loc[1], tol, fail));
  else {
    const PetscBool ok = (PetscBool)(loc[0] == 0 && loc[1] == 0 && rhs == 0);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "%-40s not an input: tangent %.1e, bars %.1e (both must be exactly 0)  %s\n", label,
                          (double)loc[1], (double)rhs, ok ? "ok" : "FAIL"));
    if (!ok) (*fail)++;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The forward of the two solves' operator bars (Eval's K_VISC, K_PRES) against the assembled K and P: K u* and P phi
 * applied from the stencils equal MatMult to round-off. */
static PetscErrorCode CheckOperators(Ctx *C, PetscInt *fail)
{
  Airfoil                af = C->af;
  const AirfoilGeometry *g  = &af->geo;
  Vec                    ku, pp;
  PetscScalar          **k, **p, **q[3];
  PetscReal              gap = 0, big = 0;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(C->Q[0], &ku));
  PetscCall(VecDuplicate(C->Q[0], &pp));
  PetscCall(MatMult(af->K, C->Q[0], ku));
  PetscCall(MatMult(af->P, C->Q[2], pp));
  PetscCall(DMDAVecGetArray(af->da, ku, &k));
  PetscCall(DMDAVecGetArray(af->da, pp, &p));
  for (PetscInt c = 0; c < 3; c++) PetscCall(DMDAVecGetArray(af->da, C->Ql[c], &q[c]));
  for (PetscInt j = af->ys; j < af->ys + af->ym; j++)
    for (PetscInt i = af->xs; i < af->xs + af->xm; i++) {
      const PetscInt  c  = (j - af->ys) * af->xm + (i - af->xs);
      const PetscReal kh = g->area[j * g->ni + i] * q[0][j][i] / af->dt -
                           af->theta * af->nu * AirfoilFormApply(&af->lapv[c], i, j, g->ni, q[0], NULL, NULL);
      const PetscReal ph = -AirfoilFormApply(&af->lapp[c], i, j, g->ni, q[2], NULL, NULL);
      gap                = AdjTestMax(gap, AdjTestMax(PetscAbsReal(kh - k[j][i]), PetscAbsReal(ph - p[j][i])));
      big                = AdjTestMax(big, AdjTestMax(PetscAbsReal(k[j][i]), PetscAbsReal(p[j][i])));
    }
  for (PetscInt c = 0; c < 3; c++) PetscCall(DMDAVecRestoreArray(af->da, C->Ql[c], &q[c]));
  PetscCall(DMDAVecRestoreArray(af->da, pp, &p));
  PetscCall(DMDAVecRestoreArray(af->da, ku, &k));
  PetscCall(AdjTestGlobalMax(af->comm, gap, &gap));
  PetscCall(AdjTestGlobalMax(af->comm, big, &big));
  gap = AdjTestRelative(gap, big);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-40s K u*, P phi from the stencils vs MatMult: %.1e (tol 1e-13)  %s\n",
                        "operators", (double)gap, gap <= 1e-13 ? "ok" : "FAIL"));
  if (!(gap <= 1e-13)) (*fail)++;
  PetscCall(VecDestroy(&ku));
  PetscCall(VecDestroy(&pp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* <d, bars> over every array (rank shares summed). */
static PetscErrorCode AllBarDot(Ctx *C, const AirfoilGeometry *d, PetscReal *rhs)
{
  PetscReal *a[NARR], *b[NARR];
  PetscInt   len[NARR];

  PetscFunctionBeginUser;
  Arrays(d, a, len), Arrays(&C->geob, b, len);
  *rhs = 0;
  for (PetscInt k = 0; k < NARR; k++) *rhs += AdjTestArrayDot(len[k], a[k], b[k]);
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, rhs, 1, MPIU_REAL, MPIU_SUM, C->af->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The force coefficients cb . C(x) of the random state X in every geometric array at once (d[0] + d[1]): the
 * five-point difference with unit step (exact for the cubic, see the head of the file). */
static PetscErrorCode DotForces(Ctx *C, PetscInt *fail)
{
  const PetscReal cb[3] = {0.7, -1.3, 2.1}, ts[4] = {-2, -1, 1, 2}, w[4] = {1. / 12, -8. / 12, 8. / 12, -1. / 12};
  PetscReal       T[3] = {0, 0, 0}, lhs = 0, scale = 0, rhs, *b[NARR], *d0[NARR], *d1[NARR], *g[NARR];
  PetscInt        len[NARR];
  AirfoilGeometry dd;

  PetscFunctionBeginUser;
  PetscCall(AirfoilGeometryBarCreate(&C->base, &dd));
  Arrays(&C->base, b, len), Arrays(&C->d[0], d0, len), Arrays(&C->d[1], d1, len), Arrays(&C->af->geo, g, len);
  for (PetscInt s = 0; s < 4; s++) {
    PetscReal coef[3];
    for (PetscInt a = 0; a < NARR; a++)
      for (PetscInt k = 0; k < len[a]; k++) g[a][k] = b[a][k] + ts[s] * (d0[a][k] + d1[a][k]);
    PetscCall(AirfoilForces(C->af, C->X, coef));
    for (PetscInt c = 0; c < 3; c++) T[c] += w[s] * coef[c];
  }
  Perturb(C, 0, 0);
  for (PetscInt c = 0; c < 3; c++) lhs += cb[c] * T[c], scale += PetscAbsReal(cb[c] * T[c]);
  {
    PetscReal *a[NARR];
    Arrays(&dd, a, len);
    for (PetscInt k = 0; k < NARR; k++)
      for (PetscInt n = 0; n < len[k]; n++) a[k][n] = d0[k][n] + d1[k][n];
  }
  PetscCall(AirfoilGeometryBarZero(&C->geob));
  PetscCall(AirfoilForcesGeometryAdjoint(C->af, C->X, cb, &C->geob));
  PetscCall(AllBarDot(C, &dd, &rhs));
  PetscCall(AdjTestReportScaled("Forces in every array", lhs, rhs, scale, tol, fail));
  PetscCall(AirfoilGeometryDestroy(&dd));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The far-field weights wf(S_far) for random bars wfb: the tangent of wf = (1 - tanh(c / w)) / 2, c = S . e / |S|,
 * written from the formula (dc = e . dS / |S| - c S . dS / |S|^2, dwf = -(1 - tanh^2) dc / (2 w)), checked against
 * central differences (h = 1e-6: 1e-6 relative), then the dot test against AirfoilFarWeightsGeometryAdjoint (its bars
 * on rank 0 only, the share convention). Leaves af->wf as it found it (the weights of the base geometry). */
static PetscErrorCode DotFarWeights(Ctx *C, PetscInt *fail)
{
  Airfoil          af = C->af;
  const PetscInt   ni = af->geo.ni, f0 = 2 * af->geo.nc * ni;
  const PetscReal  sp = PetscHypotReal(af->uinf[0], af->uinf[1]), e[2] = {af->uinf[0] / sp, af->uinf[1] / sp};
  const PetscReal  h = 1e-6, wd = af->switch_width;
  const PetscReal *S = C->base.sj + f0, *dS = C->d[0].sj + f0;
  PetscReal       *wfb, *dwf, *wp, lhs = 0, scale = 0, rhs, gap = 0, big = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc3(ni, &wfb, ni, &dwf, ni, &wp));
  PetscCall(Random(77, ni, wfb));
  for (PetscInt i = 0; i < ni; i++) {
    const PetscReal *s = S + 2 * i, *ds = dS + 2 * i, len = PetscHypotReal(s[0], s[1]);
    const PetscReal  c = (s[0] * e[0] + s[1] * e[1]) / len, th = PetscTanhReal(c / wd);
    const PetscReal  dc = (ds[0] * e[0] + ds[1] * e[1]) / len - c * (s[0] * ds[0] + s[1] * ds[1]) / (len * len);
    dwf[i]              = -0.5 * (1 - th * th) / wd * dc;
    lhs += wfb[i] * dwf[i], scale += PetscAbsReal(wfb[i] * dwf[i]);
  }
  for (PetscInt sg = 1; sg >= -1; sg -= 2) { /* the hand tangent against differences */
    for (PetscInt k = 0; k < 2 * ni; k++) af->geo.sj[f0 + k] = S[k] + sg * h * dS[k];
    PetscCall(AirfoilFarWeightsSet(af));
    for (PetscInt i = 0; i < ni; i++) wp[i] = sg > 0 ? af->wf[i] : (wp[i] - af->wf[i]) / (2 * h);
  }
  for (PetscInt k = 0; k < 2 * ni; k++) af->geo.sj[f0 + k] = S[k];
  PetscCall(AirfoilFarWeightsSet(af));
  for (PetscInt i = 0; i < ni; i++)
    gap = AdjTestMax(gap, PetscAbsReal(wp[i] - dwf[i])), big = AdjTestMax(big, PetscAbsReal(dwf[i]));
  gap = AdjTestRelative(gap, big);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-40s hand tangent vs central differences: %.1e (tol 1e-6)  %s\n",
                        "FarWeights", (double)gap, gap <= 1e-6 ? "ok" : "FAIL"));
  if (!(gap <= 1e-6)) (*fail)++;
  PetscCall(AirfoilGeometryBarZero(&C->geob));
  PetscCall(AirfoilFarWeightsGeometryAdjoint(af, wfb, &C->geob));
  PetscCall(AllBarDot(C, &C->d[0], &rhs));
  PetscCall(AdjTestReportScaled("FarWeights in S (far field)", lhs, rhs, scale, tol, fail));
  PetscCall(PetscFree3(wfb, dwf, wp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- set-up ---- */
static PetscErrorCode CtxCreate(Airfoil af, Ctx *C)
{
  const PetscInt ni = af->geo.ni, n = af->xm * af->ym;
  PetscReal     *b[NARR], *d[NARR], *df;
  PetscInt       len[NARR];
  AirfoilForm   *f[NFORM];
  PetscMPIInt    rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(af->comm, &rank));
  C->af = af, C->n = n;
  PetscCall(DMCreateGlobalVector(af->sda, &C->X));
  PetscCall(VecDuplicate(C->X, &C->Y));
  PetscCall(VecDuplicate(C->X, &C->YB));
  PetscCall(DMCreateLocalVector(af->sda, &C->Xl));
  PetscCall(AdjTestRandom(C->X, 61));
  PetscCall(VecSet(C->Xl, 0)); /* rows outside the grid: zero */
  PetscCall(DMGlobalToLocal(af->sda, C->X, INSERT_VALUES, C->Xl));
  for (PetscInt c = 0; c < 3; c++) {
    PetscCall(DMCreateGlobalVector(af->da, &C->Q[c]));
    PetscCall(DMCreateLocalVector(af->da, &C->Ql[c]));
    PetscCall(AdjTestRandom(C->Q[c], 62 + c));
    PetscCall(VecSet(C->Ql[c], 0));
    PetscCall(DMGlobalToLocal(af->da, C->Q[c], INSERT_VALUES, C->Ql[c]));
  }
  for (PetscInt c = 0; c < 2; c++) {
    PetscCall(DMCreateGlobalVector(af->da, &C->R[c]));
    PetscCall(VecDuplicate(C->R[c], &C->RB[c]));
  }
  /* data: wall and far-field values of the cell kernels; af's far-field data and weights (in (0.05, 0.95)) */
  PetscCall(PetscMalloc3(ni, &C->qw, ni, &C->qd, 4 * ni, &C->data));
  PetscCall(Random(70, ni, C->qw));
  PetscCall(Random(71, ni, C->qd));
  PetscCall(Random(72, 4 * ni, C->data));
  for (PetscInt i = 0; i < ni; i++) C->data[3 * ni + i] = 0.5 + 0.45 * C->data[3 * ni + i];
  /* the base geometry and the perturbations: group 0 every array but the areas, group 1 the areas */
  PetscCall(AirfoilGeometryBarCreate(&af->geo, &C->base));
  PetscCall(AirfoilGeometryBarCreate(&af->geo, &C->d[0]));
  PetscCall(AirfoilGeometryBarCreate(&af->geo, &C->d[1]));
  PetscCall(AirfoilGeometryBarCreate(&af->geo, &C->geob));
  Arrays(&af->geo, d, len), Arrays(&C->base, b, len);
  for (PetscInt a = 0; a < NARR; a++) PetscCall(PetscArraycpy(b[a], d[a], len[a]));
  for (PetscInt s = 0; s < 2; s++) {
    Arrays(&C->d[s], d, len);
    for (PetscInt a = 0; a < NARR; a++) {
      if ((a == A_AREA) != (s == 1)) continue;
      PetscCall(Random(80 + a, len[a], d[a]));
      for (PetscInt k = 0; k < len[a]; k++) d[a][k] *= 0.5 * (PetscAbsReal(b[a][k]) + (a == A_AREA ? 0 : 1e-3));
    }
  }
  /* the forms: copies, random perturbations (the stencil's cells inside the grid, every data coefficient), bars */
  Forms(af, f);
  PetscCall(PetscMalloc1(FLEN * n * NFORM, &df));
  PetscCall(Random(1000 + rank, FLEN * n * NFORM, df));
  for (PetscInt s = 0; s < NFORM; s++) {
    PetscCall(PetscMalloc1(n, &C->fbase[s]));
    PetscCall(PetscMalloc1(n, &C->df[s]));
    PetscCall(PetscCalloc1(n, &C->fb[s]));
    PetscCall(PetscArraycpy(C->fbase[s], f[s], n));
    PetscCall(PetscArraycpy(&C->df[s][0].c[0][0], df + FLEN * n * s, FLEN * n));
    for (PetscInt j = af->ys; j < af->ys + af->ym; j++)
      for (PetscInt i = af->xs; i < af->xs + af->xm; i++) {
        const PetscInt c = (j - af->ys) * af->xm + (i - af->xs);
        PetscReal     *x = &C->fbase[s][c].c[0][0], *dx = &C->df[s][c].c[0][0], m = 0;
        for (PetscInt k = 0; k < FLEN; k++) m = PetscMax(m, PetscAbsReal(x[k]));
        for (PetscInt k = 0; k < FLEN; k++) dx[k] *= 2 * (PetscAbsReal(x[k]) + 0.1 * m + 1e-3);
        for (PetscInt r = 0; r < 3; r++)
          if (j + r - 1 < 0 || j + r - 1 >= af->geo.nc)
            for (PetscInt a = 0; a < 3; a++) C->df[s][c].c[r][a] = 0;
      }
  }
  PetscCall(PetscFree(df));
  for (PetscInt s = 0; s < 3; s++) PetscCall(PetscMalloc1(NOUT * n, &C->out[s]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* af's far-field data and weights <-> the random ones (swapped in for the cell and step kernels, back at the end). */
static void SwapData(Ctx *C, PetscBool in)
{
  Airfoil        af = C->af;
  const PetscInt ni = af->geo.ni;

  if (in) {
    C->saved[0] = af->qf[0], C->saved[1] = af->qf[1], C->saved[2] = af->pf, C->saved[3] = af->wf;
    af->qf[0] = C->data, af->qf[1] = C->data + ni, af->pf = C->data + 2 * ni, af->wf = C->data + 3 * ni;
  } else
    af->qf[0] = C->saved[0], af->qf[1] = C->saved[1], af->pf = C->saved[2], af->wf = C->saved[3];
}

static PetscErrorCode CtxDestroy(Ctx *C)
{
  PetscFunctionBeginUser;
  PetscCall(VecDestroy(&C->X));
  PetscCall(VecDestroy(&C->Y));
  PetscCall(VecDestroy(&C->YB));
  PetscCall(VecDestroy(&C->Xl));
  for (PetscInt c = 0; c < 3; c++) PetscCall(VecDestroy(&C->Q[c]));
  for (PetscInt c = 0; c < 3; c++) PetscCall(VecDestroy(&C->Ql[c]));
  for (PetscInt c = 0; c < 2; c++) PetscCall(VecDestroy(&C->R[c]));
  for (PetscInt c = 0; c < 2; c++) PetscCall(VecDestroy(&C->RB[c]));
  PetscCall(PetscFree3(C->qw, C->qd, C->data));
  PetscCall(AirfoilGeometryDestroy(&C->base));
  PetscCall(AirfoilGeometryDestroy(&C->d[0]));
  PetscCall(AirfoilGeometryDestroy(&C->d[1]));
  PetscCall(AirfoilGeometryDestroy(&C->geob));
  for (PetscInt s = 0; s < NFORM; s++) {
    PetscCall(PetscFree(C->fbase[s]));
    PetscCall(PetscFree(C->df[s]));
    PetscCall(PetscFree(C->fb[s]));
  }
  for (PetscInt s = 0; s < 3; s++) PetscCall(PetscFree(C->out[s]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  AdjStepper st;
  Ctx        C;
  PetscInt   fail = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(AdjStepperRegisterAll());
  PetscCall(AdjTestStepperCreate(PETSC_COMM_WORLD, "airfoil", Base, NULL, &st));
  PetscCall(AdjStepperGetContext(st, &C.af));
  PetscCall(CtxCreate(C.af, &C));
  PetscCall(CheckOperators(&C, &fail));
  PetscCall(DotFarWeights(&C, &fail));
  PetscCall(DotForces(&C, &fail));
  SwapData(&C, PETSC_TRUE);
  for (Kernel kk = K_WALL; kk < K_N; kk++)
    for (PetscInt set = 0; set < 2; set++) PetscCall(DotKernel(&C, kk, set, &fail));
  SwapData(&C, PETSC_FALSE);
  PetscCall(CtxDestroy(&C));
  PetscCall(AdjStepperDestroy(&st));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " failure(s)\n", fail ? "FAIL" : "PASS", fail));
  PetscCall(PetscFinalize());
  return fail ? 1 : 0;
}
