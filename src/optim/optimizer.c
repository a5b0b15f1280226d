/* AdjOptimizer: TAO driving AdjDriver gradients (see include/adjsim/optim.h).
 *
 * Interruption and bit-for-bit resume.  On SIGUSR1/SIGTERM the optimizer stops at the next check, made
 * after every evaluation of J and dJ/dp and between two steps of an evaluation's forward and reverse
 * sweeps (an evaluation stopped so is discarded and done again on resume), and writes a restart file;
 * the job script requeues the run, which resumes with -restart.
 * A resumed run must produce the same iterates, bit for bit, as a run never interrupted, whatever TAO
 * method (-tao_type) is used.  PETSc 3.18 has no way to save and set a method's internal state (the
 * L-BFGS pairs, the line search's bracket, BNCG's previous direction, a trust radius, ...), so the
 * state is not saved at all: it is recomputed.  The optimizer keeps a log of every evaluation TAO asked
 * for, (x, J(x), dJ/dp(x)); the restart file holds it, and the resumed run starts TAO again from the
 * same initial design and answers its first requests from the log instead of running the model
 * (deterministic re-execution).  TAO is deterministic given its inputs, so it asks for the same x,
 * which is checked bit for bit, gets the same answers and rebuilds the same state, then goes on with
 * real evaluations where the interrupted run stopped, possibly in the middle of a line search.  The
 * cost is the log: 2 n + 1 reals per evaluation for a design of n parameters (small designs only are
 * optimized here), and a replay of TAO's own arithmetic, negligible next to one model evaluation.
 * The same x needs the same rank count (reductions) and the same options: a restart file of another
 * rank count resumes as one without a log (below); a different x in the replay is an error.
 *
 * Stopping in the middle of an iteration: TAO cannot be left inside a line search, so once the stop is
 * decided every further request is answered without running the model (J = +Inf, "outside the
 * domain", which TAO's line searches back off from; before any evaluation J = 0, g = 0), those answers
 * are never recorded, and the monitor ends the solve at the end of the iteration.
 *
 * A restart file without the log (written before it existed) resumes as then: TAO starts again at its
 * last iterate with an empty quasi-Newton memory, and the iterates differ from an uninterrupted run's. */
#include <adjsim/optim.h>
#include <petsc/private/taoimpl.h> /* tao->data: the multipliers of TAOALMM (AdjOptimizerGetMultipliers) */
#include <adjsim/constraints.h>
#include <adjsim/interrupt.h>
#include <adjsim/io.h>
#include <adjsim/optcheck.h>
#include <math.h>
#include <string.h>

typedef struct {
  PetscInt   n, capacity;
  PetscReal *iteration, *objective, *gnorm;
} AdjHistory;

/* Every evaluation of the optimization, in the order TAO asked for them: f[count], and x and g as count
 * rows of n reals in block order (the columns of /optimization/design), kept on every rank. */
typedef struct {
  PetscInt   n, count, capacity;
  PetscReal *f, *x, *g;
  PetscInt   m;     /* constraints: m values and m gradient rows of n reals per evaluation */
  PetscReal *c, *J; /* c[count][m], J[count][m][n] (block order) */
} AdjEvalLog;

/* Design constraints (constraints.h), solved with TAOALMM: the values and gradients of the last evaluation,
 * at the design `at`, which TAO's constraint and Jacobian requests (always at the design of the objective
 * request just made) are answered from. */
typedef struct {
  AdjConstraints set;
  PetscInt       m, neq, nin;
  PetscReal     *value; /* v_i(p), raw (not TAO form) */
  Vec           *grad;  /* dv_i/dp, design layout */
  Vec            at;
  PetscBool      valid;
  Vec            ce, ci; /* TAO form: v - b (eq), v - b (ge) or b - v (le) */
  Mat            Ae, Ai;
} AdjOptConstraints;

struct _p_AdjOptimizer {
  MPI_Comm          comm;
  AdjDriver         drv;
  AdjStepper        stepper;
  Tao               tao;
  AdjOutput         out;
  PetscBool         quiet, interruptible, resumed;
  PetscBool         legacy; /* resumed from a restart file without a usable log: at its last iterate, memory lost */
  PetscInt          evaluations, offset, interrupted_at;
  AdjHistory        history; /* the iterations recorded (monitor) */
  AdjHistory        stored;  /* a replaying run: the history of the restart file, which the replay must reproduce */
  AdjEvalLog        log;
  PetscInt          nreplay;   /* evaluations answered from the log (a resumed run), 0 otherwise */
  PetscBool         announced; /* the end of the replay was reported */
  PetscBool         stopping;  /* a stop was decided: later requests are answered without running the model */
  PetscInt          drained;   /* requests answered so */
  char              restart[PETSC_MAX_PATH_LEN];
  AdjParamsRow      rows;                /* designs and gradients as rows in block order (/optimization/design) */
  PetscReal        *xrow;                /* one such row: the design TAO asks for in a replay */
  Vec               accepted;            /* the last iterate TAO reported: /parameters of the restart file */
  Vec               lower, upper;        /* the bounds of the design */
  PetscInt          test_after, test_in; /* tests: stop after evaluation test_after, or during evaluation test_in */
  PetscInt          restart_every; /* write the restart file after every this many iterations (0: on a signal only) */
  PetscBool         test_reverse;  /* ... in its reverse sweep rather than its forward sweep */
  AdjOptConstraints cons;
  PetscBool         taylor; /* -optimize_constraints_taylor_test: check each constraint's gradient first */
  PetscReal         taylor_h0, taylor_min_rate;
  PetscInt          taylor_levels;
  AdjOptimizerEvaluation evalfn; /* J and its gradient in place of the driver's (multipoint.c) */
  void                  *evalctx;
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

static PetscErrorCode AdjHistoryFree(AdjHistory *h)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(h->iteration));
  PetscCall(PetscFree(h->objective));
  PetscCall(PetscFree(h->gnorm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode AdjEvalLogAppend(AdjOptimizer opt, Vec x, PetscReal f, Vec g)
{
  AdjEvalLog *l = &opt->log;

  PetscFunctionBeginUser;
  if (l->count == l->capacity) {
    const PetscInt cap = PetscMax(16, 2 * l->capacity);
    PetscCall(PetscRealloc(cap * sizeof(PetscReal), &l->f));
    PetscCall(PetscRealloc(cap * l->n * sizeof(PetscReal), &l->x));
    PetscCall(PetscRealloc(cap * l->n * sizeof(PetscReal), &l->g));
    if (l->m) PetscCall(PetscRealloc(cap * l->m * sizeof(PetscReal), &l->c));
    if (l->m) PetscCall(PetscRealloc(cap * l->m * l->n * sizeof(PetscReal), &l->J));
    l->capacity = cap;
  }
  l->f[l->count] = f;
  for (PetscInt i = 0; i < l->m; i++) { /* the constraints of this evaluation (AdjOptimizerEvaluateConstraints) */
    l->c[l->count * l->m + i] = opt->cons.value[i];
    PetscCall(AdjParamsRowGather(opt->rows, opt->cons.grad[i], l->J + (l->count * l->m + i) * l->n));
  }
  PetscCall(AdjParamsRowGather(opt->rows, x, l->x + l->count * l->n));
  PetscCall(AdjParamsRowGather(opt->rows, g, l->g + l->count * l->n));
  l->count++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The constraint values and gradients just computed (or replayed, or drained) hold at the design x. */
static PetscErrorCode AdjOptimizerConstraintsCached(AdjOptimizer opt, Vec x)
{
  PetscFunctionBeginUser;
  PetscCall(VecCopy(x, opt->cons.at));
  opt->cons.valid = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Evaluation k of a resumed run, answered from the log after checking that TAO asks for the same x, bit for bit. */
static PetscErrorCode AdjOptimizerReplay(AdjOptimizer opt, PetscInt k, Vec x, PetscReal *f, Vec g)
{
  int same, all;

  PetscFunctionBeginUser;
  PetscCall(AdjParamsRowGather(opt->rows, x, opt->xrow));
  same = memcmp(opt->xrow, opt->log.x + k * opt->log.n, opt->log.n * sizeof(PetscReal)) == 0;
  PetscCallMPI(MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_LAND, opt->comm));
  PetscCheck(all, opt->comm, PETSC_ERR_USER_INPUT,
             "Cannot resume from -restart %s: at evaluation %" PetscInt_FMT
             " of the replay TAO asks for another design than the interrupted run did, so the optimization "
             "cannot continue as it would have. Resume with the options of the interrupted run (-tao_* settings, "
             "problem and sizes) and its rank count",
             opt->restart, k + 1);
  *f = opt->log.f[k];
  PetscCall(AdjParamsRowScatter(opt->rows, opt->log.g + k * opt->log.n, g));
  for (PetscInt i = 0; i < opt->log.m; i++) {
    opt->cons.value[i] = opt->log.c[k * opt->log.m + i];
    PetscCall(AdjParamsRowScatter(opt->rows, opt->log.J + (k * opt->log.m + i) * opt->log.n, opt->cons.grad[i]));
  }
  if (opt->log.m) PetscCall(AdjOptimizerConstraintsCached(opt, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The replay is over: say where the run resumes (the interrupted run's last iteration). */
static PetscErrorCode AdjOptimizerAnnounceResume(AdjOptimizer opt)
{
  const AdjHistory *h = &opt->history;

  PetscFunctionBeginUser;
  opt->announced = PETSC_TRUE;
  if (opt->quiet) PetscFunctionReturn(PETSC_SUCCESS);
  if (h->n)
    PetscCall(PetscPrintf(opt->comm,
                          "optimize: resumed at iteration %3" PetscInt_FMT "  J = %.10e  |g| = %.4e  (%" PetscInt_FMT
                          " evaluations replayed from %s)\n",
                          (PetscInt)h->iteration[h->n - 1], (double)h->objective[h->n - 1], (double)h->gnorm[h->n - 1],
                          opt->nreplay, opt->restart));
  else
    PetscCall(PetscPrintf(opt->comm,
                          "optimize: resumed before iteration 0 (%" PetscInt_FMT " evaluations replayed from %s)\n",
                          opt->nreplay, opt->restart));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The answer to a request after the stop: nothing is computed (see the file comment). */
static PetscErrorCode AdjOptimizerDrain(AdjOptimizer opt, Vec x, PetscReal *f, Vec g)
{
  PetscFunctionBeginUser;
  *f = opt->log.count ? PETSC_INFINITY : 0.0;
  PetscCall(VecSet(g, 0.0));
  for (PetscInt i = 0; i < opt->cons.m; i++) { /* a value on the bound, no gradient */
    AdjConstraintSense sense;
    PetscReal          bound;
    PetscCall(AdjConstraintsGetInfo(opt->cons.set, i, NULL, &sense, &bound, NULL));
    opt->cons.value[i] = bound;
    PetscCall(VecSet(opt->cons.grad[i], 0.0));
  }
  if (opt->cons.m) PetscCall(AdjOptimizerConstraintsCached(opt, x));
  opt->drained++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Tests: make the coming evaluation be interrupted in its forward sweep (after its first step) or in the
 * middle of its reverse sweep, as a signal arriving then would. */
static PetscErrorCode AdjOptimizerTestInterruptIn(AdjOptimizer opt)
{
  AdjStepIndex n;
  PetscReal    dt;

  PetscFunctionBeginUser;
  if (!opt->test_reverse)
    PetscCall(AdjInterruptRaise());
  else {
    PetscCall(AdjStepperGetTimes(opt->stepper, &n, &dt));
    PetscCall(AdjDriverSetTestInterruptAtReverse(opt->drv, PetscMax(n / 2, 1)));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode AdjOptimizerObjectiveGradient(Tao tao, Vec x, PetscReal *f, Vec g, void *ctx)
{
  AdjOptimizer opt = (AdjOptimizer)ctx;
  AdjStepIndex stopped;
  PetscBool    stop;

  PetscFunctionBeginUser;
  if (opt->stopping) {
    PetscCall(AdjOptimizerDrain(opt, x, f, g));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (opt->evaluations < opt->nreplay) {
    PetscCall(AdjOptimizerReplay(opt, opt->evaluations, x, f, g));
    opt->evaluations++;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (opt->resumed && !opt->legacy && !opt->announced) PetscCall(AdjOptimizerAnnounceResume(opt));
  if (opt->interruptible && opt->test_in == opt->evaluations + 1) PetscCall(AdjOptimizerTestInterruptIn(opt));
  if (opt->evalfn)
    PetscCall(opt->evalfn(opt->evalctx, x, f, g, &stopped));
  else {
    PetscCall(AdjDriverGradient(opt->drv, x, f, g));
    PetscCall(AdjDriverGetInterruptedStep(opt->drv, &stopped));
  }
  if (stopped < 0 && opt->cons.m) { /* every constraint with it: TAOALMM asks for them at each design it evaluates */
    PetscCall(AdjConstraintsEvaluate(opt->cons.set, x, opt->cons.value, opt->cons.grad, &stopped));
    if (stopped < 0) PetscCall(AdjOptimizerConstraintsCached(opt, x));
  }
  if (stopped >= 0) { /* no gradient: this evaluation is redone by the resumed run */
    if (!opt->quiet)
      PetscCall(PetscPrintf(opt->comm,
                            "optimize: evaluation %" PetscInt_FMT " stopped by a signal at step %" PetscInt64_FMT
                            "; it is discarded and done again on resume\n",
                            opt->evaluations + 1, (PetscInt64)stopped));
    opt->stopping = PETSC_TRUE;
    PetscCall(AdjOptimizerDrain(opt, x, f, g));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(AdjEvalLogAppend(opt, x, *f, g));
  opt->evaluations++;
  if (!opt->interruptible) PetscFunctionReturn(PETSC_SUCCESS);
  if (opt->test_after == opt->evaluations) PetscCall(AdjInterruptRaise());
  PetscCall(AdjInterruptRequested(opt->comm, &stop));
  opt->stopping = stop;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* TAO's constraint requests follow the objective request at the same design (TAOALMM evaluates f, g, c_E, A_E,
 * c_I, A_I together), so they are answered from what that request computed; a request at another design is
 * evaluated in full, as an objective request (and logged as one, so that a replay sees the same sequence). */
static PetscErrorCode AdjOptimizerEnsureConstraints(AdjOptimizer opt, Tao tao, Vec x)
{
  PetscBool same = PETSC_FALSE;

  PetscFunctionBeginUser;
  if (opt->cons.valid) PetscCall(VecEqual(x, opt->cons.at, &same));
  if (!same) {
    PetscReal f;
    Vec       g;
    PetscCall(VecDuplicate(x, &g));
    PetscCall(AdjOptimizerObjectiveGradient(tao, x, &f, g, opt));
    PetscCall(VecDestroy(&g));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Constraint i in TAO's form: v - b for eq and ge, b - v for le (TAO's inequalities are c >= 0). */
static PetscErrorCode AdjOptimizerTaoForm(AdjOptimizer opt, PetscInt i, PetscReal *c, PetscReal *sign)
{
  AdjConstraintSense sense;
  PetscReal          bound;

  PetscFunctionBeginUser;
  PetscCall(AdjConstraintsGetInfo(opt->cons.set, i, NULL, &sense, &bound, NULL));
  *sign = sense == ADJ_CONSTRAINT_LE ? -1.0 : 1.0;
  *c    = *sign * (opt->cons.value[i] - bound);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The equality (eq = true) or inequality constraints in TAO form into c, and their Jacobian rows into A (design
 * columns; rows follow c's layout). Collective. */
static PetscErrorCode AdjOptimizerFillConstraints(AdjOptimizer opt, PetscBool eq, Vec c, Mat A)
{
  PetscInt     row = 0, rs, re, *cols;
  PetscMPIInt  rank;
  PetscScalar *vals;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(opt->comm, &rank));
  PetscCall(VecGetOwnershipRange(opt->cons.at, &rs, &re));
  PetscCall(PetscMalloc2(re - rs, &cols, re - rs, &vals));
  for (PetscInt j = rs; j < re; j++) cols[j - rs] = j;
  for (PetscInt i = 0; i < opt->cons.m; i++) {
    AdjConstraintSense sense;
    PetscReal          ci = 0, sign = 1;
    const PetscScalar *g;

    PetscCall(AdjConstraintsGetInfo(opt->cons.set, i, NULL, &sense, NULL, NULL));
    if ((sense == ADJ_CONSTRAINT_EQ) != eq) continue;
    PetscCall(AdjOptimizerTaoForm(opt, i, &ci, &sign));
    if (c && !rank) PetscCall(VecSetValue(c, row, ci, INSERT_VALUES));
    if (A) {
      PetscCall(VecGetArrayRead(opt->cons.grad[i], &g));
      for (PetscInt j = 0; j < re - rs; j++) vals[j] = sign * g[j];
      PetscCall(VecRestoreArrayRead(opt->cons.grad[i], &g));
      PetscCall(MatSetValues(A, 1, &row, re - rs, cols, vals, INSERT_VALUES));
    }
    row++;
  }
  PetscCall(PetscFree2(cols, vals));
  if (c) PetscCall(VecAssemblyBegin(c));
  if (c) PetscCall(VecAssemblyEnd(c));
  if (A) PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  if (A) PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode AdjOptimizerEqualityConstraints(Tao tao, Vec x, Vec ce, void *ctx)
{
  AdjOptimizer opt = (AdjOptimizer)ctx;

  PetscFunctionBeginUser;
  PetscCall(AdjOptimizerEnsureConstraints(opt, tao, x));
  PetscCall(AdjOptimizerFillConstraints(opt, PETSC_TRUE, ce, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode AdjOptimizerInequalityConstraints(Tao tao, Vec x, Vec ci, void *ctx)
{
  AdjOptimizer opt = (AdjOptimizer)ctx;

  PetscFunctionBeginUser;
  PetscCall(AdjOptimizerEnsureConstraints(opt, tao, x));
  PetscCall(AdjOptimizerFillConstraints(opt, PETSC_FALSE, ci, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode AdjOptimizerEqualityJacobian(Tao tao, Vec x, Mat A, Mat B, void *ctx)
{
  AdjOptimizer opt = (AdjOptimizer)ctx;

  PetscFunctionBeginUser;
  PetscCall(AdjOptimizerEnsureConstraints(opt, tao, x));
  PetscCall(AdjOptimizerFillConstraints(opt, PETSC_TRUE, NULL, A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode AdjOptimizerInequalityJacobian(Tao tao, Vec x, Mat A, Mat B, void *ctx)
{
  AdjOptimizer opt = (AdjOptimizer)ctx;

  PetscFunctionBeginUser;
  PetscCall(AdjOptimizerEnsureConstraints(opt, tao, x));
  PetscCall(AdjOptimizerFillConstraints(opt, PETSC_FALSE, NULL, A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Restart file of an optimization: /parameters at the last iterate x, the /optimization history and the
 * evaluation log.  Written as <path>.new and renamed over <path> once complete, so a valid file always exists. */
static PetscErrorCode AdjOptimizerWriteRestart(AdjOptimizer opt, Vec x, const char path[])
{
  AdjOutput        r;
  DM               da;
  const PetscReal *lower, *upper;
  char             tmp[PETSC_MAX_PATH_LEN];
  PetscMPIInt      rank, size;
  TaoType          type;
  PetscReal        info[4];

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
                                  "optimization restart: parameters of the last iterate, the history and the "
                                  "evaluation log"));
  PetscCallMPI(MPI_Comm_size(opt->comm, &size));
  PetscCall(TaoGetType(opt->tao, &type));
  info[0] = size;
  info[1] = opt->log.n;
  info[2] = opt->log.count;
  info[3] = opt->legacy; /* 1: the log starts where a run resumed without a log started: not replayable */
  PetscCall(AdjOutputWriteOptimizationArray(r, "evaluation_info", "1", 4, info));
  PetscCall(AdjOutputSetAttribute(r, "/optimization", "tao_type", type));
  if (opt->log.count) {
    PetscCall(AdjOutputWriteOptimizationArray(r, "evaluation_objective", "1", opt->log.count, opt->log.f));
    PetscCall(AdjOutputWriteOptimizationArray(r, "evaluation_design", "1", opt->log.count * opt->log.n, opt->log.x));
    PetscCall(AdjOutputWriteOptimizationArray(r, "evaluation_gradient", "1", opt->log.count * opt->log.n, opt->log.g));
  }
  if (opt->log.m) { /* the constraints of each evaluation, for the replay of a constrained optimization */
    const PetscReal m = (PetscReal)opt->log.m;
    PetscCall(AdjOutputWriteOptimizationArray(r, "evaluation_constraint_count", "1", 1, &m));
    if (opt->log.count) {
      PetscCall(
          AdjOutputWriteOptimizationArray(r, "evaluation_constraints", "1", opt->log.count * opt->log.m, opt->log.c));
      PetscCall(AdjOutputWriteOptimizationArray(r, "evaluation_constraint_gradients", "1",
                                                opt->log.count * opt->log.m * opt->log.n, opt->log.J));
    }
  }
  PetscCall(AdjOutputClose(r));
  PetscCall(AdjOutputDestroy(&r));
  PetscCallMPI(MPI_Comm_rank(opt->comm, &rank));
  if (!rank)
    PetscCheck(rename(tmp, path) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot rename %s to %s", tmp, path);
  PetscCallMPI(MPI_Barrier(opt->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The head of TAOALMM's private context (src/tao/constrained/impls/almm/almm.h, the same from PETSc 3.15 to 3.20):
 * PETSc 3.18's TaoALMMGetMultipliers returns, for a problem with both equality and inequality constraints, a
 * combined vector Y = (Y_E, Y_I) made once at set-up and never updated from Y_E and Y_I, which the method updates
 * (checked on a one-variable problem: Y stays 0 while the method converges); the separate Y_E and Y_I are read
 * here instead. The layout is checked against the vectors and matrices this optimizer gave TAO (Ae, Ai, Ce, Ci and
 * the solution); if they do not match (another PETSc), the multipliers are reported as NaN. */
typedef struct {
  Tao subsolver, parent;
  PetscErrorCode (*sub_obj)(Tao);
  TaoALMMType type;
  IS         *Pis, *Yis;
  VecScatter *Pscatter, *Yscatter;
  Mat         Ae, Ai;
  Vec         Px, LgradX, Ce, Ci, G;
  Vec         Ps, LgradS, Yi, Ye;
} AdjTaoALMMHead;

/* Y_E and Y_I of TAOALMM (either NULL when that kind is absent); false when the layout check fails. */
static PetscErrorCode AdjOptimizerALMMDuals(AdjOptimizer opt, Tao tao, Vec *ye, Vec *yi, PetscBool *ok)
{
  const AdjTaoALMMHead *h = (const AdjTaoALMMHead *)tao->data;
  Vec                   x;

  PetscFunctionBeginUser;
  PetscCall(TaoGetSolution(tao, &x));
  *ok = (PetscBool)(h && h->parent == tao && h->Px == x && (!opt->cons.neq || (h->Ae == opt->cons.Ae && h->Ye)) &&
                    (!opt->cons.nin || (h->Ai == opt->cons.Ai && h->Yi)));
  *ye = *ok && opt->cons.neq ? h->Ye : NULL;
  *yi = *ok && opt->cons.nin ? h->Yi : NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Multipliers of TAOALMM in constraint order, on every rank, in one convention: L = f + y^T c with c in TAO form, so
 * y <= 0 on an active inequality. That is TAO's own with -tao_almm_type classic (L = f + y_E^T c_E + y_I^T (c_I - s)).
 * PETSc 3.18's default formulation, phr, works with -c_I <= 0 (it negates c_I and its Jacobian), so its inequality
 * multipliers are >= 0 and stationarity reads grad f + y_E grad c_E - y_I grad c_I = 0: they are negated here
 * (checked on min (x-2)^2 s.t. 1 - x >= 0: phr gives y -> +2, classic -> -2). Before its first outer iteration,
 * TAOALMM's multipliers are its initial estimate, 1 for every constraint in PETSc 3.18.5 with phr (a standalone TAO
 * example shows the same), not a computed value. */
static PetscErrorCode AdjOptimizerGetMultipliers(AdjOptimizer opt, Tao tao, PetscReal y[])
{
  Vec         part[2];
  PetscInt    k[2] = {0, 0};
  TaoALMMType type;
  PetscBool   ok;

  PetscFunctionBeginUser;
  PetscCall(AdjOptimizerALMMDuals(opt, tao, &part[0], &part[1], &ok));
  for (PetscInt i = 0; i < opt->cons.m && !ok; i++) y[i] = (PetscReal)NAN;
  if (!ok) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt s = 0; s < 2; s++) {
    const PetscScalar *a;
    VecScatter         sc;
    Vec                all;
    if (!part[s]) continue;
    PetscCall(VecScatterCreateToAll(part[s], &sc, &all));
    PetscCall(VecScatterBegin(sc, part[s], all, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(sc, part[s], all, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecGetArrayRead(all, &a));
    for (PetscInt i = 0; i < opt->cons.m; i++) {
      AdjConstraintSense sense;
      PetscCall(AdjConstraintsGetInfo(opt->cons.set, i, NULL, &sense, NULL, NULL));
      if ((sense == ADJ_CONSTRAINT_EQ) == (s == 0)) y[i] = a[k[s]++];
    }
    PetscCall(VecRestoreArrayRead(all, &a));
    PetscCall(VecScatterDestroy(&sc));
    PetscCall(VecDestroy(&all));
  }
  PetscCall(TaoALMMGetType(tao, &type));
  for (PetscInt i = 0; i < opt->cons.m && type == TAO_ALMM_PHR; i++) {
    AdjConstraintSense sense;
    PetscCall(AdjConstraintsGetInfo(opt->cons.set, i, NULL, &sense, NULL, NULL));
    if (sense != ADJ_CONSTRAINT_EQ) y[i] = -y[i];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* KKT residual at the iterate x with multipliers y (TAO form, constraints.h):
 *   max( ||P(grad f + sum_i y_i grad c_i)||_2 , ||c_E||_2 , ||min(c_I, 0)||_2 , ||max(y_I, 0)||_2 , ||y_I c_I||_2 )
 * P the projection onto the bounds (as TAO's projected gradient); grad f from the evaluation log, whose last
 * entry is at x (TAOALMM evaluates its iterate last); NaN if it is not. Collective. */
static PetscErrorCode AdjOptimizerKKTResidual(AdjOptimizer opt, Vec x, const PetscReal y[], PetscReal *kkt)
{
  const AdjEvalLog *l      = &opt->log;
  const PetscInt    k      = opt->evaluations - 1; /* the last evaluation, replayed or not */
  PetscReal         infeas = 0, dual = 0, compl = 0, gl;
  Vec               gL;
  PetscBool         same;

  PetscFunctionBeginUser;
  *kkt = (PetscReal)NAN;
  if (k < 0 || k >= l->count) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecEqual(x, opt->cons.at, &same));
  if (!same) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecDuplicate(x, &gL));
  PetscCall(AdjParamsRowScatter(opt->rows, l->g + k * l->n, gL));
  for (PetscInt i = 0; i < opt->cons.m; i++) {
    AdjConstraintSense sense;
    PetscReal          c = 0, sign = 1;
    PetscCall(AdjConstraintsGetInfo(opt->cons.set, i, NULL, &sense, NULL, NULL));
    PetscCall(AdjOptimizerTaoForm(opt, i, &c, &sign));
    PetscCall(VecAXPY(gL, sign * y[i], opt->cons.grad[i]));
    if (sense == ADJ_CONSTRAINT_EQ)
      infeas += c * c;
    else {
      infeas += PetscSqr(PetscMin(c, 0));
      dual += PetscSqr(PetscMax(y[i], 0));
      compl += PetscSqr(y[i] * c);
    }
  }
  PetscCall(VecBoundGradientProjection(gL, x, opt->lower, opt->upper, gL));
  PetscCall(VecNorm(gL, NORM_2, &gl));
  PetscCall(VecDestroy(&gL));
  *kkt = PetscMax(PetscMax(gl, PetscSqrtReal(infeas)), PetscMax(PetscSqrtReal(dual), PetscSqrtReal(compl )));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Violation of constraint i at the cached values: |v - b| (eq), max(b - v, 0) (ge), max(v - b, 0) (le). */
static PetscErrorCode AdjOptimizerViolation(AdjOptimizer opt, PetscInt i, PetscReal *viol)
{
  PetscReal          c = 0, sign = 1;
  AdjConstraintSense sense;

  PetscFunctionBeginUser;
  PetscCall(AdjConstraintsGetInfo(opt->cons.set, i, NULL, &sense, NULL, NULL));
  PetscCall(AdjOptimizerTaoForm(opt, i, &c, &sign));
  *viol = sense == ADJ_CONSTRAINT_EQ ? PetscAbsReal(c) : PetscMax(-c, 0);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One row of /history/constraints per iteration of a constrained optimization: iteration, objective, the
 * Lagrangian's projected gradient norm (TAO's), the KKT residual, the largest violation, then per constraint its
 * value, violation and multiplier; and the iteration line's constraint part. Collective. */
static PetscErrorCode AdjOptimizerRecordConstraints(AdjOptimizer opt, Tao tao, Vec x, PetscInt it, PetscReal f,
                                                    PetscReal gnorm, PetscBool print)
{
  const PetscInt m = opt->cons.m, ncol                                    = 5 + 3 * m;
  PetscReal      row[5 + 3 * ADJ_MAX_CONSTRAINTS], y[ADJ_MAX_CONSTRAINTS] = {0}, vmax = 0, kkt;
  char           columns[4096] = "iteration,objective,lagrangian_gradient_norm,kkt_residual,max_violation";

  PetscFunctionBeginUser;
  PetscCall(AdjOptimizerGetMultipliers(opt, tao, y));
  PetscCall(AdjOptimizerKKTResidual(opt, x, y, &kkt));
  for (PetscInt i = 0; i < m; i++) {
    const char *name;
    PetscReal   viol;
    char        col[256];
    PetscCall(AdjConstraintsGetInfo(opt->cons.set, i, &name, NULL, NULL, NULL));
    PetscCall(AdjOptimizerViolation(opt, i, &viol));
    vmax               = PetscMax(vmax, viol);
    row[5 + 3 * i]     = opt->cons.value[i];
    row[5 + 3 * i + 1] = viol;
    row[5 + 3 * i + 2] = y[i];
    PetscCall(PetscSNPrintf(col, sizeof(col), ",%s,%s_violation,%s_multiplier", name, name, name));
    PetscCall(PetscStrlcat(columns, col, sizeof(columns)));
  }
  row[0] = it, row[1] = f, row[2] = gnorm, row[3] = kkt, row[4] = vmax;
  if (opt->out) PetscCall(AdjOutputAppendHistory(opt->out, "constraints", columns, ncol, 1, row));
  if (print && !opt->quiet) {
    PetscCall(
        PetscPrintf(opt->comm, "optimize:     KKT residual %.3e  max violation %.3e ", (double)kkt, (double)vmax));
    for (PetscInt i = 0; i < m; i++) {
      const char *name;
      PetscCall(AdjConstraintsGetInfo(opt->cons.set, i, &name, NULL, NULL, NULL));
      PetscCall(PetscPrintf(opt->comm, " %s = %.6g (y %.3g)", name, (double)row[5 + 3 * i], (double)y[i]));
    }
    PetscCall(PetscPrintf(opt->comm, "\n"));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A replayed monitor call (the k-th) must record what the interrupted run recorded, bit for bit. */
static PetscErrorCode AdjOptimizerCheckReplayed(AdjOptimizer opt, PetscInt k, PetscInt its, PetscReal f,
                                                PetscReal gnorm)
{
  const AdjHistory *s = &opt->stored;

  PetscFunctionBeginUser;
  PetscCheck(s->iteration[k] == its && s->objective[k] == f && s->gnorm[k] == gnorm, opt->comm, PETSC_ERR_PLIB,
             "Resuming from -restart %s: the replay gives iteration %" PetscInt_FMT
             " J = %.17g |g| = %.17g, the interrupted run recorded iteration %g J = %.17g |g| = %.17g",
             opt->restart, its, (double)f, (double)gnorm, (double)s->iteration[k], (double)s->objective[k],
             (double)s->gnorm[k]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One line and one HDF5 record per iteration; once a stop is decided, TAO stops here. */
static PetscErrorCode AdjOptimizerMonitor(Tao tao, void *ctx)
{
  AdjOptimizer       opt = (AdjOptimizer)ctx;
  PetscInt           its, total;
  PetscReal          f, gnorm, cnorm, xdiff;
  TaoConvergedReason reason;
  Vec                x;
  PetscBool          replayed;

  PetscFunctionBeginUser;
  if (tao != opt->tao) { /* an iteration of TAOALMM's subsolver: only a decided stop matters here */
    if (opt->stopping) PetscCall(TaoSetConvergedReason(tao, TAO_CONVERGED_USER));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (opt->stopping && opt->drained) { /* an iteration made of answers that computed nothing */
    PetscCall(TaoSetConvergedReason(tao, TAO_CONVERGED_USER));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(TaoGetSolutionStatus(tao, &its, &f, &gnorm, &cnorm, &xdiff, &reason));
  PetscCall(TaoGetSolution(tao, &x));
  total    = opt->offset + its;
  replayed = (PetscBool)(opt->history.n < opt->stored.n); /* some methods (bncg) report an iteration number twice */
  if (replayed) PetscCall(AdjOptimizerCheckReplayed(opt, opt->history.n, total, f, gnorm));
  if (opt->legacy && its == 0) { /* resumed without a log at an iterate already recorded */
    if (!opt->quiet)
      PetscCall(PetscPrintf(opt->comm, "optimize: resumed at iteration %3" PetscInt_FMT "  J = %.10e  |g| = %.4e\n",
                            total, (double)f, (double)gnorm));
  } else {
    PetscCall(AdjHistoryAppend(&opt->history, (PetscReal)total, f, gnorm));
    if (opt->out) {
      Vec ordered;
      PetscCall(AdjParamsRowOrder(opt->rows, x, &ordered));
      PetscCall(AdjOutputWriteOptimizationIteration(opt->out, total, f, gnorm, ordered));
    }
    if (!opt->quiet && !replayed)
      PetscCall(PetscPrintf(
          opt->comm, "optimize: iteration %3" PetscInt_FMT "  J = %.10e  |g| = %.4e  gradients %" PetscInt_FMT "\n",
          total, (double)f, (double)gnorm, opt->evaluations));
    if (opt->cons.m) PetscCall(AdjOptimizerRecordConstraints(opt, tao, x, total, f, gnorm, (PetscBool)!replayed));
  }
  PetscCall(VecCopy(x, opt->accepted));
  if (opt->stopping)
    PetscCall(TaoSetConvergedReason(tao, TAO_CONVERGED_USER));
  else if (opt->out && opt->restart_every > 0 && !replayed && total % opt->restart_every == 0) {
    /* the state a signal after this iteration would leave: a SIGKILL (a node lost) then costs at most
     * restart_every iterations, and the run resumes from the file with -restart, bit for bit */
    const char *path;
    PetscCall(AdjOutputGetRestartPath(opt->out, &path));
    PetscCall(AdjOptimizerWriteRestart(opt, opt->accepted, path));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The TAO methods adjsim offers: those that need only J and its gradient, each tested to resume bit for bit
 * (tests/app/CMakeLists.txt, optimize_resume_*). The others need a Hessian, constraints or residuals, and
 * some of them crash in PETSc 3.18 without (almm, pdipm, admm, pounders). */
static const char *const AdjOptimizerMethods[] = {TAOBLMVM,  TAOLMVM, TAOBQNLS, TAOBQNKLS, TAOBQNKTR,
                                                  TAOBQNKTL, TAOBNCG, TAOCG,    TAONM};

PetscErrorCode AdjOptimizerCreate(AdjDriver drv, AdjOptimizer *opt)
{
  AdjOptimizer o;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&o));
  o->drv             = drv;
  o->interrupted_at  = -1;
  o->restart_every   = 1;
  o->taylor_levels   = 4;
  o->taylor_min_rate = 1.9;
  PetscCall(AdjDriverGetStepper(drv, &o->stepper));
  PetscCall(AdjStepperGetComm(o->stepper, &o->comm));
  PetscCall(TaoCreate(o->comm, &o->tao));
  PetscCall(TaoSetType(o->tao, TAOBLMVM));
  PetscCall(TaoSetObjectiveAndGradient(o->tao, NULL, AdjOptimizerObjectiveGradient, o));
  PetscCall(TaoSetMonitor(o->tao, AdjOptimizerMonitor, o, NULL));
  PetscCall(AdjConstraintsCreate(drv, &o->cons.set));
  *opt = o;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* With constraints: TAOALMM by default.  TAOALMM's SetFromOptions hands the parent's monitors to its subsolver
 * and takes a PETSc reference on each monitor context, which only works for PETSc objects: the monitor is set
 * again after it (and -tao_monitor, whose context is not one either, is refused), and the subsolver gets its own
 * call of the monitor, which only stops it on a signal. */
static PetscErrorCode AdjOptimizerSetFromOptionsConstrained(AdjOptimizer opt)
{
  PetscBool monitor;
  Tao       sub;
  TaoType   type;
  PetscBool almm;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsHasName(NULL, NULL, "-tao_monitor", &monitor));
  PetscCheck(!monitor, opt->comm, PETSC_ERR_USER_INPUT,
             "-tao_monitor cannot be used with -optimize_constraints (TAOALMM in PETSc 3.18 mishandles its context): "
             "the optimize: lines and /history/constraints of the run file give the iterations");
  PetscCall(TaoSetType(opt->tao, TAOALMM));
  PetscCall(TaoCancelMonitors(opt->tao));
  PetscCall(TaoSetFromOptions(opt->tao));
  PetscCall(TaoSetMonitor(opt->tao, AdjOptimizerMonitor, opt, NULL));
  PetscCall(TaoGetType(opt->tao, &type));
  PetscCall(PetscStrcmp(type, TAOALMM, &almm));
  if (!almm) PetscFunctionReturn(PETSC_SUCCESS); /* refused by the caller */
  PetscCall(TaoALMMGetSubsolver(opt->tao, &sub));
  PetscCall(TaoSetMonitor(sub, AdjOptimizerMonitor, opt, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjOptimizerSetFromOptions - TAO options (-tao_type, -tao_max_it, -tao_gatol, -tao_monitor, ...) and the
    interruption points of the tests. Called in every mode so that a deck's optimizer settings never count as
    unused. @*/
PetscErrorCode AdjOptimizerSetFromOptions(AdjOptimizer opt)
{
  TaoType   type;
  PetscBool ok = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(AdjDriverIsQuiet(opt->drv, &opt->quiet));
  PetscCall(AdjConstraintsSetFromOptions(opt->cons.set));
  PetscCall(AdjConstraintsGetSize(opt->cons.set, &opt->cons.m, &opt->cons.neq, &opt->cons.nin));
  if (opt->cons.m)
    PetscCall(AdjOptimizerSetFromOptionsConstrained(opt));
  else
    PetscCall(TaoSetFromOptions(opt->tao));
  PetscCall(TaoGetType(opt->tao, &type));
  for (size_t i = 0; i < sizeof(AdjOptimizerMethods) / sizeof(AdjOptimizerMethods[0]) && !ok; i++)
    PetscCall(PetscStrcmp(type, AdjOptimizerMethods[i], &ok));
  if (opt->cons.m) PetscCall(PetscStrcmp(type, TAOALMM, &ok));
  PetscCheck(ok || !opt->cons.m, opt->comm, PETSC_ERR_USER_INPUT,
             "-tao_type %s cannot solve the constraints of -optimize_constraints: use -tao_type almm (the default with "
             "constraints; TAO's augmented Lagrangian method)",
             type);
  PetscCheck(ok, opt->comm, PETSC_ERR_USER_INPUT,
             "-tao_type %s is not supported: adjsim gives TAO the objective and its gradient only (no Hessian or "
             "residuals; constraints with -optimize_constraints and -tao_type almm), and resumes interrupted "
             "optimizations exactly with the methods tested so: "
             "blmvm (default), lmvm, bqnls, bqnkls, bqnktr, bqnktl, bncg, cg, nm (docs/cluster.md)",
             type);
  PetscOptionsBegin(opt->comm, NULL, "Optimization: interruption points for tests", "AdjOptimizer");
  PetscCall(
      PetscOptionsInt("-optimize_restart_interval",
                      "Write the optimization's restart file (last iterate, history, evaluation log; resumed with "
                      "-restart bit for bit) after every this many iterations, so that a run killed without "
                      "warning (SIGKILL, a lost node) loses at most that many (0: only when stopped by "
                      "SIGUSR1/SIGTERM)",
                      "", opt->restart_every, &opt->restart_every, NULL));
  PetscCall(PetscOptionsInt("-optimize_interrupt_after_evaluations",
                            "For tests: stop as on SIGUSR1 after this many evaluations of J and its gradient, counted "
                            "from the start of the optimization (0: never)",
                            "AdjOptimizerSetInterruptible", opt->test_after, &opt->test_after, NULL));
  PetscCall(PetscOptionsInt("-optimize_interrupt_in_evaluation",
                            "For tests: SIGUSR1 arrives during this evaluation (1: the first), after the first step of "
                            "its forward sweep (0: never)",
                            "AdjOptimizerSetInterruptible", opt->test_in, &opt->test_in, NULL));
  PetscCall(PetscOptionsBool("-optimize_interrupt_in_reverse",
                             "For tests: -optimize_interrupt_in_evaluation stops it in the middle of its reverse sweep "
                             "instead",
                             "AdjOptimizerSetInterruptible", opt->test_reverse, &opt->test_reverse, NULL));
  PetscCall(PetscOptionsBool("-optimize_constraints_taylor_test",
                             "Before optimizing: Taylor test of every constraint's gradient at the initial design (the "
                             "remainder |v(p+hd)-v(p)-h g.d| along a random unit-RMS direction must fall at rate 2); "
                             "the run fails below -optimize_constraints_taylor_min_rate",
                             "AdjConstraintsTaylorTest", opt->taylor, &opt->taylor, NULL));
  PetscCall(PetscOptionsReal("-optimize_constraints_taylor_h0",
                             "Constraint Taylor test: first step h along the unit-RMS direction (0: 1e-2 max(1, RMS of "
                             "the design))",
                             "AdjConstraintsTaylorTest", opt->taylor_h0, &opt->taylor_h0, NULL));
  PetscCall(PetscOptionsInt("-optimize_constraints_taylor_levels",
                            "Constraint Taylor test: number of step sizes h, halved each time",
                            "AdjConstraintsTaylorTest", opt->taylor_levels, &opt->taylor_levels, NULL));
  PetscCall(PetscOptionsReal("-optimize_constraints_taylor_min_rate",
                             "Constraint Taylor test: smallest accepted second-order rate", "AdjConstraintsTaylorTest",
                             opt->taylor_min_rate, &opt->taylor_min_rate, NULL));
  PetscOptionsEnd();
  PetscCheck(!opt->taylor || opt->cons.m, opt->comm, PETSC_ERR_USER_INPUT,
             "-optimize_constraints_taylor_test needs constraints to test: give -optimize_constraints (the objective's "
             "own test is -mode gradient -adjoint_taylor_test)");
  PetscCheck(opt->taylor_levels >= 2, opt->comm, PETSC_ERR_USER_INPUT,
             "-optimize_constraints_taylor_levels %" PetscInt_FMT " is invalid: use at least 2 step sizes",
             opt->taylor_levels);
  PetscCall(
      AdjCheckRealOption(opt->comm, "-optimize_constraints_taylor_h0", opt->taylor_h0, ADJ_REAL_NONNEGATIVE, NULL));
  PetscCall(AdjCheckRealOption(opt->comm, "-optimize_constraints_taylor_min_rate", opt->taylor_min_rate,
                               ADJ_REAL_FINITE, NULL));
  PetscCheck(opt->restart_every >= 0, opt->comm, PETSC_ERR_USER_INPUT,
             "-optimize_restart_interval %" PetscInt_FMT " is invalid: use a count of iterations >= 0 (0: on a signal "
             "only)",
             opt->restart_every);
  PetscCheck(opt->test_after >= 0, opt->comm, PETSC_ERR_USER_INPUT,
             "-optimize_interrupt_after_evaluations %" PetscInt_FMT " is invalid: use a count >= 0 (0: never)",
             opt->test_after);
  PetscCheck(opt->test_in >= 0, opt->comm, PETSC_ERR_USER_INPUT,
             "-optimize_interrupt_in_evaluation %" PetscInt_FMT " is invalid: use an evaluation number >= 1 (0: never)",
             opt->test_in);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjOptimizerSetEvaluation(AdjOptimizer opt, AdjOptimizerEvaluation fn, void *ctx)
{
  PetscFunctionBeginUser;
  opt->evalfn  = fn;
  opt->evalctx = ctx;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjOptimizerGetConstraints(AdjOptimizer opt, AdjConstraints *cs)
{
  PetscFunctionBeginUser;
  *cs = opt->cons.set;
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

/* The history of a restart file (none when it was interrupted before iteration 0). */
static PetscErrorCode AdjOptimizerReadHistory(AdjOptimizer opt, const char path[], AdjHistory *h)
{
  PetscInt   n[3];
  PetscReal *it, *J, *gn;
  PetscBool  has;

  PetscFunctionBeginUser;
  PetscCall(AdjInputHasDataset(opt->comm, path, "/optimization/iteration", &has));
  if (!has) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(AdjInputReadArray(opt->comm, path, "/optimization/iteration", &n[0], &it));
  PetscCall(AdjInputReadArray(opt->comm, path, "/optimization/objective", &n[1], &J));
  PetscCall(AdjInputReadArray(opt->comm, path, "/optimization/gradient_norm", &n[2], &gn));
  PetscCheck(n[0] == n[1] && n[1] == n[2], opt->comm, PETSC_ERR_USER_INPUT,
             "-restart %s: /optimization/iteration, objective and gradient_norm have different lengths", path);
  for (PetscInt i = 0; i < n[0]; i++) PetscCall(AdjHistoryAppend(h, it[i], J[i], gn[i]));
  PetscCall(PetscFree(it));
  PetscCall(PetscFree(J));
  PetscCall(PetscFree(gn));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The constraints of the logged evaluations: the restart file of a constrained optimization has them for as
 * many constraints as this run, the file of an unconstrained one has none. Collective. */
static PetscErrorCode AdjOptimizerReadLogConstraints(AdjOptimizer opt, const char path[])
{
  PetscBool  has;
  PetscInt   k, nc, nJ;
  PetscReal *m;

  PetscFunctionBeginUser;
  PetscCall(AdjInputHasDataset(opt->comm, path, "/optimization/evaluation_constraint_count", &has));
  if (has) {
    PetscCall(AdjInputReadArray(opt->comm, path, "/optimization/evaluation_constraint_count", &k, &m));
    k = k == 1 ? (PetscInt)m[0] : -1;
    PetscCall(PetscFree(m));
  } else
    k = 0;
  PetscCheck(k == opt->cons.m, opt->comm, PETSC_ERR_USER_INPUT,
             "-restart %s comes from an optimization with %" PetscInt_FMT " constraints, this run has %" PetscInt_FMT
             ": resume with the options of the interrupted run (-optimize_constraints ...)",
             path, k, opt->cons.m);
  opt->log.m = k;
  if (!k || !opt->log.count) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(AdjInputReadArray(opt->comm, path, "/optimization/evaluation_constraints", &nc, &opt->log.c));
  PetscCall(AdjInputReadArray(opt->comm, path, "/optimization/evaluation_constraint_gradients", &nJ, &opt->log.J));
  PetscCheck(nc == opt->log.count * k && nJ == nc * opt->log.n, opt->comm, PETSC_ERR_USER_INPUT,
             "-restart %s: the evaluation log has %" PetscInt_FMT " constraint values and %" PetscInt_FMT
             " gradient entries for %" PetscInt_FMT " evaluations of %" PetscInt_FMT " constraints",
             path, nc, nJ, opt->log.count, k);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The evaluation log of a restart file into opt->log; false when the file has none or one this run cannot
 * replay (another rank count: warned). Collective. */
static PetscErrorCode AdjOptimizerReadLog(AdjOptimizer opt, const char path[], PetscBool *usable)
{
  PetscBool   has, found;
  PetscInt    ni, nf, nx, ng;
  PetscReal  *info;
  PetscMPIInt size;
  char        type[64];
  TaoType     mytype;

  PetscFunctionBeginUser;
  *usable = PETSC_FALSE;
  PetscCall(AdjInputHasDataset(opt->comm, path, "/optimization/evaluation_info", &has));
  if (!has) {
    PetscCall(PetscPrintf(opt->comm,
                          "optimize: warning: -restart %s holds no evaluation log (written by an older adjsim): the "
                          "optimization resumes at its last iterate but the quasi-Newton memory starts from "
                          "scratch, so the iterates differ from those of an uninterrupted run\n",
                          path));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(AdjInputReadArray(opt->comm, path, "/optimization/evaluation_info", &ni, &info));
  PetscCheck(ni == 4 && info[1] >= 1 && info[2] >= 0 && info[3] >= 0, opt->comm, PETSC_ERR_USER_INPUT,
             "-restart %s: /optimization/evaluation_info must hold 4 numbers (ranks, design size, evaluations, "
             "resumed without a log)",
             path);
  if (info[3] > 0) {
    PetscCall(PetscPrintf(opt->comm,
                          "optimize: warning: -restart %s comes from an optimization that was itself resumed from a "
                          "restart file without evaluation log: it resumes at its last iterate with the quasi-Newton "
                          "memory starting from scratch\n",
                          path));
    PetscCall(PetscFree(info));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(AdjInputReadAttributeString(opt->comm, path, "/optimization", "tao_type", sizeof(type), type, &found));
  PetscCall(TaoGetType(opt->tao, &mytype));
  PetscCheck(found, opt->comm, PETSC_ERR_USER_INPUT, "-restart %s: /optimization has no attribute tao_type", path);
  PetscCheck(!strcmp(type, mytype), opt->comm, PETSC_ERR_USER_INPUT,
             "-restart %s was written by an optimization with -tao_type %s; this run has -tao_type %s: resume with the "
             "same method",
             path, type, mytype);
  PetscCallMPI(MPI_Comm_size(opt->comm, &size));
  if ((PetscMPIInt)info[0] != size) {
    PetscCall(PetscPrintf(opt->comm,
                          "optimize: warning: -restart %s was written on %d ranks, this run has %d: its evaluations "
                          "cannot be replayed bit for bit, so the optimization resumes at its last iterate with the "
                          "quasi-Newton memory starting from scratch (resume on %d ranks to continue exactly)\n",
                          path, (int)info[0], (int)size, (int)info[0]));
    PetscCall(PetscFree(info));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  opt->log.n     = (PetscInt)info[1];
  opt->log.count = (PetscInt)info[2];
  PetscCall(PetscFree(info));
  *usable = PETSC_TRUE;
  if (!opt->log.count) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(AdjInputReadArray(opt->comm, path, "/optimization/evaluation_objective", &nf, &opt->log.f));
  PetscCall(AdjInputReadArray(opt->comm, path, "/optimization/evaluation_design", &nx, &opt->log.x));
  PetscCall(AdjInputReadArray(opt->comm, path, "/optimization/evaluation_gradient", &ng, &opt->log.g));
  PetscCheck(nf == opt->log.count && nx == nf * opt->log.n && ng == nx, opt->comm, PETSC_ERR_USER_INPUT,
             "-restart %s: the evaluation log has %" PetscInt_FMT " objectives, %" PetscInt_FMT
             " design and %" PetscInt_FMT " gradient values; /optimization/evaluation_info announces %" PetscInt_FMT
             " evaluations of %" PetscInt_FMT " parameters",
             path, nf, nx, ng, opt->log.count, opt->log.n);
  opt->log.capacity = opt->log.count;
  PetscCall(AdjOptimizerReadLogConstraints(opt, path));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjOptimizerResume - continue from an optimization restart file. With its evaluation log, Solve starts
    again from the initial design and replays the logged evaluations (see the file comment); without, the
    solver's parameters and the history come from the file and Solve starts at that iterate. Collective. @*/
PetscErrorCode AdjOptimizerResume(AdjOptimizer opt, const char path[])
{
  PetscInt  maxit;
  PetscBool replay;

  PetscFunctionBeginUser;
  PetscCall(PetscStrncpy(opt->restart, path, sizeof(opt->restart)));
  PetscCall(AdjStepperReadParameters(opt->stepper, path));
  PetscCall(AdjOptimizerReadLog(opt, path, &replay));
  opt->resumed = PETSC_TRUE;
  if (replay) {
    PetscCall(AdjOptimizerReadHistory(opt, path, &opt->stored));
    opt->nreplay = opt->log.count;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  opt->legacy = PETSC_TRUE;
  PetscCall(AdjOptimizerReadHistory(opt, path, &opt->history));
  PetscCheck(opt->history.n > 0, opt->comm, PETSC_ERR_USER_INPUT,
             "-restart %s holds no optimization history (is it the restart file of an optimize run?)", path);
  opt->offset = (PetscInt)opt->history.iteration[opt->history.n - 1];
  /* the iteration budget counts from the start of the whole optimization */
  PetscCall(TaoGetMaximumIterations(opt->tao, &maxit));
  PetscCall(TaoSetMaximumIterations(opt->tao, PetscMax(maxit - opt->offset, 0)));
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

/* The constraints' bounds (AdjConstraintsSetUp, at the initial design), their work space, and TAO's constraint
 * routines: vectors of neq and nin entries and dense Jacobians with the design's column layout. Collective. */
static PetscErrorCode AdjOptimizerSetUpConstraints(AdjOptimizer opt, Vec design)
{
  AdjOptConstraints *c = &opt->cons;
  PetscInt           nlocal, N, mlocal;

  PetscFunctionBeginUser;
  if (c->at) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(AdjConstraintsSetUp(c->set, design));
  PetscCall(AdjStepperSetParameters(opt->stepper, design));
  opt->log.m = c->m;
  PetscCall(PetscMalloc1(c->m, &c->value));
  PetscCall(VecDuplicateVecs(design, c->m, &c->grad));
  PetscCall(VecDuplicate(design, &c->at));
  PetscCall(VecGetLocalSize(design, &nlocal));
  PetscCall(VecGetSize(design, &N));
  if (c->neq) {
    PetscCall(VecCreateMPI(opt->comm, PETSC_DECIDE, c->neq, &c->ce));
    PetscCall(VecGetLocalSize(c->ce, &mlocal));
    PetscCall(MatCreateDense(opt->comm, mlocal, nlocal, c->neq, N, NULL, &c->Ae));
    PetscCall(TaoSetEqualityConstraintsRoutine(opt->tao, c->ce, AdjOptimizerEqualityConstraints, opt));
    PetscCall(TaoSetJacobianEqualityRoutine(opt->tao, c->Ae, c->Ae, AdjOptimizerEqualityJacobian, opt));
  }
  if (c->nin) {
    PetscCall(VecCreateMPI(opt->comm, PETSC_DECIDE, c->nin, &c->ci));
    PetscCall(VecGetLocalSize(c->ci, &mlocal));
    PetscCall(MatCreateDense(opt->comm, mlocal, nlocal, c->nin, N, NULL, &c->Ai));
    PetscCall(TaoSetInequalityConstraintsRoutine(opt->tao, c->ci, AdjOptimizerInequalityConstraints, opt));
    PetscCall(TaoSetJacobianInequalityRoutine(opt->tao, c->Ai, c->Ai, AdjOptimizerInequalityJacobian, opt));
  }
  if (!opt->quiet)
    for (PetscInt i = 0; i < c->m; i++) {
      const char        *name;
      AdjConstraintSense sense;
      PetscReal          bound;
      PetscBool          flow;
      PetscCall(AdjConstraintsGetInfo(c->set, i, &name, &sense, &bound, &flow));
      PetscCall(PetscPrintf(opt->comm, "optimize: constraint %-16s %s %.10g  (%s)\n", name,
                            sense == ADJ_CONSTRAINT_EQ ? "=" : (sense == ADJ_CONSTRAINT_GE ? ">=" : "<="),
                            (double)bound, flow ? "flow: its own adjoint solve" : "geometric: analytic gradient"));
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The end of a constrained optimization: each constraint's value and violation at the final design (from the
 * last evaluation there, or evaluated again), and the solves spent on flow constraints. Collective. */
static PetscErrorCode AdjOptimizerReportConstraints(AdjOptimizer opt, Vec design)
{
  PetscBool    same = PETSC_FALSE;
  AdjStepIndex stopped;
  PetscInt     nf, na;

  PetscFunctionBeginUser;
  if (opt->cons.valid) PetscCall(VecEqual(design, opt->cons.at, &same));
  if (!same) {
    PetscCall(AdjConstraintsEvaluate(opt->cons.set, design, opt->cons.value, opt->cons.grad, &stopped));
    PetscCall(AdjOptimizerConstraintsCached(opt, design));
  }
  if (opt->quiet) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt i = 0; i < opt->cons.m; i++) {
    const char        *name;
    AdjConstraintSense sense;
    PetscReal          bound, viol;
    PetscCall(AdjConstraintsGetInfo(opt->cons.set, i, &name, &sense, &bound, NULL));
    PetscCall(AdjOptimizerViolation(opt, i, &viol));
    PetscCall(PetscPrintf(opt->comm, "optimize: final constraint %-16s = %.10g  (%s %.10g)  violation %.3e\n", name,
                          (double)opt->cons.value[i],
                          sense == ADJ_CONSTRAINT_EQ ? "=" : (sense == ADJ_CONSTRAINT_GE ? ">=" : "<="), (double)bound,
                          (double)viol));
  }
  PetscCall(AdjConstraintsGetSolveCount(opt->cons.set, &nf, &na));
  PetscCall(PetscPrintf(opt->comm,
                        "optimize: %" PetscInt_FMT " evaluations of J, %" PetscInt_FMT " forward and %" PetscInt_FMT
                        " adjoint solves more for flow constraints\n",
                        opt->evaluations, nf, na));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -optimize_constraints_taylor_test: every constraint's gradient at the initial design, by the Taylor test of
 * AdjConstraintsTaylorTest; a rate below the minimum stops the run (geometric measures linear in the design have
 * remainders at round-off and no rate: they pass). Leaves the solver at the design. Collective. */
static PetscErrorCode AdjOptimizerTaylorTestConstraints(AdjOptimizer opt, Vec design)
{
  PetscInt nfail = 0;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < opt->cons.m; i++) {
    const char *name;
    PetscReal   rate;
    PetscBool   ok;
    PetscCall(AdjConstraintsGetInfo(opt->cons.set, i, &name, NULL, NULL, NULL));
    PetscCall(AdjConstraintsTaylorTest(opt->cons.set, i, design, opt->taylor_h0, opt->taylor_levels, &rate));
    ok = (PetscBool)(rate >= opt->taylor_min_rate); /* PETSC_MAX_REAL: all remainders at round-off */
    if (!ok) nfail++;
    if (rate == PETSC_MAX_REAL)
      PetscCall(PetscPrintf(opt->comm, "Taylor test of constraint %s: remainders at round-off (linear along d): PASS\n",
                            name));
    else
      PetscCall(PetscPrintf(opt->comm,
                            "Taylor test of constraint %s: smallest second-order rate %.3f (required >= %.2f): %s\n",
                            name, (double)rate, (double)opt->taylor_min_rate, ok ? "PASS" : "FAIL"));
  }
  PetscCheck(!nfail, opt->comm, PETSC_ERR_NOT_CONVERGED,
             "Taylor test of the constraints failed for %" PetscInt_FMT " of %" PetscInt_FMT
             " constraints (-optimize_constraints_taylor_test): their gradients are not those of their values",
             nfail, opt->cons.m);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjOptimizerSolve - minimizes J over the design within the parameter bounds, starting from
    `design`, which holds the optimum on return. A resumed run with an evaluation log starts from the
    logged initial design instead. Collective. @*/
PetscErrorCode AdjOptimizerSolve(AdjOptimizer opt, Vec design, AdjOutput out)
{
  AdjParams          params;
  TaoConvergedReason reason;
  PetscInt           its, n;

  PetscFunctionBeginUser;
  opt->out = out;
  for (PetscInt i = 0; out && i < opt->history.n; i++) /* resumed without a log: the file holds the whole history */
    PetscCall(AdjOutputWriteOptimizationIteration(out, (PetscInt)opt->history.iteration[i], opt->history.objective[i],
                                                  opt->history.gnorm[i], NULL));
  PetscCall(AdjStepperGetParams(opt->stepper, &params));
  PetscCall(VecGetSize(design, &n));
  if (!opt->rows) {
    PetscCall(AdjParamsRowCreate(params, design, &opt->rows));
    PetscCall(PetscMalloc1(n, &opt->xrow));
    PetscCall(VecDuplicate(design, &opt->accepted));
  }
  if (out) PetscCall(AdjOptimizerWriteDesignLayout(opt, params, out));
  if (opt->nreplay) {
    PetscCheck(opt->log.n == n, opt->comm, PETSC_ERR_USER_INPUT,
               "-restart %s: its evaluation log is for %" PetscInt_FMT " parameters, this run has %" PetscInt_FMT
               ": resume with the options of the interrupted run",
               opt->restart, opt->log.n, n);
    PetscCall(AdjParamsRowScatter(opt->rows, opt->log.x, design)); /* the design of the first evaluation */
  }
  opt->log.n = n;
  PetscCall(VecCopy(design, opt->accepted));
  if (!opt->lower) PetscCall(VecDuplicate(design, &opt->lower));
  if (!opt->upper) PetscCall(VecDuplicate(design, &opt->upper));
  PetscCall(AdjParamsGetBounds(params, opt->lower, opt->upper));
  PetscCall(TaoSetVariableBounds(opt->tao, opt->lower, opt->upper));
  if (opt->cons.m) PetscCall(AdjOptimizerSetUpConstraints(opt, design));
  if (opt->taylor && !opt->nreplay) PetscCall(AdjOptimizerTaylorTestConstraints(opt, design));
  PetscCall(TaoSetSolution(opt->tao, design));
  if (opt->interruptible) PetscCall(AdjDriverSetInterruptible(opt->drv, PETSC_TRUE)); /* signals in a sweep */
  PetscCall(TaoSolve(opt->tao));
  PetscCall(AdjDriverSetInterruptible(opt->drv, PETSC_FALSE));
  if (opt->resumed && !opt->legacy && !opt->announced) PetscCall(AdjOptimizerAnnounceResume(opt));
  if (opt->stopping) {
    const char *path;

    PetscCheck(out, opt->comm, PETSC_ERR_ORDER, "An interruptible optimization needs a run file for its restart file");
    PetscCall(AdjOutputGetRestartPath(out, &path));
    PetscCall(AdjOptimizerWriteRestart(opt, opt->accepted, path));
    opt->interrupted_at = opt->history.n ? (PetscInt)opt->history.iteration[opt->history.n - 1] : 0;
    PetscCall(VecCopy(opt->accepted, design));
  }
  PetscCall(TaoGetConvergedReason(opt->tao, &reason));
  PetscCall(TaoGetIterationNumber(opt->tao, &its));
  if (!opt->quiet)
    PetscCall(PetscPrintf(opt->comm,
                          "optimize: %s after %" PetscInt_FMT " iterations, %" PetscInt_FMT " gradient evaluations\n",
                          opt->interrupted_at >= 0 ? "STOPPED_BY_SIGNAL" : TaoConvergedReasons[reason],
                          opt->interrupted_at >= 0 ? opt->interrupted_at : opt->offset + its, opt->evaluations));
  if (opt->cons.m && opt->interrupted_at < 0) PetscCall(AdjOptimizerReportConstraints(opt, design));
  /* why it ended, for campaign tables (postprocess/adjsim_gather_designs.py); a stopped run has no reason yet */
  if (out && opt->interrupted_at < 0)
    PetscCall(AdjOutputSetAttribute(out, "/optimization", "stop_reason", TaoConvergedReasons[reason]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjOptimizerDestroy(AdjOptimizer *opt)
{
  PetscFunctionBeginUser;
  if (!*opt) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(TaoDestroy(&(*opt)->tao));
  PetscCall(AdjParamsRowDestroy(&(*opt)->rows));
  PetscCall(PetscFree((*opt)->xrow));
  PetscCall(VecDestroy(&(*opt)->accepted));
  PetscCall(VecDestroy(&(*opt)->lower));
  PetscCall(VecDestroy(&(*opt)->upper));
  PetscCall(AdjConstraintsDestroy(&(*opt)->cons.set));
  PetscCall(PetscFree((*opt)->cons.value));
  if ((*opt)->cons.grad) PetscCall(VecDestroyVecs((*opt)->cons.m, &(*opt)->cons.grad));
  PetscCall(VecDestroy(&(*opt)->cons.at));
  PetscCall(VecDestroy(&(*opt)->cons.ce));
  PetscCall(VecDestroy(&(*opt)->cons.ci));
  PetscCall(MatDestroy(&(*opt)->cons.Ae));
  PetscCall(MatDestroy(&(*opt)->cons.Ai));
  PetscCall(PetscFree((*opt)->log.c));
  PetscCall(PetscFree((*opt)->log.J));
  PetscCall(AdjHistoryFree(&(*opt)->history));
  PetscCall(AdjHistoryFree(&(*opt)->stored));
  PetscCall(PetscFree((*opt)->log.f));
  PetscCall(PetscFree((*opt)->log.x));
  PetscCall(PetscFree((*opt)->log.g));
  PetscCall(PetscFree(*opt));
  PetscFunctionReturn(PETSC_SUCCESS);
}
