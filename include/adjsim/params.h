/* AdjParams: the design vector of a gradient or optimization run, built from named blocks.
 *
 * A solver declares each block once: its name, units, kind and scale (AdjParamsAdd*), where its
 * values and gradient live (AdjParamsSet*Storage, or AdjParamsSet*Access for values the solver
 * keeps in another form), the units of its gradient, bounds, an optional Tikhonov regularization
 * and a hook run when new values arrive (e.g. to recheck a stability limit).  Everything else is
 * generic: packing and unpacking the design vector (AdjParamsPack, AdjParamsUnpack), gradients
 * (AdjParamsPackGradient), writing and reading /parameters and /gradients (AdjParamsWrite,
 * AdjParamsWriteGradient, AdjParamsRead) and the regularization (AdjParamsRegularization).
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
typedef struct _p_AdjOutput *AdjOutput;

/* Accessors of a block whose values the solver keeps in its own form (e.g. a strided component of
 * another vector, fields of structs): get copies the values out, set copies new values in, gradient
 * gives dJ/dvalue (summed over ranks). Field blocks exchange a Vec of the block's layout, array blocks
 * n reals, identical on every rank. */
typedef PetscErrorCode (*AdjParamFieldAccess)(void *ctx, Vec v);
typedef PetscErrorCode (*AdjParamArrayAccess)(void *ctx, PetscReal v[]);
typedef PetscErrorCode (*AdjParamHook)(void *ctx);

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
PetscErrorCode AdjParamsSetOptionsPrefix(AdjParams params, const char prefix[]);
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
PetscErrorCode AdjParamsGetBlockSize(AdjParams params, const char name[], PetscInt *n);
PetscErrorCode AdjParamsCreateBlockOrder(AdjParams params, Vec design, Vec *ordered, VecScatter *scatter);

/* AdjParamsRow (src/adjoint/paramsrow.c): a design vector as one row of n reals in block order (the layout of
 * /optimization/design), whole on every rank, and back: Gather copies v's row out on every rank, Scatter puts a row
 * (the same on every rank) into v. Order gives the block-order vector itself, distributed. All collective. */
typedef struct _p_AdjParamsRow *AdjParamsRow;
PetscErrorCode                  AdjParamsRowCreate(AdjParams params, Vec design, AdjParamsRow *row);
PetscErrorCode                  AdjParamsRowGetSize(AdjParamsRow row, PetscInt *n);
PetscErrorCode                  AdjParamsRowGather(AdjParamsRow row, Vec v, PetscReal a[]);
PetscErrorCode                  AdjParamsRowScatter(AdjParamsRow row, const PetscReal a[], Vec v);
PetscErrorCode                  AdjParamsRowOrder(AdjParamsRow row, Vec v, Vec *ordered);
PetscErrorCode                  AdjParamsRowDestroy(AdjParamsRow *row);

/* Declaring where a block lives (one of storage or access per block; gradient may be NULL for a
 * block without a gradient). Field storage: Vecs of the block's layout; array storage: n reals,
 * values identical on every rank, gradient already summed over ranks (see AdjParamsSetGradientHook). */
PetscErrorCode AdjParamsSetFieldStorage(AdjParams params, const char name[], Vec value, Vec gradient);
PetscErrorCode AdjParamsSetArrayStorage(AdjParams params, const char name[], PetscReal value[],
                                        const PetscReal gradient[]);
/* Field storage as component comp of x, a Vec with the block's layout times a block size (e.g. u of a
 * DMDA state of dof 3: VecStrideGather / VecStrideScatter move the values). */
PetscErrorCode AdjParamsSetFieldStride(AdjParams params, const char name[], Vec x, PetscInt comp, Vec gradient);
PetscErrorCode AdjParamsSetFieldAccess(AdjParams params, const char name[], AdjParamFieldAccess get,
                                       AdjParamFieldAccess set, Vec gradient, void *ctx);
PetscErrorCode AdjParamsSetArrayAccess(AdjParams params, const char name[], AdjParamArrayAccess get,
                                       AdjParamArrayAccess set, AdjParamArrayAccess gradient, void *ctx);
PetscErrorCode AdjParamsSetGradientUnits(AdjParams params, const char name[], const char units[]);
/* A hook run after new values of the block arrived (AdjParamsUnpack, AdjParamsRead); a hook shared by
   several blocks runs once, in the order of its first block. */
PetscErrorCode AdjParamsSetChangeHook(AdjParams params, const char name[], AdjParamHook hook, void *ctx);
/* Run once before gradients are packed or written, e.g. to sum rank-local partial gradients. */
PetscErrorCode AdjParamsSetGradientHook(AdjParams params, AdjParamHook hook, void *ctx);
/* A block that run files may lack (AdjParamsRead keeps the current values then). */
PetscErrorCode AdjParamsSetOptionalInFiles(AdjParams params, const char name[]);
/* Grid spacing of a field block on a 2-D DMDA [m], for its Tikhonov regularization. */
PetscErrorCode AdjParamsSetFieldSpacing(AdjParams params, const char name[], const PetscReal h[]);
/* Tikhonov weights of a field block: R += alpha/2 ||p||^2 + beta/2 ||grad p||^2 (AdjTikhonovField);
   also -adjoint_regularization_<name> alpha,beta. */
PetscErrorCode AdjParamsSetRegularization(AdjParams params, const char name[], PetscReal alpha, PetscReal beta);

/* The generic operations over every block (values: every block; gradients: the active ones). */
PetscErrorCode AdjParamsPack(AdjParams params, Vec design);
PetscErrorCode AdjParamsUnpack(AdjParams params, Vec design);
PetscErrorCode AdjParamsPackGradient(AdjParams params, Vec design_grad);
PetscErrorCode AdjParamsWrite(AdjParams params, AdjOutput out);
PetscErrorCode AdjParamsWriteGradient(AdjParams params, AdjOutput out);
PetscErrorCode AdjParamsRead(AdjParams params, const char path[]);
PetscErrorCode AdjParamsRegularization(AdjParams params, PetscReal *R);

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
