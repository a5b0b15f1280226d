/* Momentum kernels on the MAC grid: pure functions of ghosted local arrays, writing owned faces (the
 * adjoint: every face of a ghosted local array).
 *
 * Advection in divergence form with centred (arithmetic-mean) interpolation, Harlow-Welch /
 * Morinishi "Div.-2": it conserves momentum and, for a discretely divergence-free advecting
 * field (which the projection at every stage provides), kinetic energy (semi-discretely) -- no
 * upwinding, no limiter, nothing non-differentiable.  Diffusion: the 5-point Laplacian per
 * component. */
#include "fluidimpl.h"

/*@ FluidMomentumRHS - the Runge-Kutta stage combination c = a x0 + b x + w F(x) on every owned
    face, with F(x) = -div(u u) + nu lap u on the interior faces and F = 0 on boundary faces;
    c.p = 0.  x: ghosted, boundary-filled state; x0: an array of the owned faces (of a global Vec,
    or x itself).  F alone is a = b = 0, w = 1.  Fusing the combination saves the step two passes
    over three vectors per stage.  Not collective.

    u-face (i,j) at (i hx, (j+1/2) hy):
      F_u = -[(ue^2 - uw^2)/hx + (vn un - vs us)/hy] + nu [d2u/dx2 + d2u/dy2]
      ue, uw = cell-centre means of u;  un, us = corner means of u;  vn, vs = corner means of v.
    v-face likewise with x and y exchanged. @*/
PetscErrorCode FluidMomentumRHS(const FluidGrid *g, PetscReal nu, PetscReal a, const FluidCell *const *x0, PetscReal b,
                                PetscReal w, const FluidCell *const *x, FluidCell **c)
{
  const PetscReal ihx = w / g->h[0], ihy = w / g->h[1], dxx = w * nu / (g->h[0] * g->h[0]),
                  dyy = w * nu / (g->h[1] * g->h[1]); /* w folded in */
  /* the boundary faces are the face 0 of a non-periodic direction (face M is not stored): the loops
     below start after it, so that their bodies have no branch and vectorize */
  const PetscInt iu0 = FluidIsBoundaryFace(g, 0, g->xs) ? g->xs + 1 : g->xs, ie = g->xs + g->xm;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(FLUID_Momentum, 0, 0, 0, 0));
  for (PetscInt j = g->ys; j < g->ys + g->ym; j++) {
    const FluidCell *xs = x[j - 1], *xc = x[j], *xn = x[j + 1], *x0j = x0[j];
    FluidCell       *cj = c[j];
    for (PetscInt i = g->xs; i < ie; i++) cj[i].p = 0;
    if (iu0 > g->xs) cj[g->xs].u = a * x0j[g->xs].u + b * xc[g->xs].u;
    for (PetscInt i = iu0; i < ie; i++) {
      const PetscScalar u  = xc[i].u;
      const PetscScalar ue = 0.5 * (u + xc[i + 1].u), uw = 0.5 * (xc[i - 1].u + u);
      const PetscScalar un = 0.5 * (u + xn[i].u), us = 0.5 * (xs[i].u + u);
      const PetscScalar vn = 0.5 * (xn[i - 1].v + xn[i].v), vs = 0.5 * (xc[i - 1].v + xc[i].v);
      cj[i].u = a * x0j[i].u + b * u - ((ue * ue - uw * uw) * ihx + (vn * un - vs * us) * ihy) +
                dxx * (xc[i + 1].u - 2 * u + xc[i - 1].u) + dyy * (xn[i].u - 2 * u + xs[i].u);
    }
    if (FluidIsBoundaryFace(g, 1, j)) {
      for (PetscInt i = g->xs; i < ie; i++) cj[i].v = a * x0j[i].v + b * xc[i].v;
      continue;
    }
    for (PetscInt i = g->xs; i < ie; i++) {
      const PetscScalar v  = xc[i].v;
      const PetscScalar vn = 0.5 * (v + xn[i].v), vs = 0.5 * (xs[i].v + v);
      const PetscScalar ve = 0.5 * (v + xc[i + 1].v), vw = 0.5 * (xc[i - 1].v + v);
      const PetscScalar ue = 0.5 * (xs[i + 1].u + xc[i + 1].u), uw = 0.5 * (xs[i].u + xc[i].u);
      cj[i].v = a * x0j[i].v + b * v - ((ue * ve - uw * vw) * ihx + (vn * vn - vs * vs) * ihy) +
                dxx * (xc[i + 1].v - 2 * v + xc[i - 1].v) + dyy * (xn[i].v - 2 * v + xs[i].v);
    }
  }
  PetscCall(PetscLogEventEnd(FLUID_Momentum, 0, 0, 0, 0));
  PetscCall(PetscLogFlops(2 * 30.0 * g->xm * g->ym));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The adjoint in gather form, from the flux form of the forward advection: with the cell-centre
 * means C(i,l) = (u(i,l) + u(i+1,l))/2 and D(i,l) = (v(i,l) + v(i,l+1))/2 and the corner product
 * K(i,l) = uk vk, uk = (u(i,l-1) + u(i,l))/2, vk = (v(i-1,l) + v(i,l))/2 (the same K is the
 * y-flux of u-momentum and the x-flux of v-momentum),
 *   r_u(i,l) = -(C(i,l)^2 - C(i-1,l)^2)/hx - (K(i,l+1) - K(i,l))/hy + nu lap u,
 *   r_v(i,l) = -(K(i+1,l) - K(i,l))/hx - (D(i,l)^2 - D(i,l-1)^2)/hy + nu lap v.
 * With y = w rb (zero on faces this rank does not own and on boundary faces, whose residual is 0):
 *   PU(i,l) = C (y_u(i+1,l) - y_u(i,l))/hx,   PV(i,l) = D (y_v(i,l+1) - y_v(i,l))/hy,
 *   A(i,l)  = (y_u(i,l) - y_u(i,l-1))/hy + (y_v(i,l) - y_v(i-1,l))/hx   (= dJ/dK),
 *   ub(i,l) = PU(i,l) + PU(i-1,l) + vk A (i,l)/2 + vk A (i,l+1)/2 + nu lap y_u,
 *   vb(i,l) = PV(i,l) + PV(i,l-1) + uk A (i,l)/2 + uk A (i+1,l)/2 + nu lap y_v
 * (lap symmetric).  Each local face is written once, from row buffers: three rows of y padded
 * with zeros two faces beyond the owned ones, and rows of PU, PV, uk A/2, vk A/2.  The scatter
 * form (nine read-modify-writes per face) took 2.3 times the forward's time, this 1.5 (256^2). */
typedef struct {
  PetscReal ihx, ihy, cxx, cyy;
  PetscInt  xs, xe, ys, ye; /* owned faces [xs, xe) x [ys, ye) */
  PetscInt  iu0;            /* first u-face with a residual (face 0 of a wall box has none) */
  PetscBool vwall_lo;       /* row 0 of v-faces is a boundary (no residual) */
} MomentumAdjointGrid;

/* Row m of y = w rb into yu, yv (indexed by face, valid xs-2 .. xe+1): zero outside the owned
 * rows and columns and on boundary faces. */
static void MomentumAdjointLoadRow(const MomentumAdjointGrid *c, PetscReal w, const FluidCell *const *rb, PetscInt m,
                                   PetscScalar *yu, PetscScalar *yv)
{
  for (PetscInt i = c->xs - 2; i <= c->xe + 1; i++) yu[i] = yv[i] = 0;
  if (m < c->ys || m >= c->ye) return;
  for (PetscInt i = c->iu0; i < c->xe; i++) yu[i] = w * rb[m][i].u;
  if (m == 0 && c->vwall_lo) return;
  for (PetscInt i = c->xs; i < c->xe; i++) yv[i] = w * rb[m][i].v;
}

/* Corner row m (faces xs .. xe; the others stay 0): ka_u = vk A/2, ka_v = uk A/2, from y rows
 * m-1 (yu0) and m (yu1, yv1) and the state rows m-1 and m. */
static void MomentumAdjointCorners(const MomentumAdjointGrid *c, const FluidCell *xs, const FluidCell *xc,
                                   const PetscScalar *yu0, const PetscScalar *yu1, const PetscScalar *yv1,
                                   PetscScalar *kau, PetscScalar *kav)
{
  for (PetscInt i = c->xs; i <= c->xe; i++) {
    const PetscScalar a = (yu1[i] - yu0[i]) * c->ihy + (yv1[i] - yv1[i - 1]) * c->ihx;
    kau[i]              = 0.25 * (xc[i - 1].v + xc[i].v) * a;
    kav[i]              = 0.25 * (xs[i].u + xc[i].u) * a;
  }
}

/* PU of row l (faces xs-1 .. xe-1) and PV of row l (faces xs .. xe-1, from state rows l, l+1). */
static void MomentumAdjointCentres(const MomentumAdjointGrid *c, const FluidCell *xc, const FluidCell *xn,
                                   const PetscScalar *yu, const PetscScalar *yv, const PetscScalar *yvn,
                                   PetscScalar *pu, PetscScalar *pv)
{
  for (PetscInt i = c->xs - 1; i < c->xe; i++) pu[i] = 0.5 * (xc[i].u + xc[i + 1].u) * (yu[i + 1] - yu[i]) * c->ihx;
  for (PetscInt i = c->xs; i < c->xe; i++) pv[i] = 0.5 * (xc[i].v + xn[i].v) * (yvn[i] - yv[i]) * c->ihy;
}

/* The owned faces of row l add the linear part of the combination: xb += b cb, x0b += a cb. */
static void MomentumAdjointCombination(const MomentumAdjointGrid *c, PetscReal a, PetscReal b, const FluidCell *cbl,
                                       FluidCell *bl, FluidCell *x0bl)
{
  for (PetscInt i = c->xs; i < c->xe; i++) bl[i].u += b * cbl[i].u, bl[i].v += b * cbl[i].v;
  if (x0bl)
    for (PetscInt i = c->xs; i < c->xe; i++) x0bl[i].u += a * cbl[i].u, x0bl[i].v += a * cbl[i].v;
}

/*@ FluidMomentumRHSAdjoint - transpose of the tangent of FluidMomentumRHS (c = a x0 + b x + w F(x))
    at x: x0b += a cb on the owned faces (x0b: an array of owned faces; NULL when a = 0), and
    xb = b cb + w (dF/dx)^T cb on every face of the ghosted local array xb (stencil width 1; it is
    written, not accumulated, and xb.p = 0; before the boundary-rule adjoint), and
    *nub += w <cb, dF/dnu> = w <cb, lap u> over the owned faces (a partial sum of this rank).
    cb is read on the owned faces only, and its .p not at all.  x: the same filled local array as
    forward.  Not collective. @*/
PetscErrorCode FluidMomentumRHSAdjoint(const FluidGrid *g, PetscReal nu, PetscReal a, FluidCell **x0b, PetscReal b,
                                       PetscReal w, const FluidCell *const *x, const FluidCell *const *rb,
                                       FluidCell **xb, PetscScalar *nub)
{
  MomentumAdjointGrid c = {
      .ihx = 1 / g->h[0], .ihy = 1 / g->h[1], .xs = g->xs, .xe = g->xs + g->xm, .ys = g->ys, .ye = g->ys + g->ym};
  const PetscInt n = g->xm + 4; /* faces xs-2 .. xe+1 */
  PetscScalar   *work, *yu[3], *yv[3], *pu, *pv[2], *kau[2], *kav[2], lapdot = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(FLUID_MomentumAdj, 0, 0, 0, 0));
  c.cxx = c.ihx * c.ihx, c.cyy = c.ihy * c.ihy;
  c.iu0      = FluidIsBoundaryFace(g, 0, g->xs) ? g->xs + 1 : g->xs; /* as forward */
  c.vwall_lo = FluidIsBoundaryFace(g, 1, 0);
  PetscCall(PetscCalloc1(13 * n, &work));
  {
    PetscScalar **rows[] = {&yu[0], &yu[1], &yu[2],  &yv[0],  &yv[1],  &yv[2], &pu,
                            &pv[0], &pv[1], &kau[0], &kau[1], &kav[0], &kav[1]};
    for (PetscInt k = 0; k < 13; k++) *rows[k] = work + k * n - (g->xs - 2);
  }
  /* row l-1, l, l+1 of y in yu/yv[0..2]; pv[0], kau[0], kav[0] hold row l-1 (corner row l) */
  MomentumAdjointLoadRow(&c, w, rb, c.ys - 2, yu[1], yv[1]);
  MomentumAdjointLoadRow(&c, w, rb, c.ys - 1, yu[2], yv[2]);
  for (PetscInt l = c.ys - 1; l <= c.ye; l++) {
    PetscScalar     *t;
    const FluidCell *xc = x[l];
    FluidCell       *bl = xb[l];

    t = yu[0], yu[0] = yu[1], yu[1] = yu[2], yu[2] = t;
    t = yv[0], yv[0] = yv[1], yv[1] = yv[2], yv[2] = t;
    MomentumAdjointLoadRow(&c, w, rb, l + 1, yu[2], yv[2]);
    if (l < c.ye) {
      MomentumAdjointCentres(&c, xc, x[l + 1], yu[1], yv[1], yv[2], pu, pv[1]);
      MomentumAdjointCorners(&c, xc, x[l + 1], yu[1], yu[2], yv[2], kau[1], kav[1]);
    } else {
      PetscCall(PetscArrayzero(pu + c.xs - 2, n));
      PetscCall(PetscArrayzero(pv[1] + c.xs - 2, n));
      PetscCall(PetscArrayzero(kau[1] + c.xs - 2, n));
    }
    for (PetscInt i = c.xs - 1; i <= c.xe; i++) {
      const PetscScalar lu =
          c.cxx * (yu[1][i + 1] - 2 * yu[1][i] + yu[1][i - 1]) + c.cyy * (yu[2][i] - 2 * yu[1][i] + yu[0][i]);
      const PetscScalar lv =
          c.cxx * (yv[1][i + 1] - 2 * yv[1][i] + yv[1][i - 1]) + c.cyy * (yv[2][i] - 2 * yv[1][i] + yv[0][i]);
      lapdot += lu * xc[i].u + lv * xc[i].v;
      bl[i].u = pu[i] + pu[i - 1] + kau[0][i] + kau[1][i] + nu * lu;
      bl[i].v = pv[1][i] + pv[0][i] + kav[0][i] + kav[0][i + 1] + nu * lv;
      bl[i].p = 0;
    }
    if (l >= c.ys && l < c.ye) MomentumAdjointCombination(&c, a, b, rb[l], bl, x0b ? x0b[l] : NULL);
    t = pv[0], pv[0] = pv[1], pv[1] = t;
    t = kau[0], kau[0] = kau[1], kau[1] = t;
    t = kav[0], kav[0] = kav[1], kav[1] = t;
  }
  PetscCall(PetscFree(work));
  if (nub) *nub += lapdot;
  PetscCall(PetscLogEventEnd(FLUID_MomentumAdj, 0, 0, 0, 0));
  PetscCall(PetscLogFlops(56.0 * g->xm * g->ym));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ FluidCellCentre - output fields at cell centres: uc, vc = means of the two faces, pc = p,
    wc = vorticity dv/dx - du/dy, the mean of its values at the four cell corners.  Any output may
    be NULL.  x: ghosted, boundary-filled state. Not collective. @*/
PetscErrorCode FluidCellCentre(const FluidGrid *g, const FluidCell *const *x, PetscScalar **uc, PetscScalar **vc,
                               PetscScalar **pc, PetscScalar **wc)
{
  const PetscReal ihx = 1 / g->h[0], ihy = 1 / g->h[1];

  PetscFunctionBeginUser;
  for (PetscInt j = g->ys; j < g->ys + g->ym; j++)
    for (PetscInt i = g->xs; i < g->xs + g->xm; i++) {
      if (uc) uc[j][i] = 0.5 * (x[j][i].u + x[j][i + 1].u);
      if (vc) vc[j][i] = 0.5 * (x[j][i].v + x[j + 1][i].v);
      if (pc) pc[j][i] = x[j][i].p;
      if (wc) {
        PetscScalar w = 0;
        for (PetscInt b = j; b <= j + 1; b++)
          for (PetscInt a = i; a <= i + 1; a++)
            w += (x[b][a].v - x[b][a - 1].v) * ihx - (x[b][a].u - x[b - 1][a].u) * ihy;
        wc[j][i] = 0.25 * w;
      }
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}
