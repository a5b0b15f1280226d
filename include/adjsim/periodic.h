/* AdjPeriodicSolver: (a I + b K) x = r on a doubly periodic, cell-centred 2D DMDA (dof 1), where
 * K = -L is the negated 5-point Laplacian, solved exactly by FFTW-MPI:
 *   K e_mn = [4/hx^2 sin^2(pi m/Mx) + 4/hy^2 sin^2(pi n/My)] e_mn.
 * Used by the Crank-Nicolson substep of scalar transport (a = 1, b = tau kappa/2) and by the
 * fluid's pressure Poisson equation (a = 0, b = 1).  Modes where a + b K = 0 (the mean when
 * a = 0) are set to zero: the zero-mean solution.
 *
 * Layout.  FFTW-MPI splits a row-major n0 x n1 array into slabs of whole rows, the DMDA into a 2D
 * process grid.  The natural ordering j Mx + i is row-major with n0 = My, n1 = Mx, and FFTW's slabs
 * are consecutive row blocks in rank order, so one VecScatter (built from the DMDA's AO) moves a
 * DMDA global vector to a Vec owned in those slabs and back (MATFFTW and VecScatterPetscToFFTW
 * assume an MPI Vec's natural split, not a DMDA's).  The forward transform leaves its output
 * transposed (FFTW_MPI_TRANSPOSED_OUT) and the inverse takes it so, saving two global transposes
 * per solve: the division is pointwise.  Plans use FFTW_ESTIMATE, so every solve rounds the same
 * from run to run. */
#pragma once

#include <adjsim/sys.h>
#include <petscdmda.h>

typedef struct _p_AdjPeriodicSolver *AdjPeriodicSolver;

/*@ AdjPeriodicSolverCreate - plans the transforms and the redistribution for da (cell sizes
    hx, hy). Collective. @*/
PetscErrorCode AdjPeriodicSolverCreate(DM da, PetscReal hx, PetscReal hy, AdjPeriodicSolver *ps);

/*@ AdjPeriodicSolverSolve - x = (a I + b K)^{-1} r; r and x are global vectors of da and may be the
    same. Collective. @*/
PetscErrorCode AdjPeriodicSolverSolve(AdjPeriodicSolver ps, PetscReal a, PetscReal b, Vec r, Vec x);

PetscErrorCode AdjPeriodicSolverDestroy(AdjPeriodicSolver *ps);
