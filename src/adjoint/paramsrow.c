/* AdjParamsRow: a design vector as one row of reals in block order, whole on every rank (include/adjsim/params.h).
 *
 *   design (interleaved rank by rank) --toblocks--> ordered (block order, distributed) --toall--> row (every rank)
 *
 * The row is the layout of /optimization/design, independent of the rank count: the optimizer's evaluation log and
 * the multipoint design's exchange between sub-communicators both keep designs and gradients as such rows. */
#include <adjsim/params.h>

struct _p_AdjParamsRow {
  PetscInt   n;        /* design size */
  Vec        ordered;  /* block order, distributed like the design */
  Vec        row;      /* the whole of ordered on every rank */
  VecScatter toblocks; /* design -> ordered (AdjParamsCreateBlockOrder) */
  VecScatter toall;    /* ordered -> row */
};

/*@ AdjParamsRowCreate - the gather and scatter of designs laid out like `design` (a vector of
    AdjParamsCreateVector). Collective on design's communicator. @*/
PetscErrorCode AdjParamsRowCreate(AdjParams params, Vec design, AdjParamsRow *row)
{
  AdjParamsRow r;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&r));
  PetscCall(VecGetSize(design, &r->n));
  PetscCall(AdjParamsCreateBlockOrder(params, design, &r->ordered, &r->toblocks));
  PetscCall(VecScatterCreateToAll(r->ordered, &r->toall, &r->row));
  *row = r;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjParamsRowGetSize - the number of reals in a row (the design size). Not collective. @*/
PetscErrorCode AdjParamsRowGetSize(AdjParamsRow row, PetscInt *n)
{
  PetscFunctionBeginUser;
  *n = row->n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjParamsRowOrder - v (design layout) in block order, distributed: *ordered is the row's own vector,
    valid until the next call. Collective. @*/
PetscErrorCode AdjParamsRowOrder(AdjParamsRow row, Vec v, Vec *ordered)
{
  PetscFunctionBeginUser;
  PetscCall(VecScatterBegin(row->toblocks, v, row->ordered, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(row->toblocks, v, row->ordered, INSERT_VALUES, SCATTER_FORWARD));
  *ordered = row->ordered;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjParamsRowGather - v (design layout) -> a[0..n-1] in block order, the same on every rank. Collective. @*/
PetscErrorCode AdjParamsRowGather(AdjParamsRow row, Vec v, PetscReal a[])
{
  Vec                ordered;
  const PetscScalar *all;

  PetscFunctionBeginUser;
  PetscCall(AdjParamsRowOrder(row, v, &ordered));
  PetscCall(VecScatterBegin(row->toall, ordered, row->row, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(row->toall, ordered, row->row, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecGetArrayRead(row->row, &all));
  PetscCall(PetscArraycpy(a, all, row->n));
  PetscCall(VecRestoreArrayRead(row->row, &all));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjParamsRowScatter - a row a[0..n-1] in block order, the same on every rank -> v (design layout); each rank
    takes its own part. Collective. @*/
PetscErrorCode AdjParamsRowScatter(AdjParamsRow row, const PetscReal a[], Vec v)
{
  PetscInt     rs, re;
  PetscScalar *own;

  PetscFunctionBeginUser;
  PetscCall(VecGetOwnershipRange(row->ordered, &rs, &re));
  PetscCall(VecGetArray(row->ordered, &own));
  PetscCall(PetscArraycpy(own, a + rs, re - rs));
  PetscCall(VecRestoreArray(row->ordered, &own));
  PetscCall(VecScatterBegin(row->toblocks, row->ordered, v, INSERT_VALUES, SCATTER_REVERSE));
  PetscCall(VecScatterEnd(row->toblocks, row->ordered, v, INSERT_VALUES, SCATTER_REVERSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjParamsRowDestroy(AdjParamsRow *row)
{
  PetscFunctionBeginUser;
  if (!*row) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecScatterDestroy(&(*row)->toblocks));
  PetscCall(VecScatterDestroy(&(*row)->toall));
  PetscCall(VecDestroy(&(*row)->ordered));
  PetscCall(VecDestroy(&(*row)->row));
  PetscCall(PetscFree(*row));
  PetscFunctionReturn(PETSC_SUCCESS);
}
