/* Dot-product tests of the actuation kernels (src/mpm/actuation.c) and of the P2G kernel with actuation (the active
 * stress fused into the model's stress, src/mpm/transfer.c) against a tangent-linear model written here,
 * independently of the adjoints, and itself checked against central differences of the forward kernels (1e-6):
 *   MPMActiveStress (fibre and isotropic):  <dtau, taub> = <dF, Fb> + da ab                       to 1e-12;
 *   MPMParticleToGrid with actuation over random particles of three labels (fibre, isotropic, passive; elastic
 *   models fixed-corotated and neo-Hookean) in (x, v, C, F, levels):
 *     <dm, mb> + <dP, Pb> = <dx, xb> + <dv, vb> + <dC, Cb> + <dF, Fb> + <da, ab>                 to 1e-12;
 *   MPMActuationSignal (Fourier and piecewise linear, bounded by tanh and unbounded) in its coefficients:
 *     <da, ab> = <dc, cb>   to 1e-12.
 * The particles stay inside their cells under the differences (the B-spline base does not change). */
#include "mpm/actuation.h"
#include "mpmtangent.h"
#include "mpmtest.h"

#define NN 12 /* nodes per direction */

/* Tangent of MPMActiveStress: fibre dtau = c (dm m^T + m dm^T) + da s m m^T, dm = dF f; isotropic dtau = (c dJ + da
 * s J) I, dJ = cof F : dF. */
static void ActiveStressTangent(const MPMActuator *A, PetscReal a, const Mat2 F, const Mat2 dF, PetscReal da, Mat2 dtau)
{
  const PetscReal c = a * A->strength, dc = da * A->strength;

  if (A->isotropic) {
    const PetscReal J  = F[0][0] * F[1][1] - F[0][1] * F[1][0];
    const PetscReal dJ = dF[0][0] * F[1][1] + F[0][0] * dF[1][1] - dF[0][1] * F[1][0] - F[0][1] * dF[1][0];
    dtau[0][0] = dtau[1][1] = c * dJ + dc * J;
    dtau[0][1] = dtau[1][0] = 0;
  } else {
    PetscReal m[2], dm[2];
    for (PetscInt i = 0; i < 2; i++) {
      m[i]  = F[i][0] * A->fiber[0] + F[i][1] * A->fiber[1];
      dm[i] = dF[i][0] * A->fiber[0] + dF[i][1] * A->fiber[1];
    }
    for (PetscInt i = 0; i < 2; i++)
      for (PetscInt j = 0; j < 2; j++) dtau[i][j] = c * (dm[i] * m[j] + m[i] * dm[j]) + dc * m[i] * m[j];
  }
}

/* B-spline weights and their derivatives d/dx along one direction (base fixed). */
static void Weights(PetscReal x, PetscReal h, PetscInt *base, PetscReal w[3], PetscReal dw[3], PetscReal *f)
{
  MPMBSpline(x / h, base, w, f);
  dw[0] = -(1.5 - *f) / h, dw[1] = -2 * (*f - 1) / h, dw[2] = (*f - 0.5) / h;
}

/* Tangent of MPMParticleToGrid with actuation in (x, v, C, F, levels) (materials fixed): with tau = tau_model +
 * tau_act and A = m C - dt V0 tau D^-1,
 *   dm_i += dw_i m,   dP_i += dw_i (m v + A dx) + w_i (m dv + dA dx + A d(dx)),   d(dx) = -dx_p,
 *   dA = m dC - dt V0 (dtau_model + dtau_act) D^-1. */
static void P2GActuatedTangent(const MPMGrid *g, PetscReal dt, PetscInt n, const MPMParticle p[],
                               const MPMParticle dp[], const MPMMaterialPoint mat[], const struct _n_MPMActuation *act,
                               const PetscReal lev[], const PetscReal dlev[], MPMNode **dnodes)
{
  for (PetscInt q = 0; q < n; q++) {
    const PetscInt         grp  = act->group_of_label[(PetscInt)mat[q].label];
    const MPMMaterialPoint zero = {0};
    PetscInt               base[2];
    PetscReal              w[2][3], dw[2][3], f[2];
    Mat2                   tau, dtau, A, dA;

    for (PetscInt d = 0; d < 2; d++) Weights(p[q].x[d], g->h[d], &base[d], w[d], dw[d], &f[d]);
    MPMKirchhoff(&mat[q], p[q].F, NULL, tau);
    KirchhoffTangent(&mat[q], &zero, p[q].F, NULL, dp[q].F, NULL, dtau, NULL);
    if (grp >= 0) {
      Mat2 ta, dta;

      MPMActiveStress(&act->act[grp], lev[grp], p[q].F, ta);
      ActiveStressTangent(&act->act[grp], lev[grp], p[q].F, dp[q].F, dlev[grp], dta);
      for (PetscInt a = 0; a < 2; a++)
        for (PetscInt b = 0; b < 2; b++) tau[a][b] += ta[a][b], dtau[a][b] += dta[a][b];
    }
    for (PetscInt a = 0; a < 2; a++)
      for (PetscInt b = 0; b < 2; b++) {
        A[a][b]  = mat[q].mass * p[q].C[a][b] - dt * mat[q].volume * tau[a][b] * 4 / (g->h[b] * g->h[b]);
        dA[a][b] = mat[q].mass * dp[q].C[a][b] - dt * mat[q].volume * dtau[a][b] * 4 / (g->h[b] * g->h[b]);
      }
    for (PetscInt j = 0; j < 3; j++)
      for (PetscInt i = 0; i < 3; i++) {
        const PetscReal wt = w[0][i] * w[1][j], dwt = dw[0][i] * w[1][j] * dp[q].x[0] + w[0][i] * dw[1][j] * dp[q].x[1];
        const PetscReal dx[2] = {(i - f[0]) * g->h[0], (j - f[1]) * g->h[1]};
        MPMNode        *nd    = &dnodes[base[1] + j][base[0] + i];

        nd->m += dwt * mat[q].mass;
        for (PetscInt a = 0; a < 2; a++)
          nd->p[a] += dwt * (mat[q].mass * p[q].v[a] + A[a][0] * dx[0] + A[a][1] * dx[1]) +
                      wt * (mat[q].mass * dp[q].v[a] + dA[a][0] * dx[0] + dA[a][1] * dx[1]) -
                      wt * (A[a][0] * dp[q].x[0] + A[a][1] * dp[q].x[1]);
      }
  }
}

/* Tangent of MPMActuationSignal in the coefficients: da = sech^2(u / B) du (B > 0) or du; u, du from the Fourier
 * series or the periodic linear interpolation at the knots. */
static void SignalTangent(const struct _n_MPMActuation *act, PetscReal t, const PetscReal dcoef[], PetscReal dlev[])
{
  const PetscReal w = 2 * PETSC_PI / act->period;
  for (PetscInt g = 0; g < act->nact; g++) {
    const PetscReal *c = act->coef + g * act->ncoef, *dc = dcoef + g * act->ncoef;
    PetscReal        u = 0, du = 0;
    if (act->linear) {
      const PetscInt  n = act->ncoef;
      const PetscReal s = n * PetscFmodReal(t, act->period) / act->period;
      const PetscInt  j = (PetscInt)s, j1 = (j + 1) % n;
      u  = (j + 1 - s) * c[j] + (s - j) * c[j1];
      du = (j + 1 - s) * dc[j] + (s - j) * dc[j1];
    } else {
      u = c[0], du = dc[0];
      for (PetscInt k = 1; k <= act->nmodes; k++) {
        u += c[2 * k - 1] * PetscSinReal(k * w * t) + c[2 * k] * PetscCosReal(k * w * t);
        du += dc[2 * k - 1] * PetscSinReal(k * w * t) + dc[2 * k] * PetscCosReal(k * w * t);
      }
    }
    dlev[g] = act->bound > 0 ? du * (1 - PetscSqr(PetscTanhReal(u / act->bound))) : du;
  }
}

static void NodesZero(MPMNode *store)
{
  PetscArrayzero(store, NN * NN);
}

static PetscReal NodesDot(const MPMNode *a, const MPMNode *b)
{
  PetscReal s = 0;
  for (PetscInt i = 0; i < NN * NN; i++) s += a[i].m * b[i].m + a[i].p[0] * b[i].p[0] + a[i].p[1] * b[i].p[1];
  return s;
}

/* <a, b> over the particle fields x, v, C, F. */
static PetscReal ParticlesDot(PetscInt n, const MPMParticle a[], const MPMParticle b[])
{
  PetscReal s = 0;
  for (PetscInt q = 0; q < n; q++)
    for (PetscInt d = 0; d < 2; d++) {
      s += a[q].x[d] * b[q].x[d] + a[q].v[d] * b[q].v[d];
      for (PetscInt e = 0; e < 2; e++) s += a[q].C[d][e] * b[q].C[d][e] + a[q].F[d][e] * b[q].F[d][e];
    }
  return s;
}

int main(int argc, char **argv)
{
  enum { NP = 40 };
  struct _n_MPMActuation act = {0};
  MPMGrid                g   = {0};
  MPMParticle            p[NP], dp[NP], pp[NP], pm[NP], pb[NP];
  MPMMaterialPoint       mat[NP];
  MPMNode                store[5][NN * NN], *rows[5][NN];
  PetscReal              lev[2] = {0.7, -0.4}, dlev[2], levb[2] = {0, 0}, lp[2], lm[2];
  const PetscReal        dt = 1e-3, eps = 1e-6;
  PetscRandom            r;
  PetscInt               fail = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(MPMTestRandomCreate(7, &r));
  g.h[0] = 0.1, g.h[1] = 0.08;
  for (PetscInt s = 0; s < 5; s++)
    for (PetscInt j = 0; j < NN; j++) rows[s][j] = store[s] + j * NN;
  act.nact = 2, act.nmodes = 2, act.ncoef = 5, act.period = 0.3, act.bound = 1.0;
  act.act[0] = (MPMActuator){.label = 0, .isotropic = PETSC_FALSE, .fiber = {0.6, 0.8}, .strength = 3e3};
  act.act[1] = (MPMActuator){.label = 1, .isotropic = PETSC_TRUE, .strength = 2e3};
  for (PetscInt l = 0; l < MPM_MAX_LABELS; l++) act.group_of_label[l] = l < 2 ? l : -1;
  /* random particles (labels 0, 1, 2 in turn: fibre, isotropic, passive), well inside their cells */
  for (PetscInt q = 0; q < NP; q++) {
    for (PetscInt d = 0; d < 2; d++) {
      const PetscReal cell = PetscFloorReal(MPMTestUniform(r, 3, 8));
      p[q].x[d]  = (cell + MPMTestUniform(r, 0.55, 1.45)) * g.h[d]; /* f = t - floor(t - 1/2) away from 1/2, 3/2 */
      p[q].v[d]  = MPMTestUniform(r, -1, 1);
      dp[q].x[d] = MPMTestUniform(r, -1, 1) * g.h[d];
      for (PetscInt e = 0; e < 2; e++) {
        p[q].F[d][e]  = (d == e) + MPMTestUniform(r, -0.3, 0.3);
        dp[q].F[d][e] = MPMTestUniform(r, -1, 1);
        p[q].C[d][e]  = MPMTestUniform(r, -5, 5);
        dp[q].C[d][e] = MPMTestUniform(r, -5, 5);
      }
      dp[q].v[d] = MPMTestUniform(r, -1, 1);
    }
    /* an elastic stress of the size of the active one (E 2 kPa against strengths 2, 3 kPa), both models on every
       label */
    mat[q] = (MPMMaterialPoint){.mass   = 1.0,
                                .volume = g.h[0] * g.h[1] / 4,
                                .E      = 2e3,
                                .nu     = 0.3,
                                .label  = (PetscReal)(q % 3),
                                .model  = (PetscReal)((q / 3) % 2 ? MPM_MODEL_NEO_HOOKEAN : MPM_MODEL_FIXED_COROTATED)};
  }
  dlev[0] = MPMTestUniform(r, -1, 1), dlev[1] = MPMTestUniform(r, -1, 1);

  /* the active stress alone */
  for (PetscInt grp = 0; grp < 2; grp++) {
    const MPMActuator *A = &act.act[grp];
    Mat2               tau, dtau, taub, Fb = {{0, 0}, {0, 0}}, tp, tm, Fp, Fm;
    PetscReal          lhs = 0, rhs, ab = 0, fd = 0, sc = 0;

    ActiveStressTangent(A, lev[grp], p[0].F, dp[0].F, dlev[grp], dtau);
    for (PetscInt i = 0; i < 2; i++)
      for (PetscInt j = 0; j < 2; j++) {
        taub[i][j] = MPMTestUniform(r, -1, 1);
        Fp[i][j]   = p[0].F[i][j] + eps * dp[0].F[i][j];
        Fm[i][j]   = p[0].F[i][j] - eps * dp[0].F[i][j];
      }
    MPMActiveStress(A, lev[grp] + eps * dlev[grp], Fp, tp);
    MPMActiveStress(A, lev[grp] - eps * dlev[grp], Fm, tm);
    MPMActiveStress(A, lev[grp], p[0].F, tau);
    MPMActiveStressAdjoint(A, lev[grp], p[0].F, taub, Fb, &ab);
    rhs = ab * dlev[grp];
    for (PetscInt i = 0; i < 2; i++)
      for (PetscInt j = 0; j < 2; j++) {
        lhs += dtau[i][j] * taub[i][j];
        rhs += dp[0].F[i][j] * Fb[i][j];
        fd = AdjTestMax(fd, PetscAbsReal((tp[i][j] - tm[i][j]) / (2 * eps) - dtau[i][j]));
        sc = AdjTestMax(sc, PetscAbsReal(dtau[i][j]));
      }
    PetscCall(MPMTestTangentReport(grp ? "active stress (isotropic)" : "active stress (fibre)", fd / sc, &fail));
    PetscCall(AdjTestReport(grp ? "MPMActiveStressAdjoint (isotropic)" : "MPMActiveStressAdjoint (fibre)", lhs, rhs,
                            1e-12, &fail));
  }

  /* P2G with actuation (the active stress in the model's scatter): tangent against central differences, then the
     dot product; matb receives the material adjoints (not tested here: the materials are fixed, mpm_adjoint_dot
     tests them) */
  {
    PetscReal        lhs, rhs, fd = 0, sc = 0;
    MPMMaterialPoint matb[NP];

    for (PetscInt q = 0; q < NP; q++) {
      const PetscReal *x = (const PetscReal *)&p[q], *dx = (const PetscReal *)&dp[q];
      PetscReal       *xp = (PetscReal *)&pp[q], *xm = (PetscReal *)&pm[q];

      for (PetscInt c = 0; c < MPM_NSTATE; c++) xp[c] = x[c] + eps * dx[c], xm[c] = x[c] - eps * dx[c];
    }
    PetscCall(PetscArrayzero(pb, NP));
    PetscCall(PetscArrayzero(matb, NP));
    for (PetscInt gg = 0; gg < 2; gg++) lp[gg] = lev[gg] + eps * dlev[gg], lm[gg] = lev[gg] - eps * dlev[gg];
    for (PetscInt s = 0; s < 4; s++) NodesZero(store[s]);
    P2GActuatedTangent(&g, dt, NP, p, dp, mat, &act, lev, dlev, rows[0]);
    PetscCall(MPMParticleToGrid(&g, dt, NP, pp, mat, 0, NULL, NULL, &act, lp, rows[1]));
    PetscCall(MPMParticleToGrid(&g, dt, NP, pm, mat, 0, NULL, NULL, &act, lm, rows[2]));
    for (PetscInt i = 0; i < NN * NN; i++) {
      PetscScalar *t = (PetscScalar *)&store[0][i], *a = (PetscScalar *)&store[1][i], *b = (PetscScalar *)&store[2][i];
      PetscScalar *y = (PetscScalar *)&store[3][i];

      for (PetscInt c = 0; c < MPM_NNODE; c++) {
        fd   = AdjTestMax(fd, PetscAbsReal((a[c] - b[c]) / (2 * eps) - t[c]));
        sc   = AdjTestMax(sc, PetscAbsReal(t[c]));
        y[c] = MPMTestUniform(r, -1, 1); /* (mb, Pb) */
      }
    }
    PetscCall(MPMTestTangentReport("MPMParticleToGrid (actuated)", fd / sc, &fail));
    PetscCall(MPMParticleToGridAdjoint(&g, dt, NP, p, mat, 0, NULL, NULL, &act, lev, (const MPMNode *const *)rows[3],
                                       pb, NULL, matb, levb));
    lhs = NodesDot(store[0], store[3]);
    rhs = ParticlesDot(NP, dp, pb) + levb[0] * dlev[0] + levb[1] * dlev[1];
    PetscCall(AdjTestReport("MPMParticleToGridAdjoint with actuation (x, v, C, F, levels)", lhs, rhs, 1e-12, &fail));
    /* the active stress must have entered: the levels' adjoints are not zero */
    PetscCheck(levb[0] != 0 && levb[1] != 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "no level adjoint from the P2G adjoint");
  }

  /* the signal, Fourier (5 coefficients) and piecewise linear (5 knots, at t in the last segment: it wraps to knot
     0), bounded and unbounded */
  for (PetscInt variant = 0; variant < 4; variant++) {
    const PetscBool bounded = (PetscBool)(variant % 2), linear = (PetscBool)(variant / 2);
    const PetscReal t = linear ? 1.93 * act.period : 0.17;
    PetscReal dcoef[10], coefb[10] = {0}, la[2], lb[2] = {MPMTestUniform(r, -1, 1), MPMTestUniform(r, -1, 1)}, lhs,
                         rhs = 0;
    char name[64];

    act.bound  = bounded ? 0.8 : 0.0;
    act.linear = linear;
    for (PetscInt i = 0; i < 10; i++) act.coef[i] = MPMTestUniform(r, -1, 1), dcoef[i] = MPMTestUniform(r, -1, 1);
    SignalTangent(&act, t, dcoef, la);
    MPMActuationSignalAdjoint(&act, t, lb, coefb);
    lhs = la[0] * lb[0] + la[1] * lb[1];
    for (PetscInt i = 0; i < 10; i++) rhs += dcoef[i] * coefb[i];
    PetscCall(PetscSNPrintf(name, sizeof(name), "MPMActuationSignalAdjoint (%s, %s)", linear ? "linear" : "Fourier",
                            bounded ? "tanh bound" : "unbounded"));
    PetscCall(AdjTestReport(name, lhs, rhs, 1e-12, &fail));
    {
      PetscReal lev0[2], levp[2], levm[2], c0[10], fd = 0, sc = 0;
      for (PetscInt i = 0; i < 10; i++) c0[i] = act.coef[i];
      MPMActuationSignal(&act, t, lev0);
      for (PetscInt i = 0; i < 10; i++) act.coef[i] = c0[i] + eps * dcoef[i];
      MPMActuationSignal(&act, t, levp);
      for (PetscInt i = 0; i < 10; i++) act.coef[i] = c0[i] - eps * dcoef[i];
      MPMActuationSignal(&act, t, levm);
      for (PetscInt i = 0; i < 10; i++) act.coef[i] = c0[i];
      for (PetscInt gg = 0; gg < 2; gg++) {
        fd = AdjTestMax(fd, PetscAbsReal((levp[gg] - levm[gg]) / (2 * eps) - la[gg]));
        sc = AdjTestMax(sc, PetscAbsReal(la[gg]));
      }
      PetscCall(MPMTestTangentReport("  its", fd / sc, &fail));
    }
  }
  PetscCall(PetscRandomDestroy(&r));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " check(s) failed\n", fail ? "FAIL" : "PASS", fail));
  PetscCall(PetscFinalize());
  return fail ? 1 : 0;
}
