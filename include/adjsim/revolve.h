/* adjsim revolve: the binomial checkpointing schedule (Griewank & Walther, ACM TOMS 26(1), 2000, Alg. 799).

   Pure bookkeeping: no storage, no MPI. The caller (usually AdjCheckpoint) executes the actions.

   Conventions
   - n time steps; step k maps the state x_{k-1} to x_k, k = 1..n.
   - c slots, counting every slot including the one that holds x_0 (the revolve convention).
   - Slots form a stack: position 0 (bottom, oldest) holds x_0; a snapshot is always pushed on the
     top, and a checkpoint at step k is popped (silently) once every step > k has been reversed.
   - The schedule is optimal: the forward step evaluations it asks for (sum of ADVANCE lengths plus
     one per REVERSE, which recomputes x_to from x_{to-1}) total exactly n + t(n,c), where
     t(n,c) = r n - C(c+r, r-1) and r is the smallest integer with C(c+r, c) >= n. */
#pragma once

#include <adjsim/sys.h>

/** What the driver must do next. */
typedef enum {
  ADJ_REVOLVE_TAKESHOT, /**< copy the current state x_from into stack position `slot` */
  ADJ_REVOLVE_ADVANCE,  /**< run forward steps from+1..to, the current state becomes x_to */
  ADJ_REVOLVE_REVERSE,  /**< recompute x_to from the current state x_from (= x_{to-1}) and run the adjoint of step
                           `to`; afterwards the current state is undefined (a RESTORE or TERMINATE follows) */
  ADJ_REVOLVE_RESTORE,  /**< the current state becomes the stored x_from of stack position `slot` */
  ADJ_REVOLVE_TERMINATE /**< all n steps have been reversed */
} AdjRevolveActionType;

/** One action of the schedule. */
typedef struct {
  AdjRevolveActionType type;
  AdjStepIndex         from, to; /* TAKESHOT/RESTORE: to == from; ADVANCE: to > from; REVERSE: from == to - 1 */
  PetscInt             slot;     /* TAKESHOT/RESTORE: stack position 0..c-1 (0 = bottom = x_0); otherwise -1 */
} AdjRevolveAction;

typedef struct _p_AdjRevolve *AdjRevolve;

/**
  @brief Creates the optimal binomial schedule for `nsteps` steps with `nslots` checkpoint slots.

  Not collective. The first action is always TAKESHOT of x_0 into slot 0.

  @param[in]  nsteps number of time steps n >= 1
  @param[in]  nslots number of slots c >= 1 (including the one holding x_0); c >= n stores everything useful
  @param[out] rev    the new schedule
*/
PetscErrorCode AdjRevolveCreate(AdjStepIndex nsteps, PetscInt nslots, AdjRevolve *rev);

/**
  @brief Returns the next action of the schedule.

  Not collective. After the TERMINATE action, every further call returns TERMINATE again.

  @param[in]  rev    the schedule
  @param[out] action the action to execute
*/
PetscErrorCode AdjRevolveNext(AdjRevolve rev, AdjRevolveAction *action);

/**
  @brief Destroys the schedule and sets the handle to NULL.

  @param[in,out] rev the schedule (may point to NULL)
*/
PetscErrorCode AdjRevolveDestroy(AdjRevolve *rev);

/**
  @brief Repetition number: the smallest r >= 0 with C(c+r, c) >= n.

  Not collective. Exact for any n representable in AdjStepIndex (binomials saturate, never overflow).
  r is the largest number of times any single step is evaluated forward by the optimal schedule
  (counting the recomputation done at its reversal).

  @param[in] n number of steps (n <= 1 gives 0)
  @param[in] c number of slots >= 1
*/
AdjStepIndex AdjRevolveRepetitionNumber(AdjStepIndex n, PetscInt c);

/**
  @brief Minimal number of extra forward steps t(n,c) = r n - C(c+r, r-1), r = AdjRevolveRepetitionNumber(n, c).

  Not collective. The optimal schedule evaluates n + t(n,c) forward steps in total; t(n,1) = n(n-1)/2,
  t(n,c) = n - 1 for c >= n - 1 (everything useful is stored). Exact as long as r n fits in 64 bits.

  @param[in] n number of steps (n <= 0 gives 0)
  @param[in] c number of slots >= 1
*/
AdjStepIndex AdjRevolveMinimalAdvances(AdjStepIndex n, PetscInt c);

/* ---------------------------------------------------------------------------------------------------------------
   Online checkpointing: the number of steps n is not known while the forward sweep runs (steady state, an event,
   adaptive steps). AdjRevolveOnline decides which states to keep from the steps seen so far only, with at most
   s slots (the same count as revolve's c: slot 0 holds x_0), and once told where the run stopped it hands out the
   reverse sweep with the same action types as AdjRevolve.

   Placement (forward sweep): the dynamic checkpointing rule of Wang, Moin & Iaccarino (SIAM J. Sci. Comput. 31(4),
   2009). Every checkpoint has a level; x_0 has level infinity. The newest state is a tentative checkpoint of its
   own (the caller's current state, not a slot), so the rule runs with delta = s + 1 checkpoints. Going from
   step i to i+1, with a checkpoint list L whose last entry is x_i:
     (a) |L| < delta:                      keep x_i (TAKESHOT into a free slot), x_{i+1} enters with level 0;
     (b) else, if some entry is dispensable (a later entry has a higher level): drop the latest such entry, keep
         x_i in its slot, x_{i+1} enters with level 0;
     (c) else:                              x_i is not kept; x_{i+1} replaces it with level(x_i) + 1.
   Only (a) and (b) write a slot, so a state is written at most once in the forward sweep.

   Reverse sweep: when the run stops at step n the caller still holds x_{n-1} (the last ADVANCE was one step from
   it), so step n is reversed at once. The kept checkpoints c_0 = 0 < c_1 < ... < c_{m-1} <= n-1 split the rest
   into intervals [c_j, e_j], reversed from the last one down with offline revolve (optimal for the interval) and
   s - j slots (the one of c_j and every slot not holding c_0..c_{j-1}).
   Forward count: n (forward sweep, x_n included: the stopping test needs it) + 1 (REVERSE n)
                  + sum_j [L_j + t(L_j, s - j)],  L_j = e_j - c_j > 0;
   never below the offline optimum n + t(n, s) (a valid schedule with s slots), and 1 above it when every
   state fits (s >= n - 1): x_n is evaluated twice, by the forward sweep and by the reversal.

   Use:
     AdjRevolveOnlineCreate(s, &on);
     loop: AdjRevolveOnlineNext(on, &a): TAKESHOT (store the current state) or ADVANCE by one step;
           after an ADVANCE to step k that is to be the last, call AdjRevolveOnlineStop(on) and make
           x_{k-1} (the state the step started from) current again;
     then AdjRevolveOnlineNext hands out REVERSE/RESTORE/ADVANCE/TAKESHOT actions as AdjRevolve, then TERMINATE.
   ------------------------------------------------------------------------------------------------------------- */
typedef struct _p_AdjRevolveOnline *AdjRevolveOnline;

/**
  @brief Creates an online schedule with `nslots` slots (slot 0 holds x_0). Not collective.

  @param[in]  nslots slots s >= 1
  @param[out] on     the new schedule
*/
PetscErrorCode AdjRevolveOnlineCreate(PetscInt nslots, AdjRevolveOnline *on);

/**
  @brief Next action. Before AdjRevolveOnlineStop: TAKESHOT (slot in 0..s-1) or ADVANCE of exactly one step;
  after it, the reverse sweep as in AdjRevolveNext, ending with TERMINATE (repeated on further calls).

  Not collective.
*/
PetscErrorCode AdjRevolveOnlineNext(AdjRevolveOnline on, AdjRevolveAction *action);

/**
  @brief The run stops: the last ADVANCE (to step n >= 1) ends it. The caller must make x_{n-1} current again
  (the next action is REVERSE of step n). Fails with PETSC_ERR_ORDER if no step was advanced or if called twice.

  Not collective.
*/
PetscErrorCode AdjRevolveOnlineStop(AdjRevolveOnline on);

/**
  @brief The current step of the forward sweep, or the final n once stopped. Not collective.
*/
PetscErrorCode AdjRevolveOnlineGetStep(AdjRevolveOnline on, AdjStepIndex *step);

/**
  @brief Number of slots holding a live checkpoint now (<= s). Not collective.
*/
PetscErrorCode AdjRevolveOnlineGetLiveSlots(AdjRevolveOnline on, PetscInt *live);

/**
  @brief Destroys the schedule and sets the handle to NULL.
*/
PetscErrorCode AdjRevolveOnlineDestroy(AdjRevolveOnline *on);

/**
  @brief Right after an ADVANCE (before any AdjRevolveOnlineStop): the total forward step evaluations if the run
  stopped at the step just reached, by the formula above (O(s) revolve counts). Lets one sweep cost every n.
  Not collective.
*/
PetscErrorCode AdjRevolveOnlineCountIfStopped(AdjRevolveOnline on, AdjStepIndex *forward);

/**
  @brief Total forward step evaluations of the online schedule for a run stopping at n with s slots, by the
  formula above: the forward placement is replayed (O(n s) bookkeeping, no actions), the intervals are costed
  with AdjRevolveMinimalAdvances. Not collective.

  @param[in]  n       final step n >= 1
  @param[in]  nslots  slots s >= 1
  @param[out] forward n + 1 + sum_j [L_j + t(L_j, s - j)]
*/
PetscErrorCode AdjRevolveOnlineForwardCount(AdjStepIndex n, PetscInt nslots, AdjStepIndex *forward);
