/* MPM kernels: pure functions of their inputs, each with its adjoint (name + Adjoint) right below it
 * when written.  Notation: F deformation gradient, J = det F, R its polar rotation, tau = P F^T the
 * Kirchhoff stress (J times Cauchy), D^-1 = diag(4 / h_d^2) the APIC inertia of quadratic B-splines.
 * Matrices are row-major [row][column].  An adjoint kernel adds (mat)^T ybar to its outputs unless its
 * comment says otherwise. */
#include "mpmimpl.h"

/* Quadratic B-spline weights along one direction for a particle at t = x / h (in cells):
 *   base = floor(t - 1/2), f = t - base in [1/2, 3/2),
 *   w0 = (3/2 - f)^2 / 2,  w1 = 3/4 - (f - 1)^2,  w2 = (f - 1/2)^2 / 2.
 * Node base + o lies at (o - f) h from the particle.  The nearest node is base + 1. */
void MPMBSpline(PetscReal t, PetscInt *base, PetscReal w[MPM_STENCIL], PetscReal *frac)
{
  const PetscReal b = PetscFloorReal(t - 0.5), f = t - b;

  *base = (PetscInt)b;
  *frac = f;
  w[0]  = 0.5 * (1.5 - f) * (1.5 - f);
  w[1]  = 0.75 - (f - 1.0) * (f - 1.0);
  w[2]  = 0.5 * (f - 0.5) * (f - 0.5);
}
/* tb = sum_o wb_o dw_o/dt with base held fixed: dw/dt = -(3/2 - f), -2 (f - 1), f - 1/2.  The weights are
 * C^1 in t (a node entering or leaving the stencil has w = dw/dt = 0 there), so this is the exact
 * derivative everywhere, also where base changes. */
PetscReal MPMBSplineAdjoint(PetscReal t, const PetscReal wb[MPM_STENCIL])
{
  const PetscReal f = t - PetscFloorReal(t - 0.5);

  return -(1.5 - f) * wb[0] - 2.0 * (f - 1.0) * wb[1] + (f - 0.5) * wb[2];
}

/* mu = E / (2 (1 + nu)),  lambda = E nu / ((1 + nu)(1 - 2 nu)). */
void MPMLameParameters(PetscReal E, PetscReal nu, PetscReal *mu, PetscReal *lambda)
{
  *mu     = E / (2.0 * (1.0 + nu));
  *lambda = E * nu / ((1.0 + nu) * (1.0 - 2.0 * nu));
}

/* Eb += mub dmu/dE + lambdab dlambda/dE,  nub likewise; d(nu / g)/dnu = (1 + 2 nu^2) / g^2 with
 * g = (1 + nu)(1 - 2 nu). */
void MPMLameParametersAdjoint(PetscReal E, PetscReal nu, PetscReal mub, PetscReal lambdab, PetscReal *Eb,
                              PetscReal *nub)
{
  const PetscReal g = (1.0 + nu) * (1.0 - 2.0 * nu);

  *Eb += mub / (2.0 * (1.0 + nu)) + lambdab * nu / g;
  *nub += -mub * E / (2.0 * (1.0 + nu) * (1.0 + nu)) + lambdab * E * (1.0 + 2.0 * nu * nu) / (g * g);
}

PetscReal MPMDeterminant(const PetscScalar F[MPM_DIM][MPM_DIM])
{
  return F[0][0] * F[1][1] - F[0][1] * F[1][0];
}

/* Cofactor matrix dJ/dF = J F^-T = [[F11, -F10], [-F01, F00]]. */
static void MPMCofactor(const PetscScalar F[MPM_DIM][MPM_DIM], PetscScalar cof[MPM_DIM][MPM_DIM])
{
  cof[0][0] = F[1][1];
  cof[0][1] = -F[1][0];
  cof[1][0] = -F[0][1];
  cof[1][1] = F[0][0];
}

/* Rotation R of the polar decomposition F = R S in closed form: R is the rotation by
 *   theta = atan2(F10 - F01, F00 + F11),
 * which makes R^T F symmetric.  It is smooth wherever (F10 - F01, F00 + F11) != 0.  That pair vanishes
 * only for F = [[a, b], [b, -a]], whose det = -(a^2 + b^2) <= 0: an inverted or degenerate F, which
 * the solver refuses (J <= 0) before it can reach this kernel.  For J > 0, S = R^T F is the symmetric
 * positive definite stretch (its trace F00 c + F11 c + (F10 - F01) s = |(a, b)| > 0). */
void MPMPolarRotation(const PetscScalar F[MPM_DIM][MPM_DIM], PetscScalar R[MPM_DIM][MPM_DIM])
{
  const PetscReal theta = PetscAtan2Real(F[1][0] - F[0][1], F[0][0] + F[1][1]);
  const PetscReal c = PetscCosReal(theta), s = PetscSinReal(theta);

  R[0][0] = c;
  R[0][1] = -s;
  R[1][0] = s;
  R[1][1] = c;
}

/* Fb += (dR/dF)^T Rb:  dR = [[-s, -c], [c, -s]] dtheta,  dtheta = (b da - a db) / (a^2 + b^2)
 * with a = F10 - F01, b = F00 + F11. */
void MPMPolarRotationAdjoint(const PetscScalar F[MPM_DIM][MPM_DIM], const PetscScalar Rb[MPM_DIM][MPM_DIM],
                             PetscScalar Fb[MPM_DIM][MPM_DIM])
{
  const PetscReal a = F[1][0] - F[0][1], b = F[0][0] + F[1][1], r2 = a * a + b * b;
  const PetscReal theta = PetscAtan2Real(a, b), c = PetscCosReal(theta), s = PetscSinReal(theta);
  const PetscReal thetab = -s * Rb[0][0] - c * Rb[0][1] + c * Rb[1][0] - s * Rb[1][1];
  const PetscReal ab = thetab * b / r2, bb = -thetab * a / r2;

  Fb[1][0] += ab;
  Fb[0][1] -= ab;
  Fb[0][0] += bb;
  Fb[1][1] += bb;
}

/* Fixed-corotated (Stomakhin et al. 2012): psi = mu |F - R|^2 + lambda/2 (J - 1)^2,
 *   P = 2 mu (F - R) + lambda (J - 1) J F^-T,   tau = P F^T = 2 mu (F - R) F^T + lambda (J - 1) J I. */
void MPMKirchhoffFixedCorotated(PetscReal mu, PetscReal lambda, const PetscScalar F[MPM_DIM][MPM_DIM],
                                PetscScalar tau[MPM_DIM][MPM_DIM])
{
  PetscScalar     R[MPM_DIM][MPM_DIM];
  const PetscReal J = MPMDeterminant(F);

  MPMPolarRotation(F, R);
  for (PetscInt a = 0; a < MPM_DIM; a++)
    for (PetscInt b = 0; b < MPM_DIM; b++) {
      PetscScalar t = 0;
      for (PetscInt k = 0; k < MPM_DIM; k++) t += (F[a][k] - R[a][k]) * F[b][k];
      tau[a][b] = 2.0 * mu * t + (a == b ? lambda * (J - 1.0) * J : 0.0);
    }
}

/* Fb += (dtau/dF)^T taub, mub += <taub, dtau/dmu>, lambdab += <taub, dtau/dlambda>:
 *   d(F F^T)^T taub = (taub + taub^T) F,  d(R F^T): Rb = taub F and (R dF^T)^T taub = taub^T R,
 *   d(J^2 - J) = (2 J - 1) cof(F) : dF. */
void MPMKirchhoffFixedCorotatedAdjoint(PetscReal mu, PetscReal lambda, const PetscScalar F[MPM_DIM][MPM_DIM],
                                       const PetscScalar taub[MPM_DIM][MPM_DIM], PetscScalar Fb[MPM_DIM][MPM_DIM],
                                       PetscReal *mub, PetscReal *lambdab)
{
  PetscScalar     R[MPM_DIM][MPM_DIM], Rb[MPM_DIM][MPM_DIM], cof[MPM_DIM][MPM_DIM];
  const PetscReal J  = MPMDeterminant(F);
  PetscReal       tr = 0, dmu = 0;

  MPMPolarRotation(F, R);
  MPMCofactor(F, cof);
  for (PetscInt a = 0; a < MPM_DIM; a++) tr += taub[a][a];
  for (PetscInt a = 0; a < MPM_DIM; a++)
    for (PetscInt b = 0; b < MPM_DIM; b++) {
      PetscScalar sym = 0, skew = 0, rb = 0, t = 0;
      for (PetscInt k = 0; k < MPM_DIM; k++) {
        sym += (taub[a][k] + taub[k][a]) * F[k][b];
        skew += taub[k][a] * R[k][b];
        rb += taub[a][k] * F[k][b];
        t += (F[a][k] - R[a][k]) * F[b][k];
      }
      Fb[a][b] += 2.0 * mu * (sym - skew) + lambda * (2.0 * J - 1.0) * tr * cof[a][b];
      Rb[a][b] = -2.0 * mu * rb;
      dmu += taub[a][b] * 2.0 * t;
    }
  MPMPolarRotationAdjoint(F, Rb, Fb);
  *mub += dmu;
  *lambdab += tr * (J - 1.0) * J;
}

/* Compressible neo-Hookean: psi = mu/2 (tr(F^T F) - d) - mu log J + lambda/2 (log J)^2,
 *   P = mu (F - F^-T) + lambda log(J) F^-T,   tau = mu (F F^T - I) + lambda log(J) I. */
void MPMKirchhoffNeoHookean(PetscReal mu, PetscReal lambda, const PetscScalar F[MPM_DIM][MPM_DIM],
                            PetscScalar tau[MPM_DIM][MPM_DIM])
{
  const PetscReal logJ = PetscLogReal(MPMDeterminant(F));

  for (PetscInt a = 0; a < MPM_DIM; a++)
    for (PetscInt b = 0; b < MPM_DIM; b++) {
      PetscScalar t = 0;
      for (PetscInt k = 0; k < MPM_DIM; k++) t += F[a][k] * F[b][k];
      tau[a][b] = mu * (t - (a == b ? 1.0 : 0.0)) + (a == b ? lambda * logJ : 0.0);
    }
}

/* Fb += mu (taub + taub^T) F + lambda tr(taub) cof(F) / J. */
void MPMKirchhoffNeoHookeanAdjoint(PetscReal mu, PetscReal lambda, const PetscScalar F[MPM_DIM][MPM_DIM],
                                   const PetscScalar taub[MPM_DIM][MPM_DIM], PetscScalar Fb[MPM_DIM][MPM_DIM],
                                   PetscReal *mub, PetscReal *lambdab)
{
  PetscScalar     cof[MPM_DIM][MPM_DIM];
  const PetscReal J  = MPMDeterminant(F);
  PetscReal       tr = 0, dmu = 0;

  MPMCofactor(F, cof);
  for (PetscInt a = 0; a < MPM_DIM; a++) tr += taub[a][a];
  for (PetscInt a = 0; a < MPM_DIM; a++)
    for (PetscInt b = 0; b < MPM_DIM; b++) {
      PetscScalar sym = 0, t = 0;
      for (PetscInt k = 0; k < MPM_DIM; k++) {
        sym += (taub[a][k] + taub[k][a]) * F[k][b];
        t += F[a][k] * F[b][k];
      }
      Fb[a][b] += mu * sym + lambda * tr * cof[a][b] / J;
      dmu += taub[a][b] * (t - (a == b ? 1.0 : 0.0));
    }
  *mub += dmu;
  *lambdab += tr * PetscLogReal(J);
}

/* tau(F; E, nu) of the particle's model. */
void MPMKirchhoff(const MPMMaterialPoint *mp, const PetscScalar F[MPM_DIM][MPM_DIM], PetscScalar tau[MPM_DIM][MPM_DIM])
{
  PetscReal mu, lambda;

  MPMLameParameters(mp->E, mp->nu, &mu, &lambda);
  if ((MPMModel)(PetscInt)mp->model == MPM_MODEL_NEO_HOOKEAN)
    MPMKirchhoffNeoHookean(mu, lambda, F, tau);
  else
    MPMKirchhoffFixedCorotated(mu, lambda, F, tau);
}

/* Fb += (dtau/dF)^T taub,  Eb += <taub, dtau/dE>,  nub += <taub, dtau/dnu>. */
void MPMKirchhoffAdjoint(const MPMMaterialPoint *mp, const PetscScalar F[MPM_DIM][MPM_DIM],
                         const PetscScalar taub[MPM_DIM][MPM_DIM], PetscScalar Fb[MPM_DIM][MPM_DIM], PetscReal *Eb,
                         PetscReal *nub)
{
  PetscReal mu, lambda, mub = 0, lambdab = 0;

  MPMLameParameters(mp->E, mp->nu, &mu, &lambda);
  if ((MPMModel)(PetscInt)mp->model == MPM_MODEL_NEO_HOOKEAN)
    MPMKirchhoffNeoHookeanAdjoint(mu, lambda, F, taub, Fb, &mub, &lambdab);
  else
    MPMKirchhoffFixedCorotatedAdjoint(mu, lambda, F, taub, Fb, &mub, &lambdab);
  MPMLameParametersAdjoint(mp->E, mp->nu, mub, lambdab, Eb, nub);
}

/* Stored energy V0 psi(F) of a particle [J/m] (diagnostics only). */
PetscReal MPMStrainEnergy(const MPMMaterialPoint *mp, const PetscScalar F[MPM_DIM][MPM_DIM])
{
  PetscReal       mu, lambda, psi = 0;
  const PetscReal J = MPMDeterminant(F);

  MPMLameParameters(mp->E, mp->nu, &mu, &lambda);
  if ((MPMModel)(PetscInt)mp->model == MPM_MODEL_NEO_HOOKEAN) {
    PetscReal trc = 0;
    for (PetscInt a = 0; a < MPM_DIM; a++)
      for (PetscInt b = 0; b < MPM_DIM; b++) trc += F[a][b] * F[a][b];
    psi = 0.5 * mu * (trc - MPM_DIM) - mu * PetscLogReal(J) + 0.5 * lambda * PetscSqr(PetscLogReal(J));
  } else {
    PetscScalar R[MPM_DIM][MPM_DIM];
    MPMPolarRotation(F, R);
    for (PetscInt a = 0; a < MPM_DIM; a++)
      for (PetscInt b = 0; b < MPM_DIM; b++) psi += mu * PetscSqr(F[a][b] - R[a][b]);
    psi += 0.5 * lambda * PetscSqr(J - 1.0);
  }
  return mp->volume * psi;
}

/* The APIC/MLS affine momentum of a particle, A = m C - dt V0 tau(F) D^-1 (D^-1 = diag(4/h^2)), and
 * its Kirchhoff stress tau, shared by MPMParticleToGrid and its adjoint. */
static inline void MPMAffineMomentum(const MPMGrid *g, PetscReal dt, const MPMParticle *p, const MPMMaterialPoint *mat,
                                     PetscScalar tau[MPM_DIM][MPM_DIM], PetscScalar A[MPM_DIM][MPM_DIM])
{
  MPMKirchhoff(mat, p->F, tau);
  for (PetscInt a = 0; a < MPM_DIM; a++)
    for (PetscInt b = 0; b < MPM_DIM; b++)
      A[a][b] = mat->mass * p->C[a][b] - dt * mat->volume * tau[a][b] * 4.0 / (g->h[b] * g->h[b]);
}

/* MLS-MPM particle-to-grid (Hu et al. 2018, APIC): for every particle p and node i of its stencil,
 * with weight w_ip and offset dx = x_i - x_p,
 *   m_i += w_ip m_p,
 *   (m v)_i += w_ip (m_p v_p + A_p dx),   A_p = m_p C_p - dt V0_p tau(F_p) D^-1,
 * the last term being the explicit elastic force dt f_i = -dt sum_p V0 tau grad w_ip with the MLS
 * gradient grad w_ip = w_ip D^-1 dx.  Adds into `nodes`, a ghosted array indexed by global node
 * numbers [j][i], which must cover every particle's stencil. */
PetscErrorCode MPMParticleToGrid(const MPMGrid *g, PetscReal dt, PetscInt n, const MPMParticle p[],
                                 const MPMMaterialPoint mat[], MPMNode **nodes)
{
  PetscFunctionBeginUser;
  for (PetscInt q = 0; q < n; q++) {
    PetscInt        base[MPM_DIM];
    PetscReal       w[MPM_DIM][MPM_STENCIL], f[MPM_DIM];
    PetscScalar     tau[MPM_DIM][MPM_DIM], A[MPM_DIM][MPM_DIM];
    const PetscReal m = mat[q].mass;

    for (PetscInt d = 0; d < MPM_DIM; d++) MPMBSpline(p[q].x[d] / g->h[d], &base[d], w[d], &f[d]);
    MPMAffineMomentum(g, dt, &p[q], &mat[q], tau, A);
    for (PetscInt j = 0; j < MPM_STENCIL; j++)
      for (PetscInt i = 0; i < MPM_STENCIL; i++) {
        const PetscReal wt = w[0][i] * w[1][j], dx[MPM_DIM] = {(i - f[0]) * g->h[0], (j - f[1]) * g->h[1]};
        MPMNode        *node = &nodes[base[1] + j][base[0] + i];

        node->m += wt * m;
        for (PetscInt a = 0; a < MPM_DIM; a++) node->p[a] += wt * (m * p[q].v[a] + A[a][0] * dx[0] + A[a][1] * dx[1]);
      }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
/* Adjoint of MPMParticleToGrid: given nodesb = (mb_i, Pb_i) on the ghosted nodes (read only), adds to
 * every particle's pb (x, v, C, F) and to matb (mass, E, nu; the other fields untouched):
 *   vb_p += sum_i w m_p Pb_i,   Ab += sum_i w Pb_i dx^T,   mb_p += sum_i w (mb_i + Pb_i . v_p) + Ab : C_p,
 *   Cb_p += m_p Ab,   taub = -dt V0 Ab D^-1,   (Fb, Eb, nub) += (dtau/d(F, E, nu))^T taub,
 *   xb_p += sum_i wb_i dw_i/dx_p - sum_i (w A_p^T Pb_i)   (dx = x_i - x_p moves with -x_p),
 * with wb_i = mb_i m_p + Pb_i . (m_p v_p + A_p dx). */
PetscErrorCode MPMParticleToGridAdjoint(const MPMGrid *g, PetscReal dt, PetscInt n, const MPMParticle p[],
                                        const MPMMaterialPoint mat[], const MPMNode *const *nodesb, MPMParticle pb[],
                                        MPMMaterialPoint matb[])
{
  PetscFunctionBeginUser;
  for (PetscInt q = 0; q < n; q++) {
    PetscInt        base[MPM_DIM];
    PetscReal       w[MPM_DIM][MPM_STENCIL], f[MPM_DIM], wb[MPM_DIM][MPM_STENCIL] = {{0, 0, 0}, {0, 0, 0}};
    PetscReal       dxb[MPM_DIM] = {0, 0}, mb = 0, Eb = 0, nub = 0;
    PetscScalar     tau[MPM_DIM][MPM_DIM], A[MPM_DIM][MPM_DIM], Ab[MPM_DIM][MPM_DIM] = {{0, 0}, {0, 0}};
    PetscScalar     taub[MPM_DIM][MPM_DIM];
    const PetscReal m = mat[q].mass;

    for (PetscInt d = 0; d < MPM_DIM; d++) MPMBSpline(p[q].x[d] / g->h[d], &base[d], w[d], &f[d]);
    MPMAffineMomentum(g, dt, &p[q], &mat[q], tau, A);
    for (PetscInt j = 0; j < MPM_STENCIL; j++)
      for (PetscInt i = 0; i < MPM_STENCIL; i++) {
        const PetscReal wt = w[0][i] * w[1][j], dx[MPM_DIM] = {(i - f[0]) * g->h[0], (j - f[1]) * g->h[1]};
        const MPMNode  *nb  = &nodesb[base[1] + j][base[0] + i];
        PetscReal       wtb = nb->m * m;

        mb += wt * nb->m;
        for (PetscInt a = 0; a < MPM_DIM; a++) {
          wtb += nb->p[a] * (m * p[q].v[a] + A[a][0] * dx[0] + A[a][1] * dx[1]);
          pb[q].v[a] += wt * m * nb->p[a];
          mb += wt * nb->p[a] * p[q].v[a];
          for (PetscInt b = 0; b < MPM_DIM; b++) {
            Ab[a][b] += wt * nb->p[a] * dx[b];
            dxb[b] += wt * nb->p[a] * A[a][b];
          }
        }
        wb[0][i] += wtb * w[1][j];
        wb[1][j] += wtb * w[0][i];
      }
    for (PetscInt d = 0; d < MPM_DIM; d++)
      pb[q].x[d] += MPMBSplineAdjoint(p[q].x[d] / g->h[d], wb[d]) / g->h[d] - dxb[d];
    for (PetscInt a = 0; a < MPM_DIM; a++)
      for (PetscInt b = 0; b < MPM_DIM; b++) {
        pb[q].C[a][b] += m * Ab[a][b];
        mb += Ab[a][b] * p[q].C[a][b];
        taub[a][b] = -dt * mat[q].volume * Ab[a][b] * 4.0 / (g->h[b] * g->h[b]);
      }
    MPMKirchhoffAdjoint(&mat[q], p[q].F, taub, pb[q].F, &Eb, &nub);
    matb[q].mass += mb;
    matb[q].E += Eb;
    matb[q].nu += nub;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Smoothed Coulomb wall (-mpm_wall_<side> friction) acting on the velocity v of one node, for the wall
 * whose outward normal is sgn e_d (sgn = -1 on the low side, +1 on the high side); t = the tangential
 * direction, eps = -mpm_friction_smoothing [m/s], mu = -mpm_wall_friction.  With vn = sgn v_d (> 0:
 * moving into the wall) and the smooth positive part s(vn) = (vn + sqrt(vn^2 + eps^2)) / 2:
 *   normal:      vn' = vn - r,  r = s(vn) - eps/2
 * (r(0) = 0; r -> vn - eps/2 for vn >> eps: an approach speed of up to eps/2 is let through; r -> -eps/2
 * for vn << -eps: a node leaving the wall is held back by up to eps/2, a weak adhesion),
 *   tangential:  vt' solves  vt' + c phi(vt') = vt,  c = mu s(vn),  phi(u) = u / sqrt(u^2 + eps^2),
 * i.e. a backward-Euler step of the regularized Coulomb law: vt' has the sign of vt, |vt'| <= |vt|, and
 * vt' -> sign(vt) max(0, |vt| - c) as eps -> 0.  A node at rest stays at rest (r(0) = 0, phi(0) = 0).
 * Returns the number of Newton iterations (safeguarded by bisection on [0, |vt|]). */
PetscInt MPMFrictionWall(PetscReal mu, PetscReal eps, PetscInt d, PetscReal sgn, PetscScalar v[MPM_DIM])
{
  const PetscInt  t  = 1 - d;
  const PetscReal vn = sgn * v[d], s = 0.5 * (vn + PetscSqrtReal(vn * vn + eps * eps)), c = mu * s;
  const PetscReal a = PetscAbsReal(v[t]);
  PetscReal       u = 0, lo = 0, hi = a;
  PetscInt        it;

  v[d] -= sgn * (s - 0.5 * eps);
  if (c == 0 || a == 0) return 0;
  for (it = 1; it <= 100; it++) {
    const PetscReal q = PetscSqrtReal(u * u + eps * eps), gval = u + c * u / q - a,
                    dg = 1 + c * eps * eps / (q * q * q);
    PetscReal un       = u - gval / dg;

    if (gval < 0)
      lo = u;
    else
      hi = u;
    if (!(un > lo && un < hi)) un = 0.5 * (lo + hi);
    if (PetscAbsReal(un - u) <= 1e-15 * (a + eps)) {
      u = un;
      break;
    }
    u = un;
  }
  v[t] = v[t] > 0 ? u : -u;
  return it;
}

/* Adjoint of MPMFrictionWall at the input velocity vin: vb in, the adjoint of v'; out, that of v; mub +=
 * dJ/dmu.  By implicit differentiation of vt' + c phi(vt') = vt, with D = 1 + c phi'(vt'):
 *   vtb = vt'b / D,  cb = -vt'b phi(vt') / D,  mub += cb s,  vnb = vn'b (1 - s') + mu cb s',
 * s' = (1 + vn / sqrt(vn^2 + eps^2)) / 2 (= r'). */
void MPMFrictionWallAdjoint(PetscReal mu, PetscReal eps, PetscInt d, PetscReal sgn, const PetscScalar vin[MPM_DIM],
                            PetscScalar vb[MPM_DIM], PetscReal *mub)
{
  const PetscInt  t  = 1 - d;
  const PetscReal vn = sgn * vin[d], rt = PetscSqrtReal(vn * vn + eps * eps), s = 0.5 * (vn + rt),
                  ds     = 0.5 * (1 + vn / rt);
  PetscScalar v[MPM_DIM] = {vin[0], vin[1]};
  PetscReal   u, q, D, cb, vnb;

  (void)MPMFrictionWall(mu, eps, d, sgn, v);
  u  = v[t];
  q  = PetscSqrtReal(u * u + eps * eps);
  D  = 1 + mu * s * eps * eps / (q * q * q);
  cb = -vb[t] * (u / q) / D;
  *mub += cb * s;
  vnb   = sgn * vb[d] * (1 - ds) + mu * cb * ds;
  vb[t] = vb[t] / D;
  vb[d] = sgn * vnb;
}

/* The wall of side (d, side) on the velocity v of a node within its band: sticky v = 0, slip v_d = 0
 * (linear: their own adjoints), friction MPMFrictionWall. */
static void MPMWallSide(const MPMGrid *g, PetscInt d, PetscInt side, PetscScalar v[MPM_DIM])
{
  if (g->wall[d][side] == MPM_WALL_STICKY)
    for (PetscInt a = 0; a < MPM_DIM; a++) v[a] = 0;
  else if (g->wall[d][side] == MPM_WALL_SLIP)
    v[d] = 0;
  else if (g->wall[d][side] == MPM_WALL_FRICTION)
    (void)MPMFrictionWall(g->friction, g->friction_smoothing, d, side == 0 ? -1.0 : 1.0, v);
}

static PetscBool MPMWallNear(const MPMGrid *g, PetscInt i, PetscInt j, PetscInt d, PetscInt side)
{
  const PetscInt idx[2] = {i, j};

  return (PetscBool)(g->wall[d][side] != MPM_WALL_NONE &&
                     (side == 0 ? idx[d] < g->wall_width : idx[d] > g->M[d] - g->wall_width));
}

/* The walls on a node (i, j), in the order xlo, xhi, ylo, yhi, each on the nodes within wall_width
 * nodes of its side. */
static void MPMWallProject(const MPMGrid *g, PetscInt i, PetscInt j, PetscScalar v[MPM_DIM])
{
  for (PetscInt d = 0; d < MPM_DIM; d++)
    for (PetscInt side = 0; side < 2; side++)
      if (MPMWallNear(g, i, j, d, side)) MPMWallSide(g, d, side, v);
}

/* Adjoint of MPMWallProject at the input velocity vin: the walls' adjoints in reverse order, each at the
 * velocity it saw in the forward pass; vb in/out, mub += dJ/dmu. */
static void MPMWallProjectAdjoint(const MPMGrid *g, PetscInt i, PetscInt j, const PetscScalar vin[MPM_DIM],
                                  PetscScalar vb[MPM_DIM], PetscReal *mub)
{
  PetscScalar v[2 * MPM_DIM][MPM_DIM];
  PetscInt    nw = 0, wd[2 * MPM_DIM], ws[2 * MPM_DIM];

  for (PetscInt a = 0; a < MPM_DIM; a++) v[0][a] = vin[a];
  for (PetscInt d = 0; d < MPM_DIM; d++)
    for (PetscInt side = 0; side < 2; side++) {
      if (!MPMWallNear(g, i, j, d, side)) continue;
      wd[nw] = d, ws[nw] = side;
      if (nw + 1 < 2 * MPM_DIM) {
        for (PetscInt a = 0; a < MPM_DIM; a++) v[nw + 1][a] = v[nw][a];
        MPMWallSide(g, d, side, v[nw + 1]);
      }
      nw++;
    }
  for (PetscInt w = nw - 1; w >= 0; w--) {
    const PetscInt d = wd[w], side = ws[w];

    if (g->wall[d][side] == MPM_WALL_STICKY)
      for (PetscInt a = 0; a < MPM_DIM; a++) vb[a] = 0;
    else if (g->wall[d][side] == MPM_WALL_SLIP)
      vb[d] = 0;
    else
      MPMFrictionWallAdjoint(g->friction, g->friction_smoothing, d, side == 0 ? -1.0 : 1.0, v[w], vb, mub);
  }
}

/* Signed distance phi [m] from the point x to the obstacle o (phi < 0 inside) and the outward unit
 * normal n = grad phi:
 *   plane (point p, unit normal n):  phi = (x - p) . n,
 *   circle (centre c, radius r):     phi = |x - c| - r,  n = (x - c) / |x - c|.
 * At the centre of a circle grad phi is undefined; there (|x - c| <= 1e-12 r) n = (0, 1).  That point lies
 * a whole radius deep inside, where no particle can be: the choice has no effect on a run.  Obstacles and
 * nodes are fixed, so phi and n are constants of the grid update (no adjoint needed). */
PetscReal MPMObstacleDistance(const MPMObstacle *o, const PetscReal x[MPM_DIM], PetscReal n[MPM_DIM])
{
  const PetscReal *q = o->geom;

  if (o->shape == MPM_OBSTACLE_PLANE) {
    n[0] = q[2], n[1] = q[3];
    return (x[0] - q[0]) * n[0] + (x[1] - q[1]) * n[1];
  } else {
    const PetscReal d[MPM_DIM] = {x[0] - q[0], x[1] - q[1]}, len = PetscSqrtReal(d[0] * d[0] + d[1] * d[1]);

    if (len > 1e-12 * q[2])
      n[0] = d[0] / len, n[1] = d[1] / len;
    else
      n[0] = 0, n[1] = 1;
    return len - q[2];
  }
}

/* Contact weight of a node at signed distance phi from an obstacle, over the width w
 * (-mpm_obstacle_smoothing cells):
 *   s = 1 for phi <= 0,  s = 1 - (10 t^3 - 15 t^4 + 6 t^5) with t = phi / w for 0 < phi < w,  s = 0 for phi >= w,
 * a C^2 smoothstep, so that the contact layer fades in over one smoothing width instead of switching on at
 * the surface.  It depends only on the fixed node position: a constant for the adjoint. */
PetscReal MPMObstacleWeight(PetscReal phi, PetscReal width)
{
  const PetscReal t = phi / width;

  if (t <= 0) return 1.0;
  if (t >= 1) return 0.0;
  return 1.0 - t * t * t * (10.0 + t * (-15.0 + 6.0 * t));
}

/* Obstacle contact on the velocity v of one node with weight s and outward normal n:
 *   v' = (1 - s) v + s vc(v),
 * sticky: vc = 0.  slip, friction: in the frame e0 = -n (into the obstacle), e1 = (n1, -n0), vc is the
 * smoothed Coulomb update of the friction walls (MPMFrictionWall with normal e0), with the coefficient mu
 * (friction) or 0 (slip): the approach speed vn = v . e0 loses r = s_eps(vn) - eps/2 (a smoothed max(0, vn):
 * the body may leave the obstacle, a weak adhesion of at most eps/2 aside), and the tangential speed obeys
 * the regularized Coulomb law.  Every piece is smooth in v and mu (eps > 0). */
void MPMObstacleContact(MPMWallType type, PetscReal s, const PetscReal n[MPM_DIM], PetscReal mu, PetscReal eps,
                        PetscScalar v[MPM_DIM])
{
  const PetscReal e0[MPM_DIM] = {-n[0], -n[1]}, e1[MPM_DIM] = {n[1], -n[0]};
  PetscScalar     w[MPM_DIM], vc[MPM_DIM]                   = {0, 0};

  if (s == 0) return; /* v' = v: the same value as the formula */
  if (type != MPM_WALL_STICKY) {
    w[0] = v[0] * e0[0] + v[1] * e0[1];
    w[1] = v[0] * e1[0] + v[1] * e1[1];
    (void)MPMFrictionWall(type == MPM_WALL_FRICTION ? mu : 0.0, eps, 0, 1.0, w);
    for (PetscInt a = 0; a < MPM_DIM; a++) vc[a] = w[0] * e0[a] + w[1] * e1[a];
  }
  for (PetscInt a = 0; a < MPM_DIM; a++) v[a] = (1 - s) * v[a] + s * vc[a];
}

/* Adjoint of MPMObstacleContact at the input velocity vin: vb in, the adjoint of v'; out, that of v; mub +=
 * dJ/dmu (friction only).  vb <- (1 - s) vb + s R^T FrictionWall^T(R vb) with R the rotation to (e0, e1)
 * (orthogonal: R^T = R^-1); sticky: vb <- (1 - s) vb. */
void MPMObstacleContactAdjoint(MPMWallType type, PetscReal s, const PetscReal n[MPM_DIM], PetscReal mu, PetscReal eps,
                               const PetscScalar vin[MPM_DIM], PetscScalar vb[MPM_DIM], PetscReal *mub)
{
  const PetscReal e0[MPM_DIM] = {-n[0], -n[1]}, e1[MPM_DIM] = {n[1], -n[0]};
  PetscScalar     wb[MPM_DIM] = {0, 0};

  if (s == 0) return;
  if (type != MPM_WALL_STICKY) {
    const PetscScalar w[MPM_DIM] = {vin[0] * e0[0] + vin[1] * e0[1], vin[0] * e1[0] + vin[1] * e1[1]};
    PetscReal         slipmub    = 0;

    wb[0] = s * (vb[0] * e0[0] + vb[1] * e0[1]);
    wb[1] = s * (vb[0] * e1[0] + vb[1] * e1[1]);
    if (type == MPM_WALL_FRICTION)
      MPMFrictionWallAdjoint(mu, eps, 0, 1.0, w, wb, mub);
    else
      MPMFrictionWallAdjoint(0.0, eps, 0, 1.0, w, wb, &slipmub); /* mu does not enter a slip obstacle */
  }
  for (PetscInt a = 0; a < MPM_DIM; a++) vb[a] = (1 - s) * vb[a] + wb[0] * e0[a] + wb[1] * e1[a];
}

/* Position of node (i, j) [m]. */
static void MPMNodePosition(const MPMGrid *g, PetscInt i, PetscInt j, PetscReal x[MPM_DIM])
{
  x[0] = i * g->h[0];
  x[1] = j * g->h[1];
}

/* The obstacles on a node (i, j), in the order 0, 1, ..., each with its weight s(phi) (MPMObstacleContact). */
static void MPMObstacleProject(const MPMGrid *g, PetscInt i, PetscInt j, PetscScalar v[MPM_DIM])
{
  PetscReal x[MPM_DIM], n[MPM_DIM];

  MPMNodePosition(g, i, j, x);
  for (PetscInt k = 0; k < g->nobstacles; k++) {
    const PetscReal s = MPMObstacleWeight(MPMObstacleDistance(&g->obstacle[k], x, n), g->obstacle_width);

    MPMObstacleContact(g->obstacle[k].type, s, n, g->friction, g->friction_smoothing, v);
  }
}

/* Adjoint of MPMObstacleProject at the input velocity vin: the obstacles' adjoints in reverse order, each at
 * the velocity it saw in the forward pass; vb in/out, mub += dJ/dmu. */
static void MPMObstacleProjectAdjoint(const MPMGrid *g, PetscInt i, PetscInt j, const PetscScalar vin[MPM_DIM],
                                      PetscScalar vb[MPM_DIM], PetscReal *mub)
{
  PetscScalar v[MPM_MAX_OBSTACLES][MPM_DIM];
  PetscReal   x[MPM_DIM], n[MPM_MAX_OBSTACLES][MPM_DIM], s[MPM_MAX_OBSTACLES];

  MPMNodePosition(g, i, j, x);
  for (PetscInt k = 0; k < g->nobstacles; k++) {
    s[k] = MPMObstacleWeight(MPMObstacleDistance(&g->obstacle[k], x, n[k]), g->obstacle_width);
    for (PetscInt a = 0; a < MPM_DIM; a++) v[k][a] = k ? v[k - 1][a] : vin[a];
    if (k) MPMObstacleContact(g->obstacle[k - 1].type, s[k - 1], n[k - 1], g->friction, g->friction_smoothing, v[k]);
  }
  for (PetscInt k = g->nobstacles - 1; k >= 0; k--)
    MPMObstacleContactAdjoint(g->obstacle[k].type, s[k], n[k], g->friction, g->friction_smoothing, v[k], vb, mub);
}

/* Grid update on the owned nodes: v_i = (m v)_i / m_i + dt g, then the walls on the nodes within
 * wall_width nodes of each side: sticky v = 0, slip v_n = 0 (no penetration, no separation: linear,
 * hence smooth for the adjoint), friction: MPMFrictionWall (smoothed); then the obstacles in their order
 * (MPMObstacleContact, blended by the weight s(phi) of the node).  Nodes without mass get v = 0.
 * In place: p becomes v, m stays.
 *
 * The threshold m_i > 0 is exact, not smoothed: a node's mass m_i = sum_p w_ip m_p and momentum vanish
 * together with the weights w_ip of the particles reaching it, and its velocity only enters G2P
 * multiplied by those same weights, so the step is C^1 across the empty/non-empty switch (v_i stays
 * bounded: (m v)_i / m_i -> a particle's affine velocity as w -> 0).  The adjoint differentiates the
 * m_i > 0 branch; the empty branch is constant (v = 0) and contributes nothing. */
PetscErrorCode MPMGridUpdate(const MPMGrid *g, PetscReal dt, const PetscReal gravity[], MPMNode **nodes)
{
  PetscFunctionBeginUser;
  for (PetscInt j = g->s[1]; j < g->s[1] + g->m[1]; j++)
    for (PetscInt i = g->s[0]; i < g->s[0] + g->m[0]; i++) {
      MPMNode *node = &nodes[j][i];

      if (node->m > 0) {
        for (PetscInt a = 0; a < MPM_DIM; a++) node->p[a] = node->p[a] / node->m + dt * gravity[a];
      } else {
        for (PetscInt a = 0; a < MPM_DIM; a++) node->p[a] = 0;
      }
      MPMWallProject(g, i, j, node->p);
      MPMObstacleProject(g, i, j, node->p);
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Adjoint of MPMGridUpdate on the owned nodes.  in: the forward input (m_i, (m v)_i) (the P2G result);
 * nodesb: in, the adjoint (mb_i, vb_i) of the result; out, the adjoint (mb_i, Pb_i) of the input:
 *   vb <- walls^T(obstacles^T(vb)) (at the velocities each saw, from v = P/m + dt g),   Pb = vb / m,
 *   mb += -vb . P / m^2,   gb += dt vb,   frictionb += dJ/dmu of the friction walls and obstacles.
 * Empty nodes (m = 0): Pb = 0, mb unchanged (the constant branch). */
PetscErrorCode MPMGridUpdateAdjoint(const MPMGrid *g, PetscReal dt, const PetscReal gravity[], const MPMNode *const *in,
                                    MPMNode **nodesb, PetscReal gravityb[], PetscReal *frictionb)
{
  PetscFunctionBeginUser;
  for (PetscInt j = g->s[1]; j < g->s[1] + g->m[1]; j++)
    for (PetscInt i = g->s[0]; i < g->s[0] + g->m[0]; i++) {
      const MPMNode *node       = &in[j][i];
      MPMNode       *nb         = &nodesb[j][i];
      PetscScalar    v[MPM_DIM] = {0, 0}, vwall[MPM_DIM];

      if (node->m > 0)
        for (PetscInt a = 0; a < MPM_DIM; a++) v[a] = node->p[a] / node->m + dt * gravity[a];
      if (g->nobstacles) {
        for (PetscInt a = 0; a < MPM_DIM; a++) vwall[a] = v[a];
        MPMWallProject(g, i, j, vwall);
        MPMObstacleProjectAdjoint(g, i, j, vwall, nb->p, frictionb);
      }
      MPMWallProjectAdjoint(g, i, j, v, nb->p, frictionb);
      if (node->m > 0) {
        for (PetscInt a = 0; a < MPM_DIM; a++) {
          nb->m -= nb->p[a] * node->p[a] / (node->m * node->m);
          gravityb[a] += dt * nb->p[a];
          nb->p[a] /= node->m;
        }
      } else {
        for (PetscInt a = 0; a < MPM_DIM; a++) nb->p[a] = 0;
      }
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MLS-MPM grid-to-particle: with weights and offsets of the same stencil as MPMParticleToGrid,
 *   v_p' = sum_i w_ip v_i,   C_p' = (sum_i w_ip v_i dx^T) D^-1,   x_p' = x_p + dt v_p',
 *   F_p' = (I + dt C_p') F_p.
 * `nodes` holds velocities (after MPMGridUpdate), ghosted. */
PetscErrorCode MPMGridToParticle(const MPMGrid *g, PetscReal dt, PetscInt n, const MPMParticle pin[],
                                 const MPMNode *const *nodes, MPMParticle pout[])
{
  PetscFunctionBeginUser;
  for (PetscInt q = 0; q < n; q++) {
    PetscInt           base[MPM_DIM];
    PetscReal          w[MPM_DIM][MPM_STENCIL], f[MPM_DIM];
    PetscScalar        v[MPM_DIM] = {0, 0}, B[MPM_DIM][MPM_DIM] = {{0, 0}, {0, 0}};
    const MPMParticle *p = &pin[q];
    MPMParticle       *o = &pout[q];

    for (PetscInt d = 0; d < MPM_DIM; d++) MPMBSpline(p->x[d] / g->h[d], &base[d], w[d], &f[d]);
    for (PetscInt j = 0; j < MPM_STENCIL; j++)
      for (PetscInt i = 0; i < MPM_STENCIL; i++) {
        const PetscReal wt = w[0][i] * w[1][j], dx[MPM_DIM] = {(i - f[0]) * g->h[0], (j - f[1]) * g->h[1]};
        const MPMNode  *node = &nodes[base[1] + j][base[0] + i];

        for (PetscInt a = 0; a < MPM_DIM; a++) {
          v[a] += wt * node->p[a];
          for (PetscInt b = 0; b < MPM_DIM; b++) B[a][b] += wt * node->p[a] * dx[b];
        }
      }
    for (PetscInt a = 0; a < MPM_DIM; a++) {
      o->v[a] = v[a];
      o->x[a] = p->x[a] + dt * v[a];
      for (PetscInt b = 0; b < MPM_DIM; b++) o->C[a][b] = B[a][b] * 4.0 / (g->h[b] * g->h[b]);
    }
    for (PetscInt a = 0; a < MPM_DIM; a++)
      for (PetscInt b = 0; b < MPM_DIM; b++) {
        PetscScalar t = p->F[a][b];
        for (PetscInt k = 0; k < MPM_DIM; k++) t += dt * o->C[a][k] * p->F[k][b];
        o->F[a][b] = t;
      }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
/* Adjoint of MPMGridToParticle.  Given the adjoint poutb of the updated particles, adds to pinb (x and
 * F; v and C of the input do not enter G2P) and to the node velocity adjoints nodesb (ghosted, .p):
 *   Fb += (I + dt C')^T Fb',   Cb' = Cb' + dt Fb' F^T,   vb' = vb' + dt xb',   xb += xb',
 *   Bb = Cb' D^-1,   vb_i += w (vb' + Bb dx),   xb += sum_i wb_i dw_i/dx_p - sum_i w Bb^T v_i,
 * with wb_i = v_i . (vb' + Bb dx). */
PetscErrorCode MPMGridToParticleAdjoint(const MPMGrid *g, PetscReal dt, PetscInt n, const MPMParticle pin[],
                                        const MPMNode *const *nodes, const MPMParticle poutb[], MPMParticle pinb[],
                                        MPMNode **nodesb)
{
  PetscFunctionBeginUser;
  for (PetscInt q = 0; q < n; q++) {
    PetscInt           base[MPM_DIM];
    PetscReal          w[MPM_DIM][MPM_STENCIL], f[MPM_DIM], wb[MPM_DIM][MPM_STENCIL] = {{0, 0, 0}, {0, 0, 0}};
    PetscReal          dxb[MPM_DIM]        = {0, 0};
    PetscScalar        B[MPM_DIM][MPM_DIM] = {{0, 0}, {0, 0}}, C[MPM_DIM][MPM_DIM];
    PetscScalar        Bb[MPM_DIM][MPM_DIM], vb[MPM_DIM];
    const MPMParticle *p = &pin[q], *ob = &poutb[q];
    MPMParticle       *pb = &pinb[q];

    for (PetscInt d = 0; d < MPM_DIM; d++) MPMBSpline(p->x[d] / g->h[d], &base[d], w[d], &f[d]);
    /* forward C' (needed by the F update's adjoint) */
    for (PetscInt j = 0; j < MPM_STENCIL; j++)
      for (PetscInt i = 0; i < MPM_STENCIL; i++) {
        const PetscReal wt = w[0][i] * w[1][j], dx[MPM_DIM] = {(i - f[0]) * g->h[0], (j - f[1]) * g->h[1]};
        const MPMNode  *node = &nodes[base[1] + j][base[0] + i];

        for (PetscInt a = 0; a < MPM_DIM; a++)
          for (PetscInt b = 0; b < MPM_DIM; b++) B[a][b] += wt * node->p[a] * dx[b];
      }
    for (PetscInt a = 0; a < MPM_DIM; a++)
      for (PetscInt b = 0; b < MPM_DIM; b++) C[a][b] = B[a][b] * 4.0 / (g->h[b] * g->h[b]);
    /* F' = (I + dt C') F */
    for (PetscInt k = 0; k < MPM_DIM; k++)
      for (PetscInt b = 0; b < MPM_DIM; b++) {
        PetscScalar t = ob->F[k][b];
        for (PetscInt a = 0; a < MPM_DIM; a++) t += dt * C[a][k] * ob->F[a][b];
        pb->F[k][b] += t;
      }
    for (PetscInt a = 0; a < MPM_DIM; a++)
      for (PetscInt k = 0; k < MPM_DIM; k++) {
        PetscScalar t = ob->C[a][k];
        for (PetscInt b = 0; b < MPM_DIM; b++) t += dt * ob->F[a][b] * p->F[k][b];
        Bb[a][k] = t * 4.0 / (g->h[k] * g->h[k]);
      }
    /* x' = x + dt v' */
    for (PetscInt a = 0; a < MPM_DIM; a++) {
      pb->x[a] += ob->x[a];
      vb[a] = ob->v[a] + dt * ob->x[a];
    }
    for (PetscInt j = 0; j < MPM_STENCIL; j++)
      for (PetscInt i = 0; i < MPM_STENCIL; i++) {
        const PetscReal wt = w[0][i] * w[1][j], dx[MPM_DIM] = {(i - f[0]) * g->h[0], (j - f[1]) * g->h[1]};
        const MPMNode  *node = &nodes[base[1] + j][base[0] + i];
        MPMNode        *nb   = &nodesb[base[1] + j][base[0] + i];
        PetscReal       wtb  = 0;

        for (PetscInt a = 0; a < MPM_DIM; a++) {
          const PetscScalar r = vb[a] + Bb[a][0] * dx[0] + Bb[a][1] * dx[1];

          nb->p[a] += wt * r;
          wtb += node->p[a] * r;
          for (PetscInt b = 0; b < MPM_DIM; b++) dxb[b] += wt * Bb[a][b] * node->p[a];
        }
        wb[0][i] += wtb * w[1][j];
        wb[1][j] += wtb * w[0][i];
      }
    for (PetscInt d = 0; d < MPM_DIM; d++) pb->x[d] += MPMBSplineAdjoint(p->x[d] / g->h[d], wb[d]) / g->h[d] - dxb[d];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
