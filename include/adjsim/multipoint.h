/* AdjMultipoint: multipoint design, several operating points in one objective (src/optim/multipoint.c,
 * docs/multipoint.md).
 *
 *   J(p) = sum_k w_k J_k(p),   dJ/dp = sum_k w_k dJ_k/dp,   k = 0 .. N-1
 *
 * J_k is the configured objective of the solver at operating point k (e.g. C_D at another angle of attack or
 * Reynolds number), p the design shared by all points (the active parameter blocks, e.g. the body shape).  The
 * ranks are split into N groups of R ranks (MPI_Comm_split, contiguous ranks); each group holds one solver and one
 * driver on its sub-communicator and computes its J_k and dJ_k/dp concurrently with the others; the values are
 * gathered on every rank and summed in point order (so the result does not depend on the reduction's order).
 * The solver of the whole communicator (the one built by the application, which never runs a flow solve once this
 * is attached) keeps the design's layout, bounds, body shape and the run file.
 *
 * Options:
 *   -design_points N                 the number of points (0 or 1: off)
 *   -design_point_weights w0,..      the weights (default 1/N each)
 *   -design_point_ranks R            ranks per point (default size/N; N R must equal the rank count)
 *   -design_pointK_OPTION value      point K's value of -OPTION (e.g. -design_point1_fluid_body_alpha 6,
 *                                    -design_point0_fluid_re 1000); every other option as given
 * A per-point value that changes the shared design (e.g. alpha while body_alpha is a design parameter) is refused,
 * as is one that point K's solver does not read. */
#pragma once

#include <adjsim/driver.h>
#include <adjsim/optim.h>

typedef struct _p_AdjMultipoint *AdjMultipoint;

/*@ AdjMultipointCreate - reads -design_points; *mp = NULL when it is 0 or 1 (a single-point run). With N >= 2,
    checks the rank split and the weights, and builds each point's solver and driver on its sub-communicator with
    its -design_pointK_ options (refusing one the point does not read or one that changes the shared design).
    `master` is the driver of the whole communicator (its solver keeps the design's layout); the points' drivers
    stop on a signal exactly when it would (AdjDriverSetInterruptible: inside the optimizer's TaoSolve, and where the
    application sets it), so that a signal in set-up or checks is handled as in a single-point run. Collective. @*/
PetscErrorCode AdjMultipointCreate(AdjDriver master, AdjMultipoint *mp);
/*@ AdjMultipointAttach - the optimizer's evaluations of J and of its flow constraints go to the points
    (-optimize_constraint_NAME_point k: constraint at point k); call before AdjOptimizerSetFromOptions. Not
    collective. @*/
PetscErrorCode AdjMultipointAttach(AdjMultipoint mp, AdjOptimizer opt);
/*@ AdjMultipointEvaluate - J(p) and g = dJ/dp (design layout of the master); *stopped >= 0 when a signal stopped a
    point (no values then). Collective. @*/
PetscErrorCode AdjMultipointEvaluate(AdjMultipoint mp, Vec p, PetscReal *J, Vec g, AdjStepIndex *stopped);
/*@ AdjMultipointTaylorTest - the Taylor test of the multipoint objective (AdjTaylorSweep, h0 and levels from
    -adjoint_taylor_h0 and -adjoint_taylor_levels): g at p from the last AdjMultipointEvaluate if it was at p (else
    evaluated), each point's run length held with -steady_tol, J(p + h d) by forward runs of the points. Returns the
    smallest counted second-order rate; refuses a sweep whose remainders are all at round-off. Leaves the last
    evaluation's J_k and gradients as they were. Collective. @*/
PetscErrorCode AdjMultipointTaylorTest(AdjMultipoint mp, Vec p, PetscReal *min_rate);
/*@ AdjMultipointView - one line per point: its options, weight, ranks and last J_k. Collective. @*/
PetscErrorCode AdjMultipointView(AdjMultipoint mp);
/*@ AdjMultipointWrite - /multipoint in the run file: weights, the last J_k and dJ_k/dp (design space, block order,
    as /optimization/design) and their weighted sums. Collective. @*/
PetscErrorCode AdjMultipointWrite(AdjMultipoint mp, AdjOutput out);
PetscErrorCode AdjMultipointDestroy(AdjMultipoint *mp);
