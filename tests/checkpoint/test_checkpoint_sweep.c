/* AdjCheckpoint driven by a toy time stepper, checked against a plain forward sweep.

   State: an MPI Vec with -local_size entries per rank. Step k: x_i <- x_i + 0.1 sin(x_i) + 0.01 k.
   The truth x_0..x_n is kept from one plain sweep. The driver executes every action; at each REVERSE
   of step k the current state must equal x_{k-1} exactly and its recomputation x_k, and the counts
   must be exact: forward steps == n + t(n,c), peaks within the slot budget per level, disk traffic only
   with disk slots, disk positions written less often than RAM positions.

   Without -use_options the built-in list of configurations is run (store-all, RAM 2/3/7, RAM+disk
   2+2 and 1+3), each for three gradients of different lengths on the same object (SetUp reuse),
   then one object across a change of vector layout;
   AdjCheckpointSetSlots/SetStoreAll override the command line there. With -use_options only the
   configuration of the -checkpoint_ options is run, for -n steps.

   Online schedule (AdjCheckpointSetOnline, RAM 3, RAM+disk 2+2 and 1+3): at most 60 steps, the run stopped
   after steps 60, 37, 23 and 1 (AdjCheckpointStop, the state set back to x_{n-1}); the same checks of every
   state, the forward count == AdjRevolveOnlineForwardCount >= the offline optimum, peaks within budget. */
#include <adjsim/checkpoint.h>
#include <unistd.h>

typedef struct {
  const char *name;
  PetscBool   store_all;
  PetscInt    ram, disk;
} Config;

/* x_i <- x_i + 0.1 sin(x_i) + 0.01 k: nonlinear, so a wrong starting state cannot cancel out */
static PetscErrorCode ToyStep(Vec x, AdjStepIndex k)
{
  PetscScalar *xa;
  PetscInt     nlocal;

  PetscFunctionBeginUser;
  PetscCall(VecGetLocalSize(x, &nlocal));
  PetscCall(VecGetArray(x, &xa));
  for (PetscInt i = 0; i < nlocal; i++) xa[i] = xa[i] + 0.1 * PetscSinScalar(xa[i]) + 0.01 * (PetscReal)k;
  PetscCall(VecRestoreArray(x, &xa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ToyInitial(Vec x)
{
  PetscScalar *xa;
  PetscInt     nlocal, rstart;

  PetscFunctionBeginUser;
  PetscCall(VecGetLocalSize(x, &nlocal));
  PetscCall(VecGetOwnershipRange(x, &rstart, NULL));
  PetscCall(VecGetArray(x, &xa));
  for (PetscInt i = 0; i < nlocal; i++) xa[i] = PetscSinReal(0.37 * (PetscReal)(rstart + i)) + 2.0;
  PetscCall(VecRestoreArray(x, &xa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* max |x - truth| over all ranks */
static PetscErrorCode MaxDifference(Vec x, Vec truth, Vec work, PetscReal *diff)
{
  PetscFunctionBeginUser;
  PetscCall(VecWAXPY(work, -1.0, truth, x));
  PetscCall(VecNorm(work, NORM_INFINITY, diff));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One gradient: executes every action of the schedule and checks states and counters. */
static PetscErrorCode RunGradient(AdjCheckpoint ckpt, const char *label, AdjStepIndex n, PetscInt c, PetscInt ram,
                                  PetscInt disk, Vec *truth, Vec x, Vec work)
{
  MPI_Comm           comm = PetscObjectComm((PetscObject)x);
  AdjRevolveAction   a;
  AdjCheckpointStats s;
  AdjStepIndex       current = 0, next_reverse = n, forward = 0;
  PetscInt           N;
  PetscReal          diff;
  PetscInt64         bytes_per_state, disk_writes, ram_writes;
  /* documented rule: at most max(n-1,1) slots are useful, the surplus is dropped from disk first */
  PetscInt disk_used = (PetscInt)PetscMax(0, PetscMin((AdjStepIndex)c, PetscMax(n - 1, 1)) - ram);

  PetscFunctionBeginUser;
  PetscCall(VecGetSize(x, &N));
  PetscCall(AdjCheckpointSetUp(ckpt, n, x));
  PetscCall(VecCopy(truth[0], x));
  for (;;) {
    PetscCall(AdjCheckpointNext(ckpt, &a));
    if (a.type == ADJ_REVOLVE_TERMINATE) break;
    switch (a.type) {
    case ADJ_REVOLVE_TAKESHOT:
      PetscCall(AdjCheckpointStore(ckpt, &a, x));
      break;
    case ADJ_REVOLVE_ADVANCE:
      PetscCheck(a.from == current, comm, PETSC_ERR_PLIB, "%s: ADVANCE from %" PRId64 " but the state is x_%" PRId64,
                 label, a.from, current);
      for (AdjStepIndex k = a.from + 1; k <= a.to; k++) PetscCall(ToyStep(x, k));
      forward += a.to - a.from;
      current = a.to;
      break;
    case ADJ_REVOLVE_REVERSE:
      PetscCheck(a.to == next_reverse && current == a.to - 1, comm, PETSC_ERR_PLIB,
                 "%s: REVERSE step %" PRId64 " with state x_%" PRId64 ", expected step %" PRId64, label, a.to, current,
                 next_reverse);
      PetscCall(MaxDifference(x, truth[a.to - 1], work, &diff));
      PetscCheck(diff == 0.0, comm, PETSC_ERR_PLIB,
                 "%s: at REVERSE of step %" PRId64 " the state differs from x_%" PRId64
                 " of the plain sweep by %g (max abs)",
                 label, a.to, a.to - 1, (double)diff);
      PetscCall(ToyStep(x, a.to)); /* the recomputation of x_to that the adjoint of step `to` needs */
      PetscCall(MaxDifference(x, truth[a.to], work, &diff));
      PetscCheck(diff == 0.0, comm, PETSC_ERR_PLIB, "%s: recomputed x_%" PRId64 " differs from the plain sweep by %g",
                 label, a.to, (double)diff);
      PetscCall(VecSet(x, 1.0e300)); /* the state is consumed: any use before a RESTORE shows up above */
      forward++;
      next_reverse--;
      current = -1;
      break;
    case ADJ_REVOLVE_RESTORE:
      PetscCall(AdjCheckpointLoad(ckpt, &a, x));
      current = a.from;
      break;
    default:
      SETERRQ(comm, PETSC_ERR_PLIB, "%s: unexpected action %d", label, (int)a.type);
    }
  }
  PetscCheck(next_reverse == 0, comm, PETSC_ERR_PLIB, "%s: TERMINATE with step %" PRId64 " not reversed", label,
             next_reverse);
  PetscCall(AdjCheckpointGetStats(ckpt, &s));
  PetscCheck(s.forward_steps == forward && forward == n + AdjRevolveMinimalAdvances(n, c), comm, PETSC_ERR_PLIB,
             "%s n=%" PRId64 " c=%" PetscInt_FMT ": forward steps executed %" PRId64 ", counted %" PRId64
             ", optimum n + t(n,c) = %" PRId64,
             label, n, c, forward, s.forward_steps, n + AdjRevolveMinimalAdvances(n, c));
  PetscCheck(s.recomputed_steps == forward - n && s.reverse_steps == n, comm, PETSC_ERR_PLIB,
             "%s: recomputed %" PRId64 " (expected %" PRId64 "), reverse %" PRId64 " (expected %" PRId64 ")", label,
             s.recomputed_steps, forward - n, s.reverse_steps, n);
  PetscCheck(s.peak_ram <= ram && s.peak_disk <= disk, comm, PETSC_ERR_PLIB,
             "%s: peak %" PetscInt_FMT " RAM / %" PetscInt_FMT " disk states exceeds %" PetscInt_FMT
             " / %" PetscInt_FMT,
             label, s.peak_ram, s.peak_disk, ram, disk);
  bytes_per_state = (PetscInt64)N * (PetscInt64)sizeof(PetscScalar);
  PetscCheck(disk_used > 0 || (s.disk_bytes_written == 0 && s.disk_bytes_read == 0), comm, PETSC_ERR_PLIB,
             "%s: no disk slots but %" PetscInt64_FMT " bytes written, %" PetscInt64_FMT " read", label,
             s.disk_bytes_written, s.disk_bytes_read);
  disk_writes = s.disk_bytes_written / bytes_per_state;
  ram_writes  = s.snapshots_taken - disk_writes;
  if (disk_used > 0) {
    PetscCheck(s.disk_bytes_written > 0 && s.disk_bytes_written % bytes_per_state == 0 &&
                   s.disk_bytes_read % bytes_per_state == 0,
               comm, PETSC_ERR_PLIB,
               "%s: disk bytes written %" PetscInt64_FMT " / read %" PetscInt64_FMT
               " are not positive whole states of %" PetscInt64_FMT " bytes",
               label, s.disk_bytes_written, s.disk_bytes_read, bytes_per_state);
    /* per slot, the bottom (disk) positions must be rewritten less often than the top (RAM) ones */
    PetscCheck(ram == 0 || disk_writes * ram < ram_writes * disk_used, comm, PETSC_ERR_PLIB,
               "%s: %" PetscInt64_FMT " writes to %" PetscInt_FMT " disk slots vs %" PetscInt64_FMT " to %" PetscInt_FMT
               " RAM slots: disk is not written less often",
               label, disk_writes, disk_used, ram_writes, ram);
  }
  PetscCall(PetscPrintf(comm,
                        "%-12s n=%3" PRId64 " c=%3" PetscInt_FMT ": forward %4" PRId64 " (optimal), peak %" PetscInt_FMT
                        " RAM %" PetscInt_FMT " disk, writes %" PetscInt64_FMT " RAM %" PetscInt64_FMT
                        " disk, reads %" PetscInt64_FMT " disk\n",
                        label, n, c, forward, s.peak_ram, s.peak_disk, ram_writes, disk_writes,
                        s.disk_bytes_read / bytes_per_state));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Executes one action of the online schedule's reverse sweep (as in RunGradient). */
static PetscErrorCode OnlineReverseAction(AdjCheckpoint ckpt, const char *label, const AdjRevolveAction *a, Vec *truth,
                                          Vec x, Vec work, AdjStepIndex *current, AdjStepIndex *next_reverse,
                                          AdjStepIndex *forward)
{
  MPI_Comm  comm = PetscObjectComm((PetscObject)x);
  PetscReal diff;

  PetscFunctionBeginUser;
  if (a->type == ADJ_REVOLVE_TAKESHOT)
    PetscCall(AdjCheckpointStore(ckpt, a, x));
  else if (a->type == ADJ_REVOLVE_RESTORE) {
    PetscCall(AdjCheckpointLoad(ckpt, a, x));
    *current = a->from;
  } else if (a->type == ADJ_REVOLVE_ADVANCE) {
    PetscCheck(a->from == *current && a->to < *next_reverse, comm, PETSC_ERR_PLIB,
               "%s: ADVANCE %" PRId64 " -> %" PRId64 " at x_%" PRId64, label, a->from, a->to, *current);
    for (AdjStepIndex k = a->from + 1; k <= a->to; k++) PetscCall(ToyStep(x, k));
    *forward += a->to - a->from;
    *current = a->to;
  } else {
    PetscCheck(a->type == ADJ_REVOLVE_REVERSE && a->to == *next_reverse && *current == a->to - 1, comm, PETSC_ERR_PLIB,
               "%s: action %d (step %" PRId64 ") at x_%" PRId64 ", expected REVERSE %" PRId64, label, (int)a->type,
               a->to, *current, *next_reverse);
    PetscCall(MaxDifference(x, truth[a->to - 1], work, &diff));
    PetscCheck(diff == 0.0, comm, PETSC_ERR_PLIB, "%s: at REVERSE of step %" PRId64 " the state differs by %g", label,
               a->to, (double)diff);
    PetscCall(VecSet(x, 1.0e300)); /* consumed */
    (*forward)++;
    (*next_reverse)--;
    *current = -1;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One online gradient: a forward sweep of single steps, stopped after step nstop <= nmax, then the reverse sweep. */
static PetscErrorCode RunOnlineGradient(AdjCheckpoint ckpt, const char *label, AdjStepIndex nmax, AdjStepIndex nstop,
                                        PetscInt ram, PetscInt disk, Vec *truth, Vec x, Vec work)
{
  MPI_Comm           comm = PetscObjectComm((PetscObject)x);
  AdjRevolveAction   a;
  AdjCheckpointStats s;
  AdjStepIndex       current = 0, next_reverse = nmax + 1, forward = 0, formula;
  PetscInt           c        = (PetscInt)PetscMin((AdjStepIndex)(ram + disk), PetscMax(nmax - 1, 1));
  PetscBool          sweeping = PETSC_TRUE;

  PetscFunctionBeginUser;
  PetscCall(AdjCheckpointSetUp(ckpt, nmax, x));
  PetscCall(VecCopy(truth[0], x));
  for (;;) {
    PetscCall(AdjCheckpointNext(ckpt, &a));
    if (a.type == ADJ_REVOLVE_TERMINATE) break;
    if (sweeping && a.type == ADJ_REVOLVE_ADVANCE) {
      PetscCheck(a.from == current && a.to == a.from + 1, comm, PETSC_ERR_PLIB,
                 "%s: forward-sweep ADVANCE %" PRId64 " -> %" PRId64 " at x_%" PRId64, label, a.from, a.to, current);
      PetscCall(ToyStep(x, a.to));
      forward++;
      current = a.to;
      if (a.to == nstop) { /* the driver's stopping test: back to x_{n-1}, which it still holds */
        PetscCall(AdjCheckpointStop(ckpt));
        PetscCall(VecCopy(truth[nstop - 1], x));
        current      = nstop - 1;
        next_reverse = nstop;
        sweeping     = PETSC_FALSE;
      }
    } else
      PetscCall(OnlineReverseAction(ckpt, label, &a, truth, x, work, &current, &next_reverse, &forward));
  }
  PetscCall(AdjCheckpointGetStats(ckpt, &s));
  PetscCall(AdjRevolveOnlineForwardCount(nstop, c, &formula));
  PetscCheck(next_reverse == 0 && s.forward_steps == forward && forward == formula &&
                 forward >= nstop + AdjRevolveMinimalAdvances(nstop, c) && s.reverse_steps == nstop &&
                 s.recomputed_steps == forward - nstop,
             comm, PETSC_ERR_PLIB,
             "%s n=%" PRId64 ": next reverse %" PRId64 ", forward executed %" PRId64 " counted %" PRId64
             " formula %" PRId64 " optimum %" PRId64 ", reverse %" PRId64,
             label, nstop, next_reverse, forward, s.forward_steps, formula, nstop + AdjRevolveMinimalAdvances(nstop, c),
             s.reverse_steps);
  PetscCheck(s.peak_ram <= ram && s.peak_disk <= disk && (disk > 0 || s.disk_bytes_written == 0), comm, PETSC_ERR_PLIB,
             "%s: peak %" PetscInt_FMT " RAM / %" PetscInt_FMT " disk exceeds %" PetscInt_FMT " / %" PetscInt_FMT,
             label, s.peak_ram, s.peak_disk, ram, disk);
  PetscCall(PetscPrintf(comm,
                        "%-12s n=%3" PRId64 " (max %" PRId64 ") c=%" PetscInt_FMT ": forward %4" PRId64
                        " (offline %" PRId64 "), peak %" PetscInt_FMT " RAM %" PetscInt_FMT " disk\n",
                        label, nstop, nmax, c, forward, nstop + AdjRevolveMinimalAdvances(nstop, c), s.peak_ram,
                        s.peak_disk));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunOnlineConfigs(Vec *truth, Vec x, Vec work)
{
  const Config configs[] = {
      {"online ram3", PETSC_FALSE, 3, 0}, {"online 2+2", PETSC_FALSE, 2, 2}, {"online 1+3", PETSC_FALSE, 1, 3}};
  const AdjStepIndex stops[] = {60, 37, 23, 1};

  PetscFunctionBeginUser;
  for (size_t i = 0; i < sizeof(configs) / sizeof(configs[0]); i++) {
    AdjCheckpoint ckpt;
    PetscCall(AdjCheckpointCreate(PETSC_COMM_WORLD, &ckpt));
    PetscCall(AdjCheckpointSetFromOptions(ckpt));
    PetscCall(AdjCheckpointSetOnline(ckpt, PETSC_TRUE));
    PetscCall(AdjCheckpointSetSlots(ckpt, configs[i].ram, configs[i].disk));
    for (size_t j = 0; j < sizeof(stops) / sizeof(stops[0]); j++)
      PetscCall(
          RunOnlineGradient(ckpt, configs[i].name, 60, stops[j], configs[i].ram, configs[i].disk, truth, x, work));
    PetscCall(AdjCheckpointDestroy(&ckpt));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Runs gradients of lengths ns[] with one object in configuration cfg (or the options when cfg is NULL). */
static PetscErrorCode RunConfig(const Config *cfg, const AdjStepIndex *ns, PetscInt nn, Vec *truth, Vec x, Vec work)
{
  MPI_Comm      comm = PetscObjectComm((PetscObject)x);
  AdjCheckpoint ckpt;
  PetscBool     store_all = PETSC_FALSE, exists;
  PetscInt      ram = 10, disk = 0, type = 0;
  char          file[PETSC_MAX_PATH_LEN] = "adjsim-checkpoints.h5";
  const char   *types[]                  = {"revolve", "all", "AdjCheckpointType", "ADJ_CHECKPOINT_", NULL};
  PetscMPIInt   rank;

  PetscFunctionBeginUser;
  PetscCall(AdjCheckpointCreate(comm, &ckpt));
  PetscCall(AdjCheckpointSetFromOptions(ckpt));
  if (cfg) {
    PetscCall(AdjCheckpointSetStoreAll(ckpt, cfg->store_all));
    if (!cfg->store_all) PetscCall(AdjCheckpointSetSlots(ckpt, cfg->ram, cfg->disk));
    store_all = cfg->store_all;
    ram       = cfg->ram;
    disk      = cfg->disk;
  } else { /* the test reads the same options to know the budget it must check */
    PetscCall(PetscOptionsGetEList(NULL, NULL, "-checkpoint_type", types, 2, &type, NULL));
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-checkpoint_ram", &ram, NULL));
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-checkpoint_disk", &disk, NULL));
    store_all = type == 1 ? PETSC_TRUE : PETSC_FALSE;
  }
  PetscCall(PetscOptionsGetString(NULL, NULL, "-checkpoint_disk_file", file, sizeof(file), NULL));
  for (PetscInt i = 0; i < nn; i++) {
    AdjStepIndex n = ns[i];
    PetscInt     c = store_all ? (PetscInt)n : ram + disk;
    PetscCall(RunGradient(ckpt, cfg ? cfg->name : "options", n, c, store_all ? (PetscInt)n : ram, store_all ? 0 : disk,
                          truth, x, work));
  }
  PetscCall(AdjCheckpointDestroy(&ckpt));
  PetscCheck(!ckpt, comm, PETSC_ERR_PLIB, "AdjCheckpointDestroy did not set the handle to NULL");
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  exists = (rank == 0 && access(file, F_OK) == 0) ? PETSC_TRUE : PETSC_FALSE;
  PetscCheck(!exists, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the disk checkpoint file %s still exists after destroy", file);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x (layout: local_size entries per rank), a work vector and the plain-sweep truth x_0..x_nmax */
static PetscErrorCode BuildTruth(PetscInt local_size, AdjStepIndex nmax, Vec *x, Vec *work, Vec **truth)
{
  PetscFunctionBeginUser;
  PetscCall(VecCreate(PETSC_COMM_WORLD, x));
  PetscCall(VecSetSizes(*x, local_size, PETSC_DECIDE));
  PetscCall(VecSetFromOptions(*x));
  PetscCall(VecDuplicate(*x, work));
  PetscCall(VecDuplicateVecs(*x, (PetscInt)nmax + 1, truth));
  PetscCall(ToyInitial((*truth)[0]));
  for (AdjStepIndex k = 1; k <= nmax; k++) {
    PetscCall(VecCopy((*truth)[k - 1], (*truth)[k]));
    PetscCall(ToyStep((*truth)[k], k));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DestroyTruth(AdjStepIndex nmax, Vec *x, Vec *work, Vec **truth)
{
  PetscFunctionBeginUser;
  PetscCall(VecDestroyVecs((PetscInt)nmax + 1, truth));
  PetscCall(VecDestroy(work));
  PetscCall(VecDestroy(x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One object reused across a change of state layout (A, B, A): RAM and disk storage must follow. */
static PetscErrorCode RunRelayout(PetscInt local_size, Vec *truthA, Vec xA, Vec workA)
{
  AdjCheckpoint ckpt;
  Vec           xB, workB, *truthB;
  AdjStepIndex  n = 30;

  PetscFunctionBeginUser;
  PetscCall(BuildTruth(local_size + 17, n, &xB, &workB, &truthB));
  PetscCall(AdjCheckpointCreate(PETSC_COMM_WORLD, &ckpt));
  PetscCall(AdjCheckpointSetFromOptions(ckpt));
  PetscCall(AdjCheckpointSetSlots(ckpt, 2, 2));
  PetscCall(RunGradient(ckpt, "relayout A", n, 4, 2, 2, truthA, xA, workA));
  PetscCall(RunGradient(ckpt, "relayout B", n, 4, 2, 2, truthB, xB, workB));
  PetscCall(RunGradient(ckpt, "relayout A", n, 4, 2, 2, truthA, xA, workA));
  PetscCall(AdjCheckpointDestroy(&ckpt));
  PetscCall(DestroyTruth(n, &xB, &workB, &truthB));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const Config configs[] = {
      {"store-all", PETSC_TRUE, 0, 0}, {"ram2", PETSC_FALSE, 2, 0},       {"ram3", PETSC_FALSE, 3, 0},
      {"ram7", PETSC_FALSE, 7, 0},     {"ram2+disk2", PETSC_FALSE, 2, 2}, {"ram1+disk3", PETSC_FALSE, 1, 3},
  };
  AdjStepIndex ns[]       = {60, 23, 1};
  PetscInt     local_size = 200, n_option = 40;
  PetscBool    use_options = PETSC_FALSE;
  AdjStepIndex nmax;
  Vec         *truth, x, work;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-local_size", &local_size, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n_option, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-use_options", &use_options, NULL));
  nmax = use_options ? n_option : ns[0];
  PetscCall(BuildTruth(local_size, nmax, &x, &work, &truth));
  if (use_options) {
    AdjStepIndex n = n_option;
    PetscCall(RunConfig(NULL, &n, 1, truth, x, work));
  } else {
    for (size_t i = 0; i < sizeof(configs) / sizeof(configs[0]); i++)
      PetscCall(RunConfig(&configs[i], ns, (PetscInt)(sizeof(ns) / sizeof(ns[0])), truth, x, work));
    PetscCall(RunRelayout(local_size, truth, x, work));
    PetscCall(RunOnlineConfigs(truth, x, work));
  }
  PetscCall(DestroyTruth(nmax, &x, &work, &truth));
  PetscCall(PetscFinalize());
  return 0;
}
