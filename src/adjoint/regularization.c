/* Tikhonov regularization of DMDA field parameters (see include/adjsim/regularization.h). */
#include <adjsim/regularization.h>

PetscErrorCode AdjTikhonovField(DM da, const PetscReal h[], PetscReal alpha, PetscReal beta, Vec p, PetscReal *R,
                                Vec grad)
{
  const PetscReal     hx = h[0], hy = h[1];
  PetscInt            Mx, My, xs, ys, xm, ym;
  DMBoundaryType      bx, by;
  Vec                 pl, gl;
  const PetscScalar **a;
  PetscScalar       **ga;
  PetscReal           local = 0, sum, norm;
  const PetscReal     area = hx * hy, wx = beta * area / (hx * hx), wy = beta * area / (hy * hy);

  PetscFunctionBeginUser;
  if (alpha == 0 && beta == 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecNorm(p, NORM_2, &norm));
  *R += 0.5 * alpha * area * norm * norm;
  PetscCall(VecAXPY(grad, alpha * area, p));
  if (beta == 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(DMDAGetInfo(da, NULL, &Mx, &My, NULL, NULL, NULL, NULL, NULL, NULL, &bx, &by, NULL, NULL));
  PetscCall(DMDAGetCorners(da, &xs, &ys, NULL, &xm, &ym, NULL));
  PetscCall(DMGetLocalVector(da, &pl));
  PetscCall(DMGetLocalVector(da, &gl));
  PetscCall(DMGlobalToLocal(da, p, INSERT_VALUES, pl));
  PetscCall(VecSet(gl, 0.0));
  PetscCall(DMDAVecGetArrayRead(da, pl, &a));
  PetscCall(DMDAVecGetArray(da, gl, &ga));
  /* Each rank owns the east and north faces of its cells. */
  for (PetscInt j = ys; j < ys + ym; j++) {
    for (PetscInt i = xs; i < xs + xm; i++) {
      if (i + 1 < Mx || bx == DM_BOUNDARY_PERIODIC) {
        const PetscScalar d = a[j][i + 1] - a[j][i];
        local += 0.5 * wx * d * d;
        ga[j][i + 1] += wx * d;
        ga[j][i] -= wx * d;
      }
      if (j + 1 < My || by == DM_BOUNDARY_PERIODIC) {
        const PetscScalar d = a[j + 1][i] - a[j][i];
        local += 0.5 * wy * d * d;
        ga[j + 1][i] += wy * d;
        ga[j][i] -= wy * d;
      }
    }
  }
  PetscCall(DMDAVecRestoreArray(da, gl, &ga));
  PetscCall(DMDAVecRestoreArrayRead(da, pl, &a));
  PetscCall(DMLocalToGlobal(da, gl, ADD_VALUES, grad));
  PetscCall(DMRestoreLocalVector(da, &pl));
  PetscCall(DMRestoreLocalVector(da, &gl));
  PetscCallMPI(MPI_Allreduce(&local, &sum, 1, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)da)));
  *R += sum;
  PetscFunctionReturn(PETSC_SUCCESS);
}
