/* AdjParams: named parameter blocks packed into one design vector (see include/adjsim/params.h). */
#include "paramsimpl.h"

PetscErrorCode AdjParamsFind(AdjParams params, const char name[], AdjParamBlock **blk)
{
  PetscFunctionBeginUser;
  *blk = NULL;
  for (PetscInt b = 0; b < params->nblocks; b++) {
    PetscBool match;
    PetscCall(PetscStrcmp(params->block[b].name, name, &match));
    if (match) *blk = &params->block[b];
  }
  PetscCheck(*blk, params->comm, PETSC_ERR_ARG_WRONG, "No parameter block named '%s'", name);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjParamsCreate(MPI_Comm comm, AdjParams *params)
{
  PetscFunctionBeginUser;
  PetscCall(PetscNew(params));
  (*params)->comm = comm;
  PetscCallMPI(MPI_Comm_rank(comm, &(*params)->rank));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjParamsDestroy(AdjParams *params)
{
  PetscFunctionBeginUser;
  if (!*params) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt b = 0; b < (*params)->nblocks; b++) {
    PetscCall(VecDestroy(&(*params)->block[b].view));
    PetscCall(VecDestroy(&(*params)->block[b].work));
    PetscCall(DMDestroy(&(*params)->block[b].da));
    PetscCall(PetscFree2((*params)->block[b].lowerv, (*params)->block[b].upperv));
  }
  PetscCall(PetscFree(*params));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A new block: a field laid out like view (the block takes view over) or, with view NULL, an array of n
 * reals; unit scale, no bounds, active. */
static PetscErrorCode AdjParamsAddBlock(AdjParams params, const char name[], const char units[], Vec view, PetscInt n,
                                        AdjParamBlock **blk)
{
  AdjParamBlock *b;

  PetscFunctionBeginUser;
  PetscCheck(params->nblocks < ADJ_PARAMS_MAX, params->comm, PETSC_ERR_SUP, "At most %d parameter blocks",
             ADJ_PARAMS_MAX);
  b = &params->block[params->nblocks++];
  PetscCall(PetscStrncpy(b->name, name, sizeof(b->name)));
  PetscCall(PetscStrncpy(b->units, units, sizeof(b->units)));
  b->kind = view ? ADJ_PARAM_FIELD : ADJ_PARAM_ARRAY;
  b->view = view;
  if (view)
    PetscCall(VecGetSize(view, &b->n));
  else
    b->n = n;
  b->scale      = 1.0;
  b->lower      = PETSC_NINFINITY;
  b->upper      = PETSC_INFINITY;
  b->active     = PETSC_TRUE;
  params->setup = PETSC_FALSE;
  if (blk) *blk = b;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjParamsAddField - registers a grid-field parameter block living on the DMDA `da`. Collective. @*/
PetscErrorCode AdjParamsAddField(AdjParams params, const char name[], const char units[], DM da)
{
  AdjParamBlock *blk = NULL;
  Vec            view;

  PetscFunctionBeginUser;
  PetscCall(DMCreateGlobalVector(da, &view));
  PetscCall(AdjParamsAddBlock(params, name, units, view, 0, &blk));
  PetscCall(PetscObjectReference((PetscObject)da));
  blk->da = da;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjParamsAddVector - registers a field parameter block laid out like the parallel Vec `layout` (same
    local sizes), for fields that do not live on a DMDA, e.g. one value per particle in a particle solver's
    fixed home layout. Collective. @*/
PetscErrorCode AdjParamsAddVector(AdjParams params, const char name[], const char units[], Vec layout)
{
  Vec view;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(layout, &view));
  PetscCall(AdjParamsAddBlock(params, name, units, view, 0, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjParamsAddArray - registers a block of n reals (e.g. a constant diffusivity). Collective. @*/
PetscErrorCode AdjParamsAddArray(AdjParams params, const char name[], const char units[], PetscInt n)
{
  PetscFunctionBeginUser;
  PetscCall(AdjParamsAddBlock(params, name, units, NULL, n, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjParamsSetScale(AdjParams params, const char name[], PetscReal scale)
{
  AdjParamBlock *blk;

  PetscFunctionBeginUser;
  PetscCall(AdjParamsFind(params, name, &blk));
  PetscCheck(scale > 0 && PetscIsNormalReal(scale), params->comm, PETSC_ERR_USER_INPUT,
             "-adjoint_scale_%s must be positive and finite, got %g", name, (double)scale);
  blk->scale = scale;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjParamsSetBounds(AdjParams params, const char name[], PetscReal lower, PetscReal upper)
{
  AdjParamBlock *blk;

  PetscFunctionBeginUser;
  PetscCall(AdjParamsFind(params, name, &blk));
  PetscCheck(lower <= upper, params->comm, PETSC_ERR_USER_INPUT, "Bounds of parameter '%s': lower %g > upper %g", name,
             (double)lower, (double)upper);
  blk->lower = lower;
  blk->upper = upper;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjParamsSetBoundsArray - bounds per entry of an array block (values, not design variables),
    e.g. the thickness and the camber of an airfoil, each with its own range. Collective. @*/
PetscErrorCode AdjParamsSetBoundsArray(AdjParams params, const char name[], const PetscReal lower[],
                                       const PetscReal upper[])
{
  AdjParamBlock *blk;

  PetscFunctionBeginUser;
  PetscCall(AdjParamsFind(params, name, &blk));
  PetscCheck(blk->kind == ADJ_PARAM_ARRAY, params->comm, PETSC_ERR_ARG_WRONG,
             "Bounds per entry are for array parameters; '%s' is a field", name);
  for (PetscInt i = 0; i < blk->n; i++)
    PetscCheck(lower[i] <= upper[i], params->comm, PETSC_ERR_USER_INPUT,
               "Bounds of entry %" PetscInt_FMT " of parameter '%s': lower %g > upper %g", i, name, (double)lower[i],
               (double)upper[i]);
  if (!blk->lowerv) PetscCall(PetscMalloc2(blk->n, &blk->lowerv, blk->n, &blk->upperv));
  PetscCall(PetscArraycpy(blk->lowerv, lower, blk->n));
  PetscCall(PetscArraycpy(blk->upperv, upper, blk->n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjParamsSetActive(AdjParams params, const char name[], PetscBool active)
{
  AdjParamBlock *blk;

  PetscFunctionBeginUser;
  PetscCall(AdjParamsFind(params, name, &blk));
  blk->active   = active;
  params->setup = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjParamsIsActive(AdjParams params, const char name[], PetscBool *active)
{
  AdjParamBlock *blk;

  PetscFunctionBeginUser;
  PetscCall(AdjParamsFind(params, name, &blk));
  *active = blk->active;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -adjoint_params a,b selects the active blocks; the per-block scale and bounds options follow. */
static PetscErrorCode AdjParamsSelectFromOptions(AdjParams params, char names[], PetscBool set)
{
  PetscFunctionBeginUser;
  if (!set) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt b = 0; b < params->nblocks; b++) params->block[b].active = PETSC_FALSE;
  for (char *tok = strtok(names, ","); tok; tok = strtok(NULL, ",")) {
    PetscBool known      = PETSC_FALSE;
    char      valid[512] = "";
    for (PetscInt b = 0; b < params->nblocks; b++) {
      PetscBool match;
      PetscCall(PetscStrcmp(params->block[b].name, tok, &match));
      if (match) params->block[b].active = PETSC_TRUE;
      known = (PetscBool)(known || match);
      PetscCall(PetscStrlcat(valid, " ", sizeof(valid)));
      PetscCall(PetscStrlcat(valid, params->block[b].name, sizeof(valid)));
    }
    PetscCheck(known, params->comm, PETSC_ERR_USER_INPUT, "-adjoint_params: unknown parameter '%s'; valid names:%s",
               tok, valid);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -adjoint_lower_<name>, -adjoint_upper_<name> of an array block: one value for every entry, or
 * one per entry.  Called inside the options block of AdjParamsSetFromOptions. */
static PetscErrorCode AdjParamsArrayBoundsFromOptions(PetscOptionItems *PetscOptionsObject, AdjParams params,
                                                      AdjParamBlock *blk)
{
  PetscReal *lo, *hi, *v[2];
  PetscInt   n[2] = {blk->n, blk->n};
  PetscBool  set[2];
  char       opt[2][128], help[2][256];

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(blk->n, &lo, blk->n, &hi)); /* sized by the block: arrays of any length */
  v[0] = lo, v[1] = hi;
  for (PetscInt i = 0; i < blk->n; i++) {
    lo[i] = blk->lowerv ? blk->lowerv[i] : blk->lower;
    hi[i] = blk->upperv ? blk->upperv[i] : blk->upper;
  }
  for (PetscInt k = 0; k < 2; k++) {
    PetscCall(PetscSNPrintf(opt[k], sizeof(opt[k]), "-adjoint_%s_%s", k ? "upper" : "lower", blk->name));
    PetscCall(PetscSNPrintf(
        help[k], sizeof(help[k]),
        "%s bound of parameter '%s' [%s] in optimization: one value, or one per entry (%" PetscInt_FMT ")",
        k ? "Upper" : "Lower", blk->name, blk->units, blk->n));
    PetscCall(PetscOptionsRealArray(opt[k], help[k], "AdjParamsSetBoundsArray", v[k], &n[k], &set[k]));
    PetscCheck(!set[k] || n[k] == 1 || n[k] == blk->n, params->comm, PETSC_ERR_USER_INPUT,
               "%s: give one value or %" PetscInt_FMT " (one per entry), got %" PetscInt_FMT, opt[k], blk->n, n[k]);
    if (set[k] && n[k] == 1)
      for (PetscInt i = 1; i < blk->n; i++) v[k][i] = v[k][0];
  }
  PetscCall(AdjParamsSetBoundsArray(params, blk->name, lo, hi));
  PetscCall(PetscFree2(lo, hi));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -adjoint_regularization_<name> alpha,beta of a field block on a grid (any solver's). */
static PetscErrorCode AdjParamsRegularizationFromOptions(PetscOptionItems *PetscOptionsObject, AdjParams params,
                                                         AdjParamBlock *blk)
{
  PetscReal w[2] = {blk->reg_alpha, blk->reg_beta};
  PetscInt  n    = 2;
  PetscBool set;
  char      opt[128], help[256];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-adjoint_regularization_%s", blk->name));
  PetscCall(PetscSNPrintf(help, sizeof(help),
                          "Tikhonov weights alpha,beta of field parameter '%s': R += alpha/2 ||p||^2 + beta/2 "
                          "||grad p||^2 (integrals over the domain)",
                          blk->name));
  PetscCall(PetscOptionsRealArray(opt, help, "AdjParamsSetRegularization", w, &n, &set));
  PetscCheck(!set || n == 2, params->comm, PETSC_ERR_USER_INPUT, "%s needs two weights alpha,beta, got %" PetscInt_FMT,
             opt, n);
  if (set) PetscCall(AdjParamsSetRegularization(params, blk->name, w[0], w[1]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjParamsSetOptionsPrefix - prefix of the -adjoint_* options (that of the solver). @*/
PetscErrorCode AdjParamsSetOptionsPrefix(AdjParams params, const char prefix[])
{
  PetscFunctionBeginUser;
  PetscCall(PetscStrncpy(params->prefix, prefix ? prefix : "", sizeof(params->prefix)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjParamsSetFromOptions - reads -adjoint_params, -adjoint_scale_<name>, -adjoint_lower_<name>,
    -adjoint_upper_<name>. Collective. @*/
PetscErrorCode AdjParamsSetFromOptions(AdjParams params)
{
  char      names[512] = "", opt[128], help[256];
  PetscBool set;

  PetscFunctionBeginUser;
  PetscOptionsBegin(params->comm, params->prefix[0] ? params->prefix : NULL,
                    "Parameters of gradient and optimization runs", "AdjParams");
  PetscCall(PetscOptionsString("-adjoint_params",
                               "Comma-separated parameter blocks to differentiate and optimize (default: all)",
                               "AdjParamsSetFromOptions", names, names, sizeof(names), &set));
  PetscCall(AdjParamsSelectFromOptions(params, names, set));
  for (PetscInt b = 0; b < params->nblocks; b++) {
    AdjParamBlock *blk   = &params->block[b];
    PetscReal      scale = blk->scale, lower = blk->lower, upper = blk->upper;

    PetscCall(PetscSNPrintf(opt, sizeof(opt), "-adjoint_scale_%s", blk->name));
    PetscCall(PetscSNPrintf(help, sizeof(help), "Scale of parameter '%s' [%s]: design variable = value / scale",
                            blk->name, blk->units));
    PetscCall(PetscOptionsReal(opt, help, "AdjParamsSetScale", scale, &scale, &set));
    if (set) PetscCall(AdjParamsSetScale(params, blk->name, scale));
    if (blk->kind == ADJ_PARAM_FIELD && blk->h[0] > 0)
      PetscCall(AdjParamsRegularizationFromOptions(PetscOptionsObject, params, blk));
    if (blk->kind == ADJ_PARAM_ARRAY && blk->n > 1) {
      PetscCall(AdjParamsArrayBoundsFromOptions(PetscOptionsObject, params, blk));
      continue;
    }
    PetscCall(PetscSNPrintf(opt, sizeof(opt), "-adjoint_lower_%s", blk->name));
    PetscCall(
        PetscSNPrintf(help, sizeof(help), "Lower bound of parameter '%s' [%s] in optimization", blk->name, blk->units));
    PetscCall(PetscOptionsReal(opt, help, "AdjParamsSetBounds", lower, &lower, NULL));
    PetscCall(PetscSNPrintf(opt, sizeof(opt), "-adjoint_upper_%s", blk->name));
    PetscCall(
        PetscSNPrintf(help, sizeof(help), "Upper bound of parameter '%s' [%s] in optimization", blk->name, blk->units));
    PetscCall(PetscOptionsReal(opt, help, "AdjParamsSetBounds", upper, &upper, NULL));
    PetscCall(AdjParamsSetBounds(params, blk->name, lower, upper));
  }
  PetscOptionsEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjParamsSetUp - lays out the active blocks in the design vector. Collective. @*/
PetscErrorCode AdjParamsSetUp(AdjParams params)
{
  PetscInt nactive = 0;

  PetscFunctionBeginUser;
  params->nlocal = 0;
  for (PetscInt b = 0; b < params->nblocks; b++) {
    AdjParamBlock *blk = &params->block[b];

    blk->offset = params->nlocal;
    if (!blk->active)
      blk->nlocal = 0;
    else if (blk->kind == ADJ_PARAM_FIELD)
      PetscCall(VecGetLocalSize(blk->view, &blk->nlocal));
    else
      blk->nlocal = params->rank == 0 ? blk->n : 0;
    params->nlocal += blk->nlocal;
    nactive += blk->active;
  }
  params->nactive = nactive;
  params->setup   = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjParamsGetNumActive(AdjParams params, PetscInt *nactive)
{
  PetscFunctionBeginUser;
  PetscCheck(params->setup, params->comm, PETSC_ERR_ORDER, "Call AdjParamsSetUp() first");
  *nactive = params->nactive;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjParamsCreateVector(AdjParams params, Vec *design)
{
  PetscFunctionBeginUser;
  PetscCheck(params->setup, params->comm, PETSC_ERR_ORDER, "Call AdjParamsSetUp() first");
  PetscCall(VecCreateMPI(params->comm, params->nlocal, PETSC_DETERMINE, design));
  PetscCall(PetscObjectSetName((PetscObject)*design, "design"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjParamsGetBounds - fills design-space bounds (value bounds divided by the block scale). @*/
PetscErrorCode AdjParamsGetBounds(AdjParams params, Vec lower, Vec upper)
{
  PetscScalar *lo, *hi;

  PetscFunctionBeginUser;
  PetscCall(VecGetArray(lower, &lo));
  PetscCall(VecGetArray(upper, &hi));
  for (PetscInt b = 0; b < params->nblocks; b++) {
    const AdjParamBlock *blk = &params->block[b];
    for (PetscInt i = 0; i < blk->nlocal; i++) {
      const PetscReal l = blk->lowerv ? blk->lowerv[i] : blk->lower, u = blk->upperv ? blk->upperv[i] : blk->upper;
      lo[blk->offset + i] = l <= PETSC_NINFINITY ? PETSC_NINFINITY : l / blk->scale;
      hi[blk->offset + i] = u >= PETSC_INFINITY ? PETSC_INFINITY : u / blk->scale;
    }
  }
  PetscCall(VecRestoreArray(lower, &lo));
  PetscCall(VecRestoreArray(upper, &hi));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjParamsGetNumBlocks(AdjParams params, PetscInt *nblocks)
{
  PetscFunctionBeginUser;
  *nblocks = params->nblocks;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjParamsGetBlockInfo(AdjParams params, PetscInt b, const char **name, const char **units,
                                     AdjParamKind *kind, PetscInt *n, PetscBool *active)
{
  PetscFunctionBeginUser;
  PetscCheck(b >= 0 && b < params->nblocks, params->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "Block %" PetscInt_FMT " out of range", b);
  if (name) *name = params->block[b].name;
  if (units) *units = params->block[b].units;
  if (kind) *kind = params->block[b].kind;
  if (n) *n = params->block[b].n;
  if (active) *active = params->block[b].active;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* dst[i] = factor * src[i] between a block of the design vector and the caller's field. */
static PetscErrorCode AdjParamsCopyField(AdjParams params, const char name[], Vec from, Vec to, PetscBool into_design,
                                         PetscReal factor)
{
  AdjParamBlock     *blk;
  const PetscScalar *src;
  PetscScalar       *dst;

  PetscFunctionBeginUser;
  PetscCall(AdjParamsFind(params, name, &blk));
  PetscCheck(blk->kind == ADJ_PARAM_FIELD, params->comm, PETSC_ERR_ARG_WRONG, "Parameter '%s' is not a field", name);
  if (!blk->active) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecGetArrayRead(from, &src));
  PetscCall(VecGetArray(to, &dst));
  if (into_design)
    for (PetscInt i = 0; i < blk->nlocal; i++) dst[blk->offset + i] = factor * src[i];
  else
    for (PetscInt i = 0; i < blk->nlocal; i++) dst[i] = factor * src[blk->offset + i];
  PetscCall(VecRestoreArray(to, &dst));
  PetscCall(VecRestoreArrayRead(from, &src));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjParamsPackField(AdjParams params, const char name[], Vec value, Vec design)
{
  AdjParamBlock *blk;

  PetscFunctionBeginUser;
  PetscCall(AdjParamsFind(params, name, &blk));
  PetscCall(AdjParamsCopyField(params, name, value, design, PETSC_TRUE, 1.0 / blk->scale));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjParamsUnpackField(AdjParams params, const char name[], Vec design, Vec value)
{
  AdjParamBlock *blk;

  PetscFunctionBeginUser;
  PetscCall(AdjParamsFind(params, name, &blk));
  PetscCall(AdjParamsCopyField(params, name, design, value, PETSC_FALSE, blk->scale));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjParamsPackGradientField(AdjParams params, const char name[], Vec grad, Vec design_grad)
{
  AdjParamBlock *blk;

  PetscFunctionBeginUser;
  PetscCall(AdjParamsFind(params, name, &blk));
  PetscCall(AdjParamsCopyField(params, name, grad, design_grad, PETSC_TRUE, blk->scale));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Array blocks live on rank 0 of the design vector; values are identical on every rank. */
static PetscErrorCode AdjParamsCopyArrayIn(AdjParams params, const char name[], const PetscReal value[], Vec design,
                                           PetscBool gradient)
{
  AdjParamBlock *blk;
  PetscScalar   *d;

  PetscFunctionBeginUser;
  PetscCall(AdjParamsFind(params, name, &blk));
  PetscCheck(blk->kind == ADJ_PARAM_ARRAY, params->comm, PETSC_ERR_ARG_WRONG, "Parameter '%s' is not an array", name);
  if (!blk->active) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecGetArray(design, &d));
  for (PetscInt i = 0; i < blk->nlocal; i++)
    d[blk->offset + i] = gradient ? value[i] * blk->scale : value[i] / blk->scale;
  PetscCall(VecRestoreArray(design, &d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjParamsPackArray(AdjParams params, const char name[], const PetscReal value[], Vec design)
{
  PetscFunctionBeginUser;
  PetscCall(AdjParamsCopyArrayIn(params, name, value, design, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjParamsPackGradientArray(AdjParams params, const char name[], const PetscReal grad[], Vec design_grad)
{
  PetscFunctionBeginUser;
  PetscCall(AdjParamsCopyArrayIn(params, name, grad, design_grad, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjParamsUnpackArray(AdjParams params, const char name[], Vec design, PetscReal value[])
{
  AdjParamBlock     *blk;
  const PetscScalar *d;

  PetscFunctionBeginUser;
  PetscCall(AdjParamsFind(params, name, &blk));
  PetscCheck(blk->kind == ADJ_PARAM_ARRAY, params->comm, PETSC_ERR_ARG_WRONG, "Parameter '%s' is not an array", name);
  if (!blk->active) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecGetArrayRead(design, &d));
  for (PetscInt i = 0; i < blk->nlocal; i++) value[i] = blk->scale * d[blk->offset + i];
  PetscCall(VecRestoreArrayRead(design, &d));
  PetscCallMPI(MPI_Bcast(value, (PetscMPIInt)blk->n, MPIU_REAL, 0, params->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjParamsGetScale - the scale s of a block (design variable = value / s). Not collective. @*/
PetscErrorCode AdjParamsGetScale(AdjParams params, const char name[], PetscReal *scale)
{
  AdjParamBlock *blk;

  PetscFunctionBeginUser;
  PetscCall(AdjParamsFind(params, name, &blk));
  *scale = blk->scale;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjParamsGetBlockSize - the number of entries n of a block (all of them, active or not). Not collective. @*/
PetscErrorCode AdjParamsGetBlockSize(AdjParams params, const char name[], PetscInt *n)
{
  AdjParamBlock *blk;

  PetscFunctionBeginUser;
  PetscCall(AdjParamsFind(params, name, &blk));
  *n = blk->n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Global index, in block order, of each entry this rank holds in the design vector: block b starts at
 * the sum of the lengths of the active blocks before it; a field block's entries go to their natural
 * (x fastest) index in its grid, an array block's (on rank 0) to their index in the array. */
static PetscErrorCode AdjParamsBlockOrderIndices(AdjParams params, PetscInt idx[])
{
  PetscInt start = 0;

  PetscFunctionBeginUser;
  for (PetscInt b = 0; b < params->nblocks; b++) {
    const AdjParamBlock *blk = &params->block[b];
    PetscInt             rstart;
    AO                   ao;

    if (!blk->active) continue;
    if (blk->kind == ADJ_PARAM_FIELD) {
      PetscCall(VecGetOwnershipRange(blk->view, &rstart, NULL));
      for (PetscInt i = 0; i < blk->nlocal; i++) idx[blk->offset + i] = rstart + i;
      PetscCall(DMDAGetAO(blk->da, &ao));
      PetscCall(AOPetscToApplication(ao, blk->nlocal, idx + blk->offset));
    } else
      for (PetscInt i = 0; i < blk->nlocal; i++) idx[blk->offset + i] = i;
    for (PetscInt i = 0; i < blk->nlocal; i++) idx[blk->offset + i] += start;
    start += blk->n;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjParamsCreateBlockOrder - a vector `ordered` like `design` and the scatter from design to it that
    puts the active blocks one after the other, in the order they were added, field blocks in the
    natural ordering of their grid: the layout of /optimization/design, the same on any number of
    ranks (the design vector itself interleaves the blocks rank by rank).  Block b starts at the sum
    of the lengths of the active blocks before it (AdjParamsGetBlockInfo). Collective. @*/
PetscErrorCode AdjParamsCreateBlockOrder(AdjParams params, Vec design, Vec *ordered, VecScatter *scatter)
{
  PetscInt *idx, rstart;
  IS        from, to;

  PetscFunctionBeginUser;
  PetscCheck(params->setup, params->comm, PETSC_ERR_ORDER, "Call AdjParamsSetUp() first");
  PetscCall(PetscMalloc1(params->nlocal, &idx));
  PetscCall(AdjParamsBlockOrderIndices(params, idx));
  PetscCall(VecGetOwnershipRange(design, &rstart, NULL));
  PetscCall(ISCreateStride(params->comm, params->nlocal, rstart, 1, &from));
  PetscCall(ISCreateGeneral(params->comm, params->nlocal, idx, PETSC_OWN_POINTER, &to));
  PetscCall(VecDuplicate(design, ordered));
  PetscCall(PetscObjectSetName((PetscObject)*ordered, "design"));
  PetscCall(VecScatterCreate(design, from, *ordered, to, scatter));
  PetscCall(ISDestroy(&from));
  PetscCall(ISDestroy(&to));
  PetscFunctionReturn(PETSC_SUCCESS);
}
