/* Friction walls of the MPM box (-mpm_wall_<side> friction): the smoothed Coulomb law on the velocity of one
 * grid node and its adjoint right below it (also the contact law of the obstacles, contact.c).  Sticky and
 * slip walls are projections; the grid update (grid.c) applies every wall on the nodes of its band. */
#include "mpmimpl.h"

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
