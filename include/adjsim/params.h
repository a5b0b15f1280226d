/* AdjParams: the design vector of a gradient or optimization run, built from named blocks.
 *
 * A solver registers its differentiable parameters as blocks: a grid field (laid out like a
 * DMDA global vector) or a short array of reals (owned by rank 0 in the design vector).  The
 * user picks the active blocks with -adjoint_params; only those enter the design vector that
 * TAO, the Taylor test and the gradient output see.  Each block carries a scale s: the design
 * variable is d = value / s, so that parameters of very different magnitude (an initial field
 * of order 1, a diffusivity of order 1e-3) are equally well conditioned for the optimizer. */
#pragma once

#include <adjsim/sys.h>
#include <petscdmda.h>

typedef struct _p_AdjParams *AdjParams;

typedef enum { ADJ_PARAM_FIELD, ADJ_PARAM_ARRAY } AdjParamKind;

PetscErrorCode AdjParamsCreate(MPI_Comm comm, AdjParams *params);
PetscErrorCode AdjParamsDestroy(AdjParams *params);
PetscErrorCode AdjParamsAddField(AdjParams params, const char name[], const char units[], DM da);
/* A field block without a DMDA: laid out like `layout` (e.g. one value per particle). */
PetscErrorCode AdjParamsAddVector(AdjParams params, const char name[], const char units[], Vec layout);
PetscErrorCode AdjParamsAddArray(AdjParams params, const char name[], const char units[], PetscInt n);
PetscErrorCode AdjParamsSetScale(AdjParams params, const char name[], PetscReal scale);
PetscErrorCode AdjParamsSetBounds(AdjParams params, const char name[], PetscReal lower, PetscReal upper);
PetscErrorCode AdjParamsSetBoundsArray(AdjParams params, const char name[], const PetscReal lower[],
                                       const PetscReal upper[]);
PetscErrorCode AdjParamsSetFromOptions(AdjParams params);
PetscErrorCode AdjParamsSetActive(AdjParams params, const char name[], PetscBool active);
PetscErrorCode AdjParamsSetUp(AdjParams params);
PetscErrorCode AdjParamsIsActive(AdjParams params, const char name[], PetscBool *active);
PetscErrorCode AdjParamsGetNumActive(AdjParams params, PetscInt *nactive);
PetscErrorCode AdjParamsCreateVector(AdjParams params, Vec *design);
PetscErrorCode AdjParamsGetBounds(AdjParams params, Vec lower, Vec upper);
PetscErrorCode AdjParamsGetNumBlocks(AdjParams params, PetscInt *nblocks);
PetscErrorCode AdjParamsGetBlockInfo(AdjParams params, PetscInt b, const char **name, const char **units,
                                     AdjParamKind *kind, PetscInt *n, PetscBool *active);
PetscErrorCode AdjParamsGetScale(AdjParams params, const char name[], PetscReal *scale);
PetscErrorCode AdjParamsCreateBlockOrder(AdjParams params, Vec design, Vec *ordered, VecScatter *scatter);

/* Moving values between a block of the design vector and the solver's own storage.
 * Pack: design block = value / scale.  Unpack: value = scale * design block.
 * PackGradient: design block = scale * dJ/dvalue (chain rule of the scaling).
 * Field blocks take a Vec of their layout (DMDA global Vec, or like AdjParamsAddVector's layout); array blocks take n
 * reals, identical on every rank (Pack reads rank 0's values; Unpack broadcasts). */
PetscErrorCode AdjParamsPackField(AdjParams params, const char name[], Vec value, Vec design);
PetscErrorCode AdjParamsUnpackField(AdjParams params, const char name[], Vec design, Vec value);
PetscErrorCode AdjParamsPackGradientField(AdjParams params, const char name[], Vec grad, Vec design_grad);
PetscErrorCode AdjParamsPackArray(AdjParams params, const char name[], const PetscReal value[], Vec design);
PetscErrorCode AdjParamsUnpackArray(AdjParams params, const char name[], Vec design, PetscReal value[]);
PetscErrorCode AdjParamsPackGradientArray(AdjParams params, const char name[], const PetscReal grad[], Vec design_grad);
