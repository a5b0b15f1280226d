/* Online checkpointing schedule: placement without knowing n (Wang, Moin & Iaccarino, SIAM J. Sci. Comput.
   31(4), 2009, dynamic checkpointing), reverse sweep by offline revolve on the intervals between the kept
   checkpoints. See include/adjsim/revolve.h for the rule and the cost formula.

   Bookkeeping of the forward sweep: the list L (sorted by step) holds the kept checkpoints and, as its last
   entry, the tentative checkpoint x_i = the caller's current state (stored only if rule (a) or (b) keeps it when
   the sweep moves on). So |L| <= delta = s + 1 and at most s entries occupy a slot. x_0 is stored at once (it
   is always needed) with level "infinity", so it is never dispensable and never replaced by rule (c). */
#include <adjsim/revolve.h>

#define ONLINE_LEVEL_INF PETSC_MAX_INT

typedef enum { ONLINE_START, ONLINE_FORWARD, ONLINE_REVERSE, ONLINE_DONE } AdjOnlinePhase;

typedef enum { ONLINE_KEEP_FREE, ONLINE_KEEP_REPLACE, ONLINE_DROP } AdjOnlineRule;

struct _p_AdjRevolveOnline {
  PetscInt       nslots;    /* s */
  AdjOnlinePhase phase;     /* start, forward sweep, reverse sweep, done */
  PetscInt       nlist;     /* |L| */
  AdjStepIndex  *step;      /* step[k]: step of entry k of L, increasing in k (size s + 1) */
  PetscInt      *level;     /* level[k]: its level (ONLINE_LEVEL_INF for x_0) */
  PetscInt      *slot;      /* slot[k]: its slot, -1 for the tentative last entry while not stored */
  PetscBool     *slot_used; /* slot_used[q]: slot q holds a live checkpoint */
  PetscInt       nlive;     /* number of used slots */
  AdjStepIndex   n;         /* final step, once stopped */
  /* reverse sweep */
  AdjStepIndex end;           /* next step to reverse */
  AdjRevolve   rev;           /* offline schedule of the current interval [step[nlist-1], end] */
  PetscInt    *revslot;       /* revolve stack position -> slot (size s) */
  AdjStepIndex base;          /* step[nlist-1] of the current interval */
  PetscInt     live_at_store; /* slots live right after the last TAKESHOT */
};

PetscErrorCode AdjRevolveOnlineCreate(PetscInt nslots, AdjRevolveOnline *on)
{
  AdjRevolveOnline o;

  PetscFunctionBeginUser;
  PetscCheck(on, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "AdjRevolveOnlineCreate: output argument is NULL");
  PetscCheck(nslots >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "Online checkpointing needs at least one slot (the one holding x_0), got nslots = %" PetscInt_FMT, nslots);
  PetscCall(PetscNew(&o));
  o->nslots = nslots;
  o->phase  = ONLINE_START;
  o->nlist  = 0;
  PetscCall(PetscMalloc4(nslots + 1, &o->step, nslots + 1, &o->level, nslots + 1, &o->slot, nslots, &o->slot_used));
  PetscCall(PetscMalloc1(nslots, &o->revslot));
  for (PetscInt q = 0; q < nslots; q++) o->slot_used[q] = PETSC_FALSE;
  o->nlive         = 0;
  o->n             = -1;
  o->end           = -1;
  o->rev           = NULL;
  o->base          = -1;
  o->live_at_store = 0;
  *on              = o;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjRevolveOnlineDestroy(AdjRevolveOnline *on)
{
  PetscFunctionBeginUser;
  if (!on || !*on) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(AdjRevolveDestroy(&(*on)->rev));
  PetscCall(PetscFree4((*on)->step, (*on)->level, (*on)->slot, (*on)->slot_used));
  PetscCall(PetscFree((*on)->revslot));
  PetscCall(PetscFree(*on));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void OnlineSetAction(AdjRevolveAction *a, AdjRevolveActionType type, AdjStepIndex from, AdjStepIndex to,
                            PetscInt slot)
{
  a->type = type;
  a->from = from;
  a->to   = to;
  a->slot = slot;
}

/* Index in L of the latest dispensable entry (a later entry has a higher level), or -1. The last entry has no
   later one, so it is never dispensable. O(|L|): scan backwards keeping the highest level seen. */
static PetscInt OnlineLatestDispensable(AdjRevolveOnline on)
{
  PetscInt maxlater = on->level[on->nlist - 1];

  for (PetscInt k = on->nlist - 2; k >= 0; k--) {
    if (on->level[k] < maxlater) return k;
    maxlater = PetscMax(maxlater, on->level[k]);
  }
  return -1;
}

/* Which rule applies when the sweep moves from the last entry of L to the next step (see revolve.h). */
static AdjOnlineRule OnlineRule(AdjRevolveOnline on, PetscInt *dispensable)
{
  *dispensable = -1;
  if (on->nlist < on->nslots + 1) return ONLINE_KEEP_FREE;
  *dispensable = OnlineLatestDispensable(on);
  return *dispensable >= 0 ? ONLINE_KEEP_REPLACE : ONLINE_DROP;
}

static PetscInt OnlineTakeFreeSlot(AdjRevolveOnline on)
{
  for (PetscInt q = 0; q < on->nslots; q++) {
    if (!on->slot_used[q]) {
      on->slot_used[q] = PETSC_TRUE;
      on->nlive++;
      return q;
    }
  }
  return -1; /* unreachable: at most s entries of L hold a slot */
}

static void OnlineFreeSlot(AdjRevolveOnline on, PetscInt q)
{
  on->slot_used[q] = PETSC_FALSE;
  on->nlive--;
}

/* Removes entry k of L (freeing its slot). */
static void OnlineRemoveEntry(AdjRevolveOnline on, PetscInt k)
{
  if (on->slot[k] >= 0) OnlineFreeSlot(on, on->slot[k]);
  for (PetscInt j = k; j < on->nlist - 1; j++) {
    on->step[j]  = on->step[j + 1];
    on->level[j] = on->level[j + 1];
    on->slot[j]  = on->slot[j + 1];
  }
  on->nlist--;
}

/* One forward decision at the current step i (the last entry of L). Returns TAKESHOT when x_i must be kept
   and is not stored yet; otherwise ADVANCE i -> i+1, updating L by the rule. Used both by Next and by the
   counting replay, so the two cannot disagree. */
static void OnlineForwardAction(AdjRevolveOnline on, AdjRevolveAction *a)
{
  PetscInt      last = on->nlist - 1, dispensable;
  AdjOnlineRule rule = OnlineRule(on, &dispensable);

  if (rule != ONLINE_DROP && on->slot[last] < 0) {
    if (rule == ONLINE_KEEP_REPLACE) {
      OnlineRemoveEntry(on, dispensable);
      last--;
    }
    on->slot[last] = OnlineTakeFreeSlot(on);
    OnlineSetAction(a, ADJ_REVOLVE_TAKESHOT, on->step[last], on->step[last], on->slot[last]);
    return;
  }
  OnlineSetAction(a, ADJ_REVOLVE_ADVANCE, on->step[last], on->step[last] + 1, -1);
  if (rule == ONLINE_DROP) { /* x_i is replaced by x_{i+1} one level up (x_0 is never dropped: level inf) */
    on->step[last]++;
    on->level[last]++;
  } else {
    on->step[last + 1]  = on->step[last] + 1;
    on->level[last + 1] = 0;
    on->slot[last + 1]  = -1;
    on->nlist++;
  }
}

static void OnlineStart(AdjRevolveOnline on, AdjRevolveAction *a)
{
  on->step[0]  = 0;
  on->level[0] = ONLINE_LEVEL_INF;
  on->slot[0]  = OnlineTakeFreeSlot(on);
  on->nlist    = 1;
  on->phase    = ONLINE_FORWARD;
  OnlineSetAction(a, ADJ_REVOLVE_TAKESHOT, 0, 0, on->slot[0]);
}

PetscErrorCode AdjRevolveOnlineStop(AdjRevolveOnline on)
{
  PetscInt last;

  PetscFunctionBeginUser;
  PetscCheck(on->phase == ONLINE_FORWARD && on->step[on->nlist - 1] >= 1 && on->slot[on->nlist - 1] < 0,
             PETSC_COMM_SELF, PETSC_ERR_ORDER,
             "AdjRevolveOnlineStop: call it once, right after an ADVANCE (the step it reached ends the run)");
  last  = on->nlist - 1;
  on->n = on->step[last];
  OnlineRemoveEntry(on, last); /* x_n is never stored: the reversal of step n recomputes it */
  on->phase = ONLINE_REVERSE;
  on->end   = on->n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Starts the interval [c, end] of the last entry c of L: offline revolve with the slot of c (its position 0)
   and every free slot, ascending, as positions 1.. (so the short-lived top of its stack gets the highest slots,
   the RAM ones when slots 0..disk-1 are on disk). */
static PetscErrorCode OnlineStartInterval(AdjRevolveOnline on, AdjRevolveAction *a)
{
  PetscInt j = on->nlist - 1, npos = 1;

  PetscFunctionBeginUser;
  on->base       = on->step[j];
  on->revslot[0] = on->slot[j];
  for (PetscInt q = 0; q < on->nslots; q++)
    if (!on->slot_used[q]) on->revslot[npos++] = q;
  PetscCheck(npos == on->nslots - j, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "online: %" PetscInt_FMT " slots for %" PetscInt_FMT, npos, on->nslots - j);
  PetscCall(AdjRevolveCreate(on->end - on->base, npos, &on->rev));
  OnlineSetAction(a, ADJ_REVOLVE_RESTORE, on->base, on->base, on->slot[j]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Next action of the reverse sweep: REVERSE n first (the caller holds x_{n-1}), then interval by interval. */
static PetscErrorCode OnlineReverseAction(AdjRevolveOnline on, AdjRevolveAction *a)
{
  PetscFunctionBeginUser;
  if (on->end == on->n) {
    OnlineSetAction(a, ADJ_REVOLVE_REVERSE, on->n - 1, on->n, -1);
    on->end--;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  while (PETSC_TRUE) {
    AdjRevolveAction r;

    if (!on->rev) {
      if (on->nlist == 0) {
        on->phase = ONLINE_DONE;
        OnlineSetAction(a, ADJ_REVOLVE_TERMINATE, 0, 0, -1);
        break;
      }
      if (on->step[on->nlist - 1] < on->end) {
        PetscCall(OnlineStartInterval(on, a));
        break;
      }
      OnlineRemoveEntry(on, on->nlist - 1); /* empty interval: the checkpoint is dead */
      continue;
    }
    PetscCall(AdjRevolveNext(on->rev, &r));
    if (r.type == ADJ_REVOLVE_TERMINATE) { /* every step after the interval's checkpoint is reversed */
      PetscCall(AdjRevolveDestroy(&on->rev));
      on->end = on->base;
      OnlineRemoveEntry(on, on->nlist - 1);
      continue;
    }
    if (r.type == ADJ_REVOLVE_TAKESHOT && r.slot == 0) continue; /* the interval's checkpoint is stored already */
    OnlineSetAction(a, r.type, r.from + on->base, r.to + on->base, r.slot >= 0 ? on->revslot[r.slot] : -1);
    if (r.type == ADJ_REVOLVE_TAKESHOT) on->live_at_store = on->nlive + r.slot; /* positions 0..slot live */
    break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjRevolveOnlineNext(AdjRevolveOnline on, AdjRevolveAction *action)
{
  PetscFunctionBeginUser;
  PetscCheck(on && action, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "AdjRevolveOnlineNext: NULL schedule or action");
  switch (on->phase) {
  case ONLINE_START:
    OnlineStart(on, action);
    on->live_at_store = on->nlive;
    break;
  case ONLINE_FORWARD:
    OnlineForwardAction(on, action);
    if (action->type == ADJ_REVOLVE_TAKESHOT) on->live_at_store = on->nlive;
    break;
  case ONLINE_REVERSE:
    PetscCall(OnlineReverseAction(on, action));
    break;
  case ONLINE_DONE:
    OnlineSetAction(action, ADJ_REVOLVE_TERMINATE, 0, 0, -1);
    break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjRevolveOnlineGetStep(AdjRevolveOnline on, AdjStepIndex *step)
{
  PetscFunctionBeginUser;
  if (on->phase == ONLINE_START)
    *step = 0;
  else if (on->phase == ONLINE_FORWARD)
    *step = on->step[on->nlist - 1];
  else
    *step = on->n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjRevolveOnlineGetLiveSlots(AdjRevolveOnline on, PetscInt *live)
{
  PetscFunctionBeginUser;
  *live = on->live_at_store;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The cost formula of revolve.h for the list L right after the ADVANCE to step n = the last entry of L. */
PetscErrorCode AdjRevolveOnlineCountIfStopped(AdjRevolveOnline on, AdjStepIndex *forward)
{
  AdjStepIndex n, total, end;

  PetscFunctionBeginUser;
  PetscCheck(on->phase == ONLINE_FORWARD && on->step[on->nlist - 1] >= 1 && on->slot[on->nlist - 1] < 0,
             PETSC_COMM_SELF, PETSC_ERR_ORDER, "AdjRevolveOnlineCountIfStopped: call it right after an ADVANCE");
  n     = on->step[on->nlist - 1];
  total = n + 1; /* the forward sweep to x_n, and the reversal of step n */
  end   = n - 1;
  for (PetscInt j = on->nlist - 2; j >= 0; j--) {
    AdjStepIndex l = end - on->step[j];
    if (l > 0) total += l + AdjRevolveMinimalAdvances(l, on->nslots - j);
    end = on->step[j];
  }
  *forward = total;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Replays the forward placement to step n and costs the reverse sweep by the closed form of revolve. */
PetscErrorCode AdjRevolveOnlineForwardCount(AdjStepIndex n, PetscInt nslots, AdjStepIndex *forward)
{
  AdjRevolveOnline on;
  AdjRevolveAction a;

  PetscFunctionBeginUser;
  PetscCheck(n >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "AdjRevolveOnlineForwardCount: n = %" PRId64 " < 1",
             (int64_t)n);
  PetscCall(AdjRevolveOnlineCreate(nslots, &on));
  OnlineStart(on, &a);
  do OnlineForwardAction(on, &a);
  while (!(a.type == ADJ_REVOLVE_ADVANCE && a.to == n));
  PetscCall(AdjRevolveOnlineCountIfStopped(on, forward));
  PetscCall(AdjRevolveOnlineDestroy(&on));
  PetscFunctionReturn(PETSC_SUCCESS);
}
