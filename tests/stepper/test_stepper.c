/* The AdjStepper object seen from outside:
 *  1. the registry holds transport, fluid and mpm, and an unknown type is refused;
 *  2. two transport steppers with prefixes a_ and b_ and different diffusivities live in one run,
 *     and each gives bit for bit the final state of a stepper configured alone without a prefix;
 *  3. the contract: StepAdjoint is refused without the matching Step, for another step number,
 *     after the input state was changed, and a second time after one adjoint; it works after Step;
 *  4. SetUp twice is harmless, View prints;
 *  5. described fields: each solver's output and restart fields (names, locations, values per point), a
 *     restart written and read back through the descriptions bit for bit, and a restart file of another
 *     run refused by the generic checks (a step beyond this run, another time step). */
#include "adjtest.h"
#include "steppertest.h"
#include <adjsim/io.h>
#include <adjsim/stepperimpl.h>

static const char *const base[] = {
    "-transport_grid", "16,12", "-transport_final_time", "0.05", "-transport_steps", "5", "-transport_initial_blobs",
    "0.5,0.5,0.15,1",  NULL};

static PetscErrorCode CheckRegistry(PetscInt *fail)
{
  const char *want[3] = {"transport", "fluid", "mpm"}, *type, *desc;
  AdjStepper  st;
  PetscBool   found;

  PetscFunctionBeginUser;
  PetscCall(AdjStepperRegisterAll());
  for (PetscInt w = 0; w < 3; w++) {
    found = PETSC_FALSE;
    for (PetscInt i = 0;; i++) {
      PetscBool same;
      PetscCall(AdjStepperGetRegistered(i, &type, &desc));
      if (!type) break;
      PetscCall(PetscStrcmp(type, want[w], &same));
      found = (PetscBool)(found || same);
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "registry holds %-10s %s\n", want[w], found ? "ok" : "FAIL"));
    if (!found) (*fail)++;
  }
  {
    PetscErrorCode ierr;
    PetscCall(AdjStepperCreate(PETSC_COMM_WORLD, &st));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = AdjStepperSetType(st, "no-such-solver");
    PetscCall(PetscPopErrorHandler());
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "unknown type refused (error %d)       %s\n", (int)ierr,
                          ierr == PETSC_ERR_USER_INPUT ? "ok" : "FAIL"));
    if (ierr != PETSC_ERR_USER_INPUT) (*fail)++;
    PetscCall(AdjStepperDestroy(&st));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The final state of a whole run of st. */
static PetscErrorCode FinalState(AdjStepper st, Vec *x)
{
  PetscFunctionBeginUser;
  PetscCall(AdjStepperCreateState(st, x));
  PetscCall(AdjTestStepperRun(st, -1, *x, NULL, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckPrefixes(PetscInt *fail)
{
  const char *const kappa[2][4] = {{"-transport_kappa", "2e-3", NULL}, {"-transport_kappa", "5e-4", NULL}};
  const char *const both[]      = {"-a_problem", "transport",          "-b_problem", "transport", "-a_transport_kappa",
                                   "2e-3",       "-b_transport_kappa", "5e-4",       NULL};
  AdjStepper        alone[2], pair[2];
  Vec               xa[2], xp[2];
  PetscOptions      opts;

  PetscFunctionBeginUser;
  for (PetscInt s = 0; s < 2; s++) {
    PetscCall(AdjTestStepperCreate(PETSC_COMM_WORLD, "transport", base, kappa[s], &alone[s]));
    PetscCall(FinalState(alone[s], &xa[s]));
  }
  PetscCall(PetscOptionsCreate(&opts));
  PetscCall(PetscOptionsPush(opts));
  for (PetscInt i = 0; both[i]; i += 2) PetscCall(PetscOptionsSetValue(NULL, both[i], both[i + 1]));
  for (PetscInt i = 0; base[i]; i += 2) /* the shared settings, once per prefix */
    for (PetscInt s = 0; s < 2; s++) {
      char name[128];
      PetscCall(PetscSNPrintf(name, sizeof(name), "-%s_%s", s ? "b" : "a", base[i] + 1));
      PetscCall(PetscOptionsSetValue(NULL, name, base[i + 1]));
    }
  for (PetscInt s = 0; s < 2; s++) {
    PetscCall(AdjStepperCreate(PETSC_COMM_WORLD, &pair[s]));
    PetscCall(AdjStepperSetOptionsPrefix(pair[s], s ? "b_" : "a_"));
    PetscCall(AdjStepperSetFromOptions(pair[s])); /* the type comes from -a_problem / -b_problem */
    PetscCall(AdjStepperSetUp(pair[s]));
  }
  PetscCall(PetscOptionsPop());
  PetscCall(PetscOptionsDestroy(&opts));
  for (PetscInt s = 0; s < 2; s++) PetscCall(FinalState(pair[s], &xp[s]));
  for (PetscInt s = 0; s < 2; s++) {
    PetscReal diff, norm;
    PetscCall(VecAXPY(xp[s], -1.0, xa[s]));
    PetscCall(VecNorm(xp[s], NORM_INFINITY, &diff));
    PetscCall(VecNorm(xa[s], NORM_INFINITY, &norm));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "prefix %s_: final state against a lone stepper: max diff %.3e  %s\n",
                          s ? "b" : "a", (double)diff, diff == 0 && norm > 0 ? "ok" : "FAIL"));
    if (!(diff == 0 && norm > 0)) (*fail)++;
  }
  {
    PetscReal gap; /* the two diffusivities must give different states, or the test proves nothing */
    PetscCall(VecAXPY(xa[1], -1.0, xa[0]));
    PetscCall(VecNorm(xa[1], NORM_INFINITY, &gap));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "the two kappas give different states: max diff %.3e  %s\n", (double)gap,
                          gap > 1e-6 ? "ok" : "FAIL"));
    if (!(gap > 1e-6)) (*fail)++;
  }
  for (PetscInt s = 0; s < 2; s++) {
    PetscCall(VecDestroy(&xa[s]));
    PetscCall(VecDestroy(&xp[s]));
    PetscCall(AdjStepperDestroy(&alone[s]));
    PetscCall(AdjStepperDestroy(&pair[s]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* StepAdjoint(k, xin) must be refused (PETSC_ERR_ORDER) or accepted as `expect` says. */
static PetscErrorCode ExpectAdjoint(AdjStepper st, AdjStepIndex k, Vec xin, Vec xout, Vec l, Vec lp, PetscBool expect,
                                    const char what[], PetscInt *fail)
{
  PetscErrorCode ierr;
  PetscBool      ok;

  PetscFunctionBeginUser;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = AdjStepperStepAdjoint(st, k, xin, xout, l, lp);
  PetscCall(PetscPopErrorHandler());
  ok = (PetscBool)(expect ? ierr == 0 : ierr == PETSC_ERR_ORDER);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "contract: %-52s %s (error %d)  %s\n", what, expect ? "accepted" : "refused",
                        (int)ierr, ok ? "ok" : "FAIL"));
  if (!ok) (*fail)++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckContract(PetscInt *fail)
{
  AdjStepper st;
  Vec        x, y, l, lp;

  PetscFunctionBeginUser;
  PetscCall(AdjTestStepperCreate(PETSC_COMM_WORLD, "transport", base, NULL, &st));
  PetscCall(AdjStepperSetUp(st)); /* a second SetUp is harmless */
  PetscCall(AdjStepperView(st, PETSC_VIEWER_STDOUT_WORLD));
  PetscCall(AdjStepperCreateState(st, &x));
  PetscCall(VecDuplicate(x, &y));
  PetscCall(VecDuplicate(x, &l));
  PetscCall(VecDuplicate(x, &lp));
  PetscCall(AdjTestRandom(l, 3));
  PetscCall(AdjStepperZeroGradient(st));
  PetscCall(AdjStepperInitialState(st, x));
  PetscCall(ExpectAdjoint(st, 1, x, y, l, lp, PETSC_FALSE, "adjoint of step 1 before any step", fail));
  PetscCall(AdjStepperStep(st, 1, x, y));
  PetscCall(ExpectAdjoint(st, 2, x, y, l, lp, PETSC_FALSE, "adjoint of step 2 after step 1", fail));
  PetscCall(ExpectAdjoint(st, 1, y, x, l, lp, PETSC_FALSE, "adjoint of step 1 on another input vector", fail));
  {
    PetscScalar *a; /* a write access, as any change of x would be */
    PetscCall(VecGetArray(x, &a));
    PetscCall(VecRestoreArray(x, &a));
  }
  PetscCall(ExpectAdjoint(st, 1, x, y, l, lp, PETSC_FALSE, "adjoint of step 1 after its input changed", fail));
  PetscCall(AdjStepperStep(st, 1, x, y));
  PetscCall(ExpectAdjoint(st, 1, x, y, l, lp, PETSC_TRUE, "adjoint of step 1 right after step 1", fail));
  /* transport's adjoint keeps the step's intermediates (AdjStepperSetAdjointKeepsStep): a second adjoint may follow */
  PetscCall(ExpectAdjoint(st, 1, x, y, l, lp, PETSC_TRUE, "a second adjoint of step 1 (adjoint keeps step)", fail));
  PetscCall(AdjStepperSetAdjointKeepsStep(st, PETSC_FALSE));
  PetscCall(ExpectAdjoint(st, 1, x, y, l, lp, PETSC_TRUE, "adjoint of step 1 once more (it was still current)", fail));
  PetscCall(ExpectAdjoint(st, 1, x, y, l, lp, PETSC_FALSE, "a second adjoint of step 1 (adjoint spends step)", fail));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&l));
  PetscCall(VecDestroy(&lp));
  PetscCall(AdjStepperDestroy(&st));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The described fields of one solver type against the expected names, and of particle fields the ncomp. */
static PetscErrorCode ExpectFields(const char type[], const char *const base[], AdjFieldSet set, PetscInt nwant,
                                   const char *const want[], const AdjFieldLocation loc[], PetscInt *fail)
{
  AdjStepper          st;
  PetscInt            n;
  const AdjFieldDesc *desc[32];
  PetscBool           ok;

  PetscFunctionBeginUser;
  PetscCall(AdjTestStepperCreate(PETSC_COMM_WORLD, type, base, NULL, &st));
  PetscCall(AdjStepperGetFields(st, set, &n, desc));
  ok = (PetscBool)(n == nwant);
  for (PetscInt f = 0; ok && f < n; f++) {
    PetscCall(PetscStrcmp(desc[f]->name, want[f], &ok));
    ok = (PetscBool)(ok && desc[f]->location == loc[f] && desc[f]->ncomp >= 1);
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "fields: %-9s %-7s %2" PetscInt_FMT " described %s\n", type,
                        set == ADJ_FIELDS_OUTPUT ? "output" : "restart", n, ok ? "ok" : "FAIL"));
  if (!ok) (*fail)++;
  PetscCall(AdjStepperDestroy(&st));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ReadRestart of path into st must fail with PETSC_ERR_USER_INPUT. */
static PetscErrorCode ExpectRestartRefused(AdjStepper st, const char path[], const char what[], PetscInt *fail)
{
  PetscErrorCode ierr;
  AdjStepIndex   k;
  Vec            x;

  PetscFunctionBeginUser;
  PetscCall(AdjStepperCreateState(st, &x));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = AdjStepperReadRestart(st, path, x, &k);
  PetscCall(PetscPopErrorHandler());
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "restart: %-40s refused (error %d)  %s\n", what, (int)ierr,
                        ierr == PETSC_ERR_USER_INPUT ? "ok" : "FAIL"));
  if (ierr != PETSC_ERR_USER_INPUT) (*fail)++;
  PetscCall(VecDestroy(&x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckFields(PetscInt *fail)
{
  const char *const fluid[] = {"-fluid_grid", "16,16", "-fluid_final_time", "0.1", "-fluid_steps", "2", NULL};
  const char *const mpm[]   = {"-mpm_grid",
                               "16,16",
                               "-mpm_final_time",
                               "0.002",
                               "-mpm_steps",
                               "2",
                               "-mpm_body0",
                               "box:0.3,0.3,0.5,0.5",
                               "-mpm_output_grid",
                               "1",
                               NULL};
  const char *const tout[] = {"c"}, *const fout[] = {"u", "v", "p", "vorticity"}, *const frst[] = {"u", "v", "p"};
  const char *const      mout[]  = {"position", "velocity", "F",      "stress",    "J",       "E",      "nu",
                                    "rho",      "label",    "volume", "grid_mass", "grid_vx", "grid_vy"};
  const char *const      mrst[]  = {"particles"};
  const AdjFieldLocation cell[4] = {ADJ_FIELD_CELL, ADJ_FIELD_CELL, ADJ_FIELD_CELL, ADJ_FIELD_CELL};
  const AdjFieldLocation face[3] = {ADJ_FIELD_FACE_X, ADJ_FIELD_FACE_Y, ADJ_FIELD_CELL};
  AdjFieldLocation       mloc[13];
  const char *const      longer[] = {"-transport_final_time", "0.1", "-transport_steps", "10", NULL};
  const char *const      finer[]  = {"-transport_steps", "10", NULL};
  AdjStepper             st, other;
  AdjOutput              out;
  DM                     da;
  const PetscReal       *lower, *upper;
  Vec                    x, back;
  AdjStepIndex           k;
  PetscBool              same;

  PetscFunctionBeginUser;
  for (PetscInt f = 0; f < 13; f++) mloc[f] = f < 10 ? ADJ_FIELD_PARTICLE : ADJ_FIELD_NODE;
  PetscCall(ExpectFields("transport", base, ADJ_FIELDS_OUTPUT, 1, tout, cell, fail));
  PetscCall(ExpectFields("transport", base, ADJ_FIELDS_RESTART, 1, tout, cell, fail));
  PetscCall(ExpectFields("fluid", fluid, ADJ_FIELDS_OUTPUT, 4, fout, cell, fail));
  PetscCall(ExpectFields("fluid", fluid, ADJ_FIELDS_RESTART, 3, frst, face, fail));
  PetscCall(ExpectFields("mpm", mpm, ADJ_FIELDS_OUTPUT, 13, mout, mloc, fail));
  mloc[0] = ADJ_FIELD_PARTICLE;
  PetscCall(ExpectFields("mpm", mpm, ADJ_FIELDS_RESTART, 1, mrst, mloc, fail));

  /* Round trip of a transport state at step 3 of 5 through the restart file, bit for bit. */
  PetscCall(AdjTestStepperCreate(PETSC_COMM_WORLD, "transport", base, NULL, &st));
  PetscCall(AdjStepperCreateState(st, &x));
  PetscCall(VecDuplicate(x, &back));
  PetscCall(AdjTestStepperRun(st, 3, x, NULL, NULL));
  PetscCall(AdjOutputCreate(PETSC_COMM_WORLD, &out));
  PetscCall(AdjOutputSetRestartPath(out, "stepper_fields_restart.h5"));
  PetscCall(AdjStepperGetGrid(st, &da, &lower, &upper));
  PetscCall(AdjOutputSetGrid(out, da, lower, upper, "m"));
  PetscCall(AdjStepperWriteRestart(st, out, 3, x, PETSC_TRUE));
  PetscCall(AdjOutputDestroy(&out));
  PetscCall(VecSet(back, 12345.0));
  PetscCall(AdjStepperReadRestart(st, "stepper_fields_restart.h5", back, &k));
  PetscCall(VecEqual(x, back, &same));
  same = (PetscBool)(same && k == 3);
  PetscCall(
      PetscPrintf(PETSC_COMM_WORLD, "restart: round trip at step 3, bit for bit          %s\n", same ? "ok" : "FAIL"));
  if (!same) (*fail)++;
  /* The same file seen by a run with a time step of 0.005 s instead of 0.01 s, and by a run of 10 steps
   * written at step 3 of 5 is fine there, but a 2-step run cannot continue from step 3. */
  PetscCall(AdjTestStepperCreate(PETSC_COMM_WORLD, "transport", base, finer, &other));
  PetscCall(ExpectRestartRefused(other, "stepper_fields_restart.h5", "written with another time step", fail));
  PetscCall(AdjStepperDestroy(&other));
  PetscCall(AdjTestStepperCreate(PETSC_COMM_WORLD, "transport", base, longer, &other));
  PetscCall(AdjStepperReadRestart(other, "stepper_fields_restart.h5", back, &k));
  PetscCall(AdjStepperDestroy(&other));
  {
    const char *const shorter[] = {"-transport_final_time", "0.02", "-transport_steps", "2", NULL};
    PetscCall(AdjTestStepperCreate(PETSC_COMM_WORLD, "transport", base, shorter, &other));
    PetscCall(ExpectRestartRefused(other, "stepper_fields_restart.h5", "at a step beyond this run", fail));
    PetscCall(AdjStepperDestroy(&other));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&back));
  PetscCall(AdjStepperDestroy(&st));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt fail = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(CheckRegistry(&fail));
  PetscCall(CheckPrefixes(&fail));
  PetscCall(CheckContract(&fail));
  PetscCall(CheckFields(&fail));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " failure(s)\n", fail ? "FAIL" : "PASS", fail));
  PetscCall(PetscFinalize());
  return fail ? 1 : 0;
}
