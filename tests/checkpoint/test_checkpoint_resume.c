/* A schedule stopped after any action and continued by a fresh store (AdjCheckpointGetPosition, GetHeld,
   GetSlotState; AdjCheckpointReplay, SetSlotState) hands out the same remaining actions as the uninterrupted
   schedule, its restores return the same states bit for bit, and its counters end equal (disk bytes aside:
   they count the continuing store's own traffic).

   States are known in advance: x_k is a distinct vector per step (the truth), ADVANCE to k sets x = x_k,
   a REVERSE of step k requires x == x_{k-1} exactly, a RESTORE must give the stored step's state. Configurations:
   revolve in RAM (3 slots), revolve on RAM + disk (2 + 2: restores from the disk file), and the online schedule
   (2 + 2, stopped at step 23 of at most 30). For each, the run is stopped after every action m (a stop inside
   the online forward sweep, around its AdjCheckpointStop, and in the reverse sweep), the store destroyed (its
   disk file removed), and a new store continues from what the stopped one recorded. */
#include <adjsim/checkpoint.h>

#define MAXACT 4096

typedef struct {
  const char  *name;
  PetscBool    online;
  PetscInt     ram, disk;
  AdjStepIndex n, nstop; /* offline: n steps; online: at most n, stopped at nstop */
} Config;

/* What the executing driver knows besides the store: the state and where the sweep is. */
typedef struct {
  Vec          x;
  AdjStepIndex current, next_reverse;
  PetscBool    sweeping; /* online forward sweep */
} Run;

static PetscErrorCode Truth(Vec x, AdjStepIndex k)
{
  PetscScalar *a;
  PetscInt     n, rstart;

  PetscFunctionBeginUser;
  PetscCall(VecGetLocalSize(x, &n));
  PetscCall(VecGetOwnershipRange(x, &rstart, NULL));
  PetscCall(VecGetArray(x, &a));
  for (PetscInt i = 0; i < n; i++) a[i] = PetscSinReal(0.37 * (PetscReal)(rstart + i) + (PetscReal)k) + (PetscReal)k;
  PetscCall(VecRestoreArray(x, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckIsStep(Vec x, AdjStepIndex k, Vec work, const char *what)
{
  PetscReal diff;

  PetscFunctionBeginUser;
  PetscCall(Truth(work, k));
  PetscCall(VecAXPY(work, -1.0, x));
  PetscCall(VecNorm(work, NORM_INFINITY, &diff));
  PetscCheck(diff == 0.0, PetscObjectComm((PetscObject)x), PETSC_ERR_PLIB, "%s: the state is not x_%" PRId64 " (%g)",
             what, (int64_t)k, (double)diff);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Executes action a as a driver would (ADVANCE sets x to the truth; REVERSE consumes x). */
static PetscErrorCode Execute(AdjCheckpoint ckpt, const Config *cfg, const AdjRevolveAction *a, Run *r, Vec work)
{
  MPI_Comm comm = PetscObjectComm((PetscObject)r->x);

  PetscFunctionBeginUser;
  switch (a->type) {
  case ADJ_REVOLVE_TAKESHOT:
    PetscCall(CheckIsStep(r->x, a->from, work, "TAKESHOT"));
    PetscCall(AdjCheckpointStore(ckpt, a, r->x));
    break;
  case ADJ_REVOLVE_RESTORE:
    PetscCall(AdjCheckpointLoad(ckpt, a, r->x));
    PetscCall(CheckIsStep(r->x, a->from, work, "RESTORE"));
    r->current = a->from;
    break;
  case ADJ_REVOLVE_ADVANCE:
    PetscCheck(a->from == r->current, comm, PETSC_ERR_PLIB, "ADVANCE from %" PRId64 " at x_%" PRId64, (int64_t)a->from,
               (int64_t)r->current);
    PetscCall(Truth(r->x, a->to));
    r->current = a->to;
    if (r->sweeping && a->to == cfg->nstop) { /* the online run's stopping test: back to x_{n-1} */
      PetscCall(AdjCheckpointStop(ckpt));
      PetscCall(Truth(r->x, a->to - 1));
      r->current      = a->to - 1;
      r->next_reverse = a->to;
      r->sweeping     = PETSC_FALSE;
    }
    break;
  case ADJ_REVOLVE_REVERSE:
    PetscCheck(a->to == r->next_reverse && r->current == a->to - 1, comm, PETSC_ERR_PLIB,
               "REVERSE %" PRId64 " at x_%" PRId64 ", expected %" PRId64, (int64_t)a->to, (int64_t)r->current,
               (int64_t)r->next_reverse);
    PetscCall(CheckIsStep(r->x, a->to - 1, work, "REVERSE"));
    PetscCall(VecSet(r->x, 1.0e300)); /* consumed */
    r->current = -1;
    r->next_reverse--;
    break;
  default:
    break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode NewStore(const Config *cfg, Vec x, AdjCheckpoint *ckpt)
{
  PetscFunctionBeginUser;
  PetscCall(AdjCheckpointCreate(PetscObjectComm((PetscObject)x), ckpt));
  PetscCall(AdjCheckpointSetFromOptions(*ckpt));
  PetscCall(AdjCheckpointSetOnline(*ckpt, cfg->online));
  PetscCall(AdjCheckpointSetSlots(*ckpt, cfg->ram, cfg->disk));
  PetscCall(AdjCheckpointSetUp(*ckpt, cfg->n, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode StartRun(const Config *cfg, Run *r)
{
  PetscFunctionBeginUser;
  PetscCall(Truth(r->x, 0));
  r->current      = 0;
  r->next_reverse = cfg->online ? INT64_MAX : cfg->n;
  r->sweeping     = cfg->online;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Hands out and executes actions until TERMINATE or until `stop_after` actions (-1: no stop); each is checked
   against trace[] when `check`, recorded there otherwise. */
static PetscErrorCode Drive(AdjCheckpoint ckpt, const Config *cfg, Run *r, Vec work, int64_t stop_after,
                            AdjRevolveAction *trace, PetscBool check, int64_t *nactions)
{
  AdjCheckpointPosition pos;

  PetscFunctionBeginUser;
  for (;;) {
    AdjRevolveAction a;
    PetscCall(AdjCheckpointGetPosition(ckpt, &pos));
    if (pos.nactions == stop_after) break;
    PetscCall(AdjCheckpointNext(ckpt, &a));
    PetscCheck(pos.nactions < MAXACT, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "too many actions");
    if (check) {
      const AdjRevolveAction *t = &trace[pos.nactions];
      PetscCheck(a.type == t->type && a.from == t->from && a.to == t->to && a.slot == t->slot, PETSC_COMM_WORLD,
                 PETSC_ERR_PLIB, "%s: action %" PRId64 " differs from the uninterrupted schedule's", cfg->name,
                 pos.nactions);
    } else
      trace[pos.nactions] = a;
    if (a.type == ADJ_REVOLVE_TERMINATE) break;
    PetscCall(Execute(ckpt, cfg, &a, r, work));
  }
  PetscCall(AdjCheckpointGetPosition(ckpt, &pos));
  *nactions = pos.nactions;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Stop the schedule after m actions, record, destroy, continue with a new store; compare with the reference. */
static PetscErrorCode StopAndContinue(const Config *cfg, int64_t m, const AdjRevolveAction *trace, int64_t total,
                                      const AdjCheckpointStats *ref, Vec x, Vec work)
{
  AdjCheckpoint         a, b;
  AdjCheckpointPosition pos;
  AdjCheckpointStats    s;
  AdjRevolveAction      last;
  Run                   r = {.x = x};
  PetscInt              nheld, *slots;
  AdjStepIndex         *steps;
  Vec                  *held;
  int64_t               done;

  PetscFunctionBeginUser;
  PetscCall(NewStore(cfg, x, &a));
  PetscCall(StartRun(cfg, &r));
  PetscCall(Drive(a, cfg, &r, work, m, (AdjRevolveAction *)trace, PETSC_TRUE, &done));
  PetscCall(AdjCheckpointGetPosition(a, &pos));
  PetscCall(AdjCheckpointGetHeld(a, &nheld, &slots, &steps));
  PetscCall(VecDuplicateVecs(x, PetscMax(nheld, 1), &held));
  for (PetscInt i = 0; i < nheld; i++) PetscCall(AdjCheckpointGetSlotState(a, slots[i], held[i]));
  PetscCall(AdjCheckpointDestroy(&a));

  PetscCall(NewStore(cfg, x, &b));
  PetscCall(AdjCheckpointReplay(b, &pos, &last));
  PetscCheck(last.type == trace[m - 1].type && last.from == trace[m - 1].from && last.to == trace[m - 1].to,
             PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s m=%" PRId64 ": the replayed last action differs", cfg->name, m);
  for (PetscInt i = 0; i < nheld; i++) PetscCall(AdjCheckpointSetSlotState(b, slots[i], steps[i], held[i]));
  PetscCall(Drive(b, cfg, &r, work, -1, (AdjRevolveAction *)trace, PETSC_TRUE, &done));
  PetscCheck(done == total && r.next_reverse == 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB,
             "%s m=%" PRId64 ": ended after %" PRId64 " actions (uninterrupted: %" PRId64 "), next reverse %" PRId64,
             cfg->name, m, done, total, (int64_t)r.next_reverse);
  PetscCall(AdjCheckpointGetStats(b, &s));
  PetscCheck(s.forward_steps == ref->forward_steps && s.reverse_steps == ref->reverse_steps &&
                 s.snapshots_taken == ref->snapshots_taken && s.restores == ref->restores &&
                 s.peak_ram == ref->peak_ram && s.peak_disk == ref->peak_disk,
             PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s m=%" PRId64 ": counters differ from the uninterrupted run's",
             cfg->name, m);
  PetscCall(AdjCheckpointDestroy(&b));
  PetscCall(VecDestroyVecs(PetscMax(nheld, 1), &held));
  PetscCall(PetscFree(slots));
  PetscCall(PetscFree(steps));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunConfig(const Config *cfg, Vec x, Vec work)
{
  AdjCheckpoint      ckpt;
  AdjCheckpointStats ref;
  AdjRevolveAction  *trace;
  Run                r = {.x = x};
  int64_t            total;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(MAXACT, &trace));
  PetscCall(NewStore(cfg, x, &ckpt));
  PetscCall(StartRun(cfg, &r));
  PetscCall(Drive(ckpt, cfg, &r, work, -1, trace, PETSC_FALSE, &total));
  PetscCall(AdjCheckpointGetStats(ckpt, &ref));
  PetscCall(AdjCheckpointDestroy(&ckpt));
  for (int64_t m = 1; m < total; m++) PetscCall(StopAndContinue(cfg, m, trace, total, &ref, x, work));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-14s %3" PRId64 " actions: stopped after each and continued, identical\n",
                        cfg->name, total));
  PetscCall(PetscFree(trace));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const Config configs[] = {
      {"revolve ram3", PETSC_FALSE, 3, 0, 23, 23},
      {"revolve 2+2", PETSC_FALSE, 2, 2, 23, 23},
      {"online 2+2", PETSC_TRUE, 2, 2, 30, 23},
  };
  Vec x, work;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(VecCreate(PETSC_COMM_WORLD, &x));
  PetscCall(VecSetSizes(x, 5, PETSC_DECIDE));
  PetscCall(VecSetFromOptions(x));
  PetscCall(VecDuplicate(x, &work));
  for (size_t i = 0; i < sizeof(configs) / sizeof(configs[0]); i++) PetscCall(RunConfig(&configs[i], x, work));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&work));
  PetscCall(PetscFinalize());
  return 0;
}
