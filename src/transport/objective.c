/* Objective of scalar transport: misfit to observed fields at chosen steps and to a final-time
 * target, each a weighted squared L2 norm, with its adjoint:
 *   J_k = w/2 sum_cells (c_k - d_k)^2 hx hy,     dJ_k/dc_k = w (c_k - d_k) hx hy            */
#include "transportimpl.h"
#include <adjsim/io.h>
#include <adjsim/optcheck.h>

/* The misfit of slice `slice` (step) of field 'c' in file, w/2 ||c - d||^2 hx hy, must not overflow for c = 0: finite
   but huge values (e.g. of a corrupt file) once made J = inf and stopped TAO with "User provided compute function
   generated Inf or NaN", naming nothing. Collective. */
static PetscErrorCode TransportCheckDataSize(Transport tr, Vec d, PetscReal w, const char file[], const char option[],
                                             PetscInt slice, AdjStepIndex step)
{
  PetscReal nrm;

  PetscFunctionBeginUser;
  PetscCall(VecNorm(d, NORM_2, &nrm));
  PetscCheck(
      !PetscIsInfOrNanReal(0.5 * w * nrm * nrm * tr->grid.h[0] * tr->grid.h[1]), tr->comm, PETSC_ERR_USER_INPUT,
      "Cannot use %s (given by %s): dataset /fields/c, time slice %" PetscInt_FMT " (step %" PetscInt64_FMT
      "), is too large for a misfit: its norm %g overflows w/2 ||c - d||^2 hx hy (repair or regenerate the file)",
      file, option, slice, (PetscInt64)step, (double)nrm);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Observation slices whose step lies in 1..nsteps; their times must match this run's steps. */
static PetscErrorCode TransportLoadObservations(Transport tr, const char file[])
{
  PetscInt      nt;
  AdjStepIndex *steps;
  PetscReal    *times;

  PetscFunctionBeginUser;
  PetscCall(AdjInputGetFieldTimes(tr->comm, file, "c", &nt, &steps, &times));
  PetscCall(PetscMalloc2(nt, &tr->obj.step, nt, &tr->obj.data));
  tr->obj.nobs = 0;
  for (PetscInt s = 0; s < nt; s++) {
    const PetscReal t = steps[s] * tr->dt;
    if (steps[s] < 1 || steps[s] > tr->nsteps) continue;
    PetscCheck(PetscAbsReal(times[s] - t) <= 1e-9 * tr->final_time, tr->comm, PETSC_ERR_USER_INPUT,
               "Observation file %s is incompatible with this run: its step %" PetscInt64_FMT
               " is at time %.12g s, but this run's step %" PetscInt64_FMT
               " is at %.12g s (check -transport_final_time, -transport_dt, -transport_steps)",
               file, (PetscInt64)steps[s], (double)times[s], (PetscInt64)steps[s], (double)t);
    tr->obj.step[tr->obj.nobs] = steps[s];
    PetscCall(DMCreateGlobalVector(tr->da, &tr->obj.data[tr->obj.nobs]));
    PetscCall(AdjInputReadFieldSlice(tr->comm, file, "c", s, tr->da, tr->obj.data[tr->obj.nobs]));
    PetscCall(TransportCheckDataSize(tr, tr->obj.data[tr->obj.nobs], tr->obj.weight, file, "-transport_obs_file", s,
                                     steps[s]));
    tr->obj.nobs++;
  }
  PetscCall(PetscFree(steps));
  PetscCall(PetscFree(times));
  PetscCheck(tr->obj.nobs > 0, tr->comm, PETSC_ERR_USER_INPUT,
             "Observation file %s (-transport_obs_file) has no field 'c' at any step in 1..%" PetscInt64_FMT
             " of this run",
             file, (PetscInt64)tr->nsteps);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The target is the last time slice of field 'c' in the given run file. */
static PetscErrorCode TransportLoadTarget(Transport tr, const char file[])
{
  PetscInt      nt;
  AdjStepIndex *steps;
  PetscReal    *times;

  PetscFunctionBeginUser;
  PetscCall(AdjInputGetFieldTimes(tr->comm, file, "c", &nt, &steps, &times));
  PetscCheck(nt > 0, tr->comm, PETSC_ERR_USER_INPUT,
             "Target file %s (-transport_target_file) holds no slice of field 'c'", file);
  PetscCall(DMCreateGlobalVector(tr->da, &tr->obj.target));
  PetscCall(AdjInputReadFieldSlice(tr->comm, file, "c", nt - 1, tr->da, tr->obj.target));
  PetscCall(TransportCheckDataSize(tr, tr->obj.target, tr->obj.target_weight, file, "-transport_target_file", nt - 1,
                                   steps[nt - 1]));
  PetscCall(PetscFree(steps));
  PetscCall(PetscFree(times));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ TransportObjectiveSetUp - reads the objective and regularization options. @*/
PetscErrorCode TransportObjectiveSetUp(Transport tr)
{
  char        obs[PETSC_MAX_PATH_LEN] = "", target[PETSC_MAX_PATH_LEN] = "", opt[64], help[256];
  const char *names[3] = {"initial", "kappa", "source"};

  PetscFunctionBeginUser;
  tr->obj.weight        = 1.0;
  tr->obj.target_weight = 1.0;
  PetscOptionsBegin(tr->comm, tr->prefix, "Scalar transport: objective", "Transport");
  PetscCall(PetscOptionsString("-transport_obs_file",
                               "Run file (HDF5) whose field 'c' time slices are observations to fit", "", obs, obs,
                               sizeof(obs), NULL));
  PetscCall(PetscOptionsReal("-transport_obs_weight",
                             "Weight w of the observation misfit w/2 sum_k ||c_k - d_k||^2 [1/(m^2)]", "",
                             tr->obj.weight, &tr->obj.weight, NULL));
  PetscCall(PetscOptionsString("-transport_target_file",
                               "Run file whose last slice of field 'c' is the final-time target", "", target, target,
                               sizeof(target), NULL));
  PetscCall(PetscOptionsReal("-transport_target_weight", "Weight of the final-time target misfit", "",
                             tr->obj.target_weight, &tr->obj.target_weight, NULL));
  for (PetscInt b = 0; b < 3; b++) {
    PetscCall(PetscSNPrintf(opt, sizeof(opt), "-transport_reg_%s_alpha", names[b]));
    PetscCall(PetscSNPrintf(help, sizeof(help), "Tikhonov weight alpha/2 ||p||^2 on field parameter '%s'", names[b]));
    PetscCall(PetscOptionsReal(opt, help, "", tr->obj.reg_alpha[b], &tr->obj.reg_alpha[b], NULL));
    PetscCall(PetscSNPrintf(opt, sizeof(opt), "-transport_reg_%s_beta", names[b]));
    PetscCall(
        PetscSNPrintf(help, sizeof(help), "Smoothness weight beta/2 ||grad p||^2 on field parameter '%s'", names[b]));
    PetscCall(PetscOptionsReal(opt, help, "", tr->obj.reg_beta[b], &tr->obj.reg_beta[b], NULL));
    PetscCheck(tr->obj.reg_alpha[b] >= 0 && tr->obj.reg_beta[b] >= 0, tr->comm, PETSC_ERR_USER_INPUT,
               "-transport_reg_%s_alpha/beta must be >= 0", names[b]);
    PetscCall(AdjCheckRealOption(tr->comm, opt, tr->obj.reg_beta[b], ADJ_REAL_NONNEGATIVE, NULL));
    PetscCall(PetscSNPrintf(opt, sizeof(opt), "-transport_reg_%s_alpha", names[b]));
    PetscCall(AdjCheckRealOption(tr->comm, opt, tr->obj.reg_alpha[b], ADJ_REAL_NONNEGATIVE, NULL));
  }
  PetscOptionsEnd();
  PetscCall(AdjCheckRealOption(tr->comm, "-transport_obs_weight", tr->obj.weight, ADJ_REAL_NONNEGATIVE, "1/m^2"));
  PetscCall(
      AdjCheckRealOption(tr->comm, "-transport_target_weight", tr->obj.target_weight, ADJ_REAL_NONNEGATIVE, NULL));
  if (obs[0]) PetscCall(TransportLoadObservations(tr, obs));
  if (target[0]) PetscCall(TransportLoadTarget(tr, target));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode TransportObjectiveDestroy(Transport tr)
{
  PetscFunctionBeginUser;
  for (PetscInt o = 0; o < tr->obj.nobs; o++) PetscCall(VecDestroy(&tr->obj.data[o]));
  PetscCall(PetscFree2(tr->obj.step, tr->obj.data));
  PetscCall(VecDestroy(&tr->obj.target));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* w/2 ||c - d||^2 hx hy, reusing tr->rhs as scratch. */
static PetscErrorCode TransportSquaredMisfit(Transport tr, Vec c, Vec d, PetscReal w, PetscReal *J)
{
  PetscReal nrm;

  PetscFunctionBeginUser;
  PetscCall(VecWAXPY(tr->rbar, -1.0, d, c));
  PetscCall(VecNorm(tr->rbar, NORM_2, &nrm));
  *J += 0.5 * w * nrm * nrm * tr->grid.h[0] * tr->grid.h[1];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode TransportMisfit(void *ctx, AdjStepIndex k, Vec c, PetscReal *J)
{
  Transport tr = (Transport)ctx;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(TRANSPORT_Misfit, 0, 0, 0, 0));
  *J = 0;
  for (PetscInt o = 0; o < tr->obj.nobs; o++)
    if (tr->obj.step[o] == k) PetscCall(TransportSquaredMisfit(tr, c, tr->obj.data[o], tr->obj.weight, J));
  if (k == tr->nsteps && tr->obj.target)
    PetscCall(TransportSquaredMisfit(tr, c, tr->obj.target, tr->obj.target_weight, J));
  PetscCall(PetscLogEventEnd(TRANSPORT_Misfit, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* lambda += w (c - d) hx hy for every term at step k. */
PetscErrorCode TransportMisfitAdjoint(void *ctx, AdjStepIndex k, Vec c, Vec lambda)
{
  Transport       tr   = (Transport)ctx;
  const PetscReal area = tr->grid.h[0] * tr->grid.h[1];

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(TRANSPORT_MisfitAdj, 0, 0, 0, 0));
  for (PetscInt o = 0; o < tr->obj.nobs; o++)
    if (tr->obj.step[o] == k)
      PetscCall(VecAXPBYPCZ(lambda, tr->obj.weight * area, -tr->obj.weight * area, 1.0, c, tr->obj.data[o]));
  if (k == tr->nsteps && tr->obj.target)
    PetscCall(VecAXPBYPCZ(lambda, tr->obj.target_weight * area, -tr->obj.target_weight * area, 1.0, c, tr->obj.target));
  PetscCall(PetscLogEventEnd(TRANSPORT_MisfitAdj, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
