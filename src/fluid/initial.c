/* Initial velocity fields of the fluid solver (sampled on the faces; the stepper projects them). */
#include "fluidimpl.h"
#include <adjsim/io.h>

/* Taylor-Green vortex on [0,Lx] x [0,Ly], kx = 2 pi/Lx, ky = 2 pi/Ly, A the amplitude:
 *   u =  A sin(kx x) cos(ky y) F(t),  v = -A (kx/ky) cos(kx x) sin(ky y) F(t),  F = exp(-nu (kx^2 + ky^2) t),
 * an exact solution of the Navier-Stokes equations (the pressure balances the advection). */
static PetscErrorCode FluidTaylorGreenFaces(Fluid fl, PetscReal t, Vec x)
{
  const FluidGrid *g  = &fl->grid;
  const PetscReal  kx = 2 * PETSC_PI / g->L[0], ky = 2 * PETSC_PI / g->L[1];
  const PetscReal  A = fl->tg_amplitude * PetscExpReal(-fl->nu * (kx * kx + ky * ky) * t);
  FluidCell      **a;

  PetscFunctionBeginUser;
  PetscCall(DMDAVecGetArray(fl->da, x, &a));
  for (PetscInt j = g->ys; j < g->ys + g->ym; j++)
    for (PetscInt i = g->xs; i < g->xs + g->xm; i++) {
      const PetscReal xf = i * g->h[0], yc = (j + 0.5) * g->h[1], xc = (i + 0.5) * g->h[0], yf = j * g->h[1];
      a[j][i].u = A * PetscSinReal(kx * xf) * PetscCosReal(ky * yc);
      a[j][i].v = -A * (kx / ky) * PetscCosReal(kx * xc) * PetscSinReal(ky * yf);
      a[j][i].p = -0.25 * A * A * (PetscCosReal(2 * kx * xc) + (kx * kx) / (ky * ky) * PetscCosReal(2 * ky * yc));
    }
  PetscCall(DMDAVecRestoreArray(fl->da, x, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ FluidExactTaylorGreen - the exact Taylor-Green state at time t [s], sampled on the faces (for
    tests). Collective. @*/
PetscErrorCode FluidExactTaylorGreen(Fluid fl, PetscReal t, Vec x)
{
  PetscFunctionBeginUser;
  PetscCall(FluidTaylorGreenFaces(fl, t, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ FluidFillInitial - the initial state before projection: zero, Taylor-Green, or the face
    velocities u, v read from an HDF5 file (datasets on the run's cell grid); p = 0 except for
    Taylor-Green (its exact pressure). Collective. @*/
PetscErrorCode FluidFillInitial(Fluid fl, Vec x)
{
  PetscFunctionBeginUser;
  switch (fl->initial) {
  case FLUID_INITIAL_ZERO:
    PetscCall(VecSet(x, 0.0));
    break;
  case FLUID_INITIAL_TAYLOR_GREEN:
    PetscCall(FluidTaylorGreenFaces(fl, 0.0, x));
    break;
  case FLUID_INITIAL_FILE: {
    Vec c;
    PetscCall(DMGetGlobalVector(fl->pda, &c));
    PetscCall(VecSet(x, 0.0));
    for (PetscInt f = 0; f < 2; f++) {
      PetscCall(AdjInputReadField(fl->comm, fl->initial_file, fl->initial_dset[f], fl->pda, c));
      PetscCall(VecStrideScatter(c, f, x, INSERT_VALUES));
    }
    PetscCall(DMRestoreGlobalVector(fl->pda, &c));
  } break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
