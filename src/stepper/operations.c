/* AdjStepper operations: each checks that the stepper is set up and has the operation, logs it,
 * and hands the implementation its own data.  The adjoint contract is enforced here, once, for
 * every solver (see include/adjsim/stepper.h). */
#include "stepperimpl.h"

static inline PetscErrorCode AdjStepperReadyAdjoint(AdjStepper st)
{
  PetscFunctionBeginUser;
  PetscCall(AdjStepperReady(st));
  PetscCheck(st->hasadjoint, st->comm, PETSC_ERR_USER_INPUT, "-problem %s has no adjoint: use -mode forward", st->type);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperCreateState(AdjStepper st, Vec *x)
{
  PetscFunctionBeginUser;
  PetscCall(AdjStepperReady(st));
  if (st->ops.createstate)
    PetscCall(st->ops.createstate(st->ctx, x));
  else {
    PetscCall(VecDuplicate(st->state_template, x));
    PetscCall(PetscObjectSetName((PetscObject)*x, st->state_name));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperGetParameters(AdjStepper st, Vec p)
{
  PetscFunctionBeginUser;
  PetscCall(AdjStepperReady(st));
  PetscCall(AdjParamsPack(st->params, p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* New parameter values invalidate the intermediates of the last step. */
PetscErrorCode AdjStepperSetParameters(AdjStepper st, Vec p)
{
  PetscFunctionBeginUser;
  PetscCall(AdjStepperReady(st));
  st->stepped_k = -1;
  PetscCall(AdjParamsUnpack(st->params, p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperInitialState(AdjStepper st, Vec x0)
{
  PetscFunctionBeginUser;
  PetscCall(AdjStepperReady(st));
  if (st->ops.initialstate)
    PetscCall(st->ops.initialstate(st->ctx, x0));
  else
    PetscCall(VecCopy(st->initial, x0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperInitialStateAdjoint(AdjStepper st, Vec lambda0)
{
  PetscFunctionBeginUser;
  PetscCall(AdjStepperReadyAdjoint(st));
  PetscCall(st->ops.initialstateadjoint(st->ctx, lambda0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperStep(AdjStepper st, AdjStepIndex k, Vec xin, Vec xout)
{
  PetscFunctionBeginUser;
  PetscCall(AdjStepperReady(st));
  PetscCheck(xin != xout, st->comm, PETSC_ERR_ARG_IDN, "AdjStepperStep: xin and xout must be different vectors");
  PetscCall(PetscLogEventBegin(ADJSTEPPER_Step, 0, 0, 0, 0));
  PetscCall(st->ops.step(st->ctx, k, xin, xout));
  PetscCall(PetscLogEventEnd(ADJSTEPPER_Step, 0, 0, 0, 0));
  st->stepped_k   = k;
  st->stepped_xin = xin;
  PetscCall(PetscObjectStateGet((PetscObject)xin, &st->stepped_state));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperIsStepCurrent(AdjStepper st, AdjStepIndex k, Vec xin, PetscBool *current)
{
  PetscObjectState state;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectStateGet((PetscObject)xin, &state));
  *current = (PetscBool)(st->stepped_k == k && st->stepped_xin == xin && st->stepped_state == state);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The contract: the forward step k ran last, on this very input vector, which nobody has changed
 * since (PETSc's state counter increases with every write access). */
static PetscErrorCode AdjStepperCheckContract(AdjStepper st, AdjStepIndex k, Vec xin)
{
  PetscBool current;

  PetscFunctionBeginUser;
  PetscCheck(st->stepped_k == k, st->comm, PETSC_ERR_ORDER,
             "AdjStepperStepAdjoint for step %" PetscInt64_FMT " must follow AdjStepperStep for the same step (last "
             "forward step: %" PetscInt64_FMT ")",
             (PetscInt64)k, (PetscInt64)st->stepped_k);
  PetscCall(AdjStepperIsStepCurrent(st, k, xin, &current));
  PetscCheck(current, st->comm, PETSC_ERR_ORDER,
             "AdjStepperStepAdjoint for step %" PetscInt64_FMT
             ": the input state is not the one the forward step used, or it was changed since",
             (PetscInt64)k);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperStepAdjoint(AdjStepper st, AdjStepIndex k, Vec xin, Vec xout, Vec lambda_k, Vec lambda_km1)
{
  PetscFunctionBeginUser;
  PetscCall(AdjStepperReadyAdjoint(st));
  PetscCall(AdjStepperCheckContract(st, k, xin));
  PetscCall(PetscLogEventBegin(ADJSTEPPER_StepAdjoint, 0, 0, 0, 0));
  PetscCall(st->ops.stepadjoint(st->ctx, k, xin, xout, lambda_k, lambda_km1));
  PetscCall(PetscLogEventEnd(ADJSTEPPER_StepAdjoint, 0, 0, 0, 0));
  if (!st->adjoint_keeps_step) st->stepped_k = -1; /* an adjoint may overwrite the step's intermediates */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperObjective(AdjStepper st, AdjStepIndex k, Vec x, PetscReal *J)
{
  PetscFunctionBeginUser;
  PetscCall(AdjStepperReady(st));
  PetscCall(PetscLogEventBegin(ADJSTEPPER_Objective, 0, 0, 0, 0));
  PetscCall(st->ops.objective(st->ctx, k, x, J));
  PetscCall(PetscLogEventEnd(ADJSTEPPER_Objective, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperObjectiveAdjoint(AdjStepper st, AdjStepIndex k, Vec x, Vec lambda)
{
  PetscFunctionBeginUser;
  PetscCall(AdjStepperReadyAdjoint(st));
  PetscCall(PetscLogEventBegin(ADJSTEPPER_ObjectiveAdjoint, 0, 0, 0, 0));
  PetscCall(st->ops.objectiveadjoint(st->ctx, k, x, lambda));
  PetscCall(PetscLogEventEnd(ADJSTEPPER_ObjectiveAdjoint, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The blocks' Tikhonov terms, then the solver's own terms if any. */
PetscErrorCode AdjStepperRegularization(AdjStepper st, PetscReal *R)
{
  PetscReal Rs = 0;

  PetscFunctionBeginUser;
  PetscCall(AdjStepperReady(st));
  PetscCall(AdjParamsRegularization(st->params, R));
  if (st->ops.regularization) PetscCall(st->ops.regularization(st->ctx, st->params, &Rs));
  *R += Rs;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperHasObjective(AdjStepper st, PetscBool *has)
{
  PetscFunctionBeginUser;
  PetscCall(AdjStepperReady(st));
  *has = PETSC_FALSE;
  if (st->ops.hasobjective) PetscCall(st->ops.hasobjective(st->ctx, has));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperGetFinalStepObjective(AdjStepper st, PetscBool *known, const char **term)
{
  PetscFunctionBeginUser;
  PetscCall(AdjStepperReady(st));
  *known = (PetscBool) !!st->ops.objectivefinalstep;
  *term  = NULL;
  if (st->ops.objectivefinalstep) PetscCall(st->ops.objectivefinalstep(st->ctx, term));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperSetSteady(AdjStepper st, PetscBool *known, AdjSteadyInfo *info)
{
  PetscFunctionBeginUser;
  PetscCall(AdjStepperReady(st));
  *known = (PetscBool) !!st->ops.setsteady;
  *info  = (AdjSteadyInfo){.k = st->nsteps};
  if (st->ops.setsteady) PetscCall(st->ops.setsteady(st->ctx, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperSelectObjective(AdjStepper st, const char name[], PetscBool *known)
{
  PetscFunctionBeginUser;
  PetscCall(AdjStepperReady(st));
  *known = PETSC_FALSE;
  if (st->ops.selectobjective) PetscCall(st->ops.selectobjective(st->ctx, name, known));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperGetShape(AdjStepper st, const AdjShape **shape, const char **block)
{
  PetscFunctionBeginUser;
  PetscCall(AdjStepperReady(st));
  *shape = NULL;
  *block = NULL;
  if (st->ops.getshape) PetscCall(st->ops.getshape(st->ctx, shape, block));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperZeroGradient(AdjStepper st)
{
  PetscFunctionBeginUser;
  PetscCall(AdjStepperReady(st));
  PetscCall(AdjStepperZeroGradientAccumulators(st));
  if (st->ops.zerogradient) PetscCall(st->ops.zerogradient(st->ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperGetGradient(AdjStepper st, Vec g)
{
  PetscFunctionBeginUser;
  PetscCall(AdjStepperReadyAdjoint(st));
  PetscCall(AdjParamsPackGradient(st->params, g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperCheckState(AdjStepper st, AdjStepIndex k, Vec x)
{
  PetscFunctionBeginUser;
  PetscCall(AdjStepperReady(st));
  PetscCall(st->ops.checkstate(st->ctx, k, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperMonitor(AdjStepper st, AdjOutput out, AdjStepIndex k, Vec x)
{
  PetscFunctionBeginUser;
  PetscCall(AdjStepperReady(st));
  if (st->ops.monitor) PetscCall(st->ops.monitor(st->ctx, out, k, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperWriteParameters(AdjStepper st, AdjOutput out)
{
  PetscFunctionBeginUser;
  PetscCall(AdjStepperReady(st));
  PetscCall(AdjParamsWrite(st->params, out));
  if (st->ops.writeparameters) PetscCall(st->ops.writeparameters(st->ctx, st->params, out));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperWriteGradient(AdjStepper st, AdjOutput out)
{
  PetscFunctionBeginUser;
  PetscCall(AdjStepperReadyAdjoint(st));
  PetscCall(AdjParamsWriteGradient(st->params, out));
  if (st->ops.writegradient) PetscCall(st->ops.writegradient(st->ctx, st->params, out));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperReadParameters(AdjStepper st, const char path[])
{
  PetscFunctionBeginUser;
  PetscCall(AdjStepperReady(st));
  st->stepped_k = -1;
  PetscCall(AdjParamsRead(st->params, path));
  if (st->ops.readparameters) PetscCall(st->ops.readparameters(st->ctx, path));
  PetscFunctionReturn(PETSC_SUCCESS);
}
