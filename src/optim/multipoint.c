/* AdjMultipoint: multipoint design on sub-communicators (include/adjsim/multipoint.h, docs/multipoint.md).
 *
 * Data flow of one evaluation at design p (design layout of the master solver, whole communicator):
 *   p -> its row in block order on every rank (the layout of /optimization/design, independent of rank counts)
 *     -> point k's design vector on its sub-communicator -> AdjDriverGradient there: J_k, dJ_k/dp
 *     -> dJ_k/dp as a row in block order on the point's ranks
 *   MPI_Allgather of (J_k, stopped_k, row_k) from every rank; each rank takes the first rank of each point and
 *   sums w_k J_k and w_k row_k in point order, the same arithmetic on every rank whatever the rank count.
 * The cost: one Allgather of size L (n + 3) reals per rank per evaluation, n the design size (small here).
 *
 * Rank groups and points: G groups of R ranks (G R = ranks); point k is solved on group k mod G, as the group's
 * local point j = k / G (a solver and driver each, built once); a group solves its L = ceil(N / G) points one after
 * the other and sends them in slots j = 0 .. L-1 of its gather row. G = N (the default): one point per group, L = 1,
 * the layout and arithmetic of the one-point-per-group code.
 *
 * Robust design (src/optim/robust.c) makes the points from samples and combines the J_k into J = m + k s_eps with
 * coefficients c_k = dJ/dJ_k; without it c_k = w_k. */
#include <adjsim/multipoint.h>
#include <adjsim/optcheck.h>
#include <adjsim/constraints.h>
#include <adjsim/io.h>
#include <string.h>
#include <ctype.h>

#define ADJ_MAX_POINT_OPTS       512
#define ADJ_MULTIPOINT_MAX_ARRAY 256

typedef struct {
  char     name[128];   /* -design_pointK_OPTION */
  char     target[128]; /* -OPTION */
  PetscInt point;
} AdjPointOption;

/* A point solved by this rank's group: its solver and driver on the group's sub-communicator. */
typedef struct {
  PetscInt     k;                    /* the point's number */
  AdjStepper   st;                   /* its solver */
  AdjDriver    drv;                  /* its driver */
  Vec          pdesign, pgrad, greg; /* its design, gradient, and its regularization's gradient */
  AdjParamsRow prows;                /* its design <-> rows in block order */
  PetscReal    solve_seconds;        /* its solves since the last gather */
} AdjPointLocal;

struct _p_AdjMultipoint {
  MPI_Comm       comm, subcomm;
  PetscMPIInt    size, rank, color, rpp;  /* ranks per group; color: this rank's group */
  PetscInt       npoints, n;              /* points, design size */
  PetscInt       ngroups, nslots, nlocal; /* groups G, slots L = ceil(N / G), this group's points */
  AdjPointLocal *local;                   /* this group's points k = color + j G, j < nlocal */
  AdjRobust      robust;                  /* robust design (the points are its samples), or NULL */
  PetscReal      weight[ADJ_MAX_DESIGN_POINTS];
  PetscReal      coef[ADJ_MAX_DESIGN_POINTS];    /* dJ/dJ_k of the last evaluation (w_k without robust design) */
  PetscReal      J[ADJ_MAX_DESIGN_POINTS];       /* the last evaluation's J_k */
  PetscReal      seconds[ADJ_MAX_DESIGN_POINTS]; /* ... the wall time of its solves on the point's ranks */
  PetscReal      wall;                           /* ... and of the whole evaluation (solves, waiting, gathering) */
  PetscReal     *G;                              /* the last evaluation's dJ_k/dp rows, npoints x n (block order) */
  PetscReal      Jsum, *gsum;                    /* J and dJ/dp (sum_k c_k dJ_k/dp) */
  AdjStepper     master;                         /* the whole communicator's solver */
  AdjDriver      mdrv;                           /* the whole communicator's driver */
  AdjParamsRow   mrows;                          /* master design <-> rows in block order */
  PetscReal     *row;                            /* a design row (n), and a second one for AdjMultipointCheckDesign */
  Vec            at;                             /* the design of the last evaluation (J, G, gsum) ... */
  PetscBool      atvalid;                        /* ... and whether the point drivers' last runs were that evaluation */
  PetscReal     *sendbuf, *recvbuf;
  PetscInt       gathered; /* slots per rank of the last gather */
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

/* The largest divisor of the rank count that is at most N: robust design's default number of groups. */
static PetscInt AdjMultipointDefaultGroups(PetscMPIInt size, PetscInt npoints)
{
  PetscInt g = PetscMin(npoints, (PetscInt)size);
  while (size % g) g--;
  return g;
}

/* Groups G and ranks per group R from -design_point_groups and -design_point_ranks (G R = ranks, 1 <= G <= N).
 * Neither given: G = N (multipoint design, one point per group) or the largest divisor of the rank count up to N
 * (robust design). */
static PetscErrorCode AdjMultipointSplitRanks(AdjMultipoint mp, PetscBool gset, PetscInt groups, PetscBool rset,
                                              PetscInt rpp)
{
  PetscFunctionBeginUser;
  if (!gset && !rset && mp->robust)
    groups = AdjMultipointDefaultGroups(mp->size, mp->npoints);
  else if (!gset && !rset)
    groups = mp->npoints;
  if (gset || (!rset && mp->robust)) {
    PetscCheck(groups >= 1 && groups <= mp->npoints, mp->comm, PETSC_ERR_USER_INPUT,
               "-design_point_groups %" PetscInt_FMT ": give 1 to %" PetscInt_FMT " groups (the number of points)",
               groups, mp->npoints);
    PetscCheck(mp->size % groups == 0, mp->comm, PETSC_ERR_USER_INPUT,
               "-design_point_groups %" PetscInt_FMT " on %d ranks: the groups split the ranks evenly; give a divisor "
               "of the rank count",
               groups, mp->size);
    if (!rset) rpp = mp->size / groups;
    PetscCheck(rpp * groups == mp->size, mp->comm, PETSC_ERR_USER_INPUT,
               "-design_point_groups %" PetscInt_FMT " with -design_point_ranks %" PetscInt_FMT " needs %" PetscInt_FMT
               " ranks, this run has %d (groups x ranks per group = ranks)",
               groups, rpp, groups * rpp, mp->size);
  } else if (mp->robust) { /* -design_point_ranks R alone: G = ranks / R */
    PetscCheck(rpp >= 1 && mp->size % rpp == 0, mp->comm, PETSC_ERR_USER_INPUT,
               "-design_point_ranks %" PetscInt_FMT " on %d ranks: give a divisor of the rank count", rpp, mp->size);
    groups = mp->size / rpp;
    PetscCheck(groups <= mp->npoints, mp->comm, PETSC_ERR_USER_INPUT,
               "-design_point_ranks %" PetscInt_FMT " on %d ranks makes %" PetscInt_FMT " groups for %" PetscInt_FMT
               " samples: give at least as many samples as groups",
               rpp, mp->size, groups, mp->npoints);
  } else { /* multipoint design: one point per group, R = ranks / N by default */
    if (!rset) rpp = mp->size / mp->npoints;
    PetscCheck(rpp >= 1, mp->comm, PETSC_ERR_USER_INPUT,
               "-design_points %" PetscInt_FMT " on %d ranks: every point needs at least one rank (-design_point_ranks "
               "%" PetscInt_FMT "); run on at least %" PetscInt_FMT " ranks, or solve several points per rank group "
               "(-design_point_groups)",
               mp->npoints, mp->size, rpp, mp->npoints);
    PetscCheck(rpp * mp->npoints == mp->size, mp->comm, PETSC_ERR_USER_INPUT,
               "-design_points %" PetscInt_FMT " with -design_point_ranks %" PetscInt_FMT " needs %" PetscInt_FMT
               " ranks, this run has %d: the points split the ranks evenly (points x ranks per point = ranks)",
               mp->npoints, rpp, mp->npoints * rpp, mp->size);
    groups = mp->npoints;
  }
  mp->rpp     = (PetscMPIInt)rpp;
  mp->ngroups = groups;
  mp->nslots  = (mp->npoints + groups - 1) / groups;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode AdjMultipointReadOptions(AdjMultipoint mp)
{
  PetscInt  nw = ADJ_MAX_DESIGN_POINTS, rpp = 0, groups = 0;
  PetscBool wset, rset, gset;

  PetscFunctionBeginUser;
  PetscOptionsBegin(mp->comm, NULL, "Multipoint design", "AdjMultipoint");
  PetscCall(PetscOptionsRealArray("-design_point_weights",
                                  "Weights w_k of the points in J = sum_k w_k J_k (default 1/N each)",
                                  "AdjMultipointCreate", mp->weight, &nw, &wset));
  PetscCall(PetscOptionsInt("-design_point_ranks",
                            "Ranks per design point: the rank count must be -design_points times this (default: "
                            "ranks / points)",
                            "AdjMultipointCreate", rpp, &rpp, &rset));
  PetscCall(PetscOptionsInt("-design_point_groups",
                            "Rank groups: point k is solved on group k mod G, a group's points one after the other "
                            "(default: the number of points; with -design_robust_samples the largest divisor of the "
                            "rank count up to it)",
                            "AdjMultipointCreate", groups, &groups, &gset));
  PetscOptionsEnd();
  PetscCheck(!wset || nw == mp->npoints, mp->comm, PETSC_ERR_USER_INPUT,
             "-design_point_weights has %" PetscInt_FMT " values for %" PetscInt_FMT
             " design points (-design_points): give one weight per point",
             nw, mp->npoints);
  for (PetscInt k = 0; k < mp->npoints && !wset; k++) mp->weight[k] = 1.0 / mp->npoints;
  PetscCall(AdjCheckRealOptionArray(mp->comm, "-design_point_weights", mp->npoints, mp->weight, ADJ_REAL_FINITE, NULL));
  PetscCall(AdjMultipointFindOptions(mp)); /* before the rank split: their syntax and point numbers */
  PetscCall(AdjMultipointSplitRanks(mp, gset, groups, rset, rpp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Local point j: its solver and driver on the group's sub-communicator, built with the point's option values;
 * *unused: the first of its per-point options it did not read (-1 if none). Collective on the group. */
static PetscErrorCode AdjMultipointBuildLocal(AdjMultipoint mp, PetscInt j, char saved[][256], PetscBool had[],
                                              PetscInt *unused)
{
  AdjPointLocal *pt = &mp->local[j];
  AdjParams      params;
  PetscInt       n;

  PetscFunctionBeginUser;
  pt->k = mp->color + j * mp->ngroups;
  PetscCall(AdjMultipointPushOptions(mp, pt->k, saved, had));
  PetscCall(AdjStepperCreate(mp->subcomm, &pt->st));
  PetscCall(AdjStepperSetFromOptions(pt->st));
  PetscCall(AdjStepperSetUp(pt->st));
  PetscCall(AdjDriverCreate(pt->st, &pt->drv));
  PetscCall(AdjDriverSetFromOptions(pt->drv));
  PetscCall(AdjMultipointPopOptions(mp, pt->k, saved, had, unused));
  PetscCall(AdjDriverSetRestart(pt->drv, NULL)); /* -restart is the optimization's, read by the master */
  PetscCall(AdjStepperGetParams(pt->st, &params));
  PetscCall(AdjParamsCreateVector(params, &pt->pdesign));
  PetscCall(VecDuplicate(pt->pdesign, &pt->pgrad));
  PetscCall(VecGetSize(pt->pdesign, &n));
  PetscCheck(n == mp->n, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "Point %" PetscInt_FMT " has %" PetscInt_FMT " design variables, not %" PetscInt_FMT, pt->k, n, mp->n);
  PetscCall(VecDuplicate(pt->pdesign, &pt->greg));
  PetscCall(AdjParamsRowCreate(params, pt->pdesign, &pt->prows));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* This rank's group's points, built with each point's option values. The verdicts (an unused per-point option, a
 * design that differs from the master's) are agreed on the whole communicator, so every rank refuses with the same
 * message. Collective. */
static PetscErrorCode AdjMultipointBuildPoints(AdjMultipoint mp)
{
  char(*saved)[256];
  PetscBool *had;
  PetscInt   bad[ADJ_MAX_DESIGN_POINTS], badall[ADJ_MAX_DESIGN_POINTS];

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_split(mp->comm, mp->color, mp->rank, &mp->subcomm));
  mp->nlocal = 0;
  for (PetscInt k = mp->color; k < mp->npoints; k += mp->ngroups) mp->nlocal++;
  PetscCall(PetscCalloc1(mp->nlocal, &mp->local));
  PetscCall(PetscMalloc1(ADJ_MAX_POINT_OPTS, &saved));
  PetscCall(PetscCalloc1(ADJ_MAX_POINT_OPTS, &had));
  for (PetscInt k = 0; k < mp->npoints; k++) bad[k] = -1;
  for (PetscInt j = 0; j < mp->nlocal; j++) {
    PetscInt unused = -1;
    PetscCall(AdjMultipointBuildLocal(mp, j, saved, had, &unused));
    if (mp->rank % mp->rpp == 0) bad[mp->local[j].k] = unused;
  }
  PetscCall(PetscFree(saved));
  PetscCall(PetscFree(had));
  for (PetscInt i = 0; i < mp->nopts; i++) { /* read on every rank: not "given but unused" */
    PetscBool set;
    PetscCall(PetscOptionsHasName(NULL, NULL, mp->opts[i].name, &set));
  }
  PetscCallMPI(MPI_Allreduce(bad, badall, (PetscMPIInt)mp->npoints, MPIU_INT, MPI_MAX, mp->comm));
  for (PetscInt k = 0; k < mp->npoints; k++) {
    PetscCheck(badall[k] < 0 || !mp->robust, mp->comm, PETSC_ERR_USER_INPUT,
               "-design_robust_vary: the solver has no option %s (misspelt, or not for this problem)",
               mp->opts[badall[k]].target);
    PetscCheck(badall[k] < 0, mp->comm, PETSC_ERR_USER_INPUT,
               "%s: design point %" PetscInt_FMT "'s solver has no option %s (misspelt, or not for this problem)",
               mp->opts[badall[k]].name, k, mp->opts[badall[k]].target);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The master's design p on this rank's points. Collective. */
static PetscErrorCode AdjMultipointSetPointDesign(AdjMultipoint mp, Vec p)
{
  PetscFunctionBeginUser;
  PetscCall(AdjParamsRowGather(mp->mrows, p, mp->row));
  for (PetscInt j = 0; j < mp->nlocal; j++)
    PetscCall(AdjParamsRowScatter(mp->local[j].prows, mp->row, mp->local[j].pdesign));
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
  for (PetscInt j = 0; j < mp->nlocal; j++) PetscCall(AdjDriverSetInterruptible(mp->local[j].drv, flag));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Slot `slot` of this rank's gather row: (value, stopped, gradient row, solve seconds); g in the layout of local
 * point j's design (NULL: zeros). Not collective (the row gather is collective on the group when g is given). */
static PetscErrorCode AdjMultipointPack(AdjMultipoint mp, PetscInt slot, PetscInt j, PetscReal v, AdjStepIndex stopped,
                                        Vec g)
{
  PetscReal *b = mp->sendbuf + slot * (mp->n + 3);

  PetscFunctionBeginUser;
  b[0]         = v;
  b[1]         = (PetscReal)stopped;
  b[mp->n + 2] = j >= 0 ? mp->local[j].solve_seconds : 0;
  if (g)
    PetscCall(AdjParamsRowGather(mp->local[j].prows, g, b + 2));
  else
    PetscCall(PetscArrayzero(b + 2, mp->n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Every rank's first `slots` slots on every rank (recvbuf), after AdjMultipointPack of each used slot: an evaluation
 * gathers the L = ceil(N / G) slots of its points, a round of flow constraints one. Collective. */
static PetscErrorCode AdjMultipointGather(AdjMultipoint mp, PetscInt slots)
{
  const PetscMPIInt w = (PetscMPIInt)(slots * (mp->n + 3));

  PetscFunctionBeginUser;
  mp->gathered = slots;
  PetscCallMPI(MPI_Allgather(mp->sendbuf, w, MPIU_REAL, mp->recvbuf, w, MPIU_REAL, mp->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* recvbuf slot `slot` of the first rank of group g (of the last gather). */
static inline const PetscReal *AdjMultipointSlot(AdjMultipoint mp, PetscInt g, PetscInt slot)
{
  return mp->recvbuf + ((size_t)g * mp->rpp * mp->gathered + slot) * (mp->n + 3);
}

/* recvbuf row of point k (group k mod G, slot k / G). */
static inline const PetscReal *AdjMultipointReceived(AdjMultipoint mp, PetscInt k)
{
  return AdjMultipointSlot(mp, k % mp->ngroups, k / mp->ngroups);
}

/* J from the points' J_k, and c_k = dJ/dJ_k: the weighted sum, or robust design's mean + k std. Not collective. */
static PetscErrorCode AdjMultipointCombine(AdjMultipoint mp, const PetscReal Jk[], PetscReal c[], PetscReal *J)
{
  PetscFunctionBeginUser;
  if (mp->robust)
    PetscCall(AdjRobustCombine(mp->robust, mp->npoints, mp->weight, Jk, c, J));
  else {
    *J = 0;
    for (PetscInt k = 0; k < mp->npoints; k++) *J += mp->weight[k] * Jk[k];
    if (c) PetscCall(PetscArraycpy(c, mp->weight, mp->npoints));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* This group's points' J_k and gradients, one after the other (after a stop, the rest are not run). Collective on
 * the group. */
static PetscErrorCode AdjMultipointSolveLocal(AdjMultipoint mp)
{
  AdjStepIndex sk = -1;

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(mp->sendbuf, mp->nslots * (mp->n + 3)));
  for (PetscInt j = 0; j < mp->nlocal; j++) {
    AdjPointLocal *pt = &mp->local[j];
    PetscReal      Jk = 0;
    PetscLogDouble t1, t2;
    pt->solve_seconds = 0;
    if (sk < 0) {
      PetscCall(PetscTime(&t1));
      PetscCall(AdjDriverGradient(pt->drv, pt->pdesign, &Jk, pt->pgrad));
      PetscCall(PetscTime(&t2));
      pt->solve_seconds = (PetscReal)(t2 - t1);
      PetscCall(AdjDriverGetInterruptedStep(pt->drv, &sk));
    }
    PetscCall(AdjMultipointPack(mp, j, j, Jk, sk, sk < 0 ? pt->pgrad : NULL));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjMultipointEvaluate(AdjMultipoint mp, Vec p, PetscReal *J, Vec g, AdjStepIndex *stopped)
{
  PetscLogDouble t0, t2;

  PetscFunctionBeginUser;
  PetscCall(PetscTime(&t0));
  PetscCall(AdjMultipointFollowInterruptible(mp));
  PetscCall(AdjMultipointSetPointDesign(mp, p));
  PetscCall(AdjMultipointSolveLocal(mp));
  PetscCall(AdjMultipointGather(mp, mp->nslots));
  *stopped = -1;
  for (PetscInt k = 0; k < mp->npoints; k++) { /* in point order: the same sums on every rank */
    const PetscReal *r = AdjMultipointReceived(mp, k);
    mp->J[k]           = r[0];
    mp->seconds[k]     = r[mp->n + 2];
    *stopped           = PetscMax(*stopped, (AdjStepIndex)r[1]);
    PetscCall(PetscArraycpy(mp->G + k * mp->n, r + 2, mp->n));
  }
  PetscCall(AdjMultipointCombine(mp, mp->J, mp->coef, &mp->Jsum));
  PetscCall(PetscArrayzero(mp->gsum, mp->n));
  for (PetscInt k = 0; k < mp->npoints; k++)
    for (PetscInt i = 0; i < mp->n; i++) mp->gsum[i] += mp->coef[k] * mp->G[k * mp->n + i];
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

/* One flow constraint on local point j at its current design (AdjConstraintsFlowFunctional: regularization taken
 * out), its gradient into its pgrad (gradient false: the value only, by a forward run). Collective on the group. */
static PetscErrorCode AdjMultipointFlowOne(AdjMultipoint mp, PetscInt j, const char functional[], PetscBool gradient,
                                           PetscReal *v, AdjStepIndex *stopped)
{
  AdjPointLocal *pt = &mp->local[j];
  PetscLogDouble t0, t1;

  PetscFunctionBeginUser;
  PetscCall(PetscTime(&t0));
  PetscCall(AdjConstraintsFlowFunctional(pt->drv, functional, pt->pdesign, v, gradient ? pt->pgrad : NULL, pt->greg,
                                         stopped));
  PetscCall(PetscTime(&t1));
  pt->solve_seconds = (PetscReal)(t1 - t0);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The r-th (from 0) task of group g: the constraints at its points k = g, g + G, ... in point order, each point's in
 * constraint order. Returns the constraint's index, or -1. */
static PetscInt AdjMultipointTask(AdjMultipoint mp, PetscInt n, const PetscInt point[], PetscInt g, PetscInt r)
{
  for (PetscInt k = g; k < mp->npoints; k += mp->ngroups)
    for (PetscInt i = 0; i < n; i++)
      if (point[i] == k && r-- == 0) return i;
  return -1;
}

/* Flow constraints i = 0..n-1, functional[i] at point[i]: in round r every group computes its r-th task (the groups
 * concurrently, as many rounds as the most constraints on one group), then one gather gives every rank the value
 * and gradient row of each group's r-th task. Collective. */
static PetscErrorCode AdjMultipointFlowHook(void *ctx, PetscInt n, const char *const functional[],
                                            const PetscInt point[], Vec p, PetscReal v[], Vec g[],
                                            AdjStepIndex *stopped)
{
  AdjMultipoint mp     = (AdjMultipoint)ctx;
  PetscInt      rounds = 0, unknown = -1, any;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < n && unknown < 0; i++) { /* every functional known to this rank's point (same solver) */
    PetscBool known, restored;
    PetscCall(AdjStepperSelectObjective(mp->local[0].st, functional[i], &known));
    PetscCall(AdjStepperSelectObjective(mp->local[0].st, NULL, &restored));
    if (!known) unknown = i;
  }
  PetscCallMPI(MPI_Allreduce(&unknown, &any, 1, MPIU_INT, MPI_MAX, mp->comm));
  PetscCheck(any < 0, mp->comm, PETSC_ERR_USER_INPUT, "-optimize_constraints: the solver has no output functional '%s'",
             functional[any]);
  for (PetscInt grp = 0; grp < mp->ngroups; grp++) {
    PetscInt c = 0;
    for (PetscInt i = 0; i < n; i++) c += point[i] % mp->ngroups == grp;
    rounds = PetscMax(rounds, c);
  }
  PetscCall(AdjMultipointFollowInterruptible(mp));
  PetscCall(AdjMultipointSetPointDesign(mp, p));
  mp->atvalid = PETSC_FALSE;
  *stopped    = -1;
  for (PetscInt r = 0; r < rounds; r++) {
    const PetscInt mine = AdjMultipointTask(mp, n, point, mp->color, r);
    const PetscInt j    = mine >= 0 ? point[mine] / mp->ngroups : -1;
    PetscReal      vk   = 0;
    AdjStepIndex   sk   = -1;
    PetscCall(PetscArrayzero(mp->sendbuf, mp->n + 3));
    if (j >= 0) PetscCall(AdjMultipointFlowOne(mp, j, functional[mine], (PetscBool)(g != NULL), &vk, &sk));
    PetscCall(AdjMultipointPack(mp, 0, j, vk, sk, j >= 0 && g ? mp->local[j].pgrad : NULL));
    PetscCall(AdjMultipointGather(mp, 1));
    for (PetscInt grp = 0; grp < mp->ngroups; grp++) {
      const PetscInt   i  = AdjMultipointTask(mp, n, point, grp, r);
      const PetscReal *rk = AdjMultipointSlot(mp, grp, 0);
      if (i < 0) continue;
      v[i]     = rk[0];
      *stopped = PetscMax(*stopped, (AdjStepIndex)rk[1]);
      if ((AdjStepIndex)rk[1] < 0 && g) PetscCall(AdjParamsRowScatter(mp->mrows, rk + 2, g[i]));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Holds or releases the run length of a point if it is this rank's group's (hold: at the n its last run reached).
 * Collective. */
static PetscErrorCode AdjMultipointFlowHold(void *ctx, PetscInt point, PetscBool hold)
{
  AdjMultipoint mp = (AdjMultipoint)ctx;

  PetscFunctionBeginUser;
  if (point % mp->ngroups == mp->color) PetscCall(AdjDriverHoldFinalStep(mp->local[point / mp->ngroups].drv, hold));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Robust design: flow constraints hold at the nominal point (the common options, the master's driver on the whole
 * communicator); a -optimize_constraint_NAME_point option (a constraint at a sample) is refused. Not collective. */
static PetscErrorCode AdjMultipointRefuseSampleConstraints(AdjMultipoint mp)
{
  char *all, *s;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsGetAll(NULL, &all));
  for (s = strstr(all, "-optimize_constraint_"); s; s = strstr(s + 1, "-optimize_constraint_")) {
    char name[128] = "";
    for (int i = 0; i < 127 && s[i] && s[i] != ' '; i++) name[i] = s[i];
    if (strlen(name) > 6 && !strcmp(name + strlen(name) - 6, "_point")) {
      PetscCall(PetscFree(all));
      SETERRQ(mp->comm, PETSC_ERR_USER_INPUT,
              "%s with -design_robust_samples: flow constraints hold at the nominal point (the common options), not "
              "at a sample; drop %s",
              name, name);
    }
  }
  PetscCall(PetscFree(all));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjMultipointAttach(AdjMultipoint mp, AdjOptimizer opt)
{
  AdjConstraints cs;

  PetscFunctionBeginUser;
  PetscCall(AdjOptimizerSetEvaluation(opt, AdjMultipointEvaluateHook, mp));
  if (mp->robust) { /* the constraints keep the master's driver: the nominal point */
    PetscCall(AdjMultipointRefuseSampleConstraints(mp));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(AdjOptimizerGetConstraints(opt, &cs));
  PetscCall(AdjConstraintsSetFlowEvaluation(cs, mp->npoints, AdjMultipointFlowHook, AdjMultipointFlowHold, mp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The points must start from the master's design: a per-point option that changes it (e.g. the angle of attack
 * while body_alpha is a design parameter) would be overwritten by the shared design at the first evaluation. */
static PetscErrorCode AdjMultipointCheckDesign(AdjMultipoint mp, Vec p0)
{
  PetscReal *row = mp->row, *prow = mp->row + mp->n;
  PetscInt   first[ADJ_MAX_DESIGN_POINTS], all[ADJ_MAX_DESIGN_POINTS];

  PetscFunctionBeginUser;
  PetscCall(AdjParamsRowGather(mp->mrows, p0, row));
  for (PetscInt k = 0; k < mp->npoints; k++) first[k] = -1;
  for (PetscInt j = 0; j < mp->nlocal; j++) {
    AdjPointLocal *pt     = &mp->local[j];
    PetscInt       differ = -1;
    PetscCall(AdjStepperGetParameters(pt->st, pt->pdesign));
    PetscCall(AdjParamsRowGather(pt->prows, pt->pdesign, prow));
    for (PetscInt i = 0; i < mp->n && differ < 0; i++)
      if (row[i] != prow[i]) differ = i;
    first[pt->k] = differ;
  }
  PetscCallMPI(MPI_Allreduce(first, all, (PetscMPIInt)mp->npoints, MPIU_INT, MPI_MAX, mp->comm));
  for (PetscInt k = 0; k < mp->npoints; k++) {
    char list[1024] = "";
    PetscCheck(all[k] < 0 || !mp->robust, mp->comm, PETSC_ERR_USER_INPUT,
               "-design_robust_vary: sample %" PetscInt_FMT " starts from another design than the common options "
               "(design variable %" PetscInt_FMT " in /optimization/design order differs): a varied option changes a "
               "parameter of -adjoint_params, which all samples share. Vary operating conditions only (drop the "
               "block from -adjoint_params, e.g. body_alpha to vary the angle of attack)",
               k, all[k]);
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
  const size_t len = PETSC_MAX_PATH_LEN;
  char        *mine, *all;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc1(mp->nslots * len, &mine));
  for (PetscInt j = 0; j < mp->nlocal; j++) {
    AdjCheckpoint ckpt;
    const char   *path;
    PetscBool     used;
    PetscCall(AdjDriverGetCheckpoint(mp->local[j].drv, &ckpt));
    PetscCall(AdjCheckpointGetDiskFile(ckpt, &path, &used));
    if (used) PetscCall(PetscStrncpy(mine + j * len, path, len));
  }
  PetscCall(PetscMalloc1((size_t)mp->size * mp->nslots * len, &all));
  PetscCallMPI(MPI_Allgather(mine, (PetscMPIInt)(mp->nslots * len), MPI_CHAR, all, (PetscMPIInt)(mp->nslots * len),
                             MPI_CHAR, mp->comm));
  for (PetscInt k = 1; k < mp->npoints; k++)
    for (PetscInt j = 0; j < k; j++) {
      const char *a = all + ((size_t)(k % mp->ngroups) * mp->rpp * mp->nslots + k / mp->ngroups) * len;
      const char *b = all + ((size_t)(j % mp->ngroups) * mp->rpp * mp->nslots + j / mp->ngroups) * len;
      PetscCheck(!a[0] || strcmp(a, b), mp->comm, PETSC_ERR_USER_INPUT,
                 "Design points %" PetscInt_FMT " and %" PetscInt_FMT " would share the checkpoint file %s: give each "
                 "its own with -design_point%" PetscInt_FMT "_checkpoint_disk_file",
                 j, k, a, k);
    }
  PetscCall(PetscFree(all));
  PetscCall(PetscFree(mine));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -design_points N, or robust design's samples (which it puts in the options database as per-point options). */
static PetscErrorCode AdjMultipointReadPoints(MPI_Comm comm, AdjRobust *robust, PetscInt *npoints)
{
  PetscFunctionBeginUser;
  *npoints = 0;
  PetscCall(AdjRobustCreate(comm, robust));
  if (*robust) {
    PetscCall(AdjRobustGetSamples(*robust, npoints));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscOptionsBegin(comm, NULL, "Multipoint design", "AdjMultipoint");
  PetscCall(PetscOptionsInt("-design_points",
                            "Multipoint design: the objective is sum_k w_k J_k over this many operating points, solved "
                            "concurrently on sub-communicators, each with its -design_pointK_OPTION values; weights "
                            "-design_point_weights, ranks per point -design_point_ranks (0, 1: off)",
                            "AdjMultipointCreate", *npoints, npoints, NULL));
  PetscOptionsEnd();
  PetscCheck(*npoints >= 0 && *npoints <= ADJ_MAX_DESIGN_POINTS, comm, PETSC_ERR_USER_INPUT,
             "-design_points %" PetscInt_FMT ": give 0 to %d points", *npoints, ADJ_MAX_DESIGN_POINTS);
  if (*npoints < 2) *npoints = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjMultipointCreate(AdjDriver mdrv, AdjMultipoint *mpout)
{
  AdjMultipoint m;
  AdjRobust     robust;
  PetscInt      npoints = 0;
  AdjParams     params;
  AdjStepper    master;
  Vec           p0;
  MPI_Comm      comm;

  PetscFunctionBeginUser;
  *mpout = NULL;
  PetscCall(AdjDriverGetStepper(mdrv, &master));
  PetscCall(AdjStepperGetComm(master, &comm));
  PetscCall(AdjMultipointReadPoints(comm, &robust, &npoints));
  if (!npoints) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscNew(&m));
  m->comm    = comm;
  m->master  = master;
  m->mdrv    = mdrv;
  m->npoints = npoints;
  m->robust  = robust;
  PetscCallMPI(MPI_Comm_size(comm, &m->size));
  PetscCallMPI(MPI_Comm_rank(comm, &m->rank));
  PetscCall(AdjMultipointReadOptions(m));
  m->color = m->rank / m->rpp;
  PetscCall(AdjStepperGetParams(master, &params));
  PetscCall(AdjParamsCreateVector(params, &p0));
  PetscCall(VecGetSize(p0, &m->n));
  PetscCall(AdjParamsRowCreate(params, p0, &m->mrows));
  PetscCall(VecDuplicate(p0, &m->at));
  PetscCall(PetscMalloc5(m->nslots * (m->n + 3), &m->sendbuf, (size_t)m->size * m->nslots * (m->n + 3), &m->recvbuf,
                         m->npoints * m->n, &m->G, m->n, &m->gsum, 2 * m->n, &m->row));
  PetscCall(AdjMultipointBuildPoints(m));
  PetscCall(AdjMultipointCheckDiskFiles(m));
  PetscCall(AdjStepperGetParameters(master, p0));
  PetscCall(AdjMultipointCheckDesign(m, p0));
  PetscCall(VecDestroy(&p0));
  *mpout = m;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* J(q) by forward runs of the points, for AdjTaylorSweep (J_k of the last evaluation kept). Collective. */
static PetscErrorCode AdjMultipointObjective(void *ctx, Vec q, PetscReal *J)
{
  AdjMultipoint mp = (AdjMultipoint)ctx;
  PetscReal     Jk[ADJ_MAX_DESIGN_POINTS];

  PetscFunctionBeginUser;
  PetscCall(AdjMultipointFollowInterruptible(mp));
  PetscCall(AdjMultipointSetPointDesign(mp, q));
  mp->atvalid = PETSC_FALSE;
  PetscCall(PetscArrayzero(mp->sendbuf, mp->nslots * (mp->n + 3)));
  for (PetscInt j = 0; j < mp->nlocal; j++) {
    PetscReal v;
    PetscCall(AdjDriverForward(mp->local[j].drv, mp->local[j].pdesign, PETSC_FALSE, &v));
    PetscCall(AdjMultipointPack(mp, j, j, v, -1, NULL));
  }
  PetscCall(AdjMultipointGather(mp, mp->nslots));
  for (PetscInt k = 0; k < mp->npoints; k++) Jk[k] = AdjMultipointReceived(mp, k)[0];
  PetscCall(AdjMultipointCombine(mp, Jk, NULL, J));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode AdjMultipointHold(AdjMultipoint mp, PetscBool hold)
{
  PetscFunctionBeginUser;
  for (PetscInt j = 0; j < mp->nlocal; j++) PetscCall(AdjDriverHoldFinalStep(mp->local[j].drv, hold));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjMultipointTaylorTest(AdjMultipoint mp, Vec p, PetscReal *min_rate)
{
  Vec               g;
  PetscReal         J;
  PetscBool         same = PETSC_FALSE;
  AdjStepIndex      stopped;
  AdjTaylorSettings ts = {mp->robust ? " of the robust objective" : " of the multipoint objective", "J", 0, 6,
                          ADJ_TAYLOR_SEED}; /* the driver's defaults */

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
  PetscCall(AdjMultipointHold(mp, PETSC_TRUE)); /* each point at its own n */
  PetscCall(AdjTaylorSweep(&ts, AdjMultipointObjective, mp, p, g, min_rate));
  PetscCall(AdjMultipointHold(mp, PETSC_FALSE));
  PetscCheck(*min_rate < PETSC_MAX_REAL, mp->comm, PETSC_ERR_USER_INPUT,
             "Taylor test: all second-order remainders are at round-off level; raise -adjoint_taylor_h0");
  PetscCall(AdjMultipointSetPointDesign(mp, p)); /* the points' parameters back at p */
  for (PetscInt j = 0; j < mp->nlocal; j++) PetscCall(AdjStepperSetParameters(mp->local[j].st, mp->local[j].pdesign));
  PetscCall(VecDestroy(&g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjMultipointView(AdjMultipoint mp)
{
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < mp->npoints; k++) {
    char           list[1024] = "";
    const PetscInt grp        = k % mp->ngroups;
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
                          k, (double)mp->weight[k], (int)(grp * mp->rpp), (int)((grp + 1) * mp->rpp - 1), k,
                          (double)mp->J[k], (double)mp->seconds[k], list[0] ? list : " (the common options)"));
  }
  if (mp->robust) {
    PetscCall(AdjRobustView(mp->robust, mp->npoints, mp->weight, mp->J));
    PetscCall(PetscPrintf(mp->comm,
                          "multipoint: J = %.16e  (last evaluation: %.3f s wall, %" PetscInt_FMT " rank groups)\n",
                          (double)mp->Jsum, (double)mp->wall, mp->ngroups));
  } else
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
  if (mp->robust) {
    PetscCall(AdjOutputWriteOptimizationArray(out, "robust_coefficients", "1", mp->npoints, mp->coef));
    PetscCall(AdjRobustWrite(mp->robust, mp->npoints, mp->weight, mp->J, out));
  }
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
  PetscCall(VecDestroy(&m->at));
  for (PetscInt j = 0; j < m->nlocal; j++) {
    AdjPointLocal *pt = &m->local[j];
    PetscCall(AdjParamsRowDestroy(&pt->prows));
    PetscCall(VecDestroy(&pt->pdesign));
    PetscCall(VecDestroy(&pt->pgrad));
    PetscCall(VecDestroy(&pt->greg));
    PetscCall(AdjDriverDestroy(&pt->drv));
    PetscCall(AdjStepperDestroy(&pt->st));
  }
  PetscCall(PetscFree(m->local));
  PetscCall(AdjRobustDestroy(&m->robust));
  PetscCall(PetscFree5(m->sendbuf, m->recvbuf, m->G, m->gsum, m->row));
  if (m->subcomm != MPI_COMM_NULL && m->subcomm) PetscCallMPI(MPI_Comm_free(&m->subcomm));
  PetscCall(PetscFree(*mp));
  PetscFunctionReturn(PETSC_SUCCESS);
}
