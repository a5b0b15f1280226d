/* The airfoil solver's time step: an incremental-pressure fractional step on the O-grid (Zang, Street &
 * Koseff 1994 with Adams-Bashforth 2 convection and Crank-Nicolson / theta viscous terms):
 *
 *   (A/dt - theta nu L) u* = A (u^n/dt - (3/2 N^n - 1/2 N^(n-1)) - G p^n) + (1 - theta) nu L u^n (+ data)
 *   U*  = mean(u* + dt G p^n) . S - dt (grad p^n . S)        on interior faces (momentum interpolation),
 *   U*  = u*_far . S on far-field faces, 0 on wall faces (u*_far, p_far: AirfoilFarFieldData of x^n)
 *   D grad(phi) = D U* / dt     (phi = 0 at the far field; no flux through the wall)
 *   U^(n+1) = U* - dt grad(phi) . S,  u^(n+1) = u* - dt G phi,  p^(n+1) = p^n + phi
 *
 * (the first step uses N^n alone).  L is the 9-point Laplacian (metrics.c), G the Green-Gauss cell
 * gradient, D the sum of the outward face fluxes: D U^(n+1) = 0 to the pressure solver's tolerance.  At a
 * steady state phi = 0 and the cell velocities satisfy the discrete steady equations exactly, whatever dt. */
#include "airfoilimpl.h"
#include <string.h>

PetscLogEvent AIRFOIL_Velocity, AIRFOIL_Pressure;

/*@ AirfoilCheckKSP - refuses a diverged solve with the solver's options prefix in the message. Collective. @*/
PetscErrorCode AirfoilCheckKSP(Airfoil af, KSP ksp, const char name[])
{
  KSPConvergedReason reason;
  const char        *prefix;
  PetscInt           its;

  PetscFunctionBeginUser;
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  if (reason >= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(KSPGetOptionsPrefix(ksp, &prefix));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  SETERRQ(af->comm, PETSC_ERR_NOT_CONVERGED,
          "The airfoil %s solve did not converge (%s after %" PetscInt_FMT
          " iterations): see -%sksp_monitor; try -%sksp_type, -%spc_type or a smaller -airfoil_dt",
          name, KSPConvergedReasons[reason], its, prefix, prefix, prefix);
}

/* Far-field inflow weights of the velocity: wf = (1 - tanh(c / w)) / 2 with c = n . U_inf / |U_inf| the
 * outward normal component of the free-stream direction at the face (wf -> 1: Dirichlet on inflow, c < 0;
 * wf -> 0: zero gradient on outflow), w = -airfoil_farfield_switch. Smooth in alpha. */
static void AirfoilFarWeights(const AirfoilGeometry *g, const PetscReal uinf[2], PetscReal width, PetscReal wf[])
{
  const PetscReal speed = PetscHypotReal(uinf[0], uinf[1]);

  for (PetscInt i = 0; i < g->ni; i++) {
    const PetscReal *s = g->sj + 2 * (g->nc * g->ni + i), len = PetscHypotReal(s[0], s[1]);
    const PetscReal  c = (s[0] * uinf[0] + s[1] * uinf[1]) / (len * speed);
    wf[i]              = 0.5 * (1 - PetscTanhReal(c / width));
  }
}

/*@ AirfoilFarFieldData - the far-field values of state x at the far-field face midpoints: the velocity
    qf = U_inf + u_v and the pressure pf = (|U_inf|^2 - |qf|^2) / 2 (Bernoulli), u_v the velocity of a point
    vortex at the body's reference point carrying the circulation of the lift of x (Kutta-Joukowski:
    Gamma = C_L |U_inf| L / 2, clockwise for positive lift): u_v = Gamma / (2 pi r^2) (y, -x) relative to that
    point.  Without -airfoil_farfield_vortex, qf = U_inf and pf = 0.  A smooth function of x. Collective. @*/
PetscErrorCode AirfoilFarFieldData(Airfoil af, Vec x)
{
  const AirfoilGeometry *g       = &af->geo;
  PetscReal              coef[3] = {0, 0, 0}, gam;

  PetscFunctionBeginUser;
  if (af->vortex && x) PetscCall(AirfoilForces(af, x, coef));
  gam = 0.5 * coef[1] * PetscHypotReal(af->uinf[0], af->uinf[1]) * af->lref;
  for (PetscInt i = 0; i < g->ni; i++) {
    const PetscReal *a = g->xn + 2 * (g->nc * g->ni + i), *b = g->xn + 2 * (g->nc * g->ni + (i + 1) % g->ni);
    const PetscReal  rx = 0.5 * (a[0] + b[0]) - af->shape.p[0], ry = 0.5 * (a[1] + b[1]) - af->shape.p[1];
    const PetscReal  k  = gam / (2 * PETSC_PI * (rx * rx + ry * ry));
    const PetscReal  ux = af->uinf[0] + k * ry, uy = af->uinf[1] - k * rx;

    af->qf[0][i] = ux, af->qf[1][i] = uy;
    af->pf[i] = 0.5 * (af->uinf[0] * af->uinf[0] + af->uinf[1] * af->uinf[1] - ux * ux - uy * uy);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The stencils of the owned cells and the two matrices K = A/dt - theta nu Lv and P = -Lp. */
static PetscErrorCode AirfoilAssemble(Airfoil af, PetscBool pressure)
{
  const AirfoilGeometry *g   = &af->geo;
  PetscReal             *one = NULL;
  AirfoilBoundary        bv = {PETSC_TRUE, af->wf}, bp = {PETSC_FALSE, NULL};

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(g->ni, &one));
  for (PetscInt i = 0; i < g->ni; i++) one[i] = 1;
  bp.wf = one;
  PetscCall(MatZeroEntries(af->K));
  if (pressure) PetscCall(MatZeroEntries(af->P));
  for (PetscInt j = af->ys; j < af->ys + af->ym; j++)
    for (PetscInt i = af->xs; i < af->xs + af->xm; i++) {
      const PetscInt k   = (j - af->ys) * af->xm + (i - af->xs);
      MatStencil     row = {.i = i, .j = j}, col[9];
      PetscScalar    vk[9], vp[9];
      PetscInt       n = 0;
      PetscBool      ex;

      AirfoilFormLaplacian(g, &bv, i, j, &af->lapv[k]);
      AirfoilFormLaplacian(g, &bp, i, j, &af->lapp[k]);
      AirfoilFormIFace(g, &bp, i, j, 0, &af->gfi[k]);
      AirfoilFormJFace(g, &bp, i, j, 0, &af->gfj[k], &ex);
      AirfoilFormJFace(g, &bp, i, j, 1, &af->gft[k], &ex);
      for (PetscInt b = -1; b <= 1; b++)
        for (PetscInt a = -1; a <= 1; a++) {
          const PetscReal cv = af->lapv[k].c[b + 1][a + 1], cp = af->lapp[k].c[b + 1][a + 1];
          if (cv == 0 && cp == 0 && !(a == 0 && b == 0)) continue;
          col[n].i = i + a, col[n].j = j + b;
          vk[n]   = -af->theta * af->nu * cv + (a == 0 && b == 0 ? g->area[j * g->ni + i] / af->dt : 0);
          vp[n++] = -cp;
        }
      PetscCall(MatSetValuesStencil(af->K, 1, &row, n, col, vk, INSERT_VALUES));
      if (pressure) PetscCall(MatSetValuesStencil(af->P, 1, &row, n, col, vp, INSERT_VALUES));
    }
  PetscCall(MatAssemblyBegin(af->K, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(af->K, MAT_FINAL_ASSEMBLY));
  if (pressure) PetscCall(MatAssemblyBegin(af->P, MAT_FINAL_ASSEMBLY));
  if (pressure) PetscCall(MatAssemblyEnd(af->P, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscFree(one));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A KSP with options prefix <prefix>airfoil_<name>_ on operator A, tolerance rtol. */
static PetscErrorCode AirfoilCreateKSP(Airfoil af, const char name[], Mat A, KSPType type, PCType pc, KSP *ksp)
{
  char prefix[256];
  PC   p;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "%sairfoil_%s_", af->prefix ? af->prefix : "", name));
  PetscCall(KSPCreate(af->comm, ksp));
  PetscCall(KSPSetOptionsPrefix(*ksp, prefix));
  PetscCall(KSPSetOperators(*ksp, A, A));
  PetscCall(KSPSetDM(*ksp, af->da)); /* the DMDA hierarchy for -airfoil_<name>_pc_type mg */
  PetscCall(KSPSetDMActive(*ksp, PETSC_FALSE));
  PetscCall(KSPSetType(*ksp, type));
  PetscCall(KSPGetPC(*ksp, &p));
  PetscCall(PCSetType(p, pc));
  PetscCall(KSPSetTolerances(*ksp, 1e-10, 1e-14, PETSC_DEFAULT, 1000));
  if (!strcmp(pc, PCMG)) { /* geometric multigrid with Galerkin coarse operators, as deep as the grid halves */
    PetscInt levels = 1, ni = af->geo.ni, nc = af->geo.nc;
    while (ni % 2 == 0 && (nc - 1) % 2 == 0 && ni / 2 >= 4 && (nc - 1) / 2 >= 2 && levels < 8)
      ni /= 2, nc = (nc - 1) / 2 + 1, levels++;
    if (levels > 1) {
      PetscCall(PCMGSetLevels(p, levels, NULL));
      PetscCall(PCMGSetGalerkin(p, PC_MG_GALERKIN_PMAT));
    } else
      PetscCall(PCSetType(p, PCGAMG)); /* cells around odd or (cells along - 1) odd: algebraic multigrid */
  }
  PetscCall(KSPSetFromOptions(*ksp));
  PetscCall(KSPSetUp(*ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AirfoilOperatorsSetUp - far-field weights, stencils, matrices and their solvers (the pressure solver's
    set-up, e.g. its multigrid hierarchy, is done once here and reused by every step). Collective. @*/
PetscErrorCode AirfoilOperatorsSetUp(Airfoil af)
{
  const PetscInt n = af->xm * af->ym;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(af->geo.ni, &af->wf));
  PetscCall(PetscMalloc3(af->geo.ni, &af->qf[0], af->geo.ni, &af->qf[1], af->geo.ni, &af->pf));
  AirfoilFarWeights(&af->geo, af->uinf, af->switch_width, af->wf);
  PetscCall(AirfoilFarFieldData(af, NULL));
  PetscCall(PetscMalloc5(n, &af->lapv, n, &af->lapp, n, &af->gfi, n, &af->gfj, n, &af->gft));
  PetscCall(DMCreateMatrix(af->da, &af->K));
  PetscCall(DMCreateMatrix(af->da, &af->P));
  PetscCall(MatSetOption(af->K, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));
  PetscCall(MatSetOption(af->P, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));
  PetscCall(AirfoilAssemble(af, PETSC_TRUE));
  PetscCall(AirfoilCreateKSP(af, "velocity", af->K, KSPGMRES, PCBJACOBI, &af->kspv));
  PetscCall(AirfoilCreateKSP(af, "pressure", af->P, KSPGMRES, PCMG, &af->kspp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AirfoilOperatorsSetTimeStep - K again for the time step af->dt (P does not depend on it). Collective. @*/
PetscErrorCode AirfoilOperatorsSetTimeStep(Airfoil af)
{
  PetscFunctionBeginUser;
  PetscCall(AirfoilAssemble(af, PETSC_FALSE));
  PetscCall(KSPSetOperators(af->kspv, af->K, af->K));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AirfoilOperatorsDestroy(Airfoil af)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(af->wf));
  PetscCall(PetscFree3(af->qf[0], af->qf[1], af->pf));
  PetscCall(PetscFree5(af->lapv, af->lapp, af->gfi, af->gfj, af->gft));
  PetscCall(MatDestroy(&af->K));
  PetscCall(MatDestroy(&af->P));
  PetscCall(KSPDestroy(&af->kspv));
  PetscCall(KSPDestroy(&af->kspp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Ghosted dof-1 copies q[c] (c = 0, 1, 2: u, v, p) of the state's cell fields from the ghosted state x; rows
 * outside the grid are zero. */
static PetscErrorCode AirfoilSplitLocal(Airfoil af, const AirfoilCell *const *x, PetscInt nf, PetscScalar ***q)
{
  PetscInt gxs, gys, gxm, gym;

  PetscFunctionBeginUser;
  PetscCall(DMDAGetGhostCorners(af->da, &gxs, &gys, NULL, &gxm, &gym, NULL));
  for (PetscInt j = gys; j < gys + gym; j++)
    for (PetscInt i = gxs; i < gxs + gxm; i++) {
      const PetscBool in = (PetscBool)(j >= 0 && j < af->geo.nc);
      for (PetscInt c = 0; c < nf; c++) q[c][j][i] = in ? (&x[j][i].u)[c] : 0;
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Step 1 of the fractional step: the right-hand sides of the two momentum solves (in f[0], f[1]) and the
 * convection terms N^n (into y). */
static PetscErrorCode AirfoilMomentumRHS(Airfoil af, AdjStepIndex k, const AirfoilCell *const *x, PetscScalar ***q,
                                         AirfoilCell **y, PetscScalar **ru, PetscScalar **rv)
{
  const AirfoilGeometry *g  = &af->geo;
  const PetscReal        ab = k > 1 ? 0.5 : 0, dt = af->dt, nu = af->nu, th = af->theta;
  PetscReal *const      *qf = af->qf;

  PetscFunctionBeginUser;
  for (PetscInt j = af->ys; j < af->ys + af->ym; j++)
    for (PetscInt i = af->xs; i < af->xs + af->xm; i++) {
      const PetscInt     c = (j - af->ys) * af->xm + (i - af->xs);
      const PetscReal    A = g->area[j * g->ni + i];
      const AirfoilForm *L = &af->lapv[c];
      PetscReal          gp[2], N[2], Nold[2] = {x[j][i].Nu, x[j][i].Nv};
      PetscScalar      **r[2] = {ru, rv};

      AirfoilCellGradient(g, i, j, q[2], PETSC_FALSE, af->pf[i], gp);
      for (PetscInt d = 0; d < 2; d++) {
        const PetscReal aff = AirfoilFormApplyData(L, i, g->ni, NULL, qf[d]); /* the far-field data's part */
        const PetscReal lap = AirfoilFormApply(L, i, j, g->ni, q[d], NULL, NULL) + aff;

        N[d] = AirfoilConvection(g, af->wf, i, j, x, q[d], 0, qf[d][i]);
        r[d][j][i] =
            A * (q[d][j][i] / dt - ((1 + ab) * N[d] - ab * Nold[d]) - gp[d]) + (1 - th) * nu * lap + th * nu * aff;
      }
      y[j][i].Nu = N[0], y[j][i].Nv = N[1];
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Step 2: the predicted face fluxes U*, V*, Vt* of the owned cells (into y), from the ghosted momentum-
 * interpolation velocity w = u* + dt G p^n (in y's local copy yl), the ghosted p^n and u* (owned). */
static void AirfoilPredictFluxes(Airfoil af, const AirfoilCell *const *yl, PetscScalar **p, PetscScalar **us,
                                 PetscScalar **vs, AirfoilCell **y)
{
  const AirfoilGeometry *g = &af->geo;

  for (PetscInt j = af->ys; j < af->ys + af->ym; j++)
    for (PetscInt i = af->xs; i < af->xs + af->xm; i++) {
      const PetscInt   c = (j - af->ys) * af->xm + (i - af->xs), f = j * g->ni + i;
      const PetscReal *si = g->si + 2 * f, *sj = g->sj + 2 * f;

      y[j][i].U = 0.5 * ((yl[j][i - 1].u + yl[j][i].u) * si[0] + (yl[j][i - 1].v + yl[j][i].v) * si[1]) -
                  af->dt * AirfoilFormApply(&af->gfi[c], i, j, g->ni, p, NULL, af->pf);
      y[j][i].V  = j == 0 ? 0
                          : 0.5 * ((yl[j - 1][i].u + yl[j][i].u) * sj[0] + (yl[j - 1][i].v + yl[j][i].v) * sj[1]) -
                               af->dt * AirfoilFormApply(&af->gfj[c], i, j, g->ni, p, NULL, af->pf);
      y[j][i].Vt = 0;
      if (j == g->nc - 1) {
        const PetscReal *st = g->sj + 2 * (f + g->ni), w = af->wf[i];
        y[j][i].Vt = (w * af->qf[0][i] + (1 - w) * us[j][i]) * st[0] + (w * af->qf[1][i] + (1 - w) * vs[j][i]) * st[1];
      }
    }
}

/* -D U* / dt of the owned cells (the right-hand side of P phi = -D U* / dt) from the ghosted fluxes. */
static void AirfoilDivergenceRHS(Airfoil af, const AirfoilCell *const *yl, PetscScalar **b)
{
  for (PetscInt j = af->ys; j < af->ys + af->ym; j++)
    for (PetscInt i = af->xs; i < af->xs + af->xm; i++) {
      const PetscReal top = j == af->geo.nc - 1 ? yl[j][i].Vt : yl[j + 1][i].V;
      b[j][i]             = -(yl[j][i + 1].U - yl[j][i].U + top - yl[j][i].V) / af->dt;
    }
}

/* Step 4: the corrections by phi (ghosted) into y; u*, v* owned, p^n from x. */
static void AirfoilCorrect(Airfoil af, PetscScalar **phi, PetscScalar **us, PetscScalar **vs,
                           const AirfoilCell *const *x, AirfoilCell **y)
{
  const AirfoilGeometry *g = &af->geo;

  for (PetscInt j = af->ys; j < af->ys + af->ym; j++)
    for (PetscInt i = af->xs; i < af->xs + af->xm; i++) {
      const PetscInt c = (j - af->ys) * af->xm + (i - af->xs);
      PetscReal      gphi[2];

      AirfoilCellGradient(g, i, j, phi, PETSC_FALSE, 0, gphi);
      y[j][i].u = us[j][i] - af->dt * gphi[0];
      y[j][i].v = vs[j][i] - af->dt * gphi[1];
      y[j][i].p = x[j][i].p + phi[j][i];
      y[j][i].U -= af->dt * AirfoilFormApply(&af->gfi[c], i, j, g->ni, phi, NULL, NULL);
      if (j > 0) y[j][i].V -= af->dt * AirfoilFormApply(&af->gfj[c], i, j, g->ni, phi, NULL, NULL);
      if (j == g->nc - 1) y[j][i].Vt -= af->dt * AirfoilFormApply(&af->gft[c], i, j, g->ni, phi, NULL, NULL);
    }
}

/* The pressure increment: solve P phi = b, phi ghosted into floc[2]. Warm start: phi = 0, the converged
 * increment of a steady flow (equivalently, p^n is the initial guess of p^(n+1)). */
static PetscErrorCode AirfoilPressureSolve(Airfoil af, Vec b, Vec phi)
{
  PetscInt its;

  PetscFunctionBeginUser;
  PetscCall(VecSet(phi, 0));
  PetscCall(PetscLogEventBegin(AIRFOIL_Pressure, 0, 0, 0, 0));
  PetscCall(KSPSolve(af->kspp, b, phi));
  PetscCall(PetscLogEventEnd(AIRFOIL_Pressure, 0, 0, 0, 0));
  PetscCall(KSPGetIterationNumber(af->kspp, &its));
  af->its_p += its;
  PetscCall(AirfoilCheckKSP(af, af->kspp, "pressure"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AirfoilStep - x_k from x_(k-1): the fractional step above. Collective. @*/
PetscErrorCode AirfoilStep(void *ctx, AdjStepIndex k, Vec xin, Vec xout)
{
  Airfoil             af = (Airfoil)ctx;
  const AirfoilCell **x, **yl;
  AirfoilCell       **y;
  PetscScalar       **q[3], **r[2], **us, **vs, **b, **phi;
  PetscInt            its;

  PetscFunctionBeginUser;
  PetscCall(AirfoilFarFieldData(af, xin));
  PetscCall(DMGlobalToLocal(af->sda, xin, INSERT_VALUES, af->xloc));
  PetscCall(DMDAVecGetArrayRead(af->sda, af->xloc, &x));
  for (PetscInt c = 0; c < 3; c++) PetscCall(DMDAVecGetArray(af->da, af->floc[c], &q[c]));
  PetscCall(AirfoilSplitLocal(af, x, 3, q));
  PetscCall(DMDAVecGetArray(af->sda, xout, &y));
  PetscCall(DMDAVecGetArray(af->da, af->f[2], &r[0]));
  PetscCall(DMDAVecGetArray(af->da, af->f[3], &r[1]));
  PetscCall(AirfoilMomentumRHS(af, k, x, q, y, r[0], r[1]));
  PetscCall(DMDAVecRestoreArray(af->da, af->f[2], &r[0]));
  PetscCall(DMDAVecRestoreArray(af->da, af->f[3], &r[1]));
  /* u*, v*: the same operator for both components */
  for (PetscInt d = 0; d < 2; d++) {
    PetscCall(VecStrideGather(xin, d, af->f[d], INSERT_VALUES)); /* initial guess u^n */
    PetscCall(KSPSetInitialGuessNonzero(af->kspv, PETSC_TRUE));
    PetscCall(PetscLogEventBegin(AIRFOIL_Velocity, 0, 0, 0, 0));
    PetscCall(KSPSolve(af->kspv, af->f[2 + d], af->f[d]));
    PetscCall(PetscLogEventEnd(AIRFOIL_Velocity, 0, 0, 0, 0));
    PetscCall(KSPGetIterationNumber(af->kspv, &its));
    af->its_v += its;
    PetscCall(AirfoilCheckKSP(af, af->kspv, "velocity"));
  }
  /* the momentum-interpolation velocity w = u* + dt G p^n, ghosted through y */
  PetscCall(DMDAVecGetArray(af->da, af->f[0], &us));
  PetscCall(DMDAVecGetArray(af->da, af->f[1], &vs));
  for (PetscInt j = af->ys; j < af->ys + af->ym; j++)
    for (PetscInt i = af->xs; i < af->xs + af->xm; i++) {
      PetscReal gp[2];
      AirfoilCellGradient(&af->geo, i, j, q[2], PETSC_FALSE, af->pf[i], gp);
      y[j][i].u = us[j][i] + af->dt * gp[0], y[j][i].v = vs[j][i] + af->dt * gp[1];
    }
  PetscCall(DMDAVecRestoreArray(af->sda, xout, &y));
  PetscCall(DMGlobalToLocal(af->sda, xout, INSERT_VALUES, af->wloc));
  PetscCall(DMDAVecGetArrayRead(af->sda, af->wloc, &yl));
  PetscCall(DMDAVecGetArray(af->sda, xout, &y));
  AirfoilPredictFluxes(af, yl, q[2], us, vs, y);
  PetscCall(DMDAVecRestoreArrayRead(af->sda, af->wloc, &yl));
  PetscCall(DMDAVecRestoreArray(af->sda, xout, &y));
  /* the pressure increment */
  PetscCall(DMGlobalToLocal(af->sda, xout, INSERT_VALUES, af->wloc));
  PetscCall(DMDAVecGetArrayRead(af->sda, af->wloc, &yl));
  PetscCall(DMDAVecGetArray(af->da, af->f[2], &b));
  AirfoilDivergenceRHS(af, yl, b);
  PetscCall(DMDAVecRestoreArray(af->da, af->f[2], &b));
  PetscCall(DMDAVecRestoreArrayRead(af->sda, af->wloc, &yl));
  PetscCall(AirfoilPressureSolve(af, af->f[2], af->f[3]));
  PetscCall(DMGlobalToLocal(af->da, af->f[3], INSERT_VALUES, af->floc[3]));
  PetscCall(DMDAVecGetArray(af->da, af->floc[3], &phi));
  PetscCall(DMDAVecGetArray(af->sda, xout, &y));
  AirfoilCorrect(af, phi, us, vs, x, y);
  PetscCall(DMDAVecRestoreArray(af->sda, xout, &y));
  PetscCall(DMDAVecRestoreArray(af->da, af->floc[3], &phi));
  PetscCall(DMDAVecRestoreArray(af->da, af->f[0], &us));
  PetscCall(DMDAVecRestoreArray(af->da, af->f[1], &vs));
  for (PetscInt c = 0; c < 3; c++) PetscCall(DMDAVecRestoreArray(af->da, af->floc[c], &q[c]));
  PetscCall(DMDAVecRestoreArrayRead(af->sda, af->xloc, &x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AirfoilInitialState - the impulsive start: u = U_inf in every cell, p = 0, fluxes of the mean velocity
    (zero through the wall), then projected so that D U = 0 (P phi = -D U; U -= grad phi . S, u -= G phi).
    Collective. @*/
PetscErrorCode AirfoilInitialState(void *ctx, Vec x0)
{
  Airfoil                af = (Airfoil)ctx;
  const AirfoilGeometry *g  = &af->geo;
  AirfoilCell          **y;
  const AirfoilCell    **yl;
  PetscScalar          **b, **phi;
  const PetscReal        dt = af->dt;

  PetscFunctionBeginUser;
  PetscCall(DMDAVecGetArray(af->sda, x0, &y));
  for (PetscInt j = af->ys; j < af->ys + af->ym; j++)
    for (PetscInt i = af->xs; i < af->xs + af->xm; i++) {
      const PetscReal *si = g->si + 2 * (j * g->ni + i), *sj = g->sj + 2 * (j * g->ni + i), *st = sj + 2 * g->ni;
      y[j][i].u = af->uinf[0], y[j][i].v = af->uinf[1], y[j][i].p = 0, y[j][i].Nu = y[j][i].Nv = 0;
      y[j][i].U  = af->uinf[0] * si[0] + af->uinf[1] * si[1];
      y[j][i].V  = j == 0 ? 0 : af->uinf[0] * sj[0] + af->uinf[1] * sj[1];
      y[j][i].Vt = j == g->nc - 1 ? af->uinf[0] * st[0] + af->uinf[1] * st[1] : 0;
    }
  PetscCall(DMDAVecRestoreArray(af->sda, x0, &y));
  PetscCall(DMGlobalToLocal(af->sda, x0, INSERT_VALUES, af->wloc));
  PetscCall(DMDAVecGetArrayRead(af->sda, af->wloc, &yl));
  PetscCall(DMDAVecGetArray(af->da, af->f[2], &b));
  AirfoilDivergenceRHS(af, yl, b);
  PetscCall(DMDAVecRestoreArray(af->da, af->f[2], &b));
  PetscCall(DMDAVecRestoreArrayRead(af->sda, af->wloc, &yl));
  PetscCall(AirfoilPressureSolve(af, af->f[2], af->f[3]));
  PetscCall(DMGlobalToLocal(af->da, af->f[3], INSERT_VALUES, af->floc[3]));
  PetscCall(DMDAVecGetArray(af->da, af->floc[3], &phi));
  PetscCall(DMDAVecGetArray(af->sda, x0, &y));
  for (PetscInt j = af->ys; j < af->ys + af->ym; j++)
    for (PetscInt i = af->xs; i < af->xs + af->xm; i++) {
      const PetscInt c = (j - af->ys) * af->xm + (i - af->xs);
      PetscReal      gphi[2];
      AirfoilCellGradient(g, i, j, phi, PETSC_FALSE, 0, gphi);
      y[j][i].u -= dt * gphi[0], y[j][i].v -= dt * gphi[1];
      y[j][i].U -= dt * AirfoilFormApply(&af->gfi[c], i, j, g->ni, phi, NULL, NULL);
      if (j > 0) y[j][i].V -= dt * AirfoilFormApply(&af->gfj[c], i, j, g->ni, phi, NULL, NULL);
      if (j == g->nc - 1) y[j][i].Vt -= dt * AirfoilFormApply(&af->gft[c], i, j, g->ni, phi, NULL, NULL);
    }
  PetscCall(DMDAVecRestoreArray(af->sda, x0, &y));
  PetscCall(DMDAVecRestoreArray(af->da, af->floc[3], &phi));
  PetscFunctionReturn(PETSC_SUCCESS);
}
