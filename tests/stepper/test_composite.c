/* The composite stepper (src/stepper/composite.c) with two copies of one solver:
 *  1. coupling 0: the parts of the composite's final state equal, bit for bit, the final states of
 *     the two solvers run alone (transport, two diffusivities);
 *  2. coupling s = 3 1/s: dot-product test of the coupled step, <J dx, w> = <dx, J^T w> to 1e-12, with
 *     J dx = Phi(dx) - Phi(0) (transport is affine in its state);
 *  3. coupling s = 3 1/s between two fluid solvers (kinetic-energy objectives): the Taylor test of the
 *     whole gradient through the driver falls at rate 2. */
#include <adjsim/stepperimpl.h>
#include <adjsim/driver.h>
#include "adjtest.h"
#include "steppertest.h"

static const char *const transport[] = {
    "-transport_grid", "16,12", "-transport_final_time", "0.05", "-transport_steps", "5", "-transport_initial_blobs",
    "0.5,0.5,0.15,1",  NULL};

/* A composite of two `type` solvers with the given shared settings (set for both parts), per-part
 * extras (a_extra, b_extra: "-name", "value" lists without the part prefix) and coupling. */
static PetscErrorCode CompositeCreate(const char type[], const char *const shared[], const char *const a_extra[],
                                      const char *const b_extra[], const char coupling[], AdjStepper *st)
{
  PetscOptions opts;
  char         name[128], types[64];

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsCreate(&opts));
  PetscCall(PetscOptionsPush(opts));
  for (PetscInt part = 0; part < 2; part++) {
    const char *const *extra = part ? b_extra : a_extra;
    for (PetscInt i = 0; shared[i]; i += 2) {
      PetscCall(PetscSNPrintf(name, sizeof(name), "-%s_%s", part ? "b" : "a", shared[i] + 1));
      PetscCall(PetscOptionsSetValue(NULL, name, shared[i + 1]));
    }
    for (PetscInt i = 0; extra && extra[i]; i += 2) {
      PetscCall(PetscSNPrintf(name, sizeof(name), "-%s_%s", part ? "b" : "a", extra[i] + 1));
      PetscCall(PetscOptionsSetValue(NULL, name, extra[i + 1]));
    }
  }
  PetscCall(PetscSNPrintf(types, sizeof(types), "%s,%s", type, type));
  PetscCall(PetscOptionsSetValue(NULL, "-composite_solvers", types));
  PetscCall(PetscOptionsSetValue(NULL, "-composite_coupling", coupling));
  PetscCall(AdjStepperCreate(PETSC_COMM_WORLD, st));
  PetscCall(AdjStepperSetType(*st, "composite"));
  PetscCall(AdjStepperSetFromOptions(*st));
  PetscCall(AdjStepperSetUp(*st));
  PetscCall(PetscOptionsPop());
  PetscCall(PetscOptionsDestroy(&opts));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckUncoupled(PetscInt *fail)
{
  const char *const kappa[2][3] = {{"-transport_kappa", "2e-3", NULL}, {"-transport_kappa", "5e-4", NULL}};
  AdjStepper        comp, alone[2];
  Vec               X, x[2];
  PetscReal         worst = 0, scale = 0;
  PetscInt          off = 0;

  PetscFunctionBeginUser;
  PetscCall(CompositeCreate("transport", transport, kappa[0], kappa[1], "0", &comp));
  PetscCall(AdjStepperView(comp, PETSC_VIEWER_STDOUT_WORLD));
  PetscCall(AdjStepperCreateState(comp, &X));
  PetscCall(AdjTestStepperRun(comp, -1, X, NULL, NULL));
  for (PetscInt i = 0; i < 2; i++) {
    const PetscScalar *a, *b;
    PetscInt           n;
    PetscCall(AdjTestStepperCreate(PETSC_COMM_WORLD, "transport", transport, kappa[i], &alone[i]));
    PetscCall(AdjStepperCreateState(alone[i], &x[i]));
    PetscCall(AdjTestStepperRun(alone[i], -1, x[i], NULL, NULL));
    PetscCall(VecGetLocalSize(x[i], &n));
    PetscCall(VecGetArrayRead(X, &a));
    PetscCall(VecGetArrayRead(x[i], &b));
    for (PetscInt j = 0; j < n; j++) {
      worst = AdjTestMax(worst, PetscAbsScalar(a[off + j] - b[j]));
      scale = AdjTestMax(scale, PetscAbsScalar(b[j]));
    }
    off += n;
    PetscCall(VecRestoreArrayRead(x[i], &b));
    PetscCall(VecRestoreArrayRead(X, &a));
  }
  PetscCall(AdjTestGlobalMax(PETSC_COMM_WORLD, worst, &worst));
  PetscCall(AdjTestGlobalMax(PETSC_COMM_WORLD, scale, &scale));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "uncoupled composite against the parts run alone: max diff %.3e (scale %.3e)  %s\n",
                        (double)worst, (double)scale, worst == 0 && scale > 0 ? "ok" : "FAIL"));
  if (!(worst == 0 && scale > 0)) (*fail)++;
  for (PetscInt i = 0; i < 2; i++) {
    PetscCall(VecDestroy(&x[i]));
    PetscCall(AdjStepperDestroy(&alone[i]));
  }
  PetscCall(VecDestroy(&X));
  PetscCall(AdjStepperDestroy(&comp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckCoupledDot(PetscInt *fail)
{
  const char *const kappa[2][3] = {{"-transport_kappa", "2e-3", NULL}, {"-transport_kappa", "5e-4", NULL}};
  AdjStepper        comp;
  Vec               zero, dx, y0, y1, w, z;
  PetscReal         lhs, rhs, nrm1, nrm2;

  PetscFunctionBeginUser;
  PetscCall(CompositeCreate("transport", transport, kappa[0], kappa[1], "3", &comp));
  PetscCall(AdjStepperCreateState(comp, &zero));
  PetscCall(VecSet(zero, 0.0));
  PetscCall(VecDuplicate(zero, &dx));
  PetscCall(VecDuplicate(zero, &y0));
  PetscCall(VecDuplicate(zero, &y1));
  PetscCall(VecDuplicate(zero, &w));
  PetscCall(VecDuplicate(zero, &z));
  PetscCall(AdjTestRandom(dx, 21));
  PetscCall(AdjTestRandom(w, 22));
  PetscCall(AdjStepperZeroGradient(comp));
  PetscCall(AdjStepperStep(comp, 1, zero, y0));
  PetscCall(AdjStepperStep(comp, 1, dx, y1));
  PetscCall(AdjStepperStepAdjoint(comp, 1, dx, y1, w, z));
  PetscCall(VecAXPY(y1, -1.0, y0)); /* J dx */
  PetscCall(VecDot(y1, w, &lhs));
  PetscCall(VecDot(dx, z, &rhs));
  PetscCall(VecNorm(y1, NORM_2, &nrm1));
  PetscCall(VecNorm(w, NORM_2, &nrm2));
  PetscCall(AdjTestReportScaled("coupled composite step (transport x 2, s = 3)", lhs, rhs, nrm1 * nrm2, 1e-12, fail));
  PetscCall(VecDestroy(&zero));
  PetscCall(VecDestroy(&dx));
  PetscCall(VecDestroy(&y0));
  PetscCall(VecDestroy(&y1));
  PetscCall(VecDestroy(&w));
  PetscCall(VecDestroy(&z));
  PetscCall(AdjStepperDestroy(&comp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckCoupledTaylor(PetscInt *fail)
{
  const char *const fluid[]  = {"-fluid_grid",
                                "12,12",
                                "-fluid_initial",
                                "taylor-green",
                                "-fluid_final_time",
                                "0.1",
                                "-fluid_dt",
                                "0.01",
                                "-fluid_objective_kinetic_energy",
                                "1",
                                "-fluid_velocity_scale",
                                "1.5",
                                NULL};
  const char *const nu[2][3] = {{"-fluid_nu", "0.01", NULL}, {"-fluid_nu", "0.03", NULL}};
  AdjStepper        comp;
  AdjDriver         drv;
  AdjParams         params;
  Vec               p;
  PetscReal         rate;
  PetscOptions      opts;

  PetscFunctionBeginUser;
  PetscCall(CompositeCreate("fluid", fluid, nu[0], nu[1], "3", &comp));
  PetscCall(AdjStepperGetParams(comp, &params));
  PetscCall(AdjParamsCreateVector(params, &p));
  PetscCall(AdjStepperGetParameters(comp, p));
  PetscCall(PetscOptionsCreate(&opts));
  PetscCall(PetscOptionsPush(opts));
  PetscCall(PetscOptionsSetValue(NULL, "-quiet", NULL));
  PetscCall(AdjDriverCreate(comp, &drv));
  PetscCall(AdjDriverSetFromOptions(drv));
  PetscCall(PetscOptionsPop());
  PetscCall(PetscOptionsDestroy(&opts));
  PetscCall(AdjDriverTaylorTest(drv, p, &rate));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "coupled composite (fluid x 2, s = 3): Taylor rate %.3f (>= 1.9)  %s\n",
                        (double)rate, rate >= 1.9 ? "ok" : "FAIL"));
  if (!(rate >= 1.9)) (*fail)++;
  PetscCall(VecDestroy(&p));
  PetscCall(AdjDriverDestroy(&drv));
  PetscCall(AdjStepperDestroy(&comp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt fail = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(AdjStepperRegister("composite", "two solvers with a coupling operator", AdjStepperCreate_Composite));
  PetscCall(CheckUncoupled(&fail));
  PetscCall(CheckCoupledDot(&fail));
  PetscCall(CheckCoupledTaylor(&fail));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " failure(s)\n", fail ? "FAIL" : "PASS", fail));
  PetscCall(PetscFinalize());
  return fail ? 1 : 0;
}
