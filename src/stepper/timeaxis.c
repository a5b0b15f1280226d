/* AdjTimeAxis: final time, number of steps and time step of a solver run, by one rule for every solver
 * (include/adjsim/timeaxis.h).  The struct is private to this file: nothing else needs its fields. */
#include <adjsim/timeaxis.h>

/* Bigger step counts are refused: the count must stay exact in a double and in AdjStepIndex. */
#define ADJ_TIME_MAX_STEPS 1e15

enum { OPT_FINAL_TIME, OPT_DT, OPT_STEPS, OPT_CFL, OPT_COUNT };

struct _p_AdjTimeAxis {
  MPI_Comm         comm;
  char             prefix[64];           /* the solver's options prefix ("" for none) */
  char             name[OPT_COUNT][64];  /* option names as read inside the solver's block, e.g. -mpm_dt */
  char             full[OPT_COUNT][128]; /* option names with the prefix, for messages, e.g. -a_mpm_dt */
  char             help[OPT_COUNT][256];
  PetscReal        final_time, cfl; /* [s], [1] */
  PetscReal        dt_request;      /* -<physics>_dt [s]; 0: not given */
  PetscInt         steps_request;   /* -<physics>_steps; 0: not given */
  AdjTimeLimitType limit_type;
  PetscReal        limit; /* largest admissible time step [s] */
  PetscBool        limit_set;
  char             limit_name[64], limit_detail[1024];
  AdjStepIndex     nsteps; /* results of AdjTimeAxisSetUp (0: not set up) */
  PetscReal        dt;
};

PetscErrorCode AdjTimeAxisCreate(MPI_Comm comm, AdjTimeAxis *ta)
{
  AdjTimeAxis t;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&t));
  t->comm          = comm;
  t->final_time    = 1.0;
  t->cfl           = 1.0;
  t->dt_request    = 0;
  t->steps_request = 0;
  t->limit_type    = ADJ_TIME_LIMIT_STABILITY;
  t->limit         = 0;
  t->limit_set     = PETSC_FALSE;
  t->nsteps        = 0;
  t->dt            = 0;
  PetscCall(PetscStrncpy(t->limit_name, "stability limit", sizeof(t->limit_name)));
  PetscCall(AdjTimeAxisSetOptionsPrefix(t, NULL, "time"));
  *ta = t;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjTimeAxisSetOptionsPrefix(AdjTimeAxis ta, const char prefix[], const char physics[])
{
  const char *suffix[OPT_COUNT] = {"final_time", "dt", "steps", "cfl"};

  PetscFunctionBeginUser;
  PetscCall(PetscStrncpy(ta->prefix, prefix ? prefix : "", sizeof(ta->prefix)));
  for (PetscInt o = 0; o < OPT_COUNT; o++) {
    PetscCall(PetscSNPrintf(ta->name[o], sizeof(ta->name[o]), "-%s_%s", physics, suffix[o]));
    PetscCall(PetscSNPrintf(ta->full[o], sizeof(ta->full[o]), "-%s%s_%s", ta->prefix, physics, suffix[o]));
  }
  /* The help texts of fluid and transport; the option names in them are without the prefix, as -help shows
     every option of the block. */
  PetscCall(PetscStrncpy(ta->help[OPT_FINAL_TIME], "Final time [s]", sizeof(ta->help[0])));
  PetscCall(PetscSNPrintf(ta->help[OPT_DT], sizeof(ta->help[0]),
                          "Time step [s] (default: -%s_cfl times the stability limit); rounded down so steps fit the "
                          "final time",
                          physics));
  PetscCall(
      PetscSNPrintf(ta->help[OPT_STEPS], sizeof(ta->help[0]), "Number of time steps (overrides -%s_dt)", physics));
  PetscCall(PetscStrncpy(ta->help[OPT_CFL], "Fraction of the stability limit used when no time step is given",
                         sizeof(ta->help[0])));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjTimeAxisSetDefaults(AdjTimeAxis ta, PetscReal final_time, PetscReal cfl)
{
  PetscFunctionBeginUser;
  ta->final_time = final_time;
  ta->cfl        = cfl;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjTimeAxisSetHelp(AdjTimeAxis ta, const char final_time[], const char dt[], const char steps[],
                                  const char cfl[])
{
  const char *text[OPT_COUNT] = {final_time, dt, steps, cfl};

  PetscFunctionBeginUser;
  for (PetscInt o = 0; o < OPT_COUNT; o++)
    if (text[o]) PetscCall(PetscStrncpy(ta->help[o], text[o], sizeof(ta->help[o])));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjTimeAxisSetFromOptions(AdjTimeAxis ta, PetscOptionItems *PetscOptionsObject)
{
  PetscBool same;

  PetscFunctionBeginUser;
  PetscCall(PetscStrcmp(PetscOptionsObject->prefix ? PetscOptionsObject->prefix : "", ta->prefix, &same));
  PetscCheck(same, ta->comm, PETSC_ERR_ARG_WRONG,
             "AdjTimeAxisSetFromOptions: called in an options block with prefix \"%s\", but the axis has prefix \"%s\"",
             PetscOptionsObject->prefix ? PetscOptionsObject->prefix : "", ta->prefix);
  PetscCall(
      PetscOptionsReal(ta->name[OPT_FINAL_TIME], ta->help[OPT_FINAL_TIME], "", ta->final_time, &ta->final_time, NULL));
  PetscCall(PetscOptionsReal(ta->name[OPT_DT], ta->help[OPT_DT], "", ta->dt_request, &ta->dt_request, NULL));
  PetscCall(PetscOptionsInt(ta->name[OPT_STEPS], ta->help[OPT_STEPS], "", ta->steps_request, &ta->steps_request, NULL));
  PetscCall(PetscOptionsReal(ta->name[OPT_CFL], ta->help[OPT_CFL], "", ta->cfl, &ta->cfl, NULL));
  PetscCheck(ta->final_time > 0 && !PetscIsInfOrNanReal(ta->final_time), ta->comm, PETSC_ERR_USER_INPUT,
             "%s %g s: the final time must be positive and finite", ta->full[OPT_FINAL_TIME], (double)ta->final_time);
  PetscCheck(ta->cfl > 0 && ta->cfl <= 1, ta->comm, PETSC_ERR_USER_INPUT, "%s %g must lie in (0, 1]", ta->full[OPT_CFL],
             (double)ta->cfl);
  PetscCheck(ta->dt_request >= 0 && !PetscIsInfOrNanReal(ta->dt_request), ta->comm, PETSC_ERR_USER_INPUT,
             "%s %g s: the time step must be positive and finite (or 0: the default)", ta->full[OPT_DT],
             (double)ta->dt_request);
  PetscCheck(ta->steps_request >= 0, ta->comm, PETSC_ERR_USER_INPUT,
             "%s %" PetscInt_FMT ": the number of steps must be positive (or 0: from the time step)",
             ta->full[OPT_STEPS], ta->steps_request);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjTimeAxisGetFinalTime(AdjTimeAxis ta, PetscReal *final_time)
{
  PetscFunctionBeginUser;
  *final_time = ta->final_time;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjTimeAxisGetCFL(AdjTimeAxis ta, PetscReal *cfl)
{
  PetscFunctionBeginUser;
  *cfl = ta->cfl;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjTimeAxisSetLimit(AdjTimeAxis ta, AdjTimeLimitType type, PetscReal limit, const char name[],
                                   const char detail[])
{
  PetscFunctionBeginUser;
  ta->limit_type = type;
  ta->limit      = limit;
  ta->limit_set  = PETSC_TRUE;
  PetscCall(PetscStrncpy(ta->limit_name, name ? name : "stability limit", sizeof(ta->limit_name)));
  PetscCall(PetscStrncpy(ta->limit_detail, detail ? detail : "", sizeof(ta->limit_detail)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The message refusing the time step dt above the limit: which option asked for it, the limit and its
   detail, and the settings that would pass. */
static PetscErrorCode AdjTimeAxisRefuseStep(AdjTimeAxis ta, PetscReal dt)
{
  const PetscReal T = ta->final_time, L = ta->limit, nmin = PetscCeilReal(T / L);
  char            asked[256], hint[256] = "";

  PetscFunctionBeginUser;
  if (ta->steps_request > 0)
    PetscCall(PetscSNPrintf(
        asked, sizeof(asked), "%s %" PetscInt_FMT " gives a time step of %g s (%s %g s / %" PetscInt_FMT "), which",
        ta->full[OPT_STEPS], ta->steps_request, (double)dt, ta->full[OPT_FINAL_TIME], (double)T, ta->steps_request));
  else
    PetscCall(PetscSNPrintf(asked, sizeof(asked), "%s %g s", ta->full[OPT_DT], (double)dt));
  if (L > 0 && nmin < ADJ_TIME_MAX_STEPS)
    PetscCall(PetscSNPrintf(hint, sizeof(hint), "; use %s <= %g or %s >= %" PetscInt64_FMT, ta->full[OPT_DT], (double)L,
                            ta->full[OPT_STEPS], (PetscInt64)(T / nmin > L ? nmin + 1 : nmin)));
  SETERRQ(ta->comm, PETSC_ERR_USER_INPUT, "%s exceeds the %s %g s%s%s", asked, ta->limit_name, (double)L,
          ta->limit_detail, hint);
}

PetscErrorCode AdjTimeAxisSetUp(AdjTimeAxis ta)
{
  const PetscReal T  = ta->final_time;
  PetscReal       dt = ta->dt_request, n;

  PetscFunctionBeginUser;
  PetscCheck(ta->limit_set, ta->comm, PETSC_ERR_ORDER, "AdjTimeAxisSetUp: call AdjTimeAxisSetLimit first");
  if (ta->steps_request > 0) dt = T / ta->steps_request;
  if (!(dt <= ta->limit)) PetscCall(AdjTimeAxisRefuseStep(ta, dt));
  if (dt == 0) dt = ta->limit_type == ADJ_TIME_LIMIT_STABILITY ? ta->cfl * ta->limit : ta->limit;
  if (ta->steps_request > 0)
    n = ta->steps_request;
  else {
    n = PetscCeilReal(T / dt * (1 - 1e-12));
    PetscCheck(n < ADJ_TIME_MAX_STEPS, ta->comm, PETSC_ERR_USER_INPUT,
               "%s %g s in time steps of %g s (the %s %g s%s) would take %g steps, more than %g",
               ta->full[OPT_FINAL_TIME], (double)T, (double)dt, ta->limit_name, (double)ta->limit, ta->limit_detail,
               (double)n, (double)ADJ_TIME_MAX_STEPS);
  }
  ta->nsteps = PetscMax((AdjStepIndex)n, 1);
  ta->dt     = T / (PetscReal)ta->nsteps;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjTimeAxisGetSteps(AdjTimeAxis ta, AdjStepIndex *nsteps, PetscReal *dt)
{
  PetscFunctionBeginUser;
  PetscCheck(ta->nsteps > 0, ta->comm, PETSC_ERR_ORDER, "AdjTimeAxisGetSteps: call AdjTimeAxisSetUp first");
  if (nsteps) *nsteps = ta->nsteps;
  if (dt) *dt = ta->dt;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjTimeAxisDestroy(AdjTimeAxis *ta)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(*ta));
  PetscFunctionReturn(PETSC_SUCCESS);
}
