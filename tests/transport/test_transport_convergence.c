/* Second-order spatial convergence of scalar transport against exact solutions:
 *  (a) periodic advection-diffusion of c = sin(2 pi (x - u t)) sin(2 pi (y - v t)) exp(-8 pi^2 kappa t);
 *  (b) diffusion between Dirichlet walls in x (periodic in y): c = sin(pi x) exp(-pi^2 kappa t).
 * Errors (L2, cell averages approximated by centre values, which is itself second order) on
 * 32, 64 and 128 cells per direction; the observed order must be at least 1.9. */
#include "transport/transportimpl.h"
#include "steppertest.h"

typedef PetscReal (*ExactFn)(PetscReal x, PetscReal y, PetscReal t, PetscReal kappa);

static PetscReal ExactPeriodic(PetscReal x, PetscReal y, PetscReal t, PetscReal kappa)
{
  const PetscReal u = 1.0, v = 0.5;
  return PetscSinReal(2 * PETSC_PI * (x - u * t)) * PetscSinReal(2 * PETSC_PI * (y - v * t)) *
         PetscExpReal(-8 * PETSC_PI * PETSC_PI * kappa * t);
}

static PetscReal ExactDirichlet(PetscReal x, PetscReal y, PetscReal t, PetscReal kappa)
{
  return PetscSinReal(PETSC_PI * x) * PetscExpReal(-PETSC_PI * PETSC_PI * kappa * t);
}

static PetscErrorCode FillExact(Transport tr, ExactFn f, PetscReal t, PetscReal kappa, Vec c)
{
  PetscScalar  **a;
  TransportGrid *g = &tr->grid;

  PetscFunctionBeginUser;
  PetscCall(DMDAVecGetArray(tr->da, c, &a));
  for (PetscInt j = g->ys; j < g->ys + g->ym; j++)
    for (PetscInt i = g->xs; i < g->xs + g->xm; i++) a[j][i] = f((i + 0.5) * g->h[0], (j + 0.5) * g->h[1], t, kappa);
  PetscCall(DMDAVecRestoreArray(tr->da, c, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* L2 error at the final time of a run on n x n cells with the given options. */
static PetscErrorCode RunError(PetscInt n, const char bcx[], const char velocity[], ExactFn f, PetscReal *err)
{
  AdjStepper      st;
  Transport       tr;
  Vec             c, cn, exact;
  char            grid[32], steps[32];
  const PetscReal kappa = 0.01, T = 0.25;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(grid, sizeof(grid), "%" PetscInt_FMT ",%" PetscInt_FMT, n, n));
  PetscCall(PetscSNPrintf(steps, sizeof(steps), "%" PetscInt_FMT, 4 * n)); /* dt = h/4: time error O(h^3) */
  PetscCall(PetscOptionsSetValue(NULL, "-transport_grid", grid));
  PetscCall(PetscOptionsSetValue(NULL, "-transport_steps", steps));
  PetscCall(PetscOptionsSetValue(NULL, "-transport_final_time", "0.25"));
  PetscCall(PetscOptionsSetValue(NULL, "-transport_kappa", "0.01"));
  PetscCall(PetscOptionsSetValue(NULL, "-transport_bc_x", bcx));
  PetscCall(PetscOptionsSetValue(NULL, "-transport_velocity", "uniform"));
  PetscCall(PetscOptionsSetValue(NULL, "-transport_velocity_uniform", velocity));
  PetscCall(AdjTestStepperFromOptions(PETSC_COMM_WORLD, "transport", &st));
  PetscCall(AdjStepperGetContext(st, &tr));
  PetscCall(DMCreateGlobalVector(tr->da, &c));
  PetscCall(VecDuplicate(c, &cn));
  PetscCall(VecDuplicate(c, &exact));
  PetscCall(FillExact(tr, f, 0, kappa, c));
  for (PetscInt k = 0; k < tr->nsteps; k++) {
    PetscCall(TransportStepRK3(tr, c, cn));
    PetscCall(VecSwap(c, cn));
  }
  PetscCall(FillExact(tr, f, T, kappa, exact));
  PetscCall(VecAXPY(c, -1.0, exact));
  PetscCall(VecNorm(c, NORM_2, err));
  *err *= PetscSqrtReal(tr->grid.h[0] * tr->grid.h[1]);
  PetscCall(VecDestroy(&c));
  PetscCall(VecDestroy(&cn));
  PetscCall(VecDestroy(&exact));
  PetscCall(AdjStepperDestroy(&st));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Study(const char name[], const char bcx[], const char velocity[], ExactFn f, PetscInt *fail)
{
  const PetscInt n[3] = {32, 64, 128};
  PetscReal      e[3];

  PetscFunctionBeginUser;
  for (PetscInt l = 0; l < 3; l++) PetscCall(RunError(n[l], bcx, velocity, f, &e[l]));
  for (PetscInt l = 0; l < 3; l++) {
    const PetscReal order = l ? PetscLog2Real(e[l - 1] / e[l]) : 0;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-32s n = %4" PetscInt_FMT "  L2 error %.4e  order %.3f\n", name, n[l],
                          (double)e[l], (double)order));
  }
  if (!(PetscLog2Real(e[1] / e[2]) >= 1.9)) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL: %s converges at order %.3f < 1.9\n", name,
                          (double)PetscLog2Real(e[1] / e[2])));
    (*fail)++;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt fail = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsSetValue(NULL, "-transport_bc_y", "periodic"));
  PetscCall(Study("periodic advection-diffusion", "periodic", "1.0,0.5", ExactPeriodic, &fail));
  PetscCall(Study("Dirichlet walls, diffusion", "dirichlet", "0,0", ExactDirichlet, &fail));
  PetscCall(PetscFinalize());
  return fail ? 1 : 0;
}
