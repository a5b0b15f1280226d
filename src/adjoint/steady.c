/* AdjDriver's steady mode (-adjoint_steady, docs/steady.md): forward runs march to the steady state x* = Phi(x*) of
 * -steady_tol, holding one state and no checkpoints, and gradients solve the adjoint of that fixed point instead of
 * reversing the march.
 *
 * Objective. The solver names one step k and switches its objective to the steady form (AdjStepperSetSteady):
 *   J(p) = J_k(Phi_k(x*, p), p) + R(p),
 * the objective of a run that sits at x* for ever (a final-time term as it is; a term averaged over a window of
 * steps at one step of the window, with the weight of the whole average). The term is taken on the state after one more
 * step from x*, so that terms computed inside the step (the fluid's body forces) belong to a step taken from x*,
 * exactly as at the last step of an unsteady run.
 *
 * Adjoint. With A = dPhi_k/dx and B = dPhi_k/dp at x*, f = dJ_k/dx and the step's own objective terms (forces) F(x*):
 *   mu = A^T (mu + f) + dF/dx,  i.e.  (I - A^T) mu = b,  b = A^T f + dF/dx,
 *   dJ/dp = B^T (mu + f) + dF/dp + dJ_k/dp + dR/dp.
 * mu is the adjoint of the state entering the step: the limit of the unsteady reverse sweep lambda_{k-1} =
 * A^T (lambda_k + f_k) + dF_k/dx far from the final step, so plain fixed-point iteration (KSP richardson) is
 * exactly that sweep, and GMRES accelerates it. b is one application of the step adjoint after the objective
 * adjoint (AdjSteadyRightHandSide); the operator v -> v - A^T v applies the step adjoint with no objective term
 * (AdjSteadyMult), which still adds (dPhi/dp)^T v to the solver's parameter gradient on every call: that gradient is
 * zeroed after the solve, and one last application with mu, after the objective adjoint, leaves exactly the sum
 * above (AdjSteadyFinalGradient).
 *
 * -steady_adjoint_sweeps k preconditions the solve by k fixed-point sweeps (the truncated Neumann series of
 * (I - A^T)^{-1}, AdjSteadyPCApply); the sweeps' applications also add to the parameter gradient that is zeroed.
 *
 * The initial state: at a unique steady state it does not matter, so initialstateadjoint is never called, and the
 * blocks that only set the initial state are refused in gradients (their gradient is zero). For the same reason the
 * march may start from a restart file's state (-steady_initial): a warm start near x*. */
#include "driverimpl.h"
#include <adjsim/interrupt.h>
#include <adjsim/io.h>

static PetscLogEvent ADJ_SteadyMarch, ADJ_SteadyAdjoint;

/* A fixed point whose one-step residual exceeds this multiple of -steady_tol is no steady state of step k. */
#define ADJ_STEADY_RESIDUAL_FACTOR 100

static PetscErrorCode AdjSteadyPCApply(PC, Vec, Vec);

/* With the sweeps, the KSP's residual must stay the true one, ||b - (I - A^T) mu||, the figure the run file records
 * and -steady_adjoint_ksp_rtol bounds: right preconditioning, or (richardson, which has no right side) the
 * unpreconditioned norm; unless the options set the side or the norm themselves. */
static PetscErrorCode AdjSteadySweepsResidual(KSP ksp)
{
  PetscBool richardson, side, norm;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectTypeCompare((PetscObject)ksp, KSPRICHARDSON, &richardson));
  PetscCall(PetscOptionsHasName(NULL, "steady_adjoint_", "-ksp_pc_side", &side));
  PetscCall(PetscOptionsHasName(NULL, "steady_adjoint_", "-ksp_norm_type", &norm));
  if (!richardson && !side) PetscCall(KSPSetPCSide(ksp, PC_RIGHT));
  if (richardson && !norm) PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjDriverSteadySetFromOptions(AdjDriver drv)
{
  AdjDriverSteady *s = &drv->steady;
  PC               pc;

  PetscFunctionBeginUser;
  if (s->sweeps < 1) s->sweeps = 1;
  PetscOptionsBegin(drv->comm, NULL, "Steady-state adjoints", "AdjDriver");
  PetscCall(PetscOptionsBool(
      "-adjoint_steady",
      "Steady mode (needs -steady_tol): forward runs march to the steady state x* = Phi(x*) and J is the solver's "
      "steady objective at x* (a final-time term at x*, a time average at its steady value); gradients solve the "
      "fixed-point adjoint (I - (dPhi/dx)^T) mu = b at x* by KSP (options -steady_adjoint_ksp_*, default gmres, "
      "restart 100, rtol 1e-12) instead of reversing the march: one state, no checkpoints (docs/steady.md)",
      "", s->on, &s->on, NULL));
  PetscCall(PetscOptionsBool("-steady_adjoint_retake_step",
                             "Retake the forward step at x* before every step-adjoint application, even when the "
                             "solver's adjoint keeps the step's intermediates (the default then takes it once): for "
                             "checking that both give the same gradient bit for bit",
                             "", s->retake, &s->retake, NULL));
  PetscCall(PetscOptionsInt("-steady_adjoint_sweeps",
                            "Preconditioner of the adjoint solve: k fixed-point sweeps of the step adjoint, "
                            "M^-1 = sum_{j<k} (dPhi/dx)^T^j (k - 1 step adjoints per application; 1: none)",
                            "", s->sweeps, &s->sweeps, NULL));
  PetscCheck(s->sweeps >= 1, drv->comm, PETSC_ERR_USER_INPUT,
             "-steady_adjoint_sweeps %" PetscInt_FMT ": must be >= 1 (1: no preconditioner)", s->sweeps);
  PetscCall(PetscOptionsInt("-steady_monitor",
                            "Print the relative change per unit time of the steady march [1/s] every N steps (0: off)",
                            "", s->monitor, &s->monitor, NULL));
  PetscCheck(s->monitor >= 0, drv->comm, PETSC_ERR_USER_INPUT, "-steady_monitor %" PetscInt_FMT ": must be >= 0",
             s->monitor);
  PetscCall(PetscOptionsString("-steady_initial",
                               "Start every steady march (forward runs, gradients, optimization) from the state of "
                               "this restart file instead of the initial state: a warm start near x*, which a unique "
                               "steady state does not depend on (the step index starts at the file's; the gradient "
                               "checks' runs of a fixed step count start from the initial state)",
                               "", s->initial, s->initial, sizeof(s->initial), NULL));
  PetscOptionsEnd();
  if (!s->on) PetscFunctionReturn(PETSC_SUCCESS);
  {
    const AdjLogEvent events[] = {{"AdjSteadyMarch", &ADJ_SteadyMarch}, {"AdjSteadyAdjoint", &ADJ_SteadyAdjoint}};
    PetscCall(AdjLogRegisterEvents("AdjSteady", ADJ_NUM_EVENTS(events), events));
  }
  if (!s->ksp) {
    PetscCall(KSPCreate(drv->comm, &s->ksp));
    PetscCall(KSPSetOptionsPrefix(s->ksp, "steady_adjoint_"));
    PetscCall(KSPSetType(s->ksp, KSPGMRES));
    /* GMRES(30) stalls on the slowly decaying modes of advection-diffusion (transport: 1204 applications against 275
       with restart 100 and 139 unrestarted, docs/steady.md): 100 vectors of the state's size by default */
    PetscCall(KSPGMRESSetRestart(s->ksp, 100));
    PetscCall(KSPSetTolerances(s->ksp, 1e-12, 1e-50, 1e5, 10000));
    PetscCall(KSPGetPC(s->ksp, &pc));
    PetscCall(PCSetType(pc, PCNONE));
  }
  PetscCall(KSPGetPC(s->ksp, &pc));
  if (s->sweeps > 1) {
    PetscCall(PCSetType(pc, PCSHELL));
    PetscCall(PCShellSetContext(pc, drv));
    PetscCall(PCShellSetApply(pc, AdjSteadyPCApply));
    PetscCall(PCShellSetName(pc, "steady adjoint sweeps"));
  }
  PetscCall(KSPSetFromOptions(s->ksp));
  if (s->sweeps > 1) PetscCall(AdjSteadySweepsResidual(s->ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjDriverSteadyDestroy(AdjDriver drv)
{
  AdjDriverSteady *s = &drv->steady;

  PetscFunctionBeginUser;
  PetscCall(KSPDestroy(&s->ksp));
  PetscCall(MatDestroy(&s->op));
  PetscCall(VecDestroy(&s->b));
  PetscCall(VecDestroy(&s->mu));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjDriverGetSteadyAdjoint(AdjDriver drv, PetscBool *on)
{
  PetscFunctionBeginUser;
  *on = drv->steady.on;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Everything a steady run needs from the options and the solver, refused with the reason otherwise. Keeps the
 * solver's steady objective in drv->steady.info. Collective (the same decision on every rank). */
PetscErrorCode AdjDriverSteadyCheck(AdjDriver drv)
{
  AdjDriverSteady *s = &drv->steady;
  AdjStepperType   type;
  PetscBool        known, has;

  PetscFunctionBeginUser;
  PetscCall(AdjStepperGetType(drv->stepper, &type));
  PetscCheck(drv->steady_tol > 0, drv->comm, PETSC_ERR_USER_INPUT,
             "-adjoint_steady needs -steady_tol TOL > 0 [1/s]: the forward run marches until the relative change of "
             "the state per unit time falls below TOL, and that state is the steady state x*");
  PetscCall(AdjStepperSetSteady(drv->stepper, &known, &s->info));
  PetscCheck(known, drv->comm, PETSC_ERR_USER_INPUT,
             "-adjoint_steady cannot be used with -problem %s: the solver does not say what its steady state and "
             "steady objective are (stepper operation setsteady)",
             type);
  PetscCheck(!s->info.nosteady, drv->comm, PETSC_ERR_USER_INPUT,
             "-adjoint_steady cannot be used with -problem %s here: %s, so it has no steady state x* = Phi(x*); run "
             "the unsteady gradient instead",
             type, s->info.nosteady);
  PetscCall(AdjStepperHasObjective(drv->stepper, &has));
  PetscCheck(!has || !s->info.objective, drv->comm, PETSC_ERR_USER_INPUT,
             "-adjoint_steady cannot be used with %s: that term belongs to particular steps of a transient and has "
             "no steady meaning; use a final-time or time-averaged objective, or run the unsteady gradient",
             s->info.objective);
  PetscCheck(s->info.k >= 1, drv->comm, PETSC_ERR_PLIB,
             "-problem %s: steady objective step %" PetscInt64_FMT " is invalid", type, (PetscInt64)s->info.k);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjDriverCheckSteadyGradient - with -adjoint_steady, AdjDriverCheckSteadySupported plus the gradient's own
    condition: no active parameter block may only set the initial state (a unique steady state does not depend on
    it: its gradient is zero), refused naming the block. Collective. @*/
PetscErrorCode AdjDriverCheckSteadyGradient(AdjDriver drv)
{
  AdjParams params;
  PetscInt  nblocks;

  PetscFunctionBeginUser;
  if (!drv->steady.on) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(AdjDriverSteadyCheck(drv));
  PetscCall(AdjStepperGetParams(drv->stepper, &params));
  PetscCall(AdjParamsGetNumBlocks(params, &nblocks));
  for (PetscInt b = 0; b < nblocks; b++) {
    const char *name;
    PetscBool   active;

    PetscCall(AdjParamsGetBlockInfo(params, b, &name, NULL, NULL, NULL, &active));
    for (PetscInt i = 0; active && i < 4 && drv->steady.info.initial[i]; i++) {
      PetscBool same;
      PetscCall(PetscStrcmp(name, drv->steady.info.initial[i], &same));
      PetscCheck(!same, drv->comm, PETSC_ERR_USER_INPUT,
                 "-adjoint_steady: parameter '%s' only sets the initial state, which a unique steady state does not "
                 "depend on (its gradient is zero); leave it out of -adjoint_params",
                 name);
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ||xnew - xold||_inf / (dt max(||xnew||_inf, 1e-300)) [1/s]: the quantity -steady_tol bounds. */
static PetscErrorCode AdjSteadyChangeRate(AdjDriver drv, Vec xnew, Vec xold, PetscReal dt, PetscReal *rate)
{
  PetscReal dnorm, xnorm;

  PetscFunctionBeginUser;
  if (!drv->dx) PetscCall(VecDuplicate(xnew, &drv->dx));
  PetscCall(VecWAXPY(drv->dx, -1.0, xold, xnew));
  PetscCall(VecNorm(drv->dx, NORM_INFINITY, &dnorm));
  PetscCall(VecNorm(xnew, NORM_INFINITY, &xnorm));
  *rate = dnorm / (dt * PetscMax(xnorm, (PetscReal)1e-300));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One step of the march from x = x_{k-1}: x becomes x_k; *stop when -steady_tol's test says x_k is steady. A bad
 * state (NaN, blow-up) stops the run, after saving x_{k-1} when there is output. */
static PetscErrorCode AdjSteadyMarchStep(AdjDriver drv, AdjStepIndex k, AdjStepIndex n, PetscReal dt, PetscBool out,
                                         PetscBool *stop)
{
  PetscErrorCode bad;

  PetscFunctionBeginUser;
  PetscCall(AdjStepperStep(drv->stepper, k, drv->x, drv->y));
  bad = AdjStepperCheckState(drv->stepper, k, drv->y); /* collective: the same code on every rank */
  if (bad && out) PetscCall(AdjDriverSaveLastGood(drv, k - 1, n, dt));
  PetscCall(bad);
  PetscCall(AdjDriverSteadyReached(drv, drv->y, drv->x, dt, stop));
  if (drv->steady.monitor > 0 && (k % drv->steady.monitor == 0 || *stop)) {
    PetscReal rate;
    PetscCall(AdjSteadyChangeRate(drv, drv->y, drv->x, dt, &rate));
    PetscCall(PetscPrintf(drv->comm, "steady march: step %" PetscInt64_FMT " t = %g change rate %.6e 1/s\n",
                          (PetscInt64)k, (double)(k * dt), (double)rate));
  }
  AdjDriverSwapVecs(&drv->x, &drv->y);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* No steady state within the step budget: one message with the change rate reached, the last state saved to the
 * restart file when there is output. Collective. */
static PetscErrorCode AdjSteadyNotReached(AdjDriver drv, AdjStepIndex n, PetscReal dt, PetscBool out)
{
  PetscReal rate;

  PetscFunctionBeginUser;
  PetscCall(AdjSteadyChangeRate(drv, drv->x, drv->y, dt, &rate));
  if (out) PetscCall(AdjStepperWriteRestart(drv->stepper, drv->out, n, drv->x, PETSC_TRUE));
  SETERRQ(drv->comm, PETSC_ERR_NOT_CONVERGED,
          "-adjoint_steady: no steady state within the %" PetscInt64_FMT
          " steps of the time axis (t = %g s): the relative change per unit time is still %g 1/s > -steady_tol %g; "
          "give more steps (a longer final time) or a larger -steady_tol%s",
          (PetscInt64)n, (double)(n * dt), (double)rate, (double)drv->steady_tol,
          out ? " (the last state is in the restart file)" : "");
}

/* March from the initial state (or the -restart state of a forward run with output) to the steady state of
 * -steady_tol, or exactly the fixed number of steps of the gradient checks: x = x_n at the end, *n the final step.
 * With output: fields and restart files as in a forward run. A signal (interruptible driver) stops it between two
 * steps: *n < 0 then, and with output the restart file holds the state. Collective. */
static PetscErrorCode AdjSteadyMarch(AdjDriver drv, Vec p, PetscBool out, AdjStepIndex *n, PetscReal *dt)
{
  AdjStepIndex k0 = 0, k;
  AdjProgress  pr;
  PetscBool    stop = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(ADJ_SteadyMarch, 0, 0, 0, 0));
  PetscCall(AdjStepperGetTimes(drv->stepper, n, dt));
  if (drv->fixed_steps > 0) *n = drv->fixed_steps;
  PetscCall(AdjStepperSetParameters(drv->stepper, p));
  PetscCall(AdjStepperInitialState(drv->stepper, drv->x));
  drv->steady_stopped = PETSC_FALSE;
  if (out && drv->restart[0])
    PetscCall(AdjStepperReadRestart(drv->stepper, drv->restart, drv->x, &k0));
  else if (drv->steady.initial[0] && drv->fixed_steps <= 0) {
    /* not in the gradient checks' runs of a fixed step count: a fixed count from a warm state is not the steady
       objective at the perturbed parameters, the same count from the initial state is (at least as long a march) */
    PetscCall(AdjStepperReadRestart(drv->stepper, drv->steady.initial, drv->x, &k0));
    PetscCheck(k0 < *n, drv->comm, PETSC_ERR_USER_INPUT,
               "-steady_initial %s: its state is at step %" PetscInt64_FMT ", not before the last step %" PetscInt64_FMT
               " of the time axis: give a longer final time (the march continues from the file's step)",
               drv->steady.initial, (PetscInt64)k0, (PetscInt64)*n);
  }
  PetscCall(AdjDriverCheckInitialFinite(drv, k0, drv->x));
  if (out && k0 == 0) PetscCall(AdjDriverOutputStep(drv, 0, *n, *dt));
  PetscCall(AdjProgressStart(&pr, (PetscBool)(drv->quiet || !out), drv->progress_interval));
  for (k = k0 + 1; k <= *n && !stop; k++) {
    PetscCall(AdjSteadyMarchStep(drv, k, *n, *dt, out, &stop));
    if (stop) *n = k;
    if (out) PetscCall(AdjDriverOutputStep(drv, k, *n, *dt));
    PetscCall(AdjProgressUpdate(&pr, drv->comm, "forward (steady, at most)", k, *n, k * *dt));
    if (drv->interruptible && !stop && k < *n) {
      PetscBool requested;
      PetscCall(AdjInterruptRequested(drv->comm, &requested));
      if (requested) {
        if (out) PetscCall(AdjStepperWriteRestart(drv->stepper, drv->out, k, drv->x, PETSC_TRUE));
        drv->interrupted_at = k;
        *n                  = -1;
        break;
      }
    }
  }
  drv->steady_stopped = stop;
  PetscCall(PetscLogEventEnd(ADJ_SteadyMarch, 0, 0, 0, 0));
  if (*n >= 0 && !stop && drv->fixed_steps <= 0) PetscCall(AdjSteadyNotReached(drv, *n, *dt, out));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The steady objective term at x = x*: y = Phi_k(x*) and *Jk = J_k(y). Records the fixed-point residual
 * of step k; one far above -steady_tol means the step changes with k (or x* has not settled), refused unless the
 * step count is held fixed (the gradient checks' perturbed runs). Collective. */
static PetscErrorCode AdjSteadyObjectiveTerm(AdjDriver drv, PetscReal dt, PetscReal *Jk)
{
  AdjDriverSteady   *s = &drv->steady;
  const AdjStepIndex k = s->info.k;

  PetscFunctionBeginUser;
  PetscCall(AdjStepperStep(drv->stepper, k, drv->x, drv->y));
  PetscCall(AdjStepperCheckState(drv->stepper, k, drv->y));
  PetscCall(AdjSteadyChangeRate(drv, drv->y, drv->x, dt, &s->residual));
  PetscCheck(drv->fixed_steps > 0 || s->residual <= ADJ_STEADY_RESIDUAL_FACTOR * drv->steady_tol, drv->comm,
             PETSC_ERR_NOT_CONVERGED,
             "-adjoint_steady: the steady state reached at step %" PetscInt64_FMT " is not one of step %" PetscInt64_FMT
             " (its relative change per unit time there is %g 1/s, more than "
             "%d x -steady_tol %g): the step depends on time, or the state has not settled (lower -steady_tol)",
             (PetscInt64)drv->final_step, (PetscInt64)k, (double)s->residual, ADJ_STEADY_RESIDUAL_FACTOR,
             (double)drv->steady_tol);
  PetscCall(AdjStepperObjective(drv->stepper, k, drv->y, Jk));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjDriverSteadyForward(AdjDriver drv, Vec p, PetscBool write_output, PetscReal *J)
{
  const PetscBool out = (PetscBool)(write_output && drv->out);
  AdjStepIndex    n;
  PetscReal       dt, Jk, R;

  PetscFunctionBeginUser;
  PetscCall(AdjDriverSteadyCheck(drv));
  drv->interrupted_at = -1;
  drv->final_step     = -1;
  drv->steady.solved  = PETSC_FALSE;
  PetscCall(AdjSteadyMarch(drv, p, out, &n, &dt));
  if (n < 0) PetscFunctionReturn(PETSC_SUCCESS); /* interrupted: the restart file holds the state */
  drv->final_step = n;
  PetscCall(AdjSteadyObjectiveTerm(drv, dt, &Jk));
  PetscCall(AdjStepperZeroGradient(drv->stepper));
  PetscCall(AdjStepperRegularization(drv->stepper, &R));
  *J = Jk + R;
  if (out) PetscCall(AdjStepperWriteRestart(drv->stepper, drv->out, n, drv->x, PETSC_FALSE));
  if (out) PetscCall(AdjDriverRecordFinalStep(drv, "/"));
  if (write_output) PetscCall(AdjDriverReportStop(drv, dt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = Phi_k(x*) with the step's intermediates ready for a step adjoint (the adjoint contract): the step is taken
 * only when the last one is not still current, i.e. once per gradient for a solver whose adjoint keeps them
 * (AdjStepperSetAdjointKeepsStep), before every application otherwise (or with -steady_adjoint_retake_step). */
static PetscErrorCode AdjSteadyStepAtFixedPoint(AdjDriver drv)
{
  PetscBool current;

  PetscFunctionBeginUser;
  PetscCall(AdjStepperIsStepCurrent(drv->stepper, drv->steady.info.k, drv->x, &current));
  if (current && !drv->steady.retake) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(AdjStepperStep(drv->stepper, drv->steady.info.k, drv->x, drv->y));
  drv->steady.steps++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* drv->lamprev = A^T v with A = dPhi_k/dx at x* = drv->x, v copied so that no solver's step adjoint writes into a
 * vector the KSP owns. No objective term enters: the step adjoint then adds only (dPhi/dp)^T v to the parameter
 * gradient, which AdjSteadyFinalGradient zeroes. */
static PetscErrorCode AdjSteadyApplyTranspose(AdjDriver drv, Vec v)
{
  PetscFunctionBeginUser;
  PetscCall(VecCopy(v, drv->lam));
  PetscCall(AdjSteadyStepAtFixedPoint(drv));
  PetscCall(AdjStepperStepAdjoint(drv->stepper, drv->steady.info.k, drv->x, drv->y, drv->lam, drv->lamprev));
  drv->steady.applications++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* w = (I - A^T) v. */
static PetscErrorCode AdjSteadyMult(Mat op, Vec v, Vec w)
{
  AdjDriver drv;

  PetscFunctionBeginUser;
  PetscCall(MatShellGetContext(op, &drv));
  PetscCall(AdjSteadyApplyTranspose(drv, v));
  PetscCall(VecWAXPY(w, -1.0, drv->lamprev, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The polynomial preconditioner of -steady_adjoint_sweeps k: z = sum_{j<k} (A^T)^j r, the truncated Neumann series of
 * (I - A^T)^{-1}, i.e. k fixed-point sweeps z <- r + A^T z from z = r (k - 1 step adjoints). The preconditioned
 * operator is (I - A^T) M^{-1} = I - (A^T)^k: an eigenvalue lambda of A near 1 moves to 1 - lambda^k ~ k (1 - lambda),
 * k times further from the origin, and each Krylov vector carries k sweeps, so a restarted GMRES spans a polynomial
 * of k times the degree with the same vectors. Linear and fixed, so it suits GMRES as well as flexible methods. */
static PetscErrorCode AdjSteadyPCApply(PC pc, Vec r, Vec z)
{
  AdjDriver drv;

  PetscFunctionBeginUser;
  PetscCall(PCShellGetContext(pc, &drv));
  PetscCall(VecCopy(r, z));
  for (PetscInt j = 1; j < drv->steady.sweeps; j++) {
    PetscCall(AdjSteadyApplyTranspose(drv, z));
    PetscCall(VecWAXPY(z, 1.0, drv->lamprev, r));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The operator and the vectors of the solve, made on first use. */
static PetscErrorCode AdjSteadySetUpSolver(AdjDriver drv)
{
  AdjDriverSteady *s = &drv->steady;
  PetscInt         nlocal, nglobal;

  PetscFunctionBeginUser;
  if (s->op) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecGetLocalSize(drv->x, &nlocal));
  PetscCall(VecGetSize(drv->x, &nglobal));
  PetscCall(MatCreateShell(drv->comm, nlocal, nlocal, nglobal, nglobal, drv, &s->op));
  PetscCall(MatShellSetOperation(s->op, MATOP_MULT, (void (*)(void))AdjSteadyMult));
  PetscCall(VecDuplicate(drv->x, &s->b));
  PetscCall(VecDuplicate(drv->x, &s->mu));
  PetscCall(KSPSetOperators(s->ksp, s->op, s->op));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* b = A^T f + dF/dx: the objective adjoint at y = Phi_k(x*) (which also gives the step adjoint the weights of the
 * step's own terms, the fluid's forces), then one step adjoint. Its parameter gradient is discarded later. */
static PetscErrorCode AdjSteadyRightHandSide(AdjDriver drv)
{
  const AdjStepIndex k = drv->steady.info.k;

  PetscFunctionBeginUser;
  PetscCall(AdjSteadyStepAtFixedPoint(drv));
  PetscCall(VecSet(drv->lam, 0.0));
  PetscCall(AdjStepperObjectiveAdjoint(drv->stepper, k, drv->y, drv->lam));
  PetscCall(AdjStepperStepAdjoint(drv->stepper, k, drv->x, drv->y, drv->lam, drv->steady.b));
  drv->steady.applications++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* (I - A^T) mu = b from mu = 0; a solve that did not converge stops the run with the figures. Collective. */
static PetscErrorCode AdjSteadySolve(AdjDriver drv)
{
  AdjDriverSteady *s = &drv->steady;
  KSPType          type;

  PetscFunctionBeginUser;
  PetscCall(VecNorm(s->b, NORM_2, &s->bnorm));
  PetscCall(KSPSolve(s->ksp, s->b, s->mu));
  PetscCall(KSPGetIterationNumber(s->ksp, &s->iterations));
  PetscCall(KSPGetResidualNorm(s->ksp, &s->rnorm));
  PetscCall(KSPGetConvergedReason(s->ksp, &s->reason));
  PetscCall(KSPGetType(s->ksp, &type));
  PetscCheck(
      s->reason > 0, drv->comm, PETSC_ERR_NOT_CONVERGED,
      "-adjoint_steady: the adjoint of the steady state did not converge: KSP %s stopped with %s after %" PetscInt_FMT
      " iterations, residual %g (%g relative to the right-hand side); the steady state may be (nearly) "
      "unstable or not unique (a conserved quantity), or the solver needs more iterations "
      "(-steady_adjoint_ksp_max_it, -steady_adjoint_ksp_gmres_restart)",
      type, KSPConvergedReasons[s->reason], s->iterations, (double)s->rnorm,
      (double)(s->bnorm > 0 ? s->rnorm / s->bnorm : 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* g = B^T (mu + f) + dF/dp + dJ_k/dp + dR/dp: the parameter gradient the solve's applications left is zeroed, then
 * one application with mu after the objective adjoint, and the regularization, add their terms to the solver's
 * gradient, which is packed (and stays in the solver, for AdjStepperWriteGradient). Collective. */
static PetscErrorCode AdjSteadyFinalGradient(AdjDriver drv, Vec g, PetscReal *R)
{
  const AdjStepIndex k = drv->steady.info.k;

  PetscFunctionBeginUser;
  PetscCall(AdjStepperZeroGradient(drv->stepper));
  PetscCall(AdjSteadyStepAtFixedPoint(drv));
  PetscCall(VecCopy(drv->steady.mu, drv->lam));
  PetscCall(AdjStepperObjectiveAdjoint(drv->stepper, k, drv->y, drv->lam));
  PetscCall(AdjStepperStepAdjoint(drv->stepper, k, drv->x, drv->y, drv->lam, drv->lamprev));
  drv->steady.applications++;
  PetscCall(AdjStepperRegularization(drv->stepper, R));
  PetscCall(AdjStepperGetGradient(drv->stepper, g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjDriverSteadyGradient(AdjDriver drv, Vec p, PetscReal *J, Vec g)
{
  AdjDriverSteady *s = &drv->steady;
  AdjStepIndex     n;
  PetscReal        dt, Jk, R;
  KSPType          type;

  PetscFunctionBeginUser;
  PetscCall(AdjDriverCheckSteadyGradient(drv));
  drv->interrupted_at = -1;
  drv->final_step     = -1;
  s->solved           = PETSC_FALSE;
  s->applications     = 0;
  s->steps            = 0;
  PetscCall(AdjSteadyMarch(drv, p, PETSC_FALSE, &n, &dt));
  if (n < 0) { /* interrupted: no gradient (AdjDriverGetInterruptedStep() >= 0) */
    *J = PETSC_MAX_REAL;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  drv->final_step = n;
  PetscCall(AdjSteadyObjectiveTerm(drv, dt, &Jk));
  PetscCall(PetscLogEventBegin(ADJ_SteadyAdjoint, 0, 0, 0, 0));
  PetscCall(AdjSteadySetUpSolver(drv));
  PetscCall(AdjSteadyRightHandSide(drv));
  PetscCall(AdjSteadySolve(drv));
  PetscCall(AdjSteadyFinalGradient(drv, g, &R));
  PetscCall(PetscLogEventEnd(ADJ_SteadyAdjoint, 0, 0, 0, 0));
  *J        = Jk + R;
  s->solved = PETSC_TRUE;
  PetscCall(KSPGetType(s->ksp, &type));
  PetscCall(PetscPrintf(drv->comm,
                        "steady adjoint: %s %s in %" PetscInt_FMT " iterations, residual %.3e (%.3e relative), "
                        "%" PetscInt64_FMT " step-adjoint applications after %" PetscInt64_FMT
                        " forward step(s) at x*; steady state at step %" PetscInt64_FMT
                        " (change rate %.3e 1/s), objective of step %" PetscInt64_FMT "\n",
                        type, KSPConvergedReasons[s->reason], s->iterations, (double)s->rnorm,
                        (double)(s->bnorm > 0 ? s->rnorm / s->bnorm : 0), s->applications, s->steps, (PetscInt64)n,
                        (double)s->residual, (PetscInt64)s->info.k));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The steady run's figures as attributes of `group`: the objective's step and the fixed-point residual;
 * after a steady gradient, the adjoint solve's too. Collective. */
PetscErrorCode AdjDriverSteadyRecord(AdjDriver drv, const char group[])
{
  AdjDriverSteady *s = &drv->steady;
  PetscInt         kobj;

  PetscFunctionBeginUser;
  if (!s->on || !drv->out || drv->final_step < 0) PetscFunctionReturn(PETSC_SUCCESS);
  kobj = (PetscInt)s->info.k;
  PetscCall(AdjOutputSetAttribute(drv->out, group, "adjoint_mode", "steady"));
  PetscCall(AdjOutputSetAttributeInts(drv->out, group, "steady_objective_step", 1, &kobj));
  PetscCall(AdjOutputSetAttributeReal(drv->out, group, "steady_residual", s->residual));
  if (!s->solved) PetscFunctionReturn(PETSC_SUCCESS);
  {
    KSPType  type;
    PetscInt counts[4] = {s->iterations, (PetscInt)s->applications, (PetscInt)s->steps, s->sweeps};

    PetscCall(KSPGetType(s->ksp, &type));
    PetscCall(AdjOutputSetAttribute(drv->out, group, "steady_adjoint_ksp_type", type));
    PetscCall(AdjOutputSetAttribute(drv->out, group, "steady_adjoint_reason", KSPConvergedReasons[s->reason]));
    PetscCall(AdjOutputSetAttributeInts(drv->out, group, "steady_adjoint_iterations", 1, &counts[0]));
    PetscCall(AdjOutputSetAttributeInts(drv->out, group, "steady_adjoint_applications", 1, &counts[1]));
    PetscCall(AdjOutputSetAttributeInts(drv->out, group, "steady_adjoint_forward_steps", 1, &counts[2]));
    PetscCall(AdjOutputSetAttributeInts(drv->out, group, "steady_adjoint_sweeps", 1, &counts[3]));
    PetscCall(AdjOutputSetAttributeReal(drv->out, group, "steady_adjoint_residual", s->rnorm));
    PetscCall(AdjOutputSetAttributeReal(drv->out, group, "steady_adjoint_rhs_norm", s->bnorm));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
