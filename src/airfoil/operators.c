/* Cell kernels of the airfoil solver on ghosted arrays (notation: airfoilimpl.h): boundary values, the
 * Green-Gauss cell gradient and the convection term.  Pure functions of the geometry and the arrays. */
#include "airfoilimpl.h"

/*@ AirfoilWallValue - q at the wall face of column i, extrapolated linearly along the first two cell
    centroids: q_w = (1 + e_i) q(i, 0) - e_i q(i, 1). Not collective. @*/
PetscReal AirfoilWallValue(const AirfoilGeometry *g, PetscInt i, PetscScalar **q)
{
  const PetscReal e = g->ext[(i + g->ni) % g->ni];

  return (1 + e) * q[0][i] - e * q[1][i];
}

/*@ AirfoilFarValue - q at the far-field face of column i: wf_i qinf + (1 - wf_i) q(i, nc - 1) (Dirichlet on
    inflow, zero gradient on outflow, smoothly switched). Not collective. @*/
PetscReal AirfoilFarValue(const AirfoilGeometry *g, const PetscReal wf[], PetscInt i, PetscReal qinf, PetscScalar **q)
{
  const PetscReal w = wf[(i + g->ni) % g->ni];

  return w * qinf + (1 - w) * q[g->nc - 1][i];
}

/*@ AirfoilCellGradient - Green-Gauss gradient of q in cell (i, j): (1/A) sum over the faces of q_f S_out, q_f
    the mean of the two cells, at the wall 0 (wall_zero) or the extrapolated value, at the far field qff. Not
   collective. @*/
void AirfoilCellGradient(const AirfoilGeometry *g, PetscInt i, PetscInt j, PetscScalar **q, PetscBool wall_zero,
                         PetscReal qff, PetscReal grad[2])
{
  const PetscInt   ni = g->ni, iw = (i + ni) % ni, ip = (i + 1 + ni) % ni, c = j * ni + iw;
  const PetscReal *sl = g->si + 2 * c, *sr = g->si + 2 * (j * ni + ip), *sb = g->sj + 2 * c, *st = g->sj + 2 * (c + ni);
  const PetscReal  ql = 0.5 * (q[j][i - 1] + q[j][i]), qr = 0.5 * (q[j][i] + q[j][i + 1]);
  const PetscReal  qb = j == 0 ? (wall_zero ? 0 : AirfoilWallValue(g, i, q)) : 0.5 * (q[j - 1][i] + q[j][i]);
  const PetscReal  qt = j == g->nc - 1 ? qff : 0.5 * (q[j][i] + q[j + 1][i]);

  for (PetscInt d = 0; d < 2; d++) grad[d] = (qr * sr[d] - ql * sl[d] + qt * st[d] - qb * sb[d]) / g->area[c];
}

/*@ AirfoilConvection - (1/A) sum over the faces of F_f q_f (outward volume fluxes F from the state x, q_f the
    central mean, qw at the wall, the far-field value with qinf at the far field): div(u q) in cell (i, j).
    Not collective. @*/
PetscReal AirfoilConvection(const AirfoilGeometry *g, const PetscReal wf[], PetscInt i, PetscInt j,
                            const AirfoilCell *const *x, PetscScalar **q, PetscReal qw, PetscReal qinf)
{
  const PetscInt  ni = g->ni, c = j * ni + (i + ni) % ni;
  const PetscReal Ut = j == g->nc - 1 ? x[j][i].Vt : x[j + 1][i].V;
  const PetscReal qt = j == g->nc - 1 ? AirfoilFarValue(g, wf, i, qinf, q) : 0.5 * (q[j][i] + q[j + 1][i]);
  const PetscReal qb = j == 0 ? qw : 0.5 * (q[j - 1][i] + q[j][i]);

  return (x[j][i + 1].U * 0.5 * (q[j][i] + q[j][i + 1]) - x[j][i].U * 0.5 * (q[j][i - 1] + q[j][i]) + Ut * qt -
          x[j][i].V * qb) /
         g->area[c];
}

/* The fourth-difference dissipation of the convection (docs/airfoil.md, "Dissipation").  Central face values
 * F (q_L + q_R)/2 do not see a two-cell wave q = (-1)^(i+j): on the outer grid, where a cell is a chord wide and
 * the cell Reynolds number is in the thousands, nothing but the weak viscosity damps it, and the march never
 * settles.  Each interior face gets the flux k4 s(F) (D2_R - D2_L), D2 the index-space second difference of the
 * two cells beside it and s(F) = |F| where the face's cell Reynolds number is large: the symmetric (dissipative)
 * part of QUICK's upwind-biased face value when k4 = 1/16, a term like h^3 |u| d4q/dx4, third order on smooth
 * fields (the scheme stays second order), while the two-cell wave gets 8 k4 |F| (full upwinding's damping when
 * k4 = 1/8).  Along j the faces next to a boundary row carry none (the second difference extrapolated constantly
 * into the boundary rows: a third difference of zero; a zero second difference there instead would leave an
 * O(h^2 q'') flux, first order in the residual), nor do the wall and far-field faces, so the term is
 * conservative and needs two ghost cells.  The face weight is
 *
 *   s(F) = |F| for |F| >= c,   c g(F / c) with g(t) = (3 t^2 - t^4) / 2 below,   c = Pe_0 nu   (diss[1] = 1 / c):
 *
 * F / nu is the face's cell Reynolds (Peclet) number, and where it is small the viscous terms damp a two-cell wave
 * themselves (at 4 nu / h^2 per direction against the dissipation's 16 k4 |u| / h: equal at |u| h / nu = 4 for
 * k4 = 1/16), so the term fades out there (s = 1.5 F^2 / c near 0) and the resolved flow of low-Reynolds cases
 * keeps the central scheme.  g(1) = 1 and g'(1) = 1: s is continuously differentiable with a Lipschitz derivative
 * (Taylor remainders fall at rate 2) and smooth where F changes sign, and it is a polynomial in F and in 1 / c on
 * each side of |F| = c, so the kernels' dot tests are exact.  The gradient is that of this switched scheme,
 * including the switch's dependence on nu (the Reynolds number's gradient). */

/* s(F) for the inverse width w = 1 / c, and its derivatives in F and in w. */
static inline PetscReal AirfoilDissipationWeight(PetscReal F, PetscReal w)
{
  const PetscReal t = F * w;

  return PetscAbsReal(t) >= 1 ? PetscAbsReal(F) : F * t * (1.5 - 0.5 * t * t);
}

static inline PetscReal AirfoilDissipationWeightDF(PetscReal F, PetscReal w)
{
  const PetscReal t = F * w;

  return PetscAbsReal(t) >= 1 ? (F > 0 ? 1 : -1) : t * (3 - 2 * t * t);
}

static inline PetscReal AirfoilDissipationWeightDW(PetscReal F, PetscReal w)
{
  const PetscReal t = F * w;

  return PetscAbsReal(t) >= 1 ? 0 : 1.5 * F * F * (1 - t * t);
}

/* The second differences along i of row j at cell m and along j of column i at row m. */
static inline PetscReal AirfoilD2I(PetscScalar **q, PetscInt j, PetscInt m)
{
  return q[j][m + 1] - 2 * q[j][m] + q[j][m - 1];
}

static inline PetscReal AirfoilD2J(PetscScalar **q, PetscInt m, PetscInt i)
{
  return q[m + 1][i] - 2 * q[m][i] + q[m - 1][i];
}

/* The dissipative fluxes of the i-face (i, j) (between cells i - 1 and i) and of the j-face (i, j) (between rows
 * j - 1 and j; only for 2 <= j <= nc - 2: none on the faces of the first and last rows). */
static inline PetscReal AirfoilDissipationFluxI(const PetscReal diss[2], PetscInt i, PetscInt j,
                                                const AirfoilCell *const *x, PetscScalar **q)
{
  return diss[0] * AirfoilDissipationWeight(x[j][i].U, diss[1]) * (AirfoilD2I(q, j, i) - AirfoilD2I(q, j, i - 1));
}

static inline PetscReal AirfoilDissipationFluxJ(PetscInt nc, const PetscReal diss[2], PetscInt i, PetscInt j,
                                                const AirfoilCell *const *x, PetscScalar **q)
{
  if (j < 2 || j > nc - 2) return 0;
  return diss[0] * AirfoilDissipationWeight(x[j][i].V, diss[1]) * (AirfoilD2J(q, j, i) - AirfoilD2J(q, j - 1, i));
}

/*@ AirfoilDissipation - the fourth-difference dissipation of q in cell (i, j), per unit area, to be added to the
    convection (diss = {k4, delta}; zero when k4 = 0). Reads two ghost cells of q. Not collective. @*/
PetscReal AirfoilDissipation(const AirfoilGeometry *g, const PetscReal diss[2], PetscInt i, PetscInt j,
                             const AirfoilCell *const *x, PetscScalar **q)
{
  const PetscInt nc = g->nc;

  if (diss[0] == 0) return 0;
  return (AirfoilDissipationFluxI(diss, i + 1, j, x, q) - AirfoilDissipationFluxI(diss, i, j, x, q) +
          AirfoilDissipationFluxJ(nc, diss, i, j + 1, x, q) - AirfoilDissipationFluxJ(nc, diss, i, j, x, q)) /
         g->area[j * g->ni + (i + g->ni) % g->ni];
}

/* Adjoints of the kernels above: each adds the transpose of the kernel's derivative, applied to the bar of its
 * result, to the bars of its inputs (ghosted arrays qb, like q; NULL bars are not wanted).  The kernels are
 * linear in q and in the boundary data, bilinear in (fluxes, q) for the convection, and affine in the far-field
 * weight wf, so the bars below are exact. */

/*@ AirfoilWallValueAdjoint - qb += d(q_w)/dq^T bar. Not collective. @*/
void AirfoilWallValueAdjoint(const AirfoilGeometry *g, PetscInt i, PetscReal bar, PetscScalar **qb)
{
  const PetscReal e = g->ext[(i + g->ni) % g->ni];

  qb[0][i] += (1 + e) * bar, qb[1][i] -= e * bar;
}

/*@ AirfoilFarValueAdjoint - the bars of AirfoilFarValue: qb (cell nc - 1), *qinfb, wfb[i] (each may be NULL).
    Not collective. @*/
void AirfoilFarValueAdjoint(const AirfoilGeometry *g, const PetscReal wf[], PetscInt i, PetscReal qinf, PetscScalar **q,
                            PetscReal bar, PetscScalar **qb, PetscReal *qinfb, PetscReal wfb[])
{
  const PetscInt  iw = (i + g->ni) % g->ni;
  const PetscReal w  = wf[iw];

  if (qb) qb[g->nc - 1][i] += (1 - w) * bar;
  if (qinfb) *qinfb += w * bar;
  if (wfb) wfb[iw] += (qinf - q[g->nc - 1][i]) * bar;
}

/*@ AirfoilCellGradientAdjoint - the bars of AirfoilCellGradient for the gradient bar gb: qb and *qffb (may be
    NULL). Not collective. @*/
void AirfoilCellGradientAdjoint(const AirfoilGeometry *g, PetscInt i, PetscInt j, PetscBool wall_zero,
                                const PetscReal gb[2], PetscScalar **qb, PetscReal *qffb)
{
  const PetscInt   ni = g->ni, iw = (i + ni) % ni, ip = (i + 1 + ni) % ni, c = j * ni + iw;
  const PetscReal *sl = g->si + 2 * c, *sr = g->si + 2 * (j * ni + ip), *sb = g->sj + 2 * c, *st = g->sj + 2 * (c + ni);
  PetscReal        qlb = 0, qrb = 0, qbb = 0, qtb = 0;

  for (PetscInt d = 0; d < 2; d++) {
    const PetscReal a = gb[d] / g->area[c];
    qrb += a * sr[d], qlb -= a * sl[d], qtb += a * st[d], qbb -= a * sb[d];
  }
  qb[j][i - 1] += 0.5 * qlb, qb[j][i] += 0.5 * (qlb + qrb), qb[j][i + 1] += 0.5 * qrb;
  if (j == 0) {
    if (!wall_zero) AirfoilWallValueAdjoint(g, i, qbb, qb);
  } else
    qb[j - 1][i] += 0.5 * qbb, qb[j][i] += 0.5 * qbb;
  if (j == g->nc - 1) {
    if (qffb) *qffb += qtb;
  } else
    qb[j][i] += 0.5 * qtb, qb[j + 1][i] += 0.5 * qtb;
}

/*@ AirfoilConvectionAdjoint - the bars of AirfoilConvection for the result bar Nb: the fluxes xb (U, V, Vt of a
    ghosted state-bar array), qb, *qwb, *qinfb and wfb[i] (the last three may be NULL). Not collective. @*/
void AirfoilConvectionAdjoint(const AirfoilGeometry *g, const PetscReal wf[], PetscInt i, PetscInt j,
                              const AirfoilCell *const *x, PetscScalar **q, PetscReal qw, PetscReal qinf, PetscReal Nb,
                              AirfoilCell **xb, PetscScalar **qb, PetscReal *qwb, PetscReal *qinfb, PetscReal wfb[])
{
  const PetscInt  ni = g->ni, c = j * ni + (i + ni) % ni;
  const PetscBool top = (PetscBool)(j == g->nc - 1);
  const PetscReal a = Nb / g->area[c], Ut = top ? x[j][i].Vt : x[j + 1][i].V;
  const PetscReal qt   = top ? AirfoilFarValue(g, wf, i, qinf, q) : 0.5 * (q[j][i] + q[j + 1][i]);
  const PetscReal qbot = j == 0 ? qw : 0.5 * (q[j - 1][i] + q[j][i]);
  const PetscReal Ur = x[j][i + 1].U, Ul = x[j][i].U, Vb = x[j][i].V;

  xb[j][i + 1].U += a * 0.5 * (q[j][i] + q[j][i + 1]);
  xb[j][i].U -= a * 0.5 * (q[j][i - 1] + q[j][i]);
  if (top)
    xb[j][i].Vt += a * qt;
  else
    xb[j + 1][i].V += a * qt;
  xb[j][i].V -= a * qbot;
  qb[j][i] += 0.5 * a * (Ur - Ul);
  qb[j][i + 1] += 0.5 * a * Ur, qb[j][i - 1] -= 0.5 * a * Ul;
  if (top)
    AirfoilFarValueAdjoint(g, wf, i, qinf, q, a * Ut, qb, qinfb, wfb);
  else
    qb[j][i] += 0.5 * a * Ut, qb[j + 1][i] += 0.5 * a * Ut;
  if (j == 0) {
    if (qwb) *qwb -= a * Vb;
  } else
    qb[j - 1][i] -= 0.5 * a * Vb, qb[j][i] -= 0.5 * a * Vb;
}

/* The bars of one dissipative flux k4 s(F) (D2_R - D2_L) for its bar fb: F's bar (*Fb), the inverse width's
 * (*wb, may be NULL) and the bars of the two second differences. */
static inline void AirfoilDissipationFluxBars(const PetscReal diss[2], PetscReal F, PetscReal dR, PetscReal dL,
                                              PetscReal fb, PetscScalar *Fb, PetscReal *wb, PetscReal *dRb,
                                              PetscReal *dLb)
{
  const PetscReal s = AirfoilDissipationWeight(F, diss[1]), a = diss[0] * (dR - dL) * fb;

  *Fb += a * AirfoilDissipationWeightDF(F, diss[1]);
  if (wb) *wb += a * AirfoilDissipationWeightDW(F, diss[1]);
  *dRb = diss[0] * s * fb, *dLb = -diss[0] * s * fb;
}

static inline void AirfoilD2IAdjoint(PetscInt j, PetscInt m, PetscReal b, PetscScalar **qb)
{
  qb[j][m + 1] += b, qb[j][m] -= 2 * b, qb[j][m - 1] += b;
}

static inline void AirfoilD2JAdjoint(PetscInt m, PetscInt i, PetscReal b, PetscScalar **qb)
{
  qb[m + 1][i] += b, qb[m][i] -= 2 * b, qb[m - 1][i] += b;
}

static void AirfoilDissipationFluxIAdjoint(const PetscReal diss[2], PetscInt i, PetscInt j, const AirfoilCell *const *x,
                                           PetscScalar **q, PetscReal fb, AirfoilCell **xb, PetscScalar **qb,
                                           PetscReal *wb)
{
  PetscReal dRb, dLb;

  AirfoilDissipationFluxBars(diss, x[j][i].U, AirfoilD2I(q, j, i), AirfoilD2I(q, j, i - 1), fb, &xb[j][i].U, wb, &dRb,
                             &dLb);
  AirfoilD2IAdjoint(j, i, dRb, qb), AirfoilD2IAdjoint(j, i - 1, dLb, qb);
}

static void AirfoilDissipationFluxJAdjoint(PetscInt nc, const PetscReal diss[2], PetscInt i, PetscInt j,
                                           const AirfoilCell *const *x, PetscScalar **q, PetscReal fb, AirfoilCell **xb,
                                           PetscScalar **qb, PetscReal *wb)
{
  PetscReal dRb, dLb;

  if (j < 2 || j > nc - 2) return;
  AirfoilDissipationFluxBars(diss, x[j][i].V, AirfoilD2J(q, j, i), AirfoilD2J(q, j - 1, i), fb, &xb[j][i].V, wb, &dRb,
                             &dLb);
  AirfoilD2JAdjoint(j, i, dRb, qb), AirfoilD2JAdjoint(j - 1, i, dLb, qb);
}

/*@ AirfoilDissipationAdjoint - the bars of AirfoilDissipation for the result bar Db: the fluxes xb (U, V of a
    ghosted state-bar array), qb (two ghost cells) and the inverse switch width's *wb (diss[1]; may be NULL).
    Not collective. @*/
void AirfoilDissipationAdjoint(const AirfoilGeometry *g, const PetscReal diss[2], PetscInt i, PetscInt j,
                               const AirfoilCell *const *x, PetscScalar **q, PetscReal Db, AirfoilCell **xb,
                               PetscScalar **qb, PetscReal *wb)
{
  const PetscInt  nc = g->nc;
  const PetscReal a  = Db / g->area[j * g->ni + (i + g->ni) % g->ni];

  if (diss[0] == 0) return;
  AirfoilDissipationFluxIAdjoint(diss, i + 1, j, x, q, a, xb, qb, wb);
  AirfoilDissipationFluxIAdjoint(diss, i, j, x, q, -a, xb, qb, wb);
  AirfoilDissipationFluxJAdjoint(nc, diss, i, j + 1, x, q, a, xb, qb, wb);
  AirfoilDissipationFluxJAdjoint(nc, diss, i, j, x, q, -a, xb, qb, wb);
}

/*@ AirfoilFormApplyAdjoint - the bars of AirfoilFormApply about cell (i, j) for the result bar: qb (may be NULL)
    gets bar F.c on the cells of the stencil, qwb and qfb (ni values each, may be NULL) bar F.w and bar F.f on
    the faces.  (AirfoilFormApply lives in metrics.c, the grid helper's file; its adjoint sits here with the other
    field kernels.)  Not collective. @*/
void AirfoilFormApplyAdjoint(const AirfoilForm *F, PetscInt i, PetscInt j, PetscInt ni, PetscReal bar, PetscScalar **qb,
                             PetscReal qwb[], PetscReal qfb[])
{
  if (qb)
    for (PetscInt b = -1; b <= 1; b++)
      for (PetscInt a = -1; a <= 1; a++)
        if (F->c[b + 1][a + 1] != 0) qb[j + b][i + a] += F->c[b + 1][a + 1] * bar;
  for (PetscInt a = -1; a <= 1; a++) {
    const PetscInt k = (i + a + 2 * ni) % ni;
    if (qwb && F->w[a + 1] != 0) qwb[k] += F->w[a + 1] * bar;
    if (qfb && F->f[a + 1] != 0) qfb[k] += F->f[a + 1] * bar;
  }
}

/* ---------------------------------------------------------------------------------------------------------
 * Geometry bars of the kernels above (the shape gradient through the grid, docs/airfoil.md): each adds the
 * transpose of the kernel's derivative in its geometric inputs (face vectors si, sj, areas, wall extrapolation
 * weights ext, the coefficients of a form), applied to the bar of its result, into a geometry bar geob (or the
 * bar of a form).  The kernels are linear in their face vectors and form coefficients and in 1/A, so the bars
 * need the forward values (q) besides the result's bar.
 * --------------------------------------------------------------------------------------------------------- */

/*@ AirfoilWallValueGeometryAdjoint - geob->ext[i] += d(q_w)/de_i bar = (q(i, 0) - q(i, 1)) bar. Not collective. @*/
void AirfoilWallValueGeometryAdjoint(const AirfoilGeometry *g, PetscInt i, PetscScalar **q, PetscReal bar,
                                     AirfoilGeometry *geob)
{
  geob->ext[(i + g->ni) % g->ni] += (q[0][i] - q[1][i]) * bar;
}

/*@ AirfoilCellGradientGeometryAdjoint - the geometry bars of AirfoilCellGradient of q for the gradient bar gb:
    grad = (q_r S_r - q_l S_l + q_t S_t - q_b S_b) / A, so S_r bar += q_r gb / A (and so on) and A bar -= gb . grad / A;
    at the wall the extrapolation weight's bar through the wall value. Not collective. @*/
void AirfoilCellGradientGeometryAdjoint(const AirfoilGeometry *g, PetscInt i, PetscInt j, PetscScalar **q,
                                        PetscBool wall_zero, PetscReal qff, const PetscReal gb[2],
                                        AirfoilGeometry *geob)
{
  const PetscInt   ni = g->ni, iw = (i + ni) % ni, ip = (i + 1 + ni) % ni, c = j * ni + iw;
  const PetscReal *sb = g->sj + 2 * c;
  const PetscReal  ql = 0.5 * (q[j][i - 1] + q[j][i]), qr = 0.5 * (q[j][i] + q[j][i + 1]);
  const PetscReal  qb = j == 0 ? (wall_zero ? 0 : AirfoilWallValue(g, i, q)) : 0.5 * (q[j - 1][i] + q[j][i]);
  const PetscReal  qt = j == g->nc - 1 ? qff : 0.5 * (q[j][i] + q[j + 1][i]);
  PetscReal        grad[2], qbb = 0;

  AirfoilCellGradient(g, i, j, q, wall_zero, qff, grad);
  for (PetscInt d = 0; d < 2; d++) {
    const PetscReal a = gb[d] / g->area[c];
    geob->si[2 * (j * ni + ip) + d] += a * qr;
    geob->si[2 * c + d] -= a * ql;
    geob->sj[2 * (c + ni) + d] += a * qt;
    geob->sj[2 * c + d] -= a * qb;
    geob->area[c] -= a * grad[d];
    qbb -= a * sb[d];
  }
  if (j == 0 && !wall_zero) AirfoilWallValueGeometryAdjoint(g, i, q, qbb, geob);
}

/*@ AirfoilConvectionGeometryAdjoint - the area bar of AirfoilConvection (N = (sum F q_f) / A: A bar -= Nb N / A; the
    fluxes are state, the far-field weight's bar is AirfoilConvectionAdjoint's). Not collective. @*/
void AirfoilConvectionGeometryAdjoint(const AirfoilGeometry *g, const PetscReal wf[], PetscInt i, PetscInt j,
                                      const AirfoilCell *const *x, PetscScalar **q, PetscReal qw, PetscReal qinf,
                                      PetscReal Nb, AirfoilGeometry *geob)
{
  const PetscInt c = j * g->ni + (i + g->ni) % g->ni;

  geob->area[c] -= Nb * AirfoilConvection(g, wf, i, j, x, q, qw, qinf) / g->area[c];
}

/*@ AirfoilDissipationGeometryAdjoint - the area bar of AirfoilDissipation (D = (sum of fluxes) / A: A bar -= Db D / A;
    the fluxes hold no geometry: index-space differences, a switch width in flux units). Not collective. @*/
void AirfoilDissipationGeometryAdjoint(const AirfoilGeometry *g, const PetscReal diss[2], PetscInt i, PetscInt j,
                                       const AirfoilCell *const *x, PetscScalar **q, PetscReal Db,
                                       AirfoilGeometry *geob)
{
  const PetscInt c = j * g->ni + (i + g->ni) % g->ni;

  if (diss[0] == 0) return;
  geob->area[c] -= Db * AirfoilDissipation(g, diss, i, j, x, q) / g->area[c];
}

/*@ AirfoilFormApplyFormAdjoint - the bar of the form F of AirfoilFormApply about cell (i, j) (nc cells along the
    lines): Fb.c += bar q on the stencil's cells inside the grid (every one, also where F's coefficient happens
    to be zero: its derivative need not be), Fb.w += bar qw, Fb.f += bar qf on the faces (q, qw, qf may be NULL:
    zero). Not collective. @*/
void AirfoilFormApplyFormAdjoint(PetscInt i, PetscInt j, PetscInt ni, PetscInt nc, PetscReal bar, PetscScalar **q,
                                 const PetscReal qw[], const PetscReal qf[], AirfoilForm *Fb)
{
  if (q)
    for (PetscInt b = -1; b <= 1; b++) {
      if (j + b < 0 || j + b >= nc) continue;
      for (PetscInt a = -1; a <= 1; a++) Fb->c[b + 1][a + 1] += bar * q[j + b][i + a];
    }
  for (PetscInt a = -1; a <= 1; a++) {
    const PetscInt k = (i + a + 2 * ni) % ni;
    if (qw) Fb->w[a + 1] += bar * qw[k];
    if (qf) Fb->f[a + 1] += bar * qf[k];
  }
}
