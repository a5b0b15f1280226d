/* Test helper: executes a revolve schedule on a simulated time stepper that only tracks step numbers,
   checks that every action is legal and counts the work. Independent of the library's internals. */
#pragma once

#include <adjsim/revolve.h>

typedef struct {
  AdjStepIndex forward;   /* sum of ADVANCE lengths + one per REVERSE */
  AdjStepIndex actions;   /* actions handed out, TERMINATE excluded */
  AdjStepIndex takeshots; /* snapshots taken */
  AdjStepIndex restores;  /* snapshots read back */
  PetscInt     peak_live; /* most live checkpoints at once */
} SimResult;

#define SimCheck(cond, ...)                                                                                            \
  do {                                                                                                                 \
    if (!(cond)) {                                                                                                     \
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "FAIL n=%" PRId64 " c=%" PetscInt_FMT " action #%" PRId64 ": ",           \
                            (int64_t)n, c, (int64_t)res->actions));                                                    \
      PetscCall(PetscPrintf(PETSC_COMM_SELF, __VA_ARGS__));                                                            \
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n"));                                                                   \
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "revolve schedule check failed");                                       \
    }                                                                                                                  \
  } while (0)

/* Runs the schedule (n steps, c slots). With full_checks, every TAKESHOT/RESTORE also scans all c slots
   to confirm the stack discipline from the slot contents alone (O(c) per action). */
static inline PetscErrorCode SimulateSchedule(AdjStepIndex n, PetscInt c, PetscBool full_checks, SimResult *res)
{
  AdjRevolve       rev;
  AdjRevolveAction a;
  AdjStepIndex    *slot_step;                     /* step held by each slot, -1 if never written */
  AdjStepIndex     current = 0, next_reverse = n; /* the driver starts from x_0 */
  PetscInt         nlive       = 0;               /* live slots are 0..nlive-1 (checked in full mode) */
  AdjStepIndex     max_actions = 8 * n + 1000;    /* guard against an endless schedule (actions <= ~4n) */

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(res, sizeof(*res)));
  PetscCall(PetscMalloc1(c, &slot_step));
  for (PetscInt k = 0; k < c; k++) slot_step[k] = -1;
  PetscCall(AdjRevolveCreate(n, c, &rev));
  for (;;) {
    PetscCall(AdjRevolveNext(rev, &a));
    if (a.type == ADJ_REVOLVE_TERMINATE) break;
    res->actions++;
    SimCheck(res->actions <= max_actions, "more than %" PRId64 " actions, schedule does not terminate", max_actions);
    switch (a.type) {
    case ADJ_REVOLVE_TAKESHOT:
      SimCheck(current >= 0 && a.from == current && a.to == a.from,
               "TAKESHOT of step %" PRId64 "->%" PRId64 " but current state is step %" PRId64, a.from, a.to, current);
      SimCheck(a.slot >= 0 && a.slot < c, "TAKESHOT into slot %" PetscInt_FMT " outside 0..%" PetscInt_FMT, a.slot,
               c - 1);
      SimCheck(a.slot == nlive, "TAKESHOT into slot %" PetscInt_FMT " but the top of the stack is slot %" PetscInt_FMT,
               a.slot, nlive);
      /* storing x_{end-1} is useless: it dies right after reversing step `end` (x_0 is always stored first) */
      SimCheck(a.from == 0 || a.from < next_reverse - 1,
               "TAKESHOT of step %" PRId64 " which is dead right after reversing step %" PRId64, a.from, next_reverse);
      if (full_checks) {
        for (PetscInt k = 0; k < a.slot; k++)
          SimCheck(slot_step[k] >= 0 && slot_step[k] < next_reverse && slot_step[k] < a.from,
                   "TAKESHOT into slot %" PetscInt_FMT " but slot %" PetscInt_FMT " below holds step %" PRId64
                   " (not live or not older)",
                   a.slot, k, slot_step[k]);
        for (PetscInt k = a.slot; k < c; k++)
          SimCheck(slot_step[k] < 0 || slot_step[k] >= next_reverse,
                   "TAKESHOT into slot %" PetscInt_FMT " overwrites or sits below live step %" PRId64
                   " in slot %" PetscInt_FMT,
                   a.slot, slot_step[k], k);
      }
      slot_step[a.slot] = a.from;
      nlive             = a.slot + 1;
      res->peak_live    = PetscMax(res->peak_live, nlive);
      res->takeshots++;
      break;
    case ADJ_REVOLVE_ADVANCE:
      SimCheck(current >= 0 && a.from == current, "ADVANCE from %" PRId64 " but current state is step %" PRId64, a.from,
               current);
      SimCheck(a.to > a.from && a.to <= next_reverse - 1,
               "ADVANCE %" PRId64 " -> %" PRId64 " is empty or goes past step %" PRId64 " (next reverse %" PRId64 ")",
               a.from, a.to, next_reverse - 1, next_reverse);
      res->forward += a.to - a.from;
      current = a.to;
      break;
    case ADJ_REVOLVE_REVERSE:
      SimCheck(a.to == next_reverse && a.from == a.to - 1,
               "REVERSE %" PRId64 "->%" PRId64 " but step %" PRId64 " is next in order n..1", a.from, a.to,
               next_reverse);
      SimCheck(current == a.from, "REVERSE step %" PRId64 " needs x_%" PRId64 " but current state is step %" PRId64,
               a.to, a.from, current);
      res->forward++;
      next_reverse--;
      current = -1;
      if (nlive > 0 && slot_step[nlive - 1] >= next_reverse) nlive--;
      break;
    case ADJ_REVOLVE_RESTORE:
      SimCheck(a.slot >= 0 && a.slot < c, "RESTORE from slot %" PetscInt_FMT " outside 0..%" PetscInt_FMT, a.slot,
               c - 1);
      SimCheck(slot_step[a.slot] == a.from && a.to == a.from,
               "RESTORE step %" PRId64 " from slot %" PetscInt_FMT " which holds step %" PRId64, a.from, a.slot,
               slot_step[a.slot]);
      SimCheck(a.from < next_reverse, "RESTORE of dead step %" PRId64 " (next reverse %" PRId64 ")", a.from,
               next_reverse);
      SimCheck(a.slot == nlive - 1,
               "RESTORE from slot %" PetscInt_FMT " but the newest live checkpoint is slot %" PetscInt_FMT, a.slot,
               nlive - 1);
      res->restores++;
      current = a.from;
      break;
    default:
      SimCheck(PETSC_FALSE, "unknown action type %d", (int)a.type);
    }
  }
  SimCheck(next_reverse == 0, "TERMINATE before all steps reversed: next reverse would be %" PRId64, next_reverse);
  for (int extra = 0; extra < 3; extra++) {
    PetscCall(AdjRevolveNext(rev, &a));
    SimCheck(a.type == ADJ_REVOLVE_TERMINATE, "action type %d handed out after TERMINATE", (int)a.type);
  }
  PetscCall(AdjRevolveDestroy(&rev));
  SimCheck(rev == NULL, "AdjRevolveDestroy did not set the handle to NULL");
  PetscCall(PetscFree(slot_step));
  PetscFunctionReturn(PETSC_SUCCESS);
}
