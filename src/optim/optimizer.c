/* AdjOptimizer: TAO driving AdjDriver gradients (see include/adjsim/optim.h).
 *
 * Interruption: on SIGUSR1/SIGTERM the optimizer stops after the current iteration and writes a
 * restart file holding the parameters of that iterate and the history so far; resuming from it
 * starts TAO again at that iterate, so the run continues at the same iteration number with the
 * same design and objective.  The quasi-Newton memory of L-BFGS is not saved: iterates after a
 * resume differ from those of an uninterrupted run (the optimum they reach does not). */
#include <adjsim/optim.h>
#include <adjsim/interrupt.h>
#include <adjsim/io.h>

typedef struct {
  PetscInt   n, capacity;
  PetscReal *iteration, *objective, *gnorm;
} AdjHistory;

struct _p_AdjOptimizer {
  MPI_Comm   comm;
  AdjDriver  drv;
  AdjStepper stepper;
  Tao        tao;
  AdjOutput  out;
  PetscBool  quiet, interruptible, resumed;
  PetscInt   evaluations, offset, interrupted_at;
  AdjHistory history;
  Vec        ordered;  /* the design in block order (/optimization/design) */
  VecScatter toblocks; /* design -> ordered (AdjParamsCreateBlockOrder) */
};

static PetscErrorCode AdjHistoryAppend(AdjHistory *h, PetscReal it, PetscReal J, PetscReal gnorm)
{
  PetscFunctionBeginUser;
  if (h->n == h->capacity) {
    const PetscInt cap = PetscMax(16, 2 * h->capacity);
    PetscCall(PetscRealloc(cap * sizeof(PetscReal), &h->iteration));
    PetscCall(PetscRealloc(cap * sizeof(PetscReal), &h->objective));
    PetscCall(PetscRealloc(cap * sizeof(PetscReal), &h->gnorm));
    h->capacity = cap;
  }
  h->iteration[h->n] = it;
  h->objective[h->n] = J;
  h->gnorm[h->n++]   = gnorm;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode AdjOptimizerObjectiveGradient(Tao tao, Vec x, PetscReal *f, Vec g, void *ctx)
{
  AdjOptimizer opt = (AdjOptimizer)ctx;

  PetscFunctionBeginUser;
  PetscCall(AdjDriverGradient(opt->drv, x, f, g));
  opt->evaluations++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Restart file of an optimization: /parameters at iterate x and the /optimization history.
 * Written as <path>.new and renamed over <path> once complete, so a valid file always exists. */
static PetscErrorCode AdjOptimizerWriteRestart(AdjOptimizer opt, Vec x, const char path[])
{
  AdjOutput        r;
  DM               da;
  const PetscReal *lower, *upper;
  char             tmp[PETSC_MAX_PATH_LEN];
  PetscMPIInt      rank;

  PetscFunctionBeginUser;
  PetscCall(AdjStepperGetGrid(opt->stepper, &da, &lower, &upper));
  PetscCall(PetscSNPrintf(tmp, sizeof(tmp), "%s.new", path));
  PetscCall(AdjOutputCreate(opt->comm, &r));
  PetscCall(AdjOutputSetPath(r, tmp));
  PetscCall(AdjOutputSetXdmf(r, PETSC_FALSE));
  PetscCall(AdjOutputSetGrid(r, da, lower, upper, "m"));
  PetscCall(AdjOutputOpen(r));
  PetscCall(AdjStepperSetParameters(opt->stepper, x));
  PetscCall(AdjStepperWriteParameters(opt->stepper, r));
  for (PetscInt i = 0; i < opt->history.n; i++)
    PetscCall(AdjOutputWriteOptimizationIteration(r, (PetscInt)opt->history.iteration[i], opt->history.objective[i],
                                                  opt->history.gnorm[i], NULL));
  PetscCall(AdjOutputSetAttribute(r, "/optimization", "content",
                                  "optimization restart: parameters of the last iterate and the history"));
  PetscCall(AdjOutputClose(r));
  PetscCall(AdjOutputDestroy(&r));
  PetscCallMPI(MPI_Comm_rank(opt->comm, &rank));
  if (!rank)
    PetscCheck(rename(tmp, path) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot rename %s to %s", tmp, path);
  PetscCallMPI(MPI_Barrier(opt->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One line and one HDF5 record per iteration; a pending signal stops TAO here. */
static PetscErrorCode AdjOptimizerMonitor(Tao tao, void *ctx)
{
  AdjOptimizer       opt = (AdjOptimizer)ctx;
  PetscInt           its, total;
  PetscReal          f, gnorm, cnorm, xdiff;
  TaoConvergedReason reason;
  Vec                x;
  PetscBool          stop;

  PetscFunctionBeginUser;
  PetscCall(TaoGetSolutionStatus(tao, &its, &f, &gnorm, &cnorm, &xdiff, &reason));
  PetscCall(TaoGetSolution(tao, &x));
  total = opt->offset + its;
  if (opt->resumed && its == 0) { /* the iterate the interrupted run stopped at: already recorded */
    if (!opt->quiet)
      PetscCall(PetscPrintf(opt->comm, "optimize: resumed at iteration %3" PetscInt_FMT "  J = %.10e  |g| = %.4e\n",
                            total, (double)f, (double)gnorm));
  } else {
    PetscCall(AdjHistoryAppend(&opt->history, (PetscReal)total, f, gnorm));
    if (opt->out) {
      PetscCall(VecScatterBegin(opt->toblocks, x, opt->ordered, INSERT_VALUES, SCATTER_FORWARD));
      PetscCall(VecScatterEnd(opt->toblocks, x, opt->ordered, INSERT_VALUES, SCATTER_FORWARD));
      PetscCall(AdjOutputWriteOptimizationIteration(opt->out, total, f, gnorm, opt->ordered));
    }
    if (!opt->quiet)
      PetscCall(PetscPrintf(
          opt->comm, "optimize: iteration %3" PetscInt_FMT "  J = %.10e  |g| = %.4e  gradients %" PetscInt_FMT "\n",
          total, (double)f, (double)gnorm, opt->evaluations));
  }
  if (!opt->interruptible) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(AdjInterruptRequested(opt->comm, &stop));
  if (stop && opt->out) {
    const char *path;
    PetscCall(AdjOutputGetRestartPath(opt->out, &path));
    PetscCall(AdjOptimizerWriteRestart(opt, x, path));
    opt->interrupted_at = total;
    PetscCall(TaoSetConvergedReason(tao, TAO_CONVERGED_USER));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjOptimizerCreate(AdjDriver drv, AdjOptimizer *opt)
{
  AdjOptimizer o;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&o));
  o->drv            = drv;
  o->interrupted_at = -1;
  PetscCall(AdjDriverGetStepper(drv, &o->stepper));
  PetscCall(AdjStepperGetComm(o->stepper, &o->comm));
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

/*@ AdjOptimizerSetInterruptible - stop gracefully on SIGUSR1/SIGTERM (see the file comment). @*/
PetscErrorCode AdjOptimizerSetInterruptible(AdjOptimizer opt, PetscBool flag)
{
  PetscFunctionBeginUser;
  if (flag && !opt->interruptible) PetscCall(AdjInterruptInstall());
  opt->interruptible = flag;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjOptimizerGetInterruptedIteration(AdjOptimizer opt, PetscInt *it)
{
  PetscFunctionBeginUser;
  *it = opt->interrupted_at;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjOptimizerResume - continue from an optimization restart file: the solver's parameters and
    the history come from the file; Solve then starts at that iterate. Collective. @*/
PetscErrorCode AdjOptimizerResume(AdjOptimizer opt, const char path[])
{
  PetscInt   n[3], maxit;
  PetscReal *it, *J, *gn;

  PetscFunctionBeginUser;
  PetscCall(AdjStepperReadParameters(opt->stepper, path));
  PetscCall(AdjInputReadArray(opt->comm, path, "/optimization/iteration", &n[0], &it));
  PetscCall(AdjInputReadArray(opt->comm, path, "/optimization/objective", &n[1], &J));
  PetscCall(AdjInputReadArray(opt->comm, path, "/optimization/gradient_norm", &n[2], &gn));
  PetscCheck(n[0] > 0 && n[0] == n[1] && n[1] == n[2], opt->comm, PETSC_ERR_USER_INPUT,
             "-restart %s holds no optimization history (is it the restart file of an optimize run?)", path);
  for (PetscInt i = 0; i < n[0]; i++) PetscCall(AdjHistoryAppend(&opt->history, it[i], J[i], gn[i]));
  opt->offset  = (PetscInt)it[n[0] - 1];
  opt->resumed = PETSC_TRUE;
  /* the iteration budget counts from the start of the whole optimization */
  PetscCall(TaoGetMaximumIterations(opt->tao, &maxit));
  PetscCall(TaoSetMaximumIterations(opt->tao, PetscMax(maxit - opt->offset, 0)));
  PetscCall(PetscFree(it));
  PetscCall(PetscFree(J));
  PetscCall(PetscFree(gn));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What a reader needs to take a block out of a row of /optimization/design: the active blocks'
 * names, units, first column, length and scale (value = scale * design variable), as attributes of
 * /optimization (docs/output-format.md). */
static PetscErrorCode AdjOptimizerWriteDesignLayout(AdjOptimizer opt, AdjParams params, AdjOutput out)
{
  PetscInt  nblocks, nactive = 0, start = 0, offset[16], size[16];
  PetscReal scale[16];
  char      names[1024] = "", units[1024] = "";

  PetscFunctionBeginUser;
  PetscCall(AdjParamsGetNumBlocks(params, &nblocks));
  for (PetscInt b = 0; b < nblocks; b++) {
    const char *name, *unit;
    PetscInt    n;
    PetscBool   active;

    PetscCall(AdjParamsGetBlockInfo(params, b, &name, &unit, NULL, &n, &active));
    if (!active) continue;
    PetscCheck(nactive < 16, opt->comm, PETSC_ERR_SUP, "At most 16 active parameter blocks");
    PetscCall(AdjParamsGetScale(params, name, &scale[nactive]));
    offset[nactive] = start;
    size[nactive++] = n;
    start += n;
    PetscCall(PetscStrlcat(names, nactive > 1 ? "," : "", sizeof(names)));
    PetscCall(PetscStrlcat(names, name, sizeof(names)));
    PetscCall(PetscStrlcat(units, nactive > 1 ? "," : "", sizeof(units)));
    PetscCall(PetscStrlcat(units, unit, sizeof(units)));
  }
  PetscCall(AdjOutputSetAttribute(out, "/optimization", "design_blocks", names));
  PetscCall(AdjOutputSetAttribute(out, "/optimization", "design_units", units));
  PetscCall(AdjOutputSetAttributeInts(out, "/optimization", "design_offsets", nactive, offset));
  PetscCall(AdjOutputSetAttributeInts(out, "/optimization", "design_sizes", nactive, size));
  PetscCall(AdjOutputSetAttributeReals(out, "/optimization", "design_scales", nactive, scale));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjOptimizerSolve - minimizes J over the design within the parameter bounds, starting from
    `design`, which holds the optimum on return. Collective. @*/
PetscErrorCode AdjOptimizerSolve(AdjOptimizer opt, Vec design, AdjOutput out)
{
  AdjParams          params;
  Vec                lower, upper;
  TaoConvergedReason reason;
  PetscInt           its;

  PetscFunctionBeginUser;
  opt->out = out;
  for (PetscInt i = 0; out && i < opt->history.n; i++) /* a resumed run's file holds the whole history */
    PetscCall(AdjOutputWriteOptimizationIteration(out, (PetscInt)opt->history.iteration[i], opt->history.objective[i],
                                                  opt->history.gnorm[i], NULL));
  PetscCall(AdjStepperGetParams(opt->stepper, &params));
  if (out && !opt->ordered) {
    PetscCall(AdjParamsCreateBlockOrder(params, design, &opt->ordered, &opt->toblocks));
    PetscCall(AdjOptimizerWriteDesignLayout(opt, params, out));
  }
  PetscCall(VecDuplicate(design, &lower));
  PetscCall(VecDuplicate(design, &upper));
  PetscCall(AdjParamsGetBounds(params, lower, upper));
  PetscCall(TaoSetVariableBounds(opt->tao, lower, upper));
  PetscCall(TaoSetSolution(opt->tao, design));
  PetscCall(TaoSolve(opt->tao));
  PetscCall(TaoGetConvergedReason(opt->tao, &reason));
  PetscCall(TaoGetIterationNumber(opt->tao, &its));
  if (!opt->quiet)
    PetscCall(PetscPrintf(opt->comm,
                          "optimize: %s after %" PetscInt_FMT " iterations, %" PetscInt_FMT " gradient evaluations\n",
                          opt->interrupted_at >= 0 ? "STOPPED_BY_SIGNAL" : TaoConvergedReasons[reason],
                          opt->offset + its, opt->evaluations));
  PetscCall(VecDestroy(&lower));
  PetscCall(VecDestroy(&upper));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjOptimizerDestroy(AdjOptimizer *opt)
{
  PetscFunctionBeginUser;
  if (!*opt) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(TaoDestroy(&(*opt)->tao));
  PetscCall(VecScatterDestroy(&(*opt)->toblocks));
  PetscCall(VecDestroy(&(*opt)->ordered));
  PetscCall(PetscFree((*opt)->history.iteration));
  PetscCall(PetscFree((*opt)->history.objective));
  PetscCall(PetscFree((*opt)->history.gnorm));
  PetscCall(PetscFree(*opt));
  PetscFunctionReturn(PETSC_SUCCESS);
}
