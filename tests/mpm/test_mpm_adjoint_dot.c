/* Dot-product tests of the MPM transfer adjoints (transfer.c, grid.c, walls.c, contact.c, exchange.c, step.c):
 *   <T du, y> = <du, T^T y>   to 1e-12 relative to |T du| |y|,
 * with T the tangent-linear model of each kernel, written here independently of the adjoints (forward
 * mode, by hand) and itself checked against central differences of the forward kernel (1e-6):
 *   P2G (x, v, C, F, mass, E, nu -> node mass and momentum), the obstacle contact kernel (v, mu -> v';
 *   sticky, slip, friction), grid update (mass, momentum, gravity, mu -> velocity; sticky, slip and
 *   friction walls, plane and circle obstacles, empty nodes), G2P (x, F, node velocities -> x, v, C, F),
 *   the particle exchange both ways, and the whole distributed step (state and E, nu, rho, gravity)
 *   on a state whose particles cross rank boundaries.  Run on 1, 2 and 4 ranks. */
#include "mpmtangent.h"
#include "adjtest.h"

#define NP_KERNEL 40
/* Built with MPM_TEST_ZMODEL (test mpm_adjoint_dot_z): label 1 and the kernel tests' model 1 are test-damage
 * (mpmtestmodel.h, 2 internal-state reals), so that z is in the state, the exchange and every adjoint. */
/* Built with MPM_TEST_J2 (test mpm_adjoint_dot_j2): label 1 and the kernel tests' model 1 are j2 (von Mises
 * plasticity, 6 internal-state reals, src/mpm/models/j2.c), with yield stresses that make part of the particles
 * yield, and sigma_y, H perturbed in the material direction. */
/* Built with MPM_TEST_DP (test mpm_adjoint_dot_dp): the same with drucker-prager (granular plasticity, 6 reals,
 * src/mpm/models/druckerprager.c), cohesions that make part of the particles yield, and friction_angle, cohesion
 * perturbed in the material direction. */
#if defined(MPM_TEST_ZMODEL)
#  define NZ_KERNEL    2
#  define LABEL_MODELS "fixed-corotated,test-damage"
#elif defined(MPM_TEST_J2)
#  define NZ_KERNEL    6
#  define LABEL_MODELS "fixed-corotated,j2"
#elif defined(MPM_TEST_DP)
#  define NZ_KERNEL    6
#  define LABEL_MODELS "fixed-corotated,drucker-prager"
#else
#  define NZ_KERNEL    0
#  define LABEL_MODELS "fixed-corotated,neo-hookean"
#endif
#define NZ_MAX 6

/* dw/dt of the quadratic B-spline weights (base fixed). */
static void BSplineTangent(PetscReal t, PetscReal dw[MPM_STENCIL])
{
  const PetscReal f = t - PetscFloorReal(t - 0.5);

  dw[0] = -(1.5 - f), dw[1] = -2.0 * (f - 1.0), dw[2] = f - 0.5;
}

/* Weights, their tangents and the offsets' tangents of one particle. */
typedef struct {
  PetscInt  base[MPM_DIM];
  PetscReal w[MPM_DIM][MPM_STENCIL], dw[MPM_DIM][MPM_STENCIL], f[MPM_DIM];
} Stencil;

static void StencilTangent(const MPMGrid *g, const PetscScalar x[], const PetscScalar dx[], Stencil *s)
{
  for (PetscInt d = 0; d < MPM_DIM; d++) {
    PetscReal dwdt[MPM_STENCIL];
    MPMBSpline(x[d] / g->h[d], &s->base[d], s->w[d], &s->f[d]);
    BSplineTangent(x[d] / g->h[d], dwdt);
    for (PetscInt o = 0; o < MPM_STENCIL; o++) s->dw[d][o] = dwdt[o] * dx[d] / g->h[d];
  }
}

/* Tangent of MPMParticleToGrid: dnodes += d(m_i, P_i), dznew = dz' (nz reals per particle; the reals beyond
 * the model's nstate are copied; z, dz, dznew NULL when nz = 0, dznew NULL: not wanted). */
static void P2GTangent(const MPMGrid *g, PetscReal dt, PetscInt n, const MPMParticle p[], const MPMMaterialPoint mat[],
                       PetscInt nz, const PetscScalar z[], const PetscScalar dz[], PetscScalar dznew[],
                       const MPMParticle dp[], const MPMMaterialPoint dmat[], MPMNode **dnodes)
{
  for (PetscInt q = 0; q < n; q++) {
    Stencil            s;
    Mat2               tau, dtau, A, dA;
    const PetscReal    m = mat[q].mass, dm = dmat[q].mass;
    const PetscInt     ns = MPMMaterialModel(&mat[q])->nstate;
    const PetscScalar *zq = nz ? z + q * nz : NULL, *dzq = nz ? dz + q * nz : NULL;
    PetscScalar        scratch[NZ_MAX + 1], *dznq        = dznew ? dznew + q * nz : scratch;

    StencilTangent(g, p[q].x, dp[q].x, &s);
    MPMKirchhoff(&mat[q], p[q].F, zq, tau);
    KirchhoffTangent(&mat[q], &dmat[q], p[q].F, ns ? zq : NULL, dp[q].F, ns ? dzq : NULL, dtau, ns ? dznq : NULL);
    for (PetscInt k = ns; k < nz; k++) dznq[k] = dzq[k];
    for (PetscInt a = 0; a < MPM_DIM; a++)
      for (PetscInt b = 0; b < MPM_DIM; b++) {
        const PetscReal Dinv = 4.0 / (g->h[b] * g->h[b]);
        A[a][b]              = m * p[q].C[a][b] - dt * mat[q].volume * tau[a][b] * Dinv;
        dA[a][b]             = dm * p[q].C[a][b] + m * dp[q].C[a][b] - dt * mat[q].volume * dtau[a][b] * Dinv;
      }
    for (PetscInt j = 0; j < MPM_STENCIL; j++)
      for (PetscInt i = 0; i < MPM_STENCIL; i++) {
        const PetscReal wt            = s.w[0][i] * s.w[1][j];
        const PetscReal dwt           = s.dw[0][i] * s.w[1][j] + s.w[0][i] * s.dw[1][j];
        const PetscReal off[MPM_DIM]  = {(i - s.f[0]) * g->h[0], (j - s.f[1]) * g->h[1]};
        const PetscReal doff[MPM_DIM] = {-dp[q].x[0], -dp[q].x[1]};
        MPMNode        *nd            = &dnodes[s.base[1] + j][s.base[0] + i];

        nd->m += dwt * m + wt * dm;
        for (PetscInt a = 0; a < MPM_DIM; a++) {
          const PetscReal val  = m * p[q].v[a] + A[a][0] * off[0] + A[a][1] * off[1];
          const PetscReal dval = dm * p[q].v[a] + m * dp[q].v[a] + dA[a][0] * off[0] + dA[a][1] * off[1] +
                                 A[a][0] * doff[0] + A[a][1] * doff[1];
          nd->p[a] += dwt * val + wt * dval;
        }
      }
  }
}

/* Tangent of one friction wall (outward normal sgn e_d) at v, written from the implicit equation
 * vt' + c phi(vt') = vt, c = mu s(vn), vn' = vn - s(vn) + eps/2: v and dv in, v', dv' out; dmu the
 * perturbation of mu. */
static void FrictionTangent(PetscReal mu, PetscReal dmu, PetscReal eps, PetscInt d, PetscReal sgn, PetscScalar v[],
                            PetscScalar dv[])
{
  const PetscInt  t  = 1 - d;
  const PetscReal vn = sgn * v[d], dvn = sgn * dv[d], rt = PetscSqrtReal(vn * vn + eps * eps);
  const PetscReal s = 0.5 * (vn + rt), ds = 0.5 * (1 + vn / rt) * dvn, c = mu * s, dc = dmu * s + mu * ds;
  PetscReal       u, q;

  (void)MPMFrictionWall(mu, eps, d, sgn, v);
  u     = v[t];
  q     = PetscSqrtReal(u * u + eps * eps);
  dv[t] = (dv[t] - dc * u / q) / (1 + c * eps * eps / (q * q * q));
  dv[d] = sgn * (dvn - ds);
}

/* Tangent of the obstacle contact v' = (1 - s) v + s vc(v) at a node with weight s and outward normal n:
 * vc = 0 (sticky) or the friction wall's update with normal -n (slip: mu = 0), written in the frame
 * (-n, (-n1, n0)) (the kernel uses the opposite tangent; the law is symmetric in it).  v, dv in/out. */
static void ObstacleTangent(MPMWallType type, PetscReal s, const PetscReal n[], PetscReal mu, PetscReal dmu,
                            PetscReal eps, PetscScalar v[], PetscScalar dv[])
{
  const PetscReal e[2][2] = {{-n[0], -n[1]}, {-n[1], n[0]}};
  PetscScalar     vc[2] = {0, 0}, dvc[2] = {0, 0};

  if (type != MPM_WALL_STICKY) {
    const PetscBool fr    = (PetscBool)(type == MPM_WALL_FRICTION);
    PetscScalar     w[2]  = {e[0][0] * v[0] + e[0][1] * v[1], e[1][0] * v[0] + e[1][1] * v[1]};
    PetscScalar     dw[2] = {e[0][0] * dv[0] + e[0][1] * dv[1], e[1][0] * dv[0] + e[1][1] * dv[1]};

    FrictionTangent(fr ? mu : 0, fr ? dmu : 0, eps, 0, 1.0, w, dw);
    for (PetscInt a = 0; a < 2; a++)
      vc[a] = w[0] * e[0][a] + w[1] * e[1][a], dvc[a] = dw[0] * e[0][a] + dw[1] * e[1][a];
  }
  for (PetscInt a = 0; a < 2; a++) v[a] = (1 - s) * v[a] + s * vc[a], dv[a] = (1 - s) * dv[a] + s * dvc[a];
}

/* Contact weight of a node at x for obstacle o (written here from the definition, not the kernel's helper):
 * phi = signed distance, s = 1 - smoothstep5(phi / width) clamped to [0, 1]; n the outward normal. */
static PetscReal ObstacleWeight(const MPMObstacle *o, PetscReal width, const PetscReal x[], PetscReal n[])
{
  PetscReal phi, t;

  const PetscReal *q = o->shape.p; /* x0, y0, alpha (0 here), then nx, ny (plane) or R (circle) */

  if (o->shape.type == ADJ_SHAPE_PLANE) {
    n[0] = q[3], n[1] = q[4];
    phi = (x[0] - q[0]) * n[0] + (x[1] - q[1]) * n[1];
  } else {
    const PetscReal r = PetscHypotReal(x[0] - q[0], x[1] - q[1]);
    n[0] = (x[0] - q[0]) / r, n[1] = (x[1] - q[1]) / r;
    phi = r - q[3];
  }
  t = PetscMin(1.0, PetscMax(0.0, phi / width));
  return 1 - t * t * t * (6 * t * t - 15 * t + 10);
}

/* The walls, then the obstacles, as the forward applies them (a copy, so that the test does not share the
 * kernel's helper), with their tangent: v, dv in/out. */
static void Walls(const MPMGrid *g, PetscReal dmu, PetscInt i, PetscInt j, PetscScalar v[], PetscScalar dv[])
{
  const PetscInt idx[2] = {i, j};
  for (PetscInt d = 0; d < MPM_DIM; d++)
    for (PetscInt side = 0; side < 2; side++) {
      if (!(side == 0 ? idx[d] < g->wall_width : idx[d] > g->M[d] - g->wall_width)) continue;
      if (g->wall[d][side] == MPM_WALL_STICKY)
        v[0] = v[1] = dv[0] = dv[1] = 0;
      else if (g->wall[d][side] == MPM_WALL_SLIP)
        v[d] = dv[d] = 0;
      else if (g->wall[d][side] == MPM_WALL_FRICTION)
        FrictionTangent(g->friction, dmu, g->friction_smoothing, d, side == 0 ? -1.0 : 1.0, v, dv);
    }
  for (PetscInt k = 0; k < g->nobstacles; k++) {
    const PetscReal x[2] = {i * g->h[0], j * g->h[1]};
    PetscReal       n[2], s = ObstacleWeight(&g->obstacle[k], g->obstacle_width, x, n);

    ObstacleTangent(g->obstacle[k].type, s, n, g->friction, dmu, g->friction_smoothing, v, dv);
  }
}

/* Tangent of MPMGridUpdate on the owned nodes: in = (m, P) before the update, din, dg, dmu (friction);
 * out: dout = (dm, dv). */
static void GridTangent(const MPMGrid *g, PetscReal dt, const PetscReal gravity[], const MPMNode *const *in,
                        const MPMNode *const *din, const PetscReal dg[], PetscReal dmu, MPMNode **dout)
{
  for (PetscInt j = g->s[1]; j < g->s[1] + g->m[1]; j++)
    for (PetscInt i = g->s[0]; i < g->s[0] + g->m[0]; i++) {
      const MPMNode *a = &in[j][i], *da = &din[j][i];
      MPMNode       *o = &dout[j][i];
      PetscScalar    v[MPM_DIM];

      o->m = da->m;
      for (PetscInt c = 0; c < MPM_DIM; c++) {
        v[c]    = a->m > 0 ? a->p[c] / a->m + dt * gravity[c] : 0;
        o->p[c] = a->m > 0 ? da->p[c] / a->m - a->p[c] * da->m / (a->m * a->m) + dt * dg[c] : 0;
      }
      Walls(g, dmu, i, j, v, o->p);
    }
}

/* Tangent of MPMGridToParticle: dpout from dpin (x, F) and the node velocity tangents dnodes. */
static void G2PTangent(const MPMGrid *g, PetscReal dt, PetscInt n, const MPMParticle pin[], const MPMNode *const *nodes,
                       const MPMParticle dpin[], const MPMNode *const *dnodes, MPMParticle dpout[])
{
  for (PetscInt q = 0; q < n; q++) {
    Stencil   s;
    Mat2      B = {{0, 0}, {0, 0}}, dB = {{0, 0}, {0, 0}}, C, dC;
    PetscReal v[MPM_DIM] = {0, 0}, dv[MPM_DIM] = {0, 0};

    StencilTangent(g, pin[q].x, dpin[q].x, &s);
    for (PetscInt j = 0; j < MPM_STENCIL; j++)
      for (PetscInt i = 0; i < MPM_STENCIL; i++) {
        const PetscReal wt            = s.w[0][i] * s.w[1][j];
        const PetscReal dwt           = s.dw[0][i] * s.w[1][j] + s.w[0][i] * s.dw[1][j];
        const PetscReal off[MPM_DIM]  = {(i - s.f[0]) * g->h[0], (j - s.f[1]) * g->h[1]};
        const PetscReal doff[MPM_DIM] = {-dpin[q].x[0], -dpin[q].x[1]};
        const MPMNode  *nd = &nodes[s.base[1] + j][s.base[0] + i], *dnd = &dnodes[s.base[1] + j][s.base[0] + i];

        for (PetscInt a = 0; a < MPM_DIM; a++) {
          v[a] += wt * nd->p[a];
          dv[a] += dwt * nd->p[a] + wt * dnd->p[a];
          for (PetscInt b = 0; b < MPM_DIM; b++) {
            B[a][b] += wt * nd->p[a] * off[b];
            dB[a][b] += dwt * nd->p[a] * off[b] + wt * dnd->p[a] * off[b] + wt * nd->p[a] * doff[b];
          }
        }
      }
    for (PetscInt a = 0; a < MPM_DIM; a++) {
      dpout[q].v[a] = dv[a];
      dpout[q].x[a] = dpin[q].x[a] + dt * dv[a];
      for (PetscInt b = 0; b < MPM_DIM; b++) {
        C[a][b]          = B[a][b] * 4.0 / (g->h[b] * g->h[b]);
        dC[a][b]         = dB[a][b] * 4.0 / (g->h[b] * g->h[b]);
        dpout[q].C[a][b] = dC[a][b];
      }
    }
    for (PetscInt a = 0; a < MPM_DIM; a++)
      for (PetscInt b = 0; b < MPM_DIM; b++) {
        PetscReal t = dpin[q].F[a][b];
        for (PetscInt k = 0; k < MPM_DIM; k++) t += dt * (dC[a][k] * pin[q].F[k][b] + C[a][k] * dpin[q].F[k][b]);
        dpout[q].F[a][b] = t;
      }
  }
}

/* ---- helpers on flat arrays ---- */
static PetscReal FlatDot(PetscInt n, const void *a, const void *b)
{
  const PetscReal *x = (const PetscReal *)a, *y = (const PetscReal *)b;
  PetscReal        s = 0;
  for (PetscInt i = 0; i < n; i++) s += x[i] * y[i];
  return s;
}

static PetscReal GlobalSum(PetscReal v)
{
  PetscReal g;
  MPI_Allreduce(&v, &g, 1, MPIU_REAL, MPIU_SUM, PETSC_COMM_WORLD);
  return g;
}

static PetscErrorCode FlatRandom(PetscRandom rnd, PetscInt n, void *a, PetscReal scale)
{
  PetscReal *x = (PetscReal *)a;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < n; i++) {
    PetscScalar r;
    PetscCall(PetscRandomGetValue(rnd, &r));
    x[i] = scale * r;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A full node array [(M1+1)][(M0+1)] on this rank (the kernel tests do not use the DMDA). */
static PetscErrorCode NodesCreate(const MPMGrid *g, MPMNode ***nodes)
{
  MPMNode *mem;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(g->M[1] + 1, nodes));
  PetscCall(PetscCalloc1((g->M[0] + 1) * (g->M[1] + 1), &mem));
  for (PetscInt j = 0; j <= g->M[1]; j++) (*nodes)[j] = mem + j * (g->M[0] + 1);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode NodesDestroy(MPMNode ***nodes)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree((*nodes)[0]));
  PetscCall(PetscFree(*nodes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define NODES_N(g) ((g)->M[0] + 1) * ((g)->M[1] + 1) * MPM_NNODE

static void NodesZero(const MPMGrid *g, MPMNode **a)
{
  PetscArrayzero(a[0], (g->M[0] + 1) * (g->M[1] + 1));
}

/* Random particles (positions in the interior, F with J > 0.3) with random materials of both models. */
static PetscErrorCode RandomParticles(PetscRandom rnd, const MPMGrid *g, PetscInt n, MPMParticle p[],
                                      MPMMaterialPoint mat[])
{
  PetscFunctionBeginUser;
  for (PetscInt q = 0; q < n; q++) {
    PetscScalar r;

    do {
      PetscCall(FlatRandom(rnd, MPM_NSTATE, &p[q], 1.0));
      for (PetscInt d = 0; d < MPM_DIM; d++) p[q].x[d] = g->L[d] * (0.5 + 0.4 * p[q].x[d]);
      for (PetscInt a = 0; a < MPM_DIM; a++)
        for (PetscInt b = 0; b < MPM_DIM; b++) p[q].F[a][b] = (a == b) + 0.3 * p[q].F[a][b];
    } while (MPMDeterminant(p[q].F) < 0.3);
    PetscCall(PetscRandomGetValue(rnd, &r));
    mat[q].volume = 0.25 * g->h[0] * g->h[1];
    mat[q].mass   = (1000 + 300 * r) * mat[q].volume;
    mat[q].E      = 1e4 * (1.5 + r);
    PetscCall(PetscRandomGetValue(rnd, &r));
    mat[q].nu    = 0.25 + 0.15 * r;
    mat[q].label = 0;
    mat[q].model = q % 2;
#if defined(MPM_TEST_J2)
    mat[q].model = q % 2 ? MPM_MODEL_J2 : MPM_MODEL_FIXED_COROTATED;
    PetscCall(PetscRandomGetValue(rnd, &r));
    mat[q].sigma_y = 4e3 * (1.5 + r), mat[q].H = 2e3, mat[q].yield_smoothing = 0.2;
#elif defined(MPM_TEST_DP)
    mat[q].model = q % 2 ? MPM_MODEL_DRUCKER_PRAGER : MPM_MODEL_FIXED_COROTATED;
    PetscCall(PetscRandomGetValue(rnd, &r));
    mat[q].friction_angle = 30 + 8 * r, mat[q].yield_smoothing = 0.2;
    PetscCall(PetscRandomGetValue(rnd, &r));
    mat[q].cohesion = 3e3 * (1 + r);
#endif
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(MPM_TEST_DP)
/* The drucker-prager particles' states near the virgin one (Fp^-1 = I + 0.1 r, e_zz = 0.1 r, alpha = 0.1 |r|) and
 * directions of their friction angle and cohesion; both elastic and plastic particles must occur in P2G. */
static PetscErrorCode DPKernelStates(PetscInt n, const MPMParticle p[], const MPMMaterialPoint mat[], PetscScalar z[],
                                     MPMMaterialPoint dmat[], PetscInt *fail)
{
  PetscInt nyield = 0, ndp = 0;
  char     name[112];

  PetscFunctionBeginUser;
  for (PetscInt q = 0; q < n; q++) {
    PetscScalar *zq = z + q * NZ_KERNEL, znew[MPM_MODEL_MAX_STATE];
    Mat2         tau;

    if ((PetscInt)mat[q].model != MPM_MODEL_DRUCKER_PRAGER) continue;
    zq[0] += 1, zq[3] += 1, zq[5] = PetscAbsReal(zq[5]);
    dmat[q].friction_angle = 20 * zq[1], dmat[q].cohesion = mat[q].cohesion * zq[2];
    MPMModelDruckerPrager.kirchhoff(&mat[q], p[q].F, zq, tau, znew);
    ndp++;
    nyield += znew[5] > zq[5];
  }
  PetscCall(PetscSNPrintf(name, sizeof(name),
                          "drucker-prager kernel particles yielding: %" PetscInt_FMT " of %" PetscInt_FMT
                          " (need some of each)",
                          nyield, ndp));
  PetscCall(MPMTestReport(name, nyield > 0 && nyield < ndp ? 0 : 1, 0.5, fail));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

#if defined(MPM_TEST_J2)
/* The j2 particles' states near the virgin one (Fp^-1 = I + 0.1 r, e_zz = 0.1 r, alpha = 0.1 |r|) and directions of
 * their sigma_y, H; both branches must occur (some j2 particles yield in P2G, some do not). */
static PetscErrorCode J2KernelStates(PetscInt n, const MPMParticle p[], const MPMMaterialPoint mat[], PetscScalar z[],
                                     MPMMaterialPoint dmat[], PetscInt *fail)
{
  PetscInt nyield = 0, nj2 = 0;
  char     name[96];

  PetscFunctionBeginUser;
  for (PetscInt q = 0; q < n; q++) {
    PetscScalar *zq = z + q * NZ_KERNEL, znew[MPM_MODEL_MAX_STATE];
    Mat2         tau;

    if ((PetscInt)mat[q].model != MPM_MODEL_J2) continue;
    zq[0] += 1, zq[3] += 1, zq[5] = PetscAbsReal(zq[5]);
    dmat[q].sigma_y = mat[q].sigma_y * zq[1], dmat[q].H = mat[q].H * zq[2];
    MPMModelJ2.kirchhoff(&mat[q], p[q].F, zq, tau, znew);
    nj2++;
    nyield += znew[5] > zq[5];
  }
  PetscCall(PetscSNPrintf(
      name, sizeof(name),
      "j2 kernel particles yielding: %" PetscInt_FMT " of %" PetscInt_FMT " (need some of each branch)", nyield, nj2));
  PetscCall(MPMTestReport(name, nyield > 0 && nyield < nj2 ? 0 : 1, 0.5, fail));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* Relative max-norm gap between a tangent and central differences, over n reals: NaN when an entry is NaN, infinite
 * when the tangent is zero (a zero tangent against zero differences tests nothing). */
static PetscReal FDGap(PetscInt n, const void *tangent, const void *plus, const void *minus, PetscReal h)
{
  const PetscReal *t = (const PetscReal *)tangent, *a = (const PetscReal *)plus, *b = (const PetscReal *)minus;
  PetscReal        gap = 0, scale = 0;
  for (PetscInt i = 0; i < n; i++) {
    gap   = AdjTestMax(gap, PetscAbsReal((a[i] - b[i]) / (2 * h) - t[i]));
    scale = AdjTestMax(scale, PetscAbsReal(t[i]));
  }
  return AdjTestRelative(gap, scale);
}

/* Kernel-level tests on local arrays (every rank its own random particles; sums over ranks). */
static PetscErrorCode KernelTests(MPM mpm, PetscInt *fail)
{
  MPMGrid         g  = mpm->grid; /* full local grid: every rank updates every node */
  const PetscReal dt = 2e-3, h = 1e-6;
  const PetscInt  n = NP_KERNEL, nn = NODES_N(&mpm->grid);
  PetscRandom     rnd;
  MPMParticle p[NP_KERNEL], dp[NP_KERNEL], pb[NP_KERNEL], pp[NP_KERNEL], pm[NP_KERNEL], out[NP_KERNEL], dout[NP_KERNEL],
      outb[NP_KERNEL], outp[NP_KERNEL], outm[NP_KERNEL];
  MPMMaterialPoint mat[NP_KERNEL], dmat[NP_KERNEL], matb[NP_KERNEL], matp[NP_KERNEL], matm[NP_KERNEL];
  const PetscInt   nz = NZ_KERNEL;
  PetscScalar      z[NP_KERNEL * NZ_MAX + 1], dz[NP_KERNEL * NZ_MAX + 1], zb[NP_KERNEL * NZ_MAX + 1],
      znb[NP_KERNEL * NZ_MAX + 1], dzn[NP_KERNEL * NZ_MAX + 1], zp[NP_KERNEL * NZ_MAX + 1], zm[NP_KERNEL * NZ_MAX + 1],
      znp[NP_KERNEL * NZ_MAX + 1], znm[NP_KERNEL * NZ_MAX + 1];
  MPMNode       **nodes, **dnodes, **nodesb, **np_, **nm_, **vel;
  PetscMPIInt     rank;
  PetscReal       gravity[MPM_DIM] = {0.3, -9.81}, dg[MPM_DIM], gb[MPM_DIM], gp[MPM_DIM], gm[MPM_DIM], dmu, mub;
  const PetscReal mu0              = 0.4;

  PetscFunctionBeginUser;
  /* friction walls on the right and at the top (their corner too), beside the sticky left wall and the slip floor; a
   * smoothing width comparable with the node speeds, so that both regimes (sliding, sticking) occur */
  g.wall[0][1] = g.wall[1][1] = MPM_WALL_FRICTION;
  g.friction = mu0, g.friction_smoothing = 0.05;
  /* obstacles over the particles' region (a friction circle, a tilted slip plane, a sticky circle) with a
   * contact layer of 1.5 cells: nodes with s = 1, 0 < s < 1 and s = 0, and nodes under two obstacles */
  g.nobstacles     = 3;
  g.obstacle_width = 1.5 * g.h[0];
  g.obstacle[0]    = (MPMObstacle){{.type = ADJ_SHAPE_CIRCLE, .p = {0.45, 0.5, 0, 0.15}}, MPM_WALL_FRICTION, "", ""};
  g.obstacle[1]    = (MPMObstacle){{.type = ADJ_SHAPE_PLANE, .p = {0.3, 0.35, 0, 1, 2}}, MPM_WALL_SLIP, "", ""};
  g.obstacle[2]    = (MPMObstacle){{.type = ADJ_SHAPE_CIRCLE, .p = {0.7, 0.65, 0, 0.12}}, MPM_WALL_STICKY, "", ""};
  for (PetscInt k = 0; k < g.nobstacles; k++) PetscCall(AdjShapeSetUp(PETSC_COMM_SELF, &g.obstacle[k].shape));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  for (PetscInt d = 0; d < MPM_DIM; d++) g.s[d] = g.gs[d] = 0, g.m[d] = g.gm[d] = g.M[d] + 1;
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  PetscCall(PetscRandomSetSeed(rnd, 7 + 13 * rank));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(NodesCreate(&g, &nodes));
  PetscCall(NodesCreate(&g, &dnodes));
  PetscCall(NodesCreate(&g, &nodesb));
  PetscCall(NodesCreate(&g, &np_));
  PetscCall(NodesCreate(&g, &nm_));
  PetscCall(NodesCreate(&g, &vel));
  PetscCall(RandomParticles(rnd, &g, n, p, mat));
  PetscCall(FlatRandom(rnd, n * MPM_NSTATE, dp, 1.0));
  for (PetscInt q = 0; q < n; q++) {
    for (PetscInt d = 0; d < MPM_DIM; d++) dp[q].x[d] *= 0.1 * g.h[d];
    dmat[q]      = (MPMMaterialPoint){0};
    dmat[q].mass = 0.1 * mat[q].mass * dp[q].v[0];
    dmat[q].E    = 0.1 * mat[q].E * dp[q].v[1];
    dmat[q].nu   = 0.05 * dp[q].C[0][0];
  }
  PetscCall(FlatRandom(rnd, n * nz, z, 0.1)); /* internal states near the undeformed one, and their directions */
  PetscCall(FlatRandom(rnd, n * nz, dz, 1.0));
#if defined(MPM_TEST_J2)
  PetscCall(J2KernelStates(n, p, mat, z, dmat, fail));
#elif defined(MPM_TEST_DP)
  PetscCall(DPKernelStates(n, p, mat, z, dmat, fail));
#endif

  /* P2G: (x, v, C, F, mass, E, nu) -> (m_i, P_i) */
  {
    PetscReal lhs, rhs, scale;

    NodesZero(&g, dnodes);
    P2GTangent(&g, dt, n, p, mat, nz, z, dz, dzn, dp, dmat, dnodes);
    PetscCall(FlatRandom(rnd, nn, nodesb[0], 1.0));
    PetscCall(FlatRandom(rnd, n * nz, znb, 1.0));
    PetscCall(PetscArrayzero(pb, n));
    PetscCall(PetscArrayzero(zb, n * nz));
    PetscCall(PetscArrayzero(matb, n));
    PetscCall(MPMParticleToGridAdjoint(&g, dt, n, p, mat, nz, z, znb, NULL, NULL, (const MPMNode *const *)nodesb, pb,
                                       zb, matb, NULL));
    lhs   = GlobalSum(FlatDot(nn, dnodes[0], nodesb[0]) + FlatDot(n * nz, dzn, znb));
    rhs   = GlobalSum(FlatDot(n * MPM_NSTATE, dp, pb) + FlatDot(n * MPM_NMAT, dmat, matb) + FlatDot(n * nz, dz, zb));
    scale = PetscSqrtReal(GlobalSum(FlatDot(nn, dnodes[0], dnodes[0]) + FlatDot(n * nz, dzn, dzn))) *
            PetscSqrtReal(GlobalSum(FlatDot(nn, nodesb[0], nodesb[0]) + FlatDot(n * nz, znb, znb)));
    PetscCall(AdjTestReportScaled(nz ? "P2G (x,v,C,F,z,m,E,nu -> nodes, z')" : "P2G (x,v,C,F,m,E,nu)", lhs, rhs, scale,
                                  1e-12, fail));
    for (PetscInt k = 0; k < n * nz; k++) zp[k] = z[k] + h * dz[k], zm[k] = z[k] - h * dz[k];
    for (PetscInt q = 0; q < n; q++) {
      PetscReal *a = (PetscReal *)&pp[q], *b = (PetscReal *)&pm[q], *x = (PetscReal *)&p[q], *dx = (PetscReal *)&dp[q];
      for (PetscInt c = 0; c < MPM_NSTATE; c++) a[c] = x[c] + h * dx[c], b[c] = x[c] - h * dx[c];
      matp[q] = mat[q], matm[q] = mat[q];
      matp[q].mass += h * dmat[q].mass, matm[q].mass -= h * dmat[q].mass;
      matp[q].E += h * dmat[q].E, matm[q].E -= h * dmat[q].E;
      matp[q].nu += h * dmat[q].nu, matm[q].nu -= h * dmat[q].nu;
      matp[q].sigma_y += h * dmat[q].sigma_y, matm[q].sigma_y -= h * dmat[q].sigma_y;
      matp[q].H += h * dmat[q].H, matm[q].H -= h * dmat[q].H;
      matp[q].friction_angle += h * dmat[q].friction_angle, matm[q].friction_angle -= h * dmat[q].friction_angle;
      matp[q].cohesion += h * dmat[q].cohesion, matm[q].cohesion -= h * dmat[q].cohesion;
    }
    NodesZero(&g, np_);
    NodesZero(&g, nm_);
    PetscCall(MPMParticleToGrid(&g, dt, n, pp, matp, nz, zp, znp, NULL, NULL, np_));
    PetscCall(MPMParticleToGrid(&g, dt, n, pm, matm, nz, zm, znm, NULL, NULL, nm_));
    PetscCall(MPMTestReport("P2G tangent vs central differences (max rel.)", FDGap(nn, dnodes[0], np_[0], nm_[0], h),
                            1e-6, fail));
    if (nz)
      PetscCall(MPMTestReport("P2G z' tangent vs central differences (max rel.)", FDGap(n * nz, dzn, znp, znm, h), 1e-6,
                              fail));
  }

  /* Obstacle contact kernel alone: (v, mu) -> v' at random unit normals and weights (s = 1, s = 0 and between),
   * every type, velocities of O(1) m/s against the smoothing width 0.05 m/s (sliding and sticking) */
  {
    enum { NS = 60 };
    const MPMWallType types[3] = {MPM_WALL_STICKY, MPM_WALL_SLIP, MPM_WALL_FRICTION};
    PetscScalar       v[NS][2], dv[NS][2], tdv[NS][2], yb[NS][2], vb[NS][2], vt[NS][2], vp[NS][2], vm[NS][2];
    PetscReal         nrm[NS][2], sw[NS], lhs = 0, rhs = 0, ty = 0, yy = 0, mub = 0, dmu, gap = 0, tmax = 0, scale;

    PetscCall(FlatRandom(rnd, 2 * NS, v, 1.0));
    PetscCall(FlatRandom(rnd, 2 * NS, dv, 1.0));
    PetscCall(FlatRandom(rnd, 2 * NS, yb, 1.0));
    PetscCall(FlatRandom(rnd, 2 * NS, nrm, 1.0));
    PetscCall(FlatRandom(rnd, NS, sw, 1.0));
    PetscCall(FlatRandom(rnd, 1, &dmu, 0.1));
    for (PetscInt q = 0; q < NS; q++) {
      const MPMWallType type = types[q % 3];
      const PetscReal   len  = PetscHypotReal(nrm[q][0], nrm[q][1]);

      nrm[q][0] = len > 1e-3 ? nrm[q][0] / len : 1, nrm[q][1] = len > 1e-3 ? nrm[q][1] / len : 0;
      sw[q] = q % 4 == 0 ? 1.0 : (q % 4 == 1 ? 0.0 : 0.5 * (1 + sw[q]));
      for (PetscInt a = 0; a < 2; a++) vt[q][a] = v[q][a], tdv[q][a] = dv[q][a], vb[q][a] = yb[q][a];
      ObstacleTangent(type, sw[q], nrm[q], mu0, dmu, g.friction_smoothing, vt[q], tdv[q]); /* tdv = T (dv, dmu) */
      MPMObstacleContactAdjoint(type, sw[q], nrm[q], mu0, g.friction_smoothing, v[q], vb[q], &mub);
      /* central differences of the forward kernel along (dv, dmu) */
      for (PetscInt a = 0; a < 2; a++) vp[q][a] = v[q][a] + h * dv[q][a], vm[q][a] = v[q][a] - h * dv[q][a];
      MPMObstacleContact(type, sw[q], nrm[q], mu0 + h * dmu, g.friction_smoothing, vp[q]);
      MPMObstacleContact(type, sw[q], nrm[q], mu0 - h * dmu, g.friction_smoothing, vm[q]);
      for (PetscInt a = 0; a < 2; a++) {
        lhs += tdv[q][a] * yb[q][a];
        rhs += dv[q][a] * vb[q][a];
        ty += tdv[q][a] * tdv[q][a];
        yy += yb[q][a] * yb[q][a];
        gap  = AdjTestMax(gap, PetscAbsReal((vp[q][a] - vm[q][a]) / (2 * h) - tdv[q][a]));
        tmax = AdjTestMax(tmax, PetscAbsReal(tdv[q][a]));
      }
    }
    lhs   = GlobalSum(lhs);
    rhs   = GlobalSum(rhs + dmu * mub);
    scale = PetscSqrtReal(GlobalSum(ty)) * PetscSqrtReal(GlobalSum(yy));
    PetscCall(AdjTestReportScaled("obstacle contact (v,mu; sticky,slip,friction)", lhs, rhs, scale, 1e-12, fail));
    PetscCall(AdjTestGlobalMax(PETSC_COMM_WORLD, AdjTestRelative(gap, tmax), &gap)); /* NaN and 0 / 0 fail */
    PetscCall(MPMTestReport("obstacle contact tangent vs central differences (max rel., all ranks)", gap, 1e-6, fail));
  }

  /* Grid update: (m_i, P_i, g) -> (m_i, v_i), on nodes from P2G (some empty, some under walls) */
  {
    PetscReal lhs, rhs, scale;

    NodesZero(&g, nodes);
    PetscCall(MPMParticleToGrid(&g, dt, n, p, mat, nz, z, znp, NULL, NULL, nodes)); /* the linearization point (m, P) */
    PetscCall(FlatRandom(rnd, nn, dnodes[0], 1.0));
    for (PetscInt j = 0; j <= g.M[1]; j++)
      for (PetscInt i = 0; i <= g.M[0]; i++) {
        /* keep m + h dm > 0, and perturb the velocity P / m by O(1) m/s also on light nodes: the friction
         * walls are smooth on the scale of their width (0.05 m/s here), which a central difference of a
         * 1e3 m/s velocity perturbation would not resolve */
        dnodes[j][i].m *= 0.1 * nodes[j][i].m;
        for (PetscInt c = 0; c < MPM_DIM; c++) dnodes[j][i].p[c] *= nodes[j][i].m;
      }
    PetscCall(FlatRandom(rnd, MPM_DIM, dg, 1.0));
    PetscCall(FlatRandom(rnd, nn, nodesb[0], 1.0));
    NodesZero(&g, np_);
    PetscCall(FlatRandom(rnd, 1, &dmu, 0.1));
    GridTangent(&g, dt, gravity, (const MPMNode *const *)nodes, (const MPMNode *const *)dnodes, dg, dmu,
                np_); /* np_ = T du */
    PetscCall(PetscArraycpy(vel[0], nodes[0], (g.M[0] + 1) * (g.M[1] + 1)));
    PetscCall(MPMGridUpdate(&g, dt, gravity, vel));
    lhs   = GlobalSum(FlatDot(nn, np_[0], nodesb[0]));
    scale = PetscSqrtReal(GlobalSum(FlatDot(nn, np_[0], np_[0]))) *
            PetscSqrtReal(GlobalSum(FlatDot(nn, nodesb[0], nodesb[0])));
    gb[0] = gb[1] = mub = 0;
    PetscCall(MPMGridUpdateAdjoint(&g, dt, gravity, (const MPMNode *const *)nodes, nodesb, gb, &mub));
    rhs = GlobalSum(FlatDot(nn, dnodes[0], nodesb[0]) + FlatDot(MPM_DIM, dg, gb) + dmu * mub);
    PetscCall(AdjTestReportScaled("grid update (m,P,g,mu; walls, obstacles)", lhs, rhs, scale, 1e-12, fail));
    /* central differences */
    for (PetscInt c = 0; c < MPM_DIM; c++) gp[c] = gravity[c] + h * dg[c], gm[c] = gravity[c] - h * dg[c];
    {
      MPMNode **a = nm_, **b = nodesb; /* reuse as plus/minus */
      for (PetscInt k = 0; k < (g.M[0] + 1) * (g.M[1] + 1); k++) {
        const MPMNode x = nodes[0][k], dx = dnodes[0][k];
        a[0][k].m = x.m + h * dx.m, b[0][k].m = x.m - h * dx.m;
        for (PetscInt c = 0; c < MPM_DIM; c++) a[0][k].p[c] = x.p[c] + h * dx.p[c], b[0][k].p[c] = x.p[c] - h * dx.p[c];
      }
      g.friction = mu0 + h * dmu;
      PetscCall(MPMGridUpdate(&g, dt, gp, a));
      g.friction = mu0 - h * dmu;
      PetscCall(MPMGridUpdate(&g, dt, gm, b));
      g.friction = mu0;
      PetscCall(MPMTestReport("grid update tangent vs central differences (max rel.)", FDGap(nn, np_[0], a[0], b[0], h),
                              1e-6, fail));
    }
  }

  /* G2P: (x, F, v_i) -> (x, v, C, F) with the node velocities vel of the grid update above */
  {
    PetscReal lhs, rhs, scale;

    PetscCall(FlatRandom(rnd, nn, dnodes[0], 1.0));
    PetscCall(MPMGridToParticle(&g, dt, n, p, (const MPMNode *const *)vel, out));
    G2PTangent(&g, dt, n, p, (const MPMNode *const *)vel, dp, (const MPMNode *const *)dnodes, dout);
    PetscCall(FlatRandom(rnd, n * MPM_NSTATE, outb, 1.0));
    PetscCall(PetscArrayzero(pb, n));
    NodesZero(&g, nodesb);
    PetscCall(MPMGridToParticleAdjoint(&g, dt, n, p, (const MPMNode *const *)vel, outb, pb, nodesb));
    lhs = GlobalSum(FlatDot(n * MPM_NSTATE, dout, outb));
    /* v and C of the input do not enter G2P: their tangent is ignored, their adjoint must be 0 */
    for (PetscInt q = 0; q < n; q++) {
      PetscCheck(pb[q].v[0] == 0 && pb[q].v[1] == 0 && pb[q].C[0][0] == 0 && pb[q].C[1][1] == 0, PETSC_COMM_SELF,
                 PETSC_ERR_PLIB, "G2P adjoint wrote into the v, C slots of the input");
      for (PetscInt a = 0; a < MPM_DIM; a++) {
        dp[q].v[a] = 0;
        for (PetscInt b = 0; b < MPM_DIM; b++) dp[q].C[a][b] = 0;
      }
    }
    rhs   = GlobalSum(FlatDot(n * MPM_NSTATE, dp, pb) + FlatDot(nn, dnodes[0], nodesb[0]));
    scale = PetscSqrtReal(GlobalSum(FlatDot(n * MPM_NSTATE, dout, dout))) *
            PetscSqrtReal(GlobalSum(FlatDot(n * MPM_NSTATE, outb, outb)));
    PetscCall(AdjTestReportScaled("G2P (x,F,v_i)", lhs, rhs, scale, 1e-12, fail));
    for (PetscInt q = 0; q < n; q++) {
      PetscReal *a = (PetscReal *)&pp[q], *b = (PetscReal *)&pm[q], *x = (PetscReal *)&p[q], *dx = (PetscReal *)&dp[q];
      for (PetscInt c = 0; c < MPM_NSTATE; c++) a[c] = x[c] + h * dx[c], b[c] = x[c] - h * dx[c];
    }
    for (PetscInt k = 0; k < (g.M[0] + 1) * (g.M[1] + 1); k++) {
      np_[0][k] = vel[0][k], nm_[0][k] = vel[0][k];
      for (PetscInt c = 0; c < MPM_DIM; c++)
        np_[0][k].p[c] += h * dnodes[0][k].p[c], nm_[0][k].p[c] -= h * dnodes[0][k].p[c];
    }
    PetscCall(MPMGridToParticle(&g, dt, n, pp, (const MPMNode *const *)np_, outp));
    PetscCall(MPMGridToParticle(&g, dt, n, pm, (const MPMNode *const *)nm_, outm));
    PetscCall(MPMTestReport("G2P tangent vs central differences (max rel.)", FDGap(n * MPM_NSTATE, dout, outp, outm, h),
                            1e-6, fail));
  }
  PetscCall(NodesDestroy(&nodes));
  PetscCall(NodesDestroy(&dnodes));
  PetscCall(NodesDestroy(&nodesb));
  PetscCall(NodesDestroy(&np_));
  PetscCall(NodesDestroy(&nm_));
  PetscCall(NodesDestroy(&vel));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Tangent of the whole distributed step at x (after MPMStep(k, x) was run): dy from dx and the material and
 * gravity perturbations (dE, dnu, drho per label, dg). */
static PetscErrorCode StepTangent(MPM mpm, AdjStepIndex k, Vec x, Vec dx, const PetscReal dE[], const PetscReal dnu[],
                                  const PetscReal drho[], const PetscReal dg[], Vec dy)
{
  MPMParticle      *pin, *dpin, *dpout;
  MPMMaterialPoint *dmat;
  PetscScalar      *zin, *dzin, *dzout;
  Vec               lP, gP, ldn, gdn, gdv, ldv;
  MPMNode         **a, **b, **c;
  const PetscInt    n = mpm->nowned, nz = mpm->nz;

  PetscFunctionBeginUser;
  PetscCall(MPMStep(mpm, k, x, dy)); /* the forward intermediates (sf, pin, zin, pmat, lnodes) */
  PetscCall(PetscMalloc4(n + 1, &pin, n + 1, &dpin, n + 1, &dpout, n + 1, &dmat));
  PetscCall(PetscMalloc3(n * nz + 1, &zin, n * nz + 1, &dzin, n * nz + 1, &dzout));
  PetscCall(PetscArraycpy(pin, mpm->pin, n));
  PetscCall(PetscArraycpy(zin, mpm->zin, n * nz));
  PetscCall(MPMExchangeToOwners(mpm, dx)); /* linear: the perturbations travel like the particles */
  PetscCall(PetscArraycpy(dpin, mpm->pin, n));
  PetscCall(PetscArraycpy(dzin, mpm->zin, n * nz));
  PetscCall(PetscArraycpy(mpm->pin, pin, n));
  PetscCall(PetscArraycpy(mpm->zin, zin, n * nz));
  for (PetscInt q = 0; q < n; q++) {
    const PetscInt l = (PetscInt)mpm->pmat[q].label;
    dmat[q]          = (MPMMaterialPoint){.mass = drho[l] * mpm->pmat[q].volume, .E = dE[l], .nu = dnu[l]};
  }
  PetscCall(DMGetLocalVector(mpm->da, &lP));
  PetscCall(DMGetLocalVector(mpm->da, &ldn));
  PetscCall(DMGetLocalVector(mpm->da, &ldv));
  PetscCall(DMGetGlobalVector(mpm->da, &gP));
  PetscCall(DMGetGlobalVector(mpm->da, &gdn));
  PetscCall(DMGetGlobalVector(mpm->da, &gdv));
  /* forward (m, P) and its tangent, summed over ranks */
  PetscCall(VecZeroEntries(lP));
  PetscCall(VecZeroEntries(ldn));
  PetscCall(DMDAVecGetArray(mpm->da, lP, &a));
  PetscCall(DMDAVecGetArray(mpm->da, ldn, &b));
  PetscCall(MPMParticleToGrid(&mpm->grid, mpm->dt, n, pin, mpm->pmat, nz, zin, mpm->zout, NULL, NULL, a));
  P2GTangent(&mpm->grid, mpm->dt, n, pin, mpm->pmat, nz, zin, dzin, dzout, dpin, dmat, b);
  PetscCall(DMDAVecRestoreArray(mpm->da, ldn, &b));
  PetscCall(DMDAVecRestoreArray(mpm->da, lP, &a));
  PetscCall(VecZeroEntries(gP));
  PetscCall(VecZeroEntries(gdn));
  PetscCall(DMLocalToGlobal(mpm->da, lP, ADD_VALUES, gP));
  PetscCall(DMLocalToGlobal(mpm->da, ldn, ADD_VALUES, gdn));
  PetscCall(DMDAVecGetArray(mpm->da, gP, &a));
  PetscCall(DMDAVecGetArray(mpm->da, gdn, &b));
  PetscCall(DMDAVecGetArray(mpm->da, gdv, &c));
  GridTangent(&mpm->grid, mpm->dt, mpm->gravity, (const MPMNode *const *)a, (const MPMNode *const *)b, dg, 0, c);
  PetscCall(DMDAVecRestoreArray(mpm->da, gdv, &c));
  PetscCall(DMDAVecRestoreArray(mpm->da, gdn, &b));
  PetscCall(DMDAVecRestoreArray(mpm->da, gP, &a));
  PetscCall(DMGlobalToLocal(mpm->da, gdv, INSERT_VALUES, ldv));
  PetscCall(DMDAVecGetArray(mpm->da, mpm->lnodes, &a));
  PetscCall(DMDAVecGetArray(mpm->da, ldv, &b));
  G2PTangent(&mpm->grid, mpm->dt, n, pin, (const MPMNode *const *)a, dpin, (const MPMNode *const *)b, dpout);
  PetscCall(DMDAVecRestoreArray(mpm->da, ldv, &b));
  PetscCall(DMDAVecRestoreArray(mpm->da, mpm->lnodes, &a));
  PetscCall(PetscArraycpy(mpm->pout, dpout, n));
  PetscCall(PetscArraycpy(mpm->zout, dzout, n * nz)); /* z' comes from P2G alone (G2P leaves it) */
  PetscCall(MPMExchangeToHome(mpm, dy));
  mpm->fwd_step = -1; /* pout was overwritten: the adjoint must not reuse this step */
  PetscCall(PetscFree3(zin, dzin, dzout));
  PetscCall(DMRestoreLocalVector(mpm->da, &lP));
  PetscCall(DMRestoreLocalVector(mpm->da, &ldn));
  PetscCall(DMRestoreLocalVector(mpm->da, &ldv));
  PetscCall(DMRestoreGlobalVector(mpm->da, &gP));
  PetscCall(DMRestoreGlobalVector(mpm->da, &gdn));
  PetscCall(DMRestoreGlobalVector(mpm->da, &gdv));
  PetscCall(PetscFree4(pin, dpin, dpout, dmat));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Scales the random state perturbation to sensible sizes: positions by h/10. */
static PetscErrorCode ScalePerturbation(MPM mpm, Vec dx)
{
  PetscScalar *p;

  PetscFunctionBeginUser;
  PetscCall(VecGetArray(dx, &p));
  for (PetscInt i = 0; i < mpm->nhome; i++)
    for (PetscInt d = 0; d < MPM_DIM; d++) MPMRecord(p, mpm->nrec, i)->x[d] *= 0.1 * mpm->grid.h[d];
  PetscCall(VecRestoreArray(dx, &p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode StepTests(AdjStepper st, PetscInt *fail)
{
  MPM             mpm;
  Vec             x, dx, dy, yb, xb, yp, ym, xp, xm;
  const PetscReal h            = 1e-6;
  PetscReal dE[MPM_MAX_LABELS] = {0}, dnu[MPM_MAX_LABELS] = {0}, drho[MPM_MAX_LABELS] = {0}, dg[MPM_DIM] = {0.2, -0.4};
  PetscReal lhs, rhs, nb, ny, G[3 * MPM_MAX_LABELS + MPM_DIM], Gs[3 * MPM_MAX_LABELS + MPM_DIM];
  const AdjStepIndex k = 25;

  PetscFunctionBeginUser;
  PetscCall(AdjStepperGetContext(st, &mpm));
  PetscCall(AdjStepperCreateState(st, &x));
  PetscCall(VecDuplicate(x, &dx));
  PetscCall(VecDuplicate(x, &dy));
  PetscCall(VecDuplicate(x, &yb));
  PetscCall(VecDuplicate(x, &xb));
  PetscCall(VecDuplicate(x, &yp));
  PetscCall(VecDuplicate(x, &ym));
  PetscCall(VecDuplicate(x, &xp));
  PetscCall(VecDuplicate(x, &xm));
  PetscCall(MPMTestRun(st, k - 1, x, NULL, NULL)); /* a state with stress, rotation and moving particles */
  PetscCall(AdjTestRandom(dx, 3));
  PetscCall(ScalePerturbation(mpm, dx));
  PetscCall(AdjTestRandom(yb, 4));
  for (PetscInt l = 0; l < mpm->nlabels; l++)
    dE[l] = 0.1 * mpm->E[l] * (l ? -0.7 : 1.0), dnu[l] = 0.03 * (l ? 1 : -1), drho[l] = 50.0 * (l + 1);

  /* the exchange alone: home -> owner (Reduce) and owner -> home (Bcast) against their adjoints, the particles
   * (pin, pout) and their internal states (zin, zout) */
  {
    PetscReal *y, *yz;
    PetscInt   n, nz = mpm->nz;
    PetscReal  in2;

    PetscCall(MPMStep(mpm, k, x, dy)); /* builds the SF and allocates the adjoint arrays below */
    PetscCall(MPMStepAdjoint(mpm, k, x, NULL, yb, xb));
    n  = mpm->nowned * MPM_NSTATE; /* owned by this rank at the start of step k */
    nz = mpm->nowned * mpm->nz;
    PetscCall(MPMExchangeToOwners(mpm, dx));
    PetscCall(PetscMalloc2(n + 1, &y, nz + 1, &yz));
    for (PetscInt i = 0; i < n; i++) y[i] = PetscSinReal(1.0 + 3.7 * i + 11.0 * mpm->rank);
    for (PetscInt i = 0; i < nz; i++) yz[i] = PetscCosReal(0.5 + 2.9 * i + 5.0 * mpm->rank);
    PetscCall(PetscArraycpy((PetscReal *)mpm->pinb, y, n));
    PetscCall(PetscArraycpy(mpm->zinb, yz, nz));
    lhs = GlobalSum(FlatDot(n, mpm->pin, y) + FlatDot(nz, mpm->zin, yz));
    in2 = GlobalSum(FlatDot(n, mpm->pin, mpm->pin) + FlatDot(nz, mpm->zin, mpm->zin));
    PetscCall(MPMExchangeToOwnersAdjoint(mpm, xb));
    PetscCall(VecDot(dx, xb, &rhs));
    PetscCall(VecNorm(xb, NORM_2, &nb));
    PetscCall(AdjTestReportScaled("exchange home -> owner (Reduce vs Bcast)", lhs, rhs, PetscSqrtReal(in2) * nb, 1e-12,
                                  fail));
    PetscCall(PetscArraycpy((PetscReal *)mpm->pout, y, n));
    PetscCall(PetscArraycpy(mpm->zout, yz, nz));
    PetscCall(MPMExchangeToHome(mpm, dy));
    PetscCall(VecDot(dy, yb, &lhs));
    PetscCall(MPMExchangeToHomeAdjoint(mpm, yb));
    rhs = GlobalSum(FlatDot(n, y, mpm->poutb) + FlatDot(nz, yz, mpm->zoutb));
    PetscCall(VecNorm(dy, NORM_2, &nb));
    PetscCall(VecNorm(yb, NORM_2, &ny));
    PetscCall(AdjTestReportScaled("exchange owner -> home (Bcast vs Reduce)", lhs, rhs, nb * ny, 1e-12, fail));
    PetscCall(PetscFree2(y, yz));
  }
  /* the material part of home -> owner (a copy per particle) against MPMExchangeMaterialToOwnersAdjoint, which
   * adds the owners' material adjoints to the home slots (the per-particle E and nu gradients) */
  {
    Vec        mat0 = mpm->mat, dmat, matb;
    PetscReal *y;
    PetscInt   n;

    PetscCall(VecDuplicate(mat0, &dmat));
    PetscCall(VecDuplicate(mat0, &matb));
    PetscCall(AdjTestRandom(dmat, 5));
    PetscCall(AdjTestRandom(matb, 6)); /* the adjoint adds: start from a nonzero matb */
    PetscCall(VecDot(dmat, matb, &ny));
    mpm->mat = dmat;
    PetscCall(MPMExchangeToOwners(mpm, x)); /* pmat = (home -> owner) dmat */
    mpm->mat = mat0;
    n        = mpm->nowned * MPM_NMAT;
    PetscCall(PetscMalloc1(n + 1, &y));
    for (PetscInt i = 0; i < n; i++) y[i] = PetscCosReal(2.0 + 1.3 * i + 7.0 * mpm->rank);
    PetscCall(PetscArraycpy((PetscReal *)mpm->pmatb, y, n));
    lhs = GlobalSum(FlatDot(n, mpm->pmat, y));
    PetscCall(MPMExchangeMaterialToOwnersAdjoint(mpm, matb));
    PetscCall(VecDot(dmat, matb, &rhs));
    rhs -= ny;
    PetscCall(VecNorm(dmat, NORM_2, &nb));
    PetscCall(AdjTestReportScaled("material exchange home -> owner (Reduce vs Bcast-add)", lhs, rhs,
                                  nb * PetscSqrtReal(GlobalSum(FlatDot(n, y, y))), 1e-12, fail));
    PetscCall(MPMExchangeToOwners(mpm, x)); /* the true materials back in pmat */
    PetscCall(PetscFree(y));
    PetscCall(VecDestroy(&dmat));
    PetscCall(VecDestroy(&matb));
  }

  /* the grid mass of the grid-mass objective (P2G mass transfer, ghost sums) against MPMGridMassAdjoint, in
   * the positions and the densities */
  {
    Vec                 mass, mb, lam, ldn, gdn;
    MPMParticle        *pin0, *dpin;
    PetscScalar        *zin0, *dz0;
    MPMMaterialPoint   *dmat;
    MPMNode           **b;
    const MPMNode     **gd;
    const PetscScalar **mbv;
    PetscReal           G[MPM_MAX_LABELS], Gs[MPM_MAX_LABELS], local = 0, nm;
    PetscInt            n;

    PetscCall(DMCreateGlobalVector(mpm->da1, &mass));
    PetscCall(VecDuplicate(mass, &mb));
    PetscCall(VecDuplicate(x, &lam));
    PetscCall(AdjTestRandom(mb, 7));
    PetscCall(MPMGridMass(mpm, k, x, mass)); /* owner arrays of x */
    n = mpm->nowned;
    PetscCall(PetscMalloc3(n + 1, &pin0, n + 1, &dpin, n + 1, &dmat));
    PetscCall(PetscMalloc2(n * mpm->nz + 1, &zin0, n * mpm->nz + 1, &dz0));
    PetscCall(PetscArraycpy(pin0, mpm->pin, n));
    PetscCall(PetscArraycpy(zin0, mpm->zin, n * mpm->nz));
    PetscCall(PetscArrayzero(dz0, n * mpm->nz)); /* the grid mass does not depend on z */
    PetscCall(MPMExchangeToOwners(mpm, dx));
    PetscCall(PetscArraycpy(dpin, mpm->pin, n));
    for (PetscInt q = 0; q < n; q++)
      dmat[q] = (MPMMaterialPoint){.mass = drho[(PetscInt)mpm->pmat[q].label] * mpm->pmat[q].volume};
    PetscCall(DMGetLocalVector(mpm->da, &ldn));
    PetscCall(DMGetGlobalVector(mpm->da, &gdn));
    PetscCall(VecZeroEntries(ldn));
    PetscCall(DMDAVecGetArray(mpm->da, ldn, &b));
    P2GTangent(&mpm->grid, 0.0, n, pin0, mpm->pmat, mpm->nz, zin0, dz0, NULL, dpin, dmat, b);
    PetscCall(DMDAVecRestoreArray(mpm->da, ldn, &b));
    PetscCall(VecZeroEntries(gdn));
    PetscCall(DMLocalToGlobal(mpm->da, ldn, ADD_VALUES, gdn));
    PetscCall(DMDAVecGetArrayRead(mpm->da, gdn, &gd));
    PetscCall(DMDAVecGetArrayRead(mpm->da1, mb, &mbv));
    for (PetscInt j = mpm->grid.s[1]; j < mpm->grid.s[1] + mpm->grid.m[1]; j++)
      for (PetscInt i = mpm->grid.s[0]; i < mpm->grid.s[0] + mpm->grid.m[0]; i++) local += gd[j][i].m * mbv[j][i];
    PetscCall(DMDAVecRestoreArrayRead(mpm->da1, mb, &mbv));
    PetscCall(DMDAVecRestoreArrayRead(mpm->da, gdn, &gd));
    lhs = GlobalSum(local);
    PetscCall(AdjStepperZeroGradient(st));
    PetscCall(VecZeroEntries(lam));
    PetscCall(MPMGridMassAdjoint(mpm, k, x, mb, lam));
    PetscCall(VecDot(dx, lam, &rhs));
    PetscCall(PetscArraycpy(G, mpm->grho, MPM_MAX_LABELS));
    PetscCallMPI(MPI_Allreduce(G, Gs, MPM_MAX_LABELS, MPIU_REAL, MPIU_SUM, mpm->comm));
    for (PetscInt l = 0; l < mpm->nlabels; l++) rhs += drho[l] * Gs[l];
    PetscCall(VecNorm(mb, NORM_2, &nm));
    PetscCall(VecNorm(gdn, NORM_2, &nb)); /* |T du| (mass and momentum parts; the mass part is what counts) */
    PetscCall(
        AdjTestReportScaled("grid mass (positions, densities) vs MPMGridMassAdjoint", lhs, rhs, nb * nm, 1e-12, fail));
    PetscCall(DMRestoreLocalVector(mpm->da, &ldn));
    PetscCall(DMRestoreGlobalVector(mpm->da, &gdn));
    PetscCall(PetscFree3(pin0, dpin, dmat));
    PetscCall(PetscFree2(zin0, dz0));
    PetscCall(VecDestroy(&mass));
    PetscCall(VecDestroy(&mb));
    PetscCall(VecDestroy(&lam));
    PetscCall(AdjStepperZeroGradient(st));
  }

  /* the whole step: state and parameters */
  PetscCall(StepTangent(mpm, k, x, dx, dE, dnu, drho, dg, dy));
  PetscCall(AdjStepperZeroGradient(st));
  PetscCall(MPMStep(mpm, k, x, yp)); /* the contract: the adjoint right after its forward step */
  PetscCall(MPMStepAdjoint(mpm, k, x, NULL, yb, xb));
  PetscCall(VecDot(dy, yb, &lhs));
  PetscCall(VecDot(dx, xb, &rhs));
  PetscCall(PetscArraycpy(G, mpm->gE, MPM_MAX_LABELS));
  PetscCall(PetscArraycpy(G + MPM_MAX_LABELS, mpm->gnu, MPM_MAX_LABELS));
  PetscCall(PetscArraycpy(G + 2 * MPM_MAX_LABELS, mpm->grho, MPM_MAX_LABELS));
  PetscCall(PetscArraycpy(G + 3 * MPM_MAX_LABELS, mpm->ggravity, MPM_DIM));
  PetscCallMPI(MPI_Allreduce(G, Gs, 3 * MPM_MAX_LABELS + MPM_DIM, MPIU_REAL, MPIU_SUM, mpm->comm));
  for (PetscInt l = 0; l < mpm->nlabels; l++)
    rhs += dE[l] * Gs[l] + dnu[l] * Gs[MPM_MAX_LABELS + l] + drho[l] * Gs[2 * MPM_MAX_LABELS + l];
  rhs += dg[0] * Gs[3 * MPM_MAX_LABELS] + dg[1] * Gs[3 * MPM_MAX_LABELS + 1];
  PetscCall(VecNorm(dy, NORM_2, &nb));
  PetscCall(VecNorm(yb, NORM_2, &ny));
  PetscCall(AdjTestReportScaled("whole step (state, E, nu, rho, gravity)", lhs, rhs, nb * ny, 1e-12, fail));
  /* the step tangent against central differences (state and parameters together) */
  {
    PetscReal         E0[MPM_MAX_LABELS], nu0[MPM_MAX_LABELS], rho0[MPM_MAX_LABELS], g0[MPM_DIM], gap;
    MPMMaterialPoint *mat;

    PetscCall(PetscArraycpy(E0, mpm->E, MPM_MAX_LABELS));
    PetscCall(PetscArraycpy(nu0, mpm->nu, MPM_MAX_LABELS));
    PetscCall(PetscArraycpy(rho0, mpm->rho, MPM_MAX_LABELS));
    PetscCall(PetscArraycpy(g0, mpm->gravity, MPM_DIM));
    for (PetscInt sgn = -1; sgn <= 1; sgn += 2) {
      PetscCall(VecWAXPY(sgn > 0 ? xp : xm, sgn * h, dx, x));
      PetscCall(VecGetArray(mpm->mat, (PetscScalar **)&mat));
      for (PetscInt i = 0; i < mpm->nhome; i++) {
        const PetscInt l = (PetscInt)mat[i].label;
        mat[i].E         = E0[l] + sgn * h * dE[l];
        mat[i].nu        = nu0[l] + sgn * h * dnu[l];
        mat[i].mass      = (rho0[l] + sgn * h * drho[l]) * mat[i].volume;
      }
      PetscCall(VecRestoreArray(mpm->mat, (PetscScalar **)&mat));
      for (PetscInt a = 0; a < MPM_DIM; a++) mpm->gravity[a] = g0[a] + sgn * h * dg[a];
      PetscCall(MPMStep(mpm, k, sgn > 0 ? xp : xm, sgn > 0 ? yp : ym));
    }
    PetscCall(VecGetArray(mpm->mat, (PetscScalar **)&mat));
    for (PetscInt i = 0; i < mpm->nhome; i++) {
      const PetscInt l = (PetscInt)mat[i].label;
      mat[i].E = E0[l], mat[i].nu = nu0[l], mat[i].mass = rho0[l] * mat[i].volume;
    }
    PetscCall(VecRestoreArray(mpm->mat, (PetscScalar **)&mat));
    for (PetscInt a = 0; a < MPM_DIM; a++) mpm->gravity[a] = g0[a];
    PetscCall(VecAXPY(yp, -1.0, ym));
    PetscCall(VecScale(yp, 1.0 / (2 * h)));
    PetscCall(VecAXPY(yp, -1.0, dy));
    PetscCall(VecNorm(yp, NORM_INFINITY, &gap));
    PetscCall(VecNorm(dy, NORM_INFINITY, &nb));
    PetscCall(MPMTestReport("whole-step tangent vs central differences (max rel.)", gap / nb, 1e-6, fail));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&dx));
  PetscCall(VecDestroy(&dy));
  PetscCall(VecDestroy(&yb));
  PetscCall(VecDestroy(&xb));
  PetscCall(VecDestroy(&yp));
  PetscCall(VecDestroy(&ym));
  PetscCall(VecDestroy(&xp));
  PetscCall(VecDestroy(&xm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  /* Two bodies of different labels and models moving across the middle of the box (rank boundaries on 2
   * and 4 ranks), a slip floor they reach, sticky walls whose nodes their stencils touch and a slip circle
   * obstacle whose contact layer the disk's stencil reaches. */
  const char *const opts[] = {
    "-mpm_grid",
    "16,16",
    "-mpm_wall_width",
    "2",
    "-mpm_wall_xlo",
    "sticky",
    "-mpm_wall_xhi",
    "none",
    "-mpm_wall_ylo",
    "slip",
    "-mpm_wall_yhi",
    "none",
    "-mpm_E",
    "2e3,6e3",
    "-mpm_nu",
    "0.3,0.2",
    "-mpm_rho",
    "1000,1400",
    "-mpm_model",
    LABEL_MODELS,
    "-mpm_gravity",
    "0.5,-6",
    "-mpm_body0",
    "box:0.1,0.14,0.4,0.4:0:1.2,-0.5",
    "-mpm_body1",
    "disk:0.7,0.35,0.14:1:-1.0,0.4",
    "-mpm_obstacle0",
    "circle:0.55,0.05,0.1:slip",
    "-mpm_final_time",
    "0.2",
#if defined(MPM_TEST_J2)
    "-mpm_sigma_y",
    "300",
    "-mpm_H",
    "400",
#elif defined(MPM_TEST_DP)
    "-mpm_friction_angle",
    "30",
    "-mpm_cohesion",
    "40",
#endif
    NULL
  };
  AdjStepper st;
  PetscInt   fail = 0;

#if defined(MPM_TEST_ZMODEL)
  MPMTestModelRegister();
#endif
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(MPMTestCreate(PETSC_COMM_WORLD, opts, NULL, &st));
  {
    MPM mpm;
    PetscCall(AdjStepperGetContext(st, &mpm));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "internal-state reals per particle: %" PetscInt_FMT " (expected %d)\n",
                          mpm->nz, NZ_KERNEL));
    if (mpm->nz != NZ_KERNEL) fail++;
    PetscCall(KernelTests(mpm, &fail));
  }
  PetscCall(StepTests(st, &fail));
  PetscCall(AdjStepperDestroy(&st));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " check(s) failed\n", fail ? "FAIL" : "PASS", fail));
  PetscCall(PetscFinalize());
  return fail ? 1 : 0;
}
