/* Von Neumann stability limits (see include/adjsim/stability.h). */
#include <adjsim/stability.h>

/* |R(z)| of SSP-RK3, R(z) = 1 + z + z^2/2 + z^3/6 (the cubic Taylor polynomial of exp), z = re + i im. */
static PetscReal RK3Amplification(PetscReal re, PetscReal im)
{
  const PetscReal z2r = re * re - im * im, z2i = 2 * re * im;
  const PetscReal z3r = z2r * re - z2i * im, z3i = z2r * im + z2i * re;
  const PetscReal pr = 1 + re + 0.5 * z2r + z3r / 6, pi = im + 0.5 * z2i + z3i / 6;
  return PetscSqrtReal(pr * pr + pi * pi);
}

/* Largest amplification over the symbols at time step dt. */
static PetscReal RK3MaxAmplification(PetscReal dt, PetscReal ax, PetscReal ay, PetscReal dx, PetscReal dy)
{
  const PetscInt n    = 96;
  PetscReal      amax = 0;

  for (PetscInt a = 0; a <= n; a++)
    for (PetscInt b = 0; b <= n; b++) {
      const PetscReal tx = PETSC_PI * a / n, ty = PETSC_PI * b / n;
      const PetscReal re = -dt * (dx * (1 - PetscCosReal(tx)) + dy * (1 - PetscCosReal(ty)));
      const PetscReal im = dt * (ax * PetscSinReal(tx) + ay * PetscSinReal(ty));
      amax               = PetscMax(amax, RK3Amplification(re, im));
    }
  return amax;
}

PetscErrorCode AdjRK3CentredStabilityLimit(PetscReal ax, PetscReal ay, PetscReal dx, PetscReal dy, PetscReal *dtmax)
{
  PetscReal lo = 0, hi;

  PetscFunctionBeginUser;
  if (ax + ay + dx + dy == 0) {
    *dtmax = PETSC_MAX_REAL;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  hi = 4.0 / (ax + ay + dx + dy); /* beyond the RK3 region for any symbol mix */
  for (PetscInt it = 0; it < 60; it++) {
    const PetscReal mid = 0.5 * (lo + hi);
    if (RK3MaxAmplification(mid, ax, ay, dx, dy) <= 1 + 1e-12)
      lo = mid;
    else
      hi = mid;
  }
  *dtmax = lo;
  PetscFunctionReturn(PETSC_SUCCESS);
}
