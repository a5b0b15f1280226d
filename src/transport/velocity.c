/* Face velocities from a fluid run: its final state (steady) or every output step (unsteady,
 * -transport_velocity_unsteady), and the velocity of one time step interpolated between them. */
#include "transportimpl.h"
#include <adjsim/io.h>

/*@ TransportFacesFromFluidVecs - the local face arrays (layout of TransportVelocity) from the fluid's
    face velocities uf (the left x-face of each cell) and vf (the bottom y-face), global Vecs on the
    transport DMDA.  The faces on the high side come from the halo exchange: the wrapped face in a
    periodic direction, zero (a wall: no flow through it) in the others. @*/
PetscErrorCode TransportFacesFromFluidVecs(Transport tr, Vec uf, Vec vf, PetscReal *ufaces, PetscReal *vfaces)
{
  TransportGrid      *g = &tr->grid;
  Vec                 ul, vl;
  const PetscScalar **u, **v;

  PetscFunctionBeginUser;
  PetscCall(DMGetLocalVector(tr->da, &ul));
  PetscCall(DMGetLocalVector(tr->da, &vl));
  PetscCall(VecSet(ul, 0.0));
  PetscCall(VecSet(vl, 0.0));
  PetscCall(DMGlobalToLocal(tr->da, uf, INSERT_VALUES, ul));
  PetscCall(DMGlobalToLocal(tr->da, vf, INSERT_VALUES, vl));
  PetscCall(DMDAVecGetArrayRead(tr->da, ul, &u));
  PetscCall(DMDAVecGetArrayRead(tr->da, vl, &v));
  for (PetscInt j = g->ys; j < g->ys + g->ym; j++)
    for (PetscInt i = g->xs; i <= g->xs + g->xm; i++) ufaces[(j - g->ys) * (g->xm + 1) + i - g->xs] = u[j][i];
  for (PetscInt j = g->ys; j <= g->ys + g->ym; j++)
    for (PetscInt i = g->xs; i < g->xs + g->xm; i++) vfaces[(j - g->ys) * g->xm + i - g->xs] = v[j][i];
  PetscCall(DMDAVecRestoreArrayRead(tr->da, ul, &u));
  PetscCall(DMDAVecRestoreArrayRead(tr->da, vl, &v));
  PetscCall(DMRestoreLocalVector(tr->da, &ul));
  PetscCall(DMRestoreLocalVector(tr->da, &vl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ TransportSetUpUnsteadyVelocity - reads the face velocities u_face, v_face of every output step of a
    fluid run written with -fluid_output_faces, and the output times.  The working arrays tr->vel.u, v
    then hold the first snapshot; TransportVelocityAtStep() sets them for a step. @*/
PetscErrorCode TransportSetUpUnsteadyVelocity(Transport tr, const char file[])
{
  TransportUnsteadyVelocity *us = &tr->unsteady;
  const TransportGrid       *g  = &tr->grid;
  PetscInt                   nt, ntv;
  PetscReal                 *tv;
  Vec                        tmp, *uf, *vf;

  PetscFunctionBeginUser;
  PetscCall(AdjInputGetFieldTimes(tr->comm, file, "u_face", &nt, NULL, &us->times));
  PetscCall(AdjInputGetFieldTimes(tr->comm, file, "v_face", &ntv, NULL, &tv));
  PetscCheck(nt == ntv, tr->comm, PETSC_ERR_FILE_READ,
             "-transport_velocity_unsteady: %s has %" PetscInt_FMT " slices of /fields/u_face but %" PetscInt_FMT
             " of /fields/v_face",
             file, nt, ntv);
  PetscCall(PetscFree(tv));
  PetscCheck(
      nt >= 2, tr->comm, PETSC_ERR_USER_INPUT,
      "-transport_velocity_unsteady needs the face velocities at two or more output steps, but %s has %" PetscInt_FMT
      " (run the fluid with -fluid_output_faces and -output_interval k)",
      file, nt);
  for (PetscInt n = 1; n < nt; n++)
    PetscCheck(us->times[n] > us->times[n - 1], tr->comm, PETSC_ERR_FILE_READ,
               "-transport_velocity_unsteady: the output times of %s do not increase", file);
  us->n  = nt;
  us->nu = (g->xm + 1) * g->ym;
  us->nv = g->xm * (g->ym + 1);
  PetscCall(PetscMalloc2(nt * us->nu, &us->u, nt * us->nv, &us->v));
  PetscCall(DMCreateGlobalVector(tr->da, &tmp));
  PetscCall(VecDuplicateVecs(tmp, nt, &uf));
  PetscCall(VecDuplicateVecs(tmp, nt, &vf));
  PetscCall(VecDestroy(&tmp));
  PetscCall(AdjInputReadFieldSlices(tr->comm, file, "u_face", 0, nt, tr->da, uf));
  PetscCall(AdjInputReadFieldSlices(tr->comm, file, "v_face", 0, nt, tr->da, vf));
  for (PetscInt n = 0; n < nt; n++)
    PetscCall(TransportFacesFromFluidVecs(tr, uf[n], vf[n], us->u + n * us->nu, us->v + n * us->nv));
  PetscCall(VecDestroyVecs(nt, &uf));
  PetscCall(VecDestroyVecs(nt, &vf));
  PetscCall(PetscArraycpy(tr->vel.u, us->u, us->nu));
  PetscCall(PetscArraycpy(tr->vel.v, us->v, us->nv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ TransportUnsteadyLocalMax - the largest |u| and |v| over all snapshots on this rank (the stability
    limit must hold for every step). @*/
PetscErrorCode TransportUnsteadyLocalMax(Transport tr, PetscReal lmax[2])
{
  const TransportUnsteadyVelocity *us = &tr->unsteady;

  PetscFunctionBeginUser;
  for (PetscInt f = 0; f < us->n * us->nu; f++) lmax[0] = PetscMax(lmax[0], PetscAbsReal(us->u[f]));
  for (PetscInt f = 0; f < us->n * us->nv; f++) lmax[1] = PetscMax(lmax[1], PetscAbsReal(us->v[f]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ TransportCheckUnsteadyTime - the run must end within the fluid run's output times. @*/
PetscErrorCode TransportCheckUnsteadyTime(Transport tr)
{
  const TransportUnsteadyVelocity *us = &tr->unsteady;

  PetscFunctionBeginUser;
  if (!us->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(tr->final_time <= us->times[us->n - 1] * (1 + 1e-12), tr->comm, PETSC_ERR_USER_INPUT,
             "-transport_final_time %g s goes beyond the last output time %g s of the fluid run "
             "(-transport_velocity_unsteady)",
             (double)tr->final_time, (double)us->times[us->n - 1]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ TransportVelocityAtStep - with an unsteady velocity, the face velocities of step k: the fluid's
    velocity at the step's midpoint t = (k + 1/2) dt, linear in time between the two output steps
    around it.  Frozen over the step (the midpoint rule), this keeps the scheme second order in time
    for a smooth velocity history.  The forward step and its adjoint call it with the same k, so the
    adjoint transports the adjoint in the same velocity.  Not collective. @*/
PetscErrorCode TransportVelocityAtStep(Transport tr, AdjStepIndex k)
{
  const TransportUnsteadyVelocity *us = &tr->unsteady;
  const PetscReal                  t  = ((PetscReal)k + 0.5) * tr->dt;
  PetscInt                         n  = 0;
  PetscReal                        w;

  PetscFunctionBeginUser;
  if (!us->n) PetscFunctionReturn(PETSC_SUCCESS);
  while (n + 2 < us->n && us->times[n + 1] <= t) n++;
  w = (t - us->times[n]) / (us->times[n + 1] - us->times[n]);
  w = PetscMin(PetscMax(w, 0.0), 1.0);
  for (PetscInt f = 0; f < us->nu; f++)
    tr->vel.u[f] = (1 - w) * us->u[n * us->nu + f] + w * us->u[(n + 1) * us->nu + f];
  for (PetscInt f = 0; f < us->nv; f++)
    tr->vel.v[f] = (1 - w) * us->v[n * us->nv + f] + w * us->v[(n + 1) * us->nv + f];
  PetscFunctionReturn(PETSC_SUCCESS);
}
