/* AdjTimeAxis: the time axis of a solver run (final time T, number of steps n, time step dt = T / n), read
 * from the options database the same way by every solver (fluid, transport, mpm).
 *
 * Options, with the solver's options prefix and the physics name ("fluid", "transport", "mpm"):
 *   -<physics>_final_time T   final time [s] (> 0, finite)
 *   -<physics>_dt dt          requested time step [s] (>= 0; 0 or absent: from the stability limit)
 *   -<physics>_steps n        number of steps (>= 0; 0 or absent: from the time step); overrides -<physics>_dt
 *   -<physics>_cfl f          fraction in (0, 1] (see the limit types below)
 * The help texts and the defaults of T and f are the solver's (AdjTimeAxisSetDefaults, AdjTimeAxisSetHelp).
 *
 * The rule (the same floating-point expressions for every solver, so results are bit for bit those of the
 * solvers' former private copies):
 *   1. with -<physics>_steps n > 0:   dt = T / n, which must not exceed the limit;
 *   2. else with -<physics>_dt > 0:   that dt, which must not exceed the limit;
 *   3. else the default:              dt = f * limit (ADJ_TIME_LIMIT_STABILITY) or dt = limit (ADJ_TIME_LIMIT_CFL);
 *   4. without n:                     n = ceil(T / dt * (1 - 1e-12)) (dt rounded down so that whole steps fit T;
 *                                     the factor keeps T / dt = 4 + round-off at 4 steps);
 *   5. n = max(n, 1), and finally dt = T / n.
 * The limit, the largest admissible time step, is the solver's (it may depend on T and f, which it gets with
 * AdjTimeAxisGetFinalTime and AdjTimeAxisGetCFL after AdjTimeAxisSetFromOptions):
 *   ADJ_TIME_LIMIT_STABILITY  the stability limit of the scheme itself (fluid and transport: SSP-RK3 von
 *                             Neumann limits); the default step is the fraction f of it;
 *   ADJ_TIME_LIMIT_CFL        a limit that already holds f (mpm: f h / (wave speed + speed bound)); the default
 *                             step is the limit.
 * A time step above the limit, a non-positive or non-finite T, f outside (0, 1], a negative dt or n are user
 * errors (PETSC_ERR_USER_INPUT) whose message names the option (with the solver's prefix) and its value.
 *
 * Output and restart intervals (-output_interval, -restart_interval) count steps of this axis; they belong to
 * the run file (AdjOutput), one per run, and are not options of the solvers.
 *
 * Use (inside the solver's own options block, so that -help lists the time options with the solver's other
 * time-stepping options):
 *   AdjTimeAxisCreate(comm, &ta);
 *   AdjTimeAxisSetOptionsPrefix(ta, prefix, "fluid");
 *   AdjTimeAxisSetDefaults(ta, 1.0, 0.8);
 *   PetscOptionsBegin(comm, prefix, "Fluid: time stepping", "Fluid");
 *   AdjTimeAxisSetFromOptions(ta, PetscOptionsObject);
 *   ... the solver's other options ...
 *   PetscOptionsEnd();
 *   AdjTimeAxisGetFinalTime(ta, &T); ... compute the limit ...
 *   AdjTimeAxisSetLimit(ta, ADJ_TIME_LIMIT_STABILITY, limit, "stability limit", " of SSP-RK3 (...)");
 *   AdjTimeAxisSetUp(ta);
 *   AdjTimeAxisGetSteps(ta, &nsteps, &dt);
 *   AdjTimeAxisDestroy(&ta); */
#pragma once

#include <adjsim/sys.h>

typedef struct _p_AdjTimeAxis *AdjTimeAxis;

typedef enum {
  ADJ_TIME_LIMIT_STABILITY, /* the scheme's stability limit: default dt = cfl * limit */
  ADJ_TIME_LIMIT_CFL        /* a limit that already includes the cfl fraction: default dt = limit */
} AdjTimeLimitType;

/*@ AdjTimeAxisCreate - a time axis on comm with final time 1 s and fraction 1. Collective. @*/
PetscErrorCode AdjTimeAxisCreate(MPI_Comm comm, AdjTimeAxis *ta);
/*@ AdjTimeAxisSetOptionsPrefix - the solver's options prefix (NULL or "" for none; the prefix of the
    options block AdjTimeAxisSetFromOptions is called in) and the physics name of the options, e.g. "mpm"
    for -mpm_final_time, -mpm_dt, -mpm_steps, -mpm_cfl; also sets the standard help texts. Not collective. @*/
PetscErrorCode AdjTimeAxisSetOptionsPrefix(AdjTimeAxis ta, const char prefix[], const char physics[]);
/*@ AdjTimeAxisSetDefaults - the final time [s] and the cfl fraction used when the options do not give them.
    Not collective. @*/
PetscErrorCode AdjTimeAxisSetDefaults(AdjTimeAxis ta, PetscReal final_time, PetscReal cfl);
/*@ AdjTimeAxisSetHelp - help texts of -<physics>_final_time, _dt, _steps, _cfl replacing the standard ones
    (NULL keeps the standard text); call after AdjTimeAxisSetOptionsPrefix. Not collective. @*/
PetscErrorCode AdjTimeAxisSetHelp(AdjTimeAxis ta, const char final_time[], const char dt[], const char steps[],
                                  const char cfl[]);
/*@ AdjTimeAxisSetFromOptions - reads and checks the four options; call it between the solver's
    PetscOptionsBegin (with the prefix given to AdjTimeAxisSetOptionsPrefix) and PetscOptionsEnd. Collective. @*/
PetscErrorCode AdjTimeAxisSetFromOptions(AdjTimeAxis ta, PetscOptionItems *PetscOptionsObject);
/*@ AdjTimeAxisGetFinalTime - the final time [s] (from the options once they are read). Not collective. @*/
PetscErrorCode AdjTimeAxisGetFinalTime(AdjTimeAxis ta, PetscReal *final_time);
/*@ AdjTimeAxisGetCFL - the fraction -<physics>_cfl. Not collective. @*/
PetscErrorCode AdjTimeAxisGetCFL(AdjTimeAxis ta, PetscReal *cfl);
/*@ AdjTimeAxisSetLimit - the largest admissible time step [s] and its type; name ("stability limit", "CFL
    limit") and detail (appended after the limit in the error message, e.g. " of SSP-RK3 (max |u| 2 m/s)")
    describe it in the message refusing a larger step. Not collective (same values on every rank). @*/
PetscErrorCode AdjTimeAxisSetLimit(AdjTimeAxis ta, AdjTimeLimitType type, PetscReal limit, const char name[],
                                   const char detail[]);
/*@ AdjTimeAxisSetUp - the number of steps and the time step by the rule above; refuses a step above the
    limit. Collective. @*/
PetscErrorCode AdjTimeAxisSetUp(AdjTimeAxis ta);
/*@ AdjTimeAxisGetSteps - the number of steps and the time step T / n [s] (after AdjTimeAxisSetUp).
    Not collective. @*/
PetscErrorCode AdjTimeAxisGetSteps(AdjTimeAxis ta, AdjStepIndex *nsteps, PetscReal *dt);
/*@ AdjTimeAxisDestroy - frees the axis and sets the handle to NULL. Not collective. @*/
PetscErrorCode AdjTimeAxisDestroy(AdjTimeAxis *ta);
