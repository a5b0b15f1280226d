/* Taylor-Green vortex on the periodic unit square against its exact decay
 *   u = sin(2 pi x) cos(2 pi y) e^{-8 pi^2 nu t},  v = -cos(2 pi x) sin(2 pi y) e^{-8 pi^2 nu t}:
 * L2 error of the face velocities at t = 0.25 s (nu = 0.01 m^2/s) on 16, 32 and 64 cells per
 * direction, with the KSP and the FFTW pressure solvers; the observed order must be >= 1.9 on both
 * refinements.  The time step is the default fraction of the stability limit (dt ~ h, RK3: the
 * time error is O(h^3) and does not pollute the spatial order). */
#include "fluidtest.h"

static PetscErrorCode RunError(PetscInt n, const char poisson[], PetscReal *err)
{
  AdjStepper  st;
  Fluid       fl;
  Vec         x, exact;
  char        grid[32];
  const char *opts[] = {"-fluid_domain",
                        "1,1",
                        "-fluid_nu",
                        "0.01",
                        "-fluid_initial",
                        "taylor-green",
                        "-fluid_final_time",
                        "0.25",
                        "-fluid_poisson",
                        poisson,
                        "-fluid_grid",
                        grid,
                        NULL};
  PetscReal   e2;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(grid, sizeof(grid), "%" PetscInt_FMT ",%" PetscInt_FMT, n, n));
  PetscCall(AdjTestStepperCreate(PETSC_COMM_WORLD, "fluid", opts, NULL, &st));
  PetscCall(AdjStepperGetContext(st, &fl));
  PetscCall(DMCreateGlobalVector(fl->da, &x));
  PetscCall(VecDuplicate(x, &exact));
  PetscCall(FluidTestRun(st, -1, x));
  PetscCall(FluidExactTaylorGreen(fl, fl->final_time, exact));
  PetscCall(VecAXPY(x, -1.0, exact));
  PetscCall(VecStrideNorm(x, 0, NORM_2, &e2));
  *err = e2 * e2;
  PetscCall(VecStrideNorm(x, 1, NORM_2, &e2));
  *err = PetscSqrtReal((*err + e2 * e2) * fl->grid.h[0] * fl->grid.h[1]);
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&exact));
  PetscCall(AdjStepperDestroy(&st));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const PetscInt    n[3]       = {16, 32, 64};
  const char *const solvers[2] = {"ksp", "fftw"};
  PetscInt          fail       = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  for (PetscInt s = 0; s < 2; s++) {
    PetscReal e[3];
    for (PetscInt l = 0; l < 3; l++) {
      PetscCall(RunError(n[l], solvers[s], &e[l]));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                            "taylor-green %-4s n = %3" PetscInt_FMT "  L2 velocity error %.4e  order %.3f\n",
                            solvers[s], n[l], (double)e[l], l ? (double)PetscLog2Real(e[l - 1] / e[l]) : 0.0));
    }
    for (PetscInt l = 1; l < 3; l++)
      if (!(PetscLog2Real(e[l - 1] / e[l]) >= 1.9)) {
        PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                              "FAIL: %s: order %.3f < 1.9 between n = %" PetscInt_FMT " and %" PetscInt_FMT "\n",
                              solvers[s], (double)PetscLog2Real(e[l - 1] / e[l]), n[l - 1], n[l]));
        fail++;
      }
  }
  PetscCall(PetscFinalize());
  return fail ? 1 : 0;
}
