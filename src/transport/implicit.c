/* Implicit diffusion for scalar transport: the Crank-Nicolson substep of the Strang-split scheme
 * (-transport_diffusion implicit), its exact discrete adjoint, and its linear solver.
 *
 * With D_full(kappa, c) the diffusion kernel on the ghosted state (boundary ghost rule included),
 * D_full(kappa, c) = D_lin(kappa) c + b(kappa), one substep of length tau solves
 *   (I - tau/2 D_lin) c' = c + tau/2 D_full(kappa, c) + tau/2 b(kappa),
 * i.e. c' - tau/2 D_full(kappa, c') = c + tau/2 D_full(kappa, c).  A = I - tau/2 D_lin is symmetric
 * positive definite on the uniform grid (face diffusivity the mean of its two cells; boundary rules
 * only touch the diagonal).  Solvers: CG + algebraic multigrid on the assembled A (ksp), or the
 * FFT diagonalisation of A on a periodic grid with constant kappa (fftw: AdjFFTSolver, src/numerics/fftsolver.c).
 */
#include "transportimpl.h"

PetscLogEvent TRANSPORT_DiffuseCN, TRANSPORT_DiffuseCNAdj;

const char *const TransportDiffusionModes[] = {"explicit", "implicit", "TransportDiffusionMode", "TRANSPORT_DIFFUSION_",
                                               NULL};
const char *const TransportCNSolverTypes[]  = {"auto", "fftw", "ksp", "TransportCNSolverType", "TRANSPORT_CN_", NULL};

/* Log events of the class TransportCN, registered once by the create function. */
static const AdjLogEvent TransportImplicitEvents[] = {{"TrDiffuseCN", &TRANSPORT_DiffuseCN},
                                                      {"TrDiffuseCNAdj", &TRANSPORT_DiffuseCNAdj}};

/* CG with smoothed-aggregation algebraic multigrid (PCGAMG) by default: A is an SPD M-matrix
 * (identity plus a weighted graph Laplacian), for which one GAMG V-cycle is a symmetric
 * preconditioner of grid-independent quality; unlike geometric PCMG it needs no coarsenable grid
 * size (decks use 13 x 10, 24 x 20, ...) and handles a diffusivity field, and unlike hypre it is
 * part of every PETSc build.  The DM is attached (inactive) so -transport_pc_type mg works too on
 * coarsenable grids.  The tolerance is on the true residual, relative to |rhs|. */
static PetscErrorCode TransportCNCreateKSP(Transport tr)
{
  TransportImplicit *im = &tr->impl;
  PC                 pc;

  PetscFunctionBeginUser;
  PetscCall(DMCreateMatrix(tr->da, &im->A));
  PetscCall(KSPCreate(tr->comm, &im->ksp));
  PetscCall(KSPSetOptionsPrefix(im->ksp, tr->prefix));
  PetscCall(KSPAppendOptionsPrefix(im->ksp, "transport_"));
  PetscCall(KSPSetType(im->ksp, KSPCG));
  PetscCall(KSPSetNormType(im->ksp, KSP_NORM_UNPRECONDITIONED));
  PetscCall(KSPSetTolerances(im->ksp, 1e-13, PETSC_DEFAULT, PETSC_DEFAULT, 1000));
  PetscCall(KSPSetInitialGuessNonzero(im->ksp, PETSC_TRUE)); /* the input state / lambda' */
  PetscCall(KSPGetPC(im->ksp, &pc));
  PetscCall(PCSetType(pc, PCGAMG));
  PetscCall(KSPSetDM(im->ksp, tr->da));
  PetscCall(KSPSetDMActive(im->ksp, PETSC_FALSE));
  PetscCall(KSPSetFromOptions(im->ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ TransportImplicitSetFromOptions - reads -transport_diffusion and -transport_implicit_solver and
    creates the solver and work vectors of implicit mode.  Called by TransportCreate once the grid,
    parameters and work vectors exist and before the time step is chosen. Collective. @*/
PetscErrorCode TransportImplicitSetFromOptions(Transport tr)
{
  TransportImplicit *im       = &tr->impl;
  const PetscBool    periodic = (PetscBool)(tr->crule.periodic[0] && tr->crule.periodic[1]);
  PetscInt           mode = TRANSPORT_DIFFUSION_EXPLICIT, solver = TRANSPORT_CN_AUTO;

  PetscFunctionBeginUser;
  PetscCall(AdjLogRegisterEvents("TransportCN", ADJ_NUM_EVENTS(TransportImplicitEvents), TransportImplicitEvents));
  PetscOptionsBegin(tr->comm, tr->prefix, "Scalar transport: time integration of diffusion", "Transport");
  PetscCall(
      PetscOptionsEList("-transport_diffusion",
                        "explicit: SSP-RK3 of advection + diffusion + source (time step limited by diffusion too); "
                        "implicit: second-order Strang splitting, Crank-Nicolson diffusion over dt/2, SSP-RK3 of "
                        "advection + source over dt, Crank-Nicolson over dt/2 (time step limited by advection only; "
                        "linear solver -transport_implicit_solver)",
                        "", TransportDiffusionModes, 2, TransportDiffusionModes[mode], &mode, NULL));
  if (mode == TRANSPORT_DIFFUSION_IMPLICIT)
    PetscCall(PetscOptionsEList(
        "-transport_implicit_solver",
        "Solver of the Crank-Nicolson systems: auto (fftw when x and y are periodic and kappa is a "
        "constant, else ksp), fftw (FFT diagonalisation, exact to round-off), ksp (CG + algebraic "
        "multigrid, options -transport_ksp_*, -transport_pc_*; default -transport_ksp_rtol 1e-13 on "
        "the true residual: states and gradients are exact to this solver tolerance, not to round-off)",
        "", TransportCNSolverTypes, 3, TransportCNSolverTypes[solver], &solver, NULL));
  PetscOptionsEnd();
  im->mode                  = (TransportDiffusionMode)mode;
  im->solver                = TRANSPORT_CN_AUTO;
  im->A                     = NULL;
  im->ksp                   = NULL;
  im->fft                   = NULL;
  im->tau                   = 0; /* nothing set up yet */
  im->kappa_const           = 0;
  im->kappa_zero            = PETSC_FALSE;
  tr->rhs_without_diffusion = (PetscBool)(im->mode == TRANSPORT_DIFFUSION_IMPLICIT);
  if (im->mode == TRANSPORT_DIFFUSION_EXPLICIT) PetscFunctionReturn(PETSC_SUCCESS);

  if (solver == TRANSPORT_CN_AUTO) solver = periodic && !tr->kappa_is_field ? TRANSPORT_CN_FFTW : TRANSPORT_CN_KSP;
  PetscCheck(
      solver != TRANSPORT_CN_FFTW || (periodic && !tr->kappa_is_field), tr->comm, PETSC_ERR_USER_INPUT,
      "-transport_implicit_solver fftw needs periodic boundaries in x and y and a constant diffusivity, but "
      "-transport_bc_x is %s, -transport_bc_y is %s and kappa is %s; use -transport_implicit_solver ksp (or auto)",
      tr->crule.periodic[0] ? "periodic" : "not periodic", tr->crule.periodic[1] ? "periodic" : "not periodic",
      tr->kappa_is_field ? "a field (-transport_kappa_file)" : "a constant");
  im->solver = (TransportCNSolverType)solver;
  PetscCall(VecDuplicate(tr->rhs, &im->bdry));
  PetscCall(VecDuplicate(tr->rhs, &im->kappa_setup));
  PetscCall(VecDuplicate(tr->rhs, &im->half));
  PetscCall(VecDuplicate(tr->rhs, &im->adv));
  PetscCall(VecDuplicate(tr->rhs, &im->out));
  PetscCall(VecDuplicate(tr->rhs, &im->ladv));
  PetscCall(VecDuplicate(tr->rhs, &im->lhalf));
  PetscCall(VecDuplicate(tr->rhs, &im->rhs));
  PetscCall(VecDuplicate(tr->rhs, &im->mu));
  PetscCall(VecDuplicate(tr->cloc, &im->cloc2));
  PetscCall(VecSet(im->cloc2, 0.0)); /* corner ghosts are never read but keep them defined */
  if (im->solver == TRANSPORT_CN_FFTW)
    PetscCall(AdjFFTSolverCreate(tr->da, tr->grid.h, NULL, &im->fft));
  else
    PetscCall(TransportCNCreateKSP(tr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ TransportImplicitUpdateKappa - sets the Crank-Nicolson operators up for the current diffusivity
    (reassembly after TransportSetParameters).  No-op in explicit mode. Collective. @*/
PetscErrorCode TransportImplicitUpdateKappa(Transport tr)
{
  PetscFunctionBeginUser;
  if (tr->impl.mode == TRANSPORT_DIFFUSION_IMPLICIT && tr->dt > 0) PetscCall(TransportCNSetUp(tr, 0.5 * tr->dt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ TransportImplicitDestroy - frees what TransportImplicitSetFromOptions created. @*/
PetscErrorCode TransportImplicitDestroy(Transport tr)
{
  TransportImplicit *im = &tr->impl;

  PetscFunctionBeginUser;
  PetscCall(MatDestroy(&im->A));
  PetscCall(KSPDestroy(&im->ksp));
  PetscCall(AdjFFTSolverDestroy(&im->fft));
  PetscCall(VecDestroy(&im->bdry));
  PetscCall(VecDestroy(&im->kappa_setup));
  PetscCall(VecDestroy(&im->half));
  PetscCall(VecDestroy(&im->adv));
  PetscCall(VecDestroy(&im->out));
  PetscCall(VecDestroy(&im->ladv));
  PetscCall(VecDestroy(&im->lhalf));
  PetscCall(VecDestroy(&im->rhs));
  PetscCall(VecDestroy(&im->mu));
  PetscCall(VecDestroy(&im->cloc2));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* b(kappa) = D_full(kappa, 0): the diffusion kernel on the zero state whose boundary ghosts carry
 * only the affine part beta of the ghost rule (zero on a periodic grid). */
static PetscErrorCode TransportCNBoundaryPart(Transport tr)
{
  const PetscScalar **k, **cl;
  PetscScalar       **zero, **b;

  PetscFunctionBeginUser;
  PetscCall(VecSet(tr->cloc, 0.0));
  PetscCall(DMDAVecGetArray(tr->da, tr->cloc, &zero));
  PetscCall(TransportFillGhosts(&tr->grid, &tr->crule, PETSC_FALSE, zero));
  PetscCall(DMDAVecRestoreArray(tr->da, tr->cloc, &zero));
  PetscCall(VecSet(tr->impl.bdry, 0.0));
  PetscCall(DMDAVecGetArrayRead(tr->da, tr->cloc, &cl));
  PetscCall(DMDAVecGetArrayRead(tr->da, tr->kloc, &k));
  PetscCall(DMDAVecGetArray(tr->da, tr->impl.bdry, &b));
  PetscCall(TransportDiffusion(&tr->grid, k, cl, b));
  PetscCall(DMDAVecRestoreArray(tr->da, tr->impl.bdry, &b));
  PetscCall(DMDAVecRestoreArrayRead(tr->da, tr->kloc, &k));
  PetscCall(DMDAVecRestoreArrayRead(tr->da, tr->cloc, &cl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A = I - tau/2 D_lin, row by row from the diffusion kernel's coefficients:
 *   D c_ij = w_e (c_e - c_ij) + w_w (c_w - c_ij) + w_n (c_n - c_ij) + w_s (c_s - c_ij),
 *   w_e = (k_ij + k_e) / (2 hx^2), ...;  a physical ghost c_e = sigma c_ij + beta folds sigma w_e
 * into the diagonal (beta belongs to b).  The weights are symmetric, so A is. */
static PetscErrorCode TransportCNAssemble(Transport tr, PetscReal tau)
{
  const TransportGrid *g  = &tr->grid;
  const PetscReal      bx = 0.5 / (g->h[0] * g->h[0]), by = 0.5 / (g->h[1] * g->h[1]), h = 0.5 * tau;
  const PetscScalar  **k;
  Mat                  A = tr->impl.A;

  PetscFunctionBeginUser;
  PetscCall(DMDAVecGetArrayRead(tr->da, tr->kloc, &k));
  for (PetscInt j = g->ys; j < g->ys + g->ym; j++) {
    for (PetscInt i = g->xs; i < g->xs + g->xm; i++) {
      /* neighbours e, w, n, s: offset, weight, whether it is a physical ghost and its sigma */
      const PetscInt  di[4] = {1, -1, 0, 0}, dj[4] = {0, 0, 1, -1};
      const PetscBool ghost[4] = {
          (PetscBool)(!tr->crule.periodic[0] && i == g->M[0] - 1), (PetscBool)(!tr->crule.periodic[0] && i == 0),
          (PetscBool)(!tr->crule.periodic[1] && j == g->M[1] - 1), (PetscBool)(!tr->crule.periodic[1] && j == 0)};
      const PetscReal sigma[4] = {tr->crule.sigma[0][1], tr->crule.sigma[0][0], tr->crule.sigma[1][1],
                                  tr->crule.sigma[1][0]};
      MatStencil      row      = {.i = i, .j = j}, col[5];
      PetscScalar     v[5], diag = 1;
      PetscInt        n = 0;

      for (PetscInt d = 0; d < 4; d++) {
        const PetscScalar w = (d < 2 ? bx : by) * (k[j][i] + k[j + dj[d]][i + di[d]]);
        diag += h * w;
        if (ghost[d])
          diag -= h * w * sigma[d];
        else {
          col[n].i = i + di[d];
          col[n].j = j + dj[d];
          v[n++]   = -h * w;
        }
      }
      col[n].i = i;
      col[n].j = j;
      v[n++]   = diag;
      PetscCall(MatSetValuesStencil(A, 1, &row, n, col, v, INSERT_VALUES));
    }
  }
  PetscCall(DMDAVecRestoreArrayRead(tr->da, tr->kloc, &k));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatSetOption(A, MAT_SPD, PETSC_TRUE));
  PetscCall(KSPSetOperators(tr->impl.ksp, A, A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ TransportCNSetUp - makes the Crank-Nicolson operators current for substep tau and the present
    diffusivity: a change of tr->kappa is detected by comparison with the copy they were built
    from (one O(N) check per substep, public API only), so every path that alters kappa
    (TransportSetParameters, tests) gets a reassembled A, a new b(kappa) and a refreshed ghosted
    kloc.  Collective. @*/
PetscErrorCode TransportCNSetUp(Transport tr, PetscReal tau)
{
  TransportImplicit *im   = &tr->impl;
  PetscBool          same = PETSC_FALSE;
  PetscReal          kmin, kmax;

  PetscFunctionBeginUser;
  if (tau == im->tau) PetscCall(VecEqual(tr->kappa, im->kappa_setup, &same));
  if (same) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(tau > 0, tr->comm, PETSC_ERR_ARG_OUTOFRANGE, "Crank-Nicolson substep must be > 0, got %g s", (double)tau);
  PetscCall(TransportPrepareKappa(tr));
  PetscCall(VecMin(tr->kappa, NULL, &kmin));
  PetscCall(VecMax(tr->kappa, NULL, &kmax));
  im->kappa_zero = (PetscBool)(kmin == 0 && kmax == 0);
  PetscCall(TransportCNBoundaryPart(tr));
  if (im->solver == TRANSPORT_CN_FFTW) {
    PetscCheck(
        kmax - kmin <= 1e-14 * kmax, tr->comm, PETSC_ERR_USER_INPUT,
        "-transport_implicit_solver fftw needs a constant diffusivity, but kappa ranges over [%g, %g] m^2/s; use "
        "-transport_implicit_solver ksp",
        (double)kmin, (double)kmax);
    im->kappa_const = kmax;
  } else if (!im->kappa_zero)
    PetscCall(TransportCNAssemble(tr, tau));
  im->tau = tau;
  PetscCall(VecCopy(tr->kappa, im->kappa_setup));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ TransportCNSolve - x = A^{-1} r with A = I - tau/2 D_lin; x holds the initial guess on entry
    (used by ksp).  Collective. @*/
PetscErrorCode TransportCNSolve(Transport tr, PetscReal tau, Vec r, Vec x)
{
  TransportImplicit *im = &tr->impl;

  PetscFunctionBeginUser;
  PetscCall(TransportCNSetUp(tr, tau));
  if (im->kappa_zero)
    PetscCall(VecCopy(r, x));
  else if (im->solver == TRANSPORT_CN_FFTW)
    PetscCall(AdjFFTSolverSolve(im->fft, 1.0, 0.5 * tau * im->kappa_const, r, x));
  else {
    KSPConvergedReason reason;
    PetscInt           its;
    PetscReal          rnorm;

    PetscCall(KSPSolve(im->ksp, r, x));
    PetscCall(KSPGetConvergedReason(im->ksp, &reason));
    if (reason < 0) {
      PetscCall(KSPGetIterationNumber(im->ksp, &its));
      PetscCall(KSPGetResidualNorm(im->ksp, &rnorm));
      SETERRQ(tr->comm, PETSC_ERR_NOT_CONVERGED,
              "Crank-Nicolson solve did not converge: %s after %" PetscInt_FMT " iterations, residual %g; loosen "
              "-transport_ksp_rtol, raise -transport_ksp_max_it or try -transport_pc_type hypre",
              KSPConvergedReasons[reason], its, (double)rnorm);
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ TransportDiffuseCN - one Crank-Nicolson substep of length tau:
      c' = A^{-1} [c + tau/2 D_full(kappa, c) + tau/2 b(kappa)],  A = I - tau/2 D_lin(kappa).
    cout may be c. Collective. @*/
PetscErrorCode TransportDiffuseCN(Transport tr, PetscReal tau, Vec c, Vec cout)
{
  TransportImplicit  *im = &tr->impl;
  const PetscScalar **k, **cl;
  PetscScalar       **r;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(TRANSPORT_DiffuseCN, 0, 0, 0, 0));
  PetscCall(TransportCNSetUp(tr, tau));
  PetscCall(TransportGhostState(tr, c, tr->cloc));
  PetscCall(VecSet(im->rhs, 0.0));
  PetscCall(DMDAVecGetArrayRead(tr->da, tr->cloc, &cl));
  PetscCall(DMDAVecGetArrayRead(tr->da, tr->kloc, &k));
  PetscCall(DMDAVecGetArray(tr->da, im->rhs, &r));
  PetscCall(TransportDiffusion(&tr->grid, k, cl, r));
  PetscCall(DMDAVecRestoreArray(tr->da, im->rhs, &r));
  PetscCall(DMDAVecRestoreArrayRead(tr->da, tr->kloc, &k));
  PetscCall(DMDAVecRestoreArrayRead(tr->da, tr->cloc, &cl));
  PetscCall(VecAYPX(im->rhs, 0.5 * tau, c));        /* c + tau/2 D_full(kappa, c) */
  PetscCall(VecAXPY(im->rhs, 0.5 * tau, im->bdry)); /*   + tau/2 b(kappa)          */
  PetscCall(VecCopy(c, cout));                      /* initial guess */
  PetscCall(TransportCNSolve(tr, tau, im->rhs, cout));
  PetscCall(PetscLogEventEnd(TRANSPORT_DiffuseCN, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ TransportDiffuseCNAdjoint - adjoint of TransportDiffuseCN from c to c' = cout, with lout = lambda':
      F(c', c, kappa) = c' - tau/2 D_full(kappa, c') - c - tau/2 D_full(kappa, c) = 0,  dF/dc' = A = A^T
      mu      = A^{-1} lambda'                                   (adjoint solve)
      lambda  = mu + tau/2 D_lin^T mu                            (-dF/dc)^T mu
      gkappa += tau/2 [dD_full/dkappa at c]^T mu + tau/2 [dD_full/dkappa at c']^T mu
    The kernel's kappa derivative is linear in the ghosted state (ghost values included, hence
    also the kappa derivative of b), so one TransportDiffusionAdjoint call on ghost(c) + ghost(c')
    with rbar = tau/2 mu gives both kappa terms, and its state part tau/2 D^T mu (before the
    ghost-rule adjoint) does not depend on the state.  lin may be lout. Collective. @*/
PetscErrorCode TransportDiffuseCNAdjoint(Transport tr, PetscReal tau, Vec c, Vec cout, Vec lout, Vec lin)
{
  TransportImplicit  *im = &tr->impl;
  const PetscScalar **k, **cl, **rb;
  PetscScalar       **lb, **kb;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(TRANSPORT_DiffuseCNAdj, 0, 0, 0, 0));
  PetscCall(VecCopy(lout, im->mu)); /* initial guess */
  PetscCall(TransportCNSolve(tr, tau, lout, im->mu));
  PetscCall(VecCopy(im->mu, lin));
  PetscCall(VecScale(im->mu, 0.5 * tau)); /* rbar = tau/2 mu */
  PetscCall(TransportGhostState(tr, c, tr->cloc));
  PetscCall(TransportGhostState(tr, cout, im->cloc2));
  PetscCall(VecAXPY(tr->cloc, 1.0, im->cloc2));
  PetscCall(VecSet(tr->lloc, 0.0));
  PetscCall(VecSet(tr->klloc, 0.0));
  PetscCall(DMDAVecGetArrayRead(tr->da, tr->cloc, &cl));
  PetscCall(DMDAVecGetArrayRead(tr->da, tr->kloc, &k));
  PetscCall(DMDAVecGetArrayRead(tr->da, im->mu, &rb));
  PetscCall(DMDAVecGetArray(tr->da, tr->lloc, &lb));
  PetscCall(DMDAVecGetArray(tr->da, tr->klloc, &kb));
  PetscCall(TransportDiffusionAdjoint(&tr->grid, k, cl, rb, lb, kb));
  PetscCall(TransportFillGhostsAdjoint(&tr->grid, &tr->crule, lb));
  PetscCall(TransportFillGhostsAdjoint(&tr->grid, &tr->krule, kb));
  PetscCall(DMDAVecRestoreArray(tr->da, tr->klloc, &kb));
  PetscCall(DMDAVecRestoreArray(tr->da, tr->lloc, &lb));
  PetscCall(DMDAVecRestoreArrayRead(tr->da, im->mu, &rb));
  PetscCall(DMDAVecRestoreArrayRead(tr->da, tr->kloc, &k));
  PetscCall(DMDAVecRestoreArrayRead(tr->da, tr->cloc, &cl));
  PetscCall(DMLocalToGlobal(tr->da, tr->lloc, ADD_VALUES, lin));
  PetscCall(DMLocalToGlobal(tr->da, tr->klloc, ADD_VALUES, tr->gkappa));
  PetscCall(PetscLogEventEnd(TRANSPORT_DiffuseCNAdj, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
