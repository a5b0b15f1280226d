/* adjsim: differentiable physics at cluster scale.
 *   mpiexec -n N adjsim -options_file inputs/<case>.yaml [-option value ...]
 * Modes: forward (a run, fields to HDF5), gradient (discrete adjoint under revolve
 * checkpointing, optional Taylor and finite-difference checks), optimize (TAO). */
#include <adjsim/driver.h>
#include <adjsim/io.h>
#include <adjsim/optim.h>
#include <adjsim/multipoint.h>
#include <adjsim/interrupt.h>
#include <errno.h>
#include <sys/stat.h>
#include <string.h>
#include <ctype.h>

static const char help[] =
    "adjsim: differentiable physics with exact discrete adjoints, revolve checkpointing and HDF5 output.\n"
    "Usage: mpiexec -n N adjsim -options_file inputs/<case>.yaml [-option value ...]\n"
    "Every option below is listed with its default; units in brackets.\n\n";

typedef enum { MODE_FORWARD, MODE_GRADIENT, MODE_OPTIMIZE } AdjMode;
static const char *const AdjModes[] = {"forward", "gradient", "optimize", "AdjMode", "MODE_", NULL};

typedef struct {
  AdjMode   mode;
  PetscBool taylor;
  PetscReal taylor_min_rate, fd_tol;
  PetscInt  fd_components;
} AdjRunOptions;

static PetscErrorCode AdjRunOptionsRead(MPI_Comm comm, AdjRunOptions *ro)
{
  PetscInt mode = MODE_FORWARD;

  PetscFunctionBeginUser;
  ro->taylor_min_rate = 1.9;
  ro->fd_tol          = 1e-6;
  ro->fd_components   = 0;
  ro->taylor          = PETSC_FALSE;
  PetscOptionsBegin(comm, NULL, "adjsim run", "adjsim");
  PetscCall(PetscOptionsEList("-mode", "What to run: forward, gradient (adjoint), optimize (TAO)", "", AdjModes, 3,
                              AdjModes[mode], &mode, NULL));
  PetscCall(
      PetscOptionsBool("-adjoint_taylor_test",
                       "Gradient mode: Taylor test along a random direction (fails below -adjoint_taylor_min_rate)", "",
                       ro->taylor, &ro->taylor, NULL));
  PetscCall(PetscOptionsReal("-adjoint_taylor_min_rate", "Smallest accepted second-order Taylor rate", "",
                             ro->taylor_min_rate, &ro->taylor_min_rate, NULL));
  PetscCall(PetscOptionsInt("-adjoint_fd_check",
                            "Gradient mode: compare this many gradient components with central differences", "",
                            ro->fd_components, &ro->fd_components, NULL));
  PetscCall(PetscOptionsReal("-adjoint_fd_tol", "Largest accepted finite-difference error relative to max|g|", "",
                             ro->fd_tol, &ro->fd_tol, NULL));
  PetscOptionsEnd();
  PetscCheck(ro->fd_components >= 0, comm, PETSC_ERR_USER_INPUT, "-adjoint_fd_check must be >= 0");
  ro->mode = (AdjMode)mode;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A misspelt option must not go unnoticed: every option given but never read stops the run
 * before any work, naming the option. */
static PetscErrorCode AdjCheckUnusedOptions(MPI_Comm comm)
{
  PetscInt n;
  char   **names, **values;

  PetscFunctionBeginUser;
  PetscInt nleft;

  PetscCall(PetscOptionsLeftGet(NULL, &n, &names, &values));
  nleft = n;
  for (PetscInt i = 0; i < n; i++)
    PetscCall(PetscPrintf(
        comm, "adjsim: option -%s%s%s was given but is not used by this run (misspelt, or not for this problem/mode)\n",
        names[i], values[i] ? " " : "", values[i] ? values[i] : ""));
  PetscCall(PetscOptionsLeftRestore(NULL, &n, &names, &values));
  PetscCheck(nleft == 0, comm, PETSC_ERR_USER_INPUT,
             "%" PetscInt_FMT " unused option(s), listed above; see adjsim -help for the valid ones", nleft);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode AdjRunGradient(MPI_Comm comm, const AdjRunOptions *ro, AdjDriver drv, AdjStepper st,
                                     AdjOutput out, Vec p, int *exit_status)
{
  AdjStepIndex  stopped;
  Vec           g;
  PetscReal     J, gnorm;
  AdjCheckpoint ckpt;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(p, &g));
  PetscCall(AdjDriverSetInterruptible(drv, PETSC_TRUE));
  PetscCall(AdjDriverGradient(drv, p, &J, g));
  PetscCall(AdjDriverSetInterruptible(drv, PETSC_FALSE)); /* the checks below run to the end */
  PetscCall(AdjDriverGetInterruptedStep(drv, &stopped));
  if (stopped >= 0) {
    PetscBool   resumable;
    const char *rpath;
    PetscCall(AdjDriverIsGradientResumable(drv, &resumable));
    PetscCall(AdjOutputGetRestartPath(out, &rpath));
    if (resumable)
      PetscCall(PetscPrintf(comm,
                            "adjsim: gradient run stopped by a signal at step %" PetscInt64_FMT
                            "; its state (checkpoints, adjoint, partial gradient) is in %s: continue with -restart %s "
                            "on the same number of ranks with the same options (the job scripts requeue it on exit "
                            "status %d)\n",
                            (PetscInt64)stopped, rpath, rpath, ADJ_EXIT_INTERRUPTED));
    else
      PetscCall(PetscPrintf(comm,
                            "adjsim: gradient run stopped by a signal at step %" PetscInt64_FMT
                            "; this solver's gradient keeps no partial state yet, so run it again: it starts from "
                            "step 0 (the job scripts requeue it on exit status %d)\n",
                            (PetscInt64)stopped, ADJ_EXIT_INTERRUPTED));
    *exit_status = ADJ_EXIT_INTERRUPTED;
    PetscCall(VecDestroy(&g));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VecNorm(g, NORM_2, &gnorm));
  PetscCall(PetscPrintf(comm, "gradient: J = %.16e  |g| = %.10e (design space)\n", (double)J, (double)gnorm));
  PetscCall(AdjDriverGetCheckpoint(drv, &ckpt));
  PetscCall(AdjCheckpointView(ckpt, PETSC_VIEWER_STDOUT_(comm)));
  PetscCall(AdjStepperWriteGradient(st, out));
  PetscCall(AdjOutputSetAttributeReal(out, "/gradients", "objective", J));
  PetscCall(AdjDriverRecordFinalStep(drv, "/gradients"));
  if (ro->taylor) {
    PetscReal rate;
    PetscCall(AdjDriverTaylorTest(drv, p, &rate));
    PetscCall(PetscPrintf(comm, "Taylor test: smallest second-order rate %.3f (required >= %.2f): %s\n", (double)rate,
                          (double)ro->taylor_min_rate, rate >= ro->taylor_min_rate ? "PASS" : "FAIL"));
    PetscCheck(rate >= ro->taylor_min_rate, comm, PETSC_ERR_NOT_CONVERGED, "Taylor test failed: rate %.3f < %.2f",
               (double)rate, (double)ro->taylor_min_rate);
  }
  if (ro->fd_components > 0) {
    PetscReal err;
    PetscCall(AdjDriverFDCheck(drv, p, ro->fd_components, &err));
    PetscCall(PetscPrintf(comm, "Finite-difference check: largest relative error %.3e (accepted <= %.1e): %s\n",
                          (double)err, (double)ro->fd_tol, err <= ro->fd_tol ? "PASS" : "FAIL"));
    PetscCheck(err <= ro->fd_tol, comm, PETSC_ERR_NOT_CONVERGED, "Finite-difference check failed: %.3e > %.1e",
               (double)err, (double)ro->fd_tol);
  }
  PetscCall(VecDestroy(&g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Gradient mode of a multipoint design: J = sum_k w_k J_k and its gradient (every point concurrently), the points'
 * values on stdout and in /optimization/multipoint_* of the run file, and the Taylor test of the sum. */
static PetscErrorCode AdjRunGradientMultipoint(MPI_Comm comm, const AdjRunOptions *ro, AdjDriver drv, AdjMultipoint mp,
                                               Vec p, AdjOutput out, int *exit_status)
{
  Vec          g;
  PetscReal    J, gnorm;
  AdjStepIndex stopped;

  PetscFunctionBeginUser;
  PetscCheck(ro->fd_components == 0, comm, PETSC_ERR_USER_INPUT,
             "-adjoint_fd_check is not available with -design_points: use -adjoint_taylor_test");
  PetscCall(VecDuplicate(p, &g));
  PetscCall(AdjDriverSetInterruptible(drv, PETSC_TRUE)); /* the points follow the master driver */
  PetscCall(AdjMultipointEvaluate(mp, p, &J, g, &stopped));
  PetscCall(AdjDriverSetInterruptible(drv, PETSC_FALSE)); /* the checks below run to the end */
  if (stopped >= 0) {
    PetscCall(PetscPrintf(comm, "adjsim: multipoint gradient stopped by a signal; run it again (exit status %d)\n",
                          ADJ_EXIT_INTERRUPTED));
    *exit_status = ADJ_EXIT_INTERRUPTED;
    PetscCall(VecDestroy(&g));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VecNorm(g, NORM_2, &gnorm));
  PetscCall(AdjMultipointView(mp));
  PetscCall(
      PetscPrintf(comm, "gradient: J = %.16e  |g| = %.10e (design space, multipoint)\n", (double)J, (double)gnorm));
  PetscCall(AdjMultipointWrite(mp, out));
  if (ro->taylor) {
    PetscReal rate;
    PetscCall(AdjMultipointTaylorTest(mp, p, &rate));
    PetscCall(PetscPrintf(comm, "Taylor test: smallest second-order rate %.3f (required >= %.2f): %s\n", (double)rate,
                          (double)ro->taylor_min_rate, rate >= ro->taylor_min_rate ? "PASS" : "FAIL"));
    PetscCheck(rate >= ro->taylor_min_rate, comm, PETSC_ERR_NOT_CONVERGED, "Taylor test failed: rate %.3f < %.2f",
               (double)rate, (double)ro->taylor_min_rate);
  }
  PetscCall(VecDestroy(&g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* After a graceful stop on a signal: where the restart state is, and exit status 85. */
static PetscErrorCode AdjReportInterrupted(MPI_Comm comm, AdjOutput out, const char what[], PetscInt64 at,
                                           int *exit_status)
{
  const char *rpath;

  PetscFunctionBeginUser;
  PetscCall(AdjOutputGetRestartPath(out, &rpath));
  PetscCall(PetscPrintf(comm,
                        "adjsim: stopped by a signal after %s %" PetscInt64_FMT
                        "; restart state in %s; continue with -restart %s\n",
                        what, at, rpath, rpath));
  *exit_status = ADJ_EXIT_INTERRUPTED;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The norm of the gradient projected onto the bounds: components that push the design out of an
 * active bound (x at its lower bound with g > 0, or at its upper bound with g < 0) count as zero, as in
 * TAO's bounded methods, so this is the |g| the optimizer's history shows. */
static PetscErrorCode AdjProjectedGradientNorm(AdjParams params, Vec p, Vec g, PetscReal *pgnorm)
{
  Vec                lower, upper, pg;
  const PetscScalar *x, *lo, *hi;
  PetscScalar       *v;
  PetscInt           n;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(p, &lower));
  PetscCall(VecDuplicate(p, &upper));
  PetscCall(VecDuplicate(g, &pg));
  PetscCall(AdjParamsGetBounds(params, lower, upper));
  PetscCall(VecCopy(g, pg));
  PetscCall(VecGetLocalSize(p, &n));
  PetscCall(VecGetArrayRead(p, &x));
  PetscCall(VecGetArrayRead(lower, &lo));
  PetscCall(VecGetArrayRead(upper, &hi));
  PetscCall(VecGetArray(pg, &v));
  for (PetscInt i = 0; i < n; i++)
    if ((x[i] <= lo[i] && v[i] > 0) || (x[i] >= hi[i] && v[i] < 0)) v[i] = 0;
  PetscCall(VecRestoreArray(pg, &v));
  PetscCall(VecRestoreArrayRead(upper, &hi));
  PetscCall(VecRestoreArrayRead(lower, &lo));
  PetscCall(VecRestoreArrayRead(p, &x));
  PetscCall(VecNorm(pg, NORM_2, pgnorm));
  PetscCall(VecDestroy(&pg));
  PetscCall(VecDestroy(&upper));
  PetscCall(VecDestroy(&lower));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Optimization; with -restart it resumes from an optimization restart file, and on SIGUSR1 or
 * SIGTERM it stops after the current iteration with a restart file (exit status 85). */
static PetscErrorCode AdjRunOptimize(MPI_Comm comm, AdjDriver drv, AdjOptimizer opt, AdjStepper st, AdjMultipoint mp,
                                     AdjOutput out, Vec p, int *exit_status)
{
  PetscReal   J, gnorm, pgnorm;
  AdjParams   params;
  Vec         g;
  const char *restart;
  PetscInt    stopped;

  PetscFunctionBeginUser;
  PetscCall(AdjStepperGetParams(st, &params));
  PetscCall(AdjDriverGetRestart(drv, &restart));
  if (restart[0]) {
    PetscCall(AdjOptimizerResume(opt, restart));
    PetscCall(AdjStepperGetParameters(st, p));
    PetscCall(AdjDriverSetRestart(drv, NULL)); /* the forward run at the optimum starts from step 0 */
  }
  PetscCall(AdjOptimizerSetInterruptible(opt, PETSC_TRUE));
  PetscCall(AdjOptimizerSolve(opt, p, out));
  PetscCall(AdjOptimizerGetInterruptedIteration(opt, &stopped));
  if (stopped >= 0) {
    PetscCall(AdjReportInterrupted(comm, out, "iteration", stopped, exit_status));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VecDuplicate(p, &g));
  if (mp) { /* the points at the optimum (no fields: each point's forward run is a single-point run of its options) */
    AdjStepIndex stopped_at;
    PetscCall(AdjDriverSetInterruptible(drv, PETSC_TRUE)); /* the points follow the master driver */
    PetscCall(AdjMultipointEvaluate(mp, p, &J, g, &stopped_at));
    PetscCall(AdjDriverSetInterruptible(drv, PETSC_FALSE));
    if (stopped_at >= 0) { /* a signal during the final evaluation: no values to report */
      PetscCall(VecDestroy(&g));
      PetscCall(AdjReportInterrupted(comm, out, "step", (PetscInt64)stopped_at, exit_status));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall(VecNorm(g, NORM_2, &gnorm));
    PetscCall(AdjProjectedGradientNorm(params, p, g, &pgnorm));
    PetscCall(AdjMultipointView(mp));
    PetscCall(AdjMultipointWrite(mp, out));
    PetscCall(PetscPrintf(comm,
                          "optimize: final J = %.16e  |g| = %.4e projected on the bounds (as in the history), %.4e "
                          "in full (design space; multipoint)\n",
                          (double)J, (double)pgnorm, (double)gnorm));
    PetscCall(VecDestroy(&g));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* Leave the model at the optimum: the gradient there, and a forward run with fields. */
  PetscCall(AdjDriverGradient(drv, p, &J, g));
  PetscCall(VecNorm(g, NORM_2, &gnorm));
  PetscCall(AdjProjectedGradientNorm(params, p, g, &pgnorm));
  PetscCall(AdjStepperWriteGradient(st, out));
  PetscCall(AdjOutputSetAttributeReal(out, "/gradients", "objective", J));
  PetscCall(AdjDriverForward(drv, p, PETSC_TRUE, &J));
  PetscCall(PetscPrintf(comm,
                        "optimize: final J = %.16e  |g| = %.4e projected on the bounds (as in the history), %.4e "
                        "in full (design space)\n",
                        (double)J, (double)pgnorm, (double)gnorm));
  PetscCall(VecDestroy(&g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A gradient or optimization needs an adjoint, active parameters and an objective. */
static PetscErrorCode AdjCheckAdjointRun(MPI_Comm comm, const AdjRunOptions *ro, AdjStepper st, AdjDriver drv)
{
  PetscBool      has;
  const char    *restart;
  PetscInt       nactive;
  AdjParams      params;
  AdjStepperType type;
  PetscReal      steady_tol;
  PetscBool      steady_adjoint;

  PetscFunctionBeginUser;
  PetscCall(AdjStepperGetType(st, &type));
  PetscCall(AdjStepperGetParams(st, &params));
  PetscCall(AdjStepperHasAdjoint(st, &has));
  PetscCheck(has, comm, PETSC_ERR_USER_INPUT, "-problem %s has no adjoint yet: use -mode forward", type);
  PetscCall(AdjParamsGetNumActive(params, &nactive));
  PetscCheck(nactive > 0, comm, PETSC_ERR_USER_INPUT,
             "-mode %s needs parameters to differentiate, but -adjoint_params selects none", AdjModes[ro->mode]);
  PetscCall(AdjDriverGetSteadyTol(drv, &steady_tol));
  PetscCall(AdjDriverGetSteadyAdjoint(drv, &steady_adjoint)); /* J at the steady state: smooth in the design */
  PetscCall(AdjDriverCheckSteadyGradient(drv));
  PetscCheck(steady_tol == 0 || steady_adjoint || ro->mode != MODE_OPTIMIZE, comm, PETSC_ERR_USER_INPUT,
             "-steady_tol %g cannot be used with -mode optimize: the run length would change with the design, so J "
             "jumps between iterates and the line search compares runs of different lengths; run the optimization "
             "with a fixed -<physics>_steps (e.g. the final step a -mode gradient run with -steady_tol reports), or "
             "optimize the "
             "steady state with -adjoint_steady",
             (double)steady_tol);
  PetscCall(AdjDriverGetRestart(drv, &restart));
  if (ro->mode == MODE_GRADIENT) PetscCall(AdjDriverSetGradientResumable(drv, PETSC_TRUE));
  PetscCall(AdjDriverIsGradientResumable(drv, &has));
  PetscCheck(!restart[0] || ro->mode == MODE_OPTIMIZE || has, comm, PETSC_ERR_USER_INPUT,
             "-restart %s: -problem %s cannot continue a stopped gradient run yet (its solver does not declare its "
             "gradient accumulators); run the gradient again from the start",
             restart, type);
  PetscCall(AdjStepperHasObjective(st, &has));
  PetscCheck(
      has, comm, PETSC_ERR_USER_INPUT,
      "-mode %s needs an objective, but -problem %s has no objective term: for transport give observations "
      "(-transport_obs_file) or a final-time target (-transport_target_file); for fluid a weight "
      "-fluid_objective_kinetic_energy, _enstrophy, _drag, _lift, _lift_to_drag or observations -fluid_obs_file; for "
      "airfoil a weight -airfoil_objective_drag, _lift or _moment",
      AdjModes[ro->mode], type);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Before any work: the files this run writes must not be its inputs (options files, and every file an option
 * names) nor each other, so that no mistake in a deck can destroy a file (see src/io/files.c). */
static PetscErrorCode AdjCheckRunFiles(MPI_Comm comm, const AdjRunOptions *ro, AdjDriver drv, AdjOutput out, int nfiles,
                                       char *files[])
{
  AdjIOFileUse  targets[ADJ_OUTPUT_FILE_USES + 1], inputs[16];
  PetscInt      nt;
  AdjCheckpoint ckpt;
  const char   *disk;
  PetscBool     used;

  PetscFunctionBeginUser;
  PetscCall(AdjOutputGetFileUses(out, &nt, targets));
  PetscCall(AdjDriverGetCheckpoint(drv, &ckpt));
  PetscCall(AdjCheckpointGetDiskFile(ckpt, &disk, &used));
  used = (PetscBool)(used && ro->mode != MODE_FORWARD);
  if (used) targets[nt++] = (AdjIOFileUse){disk, "-checkpoint_disk_file", NULL};
  for (int f = 0; f < nfiles && f < 16; f++) inputs[f] = (AdjIOFileUse){files[f], "-options_file", NULL};
  PetscCall(AdjIOCheckFileUses(comm, nt, targets, PetscMin(nfiles, 16), inputs));
  if (used) PetscCall(AdjIOCheckScratchFile(comm, disk, "-checkpoint_disk_file", "checkpoints"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode AdjsimMain(int nfiles, char *files[], int *exit_status)
{
  MPI_Comm         comm = PETSC_COMM_WORLD;
  AdjRunOptions    ro;
  AdjStepper       st;
  AdjParams        params;
  AdjDriver        drv;
  AdjOutput        out;
  AdjOptimizer     opt;
  AdjMultipoint    mp = NULL;
  Vec              p;
  DM               da;
  const PetscReal *lower, *upper;
  PetscBool        help;
  PetscReal        J;
  PetscLogDouble   t0, t1;

  PetscFunctionBeginUser;
  *exit_status = 0;
  PetscCall(PetscTime(&t0));
  PetscCall(AdjRunOptionsRead(comm, &ro));
  PetscCall(AdjStepperCreate(comm, &st));
  PetscCall(AdjStepperSetFromOptions(st));
  PetscCall(AdjStepperSetUp(st));
  PetscCall(AdjStepperGetParams(st, &params));
  PetscCall(AdjDriverCreate(st, &drv));
  PetscCall(AdjDriverSetFromOptions(drv));
  PetscCall(AdjOutputCreate(comm, &out));
  PetscCall(AdjOutputSetFromOptions(out));
  PetscCall(AdjMultipointCreate(drv, &mp));
  PetscCheck(!mp || ro.mode != MODE_FORWARD, comm, PETSC_ERR_USER_INPUT,
             "-design_points is for -mode gradient and optimize: run each operating point's forward run on its own");
  PetscCall(AdjOptimizerCreate(drv, &opt));
  if (mp) PetscCall(AdjMultipointAttach(mp, opt));
  PetscCall(AdjOptimizerSetFromOptions(opt));
  if (ro.mode != MODE_FORWARD) PetscCall(AdjCheckAdjointRun(comm, &ro, st, drv));
  PetscCall(AdjDriverCheckSteadySupported(drv));
  PetscCall(PetscOptionsHasHelp(NULL, &help));
  if (!help) PetscCall(AdjCheckUnusedOptions(comm));
  if (!help) {
    PetscCall(AdjStepperGetGrid(st, &da, &lower, &upper));
    PetscCall(AdjOutputSetGrid(out, da, lower, upper, "m"));
    PetscCall(AdjDriverSetOutput(drv, out));
    PetscCall(AdjCheckRunFiles(comm, &ro, drv, out, nfiles, files));
    PetscCall(AdjOutputOpen(out));
    PetscCall(AdjParamsCreateVector(params, &p));
    PetscCall(AdjStepperGetParameters(st, p));
    if (ro.mode == MODE_FORWARD) {
      AdjStepIndex stopped;
      PetscCall(AdjDriverSetInterruptible(drv, PETSC_TRUE));
      PetscCall(AdjDriverForward(drv, p, PETSC_TRUE, &J));
      PetscCall(AdjDriverGetInterruptedStep(drv, &stopped));
      if (stopped >= 0) {
        PetscCall(AdjReportInterrupted(comm, out, "step", (PetscInt64)stopped, exit_status));
      } else
        PetscCall(PetscPrintf(comm, "forward: J = %.16e\n", (double)J));
    } else if (ro.mode == MODE_GRADIENT && mp)
      PetscCall(AdjRunGradientMultipoint(comm, &ro, drv, mp, p, out, exit_status));
    else if (ro.mode == MODE_GRADIENT)
      PetscCall(AdjRunGradient(comm, &ro, drv, st, out, p, exit_status));
    else
      PetscCall(AdjRunOptimize(comm, drv, opt, st, mp, out, p, exit_status));
    PetscCall(AdjStepperWriteParameters(st, out));
    if (*exit_status == 0) PetscCall(AdjOutputClose(out)); /* an interrupted run's file stays .partial */
    PetscCall(VecDestroy(&p));
    PetscCall(PetscTime(&t1));
    PetscCall(PetscPrintf(comm, "adjsim: %s run %s in %.2f s\n", AdjModes[ro.mode],
                          *exit_status ? "interrupted" : "done", t1 - t0));
  }
  PetscCall(AdjOptimizerDestroy(&opt));
  PetscCall(AdjMultipointDestroy(&mp));
  PetscCall(AdjOutputDestroy(&out));
  PetscCall(AdjDriverDestroy(&drv));
  PetscCall(AdjStepperDestroy(&st));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* User mistakes (wrong option, unreadable file, unstable time step) get one line naming the
 * problem, printed once per communicator; anything else gets PETSc's full traceback. */
static PetscBool adj_error_collective = PETSC_FALSE; /* the first error was raised on every rank */

/* s with every run of blanks made one space and none at the ends (in place). */
static void AdjSquashBlanks(char s[])
{
  char *w = s;

  for (const char *r = s; *r; r++)
    if (*r != ' ' && *r != '\t')
      *w++ = *r;
    else if (w > s && w[-1] != ' ')
      *w++ = ' ';
  if (w > s && w[-1] == ' ') w--;
  *w = 0;
}

/* Whether the value (blanks squashed) is bad or holds it as one entry: after its start, a comma or a space,
 * and before its end, a comma or a space (or anything, with prefix: a value PETSc's message cut short). */
static PetscBool AdjValueHolds(const char value[], const char bad[], PetscBool prefix)
{
  const size_t nb = strlen(bad);

  if (!nb) return PETSC_FALSE;
  for (const char *c = value; (c = strstr(c, bad)); c++)
    if ((c == value || c[-1] == ',' || c[-1] == ' ') && (prefix || c[nb] == 0 || c[nb] == ',' || c[nb] == ' '))
      return PETSC_TRUE;
  return PETSC_FALSE;
}

/* Appends "-name value" (or the name only) to found, joined by " or ", if the option's value holds bad. */
static void AdjNoteOptionWithValue(const char name[], char value[], const char bad[], PetscBool only_used,
                                   PetscBool prefix, char found[], size_t len)
{
  PetscBool used = PETSC_FALSE;

  AdjSquashBlanks(value);
  if (!name || !AdjValueHolds(value, bad, prefix)) return;
  if (only_used && (PetscOptionsUsed(NULL, name + 1, &used) || !used)) return;
  if (strlen(found) + strlen(name) + (prefix ? 0 : strlen(value)) + 6 >= len) return;
  if (found[0]) strcat(found, " or ");
  strcat(found, name);
  if (!prefix) { /* a long value: the name only */
    strcat(found, " ");
    strcat(found, value);
  }
}

/* The options whose value is `bad` or holds it as one comma-separated entry (an array option), as
 * "-name value" joined by " or ", optionally only those already read, from the options database
 * (PetscOptionsGetAll: "-name value -name -name value ..."; a value may hold blanks, as a deck's "1,2, 3,4" or
 * text where a number belongs: its words up to the next name are joined, and blanks are compared squashed).
 * Plain C: it runs inside the error handler. */
static void AdjFindOptionsWithValue(const char bad[], PetscBool only_used, PetscBool prefix, char found[], size_t len)
{
  char *all = NULL, *name = NULL, value[1024] = "", want[256];

  found[0] = 0;
  snprintf(want, sizeof(want), "%s", bad);
  AdjSquashBlanks(want);
  if (PetscOptionsGetAll(NULL, &all) || !all) return;
  for (char *tok = all, *next; *tok; tok = next) {
    while (*tok == ' ') tok++;
    if (!*tok) break;
    for (next = tok; *next && *next != ' '; next++) {
    }
    if (*next) *next++ = 0;
    if (tok[0] == '-' && isalpha((unsigned char)tok[1])) { /* a name: -1, -.5 and --1 are values */
      AdjNoteOptionWithValue(name, value, want, only_used, prefix, found, len);
      name     = tok;
      value[0] = 0;
    } else { /* as much of the value as fits: a value cut short is matched by its start (prefix) */
      const size_t used = strlen(value);
      if (used + 2 < sizeof(value)) snprintf(value + used, sizeof(value) - used, "%s%s", used ? " " : "", tok);
    }
  }
  AdjNoteOptionWithValue(name, value, want, only_used, prefix, found, len);
  PetscFree(all);
}

/* PETSc's message for letters where an option needs a number or a truth value ("Input string abc has
 * no numeric value", "Unknown logical value: maybe") names the value but not the option.  This gives
 * the line "-fluid_re abc is not a number" instead, the option found by its value in the options
 * database, or returns 0 when the message is not one of those.  Covers every numeric and logical
 * option of every solver, read through any PetscOptions* call, from a deck or the command line. */
static int AdjOptionValueMessage(const char func[], const char mess[], char line[], size_t len)
{
  const char *what = NULL, *start = NULL, *end = NULL;
  char        bad[256], found[768];
  size_t      n;

  if (!func || !mess || strncmp(func, "PetscOptionsStringTo", 20)) return 0;
  if ((start = strstr(mess, "Input string ")) && !strstr(start, " has no ")) {
    /* PETSc cut its message inside a very long value (found by tests/fuzz/fuzz_inputs.py): name the option whose
       value starts with the part shown */
    start += strlen("Input string ");
    n = PetscMin(strlen(start), (size_t)200);
    memcpy(bad, start, n);
    bad[n] = 0;
    AdjFindOptionsWithValue(bad, PETSC_TRUE, PETSC_TRUE, found, sizeof(found));
    if (!found[0]) AdjFindOptionsWithValue(bad, PETSC_FALSE, PETSC_TRUE, found, sizeof(found));
    snprintf(line, len, "%s%s value %.40s... (too long to show) is not a number", found[0] ? found : "an option's",
             found[0] ? ":" : "", bad);
    return 1;
  }
  if ((start = strstr(mess, "Input string ")) && (end = strstr(start, " has no "))) {
    start += strlen("Input string ");
    what = strstr(end, "integer") ? "is not an integer" : "is not a number";
  } else if ((start = strstr(mess, "Unknown logical value: "))) {
    start += strlen("Unknown logical value: ");
    end  = start + strlen(start);
    what = "is not a truth value (true/false, yes/no, 1/0)";
  } else
    return 0;
  while (end > start && (end[-1] == ' ' || end[-1] == '\n')) end--;
  n = PetscMin((size_t)(end - start), sizeof(bad) - 1);
  memcpy(bad, start, n);
  bad[n] = 0;
  AdjSquashBlanks(bad);
  AdjFindOptionsWithValue(bad, PETSC_TRUE, PETSC_FALSE, found,
                          sizeof(found)); /* the option being read is marked used */
  if (!found[0]) AdjFindOptionsWithValue(bad, PETSC_FALSE, PETSC_FALSE, found, sizeof(found));
  if (!found[0])
    snprintf(line, len, "an option's value %s %s", bad, what);
  else if (strchr(found, ',') || strstr(found, " or "))
    snprintf(line, len, "%s: %s %s", found, bad, what);
  else
    snprintf(line, len, "%s %s", found, what);
  return 1;
}

static PetscErrorCode AdjErrorHandler(MPI_Comm comm, int line, const char *func, const char *file, PetscErrorCode n,
                                      PetscErrorType p, const char *mess, void *ctx)
{
  PetscMPIInt rank = 0, size = 1, wsize = 1;

  if (p == PETSC_ERROR_INITIAL) {
    char line[1280];

    MPI_Comm_size(comm, &size);
    MPI_Comm_size(PETSC_COMM_WORLD, &wsize);
    adj_error_collective = (PetscBool)(size == wsize);
    /* raised on PETSC_COMM_SELF, but every rank holds the same options and reads them in the same
       order, so every rank stops here: one line from rank 0, a clean exit on every rank */
    if (AdjOptionValueMessage(func, mess, line, sizeof(line))) {
      adj_error_collective = PETSC_TRUE;
      MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
      if (!rank) {
        fprintf(stderr, "adjsim: error: %s\n", line);
        fflush(stderr);
      }
      return PETSC_ERR_USER_INPUT;
    }
  }

  if (n != PETSC_ERR_USER_INPUT && n != PETSC_ERR_USER && n != PETSC_ERR_FILE_OPEN && n != PETSC_ERR_FILE_READ &&
      n != PETSC_ERR_FILE_UNEXPECTED && n != PETSC_ERR_FP && n != PETSC_ERR_NOT_CONVERGED)
    return PetscTraceBackErrorHandler(comm, line, func, file, n, p, mess, ctx);
  if (p != PETSC_ERROR_INITIAL) return n;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (rank == 0) {
    if (size == 1 && comm != PETSC_COMM_WORLD) {
      PetscMPIInt wrank;
      MPI_Comm_rank(PETSC_COMM_WORLD, &wrank);
      fprintf(stderr, "adjsim: error (rank %d): %s\n", wrank, mess ? mess : "");
    } else
      fprintf(stderr, "adjsim: error: %s\n", mess ? mess : "");
    fflush(stderr);
  }
  return n;
}

/* Takes every "-options_file F" out of argv, so that adjsim reads the files itself and can name
 * a missing or malformed file in one clear message. */
static void AdjTakeOptionsFiles(int *argc, char **argv, char *files[], int *nfiles, int maxfiles)
{
  int kept = 1;

  *nfiles = 0;
  for (int i = 1; i < *argc; i++) {
    if (!strcmp(argv[i], "-options_file") && i + 1 < *argc && *nfiles < maxfiles)
      files[(*nfiles)++] = argv[++i];
    else
      argv[kept++] = argv[i];
  }
  *argc      = kept;
  argv[kept] = NULL;
}

/* An options file must be a readable regular file.  Rank 0 looks and every rank learns the verdict,
 * so that no rank waits in PETSc's broadcast of a file that rank 0 cannot parse (a directory opens
 * with fopen but cannot be read). */
static PetscErrorCode AdjCheckOptionsFile(const char path[])
{
  char        reason[256] = "";
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  if (!rank) {
    struct stat st;
    FILE       *fp = NULL;
    if (stat(path, &st))
      snprintf(reason, sizeof(reason), "%s", strerror(errno));
    else if (!S_ISREG(st.st_mode))
      snprintf(reason, sizeof(reason), "it is %s, not a file",
               S_ISDIR(st.st_mode) ? "a directory" : "not a regular file");
    else if (!(fp = fopen(path, "r")))
      snprintf(reason, sizeof(reason), "%s", strerror(errno));
    if (fp) fclose(fp);
  }
  PetscCallMPI(MPI_Bcast(reason, sizeof(reason), MPI_CHAR, 0, PETSC_COMM_WORLD));
  PetscCheck(!reason[0], PETSC_COMM_WORLD, PETSC_ERR_FILE_OPEN, "Cannot read options file %s (-options_file): %s", path,
             reason);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Duplicate keys in a YAML deck: YAML parsers keep the last one silently, so a deck that sets
 * transport: kappa twice runs with whichever came last.  A small line scanner for the block style of
 * the decks (nesting by indentation, comments, quoted keys), plain C so rank 0 always reaches the
 * broadcast: a key is the text before the first ': ' (or a final ':') outside quotes; its parent is
 * the key that opened its indentation level.  Lines it does not understand (list items, flow
 * collections, block scalars, continuation lines) are skipped: PETSc's parser judges those. */
typedef struct {
  char key[128];
  int  parent, line; /* parent: index of the key that opened this key's level, -1 at the top */
} AdjYAMLKey;

/* The key of one line (comment removed) into key[], or 0 when the line holds no key. */
static int AdjYAMLLineKey(char *text, char key[], size_t len, int *opens_block, int *empty)
{
  char   quote = 0, *colon = NULL;
  char  *k = text;
  size_t n;

  for (char *c = text; *c && !colon; c++) {
    if (quote) {
      if (*c == quote) quote = 0;
    } else if (*c == '"' || *c == '\'')
      quote = *c;
    else if (*c == '#' && (c == text || c[-1] == ' ' || c[-1] == '\t')) {
      *c = 0;
      break;
    } else if (*c == ':' && (c[1] == 0 || c[1] == ' ' || c[1] == '\t' || c[1] == '\n' || c[1] == '\r'))
      colon = c;
  }
  if (!colon || text[0] == '-' || text[0] == '[' || text[0] == '{') return 0;
  { /* a block scalar (| or >) follows: its more indented lines are text, not keys */
    const char *v = colon + 1;
    while (*v == ' ' || *v == '\t') v++;
    *opens_block = (*v == '|' || *v == '>');
    *empty       = (*v == 0 || *v == '\n' || *v == '\r' || *v == '#');
  }
  while (colon > k && (colon[-1] == ' ' || colon[-1] == '\t')) colon--;
  if ((*k == '"' || *k == '\'') && colon - k >= 2 && colon[-1] == *k) k++, colon--;
  n = PetscMin((size_t)(colon - k), len - 1);
  memcpy(key, k, n);
  key[n] = 0;
  return n > 0;
}

/* The option a key stands for: its path joined by '_' (transport, kappa -> -transport_kappa). */
static void AdjYAMLKeyOption(const AdjYAMLKey *keys, int i, char opt[], size_t len)
{
  char tail[256];

  opt[0] = 0;
  for (; i >= 0; i = keys[i].parent) {
    snprintf(tail, sizeof(tail), "%s%s%s", keys[i].key, opt[0] ? "_" : "", opt);
    snprintf(opt, len, "%s", tail);
  }
}

/* Rank 0's scan: a message naming the file, the key and both lines, or the key left without a value (a line
 * "kappa:" with no keys under it: PETSc would set -transport_kappa without a value and use the default
 * silently), or "" when neither. */
static void AdjYAMLFindDuplicate(const char path[], char msg[], size_t len)
{
  enum { MAXKEYS = 4096, MAXDEPTH = 64 };
  static AdjYAMLKey keys[MAXKEYS];
  int               nkeys = 0, depth = 0, indent_of[MAXDEPTH], parent_of[MAXDEPTH], lineno = 0, last = -1;
  int               block       = -1; /* indentation of the key owning a block scalar, or -1 */
  int               bare        = -1; /* the last key without a value (a section, or a leaf left empty), or -1 */
  int               bare_indent = 0;
  char              buf[4096];
  FILE             *fp = fopen(path, "r");

  msg[0] = 0;
  if (!fp) return; /* AdjCheckOptionsFile has reported it */
  indent_of[0] = 0, parent_of[0] = -1;
  while (fgets(buf, sizeof(buf), fp) && !msg[0]) {
    int  indent = 0, opens_block = 0, empty = 0;
    char key[128];

    lineno++;
    while (buf[indent] == ' ') indent++;
    if (buf[indent] == 0 || buf[indent] == '\n' || buf[indent] == '\r' || buf[indent] == '#') continue;
    if (block >= 0 && indent > block) continue;
    block = -1;
    if (bare >= 0 && !(indent > bare_indent || (indent == bare_indent && buf[indent] == '-'))) break; /* empty leaf */
    bare = -1;
    if (!strncmp(buf, "---", 3) || !strncmp(buf, "...", 3)) { /* a new document: keys start over */
      nkeys = 0, depth = 0, last = -1;
      continue;
    }
    if (!AdjYAMLLineKey(buf + indent, key, sizeof(key), &opens_block, &empty)) continue;
    while (depth > 0 && indent < indent_of[depth]) depth--;
    if (indent > indent_of[depth] && depth + 1 < MAXDEPTH) {
      depth++;
      indent_of[depth] = indent, parent_of[depth] = last;
    }
    for (int i = 0; i < nkeys; i++)
      if (keys[i].parent == parent_of[depth] && !strcmp(keys[i].key, key)) {
        char opt[256];
        AdjYAMLKeyOption(keys, i, opt, sizeof(opt));
        snprintf(msg, len,
                 "Options file %s: key %s (-%s) is given twice, on lines %d and %d (YAML would keep only the last); "
                 "remove one",
                 path, key, opt, keys[i].line, lineno);
        break;
      }
    if (nkeys == MAXKEYS) break;
    snprintf(keys[nkeys].key, sizeof(keys[nkeys].key), "%s", key);
    keys[nkeys].parent = parent_of[depth], keys[nkeys].line = lineno;
    last = nkeys++;
    if (opens_block) block = indent;
    if (empty) bare = last, bare_indent = indent;
  }
  if (bare >= 0 && !msg[0]) { /* PETSc would set the option without a value: a silent default */
    char opt[256];
    AdjYAMLKeyOption(keys, bare, opt, sizeof(opt));
    snprintf(msg, len,
             "Options file %s: key %s (-%s) on line %d has no value, and no keys under it; PETSc would use the "
             "default silently. Give a value or remove the line",
             path, keys[bare].key, opt, keys[bare].line);
  }
  fclose(fp);
}

/* A YAML deck (.yaml, .yml, as PETSc decides) must not repeat a key nor leave one without a value.  Rank 0
 * scans, every rank learns the verdict. */
static PetscErrorCode AdjCheckYAMLDuplicates(const char path[])
{
  char        msg[1024] = "";
  size_t      n         = strlen(path);
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  if (!((n > 5 && !strcmp(path + n - 5, ".yaml")) || (n > 4 && !strcmp(path + n - 4, ".yml"))))
    PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  if (!rank) AdjYAMLFindDuplicate(path, msg, sizeof(msg));
  PetscCallMPI(MPI_Bcast(msg, sizeof(msg), MPI_CHAR, 0, PETSC_COMM_WORLD));
  PetscCheck(!msg[0], PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "%s", msg);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether a command-line word is an option's value: anything but "-name" (a word starting with "-" and a digit
 * or a point is a negative number or a list of numbers, e.g. -0.1,0.1, as PETSc reads it). */
static PetscBool AdjIsOptionValue(const char *word)
{
  if (!word) return PETSC_FALSE;
  return (PetscBool)(word[0] != '-' || isdigit((unsigned char)word[1]) || word[1] == '.');
}

/* An option given on the command line without a value replaces the deck's value by none: PETSc then
 * reads a number or a name as not set and silently uses the default.  That is refused unless the
 * deck's value is a boolean word (a bare flag means true there).  Collective (every rank holds the
 * same options and arguments). */
static PetscErrorCode AdjCheckBareOptions(int argc, char **argv)
{
  PetscFunctionBeginUser;
  for (int i = 1; i < argc; i++) {
    char      deck[256];
    PetscBool set, isbool = PETSC_FALSE;

    if (argv[i][0] != '-' || AdjIsOptionValue(argv[i]) || AdjIsOptionValue(i + 1 < argc ? argv[i + 1] : NULL)) continue;
    PetscCall(PetscOptionsGetString(NULL, NULL, argv[i], deck, sizeof(deck), &set));
    if (!set || !deck[0]) continue;
    for (const char *const *w = (const char *const[]){"true", "false", "yes", "no", "on", "off", "0", "1", NULL}; *w;
         w++) {
      PetscBool same;
      PetscCall(PetscStrcasecmp(deck, *w, &same));
      isbool = (PetscBool)(isbool || same);
    }
    PetscCheck(isbool, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT,
               "%s is given on the command line without a value; it would drop the options file's value %s "
               "and use the default. Give the value: %s <value>",
               argv[i], deck, argv[i]);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Options files first, then the command line again on top (command line wins, as usual). */
static PetscErrorCode AdjInsertOptionsFiles(int nfiles, char *files[], int *argc, char ***argv)
{
  PetscBool logview;

  PetscFunctionBeginUser;
  for (int f = 0; f < nfiles; f++) {
    PetscErrorCode ierr;
    PetscCall(AdjCheckOptionsFile(files[f]));
    PetscCall(AdjCheckYAMLDuplicates(files[f]));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = PetscOptionsInsertFile(PETSC_COMM_WORLD, NULL, files[f], PETSC_TRUE);
    PetscCall(PetscPopErrorHandler());
    PetscCheck(!ierr, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT,
               "Cannot parse options file %s (-options_file): not valid YAML (.yaml/.yml) or PETSc option syntax",
               files[f]);
  }
  PetscCall(AdjCheckBareOptions(*argc, *argv));
  PetscCall(PetscOptionsInsert(NULL, argc, argv, NULL));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-log_view", &logview));
  if (logview) PetscCall(PetscLogDefaultBegin());
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscErrorCode ierr;
  char          *files[16];
  int            nfiles, status = 0;

  if (AdjSetCommandLine(argc, argv)) return 1;
  AdjTakeOptionsFiles(&argc, argv, files, &nfiles, 16);
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscPushErrorHandler(AdjErrorHandler, NULL));
  ierr = AdjInsertOptionsFiles(nfiles, files, &argc, &argv);
  if (!ierr) ierr = AdjsimMain(nfiles, files, &status);
  /* A user error raised on every rank ends the run cleanly with a nonzero status; any other
   * error aborts all ranks, so no run hangs.  Files being written keep their .partial names. */
  if (ierr && adj_error_collective) {
    PetscCall(PetscPopErrorHandler());
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    (void)PetscFinalize();
    return (int)ierr;
  }
  if (ierr) PETSCABORT(PETSC_COMM_WORLD, ierr);
  PetscCall(PetscFinalize());
  return status;
}
