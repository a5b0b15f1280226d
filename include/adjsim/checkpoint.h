/* adjsim checkpoint: a two-level (RAM + disk) store of time-stepper states driven by the revolve schedule.

   Usage (one gradient):
     AdjCheckpointCreate(comm, &ckpt); AdjCheckpointSetFromOptions(ckpt);
     AdjCheckpointSetUp(ckpt, nsteps, x);           // x: the state Vec, used as layout template
     for (;;) {
       AdjCheckpointNext(ckpt, &a);
       TAKESHOT  -> AdjCheckpointStore(ckpt, &a, x)
       ADVANCE   -> step x from a.from to a.to
       REVERSE   -> recompute x_{a.to} from x (= x_{a.from}), run the adjoint of step a.to
       RESTORE   -> AdjCheckpointLoad(ckpt, &a, x)
       TERMINATE -> break
     }
   SetUp may be called again for the next gradient (same or different nsteps); storage is reused.

   Placement (multistage checkpointing, Stumm & Walther, SIAM J. Sci. Comput. 31(3), 2009):
   the schedule is revolve with c = ram + disk slots, so the forward count stays the optimum
   n + t(n,c). Revolve's slots form a stack whose bottom positions hold the longest-lived checkpoints,
   which are rewritten least often; stack positions 0..disk-1 therefore live on disk and the top
   `ram` positions in RAM, so that the slow level is touched as little as possible. When c exceeds
   what n steps can use (at most n-1 states are ever worth storing), the surplus is dropped from the
   disk level first.

   Disk level: one parallel HDF5 file (-checkpoint_disk_file), one contiguous dataset "/slot_<k>" of
   global length N per disk position k, created on first use and overwritten in place; each rank
   writes/reads its ownership range with collective MPI-IO. The file is removed by AdjCheckpointDestroy.

   Options (prefix -checkpoint_):
     -checkpoint_type <revolve|all|online>  revolve (default), store every step in RAM (c = n), or online: n is
                                     decided while running; SetUp gets the maximum, AdjCheckpointStop the end
     -checkpoint_ram <int>           RAM slots (default 10)
     -checkpoint_disk <int>          disk slots (default 0)
     -checkpoint_disk_file <path>    HDF5 file of the disk slots (default <output stem>-checkpoints.h5,
                                     adjsim-checkpoints.h5 without a run file); never an existing file
                                     that is not an adjsim checkpoint file, locked while in use
     -checkpoint_monitor             print every action, and the summary at TERMINATE

   Monitor lines (rank 0 of the communicator):
     checkpoint: takeshot step <i> slot <k> (ram|disk)
     checkpoint: advance <i> -> <j>
     checkpoint: reverse step <i>
     checkpoint: restore step <i> slot <k> (ram|disk)
   followed, when TERMINATE is handed out, by AdjCheckpointView on PETSC_VIEWER_STDOUT_(comm). */
#pragma once

#include <petscvec.h>
#include <adjsim/sys.h>
#include <adjsim/revolve.h>

typedef struct _p_AdjCheckpoint *AdjCheckpoint;

/** Counters of one gradient (reset by AdjCheckpointSetUp). Identical on every rank. */
typedef struct {
  AdjStepIndex forward_steps;    /* all forward step evaluations the schedule asks for (advances + one per reverse) */
  AdjStepIndex recomputed_steps; /* forward_steps - nsteps */
  AdjStepIndex reverse_steps;    /* REVERSE actions handed out */
  PetscInt     peak_ram, peak_disk;                 /* most states held at once per level */
  PetscInt64   disk_bytes_written, disk_bytes_read; /* global bytes (all ranks together) */
  PetscInt64   snapshots_taken, restores;           /* AdjCheckpointStore / AdjCheckpointLoad calls */
} AdjCheckpointStats;

/**
  @brief Creates a checkpoint store with defaults: revolve, 10 RAM slots, no disk slots, monitor off.

  Collective.

  @param[in]  comm communicator of the state vectors
  @param[out] ckpt the new object
*/
PetscErrorCode AdjCheckpointCreate(MPI_Comm comm, AdjCheckpoint *ckpt);

/**
  @brief Reads the -checkpoint_ options (run with -help for the list).

  Collective. Values set with AdjCheckpointSetSlots / AdjCheckpointSetStoreAll take precedence.
  Fails with PETSC_ERR_USER_INPUT on negative slot counts or ram + disk < 1.

  @param[in] ckpt the checkpoint store
*/
PetscErrorCode AdjCheckpointSetFromOptions(AdjCheckpoint ckpt);

/**
  @brief Sets the number of RAM and disk slots; overrides -checkpoint_ram and -checkpoint_disk.

  Logically collective. Takes effect at the next AdjCheckpointSetUp.

  @param[in] ckpt the checkpoint store
  @param[in] ram  RAM slots >= 0
  @param[in] disk disk slots >= 0, ram + disk >= 1
*/
PetscErrorCode AdjCheckpointSetSlots(AdjCheckpoint ckpt, PetscInt ram, PetscInt disk);

/**
  @brief Sets the disk file; overrides -checkpoint_disk_file. With `is_default`, only a default: the option
  and an earlier explicit call win (the driver names it after the run file so that runs never share it).

  Logically collective. Takes effect when the disk file is next created.
*/
PetscErrorCode AdjCheckpointSetDiskFile(AdjCheckpoint ckpt, const char path[], PetscBool is_default);

/**
  @brief The disk file in effect, and whether this store uses one (disk slots requested, revolve).

  Not collective.
*/
PetscErrorCode AdjCheckpointGetDiskFile(AdjCheckpoint ckpt, const char *path[], PetscBool *used);

/**
  @brief Stores every step in RAM (c = n; each reverse step still re-runs its forward step, see
  docs/checkpointing.md) instead of revolve; overrides -checkpoint_type.

  Logically collective. Takes effect at the next AdjCheckpointSetUp.

  @param[in] ckpt the checkpoint store
  @param[in] all  PETSC_TRUE to store every step
*/
PetscErrorCode AdjCheckpointSetStoreAll(AdjCheckpoint ckpt, PetscBool all);

/**
  @brief Uses the online schedule (n decided while running, AdjCheckpointStop) instead of revolve, or back to revolve;
  overrides -checkpoint_type.

  Logically collective. Takes effect at the next AdjCheckpointSetUp.
*/
PetscErrorCode AdjCheckpointSetOnline(AdjCheckpoint ckpt, PetscBool online);

/**
  @brief Builds the schedule for `nsteps` steps and prepares storage for states shaped like `state_template`.

  Collective. May be called again (next gradient, same or different nsteps): snapshots already
  allocated are reused when the layout is unchanged. Resets the statistics. Fails with
  PETSC_ERR_USER_INPUT if the disk file cannot be created.

  @param[in] ckpt           the checkpoint store
  @param[in] nsteps         number of time steps n >= 1
  @param[in] state_template a state vector (its layout is used; its values are not read)
*/
PetscErrorCode AdjCheckpointSetUp(AdjCheckpoint ckpt, AdjStepIndex nsteps, Vec state_template);

/**
  @brief Hands out the next action of the schedule and counts it; prints it when monitoring.

  Collective (same answer on every rank; printing is collective).

  @param[in]  ckpt   the checkpoint store
  @param[out] action the action to execute
*/
PetscErrorCode AdjCheckpointNext(AdjCheckpoint ckpt, AdjRevolveAction *action);

/**
  @brief Whether the schedule is online (-checkpoint_type online): the forward sweep is part of the schedule
  (ADVANCE of one step at a time) and the caller ends it with AdjCheckpointStop.

  Not collective.
*/
PetscErrorCode AdjCheckpointIsOnline(AdjCheckpoint ckpt, PetscBool *online);

/**
  @brief Online schedule only: the ADVANCE just executed (to step n) ends the run; n becomes the number of steps
  of the statistics. The caller must make x_{n-1} current again (the next action is REVERSE of step n).

  Collective (every rank must stop at the same step).
*/
PetscErrorCode AdjCheckpointStop(AdjCheckpoint ckpt);

/**
  @brief Executes a TAKESHOT action: copies x into the slot the action names (RAM or disk).

  Collective. `takeshot` must be the action just handed out by AdjCheckpointNext.

  @param[in] ckpt     the checkpoint store
  @param[in] takeshot the TAKESHOT action
  @param[in] x        the current state x_{takeshot->from}
*/
PetscErrorCode AdjCheckpointStore(AdjCheckpoint ckpt, const AdjRevolveAction *takeshot, Vec x);

/**
  @brief Executes a RESTORE action: copies the stored state into x.

  Collective. `restore` must be the action just handed out by AdjCheckpointNext.

  @param[in]  ckpt    the checkpoint store
  @param[in]  restore the RESTORE action
  @param[out] x       becomes x_{restore->from}
*/
PetscErrorCode AdjCheckpointLoad(AdjCheckpoint ckpt, const AdjRevolveAction *restore, Vec x);

/* Where a schedule stands, for a gradient run that stops (a signal) and continues in a later job: the number of
   actions handed out so far and, for an online schedule, after how many actions AdjCheckpointStop was called
   (-1: not stopped). With the states of the held slots this is all a fresh store needs to continue. */
typedef struct {
  int64_t nactions;
  int64_t stopped_after;
} AdjCheckpointPosition;

/**
  @brief The effective numbers of RAM and disk slots of the schedule set up last (AdjCheckpointSetUp). Not collective.
*/
PetscErrorCode AdjCheckpointGetSlotCounts(AdjCheckpoint ckpt, PetscInt *nram, PetscInt *ndisk);

/**
  @brief Where the schedule stands (see AdjCheckpointPosition). Not collective.
*/
PetscErrorCode AdjCheckpointGetPosition(AdjCheckpoint ckpt, AdjCheckpointPosition *pos);

/**
  @brief The slots whose states a continued run needs: every slot holding a state the schedule may still
  restore (with revolve every filled stack position, with the online schedule the live ones). `slots` and
  `steps` are allocated here (PetscFree them); `*nheld` may be 0. Not collective (the same on every rank).
*/
PetscErrorCode AdjCheckpointGetHeld(AdjCheckpoint ckpt, PetscInt *nheld, PetscInt **slots, AdjStepIndex **steps);

/**
  @brief Copies the state held in `slot` (RAM or disk) into x, without counting a restore. Collective.
*/
PetscErrorCode AdjCheckpointGetSlotState(AdjCheckpoint ckpt, PetscInt slot, Vec x);

/**
  @brief Brings a store just set up (AdjCheckpointSetUp, same configuration and n as the stopped run) to the
  position `pos` without executing anything: the same actions are handed out again internally (TAKESHOTs mark
  their slots, an online schedule stops where it stopped) and the counters become those of the stopped run.
  `last` receives the action handed out last (the one the stopped run was executing); the held slots must then
  be filled with AdjCheckpointSetSlotState before the next AdjCheckpointNext. Collective.
*/
PetscErrorCode AdjCheckpointReplay(AdjCheckpoint ckpt, const AdjCheckpointPosition *pos, AdjRevolveAction *last);

/**
  @brief After AdjCheckpointReplay: puts the state x of step `step` into `slot`, which the replayed schedule
  must have marked as holding that step. Collective.
*/
PetscErrorCode AdjCheckpointSetSlotState(AdjCheckpoint ckpt, PetscInt slot, AdjStepIndex step, Vec x);

/**
  @brief Returns the counters of the current gradient (exact: counted from the actions handed out).

  Not collective.

  @param[in]  ckpt  the checkpoint store
  @param[out] stats the counters
*/
PetscErrorCode AdjCheckpointGetStats(AdjCheckpoint ckpt, AdjCheckpointStats *stats);

/**
  @brief Prints the configuration and counters: forward, recomputed and reverse steps, peak RAM/disk
  states, disk bytes written/read.

  Collective.

  @param[in] ckpt   the checkpoint store
  @param[in] viewer an ASCII viewer, or NULL for PETSC_VIEWER_STDOUT_(comm)
*/
PetscErrorCode AdjCheckpointView(AdjCheckpoint ckpt, PetscViewer viewer);

/**
  @brief Frees all snapshots, closes and removes the disk file, sets the handle to NULL.

  Collective.

  @param[in,out] ckpt the checkpoint store (may point to NULL)
*/
PetscErrorCode AdjCheckpointDestroy(AdjCheckpoint *ckpt);
