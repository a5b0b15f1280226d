/* Stability limits of adjsim's explicit schemes, by von Neumann analysis of the actual scheme. */
#pragma once

#include <adjsim/sys.h>

/*@ AdjRK3CentredStabilityLimit - largest dt for which SSP-RK3 is stable on every von Neumann symbol
    of centred advection plus diffusion with frozen coefficients on a 2D grid:
      z(tx,ty) = dt [ -dx (1 - cos tx) - dy (1 - cos ty) + i (ax sin tx + ay sin ty) ],
    with ax = |u|max/hx, ay = |v|max/hy (advection) and dx = 2 kmax/hx^2, dy = 2 kmax/hy^2
    (diffusion; zero when diffusion is implicit).  |R(z)| <= 1 with R(z) = 1 + z + z^2/2 + z^3/6 is
    checked on a 97 x 97 grid of symbols, dt found by bisection.  Pure advection gives the CFL limit
    sqrt(3); pure diffusion 2.51 h^2/(4 k) per direction.  PETSC_MAX_REAL when nothing moves.
    Not collective. @*/
PetscErrorCode AdjRK3CentredStabilityLimit(PetscReal ax, PetscReal ay, PetscReal dx, PetscReal dy, PetscReal *dtmax);
