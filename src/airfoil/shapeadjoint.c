/* The shape gradient through the grid: from the bars of the replicated geometry (AirfoilGeometry) to the bars
 * of the shape parameters of the O-grid, and the matching tangent (the notation: airfoilimpl.h, ogrid.h).
 *
 *   shape parameters p --AdjOGridGenerate--> node coordinates X (a distributed dof-2 DMDA Vec)
 *     --gather to every rank (natural order)--> xn --AirfoilGeometryCreate--> geometry (replicated)
 *
 * Reverse, and how the ranks' parts are summed: a rank's flow adjoint accumulates the geometry bars of the
 * stencils of its own cells only, so the bars gb it holds are its share of the total bar (the total is the
 * sum of the shares over the ranks; a contribution every rank computes redundantly must be put in on one
 * rank only).  The geometry adjoint is linear, so each rank puts its share through it (AirfoilGeometryAdjoint,
 * no communication) and the node bars are then summed over the ranks by one MPI_Allreduce (SUM) of the
 * 2 ni nj node bars: after it every rank holds the same total node bar, which is the transpose of the gather
 * (a gather copies each node to every rank; its transpose sums the copies' bars).  The total node bar is then
 * handed to the DMDA by taking each entry from the rank that owns it in the natural ordering (no rank adds
 * what another rank also adds), and AdjOGridGenerateAdjoint sums its per-node terms over the owned nodes and
 * reduces once more.  The gradient is therefore the same on every rank, and on 1, 2 or 4 ranks equal up to
 * the order of the floating-point sums of the two reductions (round-off, ~1e-16 relative). */
#include "airfoilimpl.h"

/*@ AirfoilOGridGather - xn = the node coordinates (or a tangent of them) X, a global Vec of the O-grid's DMDA,
    on every rank in natural order (node (i, j) at 2 (j ni + i)), as AirfoilGeometryCreate takes them.
    Collective. @*/
PetscErrorCode AirfoilOGridGather(AdjOGrid og, Vec X, PetscReal xn[])
{
  DM                 da;
  Vec                nat, all;
  VecScatter         sc;
  const PetscScalar *a;
  PetscInt           n;

  PetscFunctionBeginUser;
  PetscCall(AdjOGridGetCoordinates(og, &da, NULL));
  PetscCall(DMDACreateNaturalVector(da, &nat));
  PetscCall(DMDAGlobalToNaturalBegin(da, X, INSERT_VALUES, nat));
  PetscCall(DMDAGlobalToNaturalEnd(da, X, INSERT_VALUES, nat));
  PetscCall(VecScatterCreateToAll(nat, &sc, &all));
  PetscCall(VecScatterBegin(sc, nat, all, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(sc, nat, all, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecGetLocalSize(all, &n));
  PetscCall(VecGetArrayRead(all, &a));
  for (PetscInt k = 0; k < n; k++) xn[k] = PetscRealPart(a[k]);
  PetscCall(VecRestoreArrayRead(all, &a));
  PetscCall(VecScatterDestroy(&sc));
  PetscCall(VecDestroy(&all));
  PetscCall(VecDestroy(&nat));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AirfoilShapeTangent - dg = the derivative of the geometry g of the O-grid og along the shape-parameter
    direction dp[np] (dg->xn the nodes' tangent, the derived arrays through AirfoilGeometryTangent); dg from
    AirfoilGeometryBarCreate(g). The same on every rank. Collective. @*/
PetscErrorCode AirfoilShapeTangent(AdjOGrid og, const AirfoilGeometry *g, const PetscReal dp[], AirfoilGeometry *dg)
{
  Vec X, dX;

  PetscFunctionBeginUser;
  PetscCall(AdjOGridGetCoordinates(og, NULL, &X));
  PetscCall(VecDuplicate(X, &dX));
  PetscCall(AdjOGridGenerateTangent(og, dp, dX));
  PetscCall(AirfoilOGridGather(og, dX, dg->xn));
  AirfoilGeometryTangent(g, dg->xn, dg);
  PetscCall(VecDestroy(&dX));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AirfoilNodeBarToShape - pb[np] += (dxn/dp)^T xnb for the total node bar xnb (natural order, the same on
    every rank): each rank passes on the entries it owns in the DMDA's natural ordering, then
    AdjOGridGenerateAdjoint. The same pb on every rank. Collective. @*/
PetscErrorCode AirfoilNodeBarToShape(AdjOGrid og, const PetscReal xnb[], PetscReal pb[])
{
  DM           da;
  Vec          X, nat, Xb;
  PetscScalar *a;
  PetscInt     lo, hi;

  PetscFunctionBeginUser;
  PetscCall(AdjOGridGetCoordinates(og, &da, &X));
  PetscCall(DMDACreateNaturalVector(da, &nat));
  PetscCall(VecGetOwnershipRange(nat, &lo, &hi));
  PetscCall(VecGetArrayWrite(nat, &a));
  for (PetscInt k = lo; k < hi; k++) a[k - lo] = xnb[k];
  PetscCall(VecRestoreArrayWrite(nat, &a));
  PetscCall(VecDuplicate(X, &Xb));
  PetscCall(DMDANaturalToGlobalBegin(da, nat, INSERT_VALUES, Xb));
  PetscCall(DMDANaturalToGlobalEnd(da, nat, INSERT_VALUES, Xb));
  PetscCall(AdjOGridGenerateAdjoint(og, Xb, pb));
  PetscCall(VecDestroy(&Xb));
  PetscCall(VecDestroy(&nat));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AirfoilShapeAdjoint - pb[np] += (d geometry / dp)^T gb, where gb holds this rank's share of the bars of the
    geometry g of og (derived arrays and xn; the total is the sum of the shares over the ranks, see above).
    On return gb->xn holds the total node bar (the same on every rank) and the derived bars are unchanged:
    zero gb (AirfoilGeometryBarZero) before accumulating another gradient. The same pb on every rank.
    Collective. @*/
PetscErrorCode AirfoilShapeAdjoint(AdjOGrid og, const AirfoilGeometry *g, AirfoilGeometry *gb, PetscReal pb[])
{
  DM       da;
  MPI_Comm comm;

  PetscFunctionBeginUser;
  PetscCall(AdjOGridGetCoordinates(og, &da, NULL));
  PetscCall(PetscObjectGetComm((PetscObject)da, &comm));
  AirfoilGeometryAdjoint(g, gb);
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, gb->xn, (PetscMPIInt)(2 * g->ni * (g->nc + 1)), MPIU_REAL, MPIU_SUM, comm));
  PetscCall(AirfoilNodeBarToShape(og, gb->xn, pb));
  PetscFunctionReturn(PETSC_SUCCESS);
}
