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
