/* Test helper: executes an online checkpointing schedule (AdjRevolveOnline) that stops at step n, on a
   simulated stepper whose state is a number: x_k = Phi_k(x_{k-1}) with a nonlinear integer map, so that a
   state restored from the wrong slot or stepped from the wrong step is caught by its value, not by its label.
   Checks every action and counts the work; independent of the library's internals. */
#pragma once

#include <adjsim/revolve.h>

typedef struct {
  AdjStepIndex forward;   /* ADVANCE lengths + one per REVERSE (the forward sweep included) */
  AdjStepIndex takeshots; /* TAKESHOT actions */
  AdjStepIndex restores;  /* RESTORE actions */
  PetscInt     max_slot;  /* highest slot index used */
} OnlineSimResult;

static inline uint64_t OnlineSimStep(uint64_t x, AdjStepIndex k)
{
  x ^= (uint64_t)k * 0x9E3779B97F4A7C15ull;
  x *= 0xBF58476D1CE4E5B9ull;
  return x ^ (x >> 31);
}

#define OnlineSimCheck(cond, ...)                                                                                      \
  do {                                                                                                                 \
    if (!(cond)) {                                                                                                     \
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "FAIL online n=%" PRId64 " s=%" PetscInt_FMT ": ", (int64_t)n, s));       \
      PetscCall(PetscPrintf(PETSC_COMM_SELF, __VA_ARGS__));                                                            \
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n"));                                                                   \
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "online schedule check failed");                                        \
    }                                                                                                                  \
  } while (0)

/* Runs one action on the simulated state; `truth` holds x_0..x_n (the plain forward sweep). */
static inline PetscErrorCode OnlineSimAction(AdjStepIndex n, PetscInt s, const AdjRevolveAction *a,
                                             const uint64_t *truth, uint64_t *slots, AdjStepIndex *slot_step,
                                             uint64_t *x, AdjStepIndex *cur, AdjStepIndex *next_reverse,
                                             PetscBool forward_phase, OnlineSimResult *res)
{
  PetscFunctionBeginUser;
  switch (a->type) {
  case ADJ_REVOLVE_TAKESHOT:
    OnlineSimCheck(*cur >= 0 && a->from == *cur && a->to == a->from, "TAKESHOT %" PRId64 " at state %" PRId64, a->from,
                   *cur);
    OnlineSimCheck(a->slot >= 0 && a->slot < s, "TAKESHOT into slot %" PetscInt_FMT " outside 0..s-1", a->slot);
    slots[a->slot]     = *x;
    slot_step[a->slot] = a->from;
    res->max_slot      = PetscMax(res->max_slot, a->slot);
    res->takeshots++;
    break;
  case ADJ_REVOLVE_ADVANCE:
    OnlineSimCheck(*cur >= 0 && a->from == *cur && a->to > a->from,
                   "ADVANCE %" PRId64 "->%" PRId64 " at state %" PRId64, a->from, a->to, *cur);
    OnlineSimCheck(forward_phase ? a->to == a->from + 1 : a->to < *next_reverse,
                   "ADVANCE %" PRId64 "->%" PRId64 " (forward sweep: one step; reverse: below %" PRId64 ")", a->from,
                   a->to, *next_reverse);
    for (AdjStepIndex k = a->from + 1; k <= a->to; k++) *x = OnlineSimStep(*x, k);
    res->forward += a->to - a->from;
    *cur = a->to;
    break;
  case ADJ_REVOLVE_REVERSE:
    OnlineSimCheck(!forward_phase && a->to == *next_reverse && a->from == a->to - 1 && *cur == a->from,
                   "REVERSE %" PRId64 " at state %" PRId64 ", expected step %" PRId64, a->to, *cur, *next_reverse);
    OnlineSimCheck(*x == truth[a->from] && OnlineSimStep(*x, a->to) == truth[a->to],
                   "REVERSE %" PRId64 ": the current state is not x_%" PRId64, a->to, a->from);
    res->forward++;
    (*next_reverse)--;
    *cur = -1;
    break;
  case ADJ_REVOLVE_RESTORE:
    OnlineSimCheck(!forward_phase && a->slot >= 0 && a->slot < s && slot_step[a->slot] == a->from &&
                       a->from < *next_reverse,
                   "RESTORE step %" PRId64 " from slot %" PetscInt_FMT " holding %" PRId64, a->from, a->slot,
                   a->slot >= 0 && a->slot < s ? slot_step[a->slot] : -2);
    OnlineSimCheck(slots[a->slot] == truth[a->from],
                   "RESTORE step %" PRId64 ": slot %" PetscInt_FMT " holds another state", a->from, a->slot);
    *x   = slots[a->slot];
    *cur = a->from;
    res->restores++;
    break;
  default:
    OnlineSimCheck(PETSC_FALSE, "action type %d %s", (int)a->type, forward_phase ? "in the forward sweep" : "");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Runs the online schedule with s slots, stopping after the ADVANCE that reaches step n. */
static inline PetscErrorCode OnlineSimulate(AdjStepIndex n, PetscInt s, OnlineSimResult *res)
{
  AdjRevolveOnline on;
  AdjRevolveAction a;
  uint64_t        *truth, *slots, x = 12345, prev = 0;
  AdjStepIndex    *slot_step, cur = 0, next_reverse = n + 1, step, max_actions = 16 * n + 1000, actions = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(res, sizeof(*res)));
  PetscCall(PetscMalloc3(n + 1, &truth, s, &slots, s, &slot_step));
  truth[0] = x;
  for (AdjStepIndex k = 1; k <= n; k++) truth[k] = OnlineSimStep(truth[k - 1], k);
  for (PetscInt q = 0; q < s; q++) slot_step[q] = -1;
  PetscCall(AdjRevolveOnlineCreate(s, &on));
  for (PetscBool stopped = PETSC_FALSE; !stopped;) { /* forward sweep: n is not told to the schedule */
    PetscCall(AdjRevolveOnlineNext(on, &a));
    OnlineSimCheck(++actions <= max_actions, "forward sweep does not reach step %" PRId64, n);
    prev = x;
    PetscCall(OnlineSimAction(n, s, &a, truth, slots, slot_step, &x, &cur, &next_reverse, PETSC_TRUE, res));
    if (a.type == ADJ_REVOLVE_ADVANCE && a.to == n) {
      PetscCall(AdjRevolveOnlineStop(on));
      x            = prev; /* the caller makes x_{n-1} current again */
      cur          = n - 1;
      next_reverse = n;
      stopped      = PETSC_TRUE;
    }
  }
  PetscCall(AdjRevolveOnlineGetStep(on, &step));
  OnlineSimCheck(step == n, "AdjRevolveOnlineGetStep gives %" PRId64 " after the stop", step);
  for (;;) {
    PetscCall(AdjRevolveOnlineNext(on, &a));
    if (a.type == ADJ_REVOLVE_TERMINATE) break;
    OnlineSimCheck(++actions <= max_actions, "reverse sweep does not terminate");
    PetscCall(OnlineSimAction(n, s, &a, truth, slots, slot_step, &x, &cur, &next_reverse, PETSC_FALSE, res));
  }
  OnlineSimCheck(next_reverse == 0, "TERMINATE with step %" PRId64 " not reversed", next_reverse);
  PetscCall(AdjRevolveOnlineNext(on, &a));
  OnlineSimCheck(a.type == ADJ_REVOLVE_TERMINATE, "action %d after TERMINATE", (int)a.type);
  PetscCall(AdjRevolveOnlineDestroy(&on));
  OnlineSimCheck(on == NULL, "AdjRevolveOnlineDestroy did not set the handle to NULL");
  PetscCall(PetscFree3(truth, slots, slot_step));
  PetscFunctionReturn(PETSC_SUCCESS);
}
