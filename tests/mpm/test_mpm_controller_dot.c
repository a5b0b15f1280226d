/* Dot-product tests of the closed-loop controller's kernels (src/mpm/controller.c) against tangent-linear models
 * written here, independently of the adjoints, and themselves checked against central differences (1e-6):
 *   MPMNetworkForward (2 hidden tanh layers; output bounded by B tanh(z / B) and unbounded) in (weights, input):
 *     <da, ab> = <dw, wb> + <df, fb>                                                            to 1e-12,
 *     and without the weights' adjoint (wb = NULL) the same fb bit for bit;
 *   MPMFeatures o MPMFeatureSums over random particles of three labels (fibre group, isotropic group, passive), with
 *   internal-state reals in the records (nrec > MPM_NSTATE), in (x, v, C, F):
 *     <df, fb> = <dx, xb> + <dv, vb> + <dF, Fb>                                                 to 1e-12. */
#include "mpm/controller.h"
#include "mpm/actuation.h"
#include "mpmtest.h"

/* Tangent of MPMNetworkForward: dz = dW h + W dh + db, dh' = (1 - h'^2) dz, da = (1 - (a / B)^2) dz (or dz). */
static void NetworkTangent(const MPMNetwork *net, const PetscReal w[], const PetscReal dw[], const PetscReal in[],
                           const PetscReal din[], PetscReal da[])
{
  PetscReal units[MPM_CTRL_MAX_UNITS], dh[MPM_CTRL_MAX_UNITS];
  PetscInt  wo = 0, uo = 0;

  MPMNetworkForward(net, w, in, units);
  for (PetscInt j = 0; j < net->width[0]; j++) dh[j] = din[j];
  for (PetscInt l = 0; l < net->nlayers; l++) {
    const PetscInt nin = net->width[l], nout = net->width[l + 1];
    for (PetscInt i = 0; i < nout; i++) {
      PetscReal       dz = dw[wo + nout * nin + i];
      const PetscReal h  = units[uo + nin + i];
      for (PetscInt j = 0; j < nin; j++) dz += dw[wo + i * nin + j] * units[uo + j] + w[wo + i * nin + j] * dh[uo + j];
      if (l < net->nlayers - 1)
        dh[uo + nin + i] = (1 - h * h) * dz;
      else
        dh[uo + nin + i] = net->bound > 0 ? (1 - PetscSqr(h / net->bound)) * dz : dz;
    }
    wo += nout * (nin + 1), uo += nin;
  }
  for (PetscInt i = 0; i < net->width[net->nlayers]; i++) da[i] = dh[uo + i];
}

static PetscErrorCode TestNetwork(PetscRandom r, PetscReal bound, PetscInt *fail)
{
  MPMNetwork      net = {.nlayers = 3, .width = {9, 6, 5, 3}, .bound = bound};
  PetscReal       w[200], dw[200], wb[200], wp[200], wm[200], in[9], din[9], inb[9], inb0[9], ip[9], im[9];
  PetscReal       units[MPM_CTRL_MAX_UNITS], up[MPM_CTRL_MAX_UNITS], um[MPM_CTRL_MAX_UNITS], da[3], ab[3];
  PetscReal       lhs = 0, rhs = 0, fd = 0, sc = 0, gap = 0;
  const PetscReal eps = 1e-6;
  const PetscInt  off = MPMNetworkOutputOffset(&net);
  char            name[64];

  PetscFunctionBeginUser;
  net.nweights = 0;
  for (PetscInt l = 0; l < net.nlayers; l++) net.nweights += net.width[l + 1] * (net.width[l] + 1);
  MPMNetworkInitialize(&net, 1.5, 11, w);
  for (PetscInt i = 0; i < net.nweights; i++) {
    w[i] += MPMTestUniform(r, -0.3, 0.3); /* nonzero biases too */
    dw[i] = MPMTestUniform(r, -1, 1), wb[i] = 0;
    wp[i] = w[i] + eps * dw[i], wm[i] = w[i] - eps * dw[i];
  }
  for (PetscInt j = 0; j < 9; j++) {
    in[j] = MPMTestUniform(r, -1.5, 1.5), din[j] = MPMTestUniform(r, -1, 1);
    ip[j] = in[j] + eps * din[j], im[j] = in[j] - eps * din[j];
  }
  for (PetscInt i = 0; i < 3; i++) ab[i] = MPMTestUniform(r, -1, 1);
  NetworkTangent(&net, w, dw, in, din, da);
  MPMNetworkForward(&net, wp, ip, up);
  MPMNetworkForward(&net, wm, im, um);
  MPMNetworkForward(&net, w, in, units);
  MPMNetworkAdjoint(&net, w, units, ab, wb, inb);
  for (PetscInt i = 0; i < 3; i++) {
    lhs += da[i] * ab[i];
    fd = AdjTestMax(fd, PetscAbsReal((up[off + i] - um[off + i]) / (2 * eps) - da[i]));
    sc = AdjTestMax(sc, PetscAbsReal(da[i]));
  }
  for (PetscInt i = 0; i < net.nweights; i++) rhs += dw[i] * wb[i];
  for (PetscInt j = 0; j < 9; j++) rhs += din[j] * inb[j];
  PetscCall(PetscSNPrintf(name, sizeof(name), "network (bound %g)", (double)bound));
  PetscCall(MPMTestTangentReport(name, fd / sc, fail));
  PetscCall(PetscSNPrintf(name, sizeof(name), "MPMNetworkAdjoint (bound %g)", (double)bound));
  PetscCall(AdjTestReport(name, lhs, rhs, 1e-12, fail));
  /* without the weights' adjoint (wb = NULL, the ranks other than 0): the same input adjoint, bit for bit */
  MPMNetworkAdjoint(&net, w, units, ab, NULL, inb0);
  for (PetscInt j = 0; j < 9; j++) gap = AdjTestMax(gap, PetscAbsReal(inb0[j] - inb[j]));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "MPMNetworkAdjoint without wb: input adjoint gap %.2e  %s\n", (double)gap,
                        gap == 0 ? "ok" : "FAIL"));
  if (!(gap == 0)) (*fail)++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Tangent of the features of the particle sums: dx, dv summed; d|F f| = (F f) . (dF f) / |F f|; dJ = cof F : dF. */
static void FeatureTangent(const MPMFeatureMap *m, PetscInt n, PetscInt nrec, const PetscScalar *x,
                           const PetscScalar *dx, const MPMMaterialPoint mat[], PetscReal df[])
{
  PetscReal ds[MPM_CTRL_NSUMS] = {0};

  for (PetscInt p = 0; p < n; p++) {
    const MPMParticle *q = MPMRecordRead(x, nrec, p), *dq = MPMRecordRead(dx, nrec, p);
    const PetscInt     g = m->act->group_of_label[(PetscInt)mat[p].label];

    for (PetscInt a = 0; a < 2; a++) ds[a] += dq->x[a], ds[2 + a] += dq->v[a];
    if (g < 0) continue;
    if (m->act->act[g].isotropic)
      ds[4 + g] +=
          dq->F[0][0] * q->F[1][1] + q->F[0][0] * dq->F[1][1] - dq->F[0][1] * q->F[1][0] - q->F[0][1] * dq->F[1][0];
    else {
      const PetscReal *fib = m->act->act[g].fiber;
      PetscReal        mv[2], dm[2];
      for (PetscInt a = 0; a < 2; a++) {
        mv[a] = q->F[a][0] * fib[0] + q->F[a][1] * fib[1];
        dm[a] = dq->F[a][0] * fib[0] + dq->F[a][1] * fib[1];
      }
      ds[4 + g] += (mv[0] * dm[0] + mv[1] * dm[1]) / PetscSqrtReal(mv[0] * mv[0] + mv[1] * mv[1]);
    }
  }
  for (PetscInt a = 0; a < 2; a++)
    df[a] = ds[a] / (m->nparticles * m->length), df[2 + a] = ds[2 + a] / (m->nparticles * m->speed);
  for (PetscInt g = 0; g < m->ngroups; g++) df[4 + g] = ds[4 + g] / ((PetscReal)m->act->count[g] * m->stretch);
  for (PetscInt j = 0; j < 2 * m->nperiods; j++) df[4 + m->ngroups + j] = 0;
}

static PetscErrorCode TestFeatures(PetscRandom r, PetscInt *fail)
{
  enum { NP = 30, NREC = MPM_NSTATE + 2 };
  struct _n_MPMActuation act = {.nact = 2};
  MPMFeatureMap          m   = {
                 .act = &act, .ngroups = 2, .length = 0.2, .speed = 0.3, .stretch = 0.1, .nperiods = 2, .period = {0.3, 0.1}};
  PetscScalar      x[NP * NREC], dx[NP * NREC], xb[NP * NREC], xp[NP * NREC], xm[NP * NREC];
  MPMMaterialPoint mat[NP];
  PetscReal        sums[MPM_CTRL_NSUMS], sumsb[MPM_CTRL_NSUMS], f[MPM_CTRL_MAX_FEATURES], fp[MPM_CTRL_MAX_FEATURES],
      fm[MPM_CTRL_MAX_FEATURES], df[MPM_CTRL_MAX_FEATURES], fb[MPM_CTRL_MAX_FEATURES];
  PetscReal       lhs = 0, rhs = 0, fd = 0, sc = 0;
  const PetscReal eps = 1e-6, t = 0.07;
  const PetscInt  nf = MPMFeatureCount(&m);

  PetscFunctionBeginUser;
  for (PetscInt l = 0; l < MPM_MAX_LABELS; l++) act.group_of_label[l] = -1;
  act.group_of_label[1] = 0, act.group_of_label[2] = 1;
  act.act[0].isotropic = PETSC_FALSE, act.act[0].fiber[0] = 0.6, act.act[0].fiber[1] = 0.8;
  act.act[1].isotropic = PETSC_TRUE;
  m.nparticles = NP, act.count[0] = NP / 3, act.count[1] = NP / 3, m.centroid0[0] = 0.4, m.centroid0[1] = 0.2;
  for (PetscInt i = 0; i < NP * NREC; i++) {
    x[i] = MPMTestUniform(r, -1, 1), dx[i] = MPMTestUniform(r, -1, 1), xb[i] = 0;
    xp[i] = x[i] + eps * dx[i], xm[i] = x[i] - eps * dx[i];
  }
  for (PetscInt p = 0; p < NP; p++) {
    MPMParticle *q = MPMRecord(x, NREC, p);
    q->F[0][0] += 1, q->F[1][1] += 1; /* near the identity: stretches away from 0 */
    MPMRecord(xp, NREC, p)->F[0][0] += 1, MPMRecord(xp, NREC, p)->F[1][1] += 1;
    MPMRecord(xm, NREC, p)->F[0][0] += 1, MPMRecord(xm, NREC, p)->F[1][1] += 1;
    mat[p] = (MPMMaterialPoint){.mass = 1, .label = (PetscReal)(p % 3)};
  }
  for (PetscInt j = 0; j < nf; j++) fb[j] = MPMTestUniform(r, -1, 1);
  FeatureTangent(&m, NP, NREC, x, dx, mat, df);
  MPMFeatureSums(&m, NP, NREC, xp, mat, sums);
  MPMFeatures(&m, sums, t, fp);
  MPMFeatureSums(&m, NP, NREC, xm, mat, sums);
  MPMFeatures(&m, sums, t, fm);
  MPMFeatureSums(&m, NP, NREC, x, mat, sums);
  MPMFeatures(&m, sums, t, f);
  MPMFeaturesAdjoint(&m, fb, sumsb);
  MPMFeatureSumsAdjoint(&m, NP, NREC, x, mat, sumsb, xb);
  for (PetscInt j = 0; j < nf; j++) {
    lhs += df[j] * fb[j];
    fd = AdjTestMax(fd, PetscAbsReal((fp[j] - fm[j]) / (2 * eps) - df[j]));
    sc = AdjTestMax(sc, PetscAbsReal(df[j]));
  }
  for (PetscInt p = 0; p < NP; p++) /* the record's internal state and C do not enter: their adjoints stay 0 */
    for (PetscInt i = 0; i < NREC; i++) rhs += dx[p * NREC + i] * xb[p * NREC + i];
  PetscCall(MPMTestTangentReport("features", fd / sc, fail));
  PetscCall(AdjTestReport("MPMFeatureSumsAdjoint o MPMFeaturesAdjoint", lhs, rhs, 1e-12, fail));
  (void)f;
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscRandom r;
  PetscInt    fail = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(MPMTestRandomCreate(5, &r));
  PetscCall(TestNetwork(r, 1.0, &fail));
  PetscCall(TestNetwork(r, 0.0, &fail));
  PetscCall(TestFeatures(r, &fail));
  PetscCall(PetscRandomDestroy(&r));
  PetscCheck(!fail, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%" PetscInt_FMT " controller dot-product test(s) failed", fail);
  PetscCall(PetscFinalize());
  return 0;
}
