/* One MLS-MPM step on the distributed grid:
 *   home -> owner scatter (by position), P2G into ghosted nodes, ghost contributions summed to their
 *   owners (DMLocalToGlobal ADD_VALUES), grid update on owned nodes, node velocities to the ghosts
 *   (DMGlobalToLocal), G2P, owner -> home scatter. */
#include "mpmimpl.h"

/* Node masses and momenta of the owners' particles pin/pmat, summed over ranks, in gnodes; the
 * elastic force enters with the factor dt (dt = 0: momentum only). Collective. */
static PetscErrorCode MPMScatterToGrid(MPM mpm, PetscReal dt)
{
  MPMNode **nodes;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(MPM_P2G, 0, 0, 0, 0));
  PetscCall(VecZeroEntries(mpm->lnodes));
  PetscCall(DMDAVecGetArray(mpm->da, mpm->lnodes, &nodes));
  PetscCall(MPMParticleToGrid(&mpm->grid, dt, mpm->nowned, mpm->pin, mpm->pmat, nodes));
  PetscCall(DMDAVecRestoreArray(mpm->da, mpm->lnodes, &nodes));
  PetscCall(VecZeroEntries(mpm->gnodes));
  PetscCall(DMLocalToGlobal(mpm->da, mpm->lnodes, ADD_VALUES, mpm->gnodes));
  PetscCall(PetscLogEventEnd(MPM_P2G, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ MPMStep - x_k = Phi(x_{k-1}): one explicit MLS-MPM step of size mpm->dt. xin and xout are state
    vectors in the home layout (they may not be the same Vec). Collective. @*/
PetscErrorCode MPMStep(MPM mpm, AdjStepIndex k, Vec xin, Vec xout)
{
  MPMNode **nodes;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(MPM_Step, 0, 0, 0, 0));
  PetscCall(MPMExchangeSetUp(mpm, k, xin));
  PetscCall(MPMExchangeToOwners(mpm, xin));
  PetscCall(MPMScatterToGrid(mpm, mpm->dt));
  PetscCall(PetscLogEventBegin(MPM_Grid, 0, 0, 0, 0));
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
  PetscCall(PetscLogEventEnd(MPM_Step, 0, 0, 0, 0));
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
  PetscCall(MPMExchangeSetUp(mpm, k, x));
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
