/* Contact with rigid obstacles (obstacles.c reads them): signed distance, contact weight and the contact
 * law on the velocity of one grid node, each kernel with its adjoint right below it.  The sequence of
 * obstacles on a node is applied by the grid update (grid.c). */
#include "mpmimpl.h"

/* Signed distance phi [m] of x from obstacle o (< 0 inside) and the outward normal n = grad phi, from the
 * geometry layer (exact for planes and circles: (x - p) . n and |x - c| - r). Obstacles and nodes are
 * fixed, so phi and n are constants of the grid update (no adjoint needed). */
PetscReal MPMObstacleDistance(const MPMObstacle *o, const PetscReal x[MPM_DIM], PetscReal n[MPM_DIM])
{
  PetscReal phi;

  AdjShapeDistanceNormal(&o->shape, x[0], x[1], &phi, n);
  return phi;
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
