/* Grid update of MLS-MPM on the owned nodes (momentum to velocity, gravity, walls, obstacles) and its
 * adjoint, with the walls on one node (sticky, slip; the friction law in walls.c) and the per-node sequences of
 * walls and obstacles (contact laws in contact.c), each with its adjoint right below it.  They sit here,
 * static, so that the node loops compile them in (measurably faster than calls into walls.c). */
#include "mpmimpl.h"

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

/* Adjoint of MPMWallSide at the input velocity vin: vb in, the adjoint of v'; out, that of v; mub += dJ/dmu
 * (friction).  Sticky and slip zero the same components of vb. */
static void MPMWallSideAdjoint(const MPMGrid *g, PetscInt d, PetscInt side, const PetscScalar vin[MPM_DIM],
                               PetscScalar vb[MPM_DIM], PetscReal *mub)
{
  if (g->wall[d][side] == MPM_WALL_STICKY)
    for (PetscInt a = 0; a < MPM_DIM; a++) vb[a] = 0;
  else if (g->wall[d][side] == MPM_WALL_SLIP)
    vb[d] = 0;
  else
    MPMFrictionWallAdjoint(g->friction, g->friction_smoothing, d, side == 0 ? -1.0 : 1.0, vin, vb, mub);
}

/* Node (i, j) lies within the band of the wall of side (d, side), and that wall is not none. */
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
    MPMWallSideAdjoint(g, wd[w], ws[w], v[w], vb, mub);
  }
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
