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
 *   -design_point_groups G           rank groups (default N; G R must equal the rank count): with G < N, point k is
 *                                    solved on group k mod G, the points of a group one after the other
 *
 * Robust design (AdjRobust, src/optim/robust.c): -design_robust_samples N makes N points of samples of the operating
 * conditions (-design_robust_vary NAME:DIST:A,B,..., -design_robust_seed s), weights 1/N, and the objective
 * J = m + k sqrt(s^2 + eps^2) of their mean m and standard deviation s (-design_robust_std_weight k, default 0;
 * -design_robust_std_eps eps).
 * A per-point value that changes the shared design (e.g. alpha while body_alpha is a design parameter) is refused,
 * as is one that point K's solver does not read. */
#pragma once

#include <adjsim/driver.h>
#include <adjsim/optim.h>

#define ADJ_MAX_DESIGN_POINTS 64

typedef struct _p_AdjMultipoint *AdjMultipoint;
typedef struct _p_AdjRobust     *AdjRobust;
typedef enum { ADJ_ROBUST_NORMAL, ADJ_ROBUST_UNIFORM } AdjRobustDist;

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

/*@ AdjRobustDraw - the value of varied option `variable` in sample `sample` (from 0) for a seed: normal (a mean,
    b standard deviation) or uniform in [a, b). A counter-based splitmix64 stream and Box-Muller with series for
    ln and cos (src/optim/robust.c): the same bits on every rank and every IEEE-754 platform, whatever the libm.
    Not collective. @*/
PetscErrorCode AdjRobustDraw(PetscInt64 seed, PetscInt sample, PetscInt variable, AdjRobustDist dist, PetscReal a,
                             PetscReal b, PetscReal *value);
/*@ AdjRobustCreate - reads -design_robust_*; *r = NULL without -design_robust_samples. Else checks them, draws the
    samples and puts them in the options database as -design_pointI_NAME values, for AdjMultipointCreate. Collective.
    @*/
PetscErrorCode AdjRobustCreate(MPI_Comm comm, AdjRobust *r);
PetscErrorCode AdjRobustGetSamples(AdjRobust r, PetscInt *n);
/*@ AdjRobustIsVaried - whether -OPTION (with or without its dash) is one of the varied options. Not collective. @*/
PetscErrorCode AdjRobustIsVaried(AdjRobust r, const char option[], PetscBool *varied);
/*@ AdjRobustCombine - J = m + k sqrt(s^2 + eps^2) of the J_k with weights w, and c[i] = dJ/dJ_i (c may be NULL).
    Not collective (the same arithmetic on every rank). @*/
PetscErrorCode AdjRobustCombine(AdjRobust r, PetscInt n, const PetscReal w[], const PetscReal Jk[], PetscReal c[],
                                PetscReal *J);
/*@ AdjRobustView, AdjRobustWrite - the samples, and the mean m, standard deviation s (not smoothed) and J of the
    objectives J_k with weights w (the last evaluation's), on stdout or in /optimization/robust_*. Collective. @*/
PetscErrorCode AdjRobustView(AdjRobust r, PetscInt n, const PetscReal w[], const PetscReal Jk[]);
PetscErrorCode AdjRobustWrite(AdjRobust r, PetscInt n, const PetscReal w[], const PetscReal Jk[], AdjOutput out);
PetscErrorCode AdjRobustDestroy(AdjRobust *r);
