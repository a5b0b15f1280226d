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

/*@ AirfoilFarWeightsAdjoint - Ub += (dwf/dU_inf)^T wfb: dwf/dc = -(1 - tanh^2(c/w)) / (2 w), and c = s . e / |s| with
    e = U_inf / |U_inf| (de/dU = (I - e e^T) / |U|). Not collective. @*/
PetscErrorCode AirfoilFarWeightsAdjoint(Airfoil af, const PetscReal wfb[], PetscReal Ub[2])
{
  const AirfoilGeometry *g     = &af->geo;
  const PetscReal        speed = PetscHypotReal(af->uinf[0], af->uinf[1]);
  const PetscReal        e[2]  = {af->uinf[0] / speed, af->uinf[1] / speed};
  PetscReal              eb[2] = {0, 0};

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < g->ni; i++) {
    const PetscReal *s = g->sj + 2 * (g->nc * g->ni + i), len = PetscHypotReal(s[0], s[1]);
    const PetscReal  c = (s[0] * e[0] + s[1] * e[1]) / len, th = PetscTanhReal(c / af->switch_width);
    const PetscReal  cb = -0.5 * (1 - th * th) / af->switch_width * wfb[i];
    eb[0] += cb * s[0] / len, eb[1] += cb * s[1] / len;
  }
  {
    const PetscReal ee = eb[0] * e[0] + eb[1] * e[1];
    for (PetscInt d = 0; d < 2; d++) Ub[d] += (eb[d] - ee * e[d]) / speed;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AirfoilFarWeightsGeometryAdjoint - geob (the far-field faces' S) += (dwf/dS)^T wfb for the total bars wfb (the
    same on every rank: added on rank 0 only, the share convention of AirfoilShapeAdjoint): c = S . e / |S|, so
    dc/dS = e / |S| - c S / |S|^2. Not collective. @*/
PetscErrorCode AirfoilFarWeightsGeometryAdjoint(Airfoil af, const PetscReal wfb[], AirfoilGeometry *geob)
{
  const AirfoilGeometry *g     = &af->geo;
  const PetscReal        speed = PetscHypotReal(af->uinf[0], af->uinf[1]);
  const PetscReal        e[2]  = {af->uinf[0] / speed, af->uinf[1] / speed};
  PetscMPIInt            rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(af->comm, &rank));
  if (rank) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt i = 0; i < g->ni; i++) {
    const PetscInt   f = 2 * (g->nc * g->ni + i);
    const PetscReal *s = g->sj + f, len = PetscHypotReal(s[0], s[1]);
    const PetscReal  c = (s[0] * e[0] + s[1] * e[1]) / len, th = PetscTanhReal(c / af->switch_width);
    const PetscReal  cb = -0.5 * (1 - th * th) / af->switch_width * wfb[i];
    for (PetscInt d = 0; d < 2; d++) geob->sj[f + d] += cb * (e[d] / len - c * s[d] / (len * len));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AirfoilFarWeightsSet - the far-field weights for the current free stream. Not collective. @*/
PetscErrorCode AirfoilFarWeightsSet(Airfoil af)
{
  PetscFunctionBeginUser;
  AirfoilFarWeights(&af->geo, af->uinf, af->switch_width, af->wf);
  PetscFunctionReturn(PETSC_SUCCESS);
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

/*@ AirfoilFarFieldDataAdjoint - the adjoint of AirfoilFarFieldData of state x for the bars qfb, pfb of the far-field
    data (summed over ranks): Ub += the free stream's part, and with the vortex, lambda += dC_L/dx^T C_Lb (its
    nu part into *nub) for C_Lb = dGamma/dC_L Gammab.  Ub gets replicated values. Collective. @*/
static PetscErrorCode AirfoilFarFieldDataAdjoint(Airfoil af, Vec x, const PetscReal *const qfb, const PetscReal pfb[],
                                                 Vec lambda, PetscReal *nub, PetscReal Ub[2], AirfoilGeometry *geob)
{
  const AirfoilGeometry *g       = &af->geo;
  const PetscReal        speed   = PetscHypotReal(af->uinf[0], af->uinf[1]);
  PetscReal              coef[3] = {0, 0, 0}, gam, gamb = 0;
  PetscMPIInt            rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(af->comm, &rank));
  if (af->vortex) PetscCall(AirfoilForces(af, x, coef));
  gam = 0.5 * coef[1] * speed * af->lref;
  for (PetscInt i = 0; i < g->ni; i++) {
    const PetscReal *a = g->xn + 2 * (g->nc * g->ni + i), *b = g->xn + 2 * (g->nc * g->ni + (i + 1) % g->ni);
    const PetscReal  rx = 0.5 * (a[0] + b[0]) - af->shape.p[0], ry = 0.5 * (a[1] + b[1]) - af->shape.p[1];
    const PetscReal  r2 = 2 * PETSC_PI * (rx * rx + ry * ry), k = gam / r2;
    const PetscReal  ux = af->uinf[0] + k * ry, uy = af->uinf[1] - k * rx;
    const PetscReal  uxb = qfb[i] - pfb[i] * ux, uyb = qfb[g->ni + i] - pfb[i] * uy;

    Ub[0] += pfb[i] * af->uinf[0] + uxb, Ub[1] += pfb[i] * af->uinf[1] + uyb;
    gamb += (uxb * ry - uyb * rx) / r2;
    if (geob && af->vortex && !rank) { /* the far-field midpoints (replicated bars: rank 0's share) */
      const PetscReal kb = uxb * ry - uyb * rx, r2b = -kb * k / r2;
      const PetscReal rb[2] = {-uyb * k + r2b * 4 * PETSC_PI * rx, uxb * k + r2b * 4 * PETSC_PI * ry};
      for (PetscInt d = 0; d < 2; d++) {
        geob->xn[2 * (g->nc * g->ni + i) + d] += 0.5 * rb[d];
        geob->xn[2 * (g->nc * g->ni + (i + 1) % g->ni) + d] += 0.5 * rb[d];
      }
    }
  }
  if (af->vortex) {
    const PetscReal cb[3] = {0, 0.5 * speed * af->lref * gamb, 0};
    for (PetscInt d = 0; d < 2; d++) Ub[d] += gamb * 0.5 * coef[1] * af->lref * af->uinf[d] / speed;
    PetscCall(AirfoilForcesAdjoint(af, x, cb, lambda, nub, Ub));
    if (geob) PetscCall(AirfoilForcesGeometryAdjoint(af, x, cb, geob));
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
static PetscErrorCode AirfoilCreateKSP(Airfoil af, const char name[], Mat A, KSPType type, PCType pc, KSP like,
                                       KSP *ksp)
{
  char prefix[256];
  PC   p;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "%sairfoil_%s_", af->prefix ? af->prefix : "", name));
  PetscCall(KSPCreate(af->comm, ksp));
  PetscCall(KSPSetOptionsPrefix(*ksp, prefix));
  PetscCall(KSPSetOperators(*ksp, A, A));
  PetscCall(KSPSetDM(*ksp, af->mda)); /* the DMDA hierarchy for -airfoil_<name>_pc_type mg */
  PetscCall(KSPSetDMActive(*ksp, PETSC_FALSE));
  PetscCall(KSPSetType(*ksp, type));
  PetscCall(KSPGetPC(*ksp, &p));
  PetscCall(PCSetType(p, pc));
  PetscCall(KSPSetTolerances(*ksp, 1e-10, 1e-14, PETSC_DEFAULT, 1000));
  if (like) { /* the tolerances of the solver it transposes (its own options may still change them) */
    PetscReal rtol, atol, dtol;
    PetscInt  maxit;
    PetscCall(KSPGetTolerances(like, &rtol, &atol, &dtol, &maxit));
    PetscCall(KSPSetTolerances(*ksp, rtol, atol, dtol, maxit));
  }
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
  PetscCall(DMCreateMatrix(af->mda, &af->K));
  PetscCall(DMCreateMatrix(af->mda, &af->P));
  PetscCall(MatSetOption(af->K, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));
  PetscCall(MatSetOption(af->P, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));
  PetscCall(AirfoilAssemble(af, PETSC_TRUE));
  PetscCall(AirfoilCreateKSP(af, "velocity", af->K, KSPGMRES, PCBJACOBI, NULL, &af->kspv));
  PetscCall(AirfoilCreateKSP(af, "pressure", af->P, KSPGMRES, PCMG, NULL, &af->kspp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AirfoilOperatorsSetGeometry - after the grid changed (a new shape; the time step stays): the far-field weights
    and data, both matrices, their solvers' operators and P^T if the adjoint made it. Collective. @*/
PetscErrorCode AirfoilOperatorsSetGeometry(Airfoil af)
{
  PetscFunctionBeginUser;
  AirfoilFarWeights(&af->geo, af->uinf, af->switch_width, af->wf);
  PetscCall(AirfoilFarFieldData(af, NULL));
  PetscCall(AirfoilAssemble(af, PETSC_TRUE));
  PetscCall(KSPSetOperators(af->kspv, af->K, af->K));
  PetscCall(KSPSetOperators(af->kspp, af->P, af->P));
  if (af->Pt) {
    PetscCall(MatTranspose(af->P, MAT_REUSE_MATRIX, &af->Pt));
    PetscCall(KSPSetOperators(af->kspt, af->Pt, af->Pt));
  }
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
 * convection terms N^n (into y).  The convection is Adams-Bashforth 2; its fourth-difference dissipation D^n
 * (AirfoilDissipation) is forward Euler: D damps a two-cell wave at the real rate 8 k4 sum|F| / A, and forward
 * Euler's stability interval on the negative real axis is twice Adams-Bashforth's. */
PetscErrorCode AirfoilMomentumRHS(Airfoil af, AdjStepIndex k, const AirfoilCell *const *x, PetscScalar ***q,
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

        const PetscReal D = AirfoilDissipation(g, af->diss, i, j, x, q[d]); /* forward Euler: see the comment above */

        N[d] = AirfoilConvection(g, af->wf, i, j, x, q[d], 0, qf[d][i]);
        r[d][j][i] =
            A * (q[d][j][i] / dt - ((1 + ab) * N[d] - ab * Nold[d]) - D - gp[d]) + (1 - th) * nu * lap + th * nu * aff;
      }
      y[j][i].Nu = N[0], y[j][i].Nv = N[1];
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Adjoint of AirfoilMomentumRHS for the bars rb of the right-hand sides and the bars of the new convection terms
 * (yb's Nu, Nv, owned): the bars of q (ghosted qb), of the state's fluxes and old convection terms (ghosted xb), of
 * the data qf, pf and the weights wf, and af->nub += the dissipation switch's share. */
void AirfoilMomentumRHSAdjoint(Airfoil af, AdjStepIndex k, const AirfoilCell *const *x, PetscScalar ***q,
                               PetscScalar **rbu, PetscScalar **rbv, const AirfoilCell *const *yb, PetscScalar ***qb,
                               AirfoilCell **xb)
{
  const AirfoilGeometry *g  = &af->geo;
  const PetscReal        ab = k > 1 ? 0.5 : 0, dt = af->dt, nu = af->nu, th = af->theta;
  PetscReal              wb = 0; /* the bar of the dissipation's inverse switch width 1 / (Pe_0 nu) */

  for (PetscInt j = af->ys; j < af->ys + af->ym; j++)
    for (PetscInt i = af->xs; i < af->xs + af->xm; i++) {
      const PetscInt     c      = (j - af->ys) * af->xm + (i - af->xs);
      const PetscReal    A      = g->area[j * g->ni + i];
      const AirfoilForm *L      = &af->lapv[c];
      PetscScalar      **rb[2]  = {rbu, rbv};
      const PetscReal    Nyb[2] = {yb[j][i].Nu, yb[j][i].Nv};
      PetscReal          gpb[2];

      for (PetscInt d = 0; d < 2; d++) {
        const PetscReal r = rb[d][j][i];
        qb[d][j][i] += A * r / dt;
        AirfoilFormApplyAdjoint(L, i, j, g->ni, (1 - th) * nu * r, qb[d], NULL, NULL);
        AirfoilFormApplyAdjoint(L, i, j, g->ni, nu * r, NULL, NULL, af->qfb[d]); /* the data: (1 - th) + th */
        AirfoilConvectionAdjoint(g, af->wf, i, j, x, q[d], 0, af->qf[d][i], Nyb[d] - A * (1 + ab) * r, xb, qb[d], NULL,
                                 &af->qfb[d][i], af->wfb);
        AirfoilDissipationAdjoint(g, af->diss, i, j, x, q[d], -A * r, xb, qb[d], &wb);
        gpb[d] = -A * r;
      }
      xb[j][i].Nu += A * ab * rbu[j][i], xb[j][i].Nv += A * ab * rbv[j][i];
      AirfoilCellGradientAdjoint(g, i, j, PETSC_FALSE, gpb, qb[2], &af->pfb[i]);
    }
  af->nub -= wb * af->diss[1] / nu; /* d(1 / (Pe_0 nu)) / dnu = -(1 / (Pe_0 nu)) / nu */
}

/* Geometry bars of AirfoilMomentumRHS (same bars rb, yb): with r = A (q/dt - ((1 + ab) N - ab N_old) - G p) +
 * (1 - theta) nu Lv q + nu Lv_data qf, A bar += rb (...), the form Lv's bar += (1 - theta) nu rb q and nu rb qf,
 * and the bars of the convection (N bar = yb.N - A (1 + ab) rb) and of the pressure gradient (G p bar = -A rb). */
void AirfoilMomentumRHSGeometryAdjoint(Airfoil af, AdjStepIndex k, const AirfoilCell *const *x, PetscScalar ***q,
                                       PetscScalar **rbu, PetscScalar **rbv, const AirfoilCell *const *yb,
                                       AirfoilGeometry *geob, AirfoilForm *lapvb)
{
  const AirfoilGeometry *g  = &af->geo;
  const PetscReal        ab = k > 1 ? 0.5 : 0, dt = af->dt, nu = af->nu, th = af->theta;

  for (PetscInt j = af->ys; j < af->ys + af->ym; j++)
    for (PetscInt i = af->xs; i < af->xs + af->xm; i++) {
      const PetscInt  c = (j - af->ys) * af->xm + (i - af->xs), f = j * g->ni + i;
      const PetscReal A = g->area[f], Nold[2] = {x[j][i].Nu, x[j][i].Nv}, Nyb[2] = {yb[j][i].Nu, yb[j][i].Nv};
      PetscScalar   **rb[2] = {rbu, rbv};
      PetscReal       gp[2], gpb[2];

      AirfoilCellGradient(g, i, j, q[2], PETSC_FALSE, af->pf[i], gp);
      for (PetscInt d = 0; d < 2; d++) {
        const PetscReal r = rb[d][j][i], N = AirfoilConvection(g, af->wf, i, j, x, q[d], 0, af->qf[d][i]);
        const PetscReal D = AirfoilDissipation(g, af->diss, i, j, x, q[d]);

        geob->area[f] += r * (q[d][j][i] / dt - ((1 + ab) * N - ab * Nold[d]) - D - gp[d]);
        AirfoilFormApplyFormAdjoint(i, j, g->ni, g->nc, (1 - th) * nu * r, q[d], NULL, NULL, &lapvb[c]);
        AirfoilFormApplyFormAdjoint(i, j, g->ni, g->nc, nu * r, NULL, NULL, af->qf[d], &lapvb[c]);
        AirfoilConvectionGeometryAdjoint(g, af->wf, i, j, x, q[d], 0, af->qf[d][i], Nyb[d] - A * (1 + ab) * r, geob);
        AirfoilDissipationGeometryAdjoint(g, af->diss, i, j, x, q[d], -A * r, geob);
        gpb[d] = -A * r;
      }
      AirfoilCellGradientGeometryAdjoint(g, i, j, q[2], PETSC_FALSE, af->pf[i], gpb, geob);
    }
}

/* Geometry bars of the velocity solve K u* = r, K = A/dt - theta nu Lv, for r bar rb = K^-T u* bar (owned) and u*
 * (ghosted): K bar = -rb u*^T on K's stencil, so A bar -= rb u* / dt and Lv's bar += theta nu rb u*.  (The far-field
 * weights' part of Lv is AirfoilViscousParameterBars'.) */
void AirfoilViscousSolveGeometryAdjoint(Airfoil af, PetscScalar **us, PetscScalar **rb, AirfoilGeometry *geob,
                                        AirfoilForm *lapvb)
{
  const AirfoilGeometry *g = &af->geo;

  for (PetscInt j = af->ys; j < af->ys + af->ym; j++)
    for (PetscInt i = af->xs; i < af->xs + af->xm; i++) {
      const PetscInt c = (j - af->ys) * af->xm + (i - af->xs);
      geob->area[j * g->ni + i] -= rb[j][i] * us[j][i] / af->dt;
      AirfoilFormApplyFormAdjoint(i, j, g->ni, g->nc, af->theta * af->nu * rb[j][i], us, NULL, NULL, &lapvb[c]);
    }
}

/* Step 2: the predicted face fluxes U*, V*, Vt* of the owned cells (into y), from the ghosted momentum-
 * interpolation velocity w = u* + dt G p^n (in y's local copy yl), the ghosted p^n and u* (owned). */
void AirfoilPredictFluxes(Airfoil af, const AirfoilCell *const *yl, PetscScalar **p, PetscScalar **us, PetscScalar **vs,
                          AirfoilCell **y)
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

/* Adjoint of AirfoilPredictFluxes for the flux bars sb (owned): the bars of w (the u, v of the ghosted wbl), of p^n
 * (ghosted pb), of u*, v* (owned usb, vsb: the far-field flux) and of the data qf, pf and the weights wf. */
void AirfoilPredictFluxesAdjoint(Airfoil af, const AirfoilCell *const *sb, PetscScalar **us, PetscScalar **vs,
                                 AirfoilCell **wbl, PetscScalar **pb, PetscScalar **usb, PetscScalar **vsb)
{
  const AirfoilGeometry *g = &af->geo;

  for (PetscInt j = af->ys; j < af->ys + af->ym; j++)
    for (PetscInt i = af->xs; i < af->xs + af->xm; i++) {
      const PetscInt   c = (j - af->ys) * af->xm + (i - af->xs), f = j * g->ni + i;
      const PetscReal *si = g->si + 2 * f, *sj = g->sj + 2 * f, Ub = sb[j][i].U;

      wbl[j][i - 1].u += 0.5 * Ub * si[0], wbl[j][i].u += 0.5 * Ub * si[0];
      wbl[j][i - 1].v += 0.5 * Ub * si[1], wbl[j][i].v += 0.5 * Ub * si[1];
      AirfoilFormApplyAdjoint(&af->gfi[c], i, j, g->ni, -af->dt * Ub, pb, NULL, af->pfb);
      if (j > 0) {
        const PetscReal Vb = sb[j][i].V;
        wbl[j - 1][i].u += 0.5 * Vb * sj[0], wbl[j][i].u += 0.5 * Vb * sj[0];
        wbl[j - 1][i].v += 0.5 * Vb * sj[1], wbl[j][i].v += 0.5 * Vb * sj[1];
        AirfoilFormApplyAdjoint(&af->gfj[c], i, j, g->ni, -af->dt * Vb, pb, NULL, af->pfb);
      }
      if (j == g->nc - 1) {
        const PetscReal *st = g->sj + 2 * (f + g->ni), w = af->wf[i], Vb = sb[j][i].Vt;
        usb[j][i] += (1 - w) * st[0] * Vb, vsb[j][i] += (1 - w) * st[1] * Vb;
        af->qfb[0][i] += w * st[0] * Vb, af->qfb[1][i] += w * st[1] * Vb;
        af->wfb[i] += ((af->qf[0][i] - us[j][i]) * st[0] + (af->qf[1][i] - vs[j][i]) * st[1]) * Vb;
      }
    }
}

/* Geometry bars of AirfoilPredictFluxes for the flux bars sb (owned), from the ghosted w (u, v of wl), p^n and the
 * owned u*, v*: the face vectors' bars (U = mean(w) . S_i - dt gfi p, V likewise, Vt = u*_far . S_t) and the bars of
 * the forms gfi, gfj (with the far-field pressure data pf). */
void AirfoilPredictFluxesGeometryAdjoint(Airfoil af, const AirfoilCell *const *sb, const AirfoilCell *const *wl,
                                         PetscScalar **p, PetscScalar **us, PetscScalar **vs, AirfoilGeometry *geob,
                                         AirfoilForm *gfib, AirfoilForm *gfjb)
{
  const AirfoilGeometry *g = &af->geo;

  for (PetscInt j = af->ys; j < af->ys + af->ym; j++)
    for (PetscInt i = af->xs; i < af->xs + af->xm; i++) {
      const PetscInt  c = (j - af->ys) * af->xm + (i - af->xs), f = j * g->ni + i;
      const PetscReal Ub = sb[j][i].U;

      geob->si[2 * f] += 0.5 * Ub * (wl[j][i - 1].u + wl[j][i].u);
      geob->si[2 * f + 1] += 0.5 * Ub * (wl[j][i - 1].v + wl[j][i].v);
      AirfoilFormApplyFormAdjoint(i, j, g->ni, g->nc, -af->dt * Ub, p, NULL, af->pf, &gfib[c]);
      if (j > 0) {
        const PetscReal Vb = sb[j][i].V;
        geob->sj[2 * f] += 0.5 * Vb * (wl[j - 1][i].u + wl[j][i].u);
        geob->sj[2 * f + 1] += 0.5 * Vb * (wl[j - 1][i].v + wl[j][i].v);
        AirfoilFormApplyFormAdjoint(i, j, g->ni, g->nc, -af->dt * Vb, p, NULL, af->pf, &gfjb[c]);
      }
      if (j == g->nc - 1) {
        const PetscReal w = af->wf[i], Vb = sb[j][i].Vt;
        geob->sj[2 * (f + g->ni)] += (w * af->qf[0][i] + (1 - w) * us[j][i]) * Vb;
        geob->sj[2 * (f + g->ni) + 1] += (w * af->qf[1][i] + (1 - w) * vs[j][i]) * Vb;
      }
    }
}

/* -D U* / dt of the owned cells (the right-hand side of P phi = -D U* / dt) from the ghosted fluxes. */
void AirfoilDivergenceRHS(Airfoil af, const AirfoilCell *const *yl, PetscScalar **b)
{
  for (PetscInt j = af->ys; j < af->ys + af->ym; j++)
    for (PetscInt i = af->xs; i < af->xs + af->xm; i++) {
      const PetscReal top = j == af->geo.nc - 1 ? yl[j][i].Vt : yl[j + 1][i].V;
      b[j][i]             = -(yl[j][i + 1].U - yl[j][i].U + top - yl[j][i].V) / af->dt;
    }
}

/* Adjoint of AirfoilDivergenceRHS: the flux bars (ghosted sbl) += (-D/dt)^T bb (owned). */
void AirfoilDivergenceRHSAdjoint(Airfoil af, PetscScalar **bb, AirfoilCell **sbl)
{
  for (PetscInt j = af->ys; j < af->ys + af->ym; j++)
    for (PetscInt i = af->xs; i < af->xs + af->xm; i++) {
      const PetscReal a = -bb[j][i] / af->dt;
      sbl[j][i + 1].U += a, sbl[j][i].U -= a, sbl[j][i].V -= a;
      if (j == af->geo.nc - 1)
        sbl[j][i].Vt += a;
      else
        sbl[j + 1][i].V += a;
    }
}

/* Step 4: the corrections by phi (ghosted) into y; u*, v* owned, p^n from x. */
void AirfoilCorrect(Airfoil af, PetscScalar **phi, PetscScalar **us, PetscScalar **vs, const AirfoilCell *const *x,
                    AirfoilCell **y)
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

/* Adjoint of AirfoilCorrect: from the output bars yb (owned) the bars of u*, v* (usb, owned, set), of the predicted
 * fluxes (sb, owned, set), of p^n (xb, owned cells, added) and of phi (phib, ghosted, added). */
void AirfoilCorrectAdjoint(Airfoil af, const AirfoilCell *const *yb, PetscScalar **usb, PetscScalar **vsb,
                           AirfoilCell **sb, AirfoilCell **xb, PetscScalar **phib)
{
  const AirfoilGeometry *g = &af->geo;

  for (PetscInt j = af->ys; j < af->ys + af->ym; j++)
    for (PetscInt i = af->xs; i < af->xs + af->xm; i++) {
      const PetscInt  c     = (j - af->ys) * af->xm + (i - af->xs);
      const PetscReal gb[2] = {-af->dt * yb[j][i].u, -af->dt * yb[j][i].v};

      usb[j][i] = yb[j][i].u, vsb[j][i] = yb[j][i].v;
      AirfoilCellGradientAdjoint(g, i, j, PETSC_FALSE, gb, phib, NULL);
      xb[j][i].p += yb[j][i].p, phib[j][i] += yb[j][i].p;
      sb[j][i].U = yb[j][i].U, sb[j][i].V = 0, sb[j][i].Vt = 0;
      AirfoilFormApplyAdjoint(&af->gfi[c], i, j, g->ni, -af->dt * yb[j][i].U, phib, NULL, NULL);
      if (j > 0) {
        sb[j][i].V = yb[j][i].V;
        AirfoilFormApplyAdjoint(&af->gfj[c], i, j, g->ni, -af->dt * yb[j][i].V, phib, NULL, NULL);
      }
      if (j == g->nc - 1) {
        sb[j][i].Vt = yb[j][i].Vt;
        AirfoilFormApplyAdjoint(&af->gft[c], i, j, g->ni, -af->dt * yb[j][i].Vt, phib, NULL, NULL);
      }
    }
}

/* Geometry bars of AirfoilCorrect for the output bars yb (owned) and the ghosted phi: the cell gradient's and the
 * bars of the flux-correction forms gfi, gfj, gft. */
void AirfoilCorrectGeometryAdjoint(Airfoil af, const AirfoilCell *const *yb, PetscScalar **phi, AirfoilGeometry *geob,
                                   AirfoilForm *gfib, AirfoilForm *gfjb, AirfoilForm *gftb)
{
  const AirfoilGeometry *g = &af->geo;

  for (PetscInt j = af->ys; j < af->ys + af->ym; j++)
    for (PetscInt i = af->xs; i < af->xs + af->xm; i++) {
      const PetscInt  c     = (j - af->ys) * af->xm + (i - af->xs);
      const PetscReal gb[2] = {-af->dt * yb[j][i].u, -af->dt * yb[j][i].v};

      AirfoilCellGradientGeometryAdjoint(g, i, j, phi, PETSC_FALSE, 0, gb, geob);
      AirfoilFormApplyFormAdjoint(i, j, g->ni, g->nc, -af->dt * yb[j][i].U, phi, NULL, NULL, &gfib[c]);
      if (j > 0) AirfoilFormApplyFormAdjoint(i, j, g->ni, g->nc, -af->dt * yb[j][i].V, phi, NULL, NULL, &gfjb[c]);
      if (j == g->nc - 1)
        AirfoilFormApplyFormAdjoint(i, j, g->ni, g->nc, -af->dt * yb[j][i].Vt, phi, NULL, NULL, &gftb[c]);
    }
}

/* Geometry bars of the pressure solve P phi = b, P = -Lp, for b bar bb = P^-T phi bar (owned) and phi (ghosted):
 * P bar = -bb phi^T on P's stencil, so Lp's bar += bb phi. */
void AirfoilPressureSolveGeometryAdjoint(Airfoil af, PetscScalar **bb, PetscScalar **phi, AirfoilForm *lappb)
{
  const AirfoilGeometry *g = &af->geo;

  for (PetscInt j = af->ys; j < af->ys + af->ym; j++)
    for (PetscInt i = af->xs; i < af->xs + af->xm; i++)
      AirfoilFormApplyFormAdjoint(i, j, g->ni, g->nc, bb[j][i], phi, NULL, NULL,
                                  &lappb[(j - af->ys) * af->xm + (i - af->xs)]);
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
    if (af->ustar[d]) PetscCall(VecCopy(af->f[d], af->ustar[d])); /* for the adjoint's parameter terms */
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
  if (af->wkeep) PetscCall(VecCopy(af->wloc, af->wkeep)); /* w and U* ghosted, for the shape gradient */
  PetscCall(DMDAVecGetArrayRead(af->sda, af->wloc, &yl));
  PetscCall(DMDAVecGetArray(af->da, af->f[2], &b));
  AirfoilDivergenceRHS(af, yl, b);
  PetscCall(DMDAVecRestoreArray(af->da, af->f[2], &b));
  PetscCall(DMDAVecRestoreArrayRead(af->sda, af->wloc, &yl));
  PetscCall(AirfoilPressureSolve(af, af->f[2], af->f[3]));
  PetscCall(DMGlobalToLocal(af->da, af->f[3], INSERT_VALUES, af->floc[3]));
  if (af->phikeep) PetscCall(VecCopy(af->floc[3], af->phikeep)); /* phi ghosted, for the shape gradient */
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

/* ---------------------------------------------------------------------------------------------------------
 * The adjoint of AirfoilStep (the exact transpose of its derivative in the state x^n = xin, and the bars of the
 * parameters nu and U_inf).  The step, written as the chain of its kernels,
 *   (qf, pf) = far-field data(x^n);  r = momentum RHS(x^n, qf, pf);  u* = K^-1 r;  w = u* + dt G p^n;
 *   U* = fluxes(w, p^n, u*, qf, pf);  b = -(D U*) / dt;  phi = P^-1 b;  x^(n+1) = correct(u*, U*, phi, p^n)
 * is reversed kernel by kernel; every forward kernel on ghosted arrays becomes a scatter-add into ghosted bar
 * arrays, summed over ranks by DMLocalToGlobal(ADD_VALUES).  The two linear solves become transposed solves:
 * KSPSolveTranspose on K (GMRES + block Jacobi/ILU transpose well), and a solve with the explicit transpose P^T
 * and a KSP of its own (prefix -airfoil_pressure_transpose_; GMRES + geometric multigrid like P's, whose SOR
 * smoothers have no transpose for a non-symmetric P), with P's tolerances unless set.  The adjoint is exact to the
 * solvers' tolerance (-airfoil_velocity_ksp_rtol, -airfoil_pressure_ksp_rtol: 1e-10 by default; the dot-product
 * tests use 1e-14).  The velocity operator K
 * depends on nu and on the far-field weights wf (its far-field row), the data qf, pf on U_inf (and, with the
 * vortex, on the lift of x^n): their bars are gathered in af->nub, af->wfb, af->qfb, af->pfb.
 * --------------------------------------------------------------------------------------------------------- */

/* The forms dLv/dwf_(i+a), a = -1, 0, 1, of the owned far-field row: Lv is affine in wf, so each is the difference
 * of the form with wf_(i+a) raised by one and the form itself (exact to round-off). */
static PetscErrorCode AirfoilViscousWeightForms(Airfoil af)
{
  const AirfoilGeometry *g = &af->geo;
  PetscReal             *w;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(g->ni, &w));
  if (af->ys + af->ym == g->nc)
    for (PetscInt i = af->xs; i < af->xs + af->xm; i++) {
      const PetscInt  j = g->nc - 1, c = (j - af->ys) * af->xm + (i - af->xs), n = i - af->xs;
      AirfoilBoundary bv = {PETSC_TRUE, w};
      for (PetscInt a = -1; a <= 1; a++) {
        AirfoilForm *F = &af->dlapv[3 * n + a + 1];
        PetscCall(PetscArraycpy(w, af->wf, g->ni));
        w[(i + a + g->ni) % g->ni] += 1;
        AirfoilFormLaplacian(g, &bv, i, j, F);
        for (PetscInt r = 0; r < 3; r++) {
          for (PetscInt s = 0; s < 3; s++) F->c[r][s] -= af->lapv[c].c[r][s];
          F->w[r] -= af->lapv[c].w[r], F->f[r] -= af->lapv[c].f[r];
        }
      }
    }
  PetscCall(PetscFree(w));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* At the first adjoint step (forward runs never pay for it): P^T explicitly, with a solver of its own, since the
 * multigrid's SOR smoothers have no transpose. */
static PetscErrorCode AirfoilPressureTransposeSetUp(Airfoil af)
{
  PetscFunctionBeginUser;
  if (af->kspt) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatTranspose(af->P, MAT_INITIAL_MATRIX, &af->Pt));
  PetscCall(AirfoilCreateKSP(af, "pressure_transpose", af->Pt, KSPGMRES, PCMG, af->kspp, &af->kspt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AirfoilAdjointSetUp - the adjoint's work vectors and the weight derivative forms (again after the weights or
    stencils change). Collective. @*/
PetscErrorCode AirfoilAdjointSetUp(Airfoil af)
{
  PetscFunctionBeginUser;
  if (!af->xbloc) {
    PetscCall(VecDuplicate(af->xloc, &af->xbloc));
    PetscCall(VecDuplicate(af->xloc, &af->ybloc));
    PetscCall(VecDuplicate(af->x0, &af->ybar));
    for (PetscInt c = 0; c < 4; c++) {
      PetscCall(VecDuplicate(af->floc[c], &af->bloc[c]));
      PetscCall(VecDuplicate(af->f[c], &af->bg[c]));
    }
    for (PetscInt d = 0; d < 2; d++) PetscCall(VecDuplicate(af->f[d], &af->ustar[d]));
    PetscCall(PetscMalloc1(4 * af->geo.ni, &af->qfb[0]));
    af->qfb[1] = af->qfb[0] + af->geo.ni, af->pfb = af->qfb[0] + 2 * af->geo.ni, af->wfb = af->qfb[0] + 3 * af->geo.ni;
    PetscCall(PetscMalloc1(3 * af->xm, &af->dlapv));
  }
  PetscCall(AirfoilViscousWeightForms(af));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AirfoilAdjointDestroy(Airfoil af)
{
  PetscFunctionBeginUser;
  PetscCall(VecDestroy(&af->xbloc));
  PetscCall(VecDestroy(&af->ybloc));
  PetscCall(VecDestroy(&af->ybar));
  for (PetscInt c = 0; c < 4; c++) {
    PetscCall(VecDestroy(&af->bloc[c]));
    PetscCall(VecDestroy(&af->bg[c]));
  }
  for (PetscInt d = 0; d < 2; d++) PetscCall(VecDestroy(&af->ustar[d]));
  PetscCall(PetscFree(af->qfb[0]));
  PetscCall(PetscFree(af->dlapv));
  PetscCall(MatDestroy(&af->Pt));
  PetscCall(KSPDestroy(&af->kspt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AirfoilLocalFieldsAdd - lambda (u, v, p components) += the ghosted dof-1 bars bl[0..2] summed over ranks
    (bl is not changed). Collective. @*/
PetscErrorCode AirfoilLocalFieldsAdd(Airfoil af, Vec *bl, Vec lambda)
{
  AirfoilCell **lb;
  PetscScalar **b[3];

  PetscFunctionBeginUser;
  for (PetscInt c = 0; c < 3; c++) {
    PetscCall(VecSet(af->bg[c], 0));
    PetscCall(DMLocalToGlobal(af->da, bl[c], ADD_VALUES, af->bg[c]));
    PetscCall(DMDAVecGetArray(af->da, af->bg[c], &b[c]));
  }
  PetscCall(DMDAVecGetArray(af->sda, lambda, &lb));
  for (PetscInt j = af->ys; j < af->ys + af->ym; j++)
    for (PetscInt i = af->xs; i < af->xs + af->xm; i++)
      lb[j][i].u += b[0][j][i], lb[j][i].v += b[1][j][i], lb[j][i].p += b[2][j][i];
  PetscCall(DMDAVecRestoreArray(af->sda, lambda, &lb));
  for (PetscInt c = 0; c < 3; c++) PetscCall(DMDAVecRestoreArray(af->da, af->bg[c], &b[c]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The bars of nu and wf from the velocity solve K u* = r, K = A/dt - theta nu Lv(wf), and the right-hand side's
 * nu Lv terms, for the bars rb of r (K^-T u*b): the step's viscous part is
 *   nu [theta Lv(wf) u* + (1 - theta) Lv(wf) q + Lv_data(wf) qf],
 * so nub += rb . [...], wfb_k += nu rb . [same with dLv/dwf_k].  u* and q ghosted, rb owned. */
static void AirfoilViscousParameterBars(Airfoil af, PetscInt d, PetscScalar **us, PetscScalar **q, PetscScalar **rb)
{
  const AirfoilGeometry *g  = &af->geo;
  const PetscReal        th = af->theta, nu = af->nu;

  for (PetscInt j = af->ys; j < af->ys + af->ym; j++)
    for (PetscInt i = af->xs; i < af->xs + af->xm; i++) {
      const PetscInt     c = (j - af->ys) * af->xm + (i - af->xs);
      const AirfoilForm *L = &af->lapv[c];
      const PetscReal    v = th * AirfoilFormApply(L, i, j, g->ni, us, NULL, NULL) +
                          (1 - th) * AirfoilFormApply(L, i, j, g->ni, q, NULL, NULL) +
                          AirfoilFormApplyData(L, i, g->ni, NULL, af->qf[d]);
      af->nub += rb[j][i] * v;
      if (j == g->nc - 1)
        for (PetscInt a = -1; a <= 1; a++) {
          const AirfoilForm *dL = &af->dlapv[3 * (i - af->xs) + a + 1];
          const PetscReal    dv = th * AirfoilFormApply(dL, i, j, g->ni, us, NULL, NULL) +
                               (1 - th) * AirfoilFormApply(dL, i, j, g->ni, q, NULL, NULL) +
                               AirfoilFormApplyData(dL, i, g->ni, NULL, af->qf[d]);
          af->wfb[(i + a + g->ni) % g->ni] += nu * rb[j][i] * dv;
        }
    }
}

/*@ AirfoilStepAdjoint - lin = (dPhi_k/dx)^T lout at the step k AirfoilStep just took from xin (its u*, v* are
    kept in af->ustar), and the parameter bars af->nub (rank-local) and af->uinfb (replicated) += their share.
    Collective. @*/
PetscErrorCode AirfoilStepAdjoint(void *ctx, AdjStepIndex k, Vec xin, Vec xout, Vec lout, Vec lin)
{
  Airfoil             af = (Airfoil)ctx;
  const PetscInt      ni = af->geo.ni;
  const AirfoilCell **x, **yb, **sbo;
  AirfoilCell       **xb, **sb, **sbl, **wbl;
  PetscScalar       **q[3], **qb[3], **phib, **usb[2], **us[2], **bb, **rb, **usl, **phi = NULL;
  AirfoilGeometry    *geob = af->shapebars ? &af->geob : NULL;

  PetscFunctionBeginUser;
  (void)xout;
  PetscCall(AirfoilPressureTransposeSetUp(af));
  PetscCall(PetscArrayzero(af->qfb[0], 4 * ni));
  PetscCall(AirfoilFarFieldData(af, xin));
  PetscCall(DMGlobalToLocal(af->sda, xin, INSERT_VALUES, af->xloc));
  PetscCall(DMDAVecGetArrayRead(af->sda, af->xloc, &x));
  for (PetscInt c = 0; c < 3; c++) PetscCall(DMDAVecGetArray(af->da, af->floc[c], &q[c]));
  PetscCall(AirfoilSplitLocal(af, x, 3, q));
  for (PetscInt c = 0; c < 4; c++) PetscCall(VecSet(af->bloc[c], 0));
  PetscCall(VecSet(af->xbloc, 0));
  PetscCall(VecSet(af->ybloc, 0));
  /* the correction: phi bar (ghosted bloc[3]), u*, v* bars (bg[0], bg[1]), flux bars (ybar) */
  PetscCall(DMDAVecGetArrayRead(af->sda, lout, &yb));
  PetscCall(DMDAVecGetArray(af->sda, af->ybar, &sb));
  PetscCall(DMDAVecGetArray(af->sda, af->xbloc, &xb));
  PetscCall(DMDAVecGetArray(af->da, af->bloc[3], &phib));
  for (PetscInt d = 0; d < 2; d++) PetscCall(DMDAVecGetArray(af->da, af->bg[d], &usb[d]));
  AirfoilCorrectAdjoint(af, yb, usb[0], usb[1], sb, xb, phib);
  if (geob) { /* phi of the step, ghosted (kept by the forward step: no exchange here) */
    PetscCall(DMDAVecGetArray(af->da, af->phikeep, &phi));
    AirfoilCorrectGeometryAdjoint(af, yb, phi, geob, af->gfib, af->gfjb, af->gftb);
  }
  for (PetscInt d = 0; d < 2; d++) PetscCall(DMDAVecRestoreArray(af->da, af->bg[d], &usb[d]));
  PetscCall(DMDAVecRestoreArray(af->da, af->bloc[3], &phib));
  PetscCall(DMDAVecRestoreArray(af->sda, af->ybar, &sb));
  /* the pressure solve: b bar = P^-T phi bar (bg[3]) */
  PetscCall(VecSet(af->bg[2], 0));
  PetscCall(DMLocalToGlobal(af->da, af->bloc[3], ADD_VALUES, af->bg[2]));
  PetscCall(VecSet(af->bg[3], 0));
  PetscCall(PetscLogEventBegin(AIRFOIL_Pressure, 0, 0, 0, 0));
  PetscCall(KSPSolve(af->kspt, af->bg[2], af->bg[3]));
  PetscCall(PetscLogEventEnd(AIRFOIL_Pressure, 0, 0, 0, 0));
  PetscCall(AirfoilCheckKSP(af, af->kspt, "transposed pressure"));
  /* the divergence: flux bars += (-D/dt)^T b bar */
  PetscCall(DMDAVecGetArray(af->da, af->bg[3], &bb));
  if (geob) AirfoilPressureSolveGeometryAdjoint(af, bb, phi, af->lappb);
  if (geob) PetscCall(DMDAVecRestoreArray(af->da, af->phikeep, &phi));
  PetscCall(DMDAVecGetArray(af->sda, af->ybloc, &sbl));
  AirfoilDivergenceRHSAdjoint(af, bb, sbl);
  PetscCall(DMDAVecRestoreArray(af->sda, af->ybloc, &sbl));
  PetscCall(DMDAVecRestoreArray(af->da, af->bg[3], &bb));
  PetscCall(DMLocalToGlobal(af->sda, af->ybloc, ADD_VALUES, af->ybar));
  /* the predicted fluxes: w bar (ghosted ybloc's u, v), p bar (bloc[2]), u*, v* bars */
  PetscCall(VecSet(af->ybloc, 0));
  PetscCall(DMDAVecGetArrayRead(af->sda, af->ybar, &sbo));
  PetscCall(DMDAVecGetArray(af->sda, af->ybloc, &wbl));
  for (PetscInt c = 0; c < 3; c++) PetscCall(DMDAVecGetArray(af->da, af->bloc[c], &qb[c]));
  for (PetscInt d = 0; d < 2; d++) PetscCall(DMDAVecGetArray(af->da, af->bg[d], &usb[d]));
  for (PetscInt d = 0; d < 2; d++) PetscCall(DMDAVecGetArray(af->da, af->ustar[d], &us[d]));
  AirfoilPredictFluxesAdjoint(af, sbo, us[0], us[1], wbl, qb[2], usb[0], usb[1]);
  if (geob) {
    const AirfoilCell **wl;
    PetscCall(DMDAVecGetArrayRead(af->sda, af->wkeep, &wl));
    AirfoilPredictFluxesGeometryAdjoint(af, sbo, wl, q[2], us[0], us[1], geob, af->gfib, af->gfjb);
    PetscCall(DMDAVecRestoreArrayRead(af->sda, af->wkeep, &wl));
  }
  for (PetscInt d = 0; d < 2; d++) PetscCall(DMDAVecRestoreArray(af->da, af->ustar[d], &us[d]));
  PetscCall(DMDAVecRestoreArray(af->sda, af->ybloc, &wbl));
  PetscCall(DMDAVecRestoreArrayRead(af->sda, af->ybar, &sbo));
  /* w = u* + dt G p^n: w bar summed over ranks (into ybar), then into the u*, v* bars and p bar */
  PetscCall(VecSet(af->ybar, 0));
  PetscCall(DMLocalToGlobal(af->sda, af->ybloc, ADD_VALUES, af->ybar));
  PetscCall(DMDAVecGetArrayRead(af->sda, af->ybar, &sbo));
  for (PetscInt j = af->ys; j < af->ys + af->ym; j++)
    for (PetscInt i = af->xs; i < af->xs + af->xm; i++) {
      const PetscReal gb[2] = {af->dt * sbo[j][i].u, af->dt * sbo[j][i].v};
      usb[0][j][i] += sbo[j][i].u, usb[1][j][i] += sbo[j][i].v;
      AirfoilCellGradientAdjoint(&af->geo, i, j, PETSC_FALSE, gb, qb[2], &af->pfb[i]);
      if (geob) AirfoilCellGradientGeometryAdjoint(&af->geo, i, j, q[2], PETSC_FALSE, af->pf[i], gb, geob);
    }
  PetscCall(DMDAVecRestoreArrayRead(af->sda, af->ybar, &sbo));
  for (PetscInt d = 0; d < 2; d++) PetscCall(DMDAVecRestoreArray(af->da, af->bg[d], &usb[d]));
  /* the velocity solves: r bar = K^-T u* bar (into f[2], f[3]), the nu and wf bars of K and of the viscous terms */
  for (PetscInt d = 0; d < 2; d++) {
    PetscCall(VecSet(af->f[2 + d], 0));
    PetscCall(PetscLogEventBegin(AIRFOIL_Velocity, 0, 0, 0, 0));
    PetscCall(KSPSolveTranspose(af->kspv, af->bg[d], af->f[2 + d]));
    PetscCall(PetscLogEventEnd(AIRFOIL_Velocity, 0, 0, 0, 0));
    PetscCall(AirfoilCheckKSP(af, af->kspv, "velocity (transposed)"));
    PetscCall(DMGlobalToLocal(af->da, af->ustar[d], INSERT_VALUES, af->floc[3])); /* u* ghosted */
    PetscCall(DMDAVecGetArray(af->da, af->f[2 + d], &rb));
    PetscCall(DMDAVecGetArray(af->da, af->floc[3], &usl));
    AirfoilViscousParameterBars(af, d, usl, q[d], rb);
    if (geob) AirfoilViscousSolveGeometryAdjoint(af, usl, rb, geob, af->lapvb);
    PetscCall(DMDAVecRestoreArray(af->da, af->floc[3], &usl));
    PetscCall(DMDAVecRestoreArray(af->da, af->f[2 + d], &rb));
  }
  /* the momentum right-hand side */
  {
    PetscScalar **r0, **r1;
    PetscCall(DMDAVecGetArray(af->da, af->f[2], &r0));
    PetscCall(DMDAVecGetArray(af->da, af->f[3], &r1));
    AirfoilMomentumRHSAdjoint(af, k, x, q, r0, r1, yb, qb, xb);
    if (geob) AirfoilMomentumRHSGeometryAdjoint(af, k, x, q, r0, r1, yb, geob, af->lapvb);
    PetscCall(DMDAVecRestoreArray(af->da, af->f[2], &r0));
    PetscCall(DMDAVecRestoreArray(af->da, af->f[3], &r1));
  }
  for (PetscInt c = 0; c < 3; c++) PetscCall(DMDAVecRestoreArray(af->da, af->bloc[c], &qb[c]));
  PetscCall(DMDAVecRestoreArray(af->sda, af->xbloc, &xb));
  PetscCall(DMDAVecRestoreArrayRead(af->sda, lout, &yb));
  for (PetscInt c = 0; c < 3; c++) PetscCall(DMDAVecRestoreArray(af->da, af->floc[c], &q[c]));
  PetscCall(DMDAVecRestoreArrayRead(af->sda, af->xloc, &x));
  /* lin = the state bars summed over ranks */
  PetscCall(VecSet(lin, 0));
  PetscCall(DMLocalToGlobal(af->sda, af->xbloc, ADD_VALUES, lin));
  PetscCall(AirfoilLocalFieldsAdd(af, af->bloc, lin));
  /* the far-field data and weights (replicated arrays: summed over ranks first) */
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, af->qfb[0], (PetscMPIInt)(4 * ni), MPIU_REAL, MPIU_SUM, af->comm));
  PetscCall(AirfoilFarFieldDataAdjoint(af, xin, af->qfb[0], af->pfb, lin, &af->nub, af->uinfb, geob));
  PetscCall(AirfoilFarWeightsAdjoint(af, af->wfb, af->uinfb));
  if (geob) PetscCall(AirfoilFarWeightsGeometryAdjoint(af, af->wfb, geob));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode AirfoilInitialStateGeometryAdjoint(Airfoil af, Vec lambda0);

/*@ AirfoilInitialStateAdjoint - U_inf bars += (dx0/dU_inf)^T lambda0: the impulsive start is linear in U_inf (a
    projection of the uniform stream), so dx0/dU_d is the start for U_inf = e_d. Collective. @*/
PetscErrorCode AirfoilInitialStateAdjoint(void *ctx, Vec lambda0)
{
  Airfoil         af      = (Airfoil)ctx;
  const PetscReal save[2] = {af->uinf[0], af->uinf[1]};

  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < 2; d++) {
    PetscReal dot;
    af->uinf[0] = d == 0, af->uinf[1] = d == 1;
    PetscCall(AirfoilInitialState(af, af->ybar));
    PetscCall(VecDot(af->ybar, lambda0, &dot));
    af->uinfb[d] += dot;
  }
  af->uinf[0] = save[0], af->uinf[1] = save[1];
  if (af->shapebars) PetscCall(AirfoilInitialStateGeometryAdjoint(af, lambda0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Geometry bars of the impulsive start x0 = correct(U_inf . S, phi0), P phi0 = -D (U_inf . S) / dt
 * (AirfoilInitialState): the correction's (phi0 recomputed), the pressure solve's (P^-T on the summed phi bar) and the
 * face vectors' of the uniform-stream fluxes (their bars: lambda0's plus the divergence's). */
static PetscErrorCode AirfoilInitialStateGeometryAdjoint(Airfoil af, Vec lambda0)
{
  const AirfoilGeometry *g    = &af->geo;
  AirfoilGeometry       *geob = &af->geob;
  const PetscReal        dt   = af->dt;
  const AirfoilCell    **lb, **fb;
  AirfoilCell          **sbl;
  PetscScalar          **phi, **phib, **bb;

  PetscFunctionBeginUser;
  PetscCall(AirfoilPressureTransposeSetUp(af));
  PetscCall(AirfoilInitialState(af, af->ybar)); /* phi0 ghosted in floc[3] */
  PetscCall(VecSet(af->bloc[3], 0));
  PetscCall(DMDAVecGetArrayRead(af->sda, lambda0, &lb));
  PetscCall(DMDAVecGetArray(af->da, af->floc[3], &phi));
  PetscCall(DMDAVecGetArray(af->da, af->bloc[3], &phib));
  for (PetscInt j = af->ys; j < af->ys + af->ym; j++)
    for (PetscInt i = af->xs; i < af->xs + af->xm; i++) {
      const PetscInt  c     = (j - af->ys) * af->xm + (i - af->xs);
      const PetscReal gb[2] = {-dt * lb[j][i].u, -dt * lb[j][i].v};
      AirfoilCellGradientAdjoint(g, i, j, PETSC_FALSE, gb, phib, NULL);
      AirfoilFormApplyAdjoint(&af->gfi[c], i, j, g->ni, -dt * lb[j][i].U, phib, NULL, NULL);
      if (j > 0) AirfoilFormApplyAdjoint(&af->gfj[c], i, j, g->ni, -dt * lb[j][i].V, phib, NULL, NULL);
      if (j == g->nc - 1) AirfoilFormApplyAdjoint(&af->gft[c], i, j, g->ni, -dt * lb[j][i].Vt, phib, NULL, NULL);
    }
  AirfoilCorrectGeometryAdjoint(af, lb, phi, geob, af->gfib, af->gfjb, af->gftb); /* the same correction's */
  PetscCall(DMDAVecRestoreArray(af->da, af->bloc[3], &phib));
  /* b bar = P^-T phi bar; P's bar; the flux bars of the divergence */
  PetscCall(VecSet(af->bg[2], 0));
  PetscCall(DMLocalToGlobal(af->da, af->bloc[3], ADD_VALUES, af->bg[2]));
  PetscCall(VecSet(af->bg[3], 0));
  PetscCall(KSPSolve(af->kspt, af->bg[2], af->bg[3]));
  PetscCall(AirfoilCheckKSP(af, af->kspt, "transposed pressure"));
  PetscCall(VecSet(af->ybloc, 0));
  PetscCall(DMDAVecGetArray(af->da, af->bg[3], &bb));
  PetscCall(DMDAVecGetArray(af->sda, af->ybloc, &sbl));
  AirfoilPressureSolveGeometryAdjoint(af, bb, phi, af->lappb);
  AirfoilDivergenceRHSAdjoint(af, bb, sbl);
  PetscCall(DMDAVecRestoreArray(af->sda, af->ybloc, &sbl));
  PetscCall(DMDAVecRestoreArray(af->da, af->bg[3], &bb));
  PetscCall(DMDAVecRestoreArray(af->da, af->floc[3], &phi));
  PetscCall(VecSet(af->ybar, 0));
  PetscCall(DMLocalToGlobal(af->sda, af->ybloc, ADD_VALUES, af->ybar));
  /* the uniform-stream fluxes U = U_inf . S_i, V = U_inf . S_j (not at the wall), Vt = U_inf . S_t */
  PetscCall(DMDAVecGetArrayRead(af->sda, af->ybar, &fb));
  for (PetscInt j = af->ys; j < af->ys + af->ym; j++)
    for (PetscInt i = af->xs; i < af->xs + af->xm; i++) {
      const PetscInt  f  = j * g->ni + i;
      const PetscReal Ub = fb[j][i].U + lb[j][i].U, Vb = fb[j][i].V + lb[j][i].V, Vtb = fb[j][i].Vt + lb[j][i].Vt;
      for (PetscInt d = 0; d < 2; d++) {
        geob->si[2 * f + d] += Ub * af->uinf[d];
        if (j > 0) geob->sj[2 * f + d] += Vb * af->uinf[d];
        if (j == g->nc - 1) geob->sj[2 * (f + g->ni) + d] += Vtb * af->uinf[d];
      }
    }
  PetscCall(DMDAVecRestoreArrayRead(af->sda, af->ybar, &fb));
  PetscCall(DMDAVecRestoreArrayRead(af->sda, lambda0, &lb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AirfoilShapeBarsSetUp - the storage of the shape gradient (geometry and form bars, the kept phi, w and U*): only
    when the block `shape` is active, so that other runs do not pay for it. Collective. @*/
PetscErrorCode AirfoilShapeBarsSetUp(Airfoil af)
{
  const PetscInt n = af->xm * af->ym;

  PetscFunctionBeginUser;
  if (af->shapebars) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(AirfoilGeometryBarCreate(&af->geo, &af->geob));
  PetscCall(PetscCalloc5(n, &af->lapvb, n, &af->lappb, n, &af->gfib, n, &af->gfjb, n, &af->gftb));
  PetscCall(VecDuplicate(af->floc[0], &af->phikeep));
  PetscCall(VecSet(af->phikeep, 0));
  PetscCall(VecDuplicate(af->xloc, &af->wkeep));
  PetscCall(VecSet(af->wkeep, 0));
  af->shapebars = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AirfoilShapeBarsDestroy(Airfoil af)
{
  PetscFunctionBeginUser;
  if (!af->shapebars) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(AirfoilGeometryDestroy(&af->geob));
  PetscCall(PetscFree5(af->lapvb, af->lappb, af->gfib, af->gfjb, af->gftb));
  PetscCall(VecDestroy(&af->phikeep));
  PetscCall(VecDestroy(&af->wkeep));
  af->shapebars = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AirfoilShapeGeometryBar - t (from AirfoilGeometryBarCreate, all zero) = this rank's share of the total geometry bar
   of the accumulators: a copy of the geometry bar share plus the form adjoints of the owned cells' form bars (the forms
    are pure functions of the geometry and of the far-field weights, whose bars are taken elsewhere). The
    accumulators are left unchanged (the gradient hook may run more than once). Not collective. @*/
PetscErrorCode AirfoilShapeGeometryBar(Airfoil af, AirfoilGeometry *t)
{
  const AirfoilGeometry *g     = &af->geo;
  const PetscInt         ncell = g->ni * g->nc, nn = g->ni * (g->nc + 1);
  PetscReal             *one;
  AirfoilBoundary        bv = {PETSC_TRUE, af->wf}, bp = {PETSC_FALSE, NULL};

  PetscFunctionBeginUser;
  PetscCall(PetscArraycpy(t->xn, af->geob.xn, 2 * nn));
  PetscCall(PetscArraycpy(t->area, af->geob.area, ncell));
  PetscCall(PetscArraycpy(t->ext, af->geob.ext, g->ni));
  PetscCall(PetscArraycpy(t->si, af->geob.si, 2 * ncell));
  PetscCall(PetscArraycpy(t->sj, af->geob.sj, 2 * nn));
  PetscCall(PetscArraycpy(t->xc, af->geob.xc, 2 * ncell));
  PetscCall(PetscArraycpy(t->ai, af->geob.ai, ncell));
  PetscCall(PetscArraycpy(t->bi, af->geob.bi, ncell));
  PetscCall(PetscArraycpy(t->aj, af->geob.aj, nn));
  PetscCall(PetscArraycpy(t->bj, af->geob.bj, nn));
  PetscCall(PetscMalloc1(g->ni, &one));
  for (PetscInt i = 0; i < g->ni; i++) one[i] = 1;
  bp.wf = one;
  for (PetscInt j = af->ys; j < af->ys + af->ym; j++)
    for (PetscInt i = af->xs; i < af->xs + af->xm; i++) {
      const PetscInt c = (j - af->ys) * af->xm + (i - af->xs);
      AirfoilFormLaplacianAdjoint(g, &bv, i, j, &af->lapvb[c], t, NULL);
      AirfoilFormLaplacianAdjoint(g, &bp, i, j, &af->lappb[c], t, NULL);
      AirfoilFormIFaceAdjoint(g, &bp, i, j, 0, &af->gfib[c], t, NULL);
      AirfoilFormJFaceAdjoint(g, &bp, i, j, 0, &af->gfjb[c], t, NULL);
      AirfoilFormJFaceAdjoint(g, &bp, i, j, 1, &af->gftb[c], t, NULL);
    }
  PetscCall(PetscFree(one));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AirfoilShapeGradient - pb[np] += the shape gradient of the accumulated bars (AirfoilShapeGeometryBar, then
    AirfoilShapeAdjoint). The same pb on every rank. Collective. @*/
PetscErrorCode AirfoilShapeGradient(Airfoil af, PetscReal pb[])
{
  AirfoilGeometry t;

  PetscFunctionBeginUser;
  PetscCall(AirfoilGeometryBarCreate(&af->geo, &t));
  PetscCall(AirfoilShapeGeometryBar(af, &t));
  PetscCall(AirfoilShapeAdjoint(af->og, &af->geo, &t, pb));
  PetscCall(AirfoilGeometryDestroy(&t));
  PetscFunctionReturn(PETSC_SUCCESS);
}
