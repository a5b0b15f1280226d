/* AdjTimeAxis (include/adjsim/timeaxis.h):
 *  1. the step rule on a table of cases: the default step (cfl x a stability limit, or a CFL limit as it is),
 *     -<physics>_dt rounded down to fit the final time (and kept when it divides it up to round-off),
 *     -<physics>_steps overriding -<physics>_dt, at least one step, the options prefix; the time step is
 *     final_time / nsteps bit for bit;
 *  2. every bad input is refused with PETSC_ERR_USER_INPUT and a message naming the option and its value;
 *  3. MPM reads -mpm_steps: N steps of final_time / N, a run of N steps, the same run bit for bit as with the
 *     equivalent -mpm_dt, and -mpm_steps overrides -mpm_dt. */
#include "adjtest.h"
#include "steppertest.h"
#include <adjsim/timeaxis.h>

typedef struct {
  const char      *name;
  const char      *prefix, *physics;
  PetscReal        final_time, cfl; /* the solver's defaults */
  AdjTimeLimitType type;
  PetscReal        limit;
  const char      *opts[7]; /* "-name", "value", ..., NULL */
  AdjStepIndex     nsteps;  /* expected steps; 0: an error is expected */
  PetscReal        T;       /* expected final time (dt must be T / nsteps bit for bit) */
  const char      *message; /* part of the expected error message */
} TimeCase;

/* clang-format off */
/* name, prefix, physics, default T, default cfl, limit type, limit, options, expected steps, T, message */
static const TimeCase cases[] = {
  {"default: cfl 0.9 x limit 0.3, rounded down to fit T",
   NULL, "t", 1, 0.9, ADJ_TIME_LIMIT_STABILITY, 0.3, {NULL},
   4, 1, NULL},
  {"default: a CFL limit 0.26 as it is (cfl 0.5 inside)",
   NULL, "t", 1, 0.5, ADJ_TIME_LIMIT_CFL, 0.26, {NULL},
   4, 1, NULL},
  {"default: a stability limit 0.26 times cfl 0.5",
   NULL, "t", 1, 0.5, ADJ_TIME_LIMIT_STABILITY, 0.26, {NULL},
   8, 1, NULL},
  {"-t_cfl 0.25 x limit 0.3",
   NULL, "t", 1, 0.9, ADJ_TIME_LIMIT_STABILITY, 0.3, {"-t_cfl", "0.25", NULL},
   14, 1, NULL},
  {"-t_dt 0.7 divides 2.1 up to round-off: 3 steps",
   NULL, "t", 1, 0.9, ADJ_TIME_LIMIT_STABILITY, 1, {"-t_final_time", "2.1", "-t_dt", "0.7", NULL},
   3, 2.1, NULL},
  {"-t_dt 0.3 rounded down to fit T = 1",
   NULL, "t", 1, 0.9, ADJ_TIME_LIMIT_STABILITY, 1, {"-t_dt", "0.3", NULL},
   4, 1, NULL},
  {"-t_steps 8 overrides -t_dt 0.3",
   NULL, "t", 1, 0.9, ADJ_TIME_LIMIT_STABILITY, 1, {"-t_dt", "0.3", "-t_steps", "8", NULL},
   8, 1, NULL},
  {"-t_steps 4 at the limit 0.25",
   NULL, "t", 1, 0.9, ADJ_TIME_LIMIT_CFL, 0.25, {"-t_steps", "4", NULL},
   4, 1, NULL},
  {"-t_dt 0 and -t_steps 0: the default",
   NULL, "t", 1, 0.9, ADJ_TIME_LIMIT_STABILITY, 0.3, {"-t_dt", "0", "-t_steps", "0", NULL},
   4, 1, NULL},
  {"final time 1e-3 below the step 0.9: one step",
   NULL, "t", 1, 0.9, ADJ_TIME_LIMIT_STABILITY, 1, {"-t_final_time", "1e-3", NULL},
   1, 1e-3, NULL},
  {"final time 1e-308 / limit 1e300 underflows to 0: one step",
   NULL, "t", 1, 1, ADJ_TIME_LIMIT_STABILITY, 1e300, {"-t_final_time", "1e-308", NULL},
   1, 1e-308, NULL},
  {"prefix a_: -a_fluid_steps, not -fluid_steps",
   "a_", "fluid", 1, 0.8, ADJ_TIME_LIMIT_STABILITY, 1, {"-a_fluid_steps", "6", "-fluid_steps", "9", NULL},
   6, 1, NULL},
  {"-t_dt above the limit",
   NULL, "t", 1, 0.9, ADJ_TIME_LIMIT_STABILITY, 0.3, {"-t_dt", "0.5", NULL},
   0, 1, "-t_dt 0.5 s exceeds the stability limit 0.3 s; use -t_dt <= 0.3 or -t_steps >= 4"},
  {"-t_steps too few",
   NULL, "t", 1, 0.9, ADJ_TIME_LIMIT_STABILITY, 0.3, {"-t_steps", "2", NULL},
   0, 1, "-t_steps 2 gives a time step of 0.5 s (-t_final_time 1. s / 2), which exceeds the stability limit 0.3 s"},
  {"prefixed option in the message",
   "a_", "mpm", 1, 0.5, ADJ_TIME_LIMIT_CFL, 0.3, {"-a_mpm_dt", "0.5", NULL},
   0, 1, "-a_mpm_dt 0.5 s exceeds the CFL limit 0.3 s; use -a_mpm_dt <= 0.3 or -a_mpm_steps >= 4"},
  {"negative final time",
   NULL, "t", 1, 0.9, ADJ_TIME_LIMIT_STABILITY, 0.3, {"-t_final_time", "-1", NULL},
   0, 1, "-t_final_time -1. s: the final time must be positive and finite"},
  {"infinite final time",
   NULL, "t", 1, 0.9, ADJ_TIME_LIMIT_STABILITY, 0.3, {"-t_final_time", "inf", NULL},
   0, 1, "the final time must be positive and finite"},
  {"cfl above 1",
   NULL, "t", 1, 0.9, ADJ_TIME_LIMIT_STABILITY, 0.3, {"-t_cfl", "1.5", NULL},
   0, 1, "-t_cfl 1.5 must lie in (0, 1]"},
  {"cfl 0",
   NULL, "t", 1, 0.9, ADJ_TIME_LIMIT_STABILITY, 0.3, {"-t_cfl", "0", NULL},
   0, 1, "-t_cfl 0. must lie in (0, 1]"},
  {"negative dt",
   NULL, "t", 1, 0.9, ADJ_TIME_LIMIT_STABILITY, 0.3, {"-t_dt", "-1", NULL},
   0, 1, "-t_dt -1. s: the time step must be positive and finite (or 0: the default)"},
  {"negative steps",
   NULL, "t", 1, 0.9, ADJ_TIME_LIMIT_STABILITY, 0.3, {"-t_steps", "-2", NULL},
   0, 1, "-t_steps -2: the number of steps must be positive"},
  {"a zero limit",
   NULL, "t", 1, 0.9, ADJ_TIME_LIMIT_STABILITY, 0, {NULL},
   0, 1, "-t_final_time 1. s in time steps of 0. s"},
};
/* clang-format on */

/* Keeps the first message of an error instead of printing it. */
static PetscErrorCode CaptureError(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n,
                                   PetscErrorType p, const char *mess, void *ctx)
{
  char *msg = (char *)ctx;

  (void)comm, (void)line, (void)fun, (void)file;
  if (p == PETSC_ERROR_INITIAL && mess) (void)PetscStrncpy(msg, mess, 1024);
  return n;
}

/* One case through the component as a solver uses it; *ierr the first error (0: none). */
static PetscErrorCode RunCase(const TimeCase *c, PetscErrorCode *ierr, char msg[], AdjStepIndex *nsteps, PetscReal *dt)
{
  PetscOptions opts;
  AdjTimeAxis  ta;

  PetscFunctionBeginUser;
  msg[0] = 0, *nsteps = 0, *dt = 0;
  PetscCall(PetscOptionsCreate(&opts));
  PetscCall(PetscOptionsPush(opts));
  for (PetscInt i = 0; c->opts[i]; i += 2) PetscCall(PetscOptionsSetValue(NULL, c->opts[i], c->opts[i + 1]));
  PetscCall(AdjTimeAxisCreate(PETSC_COMM_WORLD, &ta));
  PetscCall(AdjTimeAxisSetOptionsPrefix(ta, c->prefix, c->physics));
  PetscCall(AdjTimeAxisSetDefaults(ta, c->final_time, c->cfl));
  PetscCall(PetscPushErrorHandler(CaptureError, msg));
  PetscOptionsBegin(PETSC_COMM_WORLD, c->prefix, "test: time stepping", "");
  *ierr = AdjTimeAxisSetFromOptions(ta, PetscOptionsObject);
  PetscOptionsEnd();
  if (!*ierr)
    *ierr = AdjTimeAxisSetLimit(ta, c->type, c->limit, c->type == ADJ_TIME_LIMIT_CFL ? "CFL limit" : NULL, NULL);
  if (!*ierr) *ierr = AdjTimeAxisSetUp(ta);
  if (!*ierr) *ierr = AdjTimeAxisGetSteps(ta, nsteps, dt);
  PetscCall(PetscPopErrorHandler());
  PetscCall(AdjTimeAxisDestroy(&ta));
  PetscCall(PetscOptionsPop());
  PetscCall(PetscOptionsDestroy(&opts));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckRules(PetscInt *fail)
{
  PetscFunctionBeginUser;
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    const TimeCase *c    = &cases[i];
    PetscErrorCode  ierr = 0;
    char            msg[1024];
    AdjStepIndex    n;
    PetscReal       dt;
    PetscBool       ok, found = PETSC_FALSE;

    PetscCall(RunCase(c, &ierr, msg, &n, &dt));
    if (c->nsteps) {
      ok = (PetscBool)(!ierr && n == c->nsteps && dt == c->T / (PetscReal)c->nsteps);
      PetscCall(PetscPrintf(
          PETSC_COMM_WORLD,
          "%-56s steps %3" PetscInt64_FMT " (want %3" PetscInt64_FMT ")  dt %.17g (want T/n %.17g)  %s\n", c->name,
          (PetscInt64)n, (PetscInt64)c->nsteps, (double)dt, (double)(c->T / (PetscReal)c->nsteps), ok ? "ok" : "FAIL"));
      if (ierr) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  unexpected error %d: %s\n", (int)ierr, msg));
    } else {
      char *at;
      PetscCall(PetscStrstr(msg, c->message, &at));
      found = (PetscBool)(at != NULL);
      ok    = (PetscBool)(ierr == PETSC_ERR_USER_INPUT && found);
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-56s error %d%s  %s\n  message: %s\n", c->name, (int)ierr,
                            found ? "" : " (message lacks the expected text)", ok ? "ok" : "FAIL", msg));
      if (!found) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  expected: %s\n", c->message));
    }
    if (!ok) (*fail)++;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  AdjStepIndex last, count;
} StepCount;

static PetscErrorCode CountSteps(AdjStepper st, AdjStepIndex k, Vec x, void *ctx)
{
  StepCount *c = (StepCount *)ctx;

  PetscFunctionBeginUser;
  (void)st, (void)x;
  c->last = k;
  c->count++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* An MPM run from base + extra: its steps and time step, and its final state in *x (NULL: no run). */
static PetscErrorCode MPMRun(const char *const extra[], AdjStepIndex *n, PetscReal *dt, Vec *x, StepCount *count)
{
  const char *const base[] = {"-mpm_grid",       "16,16", "-mpm_body0", "box:0.3,0.3,0.5,0.5",
                              "-mpm_final_time", "0.01",  NULL};
  AdjStepper        st;

  PetscFunctionBeginUser;
  PetscCall(AdjTestStepperCreate(PETSC_COMM_WORLD, "mpm", base, extra, &st));
  PetscCall(AdjStepperGetTimes(st, n, dt));
  if (x) {
    PetscCall(AdjStepperCreateState(st, x));
    PetscCall(AdjTestStepperRun(st, -1, *x, CountSteps, count));
  }
  PetscCall(AdjStepperDestroy(&st));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckMPMSteps(PetscInt *fail)
{
  const char *const steps5[] = {"-mpm_steps", "5", NULL}, *override[] = {"-mpm_dt", "1e-3", "-mpm_steps", "5", NULL};
  const PetscReal   T = 0.01, dt5 = T / 5;
  char              dtstr[64];
  const char       *bydt[] = {"-mpm_dt", dtstr, NULL};
  AdjStepIndex      n0, n, nd, no;
  PetscReal         dt0, dt, dtd, dto;
  StepCount         cs = {-1, 0}, cd = {-1, 0};
  Vec               xs, xd;
  PetscBool         same, ok;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(dtstr, sizeof(dtstr), "%.17g", (double)dt5));
  PetscCall(MPMRun(NULL, &n0, &dt0, NULL, NULL));
  PetscCall(MPMRun(steps5, &n, &dt, &xs, &cs));
  PetscCall(MPMRun(bydt, &nd, &dtd, &xd, &cd));
  PetscCall(MPMRun(override, &no, &dto, NULL, NULL));
  ok = (PetscBool)(n0 != 5);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "mpm default (CFL limit)         %" PetscInt64_FMT " steps of %g s (not 5)  %s\n",
                        (PetscInt64)n0, (double)dt0, ok ? "ok" : "FAIL (the test would not see -mpm_steps act)"));
  if (!ok) (*fail)++;
  ok = (PetscBool)(n == 5 && dt == dt5 && cs.last == 5 && cs.count == 6);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "mpm -mpm_steps 5                %" PetscInt64_FMT
                        " steps of %.17g s, run ends at step %" PetscInt64_FMT " after %" PetscInt64_FMT
                        " states  %s\n",
                        (PetscInt64)n, (double)dt, (PetscInt64)cs.last, (PetscInt64)cs.count, ok ? "ok" : "FAIL"));
  if (!ok) (*fail)++;
  PetscCall(VecEqual(xs, xd, &same));
  ok = (PetscBool)(nd == 5 && dtd == dt5 && cd.last == 5 && same);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "mpm -mpm_dt %s  %" PetscInt64_FMT " steps, final state %s  %s\n", dtstr,
                        (PetscInt64)nd, same ? "bit for bit that of -mpm_steps 5" : "DIFFERS", ok ? "ok" : "FAIL"));
  if (!ok) (*fail)++;
  ok = (PetscBool)(no == 5 && dto == dt5);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "mpm -mpm_dt 1e-3 -mpm_steps 5   %" PetscInt64_FMT " steps of %g s  %s\n",
                        (PetscInt64)no, (double)dto, ok ? "ok" : "FAIL"));
  if (!ok) (*fail)++;
  PetscCall(VecDestroy(&xs));
  PetscCall(VecDestroy(&xd));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt fail = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(CheckRules(&fail));
  PetscCall(CheckMPMSteps(&fail));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " failure(s)\n", fail ? "FAIL" : "PASS", fail));
  PetscCall(PetscFinalize());
  return fail ? 1 : 0;
}
