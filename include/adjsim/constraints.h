/* AdjConstraints: the design constraints of an optimization (src/optim/constraints.c).
 *
 * A constraint is a named scalar function v(p) of the design p with an exact gradient, and a bound b:
 *   v(p) = b (eq),  v(p) >= b (ge),  v(p) <= b (le).
 * Two families, for any solver that offers the two optional stepper operations (include/adjsim/stepperimpl.h):
 *   flow        an output functional of the solver (selectobjective: "lift" C_L, "drag" C_D, "lift_to_drag"
 *               C_L/C_D, over the objective's time window), each with its own adjoint solve: the driver's
 *               gradient (AdjDriverGradient) with the objective replaced by the functional alone (any Tikhonov
 *               regularization of the parameters is taken out again)
 *   geometric   a measure of the solver's body shape (getshape; AdjShapeMeasureEvaluate: thickness at chord
 *               stations, max_thickness, area, le_radius, te_angle), gradient analytic (dual numbers), mapped
 *               onto the design through the shape's parameter block (scale included)
 * Options (prefix -optimize_constraint):
 *   -optimize_constraints NAME[,NAME...]       which constraints (the names above)
 *   -optimize_constraint_NAME eq|ge|le          sense (required for each listed NAME)
 *   -optimize_constraint_NAME_value b[,b...]    bound (default: the value at the initial design)
 *   -optimize_constraint_thickness_at x[,x...]  chord stations of the thickness (one constraint each)
 *   -optimize_constraint_NAME_point k[,k...]    multipoint: the design points of a flow constraint (one each)
 * TAO form (TAOALMM): equalities v - b = 0; inequalities v - b >= 0 (ge) or b - v >= 0 (le). */
#pragma once

#include <adjsim/driver.h>

#define ADJ_MAX_CONSTRAINTS 16

typedef enum { ADJ_CONSTRAINT_EQ, ADJ_CONSTRAINT_GE, ADJ_CONSTRAINT_LE } AdjConstraintSense;
extern const char *const AdjConstraintSenses[];

typedef struct _p_AdjConstraints *AdjConstraints;

/*@ AdjConstraintsCreate - an empty constraint set for the driver's solver. Collective. @*/
PetscErrorCode AdjConstraintsCreate(AdjDriver drv, AdjConstraints *cs);
/*@ AdjConstraintsSetFromOptions - the constraints from -optimize_constraints and their options; unknown names,
    missing or unknown senses, thickness without stations, stations outside (0, 1), and bound counts that do not
    match are refused naming the option. Collective. @*/
PetscErrorCode AdjConstraintsSetFromOptions(AdjConstraints cs);
/*@ AdjConstraintsSetUp - checks that the solver offers each constraint (a body shape of a family that defines
    the measure, a known flow functional) and sets the bounds left to the initial design p0 (a forward run for a
    flow constraint). Collective. @*/
PetscErrorCode AdjConstraintsSetUp(AdjConstraints cs, Vec p0);
/*@ AdjConstraintsGetSize - the number of constraints, of equalities and of inequalities. Not collective. @*/
PetscErrorCode AdjConstraintsGetSize(AdjConstraints cs, PetscInt *n, PetscInt *neq, PetscInt *nineq);
/*@ AdjConstraintsGetInfo - name, sense, bound and whether constraint i is a flow constraint. Not collective. @*/
PetscErrorCode AdjConstraintsGetInfo(AdjConstraints cs, PetscInt i, const char **name, AdjConstraintSense *sense,
                                     PetscReal *bound, PetscBool *flow);
/*@ AdjConstraintsEvaluate - value[i] = v_i(p) and grad[i] = dv_i/dp (design layout) for every constraint; with
    flow constraints *stopped >= 0 when a signal stopped one of their gradients (no values then). Leaves the
    solver's parameters at p and its objective the configured one. Collective. @*/
PetscErrorCode AdjConstraintsEvaluate(AdjConstraints cs, Vec p, PetscReal value[], Vec grad[], AdjStepIndex *stopped);
/*@ AdjConstraintsGetSolveCount - forward and adjoint solves spent on flow constraints so far. Not collective. @*/
PetscErrorCode AdjConstraintsGetSolveCount(AdjConstraints cs, PetscInt *nforward, PetscInt *nadjoint);
/*@ AdjConstraintsTaylorTest - the Taylor test of constraint i at p (AdjTaylorSweep: its gradient at p, then its
    value by forward runs at p + h d for h halved `levels` times from h0, the run length held with -steady_tol);
    returns the smallest counted second-order rate, PETSC_MAX_REAL when every remainder is at round-off (a measure
    linear along d). Collective. @*/
PetscErrorCode AdjConstraintsTaylorTest(AdjConstraints cs, PetscInt i, Vec p, PetscReal h0, PetscInt levels,
                                        PetscReal *min_rate);
/* Flow constraints' values v[i] and design gradients g[i] (regularization excluded), constraint i being functional[i]
 * at design point point[i], in place of the driver's gradient: multipoint design (multipoint.h), which solves the
 * constraints of different points concurrently. g NULL: the values only, by forward runs (gradient checks).
 * *stopped >= 0: a signal stopped one of them (no values then). Collective on the constraints' communicator. */
typedef PetscErrorCode (*AdjConstraintFlowEvaluation)(void *ctx, PetscInt n, const char *const functional[],
                                                      const PetscInt point[], Vec p, PetscReal v[], Vec g[],
                                                      AdjStepIndex *stopped);
/* Holds (hold true) or releases the run length of design point `point`'s runs at the n its last run reached, as
 * AdjDriverHoldFinalStep. Collective on the constraints' communicator. */
typedef PetscErrorCode (*AdjConstraintFlowHold)(void *ctx, PetscInt point, PetscBool hold);
/*@ AdjConstraintsSetFlowEvaluation - flow constraints evaluated by fn at one of npoints design points, chosen with
    -optimize_constraint_NAME_point (before AdjConstraintsSetFromOptions); hold (may be NULL) holds a point's run
    length in gradient checks. Not collective. @*/
PetscErrorCode AdjConstraintsSetFlowEvaluation(AdjConstraints cs, PetscInt npoints, AdjConstraintFlowEvaluation fn,
                                               AdjConstraintFlowHold hold, void *ctx);
/*@ AdjConstraintsFlowFunctional - a flow functional of the driver's solver at p (e.g. "lift"): the driver's gradient
    with the objective replaced by the functional, the parameters' regularization R(p) (which the driver adds to every
    objective) taken out of the value and of g; g NULL: the value only, by a forward run. work: a design vector for
    R's gradient (unused when g is NULL). *stopped >= 0: an interruptible driver was stopped by a signal (no values).
    Leaves the solver's objective the configured one. Collective. @*/
PetscErrorCode AdjConstraintsFlowFunctional(AdjDriver drv, const char functional[], Vec p, PetscReal *v, Vec g,
                                            Vec work, AdjStepIndex *stopped);
PetscErrorCode AdjConstraintsDestroy(AdjConstraints *cs);
