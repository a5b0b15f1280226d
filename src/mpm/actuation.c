/* Soft-robot actuation (actuation.h, docs/mpm.md "Actuation"): actuator groups of particles driven by an active
 * Kirchhoff stress along a fibre (or isotropic) that the P2G kernel (transfer.c) adds to the model's stress, an
 * open-loop signal per group (Fourier series in time, smoothly bounded by tanh) as the parameter block "actuation", and
 * an energy-use penalty.  Each kernel's adjoint sits right below it.  Matrices are row-major [row][column]. */
#define _POSIX_C_SOURCE 200809L /* strtok_r */
#include "actuation.h"
#include "controller.h"
#include <adjsim/optcheck.h>
#include <adjsim/stepperimpl.h>
#include <string.h>

/* The active Kirchhoff stress of a particle of group A at deformation gradient F and level a, c = a s:
 *   fibre:      tau = c m m^T,  m = F f;
 *   isotropic:  tau = c J I,    J = det F. */
void MPMActiveStress(const MPMActuator *A, PetscReal level, const PetscScalar F[MPM_DIM][MPM_DIM],
                     PetscScalar tau[MPM_DIM][MPM_DIM])
{
  const PetscReal c = level * A->strength;

  if (A->isotropic) {
    tau[0][0] = tau[1][1] = c * MPMDeterminant(F);
    tau[0][1] = tau[1][0] = 0;
  } else {
    PetscScalar m[MPM_DIM];

    MPMFibreImage(A, F, m);
    for (PetscInt a = 0; a < MPM_DIM; a++)
      for (PetscInt b = 0; b < MPM_DIM; b++) tau[a][b] = c * m[a] * m[b];
  }
}
/* Adjoint of MPMActiveStress: Fb += (dtau/dF)^T taub, levelb += (dtau/da) : taub:
 *   fibre:      mb = c (taub + taub^T) m,  Fb += mb f^T,  levelb += s m^T taub m;
 *   isotropic:  Fb += c tr(taub) cof F (cof F = dJ/dF),  levelb += s J tr(taub). */
void MPMActiveStressAdjoint(const MPMActuator *A, PetscReal level, const PetscScalar F[MPM_DIM][MPM_DIM],
                            const PetscScalar taub[MPM_DIM][MPM_DIM], PetscScalar Fb[MPM_DIM][MPM_DIM],
                            PetscReal *levelb)
{
  const PetscReal c = level * A->strength;

  if (A->isotropic) {
    const PetscScalar tr = taub[0][0] + taub[1][1];
    PetscScalar       cof[MPM_DIM][MPM_DIM];

    MPMCofactor(F, cof);
    for (PetscInt a = 0; a < MPM_DIM; a++)
      for (PetscInt b = 0; b < MPM_DIM; b++) Fb[a][b] += c * tr * cof[a][b];
    *levelb += A->strength * MPMDeterminant(F) * tr;
  } else {
    PetscScalar m[MPM_DIM], mb[MPM_DIM] = {0, 0}, mtm = 0;

    MPMFibreImage(A, F, m);
    for (PetscInt a = 0; a < MPM_DIM; a++)
      for (PetscInt b = 0; b < MPM_DIM; b++) {
        mb[a] += c * (taub[a][b] + taub[b][a]) * m[b];
        mtm += m[a] * taub[a][b] * m[b];
      }
    for (PetscInt a = 0; a < MPM_DIM; a++)
      for (PetscInt b = 0; b < MPM_DIM; b++) Fb[a][b] += mb[a] * A->fiber[b];
    *levelb += A->strength * mtm;
  }
}

/* The unbounded signal u of group g at time t and its weights: u = sum_j wt_j c_j over the coefficients j of idx.
 *   Fourier:  u = c_0 + sum_{k=1..K} c_{2k-1} sin(k w t) + c_{2k} cos(k w t),   w = 2 pi / period;
 *   linear:   u = (1 - s) c_j + s c_{j+1 mod n},  tau = n (t mod period) / period,  j = floor(tau),  s = tau - j
 *             (periodic: the last segment returns to c_0). */
static PetscInt MPMActuationWeights(const struct _n_MPMActuation *act, PetscReal t, PetscInt idx[], PetscReal wt[])
{
  if (act->linear) {
    const PetscInt  n   = act->ncoef;
    const PetscReal tau = n * (t / act->period - PetscFloorReal(t / act->period));
    const PetscInt  j   = PetscMin((PetscInt)PetscFloorReal(tau), n - 1);

    idx[0] = j, wt[0] = 1 - (tau - j);
    idx[1] = (j + 1) % n, wt[1] = tau - j;
    return 2;
  } else {
    const PetscReal w = 2 * PETSC_PI / act->period;

    idx[0] = 0, wt[0] = 1;
    for (PetscInt k = 1; k <= act->nmodes; k++) {
      idx[2 * k - 1] = 2 * k - 1, wt[2 * k - 1] = PetscSinReal(k * w * t);
      idx[2 * k] = 2 * k, wt[2 * k] = PetscCosReal(k * w * t);
    }
    return act->ncoef;
  }
}

/* The open-loop levels at time t: per group g with coefficients c = coef + g ncoef and the signal u_g above,
 *   a_g = B tanh(u_g / B) (bound B > 0: |a_g| < B, a_g ~ u_g for |u_g| << B) or a_g = u_g (B = 0). */
void MPMActuationSignal(const struct _n_MPMActuation *act, PetscReal t, PetscReal level[])
{
  PetscInt  idx[1 + 2 * MPM_ACT_MAX_MODES];
  PetscReal wt[1 + 2 * MPM_ACT_MAX_MODES];
  PetscInt  nw = MPMActuationWeights(act, t, idx, wt);

  for (PetscInt g = 0; g < act->nact; g++) {
    const PetscReal *c = act->coef + g * act->ncoef;
    PetscReal        u = 0;

    for (PetscInt i = 0; i < nw; i++) u += wt[i] * c[idx[i]];
    level[g] = act->bound > 0 ? act->bound * PetscTanhReal(u / act->bound) : u;
  }
}
/* Adjoint of MPMActuationSignal: coefb_j += wt_j ub, ub = levelb (1 - tanh^2(u / B)) (or levelb). */
void MPMActuationSignalAdjoint(const struct _n_MPMActuation *act, PetscReal t, const PetscReal levelb[],
                               PetscReal coefb[])
{
  PetscInt  idx[1 + 2 * MPM_ACT_MAX_MODES];
  PetscReal wt[1 + 2 * MPM_ACT_MAX_MODES];
  PetscInt  nw = MPMActuationWeights(act, t, idx, wt);

  for (PetscInt g = 0; g < act->nact; g++) {
    const PetscReal *c  = act->coef + g * act->ncoef;
    PetscReal       *cb = coefb + g * act->ncoef, u = 0, ub = levelb[g];

    for (PetscInt i = 0; i < nw; i++) u += wt[i] * c[idx[i]];
    if (act->bound > 0) {
      const PetscReal th = PetscTanhReal(u / act->bound);
      ub *= 1 - th * th;
    }
    for (PetscInt i = 0; i < nw; i++) cb[idx[i]] += wt[i] * ub;
  }
}

/* ---------------------------------------------------------------------------------------------------------------- */
/* Set-up from options */

/* Parses A->spec: comma-separated tokens; "key:value" starts a key, a token without ':' continues the values of
 * the previous key: label:L, fiber:fx,fy (or fibre:), isotropic, strength:S. */
static PetscErrorCode MPMActuatorParse(MPM mpm, MPMActuator *A, PetscReal strength)
{
  char      copy[256], *save = NULL, *tok, key[32] = "";
  PetscReal val[2];
  PetscInt  nval      = 0;
  PetscBool has_label = PETSC_FALSE, has_fiber = PETSC_FALSE;

  PetscFunctionBeginUser;
  A->strength  = strength;
  A->isotropic = PETSC_FALSE;
  PetscCall(PetscStrncpy(copy, A->spec, sizeof(copy)));
  /* one extra pass with tok = NULL finishes the last key */
  for (tok = strtok_r(copy, ",", &save);; tok = strtok_r(NULL, ",", &save)) {
    char *colon = tok ? strchr(tok, ':') : NULL;

    if (!tok || colon || !strcmp(tok, "isotropic")) {
      if (key[0]) { /* finish the previous key */
        const PetscBool lab = (PetscBool)!strcmp(key, "label"),
                        fib = (PetscBool)(!strcmp(key, "fiber") || !strcmp(key, "fibre"));
        const PetscBool str = (PetscBool)!strcmp(key, "strength"), iso = (PetscBool)!strcmp(key, "isotropic");
        const PetscInt  need = fib ? 2 : (iso ? 0 : 1); /* numbers after the key */

        PetscCheck(lab || fib || str || iso, mpm->comm, PETSC_ERR_USER_INPUT,
                   "%s %s: unknown key \"%s\"; use label:L, fiber:fx,fy or isotropic, strength:S", A->option, A->spec,
                   key);
        PetscCheck(nval == need, mpm->comm, PETSC_ERR_USER_INPUT,
                   "%s %s: %s needs %" PetscInt_FMT " number%s, got %" PetscInt_FMT, A->option, A->spec, key, need,
                   fib ? "s fx,fy" : "", nval);
        if (lab) {
          PetscCheck(val[0] == (PetscInt)val[0], mpm->comm, PETSC_ERR_USER_INPUT,
                     "%s %s: the label %g is not an integer", A->option, A->spec, (double)val[0]);
          A->label = (PetscInt)val[0], has_label = PETSC_TRUE;
        }
        if (fib) A->fiber[0] = val[0], A->fiber[1] = val[1], has_fiber = PETSC_TRUE;
        if (str) A->strength = val[0];
        if (iso) A->isotropic = PETSC_TRUE;
      }
      if (!tok) break;
      nval = 0;
      if (colon) *colon = 0;
      PetscCall(PetscStrncpy(key, tok, sizeof(key)));
      if (!colon) continue;
      tok = colon + 1;
    }
    PetscCheck(key[0], mpm->comm, PETSC_ERR_USER_INPUT,
               "%s %s: \"%s\" does not follow a key (label:, fiber:, strength:)", A->option, A->spec, tok);
    PetscCheck(nval < 2 && MPMParseReals(tok, 1, &val[nval]), mpm->comm, PETSC_ERR_USER_INPUT,
               "%s %s: \"%s\" is not a number of key %s (or too many numbers)", A->option, A->spec, tok, key);
    nval++;
  }
  PetscCheck(has_label, mpm->comm, PETSC_ERR_USER_INPUT,
             "%s %s: no label:L; an actuator drives the particles of a label", A->option, A->spec);
  PetscCheck(has_fiber != A->isotropic, mpm->comm, PETSC_ERR_USER_INPUT, "%s %s: give either fiber:fx,fy or isotropic",
             A->option, A->spec);
  PetscCheck(A->label >= 0 && A->label < mpm->nlabels, mpm->comm, PETSC_ERR_USER_INPUT,
             "%s %s: unknown label %" PetscInt_FMT ": -mpm_E, -mpm_nu, -mpm_rho define labels 0..%" PetscInt_FMT,
             A->option, A->spec, A->label, mpm->nlabels - 1);
  PetscCheck(A->strength > 0 && PetscIsNormalReal(A->strength), mpm->comm, PETSC_ERR_USER_INPUT,
             "%s %s: the strength %g Pa must be positive (the sign of the level says tension or compression)",
             A->option, A->spec, (double)A->strength);
  if (!A->isotropic) {
    const PetscReal nf = PetscSqrtReal(PetscSqr(A->fiber[0]) + PetscSqr(A->fiber[1]));

    PetscCheck(nf > 0, mpm->comm, PETSC_ERR_USER_INPUT, "%s %s: the fibre direction (%g, %g) is zero", A->option,
               A->spec, (double)A->fiber[0], (double)A->fiber[1]);
    A->fiber[0] /= nf, A->fiber[1] /= nf; /* a unit fibre: the strength alone scales the stress */
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Every actuated label has particles (counted over the ranks: act->count); no label has two actuators. Collective. */
static PetscErrorCode MPMActuationCheckGroups(MPM mpm)
{
  MPMActuation            act = mpm->act;
  const MPMMaterialPoint *mat;
  PetscInt64              count[MPM_MAX_ACTUATORS] = {0};

  PetscFunctionBeginUser;
  for (PetscInt l = 0; l < MPM_MAX_LABELS; l++) act->group_of_label[l] = -1;
  for (PetscInt g = 0; g < act->nact; g++) {
    const PetscInt l = act->act[g].label;

    PetscCheck(act->group_of_label[l] < 0, mpm->comm, PETSC_ERR_USER_INPUT,
               "%s %s: label %" PetscInt_FMT " is already driven by %s", act->act[g].option, act->act[g].spec, l,
               act->act[act->group_of_label[l]].option);
    act->group_of_label[l] = g;
  }
  PetscCall(VecGetArrayRead(mpm->mat, (const PetscScalar **)&mat));
  for (PetscInt i = 0; i < mpm->nhome; i++) {
    const PetscInt g = act->group_of_label[(PetscInt)mat[i].label];
    if (g >= 0) count[g]++;
  }
  PetscCall(VecRestoreArrayRead(mpm->mat, (const PetscScalar **)&mat));
  PetscCallMPI(MPI_Allreduce(count, act->count, MPM_MAX_ACTUATORS, MPIU_INT64, MPI_SUM, mpm->comm));
  for (PetscInt g = 0; g < act->nact; g++)
    PetscCheck(act->count[g] > 0, mpm->comm, PETSC_ERR_USER_INPUT,
               "%s %s: the actuator group has no particles: no body has label %" PetscInt_FMT, act->act[g].option,
               act->act[g].spec, act->act[g].label);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Initial coefficients: given (-mpm_actuation_coefficients), else 0 plus a uniform random perturbation of amplitude
 * r (-mpm_actuation_random) from a fixed-seed generator, the same on every rank. */
static PetscErrorCode MPMActuationInitialCoefficients(MPM mpm, PetscReal random, PetscInt seed)
{
  MPMActuation   act  = mpm->act;
  const PetscInt n    = act->nact * act->ncoef;
  PetscInt       nset = n;
  PetscBool      set;
  PetscRandom    rnd;

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(act->coef, n));
  PetscOptionsBegin(mpm->comm, mpm->prefix, "MPM: actuation", "MPM");
  PetscCall(PetscOptionsRealArray(
      "-mpm_actuation_coefficients",
      "Initial signal coefficients, per actuator c0, (sin, cos) of modes 1..K (linear: its n knot values) "
      "(parameter block actuation; default 0 + -mpm_actuation_random)",
      "", act->coef, &nset, &set));
  PetscOptionsEnd();
  PetscCheck(!set || nset == n, mpm->comm, PETSC_ERR_USER_INPUT,
             "-mpm_actuation_coefficients: %" PetscInt_FMT " values given, %" PetscInt_FMT " needed (%" PetscInt_FMT
             " actuators x %" PetscInt_FMT " %s)",
             nset, n, act->nact, act->ncoef, act->linear ? "knot values" : "Fourier coefficients");
  if (set)
    PetscCall(AdjCheckRealOptionArray(mpm->comm, "-mpm_actuation_coefficients", n, act->coef, ADJ_REAL_FINITE, "1"));
  if (set || random == 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd)); /* the same sequence on every rank */
  PetscCall(PetscRandomSetType(rnd, PETSCRAND48));
  PetscCall(PetscRandomSetSeed(rnd, (unsigned long)seed));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(PetscRandomSetInterval(rnd, -random, random));
  for (PetscInt i = 0; i < n; i++) PetscCall(PetscRandomGetValueReal(rnd, &act->coef[i]));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ MPMActuationSetUp - reads -mpm_actuator0, -mpm_actuator1, ... (until the first missing one), the signal and
    the energy penalty; needs the seeded particles and the time step. No actuator: mpm->act stays NULL and
    nothing of the step changes. Collective. @*/
PetscErrorCode MPMActuationSetUp(MPM mpm)
{
  MPMActuation  act;
  MPMController ctrl;
  PetscReal     strength = 1e3, period = mpm->final_time, bound = 1.0, weight = 0, random = 0;
  PetscInt      nmodes = 2, knots = 8, seed = 1, nact = 0;
  PetscBool     linear = PETSC_FALSE;
  MPMActuator   A[MPM_MAX_ACTUATORS + 1];
  PetscBool     set;

  PetscFunctionBeginUser;
  PetscOptionsBegin(mpm->comm, mpm->prefix, "MPM: actuation", "MPM");
  for (PetscInt k = 0; k <= MPM_MAX_ACTUATORS; k++) {
    PetscCall(PetscSNPrintf(A[k].option, sizeof(A[k].option), "-mpm_actuator%" PetscInt_FMT, k));
    A[k].spec[0] = 0;
    PetscCall(PetscOptionsString(A[k].option,
                                 "Actuator group k: label:L,fiber:fx,fy[,strength:S] (active Kirchhoff stress a(t) S "
                                 "(F f)(F f)^T along the unit fibre f of the reference configuration) or "
                                 "label:L,isotropic[,strength:S] (a(t) S J I) on the particles of label L; numbered 0, "
                                 "1, ... without gaps, at most 8",
                                 "", A[k].spec, A[k].spec, sizeof(A[k].spec), &set));
    if (set && k == nact) nact++;
    PetscCheck(!set || k < MPM_MAX_ACTUATORS, mpm->comm, PETSC_ERR_USER_INPUT, "%s: at most %d actuators", A[k].option,
               MPM_MAX_ACTUATORS);
    PetscCheck(!set || k == nact - 1, mpm->comm, PETSC_ERR_USER_INPUT,
               "%s is given but -mpm_actuator%" PetscInt_FMT " is not: actuators are numbered 0, 1, ... without gaps",
               A[k].option, nact);
  }
  PetscCall(PetscOptionsReal("-mpm_actuation_strength", "Default strength S of the actuators [Pa]", "", strength,
                             &strength, NULL));
  PetscCall(PetscOptionsInt("-mpm_actuation_modes", "Fourier modes K of the open-loop signal per actuator", "", nmodes,
                            &nmodes, NULL));
  PetscCall(PetscOptionsBool("-mpm_actuation_linear",
                             "Piecewise-linear signal instead of the Fourier series: the periodic linear interpolation "
                             "of n values per actuator at the knots j T / n",
                             "", linear, &linear, NULL));
  PetscCall(PetscOptionsInt("-mpm_actuation_knots", "Knots n per period of the piecewise-linear signal", "", knots,
                            &knots, NULL));
  PetscCall(PetscOptionsReal("-mpm_actuation_period",
                             "Period T [s] of the signal's first mode (default: the final time)", "", period, &period,
                             NULL));
  PetscCall(PetscOptionsReal("-mpm_actuation_bound",
                             "Bound B of the level: a = B tanh(u / B) of the Fourier sum u; 0: unbounded a = u", "",
                             bound, &bound, NULL));
  PetscCall(PetscOptionsReal("-mpm_actuation_energy_weight",
                             "Weight w of the energy-use penalty J += w dt sum_steps sum_actuators a^2 [1/s]", "",
                             weight, &weight, NULL));
  PetscCall(PetscOptionsReal("-mpm_actuation_random",
                             "Amplitude r of uniform random initial coefficients in [-r, r] (fixed seed)", "", random,
                             &random, NULL));
  PetscCall(PetscOptionsInt("-mpm_actuation_seed", "Seed of -mpm_actuation_random", "", seed, &seed, NULL));
  PetscOptionsEnd();
  PetscCall(MPMControllerCreate(mpm, nact, period, bound, &ctrl)); /* NULL: no -mpm_controller_layers */
  if (!nact) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(AdjCheckRealOption(mpm->comm, "-mpm_actuation_strength", strength, ADJ_REAL_POSITIVE, "Pa"));
  PetscCheck(nmodes >= 0 && nmodes <= MPM_ACT_MAX_MODES, mpm->comm, PETSC_ERR_USER_INPUT,
             "-mpm_actuation_modes %" PetscInt_FMT ": the number of Fourier modes must lie in 0..%d", nmodes,
             MPM_ACT_MAX_MODES);
  PetscCheck(!linear || (knots >= 2 && knots <= 1 + 2 * MPM_ACT_MAX_MODES), mpm->comm, PETSC_ERR_USER_INPUT,
             "-mpm_actuation_knots %" PetscInt_FMT ": the number of knots must lie in 2..%d", knots,
             1 + 2 * MPM_ACT_MAX_MODES);
  PetscCheck(period > 0 && PetscIsNormalReal(period), mpm->comm, PETSC_ERR_USER_INPUT,
             "-mpm_actuation_period %g s: the period must be positive", (double)period);
  PetscCall(AdjCheckRealOption(mpm->comm, "-mpm_actuation_bound", bound, ADJ_REAL_NONNEGATIVE, "1"));
  PetscCall(AdjCheckRealOption(mpm->comm, "-mpm_actuation_energy_weight", weight, ADJ_REAL_NONNEGATIVE, "1/s"));
  PetscCall(AdjCheckRealOption(mpm->comm, "-mpm_actuation_random", random, ADJ_REAL_NONNEGATIVE, "1"));
  PetscCall(PetscNew(&act));
  mpm->act           = act;
  act->nact          = nact;
  act->linear        = linear;
  act->nmodes        = linear ? 0 : nmodes;
  act->ncoef         = linear ? knots : 1 + 2 * nmodes;
  act->period        = period;
  act->bound         = bound;
  act->energy_weight = weight;
  act->ctrl          = ctrl;
  for (PetscInt g = 0; g < nact; g++) {
    act->act[g] = A[g];
    PetscCall(MPMActuatorParse(mpm, &act->act[g], strength));
  }
  PetscCall(MPMActuationCheckGroups(mpm));
  if (ctrl)
    PetscCall(MPMControllerSetUp(mpm));
  else
    PetscCall(MPMActuationInitialCoefficients(mpm, random, seed));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MPMActuationDestroy(MPM mpm)
{
  PetscFunctionBeginUser;
  if (mpm->act) PetscCall(MPMControllerDestroy(&mpm->act->ctrl));
  PetscCall(PetscFree(mpm->act));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------------- */
/* The step's hooks (step.c) */

/*@ MPMActuationStepLevels - the levels a_g of step k (x_{k-1} -> x_k), taken at its start t = (k - 1) dt: of t
    (open loop) or of the state xin = x_{k-1} (home layout) and t (controller). Collective with a controller. @*/
PetscErrorCode MPMActuationStepLevels(MPM mpm, AdjStepIndex k, Vec xin)
{
  PetscFunctionBeginUser;
  if (!mpm->act) PetscFunctionReturn(PETSC_SUCCESS);
  if (mpm->act->ctrl)
    PetscCall(MPMControllerLevels(mpm, k, xin, mpm->act->level));
  else
    MPMActuationSignal(mpm->act, (PetscReal)(k - 1) * mpm->dt, mpm->act->level);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ MPMActuationStepStress - the arguments of the active stress of the step for the P2G kernel (MPMParticleToGrid,
    which adds tau_act to the model's stress in its one scatter): the actuators and the levels of the step (set by
    MPMActuationStepLevels); both NULL without actuators or at dt = 0 (the momentum-only transfers of output and
    objectives carry no force). Not collective. @*/
PetscErrorCode MPMActuationStepStress(MPM mpm, PetscReal dt, const struct _n_MPMActuation **act,
                                      const PetscReal **level)
{
  PetscFunctionBeginUser;
  *act   = mpm->act && dt > 0 ? mpm->act : NULL;
  *level = *act ? mpm->act->level : NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ MPMActuationStepStressAdjointBegin - the arguments of the active stress of step k for the P2G adjoint
    (MPMParticleToGridAdjoint): the actuators, the levels of step k and the zeroed dJ/da_g of the step it adds to
    (all NULL without actuators).  The levels (and the controller's units) are those MPMStep(k) set: MPMStepAdjoint
    has just run it or found its intermediates (fwd_step == k), so they are not computed again (with a controller that
    would be the feature sums, an MPI_Allreduce and the network once more per adjoint step). Not collective. @*/
PetscErrorCode MPMActuationStepStressAdjointBegin(MPM mpm, AdjStepIndex k, const struct _n_MPMActuation **act,
                                                  const PetscReal **level, PetscReal **levelb)
{
  PetscFunctionBeginUser;
  *act    = mpm->act;
  *level  = NULL;
  *levelb = NULL;
  if (!mpm->act) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(mpm->fwd_step == k, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "MPM actuation: the levels of step %" PetscInt64_FMT " are needed, those of step %" PetscInt64_FMT
             " are held",
             (PetscInt64)k, (PetscInt64)mpm->fwd_step);
  PetscCall(PetscArrayzero(mpm->act->levelb, mpm->act->nact));
  *level  = mpm->act->level;
  *levelb = mpm->act->levelb;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ MPMActuationStepStressAdjointEnd - dJ/da_g of step k (from the P2G adjoint) into this rank's partial gradient of
    the signal coefficients (open loop), or through the controller into its weights' gradient and the state adjoint
    lin of xin = x_{k-1} (lin += (da/dxin)^T dJ/da; home layout). Collective with a controller. @*/
PetscErrorCode MPMActuationStepStressAdjointEnd(MPM mpm, AdjStepIndex k, Vec xin, Vec lin)
{
  MPMActuation act = mpm->act;

  PetscFunctionBeginUser;
  if (act && act->ctrl)
    PetscCall(MPMControllerLevelsAdjoint(mpm, xin, act->levelb, lin));
  else if (act)
    MPMActuationSignalAdjoint(act, (PetscReal)(k - 1) * mpm->dt, act->levelb, act->gcoef);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ MPMActuationEnergy - the energy-use penalty E = w dt sum_{k=1..N} sum_g a_g(t_{k-1})^2 (the same on every rank)
    and its gradient dE/dcoef added to rank 0's partial sums (the gradient hook sums over ranks). Not collective. @*/
PetscErrorCode MPMActuationEnergy(MPM mpm, PetscReal *E)
{
  MPMActuation act = mpm->act;

  PetscFunctionBeginUser;
  *E = 0;
  if (!act || act->energy_weight == 0) PetscFunctionReturn(PETSC_SUCCESS);
  for (AdjStepIndex k = 1; k <= mpm->nsteps; k++) {
    const PetscReal t = (PetscReal)(k - 1) * mpm->dt;
    PetscReal       level[MPM_MAX_ACTUATORS], levelb[MPM_MAX_ACTUATORS];

    MPMActuationSignal(act, t, level);
    for (PetscInt g = 0; g < act->nact; g++) {
      *E += act->energy_weight * mpm->dt * level[g] * level[g];
      levelb[g] = 2 * act->energy_weight * mpm->dt * level[g];
    }
    if (mpm->rank == 0) MPMActuationSignalAdjoint(act, t, levelb, act->gcoef);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ MPMActuationGradientSums - the rank partial sums of dJ/dcoef summed over ranks. Collective. @*/
PetscErrorCode MPMActuationGradientSums(MPM mpm)
{
  MPMActuation act = mpm->act;

  PetscFunctionBeginUser;
  if (act && act->ctrl)
    PetscCall(MPMControllerGradientSums(mpm));
  else if (act)
    PetscCallMPI(
        MPI_Allreduce(act->gcoef, act->scoef, (PetscMPIInt)(act->nact * act->ncoef), MPIU_REAL, MPIU_SUM, mpm->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* New coefficients arrived: finite, and the step intermediates and the exchange's knowledge of owners are stale. */
static PetscErrorCode MPMActuationChanged(void *ctx)
{
  MPM          mpm = (MPM)ctx;
  MPMActuation act = mpm->act;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < act->nact * act->ncoef; i++)
    PetscCheck(PetscIsNormalReal(act->coef[i]) || act->coef[i] == 0, mpm->comm, PETSC_ERR_USER_INPUT,
               "Actuation parameter %" PetscInt_FMT " = %g is not finite", i, (double)act->coef[i]);
  mpm->fwd_step = -1;
  PetscCall(MPMExchangeForget(mpm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ MPMActuationRegister - the parameter block "actuation" (the signal coefficients, dimensionless, scale 1) and its
    gradient accumulator. Collective. @*/
PetscErrorCode MPMActuationRegister(MPM mpm, AdjStepper st, AdjParams params)
{
  MPMActuation act = mpm->act;

  PetscFunctionBeginUser;
  if (!act) PetscFunctionReturn(PETSC_SUCCESS);
  if (act->ctrl) { /* the controller drives every group: no open-loop coefficients */
    PetscCall(MPMControllerRegister(mpm, st, params));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(AdjParamsAddArray(params, "actuation", "1", act->nact * act->ncoef));
  PetscCall(AdjParamsSetArrayStorage(params, "actuation", act->coef, act->scoef));
  PetscCall(AdjParamsSetGradientUnits(params, "actuation", "objective per unit"));
  PetscCall(AdjParamsSetChangeHook(params, "actuation", MPMActuationChanged, mpm));
  PetscCall(AdjParamsSetOptionalInFiles(params, "actuation"));
  PetscCall(AdjStepperAddGradientArray(st, "actuation", act->gcoef, act->nact * act->ncoef));
  PetscFunctionReturn(PETSC_SUCCESS);
}
