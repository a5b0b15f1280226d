/* AdjMultipoint: multipoint design on sub-communicators (include/adjsim/multipoint.h, docs/multipoint.md).
 *
 * Data flow of one evaluation at design p (design layout of the master solver, whole communicator):
 *   p -> its row in block order on every rank (the layout of /optimization/design, independent of rank counts)
 *     -> point k's design vector on its sub-communicator -> AdjDriverGradient there: J_k, dJ_k/dp
 *     -> dJ_k/dp as a row in block order on the point's ranks
 *   MPI_Allgather of (J_k, stopped_k, row_k) from every rank; each rank takes the first rank of each point and
 *   sums w_k J_k and w_k row_k in point order, the same arithmetic on every rank whatever the rank count.
 * The cost: one Allgather of size (n + 3) reals per rank per evaluation, n the design size (small here). */
#include <adjsim/multipoint.h>
#include <adjsim/optcheck.h>
#include <adjsim/constraints.h>
#include <adjsim/io.h>
#include <string.h>
#include <ctype.h>

#define ADJ_MAX_POINTS           64
#define ADJ_MAX_POINT_OPTS       64
#define ADJ_MULTIPOINT_MAX_ARRAY 256

typedef struct {
  char     name[128];   /* -design_pointK_OPTION */
  char     target[128]; /* -OPTION */
  PetscInt point;
} AdjPointOption;

struct _p_AdjMultipoint {
  MPI_Comm       comm, subcomm;
  PetscMPIInt    size, rank, color, rpp; /* ranks per point; color: this rank's point */
  PetscInt       npoints, n;             /* points, design size */
  PetscReal      weight[ADJ_MAX_POINTS];
  PetscReal      J[ADJ_MAX_POINTS];       /* the last evaluation's J_k */
  PetscReal      seconds[ADJ_MAX_POINTS]; /* ... the wall time of its solves on the point's ranks */
  PetscReal      wall;                    /* ... and of the whole evaluation (solves, waiting, gathering) */
  PetscReal      solve_seconds;           /* this rank's point: its solves since the last gather */
  PetscReal     *G;                       /* the last evaluation's dJ_k/dp rows, npoints x n (block order) */
  PetscReal      Jsum, *gsum;             /* their weighted sums */
  AdjStepper     master, st;              /* the whole communicator's solver; this point's */
  AdjDriver      mdrv, drv;               /* the whole communicator's driver; this point's */
  Vec            pdesign, pgrad, greg;    /* this point's design, gradient, and its regularization's gradient */
  AdjParamsRow   mrows, prows;            /* master and point designs <-> rows in block order */
  PetscReal     *row;                     /* a design row (n), and a second one for AdjMultipointCheckDesign */
  Vec            at;                      /* the design of the last evaluation (J, G, gsum) ... */
  PetscBool      atvalid;                 /* ... and whether the point drivers' last runs were that evaluation */
  PetscReal     *sendbuf, *recvbuf;
  AdjPointOption opts[ADJ_MAX_POINT_OPTS];
  PetscInt       nopts;
};

/* The -design_pointK_OPTION entries of the options database (PetscOptionsGetAll: "-name value ..."). Not
 * collective (every rank holds the same options). */
static PetscErrorCode AdjMultipointFindOptions(AdjMultipoint mp)
{
  char *all, *next;

  PetscFunctionBeginUser;
  mp->nopts = 0;
  PetscCall(PetscOptionsGetAll(NULL, &all));
  for (char *tok = all; *tok; tok = next) {
    while (*tok == ' ') tok++;
    for (next = tok; *next && *next != ' '; next++) {
    }
    if (*next) *next++ = 0;
    const char *c = tok + strlen("-design_point");
    PetscInt    k = 0;
    if (strncmp(tok, "-design_point", strlen("-design_point")) || !isdigit((unsigned char)*c)) continue;
    while (isdigit((unsigned char)*c)) k = 10 * k + (*c++ - '0');
    PetscCheck(*c == '_' && c[1], mp->comm, PETSC_ERR_USER_INPUT,
               "%s: a per-point option is -design_pointK_OPTION (e.g. -design_point1_fluid_body_alpha 6)", tok);
    PetscCheck(k < mp->npoints, mp->comm, PETSC_ERR_USER_INPUT,
               "%s: there are %" PetscInt_FMT " design points (-design_points), numbered from 0", tok, mp->npoints);
    PetscCheck(mp->nopts < ADJ_MAX_POINT_OPTS, mp->comm, PETSC_ERR_USER_INPUT, "At most %d -design_pointK_ options",
               ADJ_MAX_POINT_OPTS);
    PetscCall(PetscStrncpy(mp->opts[mp->nopts].name, tok, sizeof(mp->opts[0].name)));
    PetscCall(PetscSNPrintf(mp->opts[mp->nopts].target, sizeof(mp->opts[0].target), "-%s", c + 1));
    mp->opts[mp->nopts++].point = k;
  }
  PetscCall(PetscFree(all));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Before point k's solver reads its options: each -design_pointK_OPTION value replaces -OPTION as a fresh,
 * unused entry (saved[] keeps the previous value, "" if none). Not collective. */
static PetscErrorCode AdjMultipointPushOptions(AdjMultipoint mp, PetscInt k, char saved[][256], PetscBool had[])
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < mp->nopts; i++) {
    char value[256];
    if (mp->opts[i].point != k) continue;
    PetscCall(PetscOptionsGetString(NULL, NULL, mp->opts[i].target, saved[i], 256, &had[i]));
    PetscCall(PetscOptionsGetString(NULL, NULL, mp->opts[i].name, value, sizeof(value), NULL));
    PetscCall(PetscOptionsClearValue(NULL, mp->opts[i].target));
    PetscCall(PetscOptionsSetValue(NULL, mp->opts[i].target, value[0] ? value : NULL));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* After point k's solver is built: whether it read every per-point value (*unused: the first it did not, -1 if
 * none), then the previous values back, marked used as they were by the master. Not collective. */
static PetscErrorCode AdjMultipointPopOptions(AdjMultipoint mp, PetscInt k, char saved[][256], const PetscBool had[],
                                              PetscInt *unused)
{
  PetscFunctionBeginUser;
  *unused = -1;
  for (PetscInt i = 0; i < mp->nopts; i++) {
    PetscBool used, set;
    if (mp->opts[i].point != k) continue;
    PetscCall(PetscOptionsUsed(NULL, mp->opts[i].target + 1, &used)); /* the name without its dash */
    if (!used && *unused < 0) *unused = i;
    PetscCall(PetscOptionsClearValue(NULL, mp->opts[i].target));
    if (had[i]) {
      PetscCall(PetscOptionsSetValue(NULL, mp->opts[i].target, saved[i][0] ? saved[i] : NULL));
      PetscCall(PetscOptionsHasName(NULL, NULL, mp->opts[i].target, &set)); /* used by the master already */
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode AdjMultipointReadOptions(AdjMultipoint mp)
{
  PetscInt  nw = ADJ_MAX_POINTS, rpp = 0;
  PetscBool wset, rset;

  PetscFunctionBeginUser;
  PetscOptionsBegin(mp->comm, NULL, "Multipoint design", "AdjMultipoint");
  PetscCall(PetscOptionsRealArray("-design_point_weights",
                                  "Weights w_k of the points in J = sum_k w_k J_k (default 1/N each)",
                                  "AdjMultipointCreate", mp->weight, &nw, &wset));
  PetscCall(PetscOptionsInt("-design_point_ranks",
                            "Ranks per design point: the rank count must be -design_points times this (default: "
                            "ranks / points)",
                            "AdjMultipointCreate", rpp, &rpp, &rset));
  PetscOptionsEnd();
  PetscCheck(!wset || nw == mp->npoints, mp->comm, PETSC_ERR_USER_INPUT,
             "-design_point_weights has %" PetscInt_FMT " values for %" PetscInt_FMT
             " design points (-design_points): give one weight per point",
             nw, mp->npoints);
  for (PetscInt k = 0; k < mp->npoints && !wset; k++) mp->weight[k] = 1.0 / mp->npoints;
  PetscCall(AdjCheckRealOptionArray(mp->comm, "-design_point_weights", mp->npoints, mp->weight, ADJ_REAL_FINITE, NULL));
  PetscCall(AdjMultipointFindOptions(mp)); /* before the rank split: their syntax and point numbers */
  if (!rset) rpp = mp->size / mp->npoints;
  PetscCheck(rpp >= 1, mp->comm, PETSC_ERR_USER_INPUT,
             "-design_points %" PetscInt_FMT " on %d ranks: every point needs at least one rank (-design_point_ranks "
             "%" PetscInt_FMT "); run on at least %" PetscInt_FMT " ranks",
             mp->npoints, mp->size, rpp, mp->npoints);
  PetscCheck(rpp * mp->npoints == mp->size, mp->comm, PETSC_ERR_USER_INPUT,
             "-design_points %" PetscInt_FMT " with -design_point_ranks %" PetscInt_FMT " needs %" PetscInt_FMT
             " ranks, this run has %d: the points split the ranks evenly (points x ranks per point = ranks)",
             mp->npoints, rpp, mp->npoints * rpp, mp->size);
  mp->rpp = (PetscMPIInt)rpp;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* This rank's point: its solver and driver on the sub-communicator, built with the point's option values. The
 * verdicts (an unused per-point option, a design that differs from the master's) are agreed on the whole
 * communicator, so every rank refuses with the same message. Collective. */
static PetscErrorCode AdjMultipointBuildPoint(AdjMultipoint mp)
{
  char      saved[ADJ_MAX_POINT_OPTS][256];
  PetscBool had[ADJ_MAX_POINT_OPTS] = {PETSC_FALSE};
  PetscInt  unused, bad[ADJ_MAX_POINTS], badall[ADJ_MAX_POINTS], n;
  AdjParams params;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_split(mp->comm, mp->color, mp->rank, &mp->subcomm));
  PetscCall(AdjMultipointPushOptions(mp, mp->color, saved, had));
  PetscCall(AdjStepperCreate(mp->subcomm, &mp->st));
  PetscCall(AdjStepperSetFromOptions(mp->st));
  PetscCall(AdjStepperSetUp(mp->st));
  PetscCall(AdjDriverCreate(mp->st, &mp->drv));
  PetscCall(AdjDriverSetFromOptions(mp->drv));
  PetscCall(AdjMultipointPopOptions(mp, mp->color, saved, had, &unused));
  for (PetscInt i = 0; i < mp->nopts; i++) { /* read on every rank: not "given but unused" */
    PetscBool set;
    PetscCall(PetscOptionsHasName(NULL, NULL, mp->opts[i].name, &set));
  }
  for (PetscInt k = 0; k < mp->npoints; k++) bad[k] = k == mp->color && mp->rank % mp->rpp == 0 ? unused : -1;
  PetscCallMPI(MPI_Allreduce(bad, badall, (PetscMPIInt)mp->npoints, MPIU_INT, MPI_MAX, mp->comm));
  for (PetscInt k = 0; k < mp->npoints; k++)
    PetscCheck(badall[k] < 0, mp->comm, PETSC_ERR_USER_INPUT,
               "%s: design point %" PetscInt_FMT "'s solver has no option %s (misspelt, or not for this problem)",
               mp->opts[badall[k]].name, k, mp->opts[badall[k]].target);
  PetscCall(AdjDriverSetRestart(mp->drv, NULL)); /* -restart is the optimization's, read by the master */
  PetscCall(AdjStepperGetParams(mp->st, &params));
  PetscCall(AdjParamsCreateVector(params, &mp->pdesign));
  PetscCall(VecDuplicate(mp->pdesign, &mp->pgrad));
  PetscCall(VecGetSize(mp->pdesign, &n));
  PetscCheck(n == mp->n, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "Point %d has %" PetscInt_FMT " design variables, not %" PetscInt_FMT, (int)mp->color, n, mp->n);
  PetscCall(VecDuplicate(mp->pdesign, &mp->greg));
  PetscCall(AdjParamsRowCreate(params, mp->pdesign, &mp->prows));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The master's design p on this rank's point. Collective. */
static PetscErrorCode AdjMultipointSetPointDesign(AdjMultipoint mp, Vec p)
{
  PetscFunctionBeginUser;
  PetscCall(AdjParamsRowGather(mp->mrows, p, mp->row));
  PetscCall(AdjParamsRowScatter(mp->prows, mp->row, mp->pdesign));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The points' drivers stop on a signal when the master's would (AdjDriverSetInterruptible): inside the optimizer's
 * TaoSolve and where the application asks for it, not in set-up, checks and reports, so that a signal there is
 * handled as in a single-point run. Collective. */
static PetscErrorCode AdjMultipointFollowInterruptible(AdjMultipoint mp)
{
  PetscBool flag;

  PetscFunctionBeginUser;
  PetscCall(AdjDriverIsInterruptible(mp->mdrv, &flag));
  PetscCall(AdjDriverSetInterruptible(mp->drv, flag));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Every point's (value, stopped, gradient row, solve seconds) on every rank: recvbuf[k] from the first rank of point k.
 * This rank's point gives v, stopped and the row of g (its design layout; NULL: zeros). Collective. */
static PetscErrorCode AdjMultipointGather(AdjMultipoint mp, PetscReal v, AdjStepIndex stopped, Vec g)
{
  const PetscInt w = mp->n + 3;

  PetscFunctionBeginUser;
  mp->sendbuf[0]         = v;
  mp->sendbuf[1]         = (PetscReal)stopped;
  mp->sendbuf[mp->n + 2] = mp->solve_seconds;
  if (g)
    PetscCall(AdjParamsRowGather(mp->prows, g, mp->sendbuf + 2));
  else
    PetscCall(PetscArrayzero(mp->sendbuf + 2, mp->n));
  PetscCallMPI(MPI_Allgather(mp->sendbuf, (PetscMPIInt)w, MPIU_REAL, mp->recvbuf, (PetscMPIInt)w, MPIU_REAL, mp->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* recvbuf row of point k. */
static inline const PetscReal *AdjMultipointReceived(AdjMultipoint mp, PetscInt k)
{
  return mp->recvbuf + (size_t)k * mp->rpp * (mp->n + 3);
}

PetscErrorCode AdjMultipointEvaluate(AdjMultipoint mp, Vec p, PetscReal *J, Vec g, AdjStepIndex *stopped)
{
  PetscReal      Jk;
  AdjStepIndex   sk;
  PetscLogDouble t0, t1, t2;

  PetscFunctionBeginUser;
  PetscCall(PetscTime(&t0));
  PetscCall(AdjMultipointFollowInterruptible(mp));
  PetscCall(AdjMultipointSetPointDesign(mp, p));
  PetscCall(PetscTime(&t1));
  PetscCall(AdjDriverGradient(mp->drv, mp->pdesign, &Jk, mp->pgrad));
  PetscCall(PetscTime(&t2));
  mp->solve_seconds = (PetscReal)(t2 - t1);
  PetscCall(AdjDriverGetInterruptedStep(mp->drv, &sk));
  PetscCall(AdjMultipointGather(mp, Jk, sk, mp->pgrad));
  *stopped = -1;
  mp->Jsum = 0;
  PetscCall(PetscArrayzero(mp->gsum, mp->n));
  for (PetscInt k = 0; k < mp->npoints; k++) { /* in point order: the same sums on every rank */
    const PetscReal *r = AdjMultipointReceived(mp, k);
    mp->J[k]           = r[0];
    mp->seconds[k]     = r[mp->n + 2];
    *stopped           = PetscMax(*stopped, (AdjStepIndex)r[1]);
    PetscCall(PetscArraycpy(mp->G + k * mp->n, r + 2, mp->n));
    mp->Jsum += mp->weight[k] * r[0];
    for (PetscInt i = 0; i < mp->n; i++) mp->gsum[i] += mp->weight[k] * r[2 + i];
  }
  PetscCall(PetscTime(&t2));
  mp->wall    = (PetscReal)(t2 - t0);
  mp->atvalid = (PetscBool)(*stopped < 0);
  if (*stopped >= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecCopy(p, mp->at));
  *J = mp->Jsum;
  PetscCall(AdjParamsRowScatter(mp->mrows, mp->gsum, g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode AdjMultipointEvaluateHook(void *ctx, Vec p, PetscReal *J, Vec g, AdjStepIndex *stopped)
{
  PetscFunctionBeginUser;
  PetscCall(AdjMultipointEvaluate((AdjMultipoint)ctx, p, J, g, stopped));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One flow constraint on this rank's point at its current design (AdjConstraintsFlowFunctional: regularization taken
 * out), its gradient into mp->pgrad (gradient false: the value only, by a forward run). Collective on the point. */
static PetscErrorCode AdjMultipointFlowOne(AdjMultipoint mp, const char functional[], PetscBool gradient, PetscReal *v,
                                           AdjStepIndex *stopped)
{
  PetscLogDouble t0, t1;

  PetscFunctionBeginUser;
  PetscCall(PetscTime(&t0));
  PetscCall(AdjConstraintsFlowFunctional(mp->drv, functional, mp->pdesign, v, gradient ? mp->pgrad : NULL, mp->greg,
                                         stopped));
  PetscCall(PetscTime(&t1));
  mp->solve_seconds = (PetscReal)(t1 - t0);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The j-th (from 0) of the constraints at point k, or -1. */
static PetscInt AdjMultipointNthAt(PetscInt n, const PetscInt point[], PetscInt k, PetscInt j)
{
  for (PetscInt i = 0; i < n; i++)
    if (point[i] == k && j-- == 0) return i;
  return -1;
}

/* Flow constraints i = 0..n-1, functional[i] at point[i]: in round r every point computes its r-th constraint (the
 * points concurrently, as many rounds as the most constraints at one point), then one gather gives every rank the
 * value and gradient row of each point's r-th constraint. Collective. */
static PetscErrorCode AdjMultipointFlowHook(void *ctx, PetscInt n, const char *const functional[],
                                            const PetscInt point[], Vec p, PetscReal v[], Vec g[],
                                            AdjStepIndex *stopped)
{
  AdjMultipoint mp     = (AdjMultipoint)ctx;
  PetscInt      rounds = 0, unknown = -1, any;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < n && unknown < 0; i++) { /* every functional known to this rank's point (same solver) */
    PetscBool known, restored;
    PetscCall(AdjStepperSelectObjective(mp->st, functional[i], &known));
    PetscCall(AdjStepperSelectObjective(mp->st, NULL, &restored));
    if (!known) unknown = i;
  }
  PetscCallMPI(MPI_Allreduce(&unknown, &any, 1, MPIU_INT, MPI_MAX, mp->comm));
  PetscCheck(any < 0, mp->comm, PETSC_ERR_USER_INPUT, "-optimize_constraints: the solver has no output functional '%s'",
             functional[any]);
  for (PetscInt k = 0; k < mp->npoints; k++) {
    PetscInt c = 0;
    for (PetscInt i = 0; i < n; i++) c += point[i] == k;
    rounds = PetscMax(rounds, c);
  }
  PetscCall(AdjMultipointFollowInterruptible(mp));
  PetscCall(AdjMultipointSetPointDesign(mp, p));
  mp->atvalid = PETSC_FALSE;
  *stopped    = -1;
  for (PetscInt r = 0; r < rounds; r++) {
    const PetscInt mine = AdjMultipointNthAt(n, point, mp->color, r);
    PetscReal      vk   = 0;
    AdjStepIndex   sk   = -1;
    mp->solve_seconds   = 0;
    if (mine >= 0) PetscCall(AdjMultipointFlowOne(mp, functional[mine], (PetscBool)(g != NULL), &vk, &sk));
    PetscCall(AdjMultipointGather(mp, vk, sk, mine >= 0 && g ? mp->pgrad : NULL));
    for (PetscInt k = 0; k < mp->npoints; k++) {
      const PetscInt   i  = AdjMultipointNthAt(n, point, k, r);
      const PetscReal *rk = AdjMultipointReceived(mp, k);
      if (i < 0) continue;
      v[i]     = rk[0];
      *stopped = PetscMax(*stopped, (AdjStepIndex)rk[1]);
      if ((AdjStepIndex)rk[1] < 0 && g) PetscCall(AdjParamsRowScatter(mp->mrows, rk + 2, g[i]));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Holds or releases the run length of this rank's point (hold: at the n its last run reached). Collective. */
static PetscErrorCode AdjMultipointFlowHold(void *ctx, PetscInt point, PetscBool hold)
{
  AdjMultipoint mp = (AdjMultipoint)ctx;

  PetscFunctionBeginUser;
  if (point == mp->color) PetscCall(AdjDriverHoldFinalStep(mp->drv, hold));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjMultipointAttach(AdjMultipoint mp, AdjOptimizer opt)
{
  AdjConstraints cs;

  PetscFunctionBeginUser;
  PetscCall(AdjOptimizerSetEvaluation(opt, AdjMultipointEvaluateHook, mp));
  PetscCall(AdjOptimizerGetConstraints(opt, &cs));
  PetscCall(AdjConstraintsSetFlowEvaluation(cs, mp->npoints, AdjMultipointFlowHook, AdjMultipointFlowHold, mp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The points must start from the master's design: a per-point option that changes it (e.g. the angle of attack
 * while body_alpha is a design parameter) would be overwritten by the shared design at the first evaluation. */
static PetscErrorCode AdjMultipointCheckDesign(AdjMultipoint mp, Vec p0)
{
  PetscReal *row = mp->row, *prow = mp->row + mp->n;
  PetscInt   differ = -1, first[ADJ_MAX_POINTS], all[ADJ_MAX_POINTS];

  PetscFunctionBeginUser;
  PetscCall(AdjStepperGetParameters(mp->st, mp->pdesign));
  PetscCall(AdjParamsRowGather(mp->prows, mp->pdesign, prow));
  PetscCall(AdjParamsRowGather(mp->mrows, p0, row));
  for (PetscInt i = 0; i < mp->n && differ < 0; i++)
    if (row[i] != prow[i]) differ = i;
  for (PetscInt k = 0; k < mp->npoints; k++) first[k] = k == mp->color ? differ : -1;
  PetscCallMPI(MPI_Allreduce(first, all, (PetscMPIInt)mp->npoints, MPIU_INT, MPI_MAX, mp->comm));
  for (PetscInt k = 0; k < mp->npoints; k++) {
    char list[1024] = "";
    for (PetscInt i = 0; i < mp->nopts; i++)
      if (mp->opts[i].point == k) {
        PetscCall(PetscStrlcat(list, " ", sizeof(list)));
        PetscCall(PetscStrlcat(list, mp->opts[i].name, sizeof(list)));
      }
    PetscCheck(all[k] < 0, mp->comm, PETSC_ERR_USER_INPUT,
               "Design point %" PetscInt_FMT
               " starts from another design than the others (design variable %" PetscInt_FMT
               " in /optimization/design order differs): its options%s change a parameter of -adjoint_params, which "
               "all points share. Make that quantity an operating condition (drop its block from -adjoint_params, e.g. "
               "body_alpha to give each point its own angle of attack)",
               k, all[k], list[0] ? list : " (none)");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Points that spill checkpoints to disk must not share the file (each overwrites the other's slots). Collective. */
static PetscErrorCode AdjMultipointCheckDiskFiles(AdjMultipoint mp)
{
  AdjCheckpoint ckpt;
  const char   *path;
  PetscBool     used;
  char          mine[PETSC_MAX_PATH_LEN] = "", *all;

  PetscFunctionBeginUser;
  PetscCall(AdjDriverGetCheckpoint(mp->drv, &ckpt));
  PetscCall(AdjCheckpointGetDiskFile(ckpt, &path, &used));
  if (used) PetscCall(PetscStrncpy(mine, path, sizeof(mine)));
  PetscCall(PetscMalloc1((size_t)mp->size * sizeof(mine), &all));
  PetscCallMPI(MPI_Allgather(mine, sizeof(mine), MPI_CHAR, all, sizeof(mine), MPI_CHAR, mp->comm));
  for (PetscInt k = 1; k < mp->npoints; k++)
    for (PetscInt j = 0; j < k; j++) {
      const char *a = all + (size_t)k * mp->rpp * sizeof(mine), *b = all + (size_t)j * mp->rpp * sizeof(mine);
      PetscCheck(!a[0] || strcmp(a, b), mp->comm, PETSC_ERR_USER_INPUT,
                 "Design points %" PetscInt_FMT " and %" PetscInt_FMT " would share the checkpoint file %s: give each "
                 "its own with -design_point%" PetscInt_FMT "_checkpoint_disk_file",
                 j, k, a, k);
    }
  PetscCall(PetscFree(all));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjMultipointCreate(AdjDriver mdrv, AdjMultipoint *mpout)
{
  AdjMultipoint m;
  PetscInt      npoints = 0;
  AdjParams     params;
  AdjStepper    master;
  Vec           p0;
  MPI_Comm      comm;

  PetscFunctionBeginUser;
  *mpout = NULL;
  PetscCall(AdjDriverGetStepper(mdrv, &master));
  PetscCall(AdjStepperGetComm(master, &comm));
  PetscOptionsBegin(comm, NULL, "Multipoint design", "AdjMultipoint");
  PetscCall(PetscOptionsInt("-design_points",
                            "Multipoint design: the objective is sum_k w_k J_k over this many operating points, solved "
                            "concurrently on sub-communicators, each with its -design_pointK_OPTION values; weights "
                            "-design_point_weights, ranks per point -design_point_ranks (0, 1: off)",
                            "AdjMultipointCreate", npoints, &npoints, NULL));
  PetscOptionsEnd();
  PetscCheck(npoints >= 0 && npoints <= ADJ_MAX_POINTS, comm, PETSC_ERR_USER_INPUT,
             "-design_points %" PetscInt_FMT ": give 0 to %d points", npoints, ADJ_MAX_POINTS);
  if (npoints < 2) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscNew(&m));
  m->comm    = comm;
  m->master  = master;
  m->mdrv    = mdrv;
  m->npoints = npoints;
  PetscCallMPI(MPI_Comm_size(comm, &m->size));
  PetscCallMPI(MPI_Comm_rank(comm, &m->rank));
  PetscCall(AdjMultipointReadOptions(m));
  m->color = m->rank / m->rpp;
  PetscCall(AdjStepperGetParams(master, &params));
  PetscCall(AdjParamsCreateVector(params, &p0));
  PetscCall(VecGetSize(p0, &m->n));
  PetscCall(AdjParamsRowCreate(params, p0, &m->mrows));
  PetscCall(VecDuplicate(p0, &m->at));
  PetscCall(PetscMalloc5(m->n + 3, &m->sendbuf, (size_t)m->size * (m->n + 3), &m->recvbuf, m->npoints * m->n, &m->G,
                         m->n, &m->gsum, 2 * m->n, &m->row));
  PetscCall(AdjMultipointBuildPoint(m));
  PetscCall(AdjMultipointCheckDiskFiles(m));
  PetscCall(AdjStepperGetParameters(master, p0));
  PetscCall(AdjMultipointCheckDesign(m, p0));
  PetscCall(VecDestroy(&p0));
  *mpout = m;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* J(q) = sum_k w_k J_k(q) by forward runs of the points, for AdjTaylorSweep (J_k of the last evaluation kept).
 * Collective. */
static PetscErrorCode AdjMultipointObjective(void *ctx, Vec q, PetscReal *J)
{
  AdjMultipoint mp = (AdjMultipoint)ctx;
  PetscReal     Jk;

  PetscFunctionBeginUser;
  PetscCall(AdjMultipointFollowInterruptible(mp));
  PetscCall(AdjMultipointSetPointDesign(mp, q));
  mp->atvalid = PETSC_FALSE;
  PetscCall(AdjDriverForward(mp->drv, mp->pdesign, PETSC_FALSE, &Jk));
  PetscCall(AdjMultipointGather(mp, Jk, -1, NULL));
  *J = 0;
  for (PetscInt k = 0; k < mp->npoints; k++) *J += mp->weight[k] * AdjMultipointReceived(mp, k)[0];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjMultipointTaylorTest(AdjMultipoint mp, Vec p, PetscReal *min_rate)
{
  Vec               g;
  PetscReal         J;
  PetscBool         same = PETSC_FALSE;
  AdjStepIndex      stopped;
  AdjTaylorSettings ts = {" of the multipoint objective", "J", 0, 6, ADJ_TAYLOR_SEED}; /* the driver's defaults */

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-adjoint_taylor_h0", &ts.h0, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-adjoint_taylor_levels", &ts.levels, NULL));
  PetscCall(VecDuplicate(p, &g));
  if (mp->atvalid) PetscCall(VecEqual(p, mp->at, &same));
  if (same)
    PetscCall(AdjParamsRowScatter(mp->mrows, mp->gsum, g)); /* the evaluation just made at p */
  else {
    PetscCall(AdjMultipointEvaluate(mp, p, &J, g, &stopped));
    PetscCheck(stopped < 0, mp->comm, PETSC_ERR_USER_INPUT, "Multipoint Taylor test stopped by a signal");
  }
  PetscCall(AdjDriverHoldFinalStep(mp->drv, PETSC_TRUE)); /* each point at its own n */
  PetscCall(AdjTaylorSweep(&ts, AdjMultipointObjective, mp, p, g, min_rate));
  PetscCall(AdjDriverHoldFinalStep(mp->drv, PETSC_FALSE));
  PetscCheck(*min_rate < PETSC_MAX_REAL, mp->comm, PETSC_ERR_USER_INPUT,
             "Taylor test: all second-order remainders are at round-off level; raise -adjoint_taylor_h0");
  PetscCall(AdjMultipointSetPointDesign(mp, p)); /* the points' parameters back at p */
  PetscCall(AdjStepperSetParameters(mp->st, mp->pdesign));
  PetscCall(VecDestroy(&g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjMultipointView(AdjMultipoint mp)
{
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < mp->npoints; k++) {
    char list[1024] = "";
    for (PetscInt i = 0; i < mp->nopts; i++)
      if (mp->opts[i].point == k) {
        char value[256];
        PetscCall(PetscOptionsGetString(NULL, NULL, mp->opts[i].name, value, sizeof(value), NULL));
        PetscCall(PetscStrlcat(list, " ", sizeof(list)));
        PetscCall(PetscStrlcat(list, mp->opts[i].target, sizeof(list)));
        PetscCall(PetscStrlcat(list, " ", sizeof(list)));
        PetscCall(PetscStrlcat(list, value, sizeof(list)));
      }
    PetscCall(PetscPrintf(mp->comm,
                          "multipoint: point %" PetscInt_FMT "  weight %g  ranks %d-%d  J_%" PetscInt_FMT
                          " = %.16e  (solves %.3f s)%s\n",
                          k, (double)mp->weight[k], (int)(k * mp->rpp), (int)((k + 1) * mp->rpp - 1), k,
                          (double)mp->J[k], (double)mp->seconds[k], list[0] ? list : " (the common options)"));
  }
  PetscCall(PetscPrintf(mp->comm, "multipoint: J = sum_k w_k J_k = %.16e  (last evaluation: %.3f s wall)\n",
                        (double)mp->Jsum, (double)mp->wall));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjMultipointWrite(AdjMultipoint mp, AdjOutput out)
{
  AdjParams params;
  PetscInt  nblocks, nactive = 0;
  PetscReal scale[16];

  PetscFunctionBeginUser;
  PetscCall(AdjOutputWriteOptimizationArray(out, "multipoint_weights", "1", mp->npoints, mp->weight));
  PetscCall(AdjOutputWriteOptimizationArray(out, "multipoint_objectives", "1", mp->npoints, mp->J));
  PetscCall(AdjOutputWriteOptimizationArray(out, "multipoint_gradients", "1", mp->npoints * mp->n, mp->G));
  PetscCall(AdjOutputWriteOptimizationArray(out, "multipoint_objective", "1", 1, &mp->Jsum));
  PetscCall(AdjOutputWriteOptimizationArray(out, "multipoint_gradient", "1", mp->n, mp->gsum));
  PetscCall(AdjStepperGetParams(mp->master, &params));
  PetscCall(AdjParamsGetNumBlocks(params, &nblocks));
  for (PetscInt b = 0, offset = 0; b < nblocks; b++) { /* design = value / scale, per active block in block order */
    const char  *name;
    PetscBool    active;
    AdjParamKind kind;
    PetscInt     nb;
    PetscReal    g[ADJ_MULTIPOINT_MAX_ARRAY];
    PetscCall(AdjParamsGetBlockInfo(params, b, &name, NULL, &kind, &nb, &active));
    if (!active) continue;
    PetscCheck(nactive < 16, mp->comm, PETSC_ERR_SUP, "At most 16 active parameter blocks");
    PetscCall(AdjParamsGetScale(params, name, &scale[nactive]));
    /* /gradients/<block> as a single-point run writes it, dJ/dvalue = (dJ/ddesign) / scale, for array blocks (a
       field block's gradient is in /optimization/multipoint_gradient only) */
    if (kind == ADJ_PARAM_ARRAY && nb <= ADJ_MULTIPOINT_MAX_ARRAY) {
      for (PetscInt i = 0; i < nb; i++) g[i] = mp->gsum[offset + i] / scale[nactive];
      PetscCall(AdjOutputWriteBlockArray(out, ADJ_OUTPUT_GRADIENTS, name, "objective per parameter unit", nb, g));
    }
    nactive++;
    offset += nb;
  }
  PetscCall(AdjOutputSetAttributeReal(out, "/gradients", "objective", mp->Jsum));
  PetscCall(AdjOutputSetAttributeReals(out, "/optimization", "multipoint_design_scales", nactive, scale));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjMultipointDestroy(AdjMultipoint *mp)
{
  AdjMultipoint m = *mp;

  PetscFunctionBeginUser;
  if (!m) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(AdjParamsRowDestroy(&m->mrows));
  PetscCall(AdjParamsRowDestroy(&m->prows));
  PetscCall(VecDestroy(&m->at));
  PetscCall(VecDestroy(&m->pdesign));
  PetscCall(VecDestroy(&m->pgrad));
  PetscCall(VecDestroy(&m->greg));
  PetscCall(AdjDriverDestroy(&m->drv));
  PetscCall(AdjStepperDestroy(&m->st));
  PetscCall(PetscFree5(m->sendbuf, m->recvbuf, m->G, m->gsum, m->row));
  if (m->subcomm != MPI_COMM_NULL && m->subcomm) PetscCallMPI(MPI_Comm_free(&m->subcomm));
  PetscCall(PetscFree(*mp));
  PetscFunctionReturn(PETSC_SUCCESS);
}
