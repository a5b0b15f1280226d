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
      if (g->xs + g->xm == g->M[0]) c[j][g->M[0]] = rule->sigma[0][1] * c[j][g->M[0] - 1] + on * rule->beta[0][1];
    }
  }
  if (!rule->periodic[1]) {
    for (PetscInt i = g->xs; i < g->xs + g->xm; i++) {
      if (g->ys == 0) c[-1][i] = rule->sigma[1][0] * c[0][i] + on * rule->beta[1][0];
      if (g->ys + g->ym == g->M[1]) c[g->M[1]][i] = rule->sigma[1][1] * c[g->M[1] - 1][i] + on * rule->beta[1][1];
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
      if (g->xs + g->xm == g->M[0]) {
        cbar[j][g->M[0] - 1] += rule->sigma[0][1] * cbar[j][g->M[0]];
        cbar[j][g->M[0]] = 0;
      }
    }
  }
  if (!rule->periodic[1]) {
    for (PetscInt i = g->xs; i < g->xs + g->xm; i++) {
      if (g->ys == 0) {
        cbar[0][i] += rule->sigma[1][0] * cbar[-1][i];
        cbar[-1][i] = 0;
      }
      if (g->ys + g->ym == g->M[1]) {
        cbar[g->M[1] - 1][i] += rule->sigma[1][1] * cbar[g->M[1]][i];
        cbar[g->M[1]][i] = 0;
      }
    }
  }
  PetscCall(PetscLogEventEnd(TRANSPORT_GhostsAdj, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Per-cell stencils, shared by the single-term kernels and the fused stage kernel below.
 * Advection, centred face values:
 *   A(c)_ij = -[u_e (c_ij + c_E) - u_w (c_W + c_ij)] / (2 hx) - [v_n (c_ij + c_N) - v_s (c_S + c_ij)] / (2 hy)
 * Diffusion, face diffusivity the mean of its two cells (kf = k_ij + k_nb is twice the face value):
 *   D(k,c)_ij = [kf_e (c_E - c_ij) - kf_w (c_ij - c_W)] / (2 hx^2) + (same in y) / (2 hy^2)  */
typedef struct {
  PetscReal ax, ay, bx, by; /* 1/(2h), 1/(2h^2) */
} TransportStencil;

static inline TransportStencil StencilOf(const TransportGrid *g)
{
  TransportStencil st = {0.5 / g->h[0], 0.5 / g->h[1], 0.5 / (g->h[0] * g->h[0]), 0.5 / (g->h[1] * g->h[1])};
  return st;
}

static inline PetscScalar AdvectionAt(const TransportStencil *st, PetscReal uw, PetscReal ue, PetscReal vs,
                                      PetscReal vn, const PetscScalar *const *c, PetscInt i, PetscInt j)
{
  const PetscScalar cc = c[j][i];
  return -st->ax * (ue * (cc + c[j][i + 1]) - uw * (c[j][i - 1] + cc)) -
         st->ay * (vn * (cc + c[j + 1][i]) - vs * (c[j - 1][i] + cc));
}

/* cbar += r dA_ij/dc */
static inline void AdvectionAtAdjoint(const TransportStencil *st, PetscReal uw, PetscReal ue, PetscReal vs,
                                      PetscReal vn, PetscScalar r, PetscScalar **cbar, PetscInt i, PetscInt j)
{
  const PetscScalar rx = st->ax * r, ry = st->ay * r;
  cbar[j][i] -= rx * (ue - uw) + ry * (vn - vs);
  cbar[j][i + 1] -= rx * ue;
  cbar[j][i - 1] += rx * uw;
  cbar[j + 1][i] -= ry * vn;
  cbar[j - 1][i] += ry * vs;
}

static inline PetscScalar DiffusionAt(const TransportStencil *st, const PetscScalar *const *k,
                                      const PetscScalar *const *c, PetscInt i, PetscInt j)
{
  const PetscScalar kc = k[j][i], cc = c[j][i];
  return st->bx * ((kc + k[j][i + 1]) * (c[j][i + 1] - cc) - (kc + k[j][i - 1]) * (cc - c[j][i - 1])) +
         st->by * ((kc + k[j + 1][i]) * (c[j + 1][i] - cc) - (kc + k[j - 1][i]) * (cc - c[j - 1][i]));
}

/* The 5-point Laplacian L(c)_ij, so that D(k,c) = k L(c) for a uniform diffusivity k. */
static inline PetscScalar LaplacianAt(const TransportStencil *st, const PetscScalar *const *c, PetscInt i, PetscInt j)
{
  const PetscScalar cc = c[j][i];
  return 2 * st->bx * (c[j][i + 1] - 2 * cc + c[j][i - 1]) + 2 * st->by * (c[j + 1][i] - 2 * cc + c[j - 1][i]);
}

/* cbar += r dD_ij/dc, and kbar += r dD_ij/dk when kbar is given. */
static inline void DiffusionAtAdjoint(const TransportStencil *st, const PetscScalar *const *k,
                                      const PetscScalar *const *c, PetscScalar r, PetscScalar **cbar,
                                      PetscScalar **kbar, PetscInt i, PetscInt j)
{
  const PetscScalar rx = st->bx * r, ry = st->by * r, kc = k[j][i];
  const PetscScalar ke = kc + k[j][i + 1], kw = kc + k[j][i - 1], kn = kc + k[j + 1][i], ks = kc + k[j - 1][i];
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

/* cbar += r k dL_ij/dc for a uniform diffusivity k. */
static inline void LaplacianAtAdjoint(const TransportStencil *st, PetscScalar kr, PetscScalar **cbar, PetscInt i,
                                      PetscInt j)
{
  const PetscScalar rx = 2 * st->bx * kr, ry = 2 * st->by * kr;
  cbar[j][i] -= 2 * (rx + ry);
  cbar[j][i + 1] += rx;
  cbar[j][i - 1] += rx;
  cbar[j + 1][i] += ry;
  cbar[j - 1][i] += ry;
}

/* rhs += A(c) */
PetscErrorCode TransportAdvection(const TransportGrid *g, const TransportVelocity *vel, const PetscScalar *const *c,
                                  PetscScalar **rhs)
{
  const TransportStencil st = StencilOf(g);

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(TRANSPORT_Advect, 0, 0, 0, 0));
  for (PetscInt j = g->ys; j < g->ys + g->ym; j++) {
    const PetscReal *uw = &vel->u[FaceU(g, g->xs, j)], *vs = &vel->v[FaceV(g, g->xs, j)], *vn = vs + g->xm;
    for (PetscInt i = g->xs, f = 0; i < g->xs + g->xm; i++, f++)
      rhs[j][i] += AdvectionAt(&st, uw[f], uw[f + 1], vs[f], vn[f], c, i, j);
  }
  PetscCall(PetscLogFlops(12.0 * g->xm * g->ym));
  PetscCall(PetscLogEventEnd(TRANSPORT_Advect, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* cbar += A^T rbar, scattering each cell's adjoint to the five cells its flux balance reads. */
PetscErrorCode TransportAdvectionAdjoint(const TransportGrid *g, const TransportVelocity *vel,
                                         const PetscScalar *const *rbar, PetscScalar **cbar)
{
  const TransportStencil st = StencilOf(g);

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(TRANSPORT_AdvectAdj, 0, 0, 0, 0));
  for (PetscInt j = g->ys; j < g->ys + g->ym; j++) {
    const PetscReal *uw = &vel->u[FaceU(g, g->xs, j)], *vs = &vel->v[FaceV(g, g->xs, j)], *vn = vs + g->xm;
    for (PetscInt i = g->xs, f = 0; i < g->xs + g->xm; i++, f++)
      AdvectionAtAdjoint(&st, uw[f], uw[f + 1], vs[f], vn[f], rbar[j][i], cbar, i, j);
  }
  PetscCall(PetscLogFlops(16.0 * g->xm * g->ym));
  PetscCall(PetscLogEventEnd(TRANSPORT_AdvectAdj, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* rhs += D(kappa, c) */
PetscErrorCode TransportDiffusion(const TransportGrid *g, const PetscScalar *const *kappa, const PetscScalar *const *c,
                                  PetscScalar **rhs)
{
  const TransportStencil st = StencilOf(g);

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(TRANSPORT_Diffuse, 0, 0, 0, 0));
  for (PetscInt j = g->ys; j < g->ys + g->ym; j++)
    for (PetscInt i = g->xs; i < g->xs + g->xm; i++) rhs[j][i] += DiffusionAt(&st, kappa, c, i, j);
  PetscCall(PetscLogFlops(22.0 * g->xm * g->ym));
  PetscCall(PetscLogEventEnd(TRANSPORT_Diffuse, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Transpose of the bilinear diffusion term in both arguments:
 *   cbar += D(kappa)^T rbar,   kbar += (dD/dkappa c)^T rbar   (kbar may be NULL). */
PetscErrorCode TransportDiffusionAdjoint(const TransportGrid *g, const PetscScalar *const *kappa,
                                         const PetscScalar *const *c, const PetscScalar *const *rbar,
                                         PetscScalar **cbar, PetscScalar **kbar)
{
  const TransportStencil st = StencilOf(g);

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(TRANSPORT_DiffuseAdj, 0, 0, 0, 0));
  for (PetscInt j = g->ys; j < g->ys + g->ym; j++)
    for (PetscInt i = g->xs; i < g->xs + g->xm; i++) DiffusionAtAdjoint(&st, kappa, c, rbar[j][i], cbar, kbar, i, j);
  PetscCall(PetscLogFlops(40.0 * g->xm * g->ym));
  PetscCall(PetscLogEventEnd(TRANSPORT_DiffuseAdj, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Fused Runge-Kutta stage, one pass over the cells (the transport step is memory bound):
 *   out = a c0 + b c + gamma [A(c) + D(kappa, c) + s]
 * with D omitted when sc->diffusion is false, a uniform diffusivity sc->kuniform used when
 * sc->kappa is NULL, and the c0 and s terms omitted when their arrays are NULL.
 * Which terms are present is decided once per call, not per cell: TransportStageRow is expanded
 * with those choices as constants (kind: 0 no diffusion, 1 uniform, 2 field; has_s, has_c0), so every
 * variant is a branch-free loop the compiler vectorizes (a per-cell test, reloaded after every store
 * through out, kept it scalar: bench/roofline.sh). The arithmetic, and its order, is that of the
 * single-cell formula for every variant, so the results are the same bit for bit; "+ 0.0" without c0 is
 * kept (it turns a -0 sum into +0, as before). */
typedef enum { STAGE_NO_DIFFUSION, STAGE_UNIFORM_KAPPA, STAGE_KAPPA_FIELD } TransportStageKind;

static ADJ_FORCE_INLINE void TransportStageRow(const TransportGrid *g, const TransportVelocity *vel,
                                               const TransportStageCoeffs *sc, const PetscScalar *const *c,
                                               PetscScalar **out, PetscInt j, TransportStageKind kind, PetscBool has_s,
                                               PetscBool has_c0)
{
  const TransportStencil st = StencilOf(g);
  const PetscReal *const uw = &vel->u[FaceU(g, g->xs, j)], *const vs = &vel->v[FaceV(g, g->xs, j)];
  const PetscReal *const   vn = vs + g->xm;
  const PetscScalar *const s = has_s ? sc->s[j] : NULL, *const c0 = has_c0 ? sc->c0[j] : NULL;
  const PetscScalar  a = sc->a, b = sc->b, gamma = sc->gamma, ku = sc->kuniform;
  PetscScalar *const o = out[j];

  for (PetscInt i = g->xs, f = 0; i < g->xs + g->xm; i++, f++) {
    PetscScalar r = AdvectionAt(&st, uw[f], uw[f + 1], vs[f], vn[f], c, i, j);
    if (kind == STAGE_KAPPA_FIELD) r += DiffusionAt(&st, sc->kappa, c, i, j);
    if (kind == STAGE_UNIFORM_KAPPA) r += ku * LaplacianAt(&st, c, i, j);
    if (has_s) r += s[i];
    o[i] = b * c[j][i] + gamma * r + (has_c0 ? a * c0[i] : 0.0);
  }
}

/* One loop per variant (the constants select it at compile time). */
#define TRANSPORT_STAGE_ROWS(kind, has_s, has_c0)                                                                      \
  for (PetscInt j = g->ys; j < g->ys + g->ym; j++) TransportStageRow(g, vel, sc, c, out, j, kind, has_s, has_c0)
#define TRANSPORT_STAGE_C0(kind, has_s)                                                                                \
  do {                                                                                                                 \
    if (sc->c0)                                                                                                        \
      TRANSPORT_STAGE_ROWS(kind, has_s, PETSC_TRUE);                                                                   \
    else                                                                                                               \
      TRANSPORT_STAGE_ROWS(kind, has_s, PETSC_FALSE);                                                                  \
  } while (0)
#define TRANSPORT_STAGE_S(kind)                                                                                        \
  do {                                                                                                                 \
    if (sc->s)                                                                                                         \
      TRANSPORT_STAGE_C0(kind, PETSC_TRUE);                                                                            \
    else                                                                                                               \
      TRANSPORT_STAGE_C0(kind, PETSC_FALSE);                                                                           \
  } while (0)

PetscErrorCode TransportStage(const TransportGrid *g, const TransportVelocity *vel, const TransportStageCoeffs *sc,
                              const PetscScalar *const *c, PetscScalar **out)
{
  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(TRANSPORT_Stage, 0, 0, 0, 0));
  if (!sc->diffusion)
    TRANSPORT_STAGE_S(STAGE_NO_DIFFUSION);
  else if (sc->kappa)
    TRANSPORT_STAGE_S(STAGE_KAPPA_FIELD);
  else
    TRANSPORT_STAGE_S(STAGE_UNIFORM_KAPPA);
  PetscCall(PetscLogFlops(40.0 * g->xm * g->ym));
  PetscCall(PetscLogEventEnd(TRANSPORT_Stage, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Adjoint of the gamma R(c) part of a stage (the pointwise a, b terms are the caller's):
 *   cbar += gamma (dR/dc)^T y,
 *   kbar += gamma (dR/dkappa)^T y for a diffusivity field (kbar given), or, for a uniform one,
 *   *ksum += gamma <y, L(c)> over the owned cells (D = k L(c) is linear in k). */
PetscErrorCode TransportStageAdjoint(const TransportGrid *g, const TransportVelocity *vel,
                                     const TransportStageCoeffs *sc, const PetscScalar *const *c,
                                     const PetscScalar *const *y, PetscScalar **cbar, PetscScalar **kbar,
                                     PetscScalar *ksum)
{
  const TransportStencil st  = StencilOf(g);
  PetscScalar            sum = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(TRANSPORT_StageAdj, 0, 0, 0, 0));
  for (PetscInt j = g->ys; j < g->ys + g->ym; j++) {
    const PetscReal *uw = &vel->u[FaceU(g, g->xs, j)], *vs = &vel->v[FaceV(g, g->xs, j)], *vn = vs + g->xm;
    for (PetscInt i = g->xs, f = 0; i < g->xs + g->xm; i++, f++) {
      const PetscScalar r = sc->gamma * y[j][i];
      AdvectionAtAdjoint(&st, uw[f], uw[f + 1], vs[f], vn[f], r, cbar, i, j);
      if (!sc->diffusion) continue;
      if (sc->kappa)
        DiffusionAtAdjoint(&st, sc->kappa, c, r, cbar, kbar, i, j);
      else {
        LaplacianAtAdjoint(&st, sc->kuniform * r, cbar, i, j);
        if (ksum) sum += r * LaplacianAt(&st, c, i, j);
      }
    }
  }
  if (ksum) *ksum += sum;
  PetscCall(PetscLogFlops(60.0 * g->xm * g->ym));
  PetscCall(PetscLogEventEnd(TRANSPORT_StageAdj, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
