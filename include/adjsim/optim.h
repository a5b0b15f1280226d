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
