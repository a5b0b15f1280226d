/* Momentum kernels on the MAC grid: pure functions of ghosted local arrays, writing owned faces.
 *
 * Advection in divergence form with centred (arithmetic-mean) interpolation, Harlow-Welch /
 * Morinishi "Div.-2": it conserves momentum and, for a discretely divergence-free advecting
 * field (which the projection at every stage provides), kinetic energy (semi-discretely) -- no
 * upwinding, no limiter, nothing non-differentiable.  Diffusion: the 5-point Laplacian per
 * component. */
#include "fluidimpl.h"

/*@ FluidMomentumRHS - r = -div(u u) + nu lap u on every interior face (u- and v-faces); boundary
    faces get 0 and r.p = 0.  x: ghosted, boundary-filled state.  Not collective.

    u-face (i,j) at (i hx, (j+1/2) hy):
      r_u = -[(ue^2 - uw^2)/hx + (vn un - vs us)/hy] + nu [d2u/dx2 + d2u/dy2]
      ue, uw = cell-centre means of u;  un, us = corner means of u;  vn, vs = corner means of v.
    v-face likewise with x and y exchanged. @*/
PetscErrorCode FluidMomentumRHS(const FluidGrid *g, PetscReal nu, const FluidCell *const *x, FluidCell **r)
{
  const PetscReal ihx = 1 / g->h[0], ihy = 1 / g->h[1], dxx = nu * ihx * ihx, dyy = nu * ihy * ihy;
  /* the boundary faces are the face 0 of a non-periodic direction (face M is not stored): the loops
     below start after it, so that their bodies have no branch and vectorize */
  const PetscInt iu0 = FluidIsBoundaryFace(g, 0, g->xs) ? g->xs + 1 : g->xs, ie = g->xs + g->xm;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(FLUID_Momentum, 0, 0, 0, 0));
  for (PetscInt j = g->ys; j < g->ys + g->ym; j++) {
    const FluidCell *xs = x[j - 1], *xc = x[j], *xn = x[j + 1];
    FluidCell       *rj = r[j];
    for (PetscInt i = g->xs; i < ie; i++) rj[i].p = 0;
    if (iu0 > g->xs) rj[g->xs].u = 0;
    for (PetscInt i = iu0; i < ie; i++) {
      const PetscScalar u  = xc[i].u;
      const PetscScalar ue = 0.5 * (u + xc[i + 1].u), uw = 0.5 * (xc[i - 1].u + u);
      const PetscScalar un = 0.5 * (u + xn[i].u), us = 0.5 * (xs[i].u + u);
      const PetscScalar vn = 0.5 * (xn[i - 1].v + xn[i].v), vs = 0.5 * (xc[i - 1].v + xc[i].v);
      rj[i].u = -((ue * ue - uw * uw) * ihx + (vn * un - vs * us) * ihy) + dxx * (xc[i + 1].u - 2 * u + xc[i - 1].u) +
                dyy * (xn[i].u - 2 * u + xs[i].u);
    }
    if (FluidIsBoundaryFace(g, 1, j)) {
      for (PetscInt i = g->xs; i < ie; i++) rj[i].v = 0;
      continue;
    }
    for (PetscInt i = g->xs; i < ie; i++) {
      const PetscScalar v  = xc[i].v;
      const PetscScalar vn = 0.5 * (v + xn[i].v), vs = 0.5 * (xs[i].v + v);
      const PetscScalar ve = 0.5 * (v + xc[i + 1].v), vw = 0.5 * (xc[i - 1].v + v);
      const PetscScalar ue = 0.5 * (xs[i + 1].u + xc[i + 1].u), uw = 0.5 * (xs[i].u + xc[i].u);
      rj[i].v = -((ue * ve - uw * vw) * ihx + (vn * vn - vs * vs) * ihy) + dxx * (xc[i + 1].v - 2 * v + xc[i - 1].v) +
                dyy * (xn[i].v - 2 * v + xs[i].v);
    }
  }
  PetscCall(PetscLogEventEnd(FLUID_Momentum, 0, 0, 0, 0));
  PetscCall(PetscLogFlops(2 * 26.0 * g->xm * g->ym));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ FluidMomentumRHSAdjoint - transpose of the tangent of FluidMomentumRHS at x:
    xb += (dr/dx)^T rb on the ghosted local array xb (before the boundary-rule adjoint), and
    *nub += <rb, dr/dnu> = <rb, lap u> over the owned faces (a partial sum of this rank).
    Each quadratic term q = a b of the forward gives ab += b qb, bb += a qb; each mean
    m = (a + b)/2 gives ab += mb/2, bb += mb/2.  x: the same filled local array as forward.
    Not collective. @*/
PetscErrorCode FluidMomentumRHSAdjoint(const FluidGrid *g, PetscReal nu, const FluidCell *const *x,
                                       const FluidCell *const *rb, FluidCell **xb, PetscScalar *nub)
{
  const PetscReal ihx = 1 / g->h[0], ihy = 1 / g->h[1], cxx = ihx * ihx, cyy = ihy * ihy;
  const PetscInt  iu0 = FluidIsBoundaryFace(g, 0, g->xs) ? g->xs + 1 : g->xs, ie = g->xs + g->xm; /* as forward */
  PetscScalar     lapdot = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(FLUID_MomentumAdj, 0, 0, 0, 0));
  for (PetscInt j = g->ys; j < g->ys + g->ym; j++) {
    const FluidCell *xs = x[j - 1], *xc = x[j], *xn = x[j + 1], *rj = rb[j];
    FluidCell       *bs = xb[j - 1], *bc = xb[j], *bn = xb[j + 1];
    for (PetscInt i = iu0; i < ie; i++) {
      const PetscScalar y = rj[i].u, u = xc[i].u;
      const PetscScalar ue = 0.5 * (u + xc[i + 1].u), uw = 0.5 * (xc[i - 1].u + u);
      const PetscScalar un = 0.5 * (u + xn[i].u), us = 0.5 * (xs[i].u + u);
      const PetscScalar vn = 0.5 * (xn[i - 1].v + xn[i].v), vs = 0.5 * (xc[i - 1].v + xc[i].v);
      const PetscScalar lxx = xc[i + 1].u - 2 * u + xc[i - 1].u, lyy = xn[i].u - 2 * u + xs[i].u;
      const PetscScalar ueb = -2 * ue * ihx * y, uwb = 2 * uw * ihx * y; /* d/d(ue), d/d(uw) */
      const PetscScalar unb = -vn * ihy * y, vnb = -un * ihy * y, usb = vs * ihy * y, vsb = us * ihy * y;
      lapdot += y * (cxx * lxx + cyy * lyy);
      bc[i].u += 0.5 * (ueb + uwb + unb + usb) - 2 * nu * (cxx + cyy) * y;
      bc[i + 1].u += 0.5 * ueb + nu * cxx * y;
      bc[i - 1].u += 0.5 * uwb + nu * cxx * y;
      bn[i].u += 0.5 * unb + nu * cyy * y;
      bs[i].u += 0.5 * usb + nu * cyy * y;
      bn[i - 1].v += 0.5 * vnb, bn[i].v += 0.5 * vnb;
      bc[i - 1].v += 0.5 * vsb, bc[i].v += 0.5 * vsb;
    }
    if (FluidIsBoundaryFace(g, 1, j)) continue;
    for (PetscInt i = g->xs; i < ie; i++) {
      const PetscScalar y = rj[i].v, v = xc[i].v;
      const PetscScalar vn = 0.5 * (v + xn[i].v), vs = 0.5 * (xs[i].v + v);
      const PetscScalar ve = 0.5 * (v + xc[i + 1].v), vw = 0.5 * (xc[i - 1].v + v);
      const PetscScalar ue = 0.5 * (xs[i + 1].u + xc[i + 1].u), uw = 0.5 * (xs[i].u + xc[i].u);
      const PetscScalar lxx = xc[i + 1].v - 2 * v + xc[i - 1].v, lyy = xn[i].v - 2 * v + xs[i].v;
      const PetscScalar vnb = -2 * vn * ihy * y, vsb = 2 * vs * ihy * y;
      const PetscScalar veb = -ue * ihx * y, ueb = -ve * ihx * y, vwb = uw * ihx * y, uwb = vw * ihx * y;
      lapdot += y * (cxx * lxx + cyy * lyy);
      bc[i].v += 0.5 * (vnb + vsb + veb + vwb) - 2 * nu * (cxx + cyy) * y;
      bn[i].v += 0.5 * vnb + nu * cyy * y;
      bs[i].v += 0.5 * vsb + nu * cyy * y;
      bc[i + 1].v += 0.5 * veb + nu * cxx * y;
      bc[i - 1].v += 0.5 * vwb + nu * cxx * y;
      bs[i + 1].u += 0.5 * ueb, bc[i + 1].u += 0.5 * ueb;
      bs[i].u += 0.5 * uwb, bc[i].u += 0.5 * uwb;
    }
  }
  if (nub) *nub += lapdot;
  PetscCall(PetscLogEventEnd(FLUID_MomentumAdj, 0, 0, 0, 0));
  PetscCall(PetscLogFlops(2 * 40.0 * g->xm * g->ym));
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
