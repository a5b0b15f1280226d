/* One MLS-MPM step on the distributed grid:
 *   home -> owner scatter (by position), P2G into ghosted nodes, ghost contributions summed to their
 *   owners (DMLocalToGlobal ADD_VALUES), grid update on owned nodes, node velocities to the ghosts
 *   (DMGlobalToLocal), G2P, owner -> home scatter;
 * and its discrete adjoint, the same operations transposed in reverse order. */
#include "mpmimpl.h"

/* Node masses and momenta of the owners' particles pin/pmat, summed over ranks, in gnodes; the
 * elastic force enters with the factor dt (dt = 0: momentum only).  The models' updated internal states
 * of the particles go to zout (with nz > 0). Collective. */
static PetscErrorCode MPMScatterToGrid(MPM mpm, PetscReal dt)
{
  MPMNode                     **nodes;
  const struct _n_MPMActuation *act;
  const PetscReal              *level;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(MPM_P2G, 0, 0, 0, 0));
  mpm->out_state = -1;                                      /* zout is overwritten */
  PetscCall(MPMActuationStepStress(mpm, dt, &act, &level)); /* the actuators' active stress (none: NULL) */
  PetscCall(VecZeroEntries(mpm->lnodes));
  PetscCall(DMDAVecGetArray(mpm->da, mpm->lnodes, &nodes));
  PetscCall(MPMParticleToGrid(&mpm->grid, dt, mpm->nowned, mpm->pin, mpm->pmat, mpm->nz, mpm->zin, mpm->zout, act,
                              level, nodes));
  PetscCall(DMDAVecRestoreArray(mpm->da, mpm->lnodes, &nodes));
  PetscCall(VecZeroEntries(mpm->gnodes));
  PetscCall(DMLocalToGlobal(mpm->da, mpm->lnodes, ADD_VALUES, mpm->gnodes));
  PetscCall(PetscLogEventEnd(MPM_P2G, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ MPMStep - x_k = Phi(x_{k-1}): one explicit MLS-MPM step of size mpm->dt. xin and xout are state
    vectors in the home layout (they may not be the same Vec).  The internal state z of a particle is updated
    by its model in P2G (z' from (F, z) at the start of the step, mpmmodel.h) and G2P does not change it.
    Collective. @*/
PetscErrorCode MPMStep(void *ctx, AdjStepIndex k, Vec xin, Vec xout)
{
  MPM       mpm = (MPM)ctx;
  MPMNode **nodes;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(MPM_Step, 0, 0, 0, 0));
  PetscCall(MPMExchangeSetUp(mpm, k, k - 1, xin));
  PetscCall(MPMExchangeToOwnersStep(mpm, k - 1, xin));
  PetscCall(MPMActuationStepLevels(mpm, k, xin)); /* open loop: of t; controller: of xin (collective) */
  PetscCall(MPMScatterToGrid(mpm, mpm->dt));
  PetscCall(PetscLogEventBegin(MPM_Grid, 0, 0, 0, 0));
  /* the grid update is nonlinear with friction walls: its adjoint needs its input */
  if (!mpm->gnodes_p2g) PetscCall(VecDuplicate(mpm->gnodes, &mpm->gnodes_p2g));
  PetscCall(VecCopy(mpm->gnodes, mpm->gnodes_p2g));
  PetscCall(DMDAVecGetArray(mpm->da, mpm->gnodes, &nodes));
  PetscCall(MPMGridUpdate(&mpm->grid, mpm->dt, mpm->gravity, nodes));
  PetscCall(DMDAVecRestoreArray(mpm->da, mpm->gnodes, &nodes));
  PetscCall(DMGlobalToLocal(mpm->da, mpm->gnodes, INSERT_VALUES, mpm->lnodes));
  PetscCall(PetscLogEventEnd(MPM_Grid, 0, 0, 0, 0));
  PetscCall(PetscLogEventBegin(MPM_G2P, 0, 0, 0, 0));
  PetscCall(DMDAVecGetArrayRead(mpm->da, mpm->lnodes, &nodes));
  PetscCall(MPMGridToParticle(&mpm->grid, mpm->dt, mpm->nowned, mpm->pin, (const MPMNode *const *)nodes, mpm->pout));
  PetscCall(DMDAVecRestoreArrayRead(mpm->da, mpm->lnodes, &nodes));
  PetscCall(PetscLogEventEnd(MPM_G2P, 0, 0, 0, 0));
  PetscCall(MPMExchangeToHome(mpm, xout));
  PetscCall(MPMExchangeSentHome(mpm, k));
  mpm->fwd_step = k;
  PetscCall(PetscLogEventEnd(MPM_Step, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Per-label parameter gradients from the material adjoints of n owner particles (partial sums of this
 * rank): E, nu, sigma_y, H, friction_angle and cohesion per label, rho per label through mass = rho V0. Not collective.
 */
PetscErrorCode MPMAccumulateMaterialGradient(MPM mpm, PetscInt n, const MPMMaterialPoint mat[],
                                             const MPMMaterialPoint matb[])
{
  PetscFunctionBeginUser;
  for (PetscInt q = 0; q < n; q++) {
    const PetscInt l = (PetscInt)mat[q].label;

    mpm->gE[l] += matb[q].E;
    mpm->gnu[l] += matb[q].nu;
    mpm->grho[l] += matb[q].mass * mat[q].volume;
    mpm->gsigma_y[l] += matb[q].sigma_y;
    mpm->gH[l] += matb[q].H;
    mpm->gfriction_angle[l] += matb[q].friction_angle;
    mpm->gcohesion[l] += matb[q].cohesion;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The adjoint's work space: node adjoints and owner-side particle adjoints, as large as the forward's. */
static PetscErrorCode MPMAdjointWorkSetUp(MPM mpm)
{
  PetscFunctionBeginUser;
  if (!mpm->gnodesb) {
    PetscCall(VecDuplicate(mpm->gnodes, &mpm->gnodesb));
    PetscCall(VecDuplicate(mpm->lnodes, &mpm->lnodesb));
  }
  if (mpm->capacity_adj < mpm->capacity) {
    PetscCall(PetscFree3(mpm->pinb, mpm->poutb, mpm->pmatb));
    PetscCall(PetscMalloc3(mpm->capacity, &mpm->pinb, mpm->capacity, &mpm->poutb, mpm->capacity, &mpm->pmatb));
    PetscCall(PetscFree2(mpm->zinb, mpm->zoutb));
    if (mpm->nz) PetscCall(PetscMalloc2(mpm->capacity * mpm->nz, &mpm->zinb, mpm->capacity * mpm->nz, &mpm->zoutb));
    mpm->capacity_adj = mpm->capacity;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ MPMStepAdjoint - lin = (dPhi_k/dx)^T lout for the step x_k = Phi_k(x_{k-1}) from xin = x_{k-1}, and
    the parameter gradients (E, nu, rho per label, gravity, wall friction) += (dPhi_k/dp)^T lout.  Reuses the
    forward step's exchange, owner arrays and grid (the AdjStepper contract: called right after
    MPMStep(k, xin)); recomputes them if they belong to another step.  Every operation of MPMStep
    in reverse: exchange to home (Reduce, SUM), G2P, node velocities to ghosts (-> DMLocalToGlobal ADD),
    grid update, ghost sums (-> DMGlobalToLocal INSERT), P2G, exchange to owners (Bcast).
    lout and lin are home-layout state vectors (distinct). Collective. @*/
PetscErrorCode MPMStepAdjoint(void *ctx, AdjStepIndex k, Vec xin, Vec xout, Vec lout, Vec lin)
{
  MPM                           mpm = (MPM)ctx;
  MPMNode                     **nodesb;
  MPMNode                     **nodes;
  const struct _n_MPMActuation *act;
  const PetscReal              *level;
  PetscReal                    *levelb;

  PetscFunctionBeginUser;
  if (mpm->fwd_step != k) {
    Vec y;

    PetscCall(VecDuplicate(xin, &y));
    PetscCall(MPMStep(mpm, k, xin, y));
    PetscCall(VecDestroy(&y));
  }
  PetscCall(PetscLogEventBegin(MPM_StepAdjoint, 0, 0, 0, 0));
  PetscCall(MPMAdjointWorkSetUp(mpm));
  PetscCall(MPMExchangeToHomeAdjoint(mpm, lout));
  PetscCall(PetscArrayzero(mpm->pinb, mpm->nowned));
  PetscCall(PetscArrayzero(mpm->pmatb, mpm->nowned));
  if (mpm->nz) PetscCall(PetscArrayzero(mpm->zinb, mpm->nowned * mpm->nz));
  /* G2P (z' does not depend on it: zoutb goes to P2G's model adjoint) */
  PetscCall(VecZeroEntries(mpm->lnodesb));
  PetscCall(DMDAVecGetArrayRead(mpm->da, mpm->lnodes, &nodes));
  PetscCall(DMDAVecGetArray(mpm->da, mpm->lnodesb, &nodesb));
  PetscCall(MPMGridToParticleAdjoint(&mpm->grid, mpm->dt, mpm->nowned, mpm->pin, (const MPMNode *const *)nodes,
                                     mpm->poutb, mpm->pinb, nodesb));
  PetscCall(DMDAVecRestoreArray(mpm->da, mpm->lnodesb, &nodesb));
  PetscCall(DMDAVecRestoreArrayRead(mpm->da, mpm->lnodes, &nodes));
  /* ghost velocities were copies of their owners' values: their adjoints add up at the owners */
  PetscCall(VecZeroEntries(mpm->gnodesb));
  PetscCall(DMLocalToGlobal(mpm->da, mpm->lnodesb, ADD_VALUES, mpm->gnodesb));
  /* grid update */
  PetscCall(DMDAVecGetArrayRead(mpm->da, mpm->gnodes_p2g, &nodes));
  PetscCall(DMDAVecGetArray(mpm->da, mpm->gnodesb, &nodesb));
  PetscCall(MPMGridUpdateAdjoint(&mpm->grid, mpm->dt, mpm->gravity, (const MPMNode *const *)nodes, nodesb,
                                 mpm->ggravity, &mpm->gfriction));
  PetscCall(DMDAVecRestoreArray(mpm->da, mpm->gnodesb, &nodesb));
  PetscCall(DMDAVecRestoreArrayRead(mpm->da, mpm->gnodes_p2g, &nodes));
  /* ghost contributions were summed into their owners: every ghost sees its owner's adjoint */
  PetscCall(DMGlobalToLocal(mpm->da, mpm->gnodesb, INSERT_VALUES, mpm->lnodesb));
  /* P2G */
  PetscCall(MPMActuationStepStressAdjointBegin(mpm, k, &act, &level, &levelb)); /* levels of step k, levelb = 0 */
  PetscCall(DMDAVecGetArrayRead(mpm->da, mpm->lnodesb, &nodesb));
  PetscCall(MPMParticleToGridAdjoint(&mpm->grid, mpm->dt, mpm->nowned, mpm->pin, mpm->pmat, mpm->nz, mpm->zin,
                                     mpm->zoutb, act, level, (const MPMNode *const *)nodesb, mpm->pinb, mpm->zinb,
                                     mpm->pmatb, levelb));
  PetscCall(DMDAVecRestoreArrayRead(mpm->da, mpm->lnodesb, &nodesb));
  PetscCall(MPMAccumulateMaterialGradient(mpm, mpm->nowned, mpm->pmat, mpm->pmatb));
  /* per-particle material gradients (E_field, nu_field) in the home layout */
  if (mpm->gmat) PetscCall(MPMExchangeMaterialToOwnersAdjoint(mpm, mpm->gmat));
  PetscCall(MPMExchangeToOwnersAdjoint(mpm, lin));
  /* dJ/da_g of the step -> dJ/dcoef (open loop), or -> dJ/dw and lin += (da/dxin)^T levelb (controller) */
  PetscCall(MPMActuationStepStressAdjointEnd(mpm, k, xin, lin));
  PetscCall(PetscLogEventEnd(MPM_StepAdjoint, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ MPMGridFields - grid mass and velocity of the state x (the APIC transfer without forces,
    gravity or walls), on the dof-1 node DMDA, for output. Collective. @*/
PetscErrorCode MPMGridFields(MPM mpm, AdjStepIndex k, Vec x, Vec mass, Vec vel[MPM_DIM])
{
  const MPMNode **nodes;
  PetscScalar   **m, **v[MPM_DIM];
  const MPMGrid  *g = &mpm->grid;

  PetscFunctionBeginUser;
  mpm->fwd_step = -1; /* the step's intermediates are overwritten */
  PetscCall(MPMExchangeSetUp(mpm, k, k, x));
  PetscCall(MPMExchangeToOwners(mpm, x));
  PetscCall(MPMScatterToGrid(mpm, 0.0));
  PetscCall(DMDAVecGetArrayRead(mpm->da, mpm->gnodes, &nodes));
  PetscCall(DMDAVecGetArray(mpm->da1, mass, &m));
  for (PetscInt d = 0; d < MPM_DIM; d++) PetscCall(DMDAVecGetArray(mpm->da1, vel[d], &v[d]));
  for (PetscInt j = g->s[1]; j < g->s[1] + g->m[1]; j++)
    for (PetscInt i = g->s[0]; i < g->s[0] + g->m[0]; i++) {
      m[j][i] = nodes[j][i].m;
      for (PetscInt d = 0; d < MPM_DIM; d++) v[d][j][i] = nodes[j][i].m > 0 ? nodes[j][i].p[d] / nodes[j][i].m : 0.0;
    }
  for (PetscInt d = 0; d < MPM_DIM; d++) PetscCall(DMDAVecRestoreArray(mpm->da1, vel[d], &v[d]));
  PetscCall(DMDAVecRestoreArray(mpm->da1, mass, &m));
  PetscCall(DMDAVecRestoreArrayRead(mpm->da, mpm->gnodes, &nodes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ MPMGridMass - the node masses m_i = sum_p w_ip(x_p) m_p of the state x, on the dof-1 node DMDA (the
    mass part of the P2G transfer, summed over ranks). Overwrites the step's intermediates. Collective. @*/
PetscErrorCode MPMGridMass(MPM mpm, AdjStepIndex k, Vec x, Vec mass)
{
  const MPMNode **nodes;
  PetscScalar   **m;
  const MPMGrid  *g = &mpm->grid;

  PetscFunctionBeginUser;
  mpm->fwd_step = -1;
  PetscCall(MPMExchangeSetUp(mpm, k, k, x));
  PetscCall(MPMExchangeToOwners(mpm, x));
  PetscCall(MPMScatterToGrid(mpm, 0.0));
  PetscCall(DMDAVecGetArrayRead(mpm->da, mpm->gnodes, &nodes));
  PetscCall(DMDAVecGetArray(mpm->da1, mass, &m));
  for (PetscInt j = g->s[1]; j < g->s[1] + g->m[1]; j++)
    for (PetscInt i = g->s[0]; i < g->s[0] + g->m[0]; i++) m[j][i] = nodes[j][i].m;
  PetscCall(DMDAVecRestoreArray(mpm->da1, mass, &m));
  PetscCall(DMDAVecRestoreArrayRead(mpm->da, mpm->gnodes, &nodes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ MPMGridMassAdjoint - adjoint of MPMGridMass: lambda += (dm/dx)^T massb (the positions through the
    B-spline weights) and the density gradient grho += (dm/drho)^T massb (m_p = rho V0_p), i.e. the P2G
    adjoint with dt = 0 and only node-mass adjoints: xb_p = sum_i mb_i dw_ip/dx_p, mb_p = sum_i w_ip mb_i.
    Ghost nodes receive their owners' adjoints (the transpose of the ghost sum). Collective. @*/
PetscErrorCode MPMGridMassAdjoint(MPM mpm, AdjStepIndex k, Vec x, Vec massb, Vec lambda)
{
  MPMNode           **nodesb;
  const PetscScalar **mb;
  const MPMGrid      *g = &mpm->grid;
  Vec                 home;

  PetscFunctionBeginUser;
  mpm->fwd_step = -1;
  PetscCall(MPMExchangeSetUp(mpm, k, k, x));
  PetscCall(MPMExchangeToOwners(mpm, x));
  PetscCall(MPMAdjointWorkSetUp(mpm));
  PetscCall(VecZeroEntries(mpm->gnodesb));
  PetscCall(DMDAVecGetArray(mpm->da, mpm->gnodesb, &nodesb));
  PetscCall(DMDAVecGetArrayRead(mpm->da1, massb, &mb));
  for (PetscInt j = g->s[1]; j < g->s[1] + g->m[1]; j++)
    for (PetscInt i = g->s[0]; i < g->s[0] + g->m[0]; i++) nodesb[j][i].m = mb[j][i];
  PetscCall(DMDAVecRestoreArrayRead(mpm->da1, massb, &mb));
  PetscCall(DMDAVecRestoreArray(mpm->da, mpm->gnodesb, &nodesb));
  PetscCall(DMGlobalToLocal(mpm->da, mpm->gnodesb, INSERT_VALUES, mpm->lnodesb));
  PetscCall(PetscArrayzero(mpm->pinb, mpm->nowned));
  PetscCall(PetscArrayzero(mpm->pmatb, mpm->nowned));
  if (mpm->nz) { /* the grid mass does not depend on z' (z'b = 0); zb = 0 too, as taub = 0 at dt = 0 */
    PetscCall(PetscArrayzero(mpm->zinb, mpm->nowned * mpm->nz));
    PetscCall(PetscArrayzero(mpm->zoutb, mpm->nowned * mpm->nz));
  }
  PetscCall(DMDAVecGetArrayRead(mpm->da, mpm->lnodesb, &nodesb));
  PetscCall(MPMParticleToGridAdjoint(g, 0.0, mpm->nowned, mpm->pin, mpm->pmat, mpm->nz, mpm->zin, mpm->zoutb, NULL,
                                     NULL, (const MPMNode *const *)nodesb, mpm->pinb, mpm->zinb, mpm->pmatb, NULL));
  PetscCall(DMDAVecRestoreArrayRead(mpm->da, mpm->lnodesb, &nodesb));
  PetscCall(MPMAccumulateMaterialGradient(mpm, mpm->nowned, mpm->pmat, mpm->pmatb));
  PetscCall(VecDuplicate(lambda, &home));
  PetscCall(MPMExchangeToOwnersAdjoint(mpm, home));
  PetscCall(VecAXPY(lambda, 1.0, home));
  PetscCall(VecDestroy(&home));
  PetscFunctionReturn(PETSC_SUCCESS);
}
