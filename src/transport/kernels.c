/* Scalar-transport kernels on DMDA arrays, each forward kernel followed by its adjoint.
 *
 * Arrays are indexed a[j][i] with global cell indices (DMDAVecGetArray).  Forward kernels read a
 * ghosted local array and add into an owned array; adjoint kernels read an owned array and add
 * into a ghosted local array, which the caller folds back to the owners with
 * DMLocalToGlobal(ADD_VALUES): the adjoint of the halo exchange. */
#include "transportimpl.h"

/* Index of the x-face left of cell (i,j) / y-face below cell (i,j) in the rank-local face arrays. */
static inline PetscInt FaceU(const TransportGrid *g, PetscInt i, PetscInt j)
{
  return (j - g->ys) * (g->xm + 1) + (i - g->xs);
}
static inline PetscInt FaceV(const TransportGrid *g, PetscInt i, PetscInt j)
{
  return (j - g->ys) * g->xm + (i - g->xs);
}

/* ghost = sigma * inner + beta on each physical (non-periodic) boundary.  Affine; with
 * homogeneous = PETSC_TRUE the beta terms are dropped, leaving the linear part. */
PetscErrorCode TransportFillGhosts(const TransportGrid *g, const TransportGhostRule *rule, PetscBool homogeneous,
                                   PetscScalar **c)
{
  const PetscReal on = homogeneous ? 0.0 : 1.0;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(TRANSPORT_Ghosts, 0, 0, 0, 0));
  if (!rule->periodic[0]) {
    for (PetscInt j = g->ys; j < g->ys + g->ym; j++) {
      if (g->xs == 0) c[j][-1] = rule->sigma[0][0] * c[j][0] + on * rule->beta[0][0];
      if (g->xs + g->xm == g->Mx) c[j][g->Mx] = rule->sigma[0][1] * c[j][g->Mx - 1] + on * rule->beta[0][1];
    }
  }
  if (!rule->periodic[1]) {
    for (PetscInt i = g->xs; i < g->xs + g->xm; i++) {
      if (g->ys == 0) c[-1][i] = rule->sigma[1][0] * c[0][i] + on * rule->beta[1][0];
      if (g->ys + g->ym == g->My) c[g->My][i] = rule->sigma[1][1] * c[g->My - 1][i] + on * rule->beta[1][1];
    }
  }
  PetscCall(PetscLogEventEnd(TRANSPORT_Ghosts, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Transpose of the linear part: inner += sigma * ghost, ghost = 0. */
PetscErrorCode TransportFillGhostsAdjoint(const TransportGrid *g, const TransportGhostRule *rule, PetscScalar **cbar)
{
  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(TRANSPORT_GhostsAdj, 0, 0, 0, 0));
  if (!rule->periodic[0]) {
    for (PetscInt j = g->ys; j < g->ys + g->ym; j++) {
      if (g->xs == 0) {
        cbar[j][0] += rule->sigma[0][0] * cbar[j][-1];
        cbar[j][-1] = 0;
      }
      if (g->xs + g->xm == g->Mx) {
        cbar[j][g->Mx - 1] += rule->sigma[0][1] * cbar[j][g->Mx];
        cbar[j][g->Mx] = 0;
      }
    }
  }
  if (!rule->periodic[1]) {
    for (PetscInt i = g->xs; i < g->xs + g->xm; i++) {
      if (g->ys == 0) {
        cbar[0][i] += rule->sigma[1][0] * cbar[-1][i];
        cbar[-1][i] = 0;
      }
      if (g->ys + g->ym == g->My) {
        cbar[g->My - 1][i] += rule->sigma[1][1] * cbar[g->My][i];
        cbar[g->My][i] = 0;
      }
    }
  }
  PetscCall(PetscLogEventEnd(TRANSPORT_GhostsAdj, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* rhs += -div(u c) with centred face values:
 *   rhs_ij += -[u_{i+1/2}(c_i + c_{i+1}) - u_{i-1/2}(c_{i-1} + c_i)] / (2 hx)  - (same in y) / (2 hy) */
PetscErrorCode TransportAdvection(const TransportGrid *g, const TransportVelocity *vel, const PetscScalar *const *c,
                                  PetscScalar **rhs)
{
  const PetscReal ax = 0.5 / g->hx, ay = 0.5 / g->hy;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(TRANSPORT_Advect, 0, 0, 0, 0));
  for (PetscInt j = g->ys; j < g->ys + g->ym; j++) {
    const PetscReal *uw = &vel->u[FaceU(g, g->xs, j)], *vs = &vel->v[FaceV(g, g->xs, j)], *vn = vs + g->xm;
    for (PetscInt i = g->xs, f = 0; i < g->xs + g->xm; i++, f++) {
      const PetscScalar cc = c[j][i];
      rhs[j][i] -= ax * (uw[f + 1] * (cc + c[j][i + 1]) - uw[f] * (c[j][i - 1] + cc)) +
                   ay * (vn[f] * (cc + c[j + 1][i]) - vs[f] * (c[j - 1][i] + cc));
    }
  }
  PetscCall(PetscLogEventEnd(TRANSPORT_Advect, 0, 0, 0, 0));
  PetscCall(PetscLogFlops(12.0 * g->xm * g->ym));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* cbar += A_adv^T rbar, scattering each cell's adjoint to the five cells its flux balance reads. */
PetscErrorCode TransportAdvectionAdjoint(const TransportGrid *g, const TransportVelocity *vel,
                                         const PetscScalar *const *rbar, PetscScalar **cbar)
{
  const PetscReal ax = 0.5 / g->hx, ay = 0.5 / g->hy;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(TRANSPORT_AdvectAdj, 0, 0, 0, 0));
  for (PetscInt j = g->ys; j < g->ys + g->ym; j++) {
    const PetscReal *uw = &vel->u[FaceU(g, g->xs, j)], *vs = &vel->v[FaceV(g, g->xs, j)], *vn = vs + g->xm;
    for (PetscInt i = g->xs, f = 0; i < g->xs + g->xm; i++, f++) {
      const PetscScalar rx = ax * rbar[j][i], ry = ay * rbar[j][i];
      cbar[j][i] -= rx * (uw[f + 1] - uw[f]) + ry * (vn[f] - vs[f]);
      cbar[j][i + 1] -= rx * uw[f + 1];
      cbar[j][i - 1] += rx * uw[f];
      cbar[j + 1][i] -= ry * vn[f];
      cbar[j - 1][i] += ry * vs[f];
    }
  }
  PetscCall(PetscLogEventEnd(TRANSPORT_AdvectAdj, 0, 0, 0, 0));
  PetscCall(PetscLogFlops(16.0 * g->xm * g->ym));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* rhs += div(kappa grad c), face diffusivity the mean of its two cells:
 *   rhs_ij += [k_{i+1/2}(c_{i+1} - c_i) - k_{i-1/2}(c_i - c_{i-1})] / hx^2 + (same in y) / hy^2 */
PetscErrorCode TransportDiffusion(const TransportGrid *g, const PetscScalar *const *kappa, const PetscScalar *const *c,
                                  PetscScalar **rhs)
{
  const PetscReal bx = 0.5 / (g->hx * g->hx), by = 0.5 / (g->hy * g->hy);

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(TRANSPORT_Diffuse, 0, 0, 0, 0));
  for (PetscInt j = g->ys; j < g->ys + g->ym; j++) {
    for (PetscInt i = g->xs; i < g->xs + g->xm; i++) {
      const PetscScalar k = kappa[j][i], cc = c[j][i];
      rhs[j][i] += bx * ((k + kappa[j][i + 1]) * (c[j][i + 1] - cc) - (k + kappa[j][i - 1]) * (cc - c[j][i - 1])) +
                   by * ((k + kappa[j + 1][i]) * (c[j + 1][i] - cc) - (k + kappa[j - 1][i]) * (cc - c[j - 1][i]));
    }
  }
  PetscCall(PetscLogEventEnd(TRANSPORT_Diffuse, 0, 0, 0, 0));
  PetscCall(PetscLogFlops(22.0 * g->xm * g->ym));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Transpose of the bilinear diffusion term in both arguments:
 *   cbar += D(kappa)^T rbar,   kbar += (dD/dkappa c)^T rbar   (kbar may be NULL). */
PetscErrorCode TransportDiffusionAdjoint(const TransportGrid *g, const PetscScalar *const *kappa,
                                         const PetscScalar *const *c, const PetscScalar *const *rbar, PetscScalar **cbar,
                                         PetscScalar **kbar)
{
  const PetscReal bx = 0.5 / (g->hx * g->hx), by = 0.5 / (g->hy * g->hy);

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(TRANSPORT_DiffuseAdj, 0, 0, 0, 0));
  for (PetscInt j = g->ys; j < g->ys + g->ym; j++) {
    for (PetscInt i = g->xs; i < g->xs + g->xm; i++) {
      const PetscScalar rx = bx * rbar[j][i], ry = by * rbar[j][i], k = kappa[j][i];
      const PetscScalar ke = k + kappa[j][i + 1], kw = k + kappa[j][i - 1], kn = k + kappa[j + 1][i],
                        ks = k + kappa[j - 1][i];
      cbar[j][i] -= rx * (ke + kw) + ry * (kn + ks);
      cbar[j][i + 1] += rx * ke;
      cbar[j][i - 1] += rx * kw;
      cbar[j + 1][i] += ry * kn;
      cbar[j - 1][i] += ry * ks;
      if (kbar) {
        const PetscScalar de = rx * (c[j][i + 1] - c[j][i]), dw = rx * (c[j][i] - c[j][i - 1]);
        const PetscScalar dn = ry * (c[j + 1][i] - c[j][i]), ds = ry * (c[j][i] - c[j - 1][i]);
        kbar[j][i] += de - dw + dn - ds;
        kbar[j][i + 1] += de;
        kbar[j][i - 1] -= dw;
        kbar[j + 1][i] += dn;
        kbar[j - 1][i] -= ds;
      }
    }
  }
  PetscCall(PetscLogEventEnd(TRANSPORT_DiffuseAdj, 0, 0, 0, 0));
  PetscCall(PetscLogFlops(40.0 * g->xm * g->ym));
  PetscFunctionReturn(PETSC_SUCCESS);
}
