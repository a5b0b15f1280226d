/* Time step of scalar transport and its adjoint: SSP-RK3 (explicit diffusion) or the Strang
 * splitting CN(dt/2) - RK3(dt) - CN(dt/2) (implicit diffusion), and the stability limit. */
#include "transportimpl.h"
#include <adjsim/stability.h>

/* Shu-Osher SSP-RK3, each stage one fused pass (TransportStage):
 *   s1 = c + dt R(c)
 *   s2 = 3/4 c + 1/4 s1 + dt/4 R(s1)
 *   c' = 1/3 c + 2/3 s2 + 2dt/3 R(s2)
 * The ghosted stage states c, s1, s2 stay in tr->sloc[] for the adjoint of this step (AdjStepper
 * contract), so the adjoint needs no halo exchange of states. */
PetscErrorCode TransportStepRK3(Transport tr, Vec cin, Vec cout)
{
  const PetscReal dt = tr->dt;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(TRANSPORT_Step, 0, 0, 0, 0));
  PetscCall(TransportGhostState(tr, cin, tr->sloc[0]));
  PetscCall(TransportStageVec(tr, tr->sloc[0], 0.0, NULL, 1.0, dt, tr->stage[0]));
  PetscCall(TransportGhostState(tr, tr->stage[0], tr->sloc[1]));
  PetscCall(TransportStageVec(tr, tr->sloc[1], 0.75, cin, 0.25, 0.25 * dt, tr->stage[1]));
  PetscCall(TransportGhostState(tr, tr->stage[1], tr->sloc[2]));
  PetscCall(TransportStageVec(tr, tr->sloc[2], 1.0 / 3.0, cin, 2.0 / 3.0, 2.0 * dt / 3.0, cout));
  PetscCall(PetscLogEventEnd(TRANSPORT_Step, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Reverse of the three stages, with lout the adjoint of c' and A(s)^T the RHS adjoint at s:
 *   l2 = 2/3 lout + A(s2)^T (2dt/3 lout)
 *   l1 = 1/4 l2   + A(s1)^T (dt/4 l2)
 *   lin = 1/3 lout + 3/4 l2 + l1 + A(c)^T (dt l1)
 * Each A^T application also adds its parameter gradient (kappa, source). */
PetscErrorCode TransportStepRK3Adjoint(Transport tr, Vec cin, Vec lout, Vec lin)
{
  const PetscReal dt = tr->dt;
  Vec             l1 = tr->lstage[0], l2 = tr->lstage[1];

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(TRANSPORT_StepAdj, 0, 0, 0, 0));
  PetscCall(VecAXPBY(l2, 2.0 / 3.0, 0.0, lout));
  PetscCall(TransportStageAdjointVec(tr, tr->sloc[2], 2.0 * dt / 3.0, lout, l2));
  PetscCall(VecAXPBY(l1, 0.25, 0.0, l2));
  PetscCall(TransportStageAdjointVec(tr, tr->sloc[1], 0.25 * dt, l2, l1));
  PetscCall(VecAXPBYPCZ(lin, 1.0 / 3.0, 0.75, 0.0, lout, l2));
  PetscCall(VecAXPY(lin, 1.0, l1));
  PetscCall(TransportStageAdjointVec(tr, tr->sloc[0], dt, l1, lin));
  PetscCall(PetscLogEventEnd(TRANSPORT_StepAdj, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Strang splitting, second order (CN and RK3 are at least second order, the splitting symmetric):
 *   h1 = CN_{dt/2}(c),   h2 = RK3_dt(h1) of advection + source only,   c' = CN_{dt/2}(h2).
 * h1, h2, c' and the RK3 stages stay in tr for the adjoint of this step (AdjStepper contract). */
PetscErrorCode TransportStepStrang(Transport tr, Vec cin, Vec cout)
{
  TransportImplicit *im = &tr->impl;

  PetscFunctionBeginUser;
  PetscCheck(tr->rhs_without_diffusion, tr->comm, PETSC_ERR_PLIB, "Strang step needs the RHS without diffusion");
  PetscCall(TransportDiffuseCN(tr, 0.5 * tr->dt, cin, im->half));
  PetscCall(TransportStepRK3(tr, im->half, im->adv));
  PetscCall(TransportDiffuseCN(tr, 0.5 * tr->dt, im->adv, im->out));
  PetscCall(VecCopy(im->out, cout));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Reverse order, each substep's adjoint at the states it was taken from:
 *   l2 = CN^T(h2 -> c') lout,   l1 = RK3^T(at h1) l2,   lin = CN^T(c -> h1) l1,
 * each adding its kappa (CN) or source (RK3) gradient. */
PetscErrorCode TransportStepStrangAdjoint(Transport tr, Vec cin, Vec lout, Vec lin)
{
  TransportImplicit *im = &tr->impl;

  PetscFunctionBeginUser;
  PetscCall(TransportDiffuseCNAdjoint(tr, 0.5 * tr->dt, im->adv, im->out, lout, im->ladv));
  PetscCall(TransportStepRK3Adjoint(tr, im->half, im->ladv, im->lhalf));
  PetscCall(TransportDiffuseCNAdjoint(tr, 0.5 * tr->dt, cin, im->half, im->lhalf, lin));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode TransportStepAdvance(Transport tr, Vec cin, Vec cout)
{
  PetscFunctionBeginUser;
  if (tr->impl.mode == TRANSPORT_DIFFUSION_IMPLICIT)
    PetscCall(TransportStepStrang(tr, cin, cout));
  else
    PetscCall(TransportStepRK3(tr, cin, cout));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode TransportStepAdvanceAdjoint(Transport tr, Vec cin, Vec lout, Vec lin)
{
  PetscFunctionBeginUser;
  if (tr->impl.mode == TRANSPORT_DIFFUSION_IMPLICIT)
    PetscCall(TransportStepStrangAdjoint(tr, cin, lout, lin));
  else
    PetscCall(TransportStepRK3Adjoint(tr, cin, lout, lin));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Stability limit by von Neumann analysis of the actual scheme with frozen coefficients:
 * advection symbol i(|u|/hx sin tx + |v|/hy sin ty), diffusion symbol
 * -2 kmax (1 - cos tx)/hx^2 - 2 kmax (1 - cos ty)/hy^2; dt_max is the largest dt for which the
 * RK3 amplification stays <= 1 on all symbols, found by bisection.  In implicit mode RK3 carries
 * advection (and source) only and Crank-Nicolson is unconditionally stable, so the diffusion
 * symbol drops out. */
PetscErrorCode TransportStabilityLimit(Transport tr, PetscReal *dtmax)
{
  PetscReal kmax;

  PetscFunctionBeginUser;
  PetscCall(VecMax(tr->kappa, NULL, &kmax));
  kmax = tr->impl.mode == TRANSPORT_DIFFUSION_IMPLICIT ? 0 : PetscMax(kmax, 0);
  PetscCall(AdjRK3CentredStabilityLimit(tr->vel.umax / tr->grid.h[0], tr->vel.vmax / tr->grid.h[1],
                                        2 * kmax / (tr->grid.h[0] * tr->grid.h[0]),
                                        2 * kmax / (tr->grid.h[1] * tr->grid.h[1]), dtmax));
  PetscFunctionReturn(PETSC_SUCCESS);
}
