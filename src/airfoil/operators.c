/* Cell kernels of the airfoil solver on ghosted arrays (notation: airfoilimpl.h): boundary values, the
 * Green-Gauss cell gradient and the convection term.  Pure functions of the geometry and the arrays. */
#include "airfoilimpl.h"

/*@ AirfoilWallValue - q at the wall face of column i, extrapolated linearly along the first two cell
    centroids: q_w = (1 + e_i) q(i, 0) - e_i q(i, 1). Not collective. @*/
PetscReal AirfoilWallValue(const AirfoilGeometry *g, PetscInt i, PetscScalar **q)
{
  const PetscReal e = g->ext[(i + g->ni) % g->ni];

  return (1 + e) * q[0][i] - e * q[1][i];
}

/*@ AirfoilFarValue - q at the far-field face of column i: wf_i qinf + (1 - wf_i) q(i, nc - 1) (Dirichlet on
    inflow, zero gradient on outflow, smoothly switched). Not collective. @*/
PetscReal AirfoilFarValue(const AirfoilGeometry *g, const PetscReal wf[], PetscInt i, PetscReal qinf, PetscScalar **q)
{
  const PetscReal w = wf[(i + g->ni) % g->ni];

  return w * qinf + (1 - w) * q[g->nc - 1][i];
}

/*@ AirfoilCellGradient - Green-Gauss gradient of q in cell (i, j): (1/A) sum over the faces of q_f S_out, q_f
    the mean of the two cells, at the wall 0 (wall_zero) or the extrapolated value, at the far field qff. Not
   collective. @*/
void AirfoilCellGradient(const AirfoilGeometry *g, PetscInt i, PetscInt j, PetscScalar **q, PetscBool wall_zero,
                         PetscReal qff, PetscReal grad[2])
{
  const PetscInt   ni = g->ni, iw = (i + ni) % ni, ip = (i + 1 + ni) % ni, c = j * ni + iw;
  const PetscReal *sl = g->si + 2 * c, *sr = g->si + 2 * (j * ni + ip), *sb = g->sj + 2 * c, *st = g->sj + 2 * (c + ni);
  const PetscReal  ql = 0.5 * (q[j][i - 1] + q[j][i]), qr = 0.5 * (q[j][i] + q[j][i + 1]);
  const PetscReal  qb = j == 0 ? (wall_zero ? 0 : AirfoilWallValue(g, i, q)) : 0.5 * (q[j - 1][i] + q[j][i]);
  const PetscReal  qt = j == g->nc - 1 ? qff : 0.5 * (q[j][i] + q[j + 1][i]);

  for (PetscInt d = 0; d < 2; d++) grad[d] = (qr * sr[d] - ql * sl[d] + qt * st[d] - qb * sb[d]) / g->area[c];
}

/*@ AirfoilConvection - (1/A) sum over the faces of F_f q_f (outward volume fluxes F from the state x, q_f the
    central mean, qw at the wall, the far-field value with qinf at the far field): div(u q) in cell (i, j).
    Not collective. @*/
PetscReal AirfoilConvection(const AirfoilGeometry *g, const PetscReal wf[], PetscInt i, PetscInt j,
                            const AirfoilCell *const *x, PetscScalar **q, PetscReal qw, PetscReal qinf)
{
  const PetscInt  ni = g->ni, c = j * ni + (i + ni) % ni;
  const PetscReal Ut = j == g->nc - 1 ? x[j][i].Vt : x[j + 1][i].V;
  const PetscReal qt = j == g->nc - 1 ? AirfoilFarValue(g, wf, i, qinf, q) : 0.5 * (q[j][i] + q[j + 1][i]);
  const PetscReal qb = j == 0 ? qw : 0.5 * (q[j - 1][i] + q[j][i]);

  return (x[j][i + 1].U * 0.5 * (q[j][i] + q[j][i + 1]) - x[j][i].U * 0.5 * (q[j][i - 1] + q[j][i]) + Ut * qt -
          x[j][i].V * qb) /
         g->area[c];
}
