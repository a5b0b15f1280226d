/* AdjOptimizer: TAO driving AdjDriver gradients (see include/adjsim/optim.h). */
#include <adjsim/optim.h>
#include <adjsim/io.h>

struct _p_AdjOptimizer {
  MPI_Comm  comm;
  AdjDriver drv;
  Tao       tao;
  AdjOutput out;
  PetscBool quiet;
  PetscInt  evaluations;
};

static PetscErrorCode AdjOptimizerObjectiveGradient(Tao tao, Vec x, PetscReal *f, Vec g, void *ctx)
{
  AdjOptimizer opt = (AdjOptimizer)ctx;

  PetscFunctionBeginUser;
  PetscCall(AdjDriverGradient(opt->drv, x, f, g));
  opt->evaluations++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One line and one HDF5 record per iteration. */
static PetscErrorCode AdjOptimizerMonitor(Tao tao, void *ctx)
{
  AdjOptimizer       opt = (AdjOptimizer)ctx;
  PetscInt           its;
  PetscReal          f, gnorm, cnorm, xdiff;
  TaoConvergedReason reason;
  Vec                x;

  PetscFunctionBeginUser;
  PetscCall(TaoGetSolutionStatus(tao, &its, &f, &gnorm, &cnorm, &xdiff, &reason));
  PetscCall(TaoGetSolution(tao, &x));
  if (opt->out) PetscCall(AdjOutputWriteOptimizationIteration(opt->out, its, f, gnorm, x));
  if (!opt->quiet)
    PetscCall(PetscPrintf(opt->comm, "optimize: iteration %3" PetscInt_FMT "  J = %.10e  |g| = %.4e  gradients %" PetscInt_FMT "\n", its, (double)f, (double)gnorm, opt->evaluations));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjOptimizerCreate(AdjDriver drv, AdjOptimizer *opt)
{
  AdjOptimizer o;
  AdjStepper   st;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&o));
  o->drv = drv;
  PetscCall(AdjDriverGetStepper(drv, &st));
  PetscCall(AdjStepperGetComm(st, &o->comm));
  PetscCall(TaoCreate(o->comm, &o->tao));
  PetscCall(TaoSetType(o->tao, TAOBLMVM));
  PetscCall(TaoSetObjectiveAndGradient(o->tao, NULL, AdjOptimizerObjectiveGradient, o));
  PetscCall(TaoSetMonitor(o->tao, AdjOptimizerMonitor, o, NULL));
  *opt = o;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjOptimizerSetFromOptions - TAO options (-tao_type, -tao_max_it, -tao_gatol, -tao_monitor, ...).
    Called in every mode so that a deck's optimizer settings never count as unused. @*/
PetscErrorCode AdjOptimizerSetFromOptions(AdjOptimizer opt)
{
  PetscFunctionBeginUser;
  PetscCall(AdjDriverIsQuiet(opt->drv, &opt->quiet));
  PetscCall(TaoSetFromOptions(opt->tao));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjOptimizerSolve - minimizes J over the design within the parameter bounds, starting from
    `design`, which holds the optimum on return. Collective. @*/
PetscErrorCode AdjOptimizerSolve(AdjOptimizer opt, Vec design, AdjOutput out)
{
  AdjStepper         st;
  AdjParams          params;
  Vec                lower, upper;
  TaoConvergedReason reason;
  PetscInt           its;

  PetscFunctionBeginUser;
  opt->out = out;
  PetscCall(AdjDriverGetStepper(opt->drv, &st));
  PetscCall(AdjStepperGetParams(st, &params));
  PetscCall(VecDuplicate(design, &lower));
  PetscCall(VecDuplicate(design, &upper));
  PetscCall(AdjParamsGetBounds(params, lower, upper));
  PetscCall(TaoSetVariableBounds(opt->tao, lower, upper));
  PetscCall(TaoSetSolution(opt->tao, design));
  PetscCall(TaoSolve(opt->tao));
  PetscCall(TaoGetConvergedReason(opt->tao, &reason));
  PetscCall(TaoGetIterationNumber(opt->tao, &its));
  if (!opt->quiet)
    PetscCall(PetscPrintf(opt->comm, "optimize: %s after %" PetscInt_FMT " iterations, %" PetscInt_FMT " gradient evaluations\n", TaoConvergedReasons[reason], its, opt->evaluations));
  PetscCall(VecDestroy(&lower));
  PetscCall(VecDestroy(&upper));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjOptimizerDestroy(AdjOptimizer *opt)
{
  PetscFunctionBeginUser;
  if (!*opt) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(TaoDestroy(&(*opt)->tao));
  PetscCall(PetscFree(*opt));
  PetscFunctionReturn(PETSC_SUCCESS);
}
