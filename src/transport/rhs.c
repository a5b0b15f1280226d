/* Runge-Kutta stages of scalar transport on Vecs: halo exchange and boundary ghosts, the fused
 * stage kernel, and its adjoint with the reverse halo exchange (DMLocalToGlobal, ADD_VALUES). */
#include "transportimpl.h"
#include <petsc/private/petscimpl.h> /* PetscObjectStateGet: has the source Vec changed? */

/* Ghosted diffusivity, mirrored across physical boundaries, and whether it is uniform (then the
 * stage kernel uses k L(c), cheaper than the face-averaged form); refreshed when kappa changes. */
PetscErrorCode TransportPrepareKappa(Transport tr)
{
  PetscScalar **k;
  PetscReal     kmin, kmax;

  PetscFunctionBeginUser;
  PetscCall(DMGlobalToLocal(tr->da, tr->kappa, INSERT_VALUES, tr->kloc));
  PetscCall(DMDAVecGetArray(tr->da, tr->kloc, &k));
  PetscCall(TransportFillGhosts(&tr->grid, &tr->krule, PETSC_TRUE, k));
  PetscCall(DMDAVecRestoreArray(tr->da, tr->kloc, &k));
  PetscCall(VecMin(tr->kappa, NULL, &kmin));
  PetscCall(VecMax(tr->kappa, NULL, &kmax));
  tr->kappa_uniform = (PetscBool)(kmin == kmax);
  tr->kappa_value   = kmax;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* cl = c with its halo and its boundary ghosts. */
PetscErrorCode TransportGhostState(Transport tr, Vec c, Vec cl)
{
  PetscScalar **a;

  PetscFunctionBeginUser;
  PetscCall(DMGlobalToLocal(tr->da, c, INSERT_VALUES, cl));
  PetscCall(DMDAVecGetArray(tr->da, cl, &a));
  PetscCall(TransportFillGhosts(&tr->grid, &tr->crule, PETSC_FALSE, a));
  PetscCall(DMDAVecRestoreArray(tr->da, cl, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether this rank's part of the source field is zero, so that a run without a source does not stream it in
 * every stage (8 of the stage's 40-48 bytes per cell). Scanned again only when the vector has changed (its PETSc
 * object state moves on every write: set-up, a parameter update, a test's direct write). The choice is local: the
 * stage kernel is, and adding s = +0 only turns a -0 rate into +0, which the c-terms then absorb, so the result is
 * the same either way. Not collective. */
static PetscErrorCode TransportSourceIsZero(Transport tr, PetscBool *zero)
{
  PetscObjectState state;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectStateGet((PetscObject)tr->source, &state));
  if (!tr->source_checked || state != tr->source_state) {
    const PetscScalar *s;
    PetscInt           n;
    PetscBool          z = PETSC_TRUE;

    PetscCall(VecGetLocalSize(tr->source, &n));
    PetscCall(VecGetArrayRead(tr->source, &s));
    for (PetscInt i = 0; i < n && z; i++) z = (PetscBool)(s[i] == 0);
    PetscCall(VecRestoreArrayRead(tr->source, &s));
    tr->source_zero    = z;
    tr->source_checked = PETSC_TRUE;
    PetscCall(PetscObjectStateGet((PetscObject)tr->source, &tr->source_state));
  }
  *zero = tr->source_zero;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* out = a c0 + b c + gamma R(c), with cl the ghosted c (c0 may be NULL when a = 0). */
PetscErrorCode TransportStageVec(Transport tr, Vec cl, PetscReal a, Vec c0, PetscReal b, PetscReal gamma, Vec out)
{
  TransportStageCoeffs sc = {
      .a = a, .b = b, .gamma = gamma, .kuniform = tr->kappa_value, .diffusion = (PetscBool)!tr->rhs_without_diffusion};
  const PetscScalar **c;
  PetscScalar       **o;
  PetscBool           szero = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(TransportSourceIsZero(tr, &szero));
  PetscCall(DMDAVecGetArrayRead(tr->da, cl, &c));
  if (!szero) PetscCall(DMDAVecGetArrayRead(tr->da, tr->source, &sc.s));
  if (c0) PetscCall(DMDAVecGetArrayRead(tr->da, c0, &sc.c0));
  if (!tr->kappa_uniform) PetscCall(DMDAVecGetArrayRead(tr->da, tr->kloc, &sc.kappa));
  PetscCall(DMDAVecGetArray(tr->da, out, &o));
  PetscCall(TransportStage(&tr->grid, &tr->vel, &sc, c, o));
  PetscCall(DMDAVecRestoreArray(tr->da, out, &o));
  if (!tr->kappa_uniform) PetscCall(DMDAVecRestoreArrayRead(tr->da, tr->kloc, &sc.kappa));
  if (c0) PetscCall(DMDAVecRestoreArrayRead(tr->da, c0, &sc.c0));
  if (!szero) PetscCall(DMDAVecRestoreArrayRead(tr->da, tr->source, &sc.s));
  PetscCall(DMDAVecRestoreArrayRead(tr->da, cl, &c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Adjoint of the gamma R(c) part of a stage at the ghosted state cl, for the stage adjoint y:
 *   cbar += gamma (dR/dc)^T y,   gsource += gamma y,   kappa gradient += gamma (dR/dkappa)^T y.
 * The kappa gradient goes into the field tr->gkappa when kappa is a field parameter or is not
 * uniform, else into the scalar tr->gkappa_uniform (a constant kappa needs only <y, L(c)>). */
PetscErrorCode TransportStageAdjointVec(Transport tr, Vec cl, PetscReal gamma, Vec y, Vec cbar)
{
  const PetscBool      kfield = (PetscBool)(tr->need_gkappa && (tr->kappa_is_field || !tr->kappa_uniform));
  TransportStageCoeffs sc     = {
          .gamma = gamma, .kuniform = tr->kappa_value, .diffusion = (PetscBool)!tr->rhs_without_diffusion};
  const PetscScalar **c, **yy;
  PetscScalar       **lb, **kb = NULL, ksum = 0;

  PetscFunctionBeginUser;
  PetscCall(VecSet(tr->lloc, 0.0));
  if (kfield) PetscCall(VecSet(tr->klloc, 0.0));
  PetscCall(DMDAVecGetArrayRead(tr->da, cl, &c));
  PetscCall(DMDAVecGetArrayRead(tr->da, y, &yy));
  PetscCall(DMDAVecGetArray(tr->da, tr->lloc, &lb));
  if (kfield || !tr->kappa_uniform) PetscCall(DMDAVecGetArrayRead(tr->da, tr->kloc, &sc.kappa));
  if (kfield) PetscCall(DMDAVecGetArray(tr->da, tr->klloc, &kb));
  PetscCall(
      TransportStageAdjoint(&tr->grid, &tr->vel, &sc, c, yy, lb, kb, (tr->need_gkappa && !kfield) ? &ksum : NULL));
  PetscCall(TransportFillGhostsAdjoint(&tr->grid, &tr->crule, lb));
  if (kfield) {
    PetscCall(TransportFillGhostsAdjoint(&tr->grid, &tr->krule, kb));
    PetscCall(DMDAVecRestoreArray(tr->da, tr->klloc, &kb));
  }
  if (kfield || !tr->kappa_uniform) PetscCall(DMDAVecRestoreArrayRead(tr->da, tr->kloc, &sc.kappa));
  PetscCall(DMDAVecRestoreArray(tr->da, tr->lloc, &lb));
  PetscCall(DMDAVecRestoreArrayRead(tr->da, y, &yy));
  PetscCall(DMDAVecRestoreArrayRead(tr->da, cl, &c));
  PetscCall(DMLocalToGlobal(tr->da, tr->lloc, ADD_VALUES, cbar));
  if (kfield) PetscCall(DMLocalToGlobal(tr->da, tr->klloc, ADD_VALUES, tr->gkappa));
  tr->gkappa_uniform += ksum;
  if (tr->need_gsource) PetscCall(VecAXPY(tr->gsource, gamma, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* dJ/dkappa for a constant kappa: the field gradient summed over cells plus the uniform-path
 * partial sums of every rank. Collective. */
PetscErrorCode TransportKappaGradientConstant(Transport tr, PetscScalar *g)
{
  PetscScalar fieldsum, uniform;

  PetscFunctionBeginUser;
  PetscCall(VecSum(tr->gkappa, &fieldsum));
  PetscCallMPI(MPI_Allreduce(&tr->gkappa_uniform, &uniform, 1, MPIU_SCALAR, MPIU_SUM, tr->comm));
  *g = fieldsum + uniform;
  PetscFunctionReturn(PETSC_SUCCESS);
}
