/* The composite stepper: two solvers advanced together, with a coupling operator and its adjoint.
 * This is the seam fluid-structure coupling will use; today it couples two solvers of the same type
 * by linear exchange, and it is not offered as a -problem yet (no run-file output of its own).
 *
 * State X = (x_a, x_b), each part laid out as its solver's state, concatenated rank by rank.
 * Step k (explicit, operator-split coupling with strength s [1/s] and time step dt):
 *   y_a = Phi_a(x_a) + s dt (x_b - x_a),   y_b = Phi_b(x_b) + s dt (x_a - x_b)
 * Adjoint:
 *   lambda_a' = Phi_a'^T lambda_a + s dt (lambda_b - lambda_a),   and a <-> b.
 * Objective J = J_a + J_b; the design is (design of a, design of b), blocks "a" and "b".
 * Options (with the composite's prefix P): -P composite_solvers type_a,type_b (default transport,transport),
 * -P composite_coupling s; the parts read their own options with prefixes Pa_ and Pb_. */
#include "stepperimpl.h"

typedef struct {
  MPI_Comm   comm;
  AdjStepper sub[2];
  PetscInt   nlocal[2];
  PetscReal  strength, dt;
  Vec        xin[2], xout[2], lam[2], lamprev[2], work[2]; /* the parts' own vectors */
  Vec        design[2], gdesign[2];
} * Composite;

/* Copies the parts of a composite vector X into the parts' vectors (split) or back into X (join); only
 * the destination is written, so the source keeps its PETSc state counter (the adjoint contract reads it). */
static PetscErrorCode CompositeCopy(Composite c, Vec X, Vec part[2], PetscBool split)
{
  PetscInt off = 0;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < 2; i++) {
    const Vec          src = split ? X : part[i], dst = split ? part[i] : X;
    const PetscScalar *s;
    PetscScalar       *d;

    PetscCall(VecGetArrayRead(src, &s));
    PetscCall(VecGetArray(dst, &d));
    PetscCall(PetscArraycpy(split ? d : d + off, split ? s + off : s, c->nlocal[i]));
    PetscCall(VecRestoreArray(dst, &d));
    PetscCall(VecRestoreArrayRead(src, &s));
    off += c->nlocal[i];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CompositeSplit(Composite c, Vec X, Vec part[2])
{
  PetscFunctionBeginUser;
  PetscCall(CompositeCopy(c, X, part, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CompositeJoin(Composite c, Vec part[2], Vec X)
{
  PetscFunctionBeginUser;
  PetscCall(CompositeCopy(c, X, part, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The coupling and its adjoint have the same form: out_a += w (in_b - in_a), out_b += w (in_a - in_b)
 * (the exchange matrix [-1 1; 1 -1] is symmetric). */
static PetscErrorCode CompositeExchange(Composite c, Vec in[2], Vec out[2])
{
  const PetscReal w = c->strength * c->dt;

  PetscFunctionBeginUser;
  if (w == 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecAXPBYPCZ(out[0], w, -w, 1.0, in[1], in[0]));
  PetscCall(VecAXPBYPCZ(out[1], w, -w, 1.0, in[0], in[1]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CompositeCreateState(void *ctx, Vec *X)
{
  Composite c = (Composite)ctx;

  PetscFunctionBeginUser;
  PetscCall(VecCreateMPI(c->comm, c->nlocal[0] + c->nlocal[1], PETSC_DETERMINE, X));
  PetscCall(PetscObjectSetName((PetscObject)*X, "composite_state"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CompositeInitialState(void *ctx, Vec X0)
{
  Composite c = (Composite)ctx;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < 2; i++) PetscCall(AdjStepperInitialState(c->sub[i], c->work[i]));
  PetscCall(CompositeJoin(c, c->work, X0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CompositeInitialStateAdjoint(void *ctx, Vec L0)
{
  Composite c = (Composite)ctx;

  PetscFunctionBeginUser;
  PetscCall(CompositeSplit(c, L0, c->lam));
  for (PetscInt i = 0; i < 2; i++) PetscCall(AdjStepperInitialStateAdjoint(c->sub[i], c->lam[i]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The parts' inputs stay in xin and their uncoupled outputs in xout until the adjoint of this step. */
static PetscErrorCode CompositeStep(void *ctx, AdjStepIndex k, Vec X, Vec Y)
{
  Composite c = (Composite)ctx;

  PetscFunctionBeginUser;
  PetscCall(CompositeSplit(c, X, c->xin));
  for (PetscInt i = 0; i < 2; i++) {
    PetscCall(AdjStepperStep(c->sub[i], k, c->xin[i], c->xout[i]));
    PetscCall(VecCopy(c->xout[i], c->work[i]));
  }
  PetscCall(CompositeExchange(c, c->xin, c->work));
  PetscCall(CompositeJoin(c, c->work, Y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CompositeStepAdjoint(void *ctx, AdjStepIndex k, Vec X, Vec Y, Vec L, Vec Lprev)
{
  Composite c = (Composite)ctx;

  PetscFunctionBeginUser;
  PetscCall(CompositeSplit(c, L, c->lam));
  for (PetscInt i = 0; i < 2; i++)
    PetscCall(AdjStepperStepAdjoint(c->sub[i], k, c->xin[i], c->xout[i], c->lam[i], c->lamprev[i]));
  PetscCall(CompositeExchange(c, c->lam, c->lamprev));
  PetscCall(CompositeJoin(c, c->lamprev, Lprev));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CompositeObjective(void *ctx, AdjStepIndex k, Vec X, PetscReal *J)
{
  Composite c = (Composite)ctx;
  PetscReal Ji;

  PetscFunctionBeginUser;
  PetscCall(CompositeSplit(c, X, c->work));
  *J = 0;
  for (PetscInt i = 0; i < 2; i++) {
    PetscCall(AdjStepperObjective(c->sub[i], k, c->work[i], &Ji));
    *J += Ji;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CompositeObjectiveAdjoint(void *ctx, AdjStepIndex k, Vec X, Vec L)
{
  Composite c = (Composite)ctx;

  PetscFunctionBeginUser;
  PetscCall(CompositeSplit(c, X, c->work));
  PetscCall(CompositeSplit(c, L, c->lam));
  for (PetscInt i = 0; i < 2; i++) PetscCall(AdjStepperObjectiveAdjoint(c->sub[i], k, c->work[i], c->lam[i]));
  PetscCall(CompositeJoin(c, c->lam, L));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CompositeRegularization(void *ctx, AdjParams params, PetscReal *R)
{
  Composite c = (Composite)ctx;
  PetscReal Ri;

  PetscFunctionBeginUser;
  *R = 0;
  for (PetscInt i = 0; i < 2; i++) {
    PetscCall(AdjStepperRegularization(c->sub[i], &Ri));
    *R += Ri;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CompositeHasObjective(void *ctx, PetscBool *has)
{
  Composite c = (Composite)ctx;
  PetscBool h[2];

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < 2; i++) PetscCall(AdjStepperHasObjective(c->sub[i], &h[i]));
  *has = (PetscBool)(h[0] || h[1]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CompositeZeroGradient(void *ctx)
{
  Composite c = (Composite)ctx;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < 2; i++) PetscCall(AdjStepperZeroGradient(c->sub[i]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CompositeCheckState(void *ctx, AdjStepIndex k, Vec X)
{
  Composite c = (Composite)ctx;

  PetscFunctionBeginUser;
  PetscCall(CompositeSplit(c, X, c->work));
  for (PetscInt i = 0; i < 2; i++) PetscCall(AdjStepperCheckState(c->sub[i], k, c->work[i]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The design of each part is one block of the composite's design (already scaled by the part). */
static PetscErrorCode CompositeDesignGetA(void *ctx, Vec v)
{
  return AdjStepperGetParameters(((Composite)ctx)->sub[0], v);
}
static PetscErrorCode CompositeDesignGetB(void *ctx, Vec v)
{
  return AdjStepperGetParameters(((Composite)ctx)->sub[1], v);
}
static PetscErrorCode CompositeDesignSetA(void *ctx, Vec v)
{
  return AdjStepperSetParameters(((Composite)ctx)->sub[0], v);
}
static PetscErrorCode CompositeDesignSetB(void *ctx, Vec v)
{
  return AdjStepperSetParameters(((Composite)ctx)->sub[1], v);
}

static PetscErrorCode CompositeGradients(void *ctx)
{
  Composite c = (Composite)ctx;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < 2; i++) PetscCall(AdjStepperGetGradient(c->sub[i], c->gdesign[i]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The two parts, with prefixes <prefix>a_ and <prefix>b_, set up; the same time axis. */
static PetscErrorCode CompositeCreateParts(AdjStepper st, Composite c)
{
  const char  *prefix;
  char         types[2][64] = {"transport", "transport"}, *list[2] = {types[0], types[1]}, sub[128];
  PetscInt     n = 2;
  AdjStepIndex nsteps[2];
  PetscReal    dt[2];

  PetscFunctionBeginUser;
  PetscCall(AdjStepperGetOptionsPrefix(st, &prefix));
  c->strength = 0;
  PetscOptionsBegin(c->comm, prefix, "Composite stepper", "AdjStepper");
  PetscCall(PetscOptionsStringArray("-composite_solvers", "Types of the two coupled solvers", "", list, &n, NULL));
  PetscCall(PetscOptionsReal("-composite_coupling", "Strength s of the linear exchange coupling [1/s]", "", c->strength,
                             &c->strength, NULL));
  PetscOptionsEnd();
  PetscCheck(n == 2, c->comm, PETSC_ERR_USER_INPUT, "-%scomposite_solvers needs two solver types",
             prefix ? prefix : "");
  for (PetscInt i = 0; i < 2; i++) {
    PetscCall(PetscSNPrintf(sub, sizeof(sub), "%s%s_", prefix ? prefix : "", i ? "b" : "a"));
    PetscCall(AdjStepperCreate(c->comm, &c->sub[i]));
    PetscCall(AdjStepperSetType(c->sub[i], list[i]));
    PetscCall(AdjStepperSetOptionsPrefix(c->sub[i], sub));
    PetscCall(AdjStepperSetFromOptions(c->sub[i]));
    PetscCall(AdjStepperSetUp(c->sub[i]));
    PetscCall(AdjStepperGetTimes(c->sub[i], &nsteps[i], &dt[i]));
    if (list[i] != types[i]) PetscCall(PetscFree(list[i]));
  }
  PetscCheck(nsteps[0] == nsteps[1] && dt[0] == dt[1], c->comm, PETSC_ERR_USER_INPUT,
             "The coupled solvers must share one time axis: %" PetscInt64_FMT " steps of %g s against %" PetscInt64_FMT
             " of %g s",
             (PetscInt64)nsteps[0], (double)dt[0], (PetscInt64)nsteps[1], (double)dt[1]);
  c->dt = dt[0];
  PetscCall(AdjStepperSetTimes(st, nsteps[0], dt[0]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CompositeSetFromOptions(AdjStepper st)
{
  Composite           c;
  AdjParams           params, subparams;
  DM                  da;
  const PetscReal    *lower, *upper;
  AdjParamFieldAccess get[2] = {CompositeDesignGetA, CompositeDesignGetB},
                      set[2] = {CompositeDesignSetA, CompositeDesignSetB};

  PetscFunctionBeginUser;
  PetscCall(AdjStepperGetContext(st, &c));
  PetscCall(CompositeCreateParts(st, c));
  PetscCall(AdjStepperGetParams(st, &params));
  for (PetscInt i = 0; i < 2; i++) {
    PetscCall(AdjStepperCreateState(c->sub[i], &c->xin[i]));
    PetscCall(VecDuplicate(c->xin[i], &c->xout[i]));
    PetscCall(VecDuplicate(c->xin[i], &c->lam[i]));
    PetscCall(VecDuplicate(c->xin[i], &c->lamprev[i]));
    PetscCall(VecDuplicate(c->xin[i], &c->work[i]));
    PetscCall(VecGetLocalSize(c->xin[i], &c->nlocal[i]));
    PetscCall(AdjStepperGetParams(c->sub[i], &subparams));
    PetscCall(AdjParamsCreateVector(subparams, &c->design[i]));
    PetscCall(VecDuplicate(c->design[i], &c->gdesign[i]));
    PetscCall(AdjParamsAddVector(params, i ? "b" : "a", "design", c->design[i]));
    PetscCall(AdjParamsSetFieldAccess(params, i ? "b" : "a", get[i], set[i], c->gdesign[i], c));
  }
  PetscCheck(c->strength == 0 || c->nlocal[0] == c->nlocal[1], c->comm, PETSC_ERR_USER_INPUT,
             "The exchange coupling needs two states of the same layout (two solvers of one type on one grid)");
  PetscCall(AdjParamsSetGradientHook(params, CompositeGradients, c));
  PetscCall(AdjStepperGetGrid(c->sub[0], &da, &lower, &upper));
  PetscCall(AdjStepperSetGrid(st, da, lower, upper));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CompositeView(AdjStepper st, PetscViewer viewer)
{
  Composite c;

  PetscFunctionBeginUser;
  PetscCall(AdjStepperGetContext(st, &c));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  coupling strength %g 1/s; parts:\n", (double)c->strength));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  for (PetscInt i = 0; i < 2; i++) PetscCall(AdjStepperView(c->sub[i], viewer));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CompositeDestroy(AdjStepper st)
{
  Composite c;

  PetscFunctionBeginUser;
  PetscCall(AdjStepperGetContext(st, &c));
  for (PetscInt i = 0; i < 2; i++) {
    PetscCall(VecDestroy(&c->xin[i]));
    PetscCall(VecDestroy(&c->xout[i]));
    PetscCall(VecDestroy(&c->lam[i]));
    PetscCall(VecDestroy(&c->lamprev[i]));
    PetscCall(VecDestroy(&c->work[i]));
    PetscCall(VecDestroy(&c->design[i]));
    PetscCall(VecDestroy(&c->gdesign[i]));
    PetscCall(AdjStepperDestroy(&c->sub[i]));
  }
  PetscCall(PetscFree(c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const AdjStepperOps CompositeOps = {.setfromoptions      = CompositeSetFromOptions,
                                           .view                = CompositeView,
                                           .destroy             = CompositeDestroy,
                                           .createstate         = CompositeCreateState,
                                           .initialstate        = CompositeInitialState,
                                           .initialstateadjoint = CompositeInitialStateAdjoint,
                                           .step                = CompositeStep,
                                           .stepadjoint         = CompositeStepAdjoint,
                                           .objective           = CompositeObjective,
                                           .objectiveadjoint    = CompositeObjectiveAdjoint,
                                           .regularization      = CompositeRegularization,
                                           .hasobjective        = CompositeHasObjective,
                                           .zerogradient        = CompositeZeroGradient,
                                           .checkstate          = CompositeCheckState};

PetscErrorCode AdjStepperCreate_Composite(AdjStepper st)
{
  Composite c;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&c));
  PetscCall(AdjStepperGetComm(st, &c->comm));
  PetscCall(AdjStepperSetImplementation(st, c, &CompositeOps));
  PetscFunctionReturn(PETSC_SUCCESS);
}
