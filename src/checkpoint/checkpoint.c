/* AdjCheckpoint: the revolve schedule plus a two-level snapshot store (RAM Vecs, HDF5 disk slots).

   Multistage placement (Stumm & Walther 2009): revolve runs with c = ram + disk slots, so the forward
   count is the single-level optimum n + t(n,c). Its slots are a stack, and a position k is only
   rewritten after everything above it has been popped, so the lower a position the fewer writes it
   receives (position 0 holds x_0 once for the whole run). Positions 0..disk-1 go to disk, the
   top ram positions to RAM. */
#include "checkpointimpl.h"

static const char *const AdjCheckpointTypes[] = {"revolve",         "all", "online", "AdjCheckpointType",
                                                 "ADJ_CHECKPOINT_", NULL};

PetscErrorCode AdjCheckpointCreate(MPI_Comm comm, AdjCheckpoint *ckpt)
{
  AdjCheckpoint c;

  PetscFunctionBeginUser;
  PetscCheck(ckpt, comm, PETSC_ERR_ARG_NULL, "AdjCheckpointCreate: output argument is NULL");
  PetscCall(PetscNew(&c));
  c->comm          = comm;
  c->ram           = 10;
  c->disk          = 0;
  c->store_all     = PETSC_FALSE;
  c->online        = PETSC_FALSE;
  c->onl           = NULL;
  c->next_reverse  = -1;
  c->monitor       = PETSC_FALSE;
  c->slots_set     = PETSC_FALSE;
  c->store_all_set = PETSC_FALSE;
  PetscCall(PetscStrncpy(c->disk_file, "adjsim-checkpoints.h5", sizeof(c->disk_file)));
  c->rev                = NULL;
  c->nsteps             = 0;
  c->nslots             = 0;
  c->nram               = 0;
  c->ndisk              = 0;
  c->slot_step          = NULL;
  c->last.type          = ADJ_REVOLVE_TERMINATE;
  c->summary_done       = PETSC_FALSE;
  c->template_vec       = NULL;
  c->ramvecs            = NULL;
  c->nramvecs           = 0;
  c->diskio.file        = H5I_INVALID_HID;
  c->diskio.path[0]     = '\0';
  c->diskio.lock        = NULL;
  c->disk_file_set      = PETSC_FALSE;
  c->diskio.dsets       = NULL;
  c->diskio.ndsets      = 0;
  c->diskio.global_size = c->diskio.local_size = c->diskio.rstart = -1;
  PetscCall(PetscMemzero(&c->stats, sizeof(c->stats)));
  *ckpt = c;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjCheckpointSetFromOptions(AdjCheckpoint ckpt)
{
  PetscInt  type = ckpt->store_all ? 1 : (ckpt->online ? 2 : 0), ram = ckpt->ram, disk = ckpt->disk;
  PetscBool set_type, set_ram, set_disk, set_file;

  PetscFunctionBeginUser;
  PetscOptionsBegin(ckpt->comm, NULL, "Checkpointing options", "AdjCheckpoint");
  PetscCall(PetscOptionsEList(
      "-checkpoint_type",
      "revolve: optimal binomial recomputation with -checkpoint_ram + -checkpoint_disk slots; "
      "all: store every step in RAM (n states; each reverse step still re-runs its forward step for the "
      "stages its adjoint reads, as revolve with n-1 slots); online: the run length is decided while running "
      "(-steady_tol), checkpoints are placed without knowing it (dynamic checkpointing, Wang, Moin & Iaccarino 2009) "
      "in -checkpoint_ram + -checkpoint_disk slots and the reverse sweep uses revolve between them (measured: "
      "0.02 to 8 percent more forward steps than revolve for the same final n at n = 10^2..10^6, at most 30 percent "
      "for any n, "
      "docs/checkpointing.md); the gradient is that of J for "
      "the final n reached",
      "AdjCheckpointSetStoreAll", AdjCheckpointTypes, 3, AdjCheckpointTypes[type], &type, &set_type));
  PetscCall(PetscOptionsInt(
      "-checkpoint_ram", "Number of checkpoint slots held in RAM (each one state vector); the top of the revolve stack",
      "AdjCheckpointSetSlots", ram, &ram, &set_ram));
  PetscCall(
      PetscOptionsInt("-checkpoint_disk",
                      "Number of checkpoint slots in the HDF5 file -checkpoint_disk_file; the bottom of the revolve "
                      "stack (long-lived, rarely rewritten)",
                      "AdjCheckpointSetSlots", disk, &disk, &set_disk));
  PetscCall(PetscOptionsString(
      "-checkpoint_disk_file",
      "HDF5 file for the disk slots (parallel, created at setup, removed at destroy; never an "
      "existing file that is not an adjsim checkpoint file); default <output stem>-checkpoints.h5",
      "AdjCheckpointSetDiskFile", ckpt->disk_file, ckpt->disk_file, sizeof(ckpt->disk_file), &set_file));
  if (set_file) ckpt->disk_file_set = PETSC_TRUE;
  PetscCall(PetscOptionsBool("-checkpoint_monitor", "Print every checkpointing action and a summary at the end",
                             "AdjCheckpointView", ckpt->monitor, &ckpt->monitor, NULL));
  PetscOptionsEnd();
  if (!ckpt->store_all_set) ckpt->store_all = type == 1 ? PETSC_TRUE : PETSC_FALSE;
  if (!ckpt->store_all_set) ckpt->online = type == 2 ? PETSC_TRUE : PETSC_FALSE;
  if (!ckpt->slots_set) {
    PetscCheck(ram >= 0, ckpt->comm, PETSC_ERR_USER_INPUT, "-checkpoint_ram %" PetscInt_FMT ": must be >= 0", ram);
    PetscCheck(disk >= 0, ckpt->comm, PETSC_ERR_USER_INPUT, "-checkpoint_disk %" PetscInt_FMT ": must be >= 0", disk);
    /* store-all ignores the slot counts, so only revolve needs a slot for x_0 */
    PetscCheck(ckpt->store_all || ram + disk >= 1, ckpt->comm, PETSC_ERR_USER_INPUT,
               "-checkpoint_ram %" PetscInt_FMT " -checkpoint_disk %" PetscInt_FMT
               ": need at least one slot in total (it holds the initial state)",
               ram, disk);
    ckpt->ram  = ram;
    ckpt->disk = disk;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjCheckpointSetSlots(AdjCheckpoint ckpt, PetscInt ram, PetscInt disk)
{
  PetscFunctionBeginUser;
  PetscCheck(ram >= 0 && disk >= 0 && ram + disk >= 1, ckpt->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "AdjCheckpointSetSlots: ram = %" PetscInt_FMT ", disk = %" PetscInt_FMT
             " (need both >= 0 and ram + disk >= 1)",
             ram, disk);
  ckpt->ram       = ram;
  ckpt->disk      = disk;
  ckpt->slots_set = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjCheckpointSetDiskFile(AdjCheckpoint ckpt, const char path[], PetscBool is_default)
{
  size_t len = 0;

  PetscFunctionBeginUser;
  if (is_default && ckpt->disk_file_set) PetscFunctionReturn(PETSC_SUCCESS);
  if (path) PetscCall(PetscStrlen(path, &len));
  PetscCheck(len > 0 && len + 8 < sizeof(ckpt->disk_file), ckpt->comm, PETSC_ERR_USER_INPUT,
             "-checkpoint_disk_file \"%s\" is invalid: give a file path shorter than %d characters",
             path ? path : "(null)", (int)sizeof(ckpt->disk_file) - 8);
  PetscCall(PetscStrncpy(ckpt->disk_file, path, sizeof(ckpt->disk_file)));
  if (!is_default) ckpt->disk_file_set = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjCheckpointGetDiskFile(AdjCheckpoint ckpt, const char *path[], PetscBool *used)
{
  PetscFunctionBeginUser;
  if (path) *path = ckpt->disk_file;
  if (used) *used = (PetscBool)(!ckpt->store_all && ckpt->disk > 0);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjCheckpointSetStoreAll(AdjCheckpoint ckpt, PetscBool all)
{
  PetscFunctionBeginUser;
  ckpt->store_all     = all;
  ckpt->online        = all ? PETSC_FALSE : ckpt->online;
  ckpt->store_all_set = PETSC_TRUE; /* the type is set programmatically: -checkpoint_type does not override it */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjCheckpointSetOnline(AdjCheckpoint ckpt, PetscBool online)
{
  PetscFunctionBeginUser;
  ckpt->online        = online;
  ckpt->store_all     = online ? PETSC_FALSE : ckpt->store_all;
  ckpt->store_all_set = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Effective slot counts for n steps. At most n-1 states are ever worth storing (x_{n-1} is used right
   away), and t(n,c) = n-1 for every c >= n-1, so surplus slots change nothing but are dropped from
   the disk level first, keeping the used stack positions in RAM. */
static void CheckpointChooseSlots(AdjCheckpoint ckpt, AdjStepIndex n)
{
  AdjStepIndex useful    = PetscMax(n - 1, 1);
  AdjStepIndex requested = ckpt->store_all ? n : (AdjStepIndex)ckpt->ram + ckpt->disk;
  AdjStepIndex ram       = ckpt->store_all ? n : ckpt->ram;

  ckpt->nslots = (PetscInt)PetscMin(requested, useful);
  ckpt->ndisk  = (PetscInt)PetscMax(0, (AdjStepIndex)ckpt->nslots - ram);
  ckpt->nram   = ckpt->nslots - ckpt->ndisk;
}

/* RAM level: keep the Vecs already allocated when the layout is unchanged, free the ones no longer needed. */
static PetscErrorCode CheckpointSetUpRAM(AdjCheckpoint ckpt, Vec state_template)
{
  PetscBool same_layout = PETSC_FALSE;

  PetscFunctionBeginUser;
  if (ckpt->template_vec) {
    PetscInt N0, n0, N1, n1;
    PetscCall(VecGetSize(ckpt->template_vec, &N0));
    PetscCall(VecGetLocalSize(ckpt->template_vec, &n0));
    PetscCall(VecGetSize(state_template, &N1));
    PetscCall(VecGetLocalSize(state_template, &n1));
    same_layout = (N0 == N1 && n0 == n1) ? PETSC_TRUE : PETSC_FALSE;
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &same_layout, 1, MPIU_BOOL, MPI_LAND, ckpt->comm));
  }
  for (PetscInt k = same_layout ? ckpt->nram : 0; k < ckpt->nramvecs; k++) PetscCall(VecDestroy(&ckpt->ramvecs[k]));
  if (ckpt->nram > ckpt->nramvecs) {
    PetscCall(PetscRealloc(sizeof(Vec) * (size_t)ckpt->nram, &ckpt->ramvecs));
    for (PetscInt k = ckpt->nramvecs; k < ckpt->nram; k++) ckpt->ramvecs[k] = NULL;
    ckpt->nramvecs = ckpt->nram;
  }
  PetscCall(PetscObjectReference((PetscObject)state_template));
  PetscCall(VecDestroy(&ckpt->template_vec));
  ckpt->template_vec = state_template;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjCheckpointSetUp(AdjCheckpoint ckpt, AdjStepIndex nsteps, Vec state_template)
{
  PetscFunctionBeginUser;
  PetscCheck(nsteps >= 1, ckpt->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "AdjCheckpointSetUp: nsteps = %" PRId64 ", must be >= 1", (int64_t)nsteps);
  PetscCheck(ckpt->store_all || ckpt->ram + ckpt->disk >= 1, ckpt->comm, PETSC_ERR_USER_INPUT,
             "-checkpoint_ram %" PetscInt_FMT " -checkpoint_disk %" PetscInt_FMT ": need at least one slot in total",
             ckpt->ram, ckpt->disk);
  CheckpointChooseSlots(ckpt, nsteps);
  ckpt->nsteps = nsteps;
  PetscCall(AdjRevolveDestroy(&ckpt->rev));
  PetscCall(AdjRevolveOnlineDestroy(&ckpt->onl));
  if (ckpt->online)
    PetscCall(AdjRevolveOnlineCreate(ckpt->nslots, &ckpt->onl));
  else
    PetscCall(AdjRevolveCreate(nsteps, ckpt->nslots, &ckpt->rev));
  ckpt->next_reverse = INT64_MAX;
  PetscCall(PetscFree(ckpt->slot_step));
  PetscCall(PetscMalloc1(ckpt->nslots, &ckpt->slot_step));
  for (PetscInt k = 0; k < ckpt->nslots; k++) ckpt->slot_step[k] = -1;
  PetscCall(CheckpointSetUpRAM(ckpt, state_template));
  if (ckpt->ndisk > 0)
    PetscCall(AdjCheckpointDiskOpen(ckpt, state_template, ckpt->ndisk));
  else
    PetscCall(AdjCheckpointDiskClose(ckpt));
  ckpt->last.type     = ADJ_REVOLVE_TERMINATE;
  ckpt->summary_done  = PETSC_FALSE;
  ckpt->nactions      = 0;
  ckpt->stopped_after = -1;
  PetscCall(PetscMemzero(&ckpt->stats, sizeof(ckpt->stats)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const char *CheckpointLevel(AdjCheckpoint ckpt, PetscInt position)
{
  return position < ckpt->ndisk ? "disk" : "ram";
}

static PetscErrorCode CheckpointMonitor(AdjCheckpoint ckpt, const AdjRevolveAction *a)
{
  PetscFunctionBeginUser;
  switch (a->type) {
  case ADJ_REVOLVE_TAKESHOT:
    PetscCall(PetscPrintf(ckpt->comm, "checkpoint: takeshot step %" PRId64 " slot %" PetscInt_FMT " (%s)\n",
                          (int64_t)a->from, a->slot, CheckpointLevel(ckpt, a->slot)));
    break;
  case ADJ_REVOLVE_ADVANCE:
    PetscCall(
        PetscPrintf(ckpt->comm, "checkpoint: advance %" PRId64 " -> %" PRId64 "\n", (int64_t)a->from, (int64_t)a->to));
    break;
  case ADJ_REVOLVE_REVERSE:
    PetscCall(PetscPrintf(ckpt->comm, "checkpoint: reverse step %" PRId64 "\n", (int64_t)a->to));
    break;
  case ADJ_REVOLVE_RESTORE:
    PetscCall(PetscPrintf(ckpt->comm, "checkpoint: restore step %" PRId64 " slot %" PetscInt_FMT " (%s)\n",
                          (int64_t)a->from, a->slot, CheckpointLevel(ckpt, a->slot)));
    break;
  case ADJ_REVOLVE_TERMINATE:
    if (!ckpt->summary_done) PetscCall(AdjCheckpointView(ckpt, PETSC_VIEWER_STDOUT_(ckpt->comm)));
    break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjCheckpointNext(AdjCheckpoint ckpt, AdjRevolveAction *action)
{
  PetscFunctionBeginUser;
  PetscCheck(ckpt->rev || ckpt->onl, ckpt->comm, PETSC_ERR_ORDER,
             "Call AdjCheckpointSetUp() before AdjCheckpointNext()");
  if (ckpt->onl)
    PetscCall(AdjRevolveOnlineNext(ckpt->onl, action));
  else
    PetscCall(AdjRevolveNext(ckpt->rev, action));
  if (action->type == ADJ_REVOLVE_REVERSE) ckpt->next_reverse = action->from;
  if (action->type == ADJ_REVOLVE_ADVANCE) ckpt->stats.forward_steps += action->to - action->from;
  if (action->type == ADJ_REVOLVE_REVERSE) {
    ckpt->stats.forward_steps++; /* the driver recomputes x_to before the adjoint of step `to` */
    ckpt->stats.reverse_steps++;
  }
  ckpt->last = *action;
  ckpt->nactions++;
  if (ckpt->monitor) PetscCall(CheckpointMonitor(ckpt, action));
  if (action->type == ADJ_REVOLVE_TERMINATE) ckpt->summary_done = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Store/Load execute exactly the action just handed out: a mismatch is a driver bug worth catching early. */
static PetscErrorCode CheckpointCheckAction(AdjCheckpoint ckpt, const AdjRevolveAction *a, AdjRevolveActionType type,
                                            const char *caller)
{
  PetscFunctionBeginUser;
  PetscCheck(
      a && a->type == type && ckpt->last.type == type && a->from == ckpt->last.from && a->slot == ckpt->last.slot,
      ckpt->comm, PETSC_ERR_ARG_WRONG,
      "%s: the action is not the %s just handed out by AdjCheckpointNext() (step %" PRId64 " slot %" PetscInt_FMT ")",
      caller, type == ADJ_REVOLVE_TAKESHOT ? "TAKESHOT" : "RESTORE", (int64_t)ckpt->last.from, ckpt->last.slot);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Online slots are not a stack: count the live ones (a snapshot of step k is dead once step k+1 is reversed;
   a checkpoint the forward sweep drops is overwritten at once, so it never lingers). */
static PetscErrorCode CheckpointOnlinePeaks(AdjCheckpoint ckpt)
{
  PetscInt disk = 0, ram = 0;

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < ckpt->nslots; k++) {
    if (ckpt->slot_step[k] < 0 || ckpt->slot_step[k] >= ckpt->next_reverse) continue;
    if (k < ckpt->ndisk)
      disk++;
    else
      ram++;
  }
  ckpt->stats.peak_disk = PetscMax(ckpt->stats.peak_disk, disk);
  ckpt->stats.peak_ram  = PetscMax(ckpt->stats.peak_ram, ram);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjCheckpointIsOnline(AdjCheckpoint ckpt, PetscBool *online)
{
  PetscFunctionBeginUser;
  *online = ckpt->online;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjCheckpointStop(AdjCheckpoint ckpt)
{
  PetscFunctionBeginUser;
  PetscCheck(ckpt->onl, ckpt->comm, PETSC_ERR_ORDER,
             "AdjCheckpointStop: only an online schedule (-checkpoint_type online, after AdjCheckpointSetUp) can stop");
  PetscCall(AdjRevolveOnlineStop(ckpt->onl));
  PetscCall(AdjRevolveOnlineGetStep(ckpt->onl, &ckpt->nsteps));
  ckpt->stopped_after = ckpt->nactions;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x into stack position pos: the disk file below ndisk, a RAM vector (made on first use) above. */
PetscErrorCode AdjCheckpointWriteSlot(AdjCheckpoint ckpt, PetscInt pos, Vec x)
{
  PetscFunctionBeginUser;
  if (pos < ckpt->ndisk)
    PetscCall(AdjCheckpointDiskWrite(ckpt, pos, x));
  else {
    Vec *v = &ckpt->ramvecs[pos - ckpt->ndisk];
    if (!*v) PetscCall(VecDuplicate(ckpt->template_vec, v));
    PetscCall(VecCopy(x, *v));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The bookkeeping of a TAKESHOT (slot contents aside): which step the slot holds, the counters and peaks. */
PetscErrorCode AdjCheckpointMarkShot(AdjCheckpoint ckpt, PetscInt pos, AdjStepIndex step)
{
  PetscFunctionBeginUser;
  ckpt->slot_step[pos] = step;
  ckpt->stats.snapshots_taken++;
  if (ckpt->online)
    PetscCall(CheckpointOnlinePeaks(ckpt));
  else {
    /* revolve pushes on top of its stack: positions 0..pos are now live, everything above is free */
    PetscInt live         = pos + 1;
    ckpt->stats.peak_disk = PetscMax(ckpt->stats.peak_disk, PetscMin(live, ckpt->ndisk));
    ckpt->stats.peak_ram  = PetscMax(ckpt->stats.peak_ram, live - PetscMin(live, ckpt->ndisk));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjCheckpointStore(AdjCheckpoint ckpt, const AdjRevolveAction *takeshot, Vec x)
{
  PetscInt pos;

  PetscFunctionBeginUser;
  PetscCall(CheckpointCheckAction(ckpt, takeshot, ADJ_REVOLVE_TAKESHOT, "AdjCheckpointStore"));
  pos = takeshot->slot;
  PetscCall(AdjCheckpointWriteSlot(ckpt, pos, x));
  PetscCall(AdjCheckpointMarkShot(ckpt, pos, takeshot->from));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjCheckpointLoad(AdjCheckpoint ckpt, const AdjRevolveAction *restore, Vec x)
{
  PetscInt pos;

  PetscFunctionBeginUser;
  PetscCall(CheckpointCheckAction(ckpt, restore, ADJ_REVOLVE_RESTORE, "AdjCheckpointLoad"));
  pos = restore->slot;
  PetscCheck(ckpt->slot_step[pos] == restore->from, ckpt->comm, PETSC_ERR_ORDER,
             "AdjCheckpointLoad: slot %" PetscInt_FMT " holds step %" PRId64 ", not %" PRId64
             " (was the TAKESHOT executed with AdjCheckpointStore?)",
             pos, (int64_t)ckpt->slot_step[pos], (int64_t)restore->from);
  if (pos < ckpt->ndisk)
    PetscCall(AdjCheckpointDiskRead(ckpt, pos, x));
  else
    PetscCall(VecCopy(ckpt->ramvecs[pos - ckpt->ndisk], x));
  ckpt->stats.restores++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjCheckpointGetStats(AdjCheckpoint ckpt, AdjCheckpointStats *stats)
{
  PetscFunctionBeginUser;
  *stats                  = ckpt->stats;
  stats->recomputed_steps = stats->forward_steps - ckpt->nsteps;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjCheckpointView(AdjCheckpoint ckpt, PetscViewer viewer)
{
  AdjCheckpointStats s;
  PetscBool          ascii;

  PetscFunctionBeginUser;
  if (!viewer) viewer = PETSC_VIEWER_STDOUT_(ckpt->comm);
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (!ascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(AdjCheckpointGetStats(ckpt, &s));
  PetscCall(PetscViewerASCIIPrintf(viewer,
                                   "AdjCheckpoint: %s, %" PetscInt_FMT " slots (%" PetscInt_FMT " RAM + %" PetscInt_FMT
                                   " disk) for %" PRId64 " steps\n",
                                   ckpt->store_all ? "store all" : (ckpt->online ? "online" : "revolve"), ckpt->nslots,
                                   ckpt->nram, ckpt->ndisk, (int64_t)ckpt->nsteps));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  if (ckpt->ndisk > 0) PetscCall(PetscViewerASCIIPrintf(viewer, "disk file: %s\n", ckpt->diskio.path));
  PetscCall(PetscViewerASCIIPrintf(viewer,
                                   "forward steps: %" PRId64 " (%" PRId64 " recomputed; optimum n + t(n,c) = %" PRId64
                                   "), reverse steps: %" PRId64 "\n",
                                   (int64_t)s.forward_steps, (int64_t)s.recomputed_steps,
                                   (int64_t)(ckpt->nsteps + AdjRevolveMinimalAdvances(ckpt->nsteps, ckpt->nslots)),
                                   (int64_t)s.reverse_steps));
  PetscCall(PetscViewerASCIIPrintf(viewer, "snapshots taken: %" PetscInt64_FMT ", restores: %" PetscInt64_FMT "\n",
                                   s.snapshots_taken, s.restores));
  PetscCall(PetscViewerASCIIPrintf(viewer, "peak states held: %" PetscInt_FMT " RAM, %" PetscInt_FMT " disk\n",
                                   s.peak_ram, s.peak_disk));
  PetscCall(PetscViewerASCIIPrintf(viewer, "disk bytes written: %" PetscInt64_FMT ", read: %" PetscInt64_FMT "\n",
                                   s.disk_bytes_written, s.disk_bytes_read));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjCheckpointDestroy(AdjCheckpoint *ckpt)
{
  AdjCheckpoint c;

  PetscFunctionBeginUser;
  if (!ckpt || !*ckpt) PetscFunctionReturn(PETSC_SUCCESS);
  c = *ckpt;
  PetscCall(AdjCheckpointDiskClose(c));
  PetscCall(PetscFree(c->diskio.dsets));
  for (PetscInt k = 0; k < c->nramvecs; k++) PetscCall(VecDestroy(&c->ramvecs[k]));
  PetscCall(PetscFree(c->ramvecs));
  PetscCall(VecDestroy(&c->template_vec));
  PetscCall(PetscFree(c->slot_step));
  PetscCall(AdjRevolveDestroy(&c->rev));
  PetscCall(AdjRevolveOnlineDestroy(&c->onl));
  PetscCall(PetscFree(*ckpt));
  PetscFunctionReturn(PETSC_SUCCESS);
}
