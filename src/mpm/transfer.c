/* Particle-grid transfers of MLS-MPM (Hu et al. 2018, APIC) with quadratic B-spline weights: the weights,
 * particle-to-grid (P2G) and grid-to-particle (G2P), each kernel with its adjoint (name + Adjoint) right
 * below it.  Notation: w_ip the weights, dx = x_i - x_p, D^-1 = diag(4 / h_d^2) the APIC inertia of
 * quadratic B-splines, tau the Kirchhoff stress of the particle's constitutive model (mpmmodel.h).
 * Matrices are row-major [row][column].  An adjoint kernel adds (mat)^T ybar to its outputs unless its
 * comment says otherwise. */
#include "mpmimpl.h"
#include "mpmmodel.h"
#include "actuation.h"

/* The P2G kernels are written once (a body function) and instantiated twice, with and without actuation: forced
 * inline, the instance without actuation has no trace of it (the same instructions as before actuation existed,
 * so runs without actuators give the same bits and pay nothing): ADJ_FORCE_INLINE (adjsim/sys.h). */

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

/* The actuator group of a particle, -1: none (act == NULL: no actuation in the run). */
static inline PetscInt MPMParticleActuatorGroup(const struct _n_MPMActuation *act, const MPMMaterialPoint *mat)
{
  return act ? act->group_of_label[(PetscInt)mat->label] : -1;
}

/* The APIC/MLS affine momentum of a particle, A = m C - dt V0 (tau(F, z) + tau_act(F, a)) D^-1
 * (D^-1 = diag(4/h^2)), its Kirchhoff stress tau (the model's plus, for an actuated particle, the active stress
 * of its actuator group at the level a = level[g], actuation.c) and updated internal state z' (nz reals; z = z' =
 * NULL when nz = 0) from its model's table entry, shared by MPMParticleToGrid and its adjoint.  This is the one
 * place of the step where the model updates z (mpmmodel.h): at the particle's (F_n, z_n) of the start of the
 * step.  The reals beyond the model's nstate (a model with less state than the run's nz) are carried over,
 * z' = z.  The MLS force is linear in tau, so the active stress enters as a sum: the same scatter carries both. */
static ADJ_FORCE_INLINE void MPMAffineMomentum(const MPMGrid *g, PetscReal dt, const MPMParticle *p,
                                               const MPMMaterialPoint *mat, PetscInt nz, const PetscScalar z[],
                                               const struct _n_MPMActuation *act, const PetscReal level[],
                                               PetscScalar tau[MPM_DIM][MPM_DIM], PetscScalar znew[],
                                               PetscScalar A[MPM_DIM][MPM_DIM])
{
  const MPMModelOps *ops = MPMMaterialModel(mat);
  const PetscInt     grp = MPMParticleActuatorGroup(act, mat);

  ops->kirchhoff(mat, p->F, ops->nstate ? z : NULL, tau, ops->nstate ? znew : NULL);
  for (PetscInt s = ops->nstate; s < nz; s++) znew[s] = z[s];
  if (grp >= 0) {
    PetscScalar tau_act[MPM_DIM][MPM_DIM];

    MPMActiveStress(&act->act[grp], level[grp], p->F, tau_act);
    for (PetscInt a = 0; a < MPM_DIM; a++)
      for (PetscInt b = 0; b < MPM_DIM; b++) tau[a][b] += tau_act[a][b];
  }
  for (PetscInt a = 0; a < MPM_DIM; a++)
    for (PetscInt b = 0; b < MPM_DIM; b++)
      A[a][b] = mat->mass * p->C[a][b] - dt * mat->volume * tau[a][b] * 4.0 / (g->h[b] * g->h[b]);
}

/* MLS-MPM particle-to-grid (Hu et al. 2018, APIC): for every particle p and node i of its stencil,
 * with weight w_ip and offset dx = x_i - x_p,
 *   m_i += w_ip m_p,
 *   (m v)_i += w_ip (m_p v_p + A_p dx),   A_p = m_p C_p - dt V0_p (tau(F_p) + tau_act(F_p, a_g)) D^-1,
 * the stress term being the explicit force dt f_i = -dt sum_p V0 tau grad w_ip with the MLS gradient
 * grad w_ip = w_ip D^-1 dx.  Adds into `nodes`, a ghosted array indexed by global node numbers [j][i], which
 * must cover every particle's stencil.  The internal states z (nz reals per particle) give the updated ones
 * znew = z' (both NULL when nz = 0).  act: the actuators (actuation.h) and level[g] the level of group g at this
 * step, whose active stress tau_act is added for the particles of an actuated label; act = level = NULL: no
 * actuation. */
static ADJ_FORCE_INLINE PetscErrorCode MPMParticleToGridBody(const MPMGrid *g, PetscReal dt, PetscInt n,
                                                             const MPMParticle p[], const MPMMaterialPoint mat[],
                                                             PetscInt nz, const PetscScalar z[], PetscScalar znew[],
                                                             const struct _n_MPMActuation *act, const PetscReal level[],
                                                             MPMNode **nodes)
{
  PetscFunctionBeginUser;
  for (PetscInt q = 0; q < n; q++) {
    PetscInt        base[MPM_DIM];
    PetscReal       w[MPM_DIM][MPM_STENCIL], f[MPM_DIM];
    PetscScalar     tau[MPM_DIM][MPM_DIM], A[MPM_DIM][MPM_DIM];
    const PetscReal m = mat[q].mass;

    for (PetscInt d = 0; d < MPM_DIM; d++) MPMBSpline(p[q].x[d] / g->h[d], &base[d], w[d], &f[d]);
    MPMAffineMomentum(g, dt, &p[q], &mat[q], nz, nz ? z + q * nz : NULL, act, level, tau, nz ? znew + q * nz : NULL, A);
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
PetscErrorCode MPMParticleToGrid(const MPMGrid *g, PetscReal dt, PetscInt n, const MPMParticle p[],
                                 const MPMMaterialPoint mat[], PetscInt nz, const PetscScalar z[], PetscScalar znew[],
                                 const struct _n_MPMActuation *act, const PetscReal level[], MPMNode **nodes)
{
  PetscFunctionBeginUser;
  if (act)
    PetscCall(MPMParticleToGridBody(g, dt, n, p, mat, nz, z, znew, act, level, nodes));
  else
    PetscCall(MPMParticleToGridBody(g, dt, n, p, mat, nz, z, znew, NULL, NULL, nodes));
  PetscFunctionReturn(PETSC_SUCCESS);
}
/* Adjoint of MPMParticleToGrid: given nodesb = (mb_i, Pb_i) on the ghosted nodes (read only), adds to
 * every particle's pb (x, v, C, F) and to matb (mass, E, nu, sigma_y, H, friction_angle, cohesion; the other
 * fields untouched), and with actuation to levelb[g] (dJ/da_g):
 *   vb_p += sum_i w m_p Pb_i,   Ab += sum_i w Pb_i dx^T,   mb_p += sum_i w (mb_i + Pb_i . v_p) + Ab : C_p,
 *   Cb_p += m_p Ab,   taub = -dt V0 Ab D^-1 (the adjoint of the sum tau + tau_act: both stresses get taub),
 *   (Fb, zb, Eb, nub) += (d(tau, z')/d(F, z, E, nu))^T (taub, z'b) (the model's adjoint; zb += z'b for the reals
 *   beyond the model's nstate, which are copied),
 *   (Fb, levelb_g) += (d tau_act/d(F, a_g))^T taub (MPMActiveStressAdjoint; actuated particles only),
 *   xb_p += sum_i wb_i dw_i/dx_p - sum_i (w A_p^T Pb_i)   (dx = x_i - x_p moves with -x_p),
 * with wb_i = mb_i m_p + Pb_i . (m_p v_p + A_p dx).  z, znewb (z'b) and zb hold nz reals per particle (NULL
 * when nz = 0); act = level = levelb = NULL: no actuation. */
static ADJ_FORCE_INLINE PetscErrorCode MPMParticleToGridAdjointBody(
    const MPMGrid *g, PetscReal dt, PetscInt n, const MPMParticle p[], const MPMMaterialPoint mat[], PetscInt nz,
    const PetscScalar z[], const PetscScalar znewb[], const struct _n_MPMActuation *act, const PetscReal level[],
    const MPMNode *const *nodesb, MPMParticle pb[], PetscScalar zb[], MPMMaterialPoint matb[], PetscReal levelb[])
{
  PetscFunctionBeginUser;
  for (PetscInt q = 0; q < n; q++) {
    PetscInt           base[MPM_DIM];
    PetscReal          w[MPM_DIM][MPM_STENCIL], f[MPM_DIM], wb[MPM_DIM][MPM_STENCIL] = {{0, 0, 0}, {0, 0, 0}};
    PetscReal          dxb[MPM_DIM] = {0, 0}, mb = 0;
    MPMMaterialPoint   mpb = {0};
    PetscScalar        tau[MPM_DIM][MPM_DIM], A[MPM_DIM][MPM_DIM], Ab[MPM_DIM][MPM_DIM] = {{0, 0}, {0, 0}};
    PetscScalar        taub[MPM_DIM][MPM_DIM], znew[MPM_MODEL_MAX_STATE];
    const PetscReal    m  = mat[q].mass;
    const PetscScalar *zq = nz ? z + q * nz : NULL, *znbq = nz ? znewb + q * nz : NULL;
    PetscScalar       *zbq = nz ? zb + q * nz : NULL;

    for (PetscInt d = 0; d < MPM_DIM; d++) MPMBSpline(p[q].x[d] / g->h[d], &base[d], w[d], &f[d]);
    MPMAffineMomentum(g, dt, &p[q], &mat[q], nz, zq, act, level, tau, znew, A);
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
    {
      const MPMModelOps *ops = MPMMaterialModel(&mat[q]);
      const PetscInt     ns  = ops->nstate;
      const PetscInt     grp = MPMParticleActuatorGroup(act, &mat[q]);

      ops->kirchhoffadjoint(&mat[q], p[q].F, ns ? zq : NULL, taub, ns ? znbq : NULL, pb[q].F, ns ? zbq : NULL, &mpb);
      for (PetscInt s = ns; s < nz; s++) zbq[s] += znbq[s];
      if (grp >= 0) MPMActiveStressAdjoint(&act->act[grp], level[grp], p[q].F, taub, pb[q].F, &levelb[grp]);
    }
    matb[q].mass += mb;
    matb[q].E += mpb.E;
    matb[q].nu += mpb.nu;
    matb[q].sigma_y += mpb.sigma_y;
    matb[q].H += mpb.H;
    matb[q].friction_angle += mpb.friction_angle;
    matb[q].cohesion += mpb.cohesion;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
PetscErrorCode MPMParticleToGridAdjoint(const MPMGrid *g, PetscReal dt, PetscInt n, const MPMParticle p[],
                                        const MPMMaterialPoint mat[], PetscInt nz, const PetscScalar z[],
                                        const PetscScalar znewb[], const struct _n_MPMActuation *act,
                                        const PetscReal level[], const MPMNode *const *nodesb, MPMParticle pb[],
                                        PetscScalar zb[], MPMMaterialPoint matb[], PetscReal levelb[])
{
  PetscFunctionBeginUser;
  if (act)
    PetscCall(MPMParticleToGridAdjointBody(g, dt, n, p, mat, nz, z, znewb, act, level, nodesb, pb, zb, matb, levelb));
  else
    PetscCall(MPMParticleToGridAdjointBody(g, dt, n, p, mat, nz, z, znewb, NULL, NULL, nodesb, pb, zb, matb, NULL));
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
