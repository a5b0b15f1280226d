/* AdjParams: where each block lives, and the generic operations built on that (pack, unpack,
 * gradients, /parameters and /gradients I/O, Tikhonov regularization). */
#include "paramsimpl.h"
#include <adjsim/io.h>
#include <adjsim/particles.h>
#include <adjsim/regularization.h>

/* The block called name, which must be of the given kind (a solver's declaration error otherwise). */
static PetscErrorCode AdjParamsFindKind(AdjParams params, const char name[], AdjParamKind kind, AdjParamBlock **blk)
{
  PetscFunctionBeginUser;
  PetscCall(AdjParamsFind(params, name, blk));
  PetscCheck((*blk)->kind == kind, params->comm, PETSC_ERR_ARG_WRONG, "Parameter '%s' is not %s", name,
             kind == ADJ_PARAM_FIELD ? "a field" : "an array");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjParamsSetFieldStorage(AdjParams params, const char name[], Vec value, Vec gradient)
{
  AdjParamBlock *blk;

  PetscFunctionBeginUser;
  PetscCall(AdjParamsFindKind(params, name, ADJ_PARAM_FIELD, &blk));
  blk->value = value, blk->gradient = gradient;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjParamsSetFieldStride(AdjParams params, const char name[], Vec x, PetscInt comp, Vec gradient)
{
  AdjParamBlock *blk;

  PetscFunctionBeginUser;
  PetscCall(AdjParamsFindKind(params, name, ADJ_PARAM_FIELD, &blk));
  blk->strided = x, blk->comp = comp, blk->gradient = gradient;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjParamsSetArrayStorage(AdjParams params, const char name[], PetscReal value[],
                                        const PetscReal gradient[])
{
  AdjParamBlock *blk;

  PetscFunctionBeginUser;
  PetscCall(AdjParamsFindKind(params, name, ADJ_PARAM_ARRAY, &blk));
  blk->avalue = value, blk->agradient = gradient;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjParamsSetFieldAccess(AdjParams params, const char name[], AdjParamFieldAccess get,
                                       AdjParamFieldAccess set, Vec gradient, void *ctx)
{
  AdjParamBlock *blk;

  PetscFunctionBeginUser;
  PetscCall(AdjParamsFindKind(params, name, ADJ_PARAM_FIELD, &blk));
  blk->fget = get, blk->fset = set, blk->gradient = gradient, blk->actx = ctx;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjParamsSetArrayAccess(AdjParams params, const char name[], AdjParamArrayAccess get,
                                       AdjParamArrayAccess set, AdjParamArrayAccess gradient, void *ctx)
{
  AdjParamBlock *blk;

  PetscFunctionBeginUser;
  PetscCall(AdjParamsFindKind(params, name, ADJ_PARAM_ARRAY, &blk));
  blk->aget = get, blk->aset = set, blk->agrad = gradient, blk->actx = ctx;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjParamsSetGradientUnits(AdjParams params, const char name[], const char units[])
{
  AdjParamBlock *blk;

  PetscFunctionBeginUser;
  PetscCall(AdjParamsFind(params, name, &blk));
  PetscCall(PetscStrncpy(blk->gunits, units, sizeof(blk->gunits)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjParamsSetChangeHook(AdjParams params, const char name[], AdjParamHook hook, void *ctx)
{
  AdjParamBlock *blk;

  PetscFunctionBeginUser;
  PetscCall(AdjParamsFind(params, name, &blk));
  blk->changed    = hook;
  blk->changedctx = ctx;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjParamsSetGradientHook(AdjParams params, AdjParamHook hook, void *ctx)
{
  PetscFunctionBeginUser;
  params->gradienthook = hook;
  params->gradientctx  = ctx;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjParamsSetOptionalInFiles(AdjParams params, const char name[])
{
  AdjParamBlock *blk;

  PetscFunctionBeginUser;
  PetscCall(AdjParamsFind(params, name, &blk));
  blk->optional = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjParamsSetFieldSpacing(AdjParams params, const char name[], const PetscReal h[])
{
  AdjParamBlock *blk;

  PetscFunctionBeginUser;
  PetscCall(AdjParamsFind(params, name, &blk));
  PetscCheck(blk->kind == ADJ_PARAM_FIELD && blk->da, params->comm, PETSC_ERR_ARG_WRONG,
             "Parameter '%s' is not a field on a grid", name);
  blk->h[0] = h[0], blk->h[1] = h[1];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjParamsSetRegularization(AdjParams params, const char name[], PetscReal alpha, PetscReal beta)
{
  AdjParamBlock *blk;

  PetscFunctionBeginUser;
  PetscCall(AdjParamsFind(params, name, &blk));
  PetscCheck(alpha >= 0 && beta >= 0, params->comm, PETSC_ERR_USER_INPUT,
             "Tikhonov weights of parameter '%s' must be >= 0, got alpha %g, beta %g", name, (double)alpha,
             (double)beta);
  PetscCheck((alpha == 0 && beta == 0) || (blk->h[0] > 0 && blk->gradient), params->comm, PETSC_ERR_USER_INPUT,
             "Parameter '%s' cannot be regularized: only field parameters on a grid are", name);
  blk->reg_alpha = alpha;
  blk->reg_beta  = beta;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A Vec for a field block's values: the storage itself, or the block's work vector (made once) for a
 * block behind accessors. */
static PetscErrorCode AdjParamsFieldVec(AdjParamBlock *blk, Vec *v)
{
  PetscFunctionBeginUser;
  if (!blk->value && !blk->work) PetscCall(VecDuplicate(blk->view, &blk->work));
  *v = blk->value ? blk->value : blk->work;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The current values of a field block (AdjParamsFieldVec, filled by the accessor if any). */
static PetscErrorCode AdjParamsGetFieldValue(AdjParamBlock *blk, Vec *v)
{
  PetscFunctionBeginUser;
  PetscCheck(blk->value || blk->strided || blk->fget, PetscObjectComm((PetscObject)blk->view), PETSC_ERR_ORDER,
             "Parameter '%s' has no storage: the solver must declare it", blk->name);
  PetscCall(AdjParamsFieldVec(blk, v));
  if (blk->strided)
    PetscCall(VecStrideGather(blk->strided, blk->comp, *v, INSERT_VALUES));
  else if (!blk->value)
    PetscCall(blk->fget(blk->actx, *v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode AdjParamsGetArrayValue(AdjParams params, AdjParamBlock *blk, PetscReal v[])
{
  PetscFunctionBeginUser;
  if (blk->avalue)
    PetscCall(PetscArraycpy(v, blk->avalue, blk->n));
  else {
    PetscCheck(blk->aget, params->comm, PETSC_ERR_ORDER, "Parameter '%s' has no storage: the solver must declare it",
               blk->name);
    PetscCall(blk->aget(blk->actx, v));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode AdjParamsSetArrayValue(AdjParams params, AdjParamBlock *blk, PetscReal v[])
{
  PetscFunctionBeginUser;
  if (blk->avalue)
    PetscCall(PetscArraycpy(blk->avalue, v, blk->n));
  else {
    PetscCheck(blk->aset, params->comm, PETSC_ERR_ORDER, "Parameter '%s' cannot be set", blk->name);
    PetscCall(blk->aset(blk->actx, v));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode AdjParamsSetFieldValue(AdjParams params, AdjParamBlock *blk, Vec v)
{
  PetscFunctionBeginUser;
  if (v == blk->value) PetscFunctionReturn(PETSC_SUCCESS);
  if (blk->strided) {
    PetscCall(VecStrideScatter(v, blk->comp, blk->strided, INSERT_VALUES));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(blk->fset, params->comm, PETSC_ERR_ORDER, "Parameter '%s' cannot be set", blk->name);
  PetscCall(blk->fset(blk->actx, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjParamsPack - design = values / scale of the active blocks. Collective. @*/
PetscErrorCode AdjParamsPack(AdjParams params, Vec design)
{
  PetscFunctionBeginUser;
  for (PetscInt b = 0; b < params->nblocks; b++) {
    AdjParamBlock *blk = &params->block[b];

    if (!blk->active) continue;
    if (blk->kind == ADJ_PARAM_FIELD) {
      Vec v = NULL;
      PetscCall(AdjParamsGetFieldValue(blk, &v));
      PetscCall(AdjParamsPackField(params, blk->name, v, design));
    } else {
      PetscReal *v;
      PetscCall(PetscMalloc1(blk->n, &v));
      PetscCall(AdjParamsGetArrayValue(params, blk, v));
      PetscCall(AdjParamsPackArray(params, blk->name, v, design));
      PetscCall(PetscFree(v));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The change hooks of the given blocks, each once, in the order of its first block. */
static PetscErrorCode AdjParamsRunHooks(AdjParams params, const PetscBool changed[])
{
  PetscFunctionBeginUser;
  for (PetscInt b = 0; b < params->nblocks; b++) {
    const AdjParamBlock *blk     = &params->block[b];
    PetscBool            earlier = PETSC_FALSE;

    if (!changed[b] || !blk->changed) continue;
    for (PetscInt e = 0; e < b; e++)
      earlier = (PetscBool)(earlier || (changed[e] && params->block[e].changed == blk->changed &&
                                        params->block[e].changedctx == blk->changedctx));
    if (!earlier) PetscCall(blk->changed(blk->changedctx));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjParamsUnpack - values = scale * design for the active blocks, then their change hooks.
    Collective. @*/
PetscErrorCode AdjParamsUnpack(AdjParams params, Vec design)
{
  PetscBool changed[ADJ_PARAMS_MAX];

  PetscFunctionBeginUser;
  for (PetscInt b = 0; b < params->nblocks; b++) {
    AdjParamBlock *blk = &params->block[b];

    changed[b] = blk->active;
    if (!blk->active) continue;
    if (blk->kind == ADJ_PARAM_FIELD) {
      Vec v = NULL;
      PetscCall(AdjParamsFieldVec(blk, &v));
      PetscCall(AdjParamsUnpackField(params, blk->name, design, v));
      PetscCall(AdjParamsSetFieldValue(params, blk, v));
    } else {
      PetscReal *v;
      PetscCall(PetscMalloc1(blk->n, &v));
      PetscCall(AdjParamsUnpackArray(params, blk->name, design, v));
      PetscCall(AdjParamsSetArrayValue(params, blk, v));
      PetscCall(PetscFree(v));
    }
  }
  PetscCall(AdjParamsRunHooks(params, changed));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* dJ/dvalue of an array block, summed over ranks. */
static PetscErrorCode AdjParamsGetArrayGradient(AdjParams params, AdjParamBlock *blk, PetscReal g[])
{
  PetscFunctionBeginUser;
  if (blk->agradient)
    PetscCall(PetscArraycpy(g, blk->agradient, blk->n));
  else {
    PetscCheck(blk->agrad, params->comm, PETSC_ERR_ORDER, "Parameter '%s' has no gradient", blk->name);
    PetscCall(blk->agrad(blk->actx, g));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjParamsPackGradient - design_grad = scale * dJ/dvalue of the active blocks. Collective. @*/
PetscErrorCode AdjParamsPackGradient(AdjParams params, Vec design_grad)
{
  PetscFunctionBeginUser;
  if (params->gradienthook) PetscCall(params->gradienthook(params->gradientctx));
  for (PetscInt b = 0; b < params->nblocks; b++) {
    AdjParamBlock *blk = &params->block[b];

    if (!blk->active) continue;
    if (blk->kind == ADJ_PARAM_FIELD) {
      PetscCheck(blk->gradient, params->comm, PETSC_ERR_ORDER, "Parameter '%s' has no gradient", blk->name);
      PetscCall(AdjParamsPackGradientField(params, blk->name, blk->gradient, design_grad));
    } else {
      PetscReal *g;
      PetscCall(PetscMalloc1(blk->n, &g));
      PetscCall(AdjParamsGetArrayGradient(params, blk, g));
      PetscCall(AdjParamsPackGradientArray(params, blk->name, g, design_grad));
      PetscCall(PetscFree(g));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One value per local entry of a per-item (particle) field block, for the particle tables. */
static PetscErrorCode AdjParamsWriteItemField(AdjOutput out, const AdjParamBlock *blk, Vec v, PetscBool gradient)
{
  const PetscScalar *a;
  PetscInt           nlocal;

  PetscFunctionBeginUser;
  PetscCall(VecGetLocalSize(v, &nlocal));
  PetscCall(VecGetArrayRead(v, &a));
  if (gradient)
    PetscCall(AdjOutputWriteParticleBlock(out, ADJ_OUTPUT_GRADIENTS, blk->name, blk->gunits, 1, nlocal, a));
  else
    PetscCall(AdjOutputWriteParticleBlock(out, ADJ_OUTPUT_PARAMETERS, blk->name, blk->units, 1, nlocal, a));
  PetscCall(VecRestoreArrayRead(v, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjParamsWrite - every block's values to /parameters/<name> (fields on a grid as grid fields,
    per-item fields as particle tables, arrays as arrays). Collective. @*/
PetscErrorCode AdjParamsWrite(AdjParams params, AdjOutput out)
{
  PetscFunctionBeginUser;
  for (PetscInt b = 0; b < params->nblocks; b++) {
    AdjParamBlock *blk = &params->block[b];

    if (blk->kind == ADJ_PARAM_FIELD) {
      Vec v = NULL;
      PetscCall(AdjParamsGetFieldValue(blk, &v));
      if (blk->da)
        PetscCall(AdjOutputWriteBlockField(out, ADJ_OUTPUT_PARAMETERS, blk->name, blk->units, v));
      else
        PetscCall(AdjParamsWriteItemField(out, blk, v, PETSC_FALSE));
    } else {
      PetscReal *v;
      PetscCall(PetscMalloc1(blk->n, &v));
      PetscCall(AdjParamsGetArrayValue(params, blk, v));
      PetscCall(AdjOutputWriteBlockArray(out, ADJ_OUTPUT_PARAMETERS, blk->name, blk->units, blk->n, v));
      PetscCall(PetscFree(v));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjParamsWriteGradient - dJ/dvalue (physical units, not scaled) of the active blocks to
    /gradients/<name>. Collective. @*/
PetscErrorCode AdjParamsWriteGradient(AdjParams params, AdjOutput out)
{
  PetscFunctionBeginUser;
  if (params->gradienthook) PetscCall(params->gradienthook(params->gradientctx));
  for (PetscInt b = 0; b < params->nblocks; b++) {
    AdjParamBlock *blk = &params->block[b];

    if (!blk->active) continue;
    if (blk->kind == ADJ_PARAM_FIELD && blk->da)
      PetscCall(AdjOutputWriteBlockField(out, ADJ_OUTPUT_GRADIENTS, blk->name, blk->gunits, blk->gradient));
    else if (blk->kind == ADJ_PARAM_FIELD)
      PetscCall(AdjParamsWriteItemField(out, blk, blk->gradient, PETSC_TRUE));
    else {
      PetscReal *g;
      PetscCall(PetscMalloc1(blk->n, &g));
      PetscCall(AdjParamsGetArrayGradient(params, blk, g));
      PetscCall(AdjOutputWriteBlockArray(out, ADJ_OUTPUT_GRADIENTS, blk->name, blk->gunits, blk->n, g));
      PetscCall(PetscFree(g));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One block from /parameters/<name> of a run file; *found is false for an optional block the file lacks. */
static PetscErrorCode AdjParamsReadBlock(AdjParams params, AdjParamBlock *blk, const char path[], PetscBool *found)
{
  char dset[128];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(dset, sizeof(dset), "/parameters/%s", blk->name));
  *found = PETSC_TRUE;
  /* a per-item table reports a missing dataset itself (*found); other optional blocks are looked up first */
  if (blk->optional && !(blk->kind == ADJ_PARAM_FIELD && !blk->da))
    PetscCall(AdjInputHasDataset(params->comm, path, dset, found));
  if (!*found) PetscFunctionReturn(PETSC_SUCCESS);
  if (blk->kind == ADJ_PARAM_FIELD) {
    Vec v = NULL;
    PetscCall(AdjParamsFieldVec(blk, &v));
    if (blk->da)
      PetscCall(AdjInputReadField(params->comm, path, dset, blk->da, v));
    else {
      PetscScalar *a;
      PetscInt     nlocal;
      PetscCall(VecGetLocalSize(v, &nlocal));
      PetscCall(VecGetArray(v, &a));
      PetscCall(AdjInputReadParticleTable(params->comm, path, dset, 1, nlocal, a, found));
      PetscCall(VecRestoreArray(v, &a));
    }
    if (*found) PetscCall(AdjParamsSetFieldValue(params, blk, v));
  } else {
    PetscInt   n;
    PetscReal *v;
    PetscCall(AdjInputReadArray(params->comm, path, dset, &n, &v));
    PetscCheck(n == blk->n, params->comm, PETSC_ERR_USER_INPUT,
               "%s: %s holds %" PetscInt_FMT " values, this run needs %" PetscInt_FMT
               " (the run file describes another setup)",
               path, dset, n, blk->n);
    PetscCall(AdjParamsSetArrayValue(params, blk, v));
    PetscCall(PetscFree(v));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjParamsRead - every block's values from the /parameters group of a run file (e.g. to resume
    an optimization), then the change hooks. Collective. @*/
PetscErrorCode AdjParamsRead(AdjParams params, const char path[])
{
  PetscBool changed[ADJ_PARAMS_MAX];

  PetscFunctionBeginUser;
  for (PetscInt b = 0; b < params->nblocks; b++)
    PetscCall(AdjParamsReadBlock(params, &params->block[b], path, &changed[b]));
  PetscCall(AdjParamsRunHooks(params, changed));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjParamsRegularization - R = sum of the Tikhonov terms of the active field blocks, and their
    gradients added to the blocks' gradient storage. Collective. @*/
PetscErrorCode AdjParamsRegularization(AdjParams params, PetscReal *R)
{
  PetscFunctionBeginUser;
  *R = 0;
  for (PetscInt b = 0; b < params->nblocks; b++) {
    AdjParamBlock *blk = &params->block[b];
    Vec            v   = NULL;

    if (!blk->active || (blk->reg_alpha == 0 && blk->reg_beta == 0)) continue;
    PetscCall(AdjParamsGetFieldValue(blk, &v));
    PetscCall(AdjTikhonovField(blk->da, blk->h, blk->reg_alpha, blk->reg_beta, v, R, blk->gradient));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
