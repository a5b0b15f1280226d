/* AdjStepper: the object every solver is seen through; the physics lives behind its ops table. */
#include "stepperimpl.h"

static AdjStepperEntry AdjStepperRegistry[ADJ_STEPPER_MAX_TYPES];
static PetscInt        AdjStepperNumTypes;

PetscLogEvent ADJSTEPPER_Step, ADJSTEPPER_StepAdjoint, ADJSTEPPER_Objective, ADJSTEPPER_ObjectiveAdjoint,
    ADJSTEPPER_Output;

/* Log events of the class AdjStepper, registered once by the create function. */
static const AdjLogEvent AdjStepperEvents[] = {{"StepperStep", &ADJSTEPPER_Step},
                                               {"StepperStepAdj", &ADJSTEPPER_StepAdjoint},
                                               {"StepperObjective", &ADJSTEPPER_Objective},
                                               {"StepperObjAdj", &ADJSTEPPER_ObjectiveAdjoint},
                                               {"StepperOutput", &ADJSTEPPER_Output}};

PetscErrorCode AdjStepperRegister(const char type[], const char description[], PetscErrorCode (*create)(AdjStepper))
{
  AdjStepperEntry *e = NULL;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < AdjStepperNumTypes; i++) {
    PetscBool same;
    PetscCall(PetscStrcmp(AdjStepperRegistry[i].type, type, &same));
    if (same) e = &AdjStepperRegistry[i]; /* registering again replaces */
  }
  if (!e) {
    PetscCheck(AdjStepperNumTypes < ADJ_STEPPER_MAX_TYPES, PETSC_COMM_SELF, PETSC_ERR_SUP,
               "Too many stepper types (at most %d)", ADJ_STEPPER_MAX_TYPES);
    e = &AdjStepperRegistry[AdjStepperNumTypes++];
  }
  PetscCall(PetscStrncpy(e->type, type, sizeof(e->type)));
  PetscCall(PetscStrncpy(e->description, description, sizeof(e->description)));
  e->create = create;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperGetRegistered(PetscInt i, const char **type, const char **description)
{
  PetscFunctionBeginUser;
  *type = i < AdjStepperNumTypes ? AdjStepperRegistry[i].type : NULL;
  if (description) *description = i < AdjStepperNumTypes ? AdjStepperRegistry[i].description : NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperCreate(MPI_Comm comm, AdjStepper *stepper)
{
  AdjStepper st;

  PetscFunctionBeginUser;
  PetscCall(AdjStepperRegisterAll());
  PetscCall(AdjLogRegisterEvents("AdjStepper", ADJ_NUM_EVENTS(AdjStepperEvents), AdjStepperEvents));
  PetscCall(PetscNew(&st));
  st->comm        = comm;
  st->nsteps      = 0;
  st->dt          = 0;
  st->ctx         = NULL;
  st->setupcalled = PETSC_FALSE;
  st->stepped_k   = -1;
  PetscCall(AdjParamsCreate(comm, &st->params));
  *stepper = st;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperSetType(AdjStepper st, AdjStepperType type)
{
  PetscBool same;

  PetscFunctionBeginUser;
  PetscCall(PetscStrcmp(st->type, type, &same));
  if (same) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(!st->type[0], st->comm, PETSC_ERR_ORDER, "The stepper is already of type %s", st->type);
  for (PetscInt i = 0; i < AdjStepperNumTypes; i++) {
    PetscCall(PetscStrcmp(AdjStepperRegistry[i].type, type, &same));
    if (!same) continue;
    PetscCall(PetscStrncpy(st->type, type, sizeof(st->type)));
    PetscCall(AdjStepperRegistry[i].create(st));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  SETERRQ(st->comm, PETSC_ERR_USER_INPUT, "Unknown solver type %s (-%sproblem); see adjsim -help for the types", type,
          st->prefix);
}

PetscErrorCode AdjStepperGetType(AdjStepper st, AdjStepperType *type)
{
  PetscFunctionBeginUser;
  *type = st->type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperSetImplementation(AdjStepper st, void *ctx, const AdjStepperOps *ops)
{
  PetscFunctionBeginUser;
  st->ctx = ctx;
  st->ops = *ops;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperSetOptionsPrefix(AdjStepper st, const char prefix[])
{
  PetscFunctionBeginUser;
  PetscCheck(!st->setfromoptionscalled, st->comm, PETSC_ERR_ORDER,
             "Set the options prefix before AdjStepperSetFromOptions()");
  PetscCall(PetscStrncpy(st->prefix, prefix ? prefix : "", sizeof(st->prefix)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperGetOptionsPrefix(AdjStepper st, const char *prefix[])
{
  PetscFunctionBeginUser;
  *prefix = st->prefix[0] ? st->prefix : NULL; /* NULL: no prefix, as PetscOptionsBegin expects */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The type from -problem, listed with every registered type and its description in -help. */
static PetscErrorCode AdjStepperTypeFromOptions(AdjStepper st)
{
  const char *names[ADJ_STEPPER_MAX_TYPES + 3];
  char        help[1024] = "Physics:";
  PetscInt    choice     = 0;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < AdjStepperNumTypes; i++) {
    names[i] = AdjStepperRegistry[i].type;
    PetscCall(PetscStrlcat(help, i ? "; " : " ", sizeof(help)));
    PetscCall(PetscStrlcat(help, AdjStepperRegistry[i].type, sizeof(help)));
    PetscCall(PetscStrlcat(help, " (", sizeof(help)));
    PetscCall(PetscStrlcat(help, AdjStepperRegistry[i].description, sizeof(help)));
    PetscCall(PetscStrlcat(help, ")", sizeof(help)));
    PetscBool same;
    PetscCall(PetscStrcmp(names[i], st->type, &same));
    if (same) choice = i;
  }
  names[AdjStepperNumTypes] = "AdjStepperType", names[AdjStepperNumTypes + 1] = "";
  names[AdjStepperNumTypes + 2] = NULL;
  PetscOptionsBegin(st->comm, st->prefix[0] ? st->prefix : NULL, "Solver (AdjStepper)", "AdjStepper");
  PetscCall(PetscOptionsEList("-problem", help, "AdjStepperSetType", names, AdjStepperNumTypes, names[choice], &choice,
                              NULL));
  PetscOptionsEnd();
  PetscCall(AdjStepperSetType(st, names[choice]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperSetFromOptions(AdjStepper st)
{
  PetscFunctionBeginUser;
  PetscCall(AdjStepperTypeFromOptions(st));
  st->setfromoptionscalled = PETSC_TRUE;
  PetscCall(st->ops.setfromoptions(st));
  PetscCall(AdjParamsSetOptionsPrefix(st->params, st->prefix));
  PetscCall(AdjParamsSetFromOptions(st->params));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The operations every solver needs (fieldvalues if it describes fields), and the adjoint set: all or
 * nothing. */
static PetscErrorCode AdjStepperCheckOps(AdjStepper st)
{
  const AdjStepperOps *o           = &st->ops;
  const char *const    need_name[] = {"createstate", "initialstate", "step", "checkstate", "objective", "fieldvalues"};
  const PetscBool      described   = (PetscBool)(st->nfields[ADJ_FIELDS_OUTPUT] + st->nfields[ADJ_FIELDS_RESTART] > 0);
  const PetscBool      need[]      = {
                o->createstate || st->state_template, o->initialstate || st->initial, !!o->step, !!o->checkstate, !!o->objective,
                !described || o->fieldvalues};
  const PetscBool adjoint[] = {!!o->stepadjoint, !!o->objectiveadjoint, !!o->initialstateadjoint, !!o->hasobjective};
  const PetscInt  nneed     = (PetscInt)(sizeof(need) / sizeof(need[0])),
                 nadj       = (PetscInt)(sizeof(adjoint) / sizeof(adjoint[0]));
  PetscInt nadjoint         = 0;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < nneed; i++)
    PetscCheck(need[i], st->comm, PETSC_ERR_PLIB, "Stepper type %s lacks the required operation %s", st->type,
               need_name[i]);
  for (PetscInt i = 0; i < nadj; i++) nadjoint += adjoint[i];
  PetscCheck(nadjoint == 0 || nadjoint == nadj, st->comm, PETSC_ERR_PLIB,
             "Stepper type %s has only part of the adjoint operations (stepadjoint, objectiveadjoint, "
             "initialstateadjoint, hasobjective)",
             st->type);
  st->hasadjoint = (PetscBool)(nadjoint > 0);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperSetUp(AdjStepper st)
{
  PetscFunctionBeginUser;
  if (st->setupcalled) PetscFunctionReturn(PETSC_SUCCESS);
  if (!st->setfromoptionscalled) PetscCall(AdjStepperSetFromOptions(st));
  PetscCall(AdjStepperCheckOps(st));
  if (st->ops.setup) PetscCall(st->ops.setup(st));
  /* the gradient accumulators are declared by setfromoptions or setup */
  PetscCheck(!st->hasadjoint || st->ops.zerogradient || st->ngradients > 0, st->comm, PETSC_ERR_PLIB,
             "Stepper type %s has adjoint operations but neither declares its gradient accumulators "
             "(AdjStepperAddGradientVec/Array) nor has a zerogradient operation",
             st->type);
  PetscCall(AdjParamsSetUp(st->params));
  st->setupcalled = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperView(AdjStepper st, PetscViewer viewer)
{
  PetscInt nblocks, M[3] = {0, 0, 0}, dim = 0;

  PetscFunctionBeginUser;
  if (!viewer) viewer = PETSC_VIEWER_STDOUT_(st->comm);
  PetscCall(PetscViewerASCIIPrintf(viewer, "AdjStepper %s%s%s: %" PetscInt64_FMT " steps of %g s\n", st->type,
                                   st->prefix[0] ? ", options prefix " : "", st->prefix, (PetscInt64)st->nsteps,
                                   (double)st->dt));
  if (st->da) {
    PetscCall(DMDAGetInfo(st->da, &dim, &M[0], &M[1], &M[2], NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
    PetscCall(PetscViewerASCIIPrintf(viewer,
                                     "  output grid: %" PetscInt_FMT "-D, %" PetscInt_FMT " x %" PetscInt_FMT
                                     " x %" PetscInt_FMT " points\n",
                                     dim, M[0], M[1], dim > 2 ? M[2] : 1));
  }
  PetscCall(AdjParamsGetNumBlocks(st->params, &nblocks));
  for (PetscInt b = 0; b < nblocks; b++) {
    const char  *name, *units;
    AdjParamKind kind;
    PetscInt     n;
    PetscBool    active;
    PetscCall(AdjParamsGetBlockInfo(st->params, b, &name, &units, &kind, &n, &active));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  parameter %-14s [%s] %s of %" PetscInt_FMT "%s\n", name, units,
                                     kind == ADJ_PARAM_FIELD ? "field" : "array", n, active ? ", active" : ""));
  }
  PetscCall(AdjStepperViewFields(st, viewer));
  if (st->ops.view) PetscCall(st->ops.view(st, viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperDestroy(AdjStepper *stepper)
{
  PetscFunctionBeginUser;
  if (!*stepper) PetscFunctionReturn(PETSC_SUCCESS);
  if ((*stepper)->ops.destroy) PetscCall((*stepper)->ops.destroy(*stepper));
  PetscCall(VecDestroy(&(*stepper)->state_template));
  PetscCall(VecDestroy(&(*stepper)->initial));
  for (PetscInt i = 0; i < (*stepper)->ngradients; i++) PetscCall(VecDestroy(&(*stepper)->gradients[i].v));
  PetscCall(AdjParamsDestroy(&(*stepper)->params));
  PetscCall(PetscFree(*stepper));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperGetContext(AdjStepper st, void *ctx)
{
  PetscFunctionBeginUser;
  *(void **)ctx = st->ctx;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperHasAdjoint(AdjStepper st, PetscBool *has)
{
  PetscFunctionBeginUser;
  PetscCall(AdjStepperSetUp(st));
  *has = st->hasadjoint;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperSetStateTemplate(AdjStepper st, Vec x, const char name[])
{
  PetscFunctionBeginUser;
  PetscCall(PetscObjectReference((PetscObject)x));
  PetscCall(VecDestroy(&st->state_template));
  st->state_template = x;
  PetscCall(PetscStrncpy(st->state_name, name, sizeof(st->state_name)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperSetAdjointKeepsStep(AdjStepper st, PetscBool flag)
{
  PetscFunctionBeginUser;
  st->adjoint_keeps_step = flag;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperSetInitialStateVec(AdjStepper st, Vec x0)
{
  PetscFunctionBeginUser;
  PetscCall(PetscObjectReference((PetscObject)x0));
  PetscCall(VecDestroy(&st->initial));
  st->initial = x0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperSetTimes(AdjStepper st, AdjStepIndex nsteps, PetscReal dt)
{
  PetscFunctionBeginUser;
  st->nsteps = nsteps;
  st->dt     = dt;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperGetTimes(AdjStepper st, AdjStepIndex *nsteps, PetscReal *dt)
{
  PetscFunctionBeginUser;
  if (nsteps) *nsteps = st->nsteps;
  if (dt) *dt = st->dt;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperGetParams(AdjStepper st, AdjParams *params)
{
  PetscFunctionBeginUser;
  *params = st->params;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperGetComm(AdjStepper st, MPI_Comm *comm)
{
  PetscFunctionBeginUser;
  *comm = st->comm;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperSetGrid(AdjStepper st, DM da, const PetscReal lower[], const PetscReal upper[])
{
  PetscInt dim;

  PetscFunctionBeginUser;
  PetscCall(DMGetDimension(da, &dim));
  st->da = da;
  for (PetscInt d = 0; d < dim; d++) {
    st->lower[d] = lower[d];
    st->upper[d] = upper[d];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperGetGrid(AdjStepper st, DM *da, const PetscReal **lower, const PetscReal **upper)
{
  PetscFunctionBeginUser;
  *da    = st->da;
  *lower = st->lower;
  *upper = st->upper;
  PetscFunctionReturn(PETSC_SUCCESS);
}
