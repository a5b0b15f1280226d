/* Semi-discrete right-hand side of scalar transport and its adjoint. */
#include "transportimpl.h"

/* Ghosted diffusivity, mirrored across physical boundaries; refreshed when parameters change. */
PetscErrorCode TransportPrepareKappa(Transport tr)
{
  PetscScalar **k;

  PetscFunctionBeginUser;
  PetscCall(DMGlobalToLocal(tr->da, tr->kappa, INSERT_VALUES, tr->kloc));
  PetscCall(DMDAVecGetArray(tr->da, tr->kloc, &k));
  PetscCall(TransportFillGhosts(&tr->grid, &tr->krule, PETSC_TRUE, k));
  PetscCall(DMDAVecRestoreArray(tr->da, tr->kloc, &k));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Fills tr->cloc with c and its boundary ghosts. */
static PetscErrorCode TransportGhostState(Transport tr, Vec c)
{
  PetscScalar **cl;

  PetscFunctionBeginUser;
  PetscCall(DMGlobalToLocal(tr->da, c, INSERT_VALUES, tr->cloc));
  PetscCall(DMDAVecGetArray(tr->da, tr->cloc, &cl));
  PetscCall(TransportFillGhosts(&tr->grid, &tr->crule, PETSC_FALSE, cl));
  PetscCall(DMDAVecRestoreArray(tr->da, tr->cloc, &cl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* rhs = R(c) = -div(u c) + div(kappa grad c) + s   (without the diffusion term in implicit mode) */
PetscErrorCode TransportRHS(Transport tr, Vec c, Vec rhs)
{
  const PetscScalar **cl, **k;
  PetscScalar       **r;

  PetscFunctionBeginUser;
  PetscCall(TransportGhostState(tr, c));
  PetscCall(VecCopy(tr->source, rhs));
  PetscCall(DMDAVecGetArrayRead(tr->da, tr->cloc, &cl));
  PetscCall(DMDAVecGetArrayRead(tr->da, tr->kloc, &k));
  PetscCall(DMDAVecGetArray(tr->da, rhs, &r));
  PetscCall(TransportAdvection(&tr->grid, &tr->vel, cl, r));
  if (!tr->rhs_without_diffusion) PetscCall(TransportDiffusion(&tr->grid, k, cl, r)); /* implicit mode: CN substeps */
  PetscCall(DMDAVecRestoreArray(tr->da, rhs, &r));
  PetscCall(DMDAVecRestoreArrayRead(tr->da, tr->kloc, &k));
  PetscCall(DMDAVecRestoreArrayRead(tr->da, tr->cloc, &cl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Adjoint of R at state c:  cbar += (dR/dc)^T rbar,  gkappa += (dR/dkappa)^T rbar,  gsource += rbar.
 * The ghost-cell adjoints fold boundary contributions back, and DMLocalToGlobal(ADD_VALUES)
 * returns halo contributions to their owning ranks. */
PetscErrorCode TransportRHSAdjoint(Transport tr, Vec c, Vec rbar, Vec cbar)
{
  const PetscScalar **cl, **k, **rb;
  PetscScalar       **lb, **kb;

  PetscFunctionBeginUser;
  PetscCall(TransportGhostState(tr, c));
  PetscCall(VecSet(tr->lloc, 0.0));
  PetscCall(VecSet(tr->klloc, 0.0));
  PetscCall(DMDAVecGetArrayRead(tr->da, tr->cloc, &cl));
  PetscCall(DMDAVecGetArrayRead(tr->da, tr->kloc, &k));
  PetscCall(DMDAVecGetArrayRead(tr->da, rbar, &rb));
  PetscCall(DMDAVecGetArray(tr->da, tr->lloc, &lb));
  PetscCall(DMDAVecGetArray(tr->da, tr->klloc, &kb));
  PetscCall(TransportAdvectionAdjoint(&tr->grid, &tr->vel, rb, lb));
  if (!tr->rhs_without_diffusion) PetscCall(TransportDiffusionAdjoint(&tr->grid, k, cl, rb, lb, kb));
  PetscCall(TransportFillGhostsAdjoint(&tr->grid, &tr->crule, lb));
  PetscCall(TransportFillGhostsAdjoint(&tr->grid, &tr->krule, kb));
  PetscCall(DMDAVecRestoreArray(tr->da, tr->klloc, &kb));
  PetscCall(DMDAVecRestoreArray(tr->da, tr->lloc, &lb));
  PetscCall(DMDAVecRestoreArrayRead(tr->da, rbar, &rb));
  PetscCall(DMDAVecRestoreArrayRead(tr->da, tr->kloc, &k));
  PetscCall(DMDAVecRestoreArrayRead(tr->da, tr->cloc, &cl));
  PetscCall(DMLocalToGlobal(tr->da, tr->lloc, ADD_VALUES, cbar));
  PetscCall(DMLocalToGlobal(tr->da, tr->klloc, ADD_VALUES, tr->gkappa));
  PetscCall(VecAXPY(tr->gsource, 1.0, rbar));
  PetscFunctionReturn(PETSC_SUCCESS);
}
