/* A NaN or an Inf anywhere in the fluid state stops the run (FluidCheckState), with the default FFTW
 * pressure solver and with KSP, on any rank count: once, a NaN went unnoticed because the maximum of the
 * velocities dropped it.  Each case puts one bad value on the last rank's last face and expects
 * PETSC_ERR_FP from AdjStepperCheckState; a finite state must pass. */
#include "fluidtest.h"
#include <math.h>

static PetscErrorCode Expect(AdjStepper st, Vec x, PetscScalar bad, PetscInt comp, PetscErrorCode want,
                             const char what[], PetscInt *fail)
{
  PetscScalar   *a;
  PetscInt       n;
  PetscErrorCode ierr;
  PetscMPIInt    rank, size;

  PetscFunctionBeginUser;
  PetscCall(AdjStepperInitialState(st, x));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(VecGetLocalSize(x, &n));
  PetscCall(VecGetArray(x, &a));
  if (rank == size - 1 && n >= 3) a[n - 3 + comp] = bad;
  PetscCall(VecRestoreArray(x, &a));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = AdjStepperCheckState(st, 1, x);
  PetscCall(PetscPopErrorHandler());
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-48s error %d (want %d)  %s\n", what, (int)ierr, (int)want,
                        ierr == want ? "ok" : "FAIL"));
  if (ierr != want) (*fail)++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const char *const solvers[2] = {"fftw", "ksp"};
  PetscInt          fail       = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  for (PetscInt s = 0; s < 2; s++) {
    const char *const opts[] = {"-fluid_grid",    "16,12",     "-fluid_initial",
                                "taylor-green",   "-fluid_nu", "0.01",
                                "-fluid_poisson", solvers[s],  NULL};
    AdjStepper        st;
    Vec               x;
    char              what[96];

    PetscCall(FluidTestCreate(PETSC_COMM_WORLD, opts, NULL, &st));
    PetscCall(AdjStepperCreateState(st, &x));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s: finite state passes", solvers[s]));
    PetscCall(Expect(st, x, 0.25, 0, 0, what, &fail));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s: NaN in u refused", solvers[s]));
    PetscCall(Expect(st, x, NAN, 0, PETSC_ERR_FP, what, &fail));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s: NaN in v refused", solvers[s]));
    PetscCall(Expect(st, x, NAN, 1, PETSC_ERR_FP, what, &fail));
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s: Inf in u refused", solvers[s]));
    PetscCall(Expect(st, x, INFINITY, 0, PETSC_ERR_FP, what, &fail));
    PetscCall(VecDestroy(&x));
    PetscCall(AdjStepperDestroy(&st));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " failure(s)\n", fail ? "FAIL" : "PASS", fail));
  PetscCall(PetscFinalize());
  return fail ? 1 : 0;
}
