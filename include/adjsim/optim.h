/* AdjOptimizer: gradient-based design with PETSc TAO on top of AdjDriver.
 * Default: bounded L-BFGS (TAOBLMVM); the gradient-only TAO methods of AdjOptimizerMethods (optimizer.c)
 * with -tao_type; -tao_monitor works.
 * Each iteration's objective, gradient norm and design go to /optimization in the run file. */
#pragma once

#include <adjsim/driver.h>
#include <petsctao.h>

typedef struct _p_AdjOptimizer *AdjOptimizer;

PetscErrorCode AdjOptimizerCreate(AdjDriver drv, AdjOptimizer *opt);
PetscErrorCode AdjOptimizerSetFromOptions(AdjOptimizer opt);
PetscErrorCode AdjOptimizerSolve(AdjOptimizer opt, Vec design, AdjOutput out);
PetscErrorCode AdjOptimizerDestroy(AdjOptimizer *opt);
PetscErrorCode AdjOptimizerSetInterruptible(AdjOptimizer opt, PetscBool flag);
PetscErrorCode AdjOptimizerGetInterruptedIteration(AdjOptimizer opt, PetscInt *it);
PetscErrorCode AdjOptimizerResume(AdjOptimizer opt, const char path[]);
/* J(p) and its design gradient g, with *stopped >= 0 when a signal stopped the evaluation (no values then), in place
 * of the driver's gradient: multipoint design (multipoint.h). Collective on the optimizer's communicator. */
typedef PetscErrorCode (*AdjOptimizerEvaluation)(void *ctx, Vec p, PetscReal *J, Vec g, AdjStepIndex *stopped);
/*@ AdjOptimizerSetEvaluation - evaluations of J by fn instead of AdjDriverGradient. Not collective. @*/
PetscErrorCode                    AdjOptimizerSetEvaluation(AdjOptimizer opt, AdjOptimizerEvaluation fn, void *ctx);
typedef struct _p_AdjConstraints *AdjConstraints;
/*@ AdjOptimizerGetConstraints - the optimizer's constraint set (constraints.h). Not collective. @*/
PetscErrorCode AdjOptimizerGetConstraints(AdjOptimizer opt, AdjConstraints *cs);
