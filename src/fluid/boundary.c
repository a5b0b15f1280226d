/* Boundary rules of the MAC grid: every boundary value is an affine function of interior values,
 * written into the ghosted local array so that the interior kernels are plain stencils (and the
 * boundary adjoint will be the transpose of these rules).
 *
 * Per side of a non-periodic direction:
 *   normal face (u at x = 0 or Lx, v at y = 0 or Ly):
 *     wall, slip: 0;  inflow: the inward profile;
 *     outflow: by continuity, so that the boundary cell is divergence-free
 *              (u_b = u_in -/+ hx/hy (v_n - v_s)); with the pressure Dirichlet condition of the
 *              projection this is the value the projection itself gives the face.
 *   tangential ghost (the velocity component parallel to the side, half a cell outside):
 *     wall: 2 U_wall - inner (no slip; a moving lid has U_wall != 0);  slip, outflow: inner (zero
 *     normal gradient);  inflow: -inner (no tangential inflow velocity).
 * The normal face at the low side is stored in the state (it is the left/bottom face of cell 0);
 * the one at the high side lives in the ghost column/row M. */
#include "fluidimpl.h"

const char *const FluidBCTypes[]  = {"periodic", "wall", "slip", "inflow", "outflow", "FluidBCType", "FLUID_BC_", NULL};
const char *const FluidProfiles[] = {"uniform", "parabolic", "FluidProfile", "FLUID_PROFILE_", NULL};

/* Inward normal speed of an inflow side at the tangential coordinate t [m]: uniform U, or the
 * parabola 6 U t (L - t) / L^2 whose mean over the side is U (peak 3/2 U). */
PetscReal FluidInflowProfile(const FluidGrid *g, PetscInt d, PetscInt s, PetscReal t)
{
  return g->bc[d][s].velocity * FluidInflowShape(g, d, s, t);
}

/* d(inflow profile)/d(velocity): 1, or 6 t (L - t) / L^2; 0 on sides that are not inflow. */
PetscReal FluidInflowShape(const FluidGrid *g, PetscInt d, PetscInt s, PetscReal t)
{
  const FluidBC  *bc = &g->bc[d][s];
  const PetscReal Lt = g->L[1 - d];

  if (bc->type != FLUID_BC_INFLOW) return 0;
  if (bc->profile == FLUID_PROFILE_UNIFORM) return 1;
  return 6 * t * (Lt - t) / (Lt * Lt);
}

/* Tangential ghost = sigma * inner + beta (see the rules above). */
static inline void FluidTangentialRule(const FluidBC *bc, PetscReal *sigma, PetscReal *beta)
{
  switch (bc->type) {
  case FLUID_BC_WALL:
    *sigma = -1, *beta = 2 * bc->velocity;
    break;
  case FLUID_BC_INFLOW:
    *sigma = -1, *beta = 0;
    break;
  default: /* slip, outflow */
    *sigma = 1, *beta = 0;
  }
}

/* Normal faces of the non-outflow sides: prescribed values (inflow carries the sign of "inward"). */
static void FluidFillNormalPrescribed(const FluidGrid *g, FluidCell **x)
{
  const PetscInt gxe = g->gxs + g->gxm, gye = g->gys + g->gym;

  for (PetscInt s = 0; s < 2; s++) {
    const PetscReal sign = s ? -1.0 : 1.0;
    const PetscInt  fi = s ? g->M[0] : 0, fj = s ? g->M[1] : 0;
    const FluidBC  *bx = &g->bc[0][s], *by = &g->bc[1][s];

    if (bx->type != FLUID_BC_PERIODIC && bx->type != FLUID_BC_OUTFLOW && fi >= g->gxs && fi < gxe)
      for (PetscInt j = g->gys; j < gye; j++) x[j][fi].u = sign * FluidInflowProfile(g, 0, s, (j + 0.5) * g->h[1]);
    if (by->type != FLUID_BC_PERIODIC && by->type != FLUID_BC_OUTFLOW && fj >= g->gys && fj < gye)
      for (PetscInt i = g->gxs; i < gxe; i++) x[fj][i].v = sign * FluidInflowProfile(g, 1, s, (i + 0.5) * g->h[0]);
  }
}

/* Normal faces of outflow sides, by continuity of the boundary cell:
 *   x low:  u_0  = u_1    + hx/hy (v_{j+1} - v_j) of cell 0;   x high: u_M = u_{M-1} - hx/hy (...) of cell M-1;
 * the same with x and y exchanged.  Rows whose north neighbour is outside the local array are
 * skipped: no kernel reads them. */
static void FluidFillNormalOutflow(const FluidGrid *g, FluidCell **x)
{
  const PetscInt  gxe = g->gxs + g->gxm, gye = g->gys + g->gym, Mx = g->M[0], My = g->M[1];
  const PetscReal rx = g->h[0] / g->h[1], ry = g->h[1] / g->h[0];

  if (g->bc[0][0].type == FLUID_BC_OUTFLOW && g->gxs <= 0 && 1 < gxe)
    for (PetscInt j = g->gys; j < gye - 1; j++) x[j][0].u = x[j][1].u + rx * (x[j + 1][0].v - x[j][0].v);
  if (g->bc[0][1].type == FLUID_BC_OUTFLOW && g->gxs <= Mx - 1 && Mx < gxe)
    for (PetscInt j = g->gys; j < gye - 1; j++)
      x[j][Mx].u = x[j][Mx - 1].u - rx * (x[j + 1][Mx - 1].v - x[j][Mx - 1].v);
  if (g->bc[1][0].type == FLUID_BC_OUTFLOW && g->gys <= 0 && 1 < gye)
    for (PetscInt i = g->gxs; i < gxe - 1; i++) x[0][i].v = x[1][i].v + ry * (x[0][i + 1].u - x[0][i].u);
  if (g->bc[1][1].type == FLUID_BC_OUTFLOW && g->gys <= My - 1 && My < gye)
    for (PetscInt i = g->gxs; i < gxe - 1; i++)
      x[My][i].v = x[My - 1][i].v - ry * (x[My - 1][i + 1].u - x[My - 1][i].u);
}

/* Tangential ghosts: v in the ghost columns -1 and Mx, then u in the ghost rows -1 and My (the
 * latter over the whole local width, so the corners are consistent). */
static void FluidFillTangential(const FluidGrid *g, FluidCell **x)
{
  const PetscInt gxe = g->gxs + g->gxm, gye = g->gys + g->gym, Mx = g->M[0], My = g->M[1];
  PetscReal      sigma, beta;

  if (g->bc[0][0].type != FLUID_BC_PERIODIC) {
    if (g->gxs < 0) {
      FluidTangentialRule(&g->bc[0][0], &sigma, &beta);
      for (PetscInt j = g->gys; j < gye; j++) x[j][-1].v = sigma * x[j][0].v + beta;
    }
    if (gxe > Mx) {
      FluidTangentialRule(&g->bc[0][1], &sigma, &beta);
      for (PetscInt j = g->gys; j < gye; j++) x[j][Mx].v = sigma * x[j][Mx - 1].v + beta;
    }
  }
  if (g->bc[1][0].type != FLUID_BC_PERIODIC) {
    if (g->gys < 0) {
      FluidTangentialRule(&g->bc[1][0], &sigma, &beta);
      for (PetscInt i = g->gxs; i < gxe; i++) x[-1][i].u = sigma * x[0][i].u + beta;
    }
    if (gye > My) {
      FluidTangentialRule(&g->bc[1][1], &sigma, &beta);
      for (PetscInt i = g->gxs; i < gxe; i++) x[My][i].u = sigma * x[My - 1][i].u + beta;
    }
  }
}

/*@ FluidFillBoundary - sets every boundary face and tangential ghost of a ghosted local state
    array from the boundary rules (affine in the interior values). Not collective. @*/
PetscErrorCode FluidFillBoundary(const FluidGrid *g, FluidCell **x)
{
  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(FLUID_Boundary, 0, 0, 0, 0));
  FluidFillNormalPrescribed(g, x);
  FluidFillNormalOutflow(g, x);
  FluidFillTangential(g, x);
  PetscCall(PetscLogEventEnd(FLUID_Boundary, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ FluidFillPressureGhosts - ghost cells of the projection potential on physical sides:
    homogeneous Neumann (ghost = inner: no correction of a prescribed normal face) or, at an
    outflow, homogeneous Dirichlet on the face (ghost = -inner). Owned rows/columns only. @*/
PetscErrorCode FluidFillPressureGhosts(const FluidGrid *g, PetscScalar **phi)
{
  const PetscInt Mx = g->M[0], My = g->M[1];

  PetscFunctionBeginUser;
  if (g->bc[0][0].type != FLUID_BC_PERIODIC) {
    const PetscReal slo = g->bc[0][0].type == FLUID_BC_OUTFLOW ? -1 : 1,
                    shi = g->bc[0][1].type == FLUID_BC_OUTFLOW ? -1 : 1;
    for (PetscInt j = g->ys; j < g->ys + g->ym; j++) {
      if (g->xs == 0) phi[j][-1] = slo * phi[j][0];
      if (g->xs + g->xm == Mx) phi[j][Mx] = shi * phi[j][Mx - 1];
    }
  }
  if (g->bc[1][0].type != FLUID_BC_PERIODIC) {
    const PetscReal slo = g->bc[1][0].type == FLUID_BC_OUTFLOW ? -1 : 1,
                    shi = g->bc[1][1].type == FLUID_BC_OUTFLOW ? -1 : 1;
    for (PetscInt i = g->xs; i < g->xs + g->xm; i++) {
      if (g->ys == 0) phi[-1][i] = slo * phi[0][i];
      if (g->ys + g->ym == My) phi[My][i] = shi * phi[My - 1][i];
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Adjoints of the boundary rules.  The rules are affine: x_b = sum_a c_a x_a + beta.  The tangent
 * map drops beta, and its transpose, applied in the reverse order of the forward assignments, is
 * for each rule: xbar_a += c_a xbar_b, then xbar_b = 0 (the forward overwrote x_b). */

/* The wall speed U enters the tangential ghost as beta = 2 U: dJ/dU += 2 * (adjoint of the ghost). */
static inline void FluidWallSpeedAdjoint(const FluidBC *bc, PetscScalar ghostbar, PetscScalar *gU)
{
  if (bc->type == FLUID_BC_WALL) *gU += 2 * ghostbar;
}

static void FluidFillTangentialAdjoint(const FluidGrid *g, FluidCell **xb, PetscScalar gbc[2][2])
{
  const PetscInt gxe = g->gxs + g->gxm, gye = g->gys + g->gym, Mx = g->M[0], My = g->M[1];
  PetscReal      sigma, beta;

  if (g->bc[1][0].type != FLUID_BC_PERIODIC) {
    if (gye > My) {
      FluidTangentialRule(&g->bc[1][1], &sigma, &beta);
      for (PetscInt i = g->gxs; i < gxe; i++) {
        FluidWallSpeedAdjoint(&g->bc[1][1], xb[My][i].u, &gbc[1][1]);
        xb[My - 1][i].u += sigma * xb[My][i].u, xb[My][i].u = 0;
      }
    }
    if (g->gys < 0) {
      FluidTangentialRule(&g->bc[1][0], &sigma, &beta);
      for (PetscInt i = g->gxs; i < gxe; i++) {
        FluidWallSpeedAdjoint(&g->bc[1][0], xb[-1][i].u, &gbc[1][0]);
        xb[0][i].u += sigma * xb[-1][i].u, xb[-1][i].u = 0;
      }
    }
  }
  if (g->bc[0][0].type != FLUID_BC_PERIODIC) {
    if (gxe > Mx) {
      FluidTangentialRule(&g->bc[0][1], &sigma, &beta);
      for (PetscInt j = g->gys; j < gye; j++) {
        FluidWallSpeedAdjoint(&g->bc[0][1], xb[j][Mx].v, &gbc[0][1]);
        xb[j][Mx - 1].v += sigma * xb[j][Mx].v, xb[j][Mx].v = 0;
      }
    }
    if (g->gxs < 0) {
      FluidTangentialRule(&g->bc[0][0], &sigma, &beta);
      for (PetscInt j = g->gys; j < gye; j++) {
        FluidWallSpeedAdjoint(&g->bc[0][0], xb[j][-1].v, &gbc[0][0]);
        xb[j][0].v += sigma * xb[j][-1].v, xb[j][-1].v = 0;
      }
    }
  }
}

/* Transpose of FluidFillNormalOutflow: u_0 = u_1 + rx (v_{j+1} - v_j) gives ubar_1 += a,
 * vbar_{j+1} += rx a, vbar_j -= rx a with a = ubar_0, then ubar_0 = 0 (and likewise). */
static void FluidFillNormalOutflowAdjoint(const FluidGrid *g, FluidCell **xb)
{
  const PetscInt  gxe = g->gxs + g->gxm, gye = g->gys + g->gym, Mx = g->M[0], My = g->M[1];
  const PetscReal rx = g->h[0] / g->h[1], ry = g->h[1] / g->h[0];

  if (g->bc[1][1].type == FLUID_BC_OUTFLOW && g->gys <= My - 1 && My < gye)
    for (PetscInt i = g->gxs; i < gxe - 1; i++) {
      const PetscScalar a = xb[My][i].v;
      xb[My][i].v         = 0;
      xb[My - 1][i].v += a, xb[My - 1][i + 1].u -= ry * a, xb[My - 1][i].u += ry * a;
    }
  if (g->bc[1][0].type == FLUID_BC_OUTFLOW && g->gys <= 0 && 1 < gye)
    for (PetscInt i = g->gxs; i < gxe - 1; i++) {
      const PetscScalar a = xb[0][i].v;
      xb[0][i].v          = 0;
      xb[1][i].v += a, xb[0][i + 1].u += ry * a, xb[0][i].u -= ry * a;
    }
  if (g->bc[0][1].type == FLUID_BC_OUTFLOW && g->gxs <= Mx - 1 && Mx < gxe)
    for (PetscInt j = g->gys; j < gye - 1; j++) {
      const PetscScalar a = xb[j][Mx].u;
      xb[j][Mx].u         = 0;
      xb[j][Mx - 1].u += a, xb[j + 1][Mx - 1].v -= rx * a, xb[j][Mx - 1].v += rx * a;
    }
  if (g->bc[0][0].type == FLUID_BC_OUTFLOW && g->gxs <= 0 && 1 < gxe)
    for (PetscInt j = g->gys; j < gye - 1; j++) {
      const PetscScalar a = xb[j][0].u;
      xb[j][0].u          = 0;
      xb[j][1].u += a, xb[j + 1][0].v += rx * a, xb[j][0].v -= rx * a;
    }
}

/* Transpose of FluidFillNormalPrescribed: prescribed faces do not depend on the state, only on the
 * inflow speed U of their side (value = sign U shape(t)): dJ/dU += sign shape(t) * (face adjoint). */
static void FluidFillNormalPrescribedAdjoint(const FluidGrid *g, FluidCell **xb, PetscScalar gbc[2][2])
{
  const PetscInt gxe = g->gxs + g->gxm, gye = g->gys + g->gym;

  for (PetscInt s = 0; s < 2; s++) {
    const PetscReal sign = s ? -1.0 : 1.0;
    const PetscInt  fi = s ? g->M[0] : 0, fj = s ? g->M[1] : 0;
    const FluidBC  *bx = &g->bc[0][s], *by = &g->bc[1][s];

    if (bx->type != FLUID_BC_PERIODIC && bx->type != FLUID_BC_OUTFLOW && fi >= g->gxs && fi < gxe)
      for (PetscInt j = g->gys; j < gye; j++) {
        gbc[0][s] += sign * FluidInflowShape(g, 0, s, (j + 0.5) * g->h[1]) * xb[j][fi].u;
        xb[j][fi].u = 0;
      }
    if (by->type != FLUID_BC_PERIODIC && by->type != FLUID_BC_OUTFLOW && fj >= g->gys && fj < gye)
      for (PetscInt i = g->gxs; i < gxe; i++) {
        gbc[1][s] += sign * FluidInflowShape(g, 1, s, (i + 0.5) * g->h[0]) * xb[fj][i].v;
        xb[fj][i].v = 0;
      }
  }
}

/*@ FluidFillBoundaryAdjoint - transpose of the tangent of FluidFillBoundary on a ghosted local
    adjoint array: moves the adjoint of every boundary value onto the interior values it was
    computed from and zeroes it; gbc[d][s] += dJ/d(velocity of side s of direction d) (inflow speed
    or wall speed), this rank's part (each rank's local array holds its own partial adjoints, halo
    entries included, so the sum over ranks is the whole). Not collective. @*/
PetscErrorCode FluidFillBoundaryAdjoint(const FluidGrid *g, FluidCell **xb, PetscScalar gbc[2][2])
{
  PetscScalar unused[2][2] = {{0, 0}, {0, 0}};

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(FLUID_Boundary, 0, 0, 0, 0));
  if (!gbc) gbc = unused;
  FluidFillTangentialAdjoint(g, xb, gbc);
  FluidFillNormalOutflowAdjoint(g, xb);
  FluidFillNormalPrescribedAdjoint(g, xb, gbc);
  PetscCall(PetscLogEventEnd(FLUID_Boundary, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ FluidFillPressureGhostsAdjoint - transpose of FluidFillPressureGhosts (ghost = s * inner):
    phibar_inner += s phibar_ghost, phibar_ghost = 0. Not collective. @*/
PetscErrorCode FluidFillPressureGhostsAdjoint(const FluidGrid *g, PetscScalar **pb)
{
  const PetscInt Mx = g->M[0], My = g->M[1];

  PetscFunctionBeginUser;
  if (g->bc[1][0].type != FLUID_BC_PERIODIC) {
    const PetscReal slo = g->bc[1][0].type == FLUID_BC_OUTFLOW ? -1 : 1,
                    shi = g->bc[1][1].type == FLUID_BC_OUTFLOW ? -1 : 1;
    for (PetscInt i = g->xs; i < g->xs + g->xm; i++) {
      if (g->ys == 0) pb[0][i] += slo * pb[-1][i], pb[-1][i] = 0;
      if (g->ys + g->ym == My) pb[My - 1][i] += shi * pb[My][i], pb[My][i] = 0;
    }
  }
  if (g->bc[0][0].type != FLUID_BC_PERIODIC) {
    const PetscReal slo = g->bc[0][0].type == FLUID_BC_OUTFLOW ? -1 : 1,
                    shi = g->bc[0][1].type == FLUID_BC_OUTFLOW ? -1 : 1;
    for (PetscInt j = g->ys; j < g->ys + g->ym; j++) {
      if (g->xs == 0) pb[j][0] += slo * pb[j][-1], pb[j][-1] = 0;
      if (g->xs + g->xm == Mx) pb[j][Mx - 1] += shi * pb[j][Mx], pb[j][Mx] = 0;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
