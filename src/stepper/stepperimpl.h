/* Private data of AdjStepper, shared by stepper.c (lifecycle), operations.c and registerall.c. */
#pragma once

#include <adjsim/stepperimpl.h>

#define ADJ_STEPPER_MAX_TYPES     32
#define ADJ_STEPPER_MAX_FIELDS    16
#define ADJ_STEPPER_MAX_GRADIENTS 32

/* Public API of PETSc, but declared only in its private petscimpl.h before version 3.19. */
PETSC_EXTERN PetscErrorCode PetscObjectStateGet(PetscObject, PetscObjectState *);

typedef struct {
  char type[64], description[256];
  PetscErrorCode (*create)(AdjStepper);
} AdjStepperEntry;

/* A declared gradient accumulator (src/stepper/gradients.c): a vector (referenced) or n reals of this rank. */
typedef struct {
  char         name[64];
  Vec          v;
  PetscScalar *a;
  PetscInt     n;
} AdjStepperGradient;

/* A described field (src/stepper/fields.c): the description, with its own copies of the strings. */
typedef struct {
  AdjFieldDesc desc;
  char         name[64], units[64];
} AdjStepperField;

struct _p_AdjStepper {
  MPI_Comm           comm;
  char               type[64];
  char               prefix[64];
  void              *ctx; /* the implementation's own data, handed to its operations */
  AdjStepperOps      ops;
  AdjParams          params;
  AdjStepIndex       nsteps;
  PetscReal          dt;
  DM                 da; /* output grid, borrowed from the implementation */
  PetscReal          lower[3], upper[3];
  PetscBool          setfromoptionscalled, setupcalled, hasadjoint;
  AdjStepperField    fields[2][ADJ_STEPPER_MAX_FIELDS]; /* by AdjFieldSet: output, restart */
  PetscInt           nfields[2];
  AdjStepperGradient gradients[ADJ_STEPPER_MAX_GRADIENTS]; /* declared accumulators (AdjStepperAddGradient*) */
  PetscInt           ngradients;
  /* Optional defaults of createstate and initialstate (AdjStepperSetStateTemplate, AdjStepperSetInitialStateVec):
   * states are duplicates of state_template named state_name; the initial state is a copy of initial. */
  Vec  state_template, initial;
  char state_name[64];
  /* The adjoint contract: the last forward step (k, its input vector and that vector's state
   * counter), or stepped_k = -1 when no step's intermediates are valid. */
  AdjStepIndex     stepped_k;
  Vec              stepped_xin;
  PetscObjectState stepped_state;
  PetscBool        adjoint_keeps_step; /* AdjStepperSetAdjointKeepsStep */
};

PetscErrorCode AdjStepperViewFields(AdjStepper st, PetscViewer viewer);

/* Set up on first use, as PETSc's solvers do. */
static inline PetscErrorCode AdjStepperReady(AdjStepper st)
{
  PetscFunctionBeginUser;
  if (!st->setupcalled) PetscCall(AdjStepperSetUp(st));
  PetscFunctionReturn(PETSC_SUCCESS);
}

extern PetscLogEvent ADJSTEPPER_Step, ADJSTEPPER_StepAdjoint, ADJSTEPPER_Objective, ADJSTEPPER_ObjectiveAdjoint,
    ADJSTEPPER_Output;

/* zero every declared gradient accumulator (gradients.c) */
PETSC_INTERN PetscErrorCode AdjStepperZeroGradientAccumulators(AdjStepper st);
