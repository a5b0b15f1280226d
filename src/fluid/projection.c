/* Pressure projection on the MAC grid: y = x - G phi with D G phi = D x, so that D y = 0.
 *
 * D: cell divergence of the face velocities; G: face gradient of a cell potential, zero on faces
 * with a prescribed normal velocity (homogeneous Neumann for phi), Dirichlet phi = 0 on outflow
 * faces.  A = -D G is the 5-point Laplacian with those conditions: symmetric positive
 * (semi-)definite, solved by KSP (CG + multigrid, prefix -fluid_) or, on any of our boxes, by FFTW
 * (AdjFFTSolver, src/numerics/fftsolver.c: DFT in periodic directions, DCT/DST in the others).  The solve starts from a
 * zero guess every time, so the projection is a pure function of its input (bit-for-bit restarts, exact adjoint later).
 */
#include "fluidimpl.h"

const char *const FluidPoissonTypes[] = {"auto", "ksp", "fftw", "FluidPoissonType", "FLUID_POISSON_", NULL};

/*@ FluidDivergence - div[j][i] = (u_{i+1} - u_i)/hx + (v_{j+1} - v_j)/hy of each owned cell.
    x: ghosted, boundary-filled state. Not collective. @*/
PetscErrorCode FluidDivergence(const FluidGrid *g, const FluidCell *const *x, PetscScalar **div)
{
  const PetscReal ihx = 1 / g->h[0], ihy = 1 / g->h[1];

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(FLUID_Divergence, 0, 0, 0, 0));
  for (PetscInt j = g->ys; j < g->ys + g->ym; j++)
    for (PetscInt i = g->xs; i < g->xs + g->xm; i++)
      div[j][i] = (x[j][i + 1].u - x[j][i].u) * ihx + (x[j + 1][i].v - x[j][i].v) * ihy;
  PetscCall(PetscLogEventEnd(FLUID_Divergence, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ FluidDivergenceAdjoint - transpose of FluidDivergence: for each owned cell,
    ub_{i+1} += db/hx, ub_i -= db/hx, vb_{j+1} += db/hy, vb_j -= db/hy on the ghosted local
    adjoint array xb (accumulates). Not collective. @*/
PetscErrorCode FluidDivergenceAdjoint(const FluidGrid *g, const PetscScalar *const *db, FluidCell **xb)
{
  const PetscReal ihx = 1 / g->h[0], ihy = 1 / g->h[1];

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(FLUID_DivergenceAdj, 0, 0, 0, 0));
  for (PetscInt j = g->ys; j < g->ys + g->ym; j++)
    for (PetscInt i = g->xs; i < g->xs + g->xm; i++) {
      const PetscScalar a = db[j][i] * ihx, b = db[j][i] * ihy;
      xb[j][i + 1].u += a, xb[j][i].u -= a;
      xb[j + 1][i].v += b, xb[j][i].v -= b;
    }
  PetscCall(PetscLogEventEnd(FLUID_DivergenceAdj, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ FluidGradientCorrect - y = x - G phi on every owned face, y.p = pscale phi.
    x: ghosted, boundary-filled state; phi: ghosted potential with FluidFillPressureGhosts applied
    (so a prescribed normal face is left unchanged and an outflow face gets the Dirichlet
    gradient).  Not collective.
      y_u(i,j) = x_u(i,j) - (phi_{i,j} - phi_{i-1,j})/hx,   y_v(i,j) = x_v(i,j) - (phi_{i,j} - phi_{i,j-1})/hy @*/
PetscErrorCode FluidGradientCorrect(const FluidGrid *g, PetscReal pscale, const FluidCell *const *x,
                                    const PetscScalar *const *phi, FluidCell **y)
{
  const PetscReal ihx = 1 / g->h[0], ihy = 1 / g->h[1];

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(FLUID_Correct, 0, 0, 0, 0));
  for (PetscInt j = g->ys; j < g->ys + g->ym; j++)
    for (PetscInt i = g->xs; i < g->xs + g->xm; i++) {
      y[j][i].u = x[j][i].u - (phi[j][i] - phi[j][i - 1]) * ihx;
      y[j][i].v = x[j][i].v - (phi[j][i] - phi[j - 1][i]) * ihy;
      y[j][i].p = pscale * phi[j][i];
    }
  PetscCall(PetscLogEventEnd(FLUID_Correct, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ FluidGradientCorrectAdjoint - transpose of FluidGradientCorrect (accumulates):
      xb_u += yb_u, xb_v += yb_v on owned faces of the local array xb;
      phib_{i,j} += pscale yb_p - yb_u/hx - yb_v/hy,  phib_{i-1,j} += yb_u/hx,  phib_{i,j-1} += yb_v/hy
    on the ghosted local potential adjoint phib (before the pressure-ghost adjoint). Not collective. @*/
PetscErrorCode FluidGradientCorrectAdjoint(const FluidGrid *g, PetscReal pscale, const FluidCell *const *yb,
                                           FluidCell **xb, PetscScalar **phib)
{
  const PetscReal ihx = 1 / g->h[0], ihy = 1 / g->h[1];

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(FLUID_CorrectAdj, 0, 0, 0, 0));
  for (PetscInt j = g->ys; j < g->ys + g->ym; j++)
    for (PetscInt i = g->xs; i < g->xs + g->xm; i++) {
      const PetscScalar a = yb[j][i].u * ihx, b = yb[j][i].v * ihy;
      xb[j][i].u += yb[j][i].u, xb[j][i].v += yb[j][i].v;
      phib[j][i] += pscale * yb[j][i].p - a - b;
      phib[j][i - 1] += a, phib[j - 1][i] += b;
    }
  PetscCall(PetscLogEventEnd(FLUID_CorrectAdj, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* DMGlobalToLocal of a periodic box on one rank, by row copies (the same values; PETSc's scatter of
 * every point by its index took a quarter of the step at 256^2): row j of the local array is row
 * j mod My, its ghost columns the periodic images. Not collective. */
static PetscErrorCode FluidPeriodicHalo(Fluid fl, Vec x, Vec xloc)
{
  const PetscInt    Mx = fl->grid.M[0], My = fl->grid.M[1];
  const FluidCell **xa;
  FluidCell       **la;

  PetscFunctionBeginUser;
  PetscCall(DMDAVecGetArrayRead(fl->da, x, &xa));
  PetscCall(DMDAVecGetArray(fl->da, xloc, &la));
  for (PetscInt j = -1; j <= My; j++) {
    const FluidCell *src = xa[(j + My) % My];
    FluidCell       *dst = la[j];
    PetscCall(PetscArraycpy(dst, src, Mx));
    dst[-1] = src[Mx - 1], dst[Mx] = src[0];
  }
  PetscCall(DMDAVecRestoreArray(fl->da, xloc, &la));
  PetscCall(DMDAVecRestoreArrayRead(fl->da, x, &xa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ FluidGlobalToLocalFilled - halo exchange of the state, then the boundary rules. Collective. @*/
PetscErrorCode FluidGlobalToLocalFilled(Fluid fl, Vec x, Vec xloc)
{
  FluidCell **a;

  PetscFunctionBeginUser;
  if (fl->serial_periodic)
    PetscCall(FluidPeriodicHalo(fl, x, xloc));
  else
    PetscCall(DMGlobalToLocal(fl->da, x, INSERT_VALUES, xloc));
  PetscCall(DMDAVecGetArray(fl->da, xloc, &a));
  PetscCall(FluidFillBoundary(&fl->grid, a));
  PetscCall(DMDAVecRestoreArray(fl->da, xloc, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ FluidLocalToGlobalFilledAdjoint - transpose of FluidGlobalToLocalFilled's tangent:
    boundary-rule adjoint on the local adjoint xbloc (which it modifies), then the halo exchange
    in reverse, xb += sum of the local copies (ADD_VALUES). Collective. @*/
PetscErrorCode FluidLocalToGlobalFilledAdjoint(Fluid fl, Vec xbloc, Vec xb)
{
  FluidCell **a;

  PetscFunctionBeginUser;
  PetscCall(DMDAVecGetArray(fl->da, xbloc, &a));
  PetscCall(FluidFillBoundaryAdjoint(&fl->grid, a, fl->gbc_local));
  PetscCall(DMDAVecRestoreArray(fl->da, xbloc, &a));
  PetscCall(DMLocalToGlobal(fl->da, xbloc, ADD_VALUES, xb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A = -D G assembled on the cell DMDA: per face to a neighbour cell (interior or periodic) the
 * usual 1/h^2 coupling; a boundary face adds nothing (Neumann) or 2/h^2 to the diagonal (outflow:
 * phi = 0 on the face, ghost = -inner). */
static PetscErrorCode FluidAssembleLaplacian(Fluid fl)
{
  const FluidGrid *g  = &fl->grid;
  const PetscReal  cx = 1 / (g->h[0] * g->h[0]), cy = 1 / (g->h[1] * g->h[1]);

  PetscFunctionBeginUser;
  PetscCall(DMCreateMatrix(fl->pda, &fl->A));
  for (PetscInt j = g->ys; j < g->ys + g->ym; j++)
    for (PetscInt i = g->xs; i < g->xs + g->xm; i++) {
      MatStencil      row = {.i = i, .j = j}, col[5];
      PetscScalar     val[5];
      PetscInt        n          = 1;
      const PetscInt  nb[4][2]   = {{i - 1, j}, {i + 1, j}, {i, j - 1}, {i, j + 1}};
      const PetscInt  face[4][2] = {{0, i}, {0, i + 1}, {1, j}, {1, j + 1}}; /* direction, face index */
      const PetscReal c[4]       = {cx, cx, cy, cy};

      col[0] = row;
      val[0] = 0;
      for (PetscInt f = 0; f < 4; f++) {
        const PetscInt d = face[f][0], side = f % 2;
        if (!FluidIsBoundaryFace(g, d, face[f][1])) {
          col[n].i = nb[f][0], col[n].j = nb[f][1], col[n].k = 0, col[n].c = 0;
          val[n++] = -c[f];
          val[0] += c[f];
        } else if (g->bc[d][side].type == FLUID_BC_OUTFLOW)
          val[0] += 2 * c[f];
      }
      PetscCall(MatSetValuesStencil(fl->A, 1, &row, n, col, val, INSERT_VALUES));
    }
  PetscCall(MatAssemblyBegin(fl->A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(fl->A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ FluidPoissonSetUp - the pressure solver: FFTW (the default: exact, a DFT in periodic directions and
    the DCT/DST matching the Neumann or Dirichlet conditions in the others), or KSP:
    CG with PETSc's algebraic multigrid GAMG (about 20 iterations to 1e-10 on the cavity, and
    deterministic: bit-for-bit restarts).  -fluid_ksp_* and -fluid_pc_* options override it, e.g.
    -fluid_pc_type hypre (BoomerAMG, about 7 iterations; its bit-reproducibility with Debian's
    OpenMP-enabled build is unverified, set OMP_NUM_THREADS=1 to be safe). Collective. @*/
PetscErrorCode FluidPoissonSetUp(Fluid fl)
{
  const FluidGrid *g = &fl->grid;
  PC               pc;
  PetscReal        hmin = PetscMin(g->h[0], g->h[1]);

  PetscFunctionBeginUser;
  fl->singular = PETSC_TRUE;
  for (PetscInt d = 0; d < FLUID_DIM; d++)
    for (PetscInt s = 0; s < 2; s++)
      if (g->bc[d][s].type == FLUID_BC_OUTFLOW) fl->singular = PETSC_FALSE;
  if (fl->poisson == FLUID_POISSON_AUTO) fl->poisson = FLUID_POISSON_FFTW; /* every box the solver has */

  PetscCall(DMCreateGlobalVector(fl->pda, &fl->div));
  PetscCall(VecDuplicate(fl->div, &fl->phi));
  PetscCall(DMCreateLocalVector(fl->pda, &fl->philoc));
  PetscCall(VecSet(fl->philoc, 0.0));
  if (fl->poisson == FLUID_POISSON_FFTW) {
    AdjFFTBoundary bc[2][2];

    for (PetscInt d = 0; d < FLUID_DIM; d++)
      for (PetscInt side = 0; side < 2; side++)
        bc[d][side] = g->bc[d][side].type == FLUID_BC_PERIODIC  ? ADJ_FFT_PERIODIC
                      : g->bc[d][side].type == FLUID_BC_OUTFLOW ? ADJ_FFT_DIRICHLET
                                                                : ADJ_FFT_NEUMANN;
    if (fl->fftw_y == ADJ_FFT_Y_TRIDIAGONAL) {
      PetscBool   ok;
      const char *why;
      PetscCall(AdjFFTSolverTridiagonalPossible(fl->pda, bc, &ok, &why));
      PetscCheck(ok, fl->comm, PETSC_ERR_USER_INPUT,
                 "-fluid_fftw_y tridiagonal cannot run here: %s; use -fluid_fftw_y auto or transform", why);
    }
    if (fl->fftw_measure) { /* the plans of the first run with this file, for bit-for-bit later runs and restarts */
      PetscBool found;
      PetscCall(AdjFFTWisdomLoad(fl->comm, fl->fftw_wisdom, "-fluid_fftw_wisdom", &found));
    }
    PetscCall(AdjFFTSolverCreateWith(fl->pda, fl->grid.h, bc, fl->fftw_y, fl->fftw_measure, &fl->fft));
    if (fl->fftw_measure) { /* planned again from the saved wisdom: the plans of every later run (see AdjFFTWisdomSave)
                             */
      PetscCall(AdjFFTWisdomSave(fl->comm, fl->fftw_wisdom, "-fluid_fftw_wisdom"));
      PetscCall(AdjFFTSolverDestroy(&fl->fft));
      PetscCall(AdjFFTSolverCreateWith(fl->pda, fl->grid.h, bc, fl->fftw_y, fl->fftw_measure, &fl->fft));
    }
    if (fl->serial_periodic) { /* the fused projection (FluidProjectRows) works in the solver's rows */
      const PetscInt My = g->M[1];
      PetscScalar   *rows;
      PetscInt       ld;
      PetscCall(AdjFFTSolverGetRows(fl->fft, &rows, &ld));
      if (rows) {
        PetscCall(PetscMalloc1(My + 2, &fl->fftrows));
        fl->fftrows++; /* rows -1 and My: the periodic images */
        for (PetscInt j = -1; j <= My; j++) fl->fftrows[j] = rows + ((j + My) % My) * ld;
      }
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(FluidAssembleLaplacian(fl));
  if (fl->singular) {
    PetscCall(MatNullSpaceCreate(fl->comm, PETSC_TRUE, 0, NULL, &fl->nullsp));
    PetscCall(MatSetNullSpace(fl->A, fl->nullsp));
    PetscCall(MatSetTransposeNullSpace(fl->A, fl->nullsp));
  }
  PetscCall(KSPCreate(fl->comm, &fl->ksp));
  PetscCall(KSPSetOptionsPrefix(fl->ksp, fl->prefix));
  PetscCall(KSPAppendOptionsPrefix(fl->ksp, "fluid_"));
  PetscCall(KSPSetOperators(fl->ksp, fl->A, fl->A));
  PetscCall(KSPSetType(fl->ksp, KSPCG));
  PetscCall(KSPSetNormType(fl->ksp, KSP_NORM_UNPRECONDITIONED));
  /* rtol on |div| of the predicted field; atol keeps an already divergence-free input from
     iterating on round-off: 1e-13 of a divergence U/h in every cell. */
  PetscCall(KSPSetTolerances(fl->ksp, 1e-10, 1e-13 * fl->uscale / hmin * PetscSqrtReal((PetscReal)g->M[0] * g->M[1]),
                             PETSC_DEFAULT, 1000));
  PetscCall(KSPGetPC(fl->ksp, &pc));
  PetscCall(PCSetType(pc, PCGAMG));
  PetscCall(KSPSetFromOptions(fl->ksp));
  PetscCall(KSPSetUp(fl->ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ FluidPoissonSolve - phi = A^{-1} b with the selected solver; in the singular case b is
    orthogonal to the constants (telescoping fluxes) and phi is returned with zero mean.
    Collective. @*/
PetscErrorCode FluidPoissonSolve(Fluid fl, Vec b, Vec phi)
{
  KSPConvergedReason reason;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(FLUID_Poisson, 0, 0, 0, 0));
  if (fl->poisson == FLUID_POISSON_FFTW)
    PetscCall(AdjFFTSolverSolve(fl->fft, 0.0, 1.0, b, phi)); /* -DG phi = b, zero mean */
  else {
    PetscCall(KSPSolve(fl->ksp, b, phi));
    PetscCall(KSPGetConvergedReason(fl->ksp, &reason));
    PetscCall(KSPGetIterationNumber(fl->ksp, &fl->ksp_its));
    PetscCheck(reason > 0, fl->comm, PETSC_ERR_NOT_CONVERGED,
               "Pressure Poisson solve did not converge (%s after %" PetscInt_FMT
               " iterations); try other -fluid_ksp_type/-fluid_pc_type or a looser -fluid_ksp_rtol",
               KSPConvergedReasons[reason], fl->ksp_its);
    if (fl->singular) PetscCall(MatNullSpaceRemove(fl->nullsp, phi));
  }
  PetscCall(PetscLogEventEnd(FLUID_Poisson, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FluidPoissonDestroy(Fluid fl)
{
  PetscFunctionBeginUser;
  PetscCall(KSPDestroy(&fl->ksp));
  PetscCall(MatDestroy(&fl->A));
  PetscCall(MatNullSpaceDestroy(&fl->nullsp));
  PetscCall(AdjFFTSolverDestroy(&fl->fft));
  if (fl->fftrows) fl->fftrows--;
  PetscCall(PetscFree(fl->fftrows));
  PetscCall(VecDestroy(&fl->div));
  PetscCall(VecDestroy(&fl->phi));
  PetscCall(VecDestroy(&fl->philoc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* FluidProject on a periodic box on one rank, in the FFTW solver's rows: the divergence of x (its
 * global array: the periodic images are row 0 and column 0) written there, the solve in place, the
 * correction read from there (the images of phi are rows -1 and My of fl->fftrows and column
 * Mx - 1): no halo exchange of x or phi, no right-hand side or potential vectors, no copies in or
 * out of the solver.  The same operations on the same values as
 * FluidDivergence, AdjFFTSolverSolve and FluidGradientCorrect: the same bits. Not collective. */
static PetscErrorCode FluidProjectRows(Fluid fl, PetscReal pscale, const FluidCell *const *x, Vec y,
                                       const FluidCell *const *s1, const FluidCell *const *s2)
{
  const FluidGrid *g  = &fl->grid;
  const PetscInt   Mx = g->M[0], My = g->M[1];
  const PetscReal  ihx = 1 / g->h[0], ihy = 1 / g->h[1];
  PetscScalar    **phi = fl->fftrows;
  FluidCell      **ya;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(FLUID_Divergence, 0, 0, 0, 0));
  for (PetscInt j = 0; j < My; j++) { /* FluidDivergence, the periodic images taken from row 0 and column 0 */
    const FluidCell *xj = x[j], *xn = x[j + 1 < My ? j + 1 : 0];
    PetscScalar     *d = phi[j];
    for (PetscInt i = 0; i < Mx - 1; i++) d[i] = (xj[i + 1].u - xj[i].u) * ihx + (xn[i].v - xj[i].v) * ihy;
    d[Mx - 1] = (xj[0].u - xj[Mx - 1].u) * ihx + (xn[Mx - 1].v - xj[Mx - 1].v) * ihy;
  }
  PetscCall(PetscLogEventEnd(FLUID_Divergence, 0, 0, 0, 0));
  PetscCall(PetscLogEventBegin(FLUID_Poisson, 0, 0, 0, 0));
  PetscCall(AdjFFTSolverSolveRows(fl->fft, 0.0, -1.0)); /* (-A) phi = D x */
  PetscCall(PetscLogEventEnd(FLUID_Poisson, 0, 0, 0, 0));
  PetscCall(PetscLogEventBegin(FLUID_Correct, 0, 0, 0, 0));
  PetscCall(DMDAVecGetArray(fl->da, y, &ya));
  for (PetscInt j = 0; j < My; j++) {
    const PetscScalar *p = phi[j], *ps = phi[j - 1];
    const FluidCell   *xj = x[j];
    FluidCell         *yj = ya[j];
    yj[0].u               = xj[0].u - (p[0] - p[Mx - 1]) * ihx;
    for (PetscInt i = 1; i < Mx; i++) yj[i].u = xj[i].u - (p[i] - p[i - 1]) * ihx;
    for (PetscInt i = 0; i < Mx; i++) yj[i].v = xj[i].v - (p[i] - ps[i]) * ihy;
    if (s1) /* FluidStagePressures' sum, y.p + (s1.p + s2.p), in this pass */
      for (PetscInt i = 0; i < Mx; i++) yj[i].p = pscale * p[i] + (s1[j][i].p + s2[j][i].p);
    else
      for (PetscInt i = 0; i < Mx; i++) yj[i].p = pscale * p[i];
  }
  PetscCall(DMDAVecRestoreArray(fl->da, y, &ya));
  PetscCall(PetscLogEventEnd(FLUID_Correct, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ FluidProject - y = P x: boundary rules, divergence, Poisson solve A phi = -D x, correction
    y = x - G phi and y.p = pscale phi (pscale = 1/(c dt) turns the potential of a stage with
    weight c dt into a kinematic pressure). x and y may be the same Vec. Collective. @*/
PetscErrorCode FluidProject(Fluid fl, PetscReal pscale, Vec x, Vec y)
{
  const FluidCell **xa;
  FluidCell       **ya;
  PetscScalar     **d, **phi;

  PetscFunctionBeginUser;
  if (fl->fftrows) { /* periodic box on one rank: no boundary rules, the images are read in place */
    PetscCall(DMDAVecGetArrayRead(fl->da, x, &xa));
    PetscCall(FluidProjectRows(fl, pscale, xa, y, NULL, NULL));
    PetscCall(DMDAVecRestoreArrayRead(fl->da, x, &xa));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(FluidGlobalToLocalFilled(fl, x, fl->xloc));
  PetscCall(DMDAVecGetArrayRead(fl->da, fl->xloc, &xa));
  PetscCall(DMDAVecGetArray(fl->pda, fl->div, &d));
  PetscCall(FluidDivergence(&fl->grid, xa, d));
  PetscCall(DMDAVecRestoreArray(fl->pda, fl->div, &d));
  if (fl->poisson == FLUID_POISSON_FFTW) { /* A phi = -D x as (-A) phi = D x: the same bits, one pass less */
    PetscCall(PetscLogEventBegin(FLUID_Poisson, 0, 0, 0, 0));
    PetscCall(AdjFFTSolverSolve(fl->fft, 0.0, -1.0, fl->div, fl->phi));
    PetscCall(PetscLogEventEnd(FLUID_Poisson, 0, 0, 0, 0));
  } else {
    PetscCall(VecScale(fl->div, -1.0));
    PetscCall(FluidPoissonSolve(fl, fl->div, fl->phi));
  }
  PetscCall(DMGlobalToLocal(fl->pda, fl->phi, INSERT_VALUES, fl->philoc));
  PetscCall(DMDAVecGetArray(fl->pda, fl->philoc, &phi));
  PetscCall(FluidFillPressureGhosts(&fl->grid, phi));
  PetscCall(DMDAVecGetArray(fl->da, y, &ya));
  PetscCall(FluidGradientCorrect(&fl->grid, pscale, xa, (const PetscScalar *const *)phi, ya));
  PetscCall(DMDAVecRestoreArray(fl->da, y, &ya));
  PetscCall(DMDAVecRestoreArray(fl->pda, fl->philoc, &phi));
  PetscCall(DMDAVecRestoreArrayRead(fl->da, fl->xloc, &xa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ FluidProjectSumPressures - y = P x with y.p = pscale phi + (s1.p + s2.p), the last projection of a
    step and FluidStagePressures (step.c) in one pass, the same bits: on a periodic box on one rank
    (*done = PETSC_TRUE); elsewhere nothing is done (*done = PETSC_FALSE). Collective. @*/
PetscErrorCode FluidProjectSumPressures(Fluid fl, PetscReal pscale, Vec x, Vec s1, Vec s2, Vec y, PetscBool *done)
{
  const FluidCell **xa, **s1a, **s2a;

  PetscFunctionBeginUser;
  *done = (PetscBool)(fl->fftrows != NULL);
  if (!*done) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(DMDAVecGetArrayRead(fl->da, x, &xa));
  PetscCall(DMDAVecGetArrayRead(fl->da, s1, &s1a));
  PetscCall(DMDAVecGetArrayRead(fl->da, s2, &s2a));
  PetscCall(FluidProjectRows(fl, pscale, xa, y, s1a, s2a));
  PetscCall(DMDAVecRestoreArrayRead(fl->da, s2, &s2a));
  PetscCall(DMDAVecRestoreArrayRead(fl->da, s1, &s1a));
  PetscCall(DMDAVecRestoreArrayRead(fl->da, x, &xa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ FluidPoissonSolveAdjoint - transpose of FluidPoissonSolve.  The forward solve is
    S = Pi A^+ (Pi: removal of the mean in the singular case, A symmetric), so S^T = A^+ Pi:
    remove the mean of phib, then the same solve.  With KSP the transpose is exact to the solver
    tolerance (-fluid_ksp_rtol); with FFTW to round-off. b and phib may be the same Vec. Collective. @*/
PetscErrorCode FluidPoissonSolveAdjoint(Fluid fl, Vec phib, Vec bb)
{
  PetscFunctionBeginUser;
  if (fl->singular) {
    PetscScalar mean;
    PetscInt    n;
    PetscCall(VecSum(phib, &mean));
    PetscCall(VecGetSize(phib, &n));
    PetscCall(VecShift(phib, -mean / n));
  }
  if (fl->ksp) { /* the forward's absolute tolerance is scaled for velocities, not for adjoints: rtol only */
    PetscReal rtol, atol, dtol;
    PetscInt  maxits;
    PetscCall(KSPGetTolerances(fl->ksp, &rtol, &atol, &dtol, &maxits));
    PetscCall(KSPSetTolerances(fl->ksp, rtol, 0.0, dtol, maxits));
    PetscCall(FluidPoissonSolve(fl, phib, bb));
    PetscCall(KSPSetTolerances(fl->ksp, rtol, atol, dtol, maxits));
  } else
    PetscCall(FluidPoissonSolve(fl, phib, bb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ FluidProjectAdjoint - xb = P^T yb for the projection y = P x of FluidProject (pscale the same):
    correction adjoint, pressure-ghost adjoint, the transposed solve, divergence adjoint, then the
    boundary-rule and halo adjoints.  xb.p = 0 (P does not read x.p).  yb and xb must differ.
    Collective. @*/
PetscErrorCode FluidProjectAdjoint(Fluid fl, PetscReal pscale, Vec yb, Vec xb)
{
  const FluidCell **ya;
  FluidCell       **xa;
  PetscScalar     **phib, **db;

  PetscFunctionBeginUser;
  PetscCall(VecSet(fl->xbloc, 0.0));
  PetscCall(VecSet(fl->philoc, 0.0));
  PetscCall(DMDAVecGetArrayRead(fl->da, yb, &ya));
  PetscCall(DMDAVecGetArray(fl->da, fl->xbloc, &xa));
  PetscCall(DMDAVecGetArray(fl->pda, fl->philoc, &phib));
  PetscCall(FluidGradientCorrectAdjoint(&fl->grid, pscale, ya, xa, phib));
  PetscCall(FluidFillPressureGhostsAdjoint(&fl->grid, phib));
  PetscCall(DMDAVecRestoreArray(fl->pda, fl->philoc, &phib));
  PetscCall(VecSet(fl->phi, 0.0));
  PetscCall(DMLocalToGlobal(fl->pda, fl->philoc, ADD_VALUES, fl->phi));
  PetscCall(FluidPoissonSolveAdjoint(fl, fl->phi, fl->div)); /* bb, with b = -div */
  PetscCall(VecScale(fl->div, -1.0));
  PetscCall(DMDAVecGetArrayRead(fl->pda, fl->div, &db));
  PetscCall(FluidDivergenceAdjoint(&fl->grid, (const PetscScalar *const *)db, xa));
  PetscCall(DMDAVecRestoreArrayRead(fl->pda, fl->div, &db));
  PetscCall(DMDAVecRestoreArray(fl->da, fl->xbloc, &xa));
  PetscCall(DMDAVecRestoreArrayRead(fl->da, yb, &ya));
  PetscCall(VecSet(xb, 0.0));
  PetscCall(FluidLocalToGlobalFilledAdjoint(fl, fl->xbloc, xb)); /* xbloc.p = 0 (no kernel above writes it): xb.p = 0 */
  PetscFunctionReturn(PETSC_SUCCESS);
}
