/* Incompressible Navier-Stokes on a staggered (MAC) grid: the "fluid" AdjStepper.
 *
 *   du/dt + div(u u) = -grad p + nu lap u,   div u = 0   on [0,Lx] x [0,Ly]
 *
 * u on x-faces, v on y-faces, p at cell centres, held by a PETSc DMDA split across ranks;
 * centred (energy-conserving) advection and explicit diffusion, SSP-RK3 with a projection at
 * every stage; pressure Poisson by KSP (any boundaries) or FFTW-MPI (periodic box).  Boundaries
 * per side: periodic, wall (no-slip, optionally moving: a lid), slip, inflow (uniform or
 * parabolic), outflow.  Options: prefix -fluid_ (adjsim -help); docs/fluid.md.
 *
 * Every kernel is a pure function of its inputs with its hand-written adjoint next to it; the
 * stepper's adjoint ops give exact discrete gradients of kinetic energy, enstrophy and velocity
 * misfit objectives with respect to the viscosity nu and the initial velocity (u0, v0). */
#pragma once

#include <adjsim/stepper.h>

/*@ AdjStepperCreate_Fluid - the "fluid" stepper type (registered by AdjStepperRegisterAll; create it with
    AdjStepperCreate, AdjStepperSetType(st, "fluid") or -problem fluid, then AdjStepperSetFromOptions). @*/
PetscErrorCode AdjStepperCreate_Fluid(AdjStepper stepper);

/*@ FluidGetStateDM - the dof-3 DMDA of the state: per cell (u of its left x-face, v of its
    bottom y-face, p at its centre). Same ownership as the output grid (AdjStepperGetGrid). Not collective. @*/
PetscErrorCode FluidGetStateDM(AdjStepper stepper, DM *da);
