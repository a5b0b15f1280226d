/* MPM kernels: pure functions of their inputs, each with its adjoint (name + Adjoint) right below it
 * when written.  Notation: F deformation gradient, J = det F, R its polar rotation, tau = P F^T the
 * Kirchhoff stress (J times Cauchy), D^-1 = diag(4 / h_d^2) the APIC inertia of quadratic B-splines.
 * Matrices are row-major [row][column]. */
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
/* MPMBSplineAdjoint: not yet written (dw/dt = -(3/2 - f), -2 (f - 1), f - 1/2). */

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
    MPMKirchhoff(&mat[q], p[q].F, tau);
    for (PetscInt a = 0; a < MPM_DIM; a++)
      for (PetscInt b = 0; b < MPM_DIM; b++)
        A[a][b] = m * p[q].C[a][b] - dt * mat[q].volume * tau[a][b] * 4.0 / (g->h[b] * g->h[b]);
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
/* MPMParticleToGridAdjoint: not yet written. */

/* Grid update on the owned nodes: v_i = (m v)_i / m_i + dt g, then the walls on the nodes within
 * wall_width nodes of each side: sticky v = 0, slip v_n = 0 (no penetration, no separation: linear,
 * hence smooth for the adjoint).  Nodes without mass get v = 0.  In place: p becomes v. */
PetscErrorCode MPMGridUpdate(const MPMGrid *g, PetscReal dt, const PetscReal gravity[], MPMNode **nodes)
{
  PetscFunctionBeginUser;
  for (PetscInt j = g->s[1]; j < g->s[1] + g->m[1]; j++)
    for (PetscInt i = g->s[0]; i < g->s[0] + g->m[0]; i++) {
      MPMNode       *node   = &nodes[j][i];
      const PetscInt idx[2] = {i, j};

      if (node->m > 0) {
        for (PetscInt a = 0; a < MPM_DIM; a++) node->p[a] = node->p[a] / node->m + dt * gravity[a];
      } else {
        for (PetscInt a = 0; a < MPM_DIM; a++) node->p[a] = 0;
      }
      for (PetscInt d = 0; d < MPM_DIM; d++)
        for (PetscInt side = 0; side < 2; side++) {
          const PetscBool near = (PetscBool)(side == 0 ? idx[d] < g->wall_width : idx[d] > g->M[d] - g->wall_width);

          if (!near) continue;
          if (g->wall[d][side] == MPM_WALL_STICKY)
            for (PetscInt a = 0; a < MPM_DIM; a++) node->p[a] = 0;
          else if (g->wall[d][side] == MPM_WALL_SLIP)
            node->p[d] = 0;
        }
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}
/* MPMGridUpdateAdjoint: not yet written. */

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
/* MPMGridToParticleAdjoint: not yet written. */
