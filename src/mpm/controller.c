/* Closed-loop neural-network controller of the MPM actuators (controller.h, docs/mpm.md "Closed-loop controller"):
 * state features of the particles, a dense tanh network, each kernel with its adjoint right below it; then set-up
 * from options, the step's hooks (called by actuation.c) and the parameter block "controller". */
#include "controller.h"
#include "actuation.h"
#include <adjsim/splitmix.h>
#include <adjsim/optcheck.h>
#include <adjsim/stepperimpl.h>

/* ---------------------------------------------------------------------------------------------------------------- */
/* Kernels */

/* The stretch of a particle of actuator A: |F f| along the unit fibre f, or J = det F (isotropic group). */
static inline PetscReal MPMGroupStretch(const MPMActuator *A, const PetscScalar F[MPM_DIM][MPM_DIM])
{
  PetscScalar m[MPM_DIM];

  if (A->isotropic) return MPMDeterminant(F);
  MPMFibreImage(A, F, m);
  return PetscSqrtReal(m[0] * m[0] + m[1] * m[1]);
}

/* This rank's sums over n particles (records of nrec reals in x, materials mat) in a fixed order:
 *   sums[0..1] = sum_p x_p,  sums[2..3] = sum_p v_p,  sums[4 + g] = sum_{p in g} stretch_p. */
void MPMFeatureSums(const MPMFeatureMap *m, PetscInt n, PetscInt nrec, const PetscScalar *x,
                    const MPMMaterialPoint mat[], PetscReal sums[])
{
  for (PetscInt i = 0; i < 2 * MPM_DIM + m->ngroups; i++) sums[i] = 0;
  for (PetscInt p = 0; p < n; p++) {
    const MPMParticle *q = MPMRecordRead(x, nrec, p);
    const PetscInt     g = m->act->group_of_label[(PetscInt)mat[p].label];

    for (PetscInt a = 0; a < MPM_DIM; a++) sums[a] += q->x[a], sums[MPM_DIM + a] += q->v[a];
    if (g >= 0) sums[2 * MPM_DIM + g] += MPMGroupStretch(&m->act->act[g], q->F);
  }
}
/* Adjoint of MPMFeatureSums: xb_p += sumsb[0..1], vb_p += sumsb[2..3], and for a particle of group g
 *   fibre:      Fb += sb (F f / |F f|) f^T,   isotropic:  Fb += sb cof F,   sb = sumsb[4 + g]. */
void MPMFeatureSumsAdjoint(const MPMFeatureMap *m, PetscInt n, PetscInt nrec, const PetscScalar *x,
                           const MPMMaterialPoint mat[], const PetscReal sumsb[], PetscScalar *xb)
{
  for (PetscInt p = 0; p < n; p++) {
    const MPMParticle *q  = MPMRecordRead(x, nrec, p);
    MPMParticle       *qb = MPMRecord(xb, nrec, p);
    const PetscInt     g  = m->act->group_of_label[(PetscInt)mat[p].label];

    for (PetscInt a = 0; a < MPM_DIM; a++) qb->x[a] += sumsb[a], qb->v[a] += sumsb[MPM_DIM + a];
    if (g < 0) continue;
    {
      const PetscReal    sb = sumsb[2 * MPM_DIM + g];
      const MPMActuator *A  = &m->act->act[g];

      if (A->isotropic) {
        PetscScalar cof[MPM_DIM][MPM_DIM];

        MPMCofactor(q->F, cof);
        for (PetscInt a = 0; a < MPM_DIM; a++)
          for (PetscInt b = 0; b < MPM_DIM; b++) qb->F[a][b] += sb * cof[a][b];
      } else {
        PetscScalar mv[MPM_DIM];
        PetscReal   len;

        MPMFibreImage(A, q->F, mv);
        len = PetscSqrtReal(mv[0] * mv[0] + mv[1] * mv[1]);
        for (PetscInt a = 0; a < MPM_DIM; a++)
          for (PetscInt b = 0; b < MPM_DIM; b++) qb->F[a][b] += sb * mv[a] / len * A->fiber[b];
      }
    }
  }
}

/* The features from the sums over all particles at time t (controller.h):
 *   f_a = (sums_a / N - xbar0_a) / ell,  f_{2+a} = sums_{2+a} / (N U),  f_{4+g} = (sums_{4+g} / N_g - 1) / eps,
 *   f_{4+G+2j} = sin(2 pi t / T_j),  f_{5+G+2j} = cos(2 pi t / T_j). */
void MPMFeatures(const MPMFeatureMap *m, const PetscReal sums[], PetscReal t, PetscReal f[])
{
  const PetscInt G = m->ngroups;

  for (PetscInt a = 0; a < MPM_DIM; a++) {
    f[a]           = (sums[a] / m->nparticles - m->centroid0[a]) / m->length;
    f[MPM_DIM + a] = sums[MPM_DIM + a] / (m->nparticles * m->speed);
  }
  for (PetscInt g = 0; g < G; g++)
    f[2 * MPM_DIM + g] = (sums[2 * MPM_DIM + g] / (PetscReal)m->act->count[g] - 1) / m->stretch;
  for (PetscInt j = 0; j < m->nperiods; j++) {
    f[2 * MPM_DIM + G + 2 * j]     = PetscSinReal(2 * PETSC_PI * t / m->period[j]);
    f[2 * MPM_DIM + G + 2 * j + 1] = PetscCosReal(2 * PETSC_PI * t / m->period[j]);
  }
}
/* Adjoint of MPMFeatures (linear in the sums; the clock does not depend on the state): sumsb = (df/dsums)^T fb. */
void MPMFeaturesAdjoint(const MPMFeatureMap *m, const PetscReal fb[], PetscReal sumsb[])
{
  for (PetscInt a = 0; a < MPM_DIM; a++) {
    sumsb[a]           = fb[a] / (m->nparticles * m->length);
    sumsb[MPM_DIM + a] = fb[MPM_DIM + a] / (m->nparticles * m->speed);
  }
  for (PetscInt g = 0; g < m->ngroups; g++)
    sumsb[2 * MPM_DIM + g] = fb[2 * MPM_DIM + g] / ((PetscReal)m->act->count[g] * m->stretch);
}

/* The network's forward pass: units = [input, hidden layer 1, ..., output]; per layer l with W, b (controller.h)
 *   z = W h_l + b,  h_{l+1} = tanh(z) (hidden),  a = B tanh(z / B) (output, B > 0) or a = z (B = 0). */
void MPMNetworkForward(const MPMNetwork *net, const PetscReal w[], const PetscReal in[], PetscReal units[])
{
  const PetscReal *W = w, *h = units;
  PetscReal       *out;

  for (PetscInt j = 0; j < net->width[0]; j++) units[j] = in[j];
  out = units + net->width[0];
  for (PetscInt l = 0; l < net->nlayers; l++) {
    const PetscInt   nin = net->width[l], nout = net->width[l + 1];
    const PetscReal *b      = W + nout * nin;
    const PetscBool  hidden = (PetscBool)(l < net->nlayers - 1);

    for (PetscInt i = 0; i < nout; i++) {
      PetscReal z = b[i];

      for (PetscInt j = 0; j < nin; j++) z += W[i * nin + j] * h[j];
      if (hidden)
        out[i] = PetscTanhReal(z);
      else
        out[i] = net->bound > 0 ? net->bound * PetscTanhReal(z / net->bound) : z;
    }
    W = b + nout, h = out, out += nout;
  }
}
/* Adjoint of MPMNetworkForward from its units (the derivative of each activation from its output h' alone):
 *   zb = hb (1 - h'^2) (hidden),  zb = ab (1 - (a / B)^2) (output; B = 0: zb = ab),
 *   Wb += zb h^T,  bb += zb,  hb = W^T zb;   wb += dJ/dw (wb = NULL: not wanted),  inb = dJ/din. */
void MPMNetworkAdjoint(const MPMNetwork *net, const PetscReal w[], const PetscReal units[], const PetscReal outb[],
                       PetscReal wb[], PetscReal inb[])
{
  PetscInt  woff[MPM_CTRL_MAX_HIDDEN + 2], uoff[MPM_CTRL_MAX_HIDDEN + 2];
  PetscReal hb[MPM_CTRL_MAX_WIDTH + MPM_CTRL_MAX_FEATURES], zb[MPM_CTRL_MAX_WIDTH + MPM_CTRL_MAX_FEATURES];

  woff[0] = uoff[0] = 0;
  for (PetscInt l = 0; l < net->nlayers; l++) {
    woff[l + 1] = woff[l] + net->width[l + 1] * (net->width[l] + 1);
    uoff[l + 1] = uoff[l] + net->width[l];
  }
  for (PetscInt i = 0; i < net->width[net->nlayers]; i++) hb[i] = outb[i];
  for (PetscInt l = net->nlayers - 1; l >= 0; l--) {
    const PetscInt   nin = net->width[l], nout = net->width[l + 1];
    const PetscReal *W = w + woff[l], *h = units + uoff[l], *hout = units + uoff[l + 1];
    PetscReal       *Wb = wb ? wb + woff[l] : NULL, *bb = wb ? Wb + nout * nin : NULL;

    for (PetscInt i = 0; i < nout; i++) {
      if (l < net->nlayers - 1)
        zb[i] = hb[i] * (1 - hout[i] * hout[i]);
      else
        zb[i] = net->bound > 0 ? hb[i] * (1 - PetscSqr(hout[i] / net->bound)) : hb[i];
    }
    for (PetscInt j = 0; j < nin; j++) hb[j] = 0;
    for (PetscInt i = 0; i < nout; i++)
      for (PetscInt j = 0; j < nin; j++) hb[j] += W[i * nin + j] * zb[i];
    if (wb)
      for (PetscInt i = 0; i < nout; i++) {
        for (PetscInt j = 0; j < nin; j++) Wb[i * nin + j] += zb[i] * h[j];
        bb[i] += zb[i];
      }
  }
  for (PetscInt j = 0; j < net->width[0]; j++) inb[j] = hb[j];
}

/* Initial weights: W of layer l uniform in [-r, r], r = gain sqrt(6 / (n_in + n_out)) (Glorot & Bengio 2010),
 * drawn row by row, layer by layer from the SplitMix64 stream seeded with seed (adjsim/splitmix.h; u = top 53 bits /
 * 2^53): the same weights on every platform and rank count; biases 0. gain = 0:
 * all zero. */
void MPMNetworkInitialize(const MPMNetwork *net, PetscReal gain, PetscInt seed, PetscReal w[])
{
  uint64_t   state = (uint64_t)seed;
  PetscReal *W     = w;

  for (PetscInt l = 0; l < net->nlayers; l++) {
    const PetscInt  nin = net->width[l], nout = net->width[l + 1];
    const PetscReal r = gain * PetscSqrtReal(6.0 / (PetscReal)(nin + nout));

    for (PetscInt i = 0; i < nout * nin; i++) {
      const PetscReal u = (PetscReal)(AdjSplitMix64Next(&state) >> 11) * 0x1.0p-53;
      W[i]              = r * (2 * u - 1);
    }
    for (PetscInt i = 0; i < nout; i++) W[nout * nin + i] = 0;
    W += nout * (nin + 1);
  }
}

/* ---------------------------------------------------------------------------------------------------------------- */
/* Set-up from options */

/* The open-loop signal's options do not apply to actuators driven by the controller. */
static PetscErrorCode MPMControllerRefuseOpenLoop(MPM mpm)
{
  const char *names[] = {"-mpm_actuation_coefficients", "-mpm_actuation_random", "-mpm_actuation_seed",
                         "-mpm_actuation_modes",        "-mpm_actuation_linear", "-mpm_actuation_knots",
                         "-mpm_actuation_energy_weight"};

  PetscFunctionBeginUser;
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
    PetscBool has;

    PetscCall(PetscOptionsHasName(NULL, mpm->prefix, names[i], &has));
    PetscCheck(!has, mpm->comm, PETSC_ERR_USER_INPUT,
               "%s: the actuators are driven by the controller (-mpm_controller_layers); an open-loop signal cannot be "
               "given too (drop one of them)",
               names[i]);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The network's widths from -mpm_controller_layers: features, hidden layers, one output per actuator. */
static PetscErrorCode MPMControllerLayers(MPM mpm, MPMController c, PetscInt nact, const PetscInt hidden[],
                                          PetscInt nhidden)
{
  PetscFunctionBeginUser;
  PetscCheck(nhidden >= 1 && nhidden <= MPM_CTRL_MAX_HIDDEN, mpm->comm, PETSC_ERR_USER_INPUT,
             "-mpm_controller_layers: %" PetscInt_FMT " hidden layers given; give 1..%d comma-separated widths",
             nhidden, MPM_CTRL_MAX_HIDDEN);
  c->net.nlayers  = nhidden + 1;
  c->net.width[0] = MPMFeatureCount(&c->map);
  for (PetscInt l = 0; l < nhidden; l++) {
    PetscCheck(hidden[l] >= 1 && hidden[l] <= MPM_CTRL_MAX_WIDTH, mpm->comm, PETSC_ERR_USER_INPUT,
               "-mpm_controller_layers: hidden layer %" PetscInt_FMT " has %" PetscInt_FMT
               " units; each layer needs 1..%d",
               l + 1, hidden[l], MPM_CTRL_MAX_WIDTH);
    c->net.width[l + 1] = hidden[l];
  }
  c->net.width[nhidden + 1] = nact;
  c->net.nweights           = 0;
  for (PetscInt l = 0; l < c->net.nlayers; l++) c->net.nweights += c->net.width[l + 1] * (c->net.width[l] + 1);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The initial weights: -mpm_controller_weights (all of them) or the seeded initialization. */
static PetscErrorCode MPMControllerInitialWeights(MPM mpm, MPMController c, PetscReal gain, PetscInt seed)
{
  PetscInt  n = c->net.nweights;
  PetscBool set;

  PetscFunctionBeginUser;
  MPMNetworkInitialize(&c->net, gain, seed, c->w);
  PetscOptionsBegin(mpm->comm, mpm->prefix, "MPM: closed-loop controller", "MPM");
  PetscCall(
      PetscOptionsRealArray("-mpm_controller_weights",
                            "Initial controller weights and biases, all of them, layer by layer: W (row-major, "
                            "outputs x inputs) then b (default: -mpm_controller_init_scale, -mpm_controller_seed)",
                            "", c->w, &n, &set));
  PetscOptionsEnd();
  PetscCheck(!set || n == c->net.nweights, mpm->comm, PETSC_ERR_USER_INPUT,
             "-mpm_controller_weights: %" PetscInt_FMT " values given, the network has %" PetscInt_FMT
             " weights and biases (%" PetscInt_FMT " features, -mpm_controller_layers, %" PetscInt_FMT " actuators)",
             n, c->net.nweights, c->net.width[0], c->net.width[c->net.nlayers]);
  if (set) PetscCall(AdjCheckRealOptionArray(mpm->comm, "-mpm_controller_weights", n, c->w, ADJ_REAL_FINITE, "1"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ MPMControllerCreate - reads -mpm_controller_layers and the controller's options and sets the initial weights
    (-mpm_controller_weights or the seeded initialization): *ctrl = NULL without a
    controller; refuses a controller without actuators (nact = 0) or together with the open-loop signal's options.
    period: the default clock period [s]. Collective. @*/
PetscErrorCode MPMControllerCreate(MPM mpm, PetscInt nact, PetscReal period, PetscReal bound, MPMController *ctrl)
{
  MPMController c;
  PetscInt  hidden[MPM_CTRL_MAX_HIDDEN + 1] = {0}, nhidden = MPM_CTRL_MAX_HIDDEN + 1, seed = 1; /* -help: <0>, off */
  PetscInt  nper                              = MPM_CTRL_MAX_PERIODS;
  PetscReal periods[MPM_CTRL_MAX_PERIODS + 1] = {0}, length = 0.1, speed = 0.1, stretch = 0.1, gain = 1;
  PetscBool on, pset;

  PetscFunctionBeginUser;
  *ctrl = NULL;
  PetscOptionsBegin(mpm->comm, mpm->prefix, "MPM: closed-loop controller", "MPM");
  PetscCall(PetscOptionsIntArray("-mpm_controller_layers",
                                 "Closed-loop controller: widths of its tanh hidden layers, e.g. 16,16 (1..4 layers "
                                 "of 1..64 units); the network maps the state features to the levels of all actuators "
                                 "(parameter block controller)",
                                 "", hidden, &nhidden, &on));
  PetscCall(PetscOptionsReal("-mpm_controller_length",
                             "Length scale ell of the controller's centroid features (xbar - xbar0) / ell [m]", "",
                             length, &length, NULL));
  PetscCall(PetscOptionsReal("-mpm_controller_speed",
                             "Speed scale U of the controller's velocity features vbar / U [m/s]", "", speed, &speed,
                             NULL));
  PetscCall(PetscOptionsReal("-mpm_controller_stretch",
                             "Scale eps of the controller's stretch features (mean fibre stretch - 1) / eps [1]", "",
                             stretch, &stretch, NULL));
  PetscCall(PetscOptionsRealArray("-mpm_controller_periods",
                                  "Clock periods T_j of the controller's features sin, cos(2 pi t / T_j) [s] (up to 4; "
                                  "default: -mpm_actuation_period)",
                                  "", periods, &nper, &pset));
  PetscCall(PetscOptionsReal("-mpm_controller_init_scale",
                             "Gain of the initial weights, uniform in +-gain sqrt(6 / (n_in + n_out)) from "
                             "-mpm_controller_seed (SplitMix64); 0: all weights zero",
                             "", gain, &gain, NULL));
  PetscCall(PetscOptionsInt("-mpm_controller_seed", "Seed of the controller's initial weights", "", seed, &seed, NULL));
  PetscOptionsEnd();
  if (!on) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(nact > 0, mpm->comm, PETSC_ERR_USER_INPUT,
             "-mpm_controller_layers: a controller needs actuators to drive; give -mpm_actuator0 ...");
  PetscCall(MPMControllerRefuseOpenLoop(mpm));
  PetscCall(AdjCheckRealOption(mpm->comm, "-mpm_controller_length", length, ADJ_REAL_POSITIVE, "m"));
  PetscCall(AdjCheckRealOption(mpm->comm, "-mpm_controller_speed", speed, ADJ_REAL_POSITIVE, "m/s"));
  PetscCall(AdjCheckRealOption(mpm->comm, "-mpm_controller_stretch", stretch, ADJ_REAL_POSITIVE, "1"));
  PetscCall(AdjCheckRealOption(mpm->comm, "-mpm_controller_init_scale", gain, ADJ_REAL_NONNEGATIVE, "1"));
  PetscCheck(seed >= 0, mpm->comm, PETSC_ERR_USER_INPUT, "-mpm_controller_seed %" PetscInt_FMT ": must be >= 0", seed);
  if (!pset) nper = 1, periods[0] = period;
  PetscCheck(nper <= MPM_CTRL_MAX_PERIODS, mpm->comm, PETSC_ERR_USER_INPUT,
             "-mpm_controller_periods: at most %d periods", MPM_CTRL_MAX_PERIODS);
  for (PetscInt j = 0; j < nper; j++)
    PetscCheck(periods[j] > 0 && PetscIsNormalReal(periods[j]), mpm->comm, PETSC_ERR_USER_INPUT,
               "-mpm_controller_periods: period %" PetscInt_FMT " is %g s; it must be positive", j, (double)periods[j]);
  PetscCall(PetscNew(&c));
  c->map.ngroups  = nact;
  c->map.length   = length;
  c->map.speed    = speed;
  c->map.stretch  = stretch;
  c->map.nperiods = nper;
  for (PetscInt j = 0; j < nper; j++) c->map.period[j] = periods[j];
  c->net.bound = bound;
  PetscCall(MPMControllerLayers(mpm, c, nact, hidden, nhidden));
  PetscCall(PetscCalloc3(c->net.nweights, &c->w, c->net.nweights, &c->gw, c->net.nweights, &c->sw));
  PetscCall(MPMControllerInitialWeights(mpm, c, gain, seed)); /* the network alone: no particles needed */
  *ctrl = c;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ MPMControllerSetUp - the feature map of the actuator groups (mpm->act: labels, fibres and particle counts are
    read from there), the particle count and initial centroid of mpm->x0 over the ranks. Collective. @*/
PetscErrorCode MPMControllerSetUp(MPM mpm)
{
  MPMController           c = mpm->act->ctrl;
  MPMFeatureMap          *m = &c->map;
  const MPMMaterialPoint *mat;
  const PetscScalar      *x;
  PetscReal               local[MPM_CTRL_NSUMS + 1], total[MPM_CTRL_NSUMS + 1];
  const PetscInt          ns = 2 * MPM_DIM + m->ngroups;

  PetscFunctionBeginUser;
  m->act = mpm->act;
  PetscCall(VecGetArrayRead(mpm->x0, &x));
  PetscCall(VecGetArrayRead(mpm->mat, (const PetscScalar **)&mat));
  MPMFeatureSums(m, mpm->nhome, mpm->nrec, x, mat, local);
  local[ns] = (PetscReal)mpm->nhome;
  PetscCall(VecRestoreArrayRead(mpm->mat, (const PetscScalar **)&mat));
  PetscCall(VecRestoreArrayRead(mpm->x0, &x));
  PetscCallMPI(MPI_Allreduce(local, total, (PetscMPIInt)(ns + 1), MPIU_REAL, MPIU_SUM, mpm->comm));
  m->nparticles = total[ns];
  for (PetscInt a = 0; a < MPM_DIM; a++) m->centroid0[a] = total[a] / m->nparticles;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MPMControllerDestroy(MPMController *ctrl)
{
  PetscFunctionBeginUser;
  if (*ctrl) PetscCall(PetscFree3((*ctrl)->w, (*ctrl)->gw, (*ctrl)->sw));
  PetscCall(PetscFree(*ctrl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------------- */
/* The step's hooks (through actuation.c) */

/*@ MPMControllerLevels - the levels of step k from its start state x (home layout) at t = (k - 1) dt: the particle
    sums of this rank summed over the ranks, the features, the network; its units are kept for the adjoint.
    Collective. @*/
PetscErrorCode MPMControllerLevels(MPM mpm, AdjStepIndex k, Vec x, PetscReal level[])
{
  MPMController           c  = mpm->act->ctrl;
  const PetscInt          ns = 2 * MPM_DIM + c->map.ngroups;
  const MPMMaterialPoint *mat;
  const PetscScalar      *xa;
  PetscReal               local[MPM_CTRL_NSUMS], sums[MPM_CTRL_NSUMS], f[MPM_CTRL_MAX_FEATURES];
  const PetscInt          off = MPMNetworkOutputOffset(&c->net);

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArrayRead(mpm->mat, (const PetscScalar **)&mat));
  MPMFeatureSums(&c->map, mpm->nhome, mpm->nrec, xa, mat, local);
  PetscCall(VecRestoreArrayRead(mpm->mat, (const PetscScalar **)&mat));
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscCallMPI(MPI_Allreduce(local, sums, (PetscMPIInt)ns, MPIU_REAL, MPIU_SUM, mpm->comm));
  MPMFeatures(&c->map, sums, (PetscReal)(k - 1) * mpm->dt, f);
  MPMNetworkForward(&c->net, c->w, f, c->units);
  for (PetscInt g = 0; g < c->map.ngroups; g++) level[g] = c->units[off + g];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ MPMControllerLevelsAdjoint - the adjoint of MPMControllerLevels, from the units it kept (those of the forward
    step MPMStepAdjoint has just run or found, for the same step and state x): levelb (this rank's part of dJ/da_g)
    summed over the ranks, through the network into dJ/dw (rank 0's partial sum) and the features, then through the
    particle sums into lambda += (dsums/dx)^T sumsb (home layout). Collective. @*/
PetscErrorCode MPMControllerLevelsAdjoint(MPM mpm, Vec x, const PetscReal levelb[], Vec lambda)
{
  MPMController           c = mpm->act->ctrl;
  PetscReal               lb[MPM_CTRL_MAX_GROUPS], fb[MPM_CTRL_MAX_FEATURES], sumsb[MPM_CTRL_NSUMS];
  const MPMMaterialPoint *mat;
  const PetscScalar      *xa;
  PetscScalar            *la;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Allreduce(levelb, lb, (PetscMPIInt)c->map.ngroups, MPIU_REAL, MPIU_SUM, mpm->comm));
  MPMNetworkAdjoint(&c->net, c->w, c->units, lb, mpm->rank == 0 ? c->gw : NULL, fb); /* dJ/dw once: on rank 0 */
  MPMFeaturesAdjoint(&c->map, fb, sumsb);
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArray(lambda, &la));
  PetscCall(VecGetArrayRead(mpm->mat, (const PetscScalar **)&mat));
  MPMFeatureSumsAdjoint(&c->map, mpm->nhome, mpm->nrec, xa, mat, sumsb, la);
  PetscCall(VecRestoreArrayRead(mpm->mat, (const PetscScalar **)&mat));
  PetscCall(VecRestoreArray(lambda, &la));
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ MPMControllerGradientSums - dJ/dw summed over the ranks (only rank 0 holds a nonzero partial sum). Collective. @*/
PetscErrorCode MPMControllerGradientSums(MPM mpm)
{
  MPMController c = mpm->act->ctrl;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Allreduce(c->gw, c->sw, (PetscMPIInt)c->net.nweights, MPIU_REAL, MPIU_SUM, mpm->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* New weights arrived: finite, and the step intermediates and the exchange's knowledge of owners are stale. */
static PetscErrorCode MPMControllerChanged(void *ctx)
{
  MPM           mpm = (MPM)ctx;
  MPMController c   = mpm->act->ctrl;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < c->net.nweights; i++)
    PetscCheck(PetscIsNormalReal(c->w[i]) || c->w[i] == 0, mpm->comm, PETSC_ERR_USER_INPUT,
               "Controller parameter %" PetscInt_FMT " = %g is not finite", i, (double)c->w[i]);
  mpm->fwd_step = -1;
  PetscCall(MPMExchangeForget(mpm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ MPMControllerRegister - the parameter block "controller" (weights and biases, dimensionless) and its gradient
    accumulator. Collective. @*/
PetscErrorCode MPMControllerRegister(MPM mpm, AdjStepper st, AdjParams params)
{
  MPMController c = mpm->act->ctrl;

  PetscFunctionBeginUser;
  PetscCall(AdjParamsAddArray(params, "controller", "1", c->net.nweights));
  PetscCall(AdjParamsSetArrayStorage(params, "controller", c->w, c->sw));
  PetscCall(AdjParamsSetGradientUnits(params, "controller", "objective per unit"));
  PetscCall(AdjParamsSetChangeHook(params, "controller", MPMControllerChanged, mpm));
  PetscCall(AdjParamsSetOptionalInFiles(params, "controller"));
  PetscCall(AdjStepperAddGradientArray(st, "controller", c->gw, c->net.nweights));
  PetscFunctionReturn(PETSC_SUCCESS);
}
