/* Grid update of MLS-MPM on the owned nodes (momentum to velocity, gravity, walls, obstacles) and its
 * adjoint. */
#include "mpmimpl.h"

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
