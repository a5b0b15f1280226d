/* MPM solver: reading the case from the options database (grid, walls, materials, gravity, time
 * step).  Every option has its help string and units (adjsim -help). */
#include "mpmimpl.h"
#include "mpmmodel.h"
#include <adjsim/grid.h>
#include <adjsim/timeaxis.h>

const char *const MPMWallTypes[] = {"none", "sticky", "slip", "friction", "MPMWallType", "MPM_WALL_", NULL};

static const char *const MPMSideNames[MPM_DIM][2] = {{"xlo", "xhi"}, {"ylo", "yhi"}};

static PetscErrorCode MPMWallFromOptions(MPM mpm, PetscInt d, PetscInt s)
{
  char     opt[64], title[64];
  PetscInt type = mpm->grid.wall[d][s];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-mpm_wall_%s", MPMSideNames[d][s]));
  PetscCall(PetscSNPrintf(title, sizeof(title), "MPM: wall %s", MPMSideNames[d][s]));
  PetscOptionsBegin(mpm->comm, mpm->prefix, title, "MPM");
  PetscCall(PetscOptionsEList(opt,
                              "Wall on that side of the box: none (particles must then stay away from it), sticky "
                              "(v = 0), slip (normal velocity 0), friction (smoothed Coulomb: -mpm_wall_friction, "
                              "-mpm_friction_smoothing)",
                              "", MPMWallTypes, 4, MPMWallTypes[type], &type, NULL));
  PetscOptionsEnd();
  mpm->grid.wall[d][s] = (MPMWallType)type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Which process coordinate owns node i along direction d, from the DMDA's ownership ranges. */
static PetscErrorCode MPMSetUpNodeRanks(MPM mpm)
{
  const PetscInt *range[3];

  PetscFunctionBeginUser;
  PetscCall(DMDAGetInfo(mpm->da, NULL, NULL, NULL, NULL, &mpm->nproc[0], &mpm->nproc[1], NULL, NULL, NULL, NULL, NULL,
                        NULL, NULL));
  PetscCall(DMDAGetOwnershipRanges(mpm->da, &range[0], &range[1], &range[2]));
  for (PetscInt d = 0; d < MPM_DIM; d++) {
    PetscInt node = 0;

    PetscCall(PetscMalloc1(mpm->grid.M[d] + 1, &mpm->node_rank[d]));
    for (PetscInt r = 0; r < mpm->nproc[d]; r++)
      for (PetscInt k = 0; k < range[d][r]; k++) mpm->node_rank[d][node++] = r;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ MPMSetUpGrid - the node DMDAs (dof 3 with a box stencil of width 1, and dof 1 for output) and the
    walls. Collective. @*/
PetscErrorCode MPMSetUpGrid(MPM mpm)
{
  MPMGrid       *g        = &mpm->grid;
  PetscInt       cells[2] = {32, 32};
  PetscReal      len[2]   = {1.0, 1.0};
  DMBoundaryType dmbc[MPM_DIM];

  PetscFunctionBeginUser;
  g->wall_width         = 3;
  g->friction           = 0.3;
  g->friction_smoothing = 1e-2;
  for (PetscInt d = 0; d < MPM_DIM; d++)
    for (PetscInt s = 0; s < 2; s++) g->wall[d][s] = MPM_WALL_STICKY;
  PetscOptionsBegin(mpm->comm, mpm->prefix, "MPM: grid", "MPM");
  PetscCall(AdjGridBoxOptions(PetscOptionsObject, mpm->comm, "mpm",
                              "Background grid cells in x and y (nodes at cell corners)", MPM_DIM, cells, len));
  PetscCall(PetscOptionsInt("-mpm_wall_width", "Walls act on the grid nodes this many nodes deep from each side", "",
                            g->wall_width, &g->wall_width, NULL));
  PetscCall(PetscOptionsReal(
      "-mpm_wall_friction",
      "Coulomb friction coefficient mu [1] of the friction walls and obstacles: on their nodes the tangential "
      "velocity drops by up to mu times the normal velocity removed (parameter block friction)",
      "", g->friction, &g->friction, NULL));
  PetscCall(PetscOptionsReal("-mpm_friction_smoothing",
                             "Regularization width eps [m/s] of the friction walls and the slip/friction obstacles: "
                             "the contact max(0, vn) and the "
                             "Coulomb kink at vt = 0 are smoothed over speeds of about eps (docs/mpm.md)",
                             "", g->friction_smoothing, &g->friction_smoothing, NULL));
  PetscOptionsEnd();
  for (PetscInt d = 0; d < MPM_DIM; d++)
    for (PetscInt s = 0; s < 2; s++) {
      PetscCall(MPMWallFromOptions(mpm, d, s));
      if (g->wall[d][s] == MPM_WALL_FRICTION) mpm->has_friction = PETSC_TRUE;
    }
  PetscCheck(g->friction >= 0 && PetscIsNormalReal(g->friction + 1), mpm->comm, PETSC_ERR_USER_INPUT,
             "-mpm_wall_friction %g: the friction coefficient must be non-negative", (double)g->friction);
  PetscCheck(g->friction_smoothing > 0 && PetscIsNormalReal(g->friction_smoothing), mpm->comm, PETSC_ERR_USER_INPUT,
             "-mpm_friction_smoothing %g m/s: the smoothing width must be positive", (double)g->friction_smoothing);
  /* about 200 bytes per node (max RSS of forward runs on 128^2 and 512^2 cells, particles apart) */
  PetscCall(AdjGridBoxSetUp(mpm->comm, "mpm", MPM_DIM, cells, len, "node", (PetscInt64)(cells[0] + 1) * (cells[1] + 1),
                            MPM_NNODE, 200, g->M, g->L, g->h));
  for (PetscInt d = 0; d < MPM_DIM; d++) dmbc[d] = DM_BOUNDARY_NONE;
  PetscCheck(g->wall_width >= 1 && 2 * g->wall_width < PetscMin(cells[0], cells[1]), mpm->comm, PETSC_ERR_USER_INPUT,
             "-mpm_wall_width %" PetscInt_FMT " must be at least 1 and less than half the cells per direction",
             g->wall_width);
  /* Particles are owned by the rank owning their nearest node, whose stencil is that node +-1: a
   * ghost width of 1 covers it. */
  PetscCall(
      AdjGridCreateDMDA(mpm->comm, MPM_DIM, g->M, dmbc, ADJ_GRID_NODE, MPM_NNODE, DMDA_STENCIL_BOX, 1, NULL, &mpm->da));
  PetscCall(DMDASetFieldName(mpm->da, 0, "mass"));
  PetscCall(DMDASetFieldName(mpm->da, 1, "px"));
  PetscCall(DMDASetFieldName(mpm->da, 2, "py"));
  PetscCall(DMDACreateCompatibleDMDA(mpm->da, 1, &mpm->da1));
  PetscCall(AdjGridSetUniformCoordinates(mpm->da1, ADJ_GRID_NODE, g->L));
  PetscCall(DMDAGetCorners(mpm->da, &g->s[0], &g->s[1], NULL, &g->m[0], &g->m[1], NULL));
  PetscCall(DMDAGetGhostCorners(mpm->da, &g->gs[0], &g->gs[1], NULL, &g->gm[0], &g->gm[1], NULL));
  PetscCall(MPMSetUpNodeRanks(mpm));
  PetscCall(DMCreateGlobalVector(mpm->da, &mpm->gnodes));
  PetscCall(DMCreateLocalVector(mpm->da, &mpm->lnodes));
  for (PetscInt c = 0; c < 3; c++) PetscCall(DMCreateGlobalVector(mpm->da1, &mpm->out[c]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A per-label real array option: one value (for every label) or one per label. */
static PetscErrorCode MPMLabelArray(PetscOptionItems *PetscOptionsObject, MPM mpm, const char opt[], const char help[],
                                    PetscReal values[], PetscInt *n)
{
  PetscBool set;

  PetscFunctionBeginUser;
  *n = MPM_MAX_LABELS;
  PetscCall(PetscOptionsRealArray(opt, help, "", values, n, &set));
  if (!set) *n = 1;
  PetscCheck(*n >= 1, mpm->comm, PETSC_ERR_USER_INPUT, "%s needs at least one value", opt);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -mpm_sigma_y, -mpm_H, -mpm_yield_smoothing per label (models that list sigma_y in their params, e.g. j2;
 * read for every run so that -help lists them): one value or one per label, checked with the option and label
 * named; mpm->plastic when some label's model reads them. Collective. */
static PetscErrorCode MPMSetUpPlasticity(MPM mpm)
{
  const char *opt[3] = {"-mpm_sigma_y", "-mpm_H", "-mpm_yield_smoothing"};
  PetscReal  *val[3] = {mpm->sigma_y, mpm->H, mpm->yield_smoothing};
  PetscInt    cnt[3];

  PetscFunctionBeginUser;
  mpm->sigma_y[0] = 1e3, mpm->H[0] = 0, mpm->yield_smoothing[0] = 0.05;
  PetscOptionsBegin(mpm->comm, mpm->prefix, "MPM: plasticity (-mpm_model j2)", "MPM");
  PetscCall(MPMLabelArray(PetscOptionsObject, mpm, opt[0],
                          "Initial yield stress sigma_y [Pa] per label (j2), positive: one value or one per label",
                          mpm->sigma_y, &cnt[0]));
  PetscCall(MPMLabelArray(PetscOptionsObject, mpm, opt[1],
                          "Linear isotropic hardening modulus H [Pa] per label (j2): yield stress sigma_y + H alpha, "
                          "alpha the equivalent plastic strain; H >= 0, one value or one per label",
                          mpm->H, &cnt[1]));
  PetscCall(
      MPMLabelArray(PetscOptionsObject, mpm, opt[2],
                    "Width eps [1] of the smoothed yield kinks per label (j2, drucker-prager): max(0, f) is "
                    "replaced by a C^1 quadratic over |f| < eps sigma_y (j2), over |f| < eps times the cone radius "
                    "and near the apex eps times the deviator (drucker-prager); 0 = exact return mapping (kinks), "
                    "0 <= eps < 1",
                    mpm->yield_smoothing, &cnt[2]));
  PetscOptionsEnd();
  for (PetscInt o = 0; o < 3; o++) {
    PetscCheck(cnt[o] == 1 || cnt[o] == mpm->nlabels, mpm->comm, PETSC_ERR_USER_INPUT,
               "%s has %" PetscInt_FMT " values but there are %" PetscInt_FMT
               " labels: give one value, or one per label",
               opt[o], cnt[o], mpm->nlabels);
    for (PetscInt l = cnt[o]; l < mpm->nlabels; l++) val[o][l] = val[o][0];
  }
  mpm->plastic = PETSC_FALSE;
  for (PetscInt l = 0; l < mpm->nlabels; l++) {
    PetscCheck(mpm->sigma_y[l] > 0 && PetscIsNormalReal(mpm->sigma_y[l]), mpm->comm, PETSC_ERR_USER_INPUT,
               "-mpm_sigma_y: yield stress of label %" PetscInt_FMT " is %g Pa; it must be positive and finite", l,
               (double)mpm->sigma_y[l]);
    PetscCheck(mpm->H[l] >= 0 && PetscIsNormalReal(mpm->H[l] + 1), mpm->comm, PETSC_ERR_USER_INPUT,
               "-mpm_H: hardening modulus of label %" PetscInt_FMT " is %g Pa; it must be non-negative and finite", l,
               (double)mpm->H[l]);
    PetscCheck(mpm->yield_smoothing[l] >= 0 && mpm->yield_smoothing[l] < 1, mpm->comm, PETSC_ERR_USER_INPUT,
               "-mpm_yield_smoothing: smoothing width of label %" PetscInt_FMT " is %g; it must lie in [0, 1)", l,
               (double)mpm->yield_smoothing[l]);
    if (MPMModelIsPlastic(MPMModelGetOps(mpm->model[l]))) mpm->plastic = PETSC_TRUE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -mpm_friction_angle, -mpm_cohesion per label (models that list friction_angle in their params, e.g.
 * drucker_prager; read for every run so that -help lists them): one value or one per label, checked with the option
 * and label named; mpm->granular when some label's model reads them. Collective. */
static PetscErrorCode MPMSetUpGranular(MPM mpm)
{
  const char *opt[2] = {"-mpm_friction_angle", "-mpm_cohesion"};
  PetscReal  *val[2] = {mpm->friction_angle, mpm->cohesion};
  PetscInt    cnt[2];

  PetscFunctionBeginUser;
  mpm->friction_angle[0] = 30, mpm->cohesion[0] = 0;
  PetscOptionsBegin(mpm->comm, mpm->prefix, "MPM: granular plasticity (-mpm_model drucker-prager)", "MPM");
  PetscCall(MPMLabelArray(PetscOptionsObject, mpm, opt[0],
                          "Internal friction angle phi [degrees] per label (drucker-prager), in (0, 90): one value or "
                          "one per label",
                          mpm->friction_angle, &cnt[0]));
  PetscCall(MPMLabelArray(PetscOptionsObject, mpm, opt[1],
                          "Mohr-Coulomb cohesion c [Pa] per label (drucker-prager): the cone apex sits at the mean "
                          "tension c cot(phi); c >= 0 (0: cohesionless sand), one value or one per label",
                          mpm->cohesion, &cnt[1]));
  PetscOptionsEnd();
  for (PetscInt o = 0; o < 2; o++) {
    PetscCheck(cnt[o] == 1 || cnt[o] == mpm->nlabels, mpm->comm, PETSC_ERR_USER_INPUT,
               "%s has %" PetscInt_FMT " values but there are %" PetscInt_FMT
               " labels: give one value, or one per label",
               opt[o], cnt[o], mpm->nlabels);
    for (PetscInt l = cnt[o]; l < mpm->nlabels; l++) val[o][l] = val[o][0];
  }
  mpm->granular = PETSC_FALSE;
  for (PetscInt l = 0; l < mpm->nlabels; l++) {
    PetscCheck(mpm->friction_angle[l] > 0 && mpm->friction_angle[l] < 90, mpm->comm, PETSC_ERR_USER_INPUT,
               "-mpm_friction_angle: friction angle of label %" PetscInt_FMT " is %g degrees; it must lie in (0, 90)",
               l, (double)mpm->friction_angle[l]);
    PetscCheck(mpm->cohesion[l] >= 0 && PetscIsNormalReal(mpm->cohesion[l] + 1), mpm->comm, PETSC_ERR_USER_INPUT,
               "-mpm_cohesion: cohesion of label %" PetscInt_FMT " is %g Pa; it must be non-negative and finite", l,
               (double)mpm->cohesion[l]);
    if (MPMModelIsGranular(MPMModelGetOps(mpm->model[l]))) mpm->granular = PETSC_TRUE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ MPMSetUpMaterials - E, nu, rho and the model per label, plasticity parameters, gravity. Collective. @*/
PetscErrorCode MPMSetUpMaterials(MPM mpm)
{
  PetscInt  nE, nnu, nrho, nmodel = MPM_MAX_LABELS, ng = MPM_DIM;
  char     *models[MPM_MAX_LABELS], help[512], list[256];
  PetscBool set;

  PetscFunctionBeginUser;
  mpm->E[0] = 1e5, mpm->nu[0] = 0.3, mpm->rho[0] = 1000;
  mpm->gravity[0] = 0, mpm->gravity[1] = -9.81;
  PetscOptionsBegin(mpm->comm, mpm->prefix, "MPM: materials", "MPM");
  PetscCall(MPMLabelArray(PetscOptionsObject, mpm, "-mpm_E",
                          "Young's modulus [Pa] per label: one value, or E0,E1,... for labels 0,1,...", mpm->E, &nE));
  PetscCall(MPMLabelArray(PetscOptionsObject, mpm, "-mpm_nu",
                          "Poisson ratio [1] per label, in (-1, 0.5): one value or one per label", mpm->nu, &nnu));
  PetscCall(MPMLabelArray(PetscOptionsObject, mpm, "-mpm_rho", "Density [kg/m^3] per label: one value or one per label",
                          mpm->rho, &nrho));
  PetscCall(MPMModelList(", ", " or ", PETSC_TRUE, sizeof(list), list));
  PetscCall(PetscSNPrintf(help, sizeof(help), "Constitutive model per label: %s; one value or one per label", list));
  PetscCall(PetscOptionsStringArray("-mpm_model", help, "", models, &nmodel, &set));
  if (!set) nmodel = 0;
  PetscCall(PetscOptionsRealArray("-mpm_gravity", "Gravity gx,gy [m/s^2]", "", mpm->gravity, &ng, &set));
  PetscOptionsEnd();
  PetscCheck(!set || ng == MPM_DIM, mpm->comm, PETSC_ERR_USER_INPUT, "-mpm_gravity needs %d components gx,gy", MPM_DIM);
  mpm->nlabels = PetscMax(PetscMax(nE, nnu), PetscMax(nrho, PetscMax(nmodel, 1)));
  {
    const char *opt[3] = {"-mpm_E", "-mpm_nu", "-mpm_rho"};
    PetscInt    cnt[3] = {nE, nnu, nrho};
    PetscReal  *val[3] = {mpm->E, mpm->nu, mpm->rho};

    for (PetscInt o = 0; o < 3; o++) {
      PetscCheck(cnt[o] == 1 || cnt[o] == mpm->nlabels, mpm->comm, PETSC_ERR_USER_INPUT,
                 "%s has %" PetscInt_FMT " values but there are %" PetscInt_FMT
                 " labels: give one value, or one per label",
                 opt[o], cnt[o], mpm->nlabels);
      for (PetscInt l = cnt[o]; l < mpm->nlabels; l++) val[o][l] = val[o][0];
    }
  }
  PetscCheck(nmodel <= 1 || nmodel == mpm->nlabels, mpm->comm, PETSC_ERR_USER_INPUT,
             "-mpm_model has %" PetscInt_FMT " values but there are %" PetscInt_FMT " labels", nmodel, mpm->nlabels);
  for (PetscInt l = 0; l < mpm->nlabels; l++) {
    mpm->model[l] = MPM_MODEL_FIXED_COROTATED;
    if (nmodel) PetscCall(MPMModelFromName(mpm->comm, "-mpm_model", models[nmodel == 1 ? 0 : l], l, &mpm->model[l]));
    PetscCheck(mpm->E[l] > 0 && PetscIsNormalReal(mpm->E[l]), mpm->comm, PETSC_ERR_USER_INPUT,
               "-mpm_E: Young's modulus of label %" PetscInt_FMT " is %g Pa; it must be positive and finite", l,
               (double)mpm->E[l]);
    PetscCheck(mpm->nu[l] > -1 && mpm->nu[l] < 0.5, mpm->comm, PETSC_ERR_USER_INPUT,
               "-mpm_nu: Poisson ratio of label %" PetscInt_FMT " is %g; it must lie in (-1, 0.5)", l,
               (double)mpm->nu[l]);
    PetscCheck(mpm->rho[l] > 0 && PetscIsNormalReal(mpm->rho[l]), mpm->comm, PETSC_ERR_USER_INPUT,
               "-mpm_rho: density of label %" PetscInt_FMT " is %g kg/m^3; it must be positive and finite", l,
               (double)mpm->rho[l]);
  }
  for (PetscInt m = 0; m < nmodel; m++) PetscCall(PetscFree(models[m]));
  PetscCall(MPMSetUpPlasticity(mpm));
  PetscCall(MPMSetUpGranular(mpm));
  /* the internal state stored per particle: as much as the labels' models need (0 for elastic-only runs) */
  mpm->nz = 0;
  for (PetscInt l = 0; l < mpm->nlabels; l++) mpm->nz = PetscMax(mpm->nz, MPMModelGetOps(mpm->model[l])->nstate);
  mpm->nrec = MPM_NSTATE + mpm->nz;
  PetscCheck(PetscIsNormalReal(mpm->gravity[0]) || mpm->gravity[0] == 0, mpm->comm, PETSC_ERR_USER_INPUT,
             "-mpm_gravity must be finite");
  PetscCheck(PetscIsNormalReal(mpm->gravity[1]) || mpm->gravity[1] == 0, mpm->comm, PETSC_ERR_USER_INPUT,
             "-mpm_gravity must be finite");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Largest P-wave speed sqrt((lambda + 2 mu) / rho) over the particles, with their label's material and with
 * their own E, nu (file bodies), and the largest initial particle speed. Collective. */
static PetscErrorCode MPMSpeeds(MPM mpm, PetscReal *wave, PetscReal *speed)
{
  const MPMMaterialPoint *mat;
  const PetscScalar      *x0;
  PetscReal               local[2] = {0, 0}, global[2];

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(mpm->mat, (const PetscScalar **)&mat));
  PetscCall(VecGetArrayRead(mpm->x0, &x0));
  for (PetscInt i = 0; i < mpm->nhome; i++) {
    const PetscInt     l = (PetscInt)mat[i].label;
    const MPMParticle *p = MPMRecordRead(x0, mpm->nrec, i);
    PetscReal          mu, lambda;

    MPMLameParameters(mpm->E[l], mpm->nu[l], &mu, &lambda);
    local[0] = PetscMax(local[0], PetscSqrtReal((lambda + 2 * mu) / mpm->rho[l]));
    MPMLameParameters(mat[i].E, mat[i].nu, &mu, &lambda);
    local[0] = PetscMax(local[0], PetscSqrtReal((lambda + 2 * mu) / mpm->rho[l]));
    local[1] = PetscMax(local[1], PetscSqrtReal(PetscSqr(p->v[0]) + PetscSqr(p->v[1])));
  }
  PetscCall(VecRestoreArrayRead(mpm->x0, &x0));
  PetscCall(VecRestoreArrayRead(mpm->mat, (const PetscScalar **)&mat));
  PetscCallMPI(MPI_Allreduce(local, global, 2, MPIU_REAL, MPIU_MAX, mpm->comm));
  *wave = global[0], *speed = global[1];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ MPMSetUpTime - the time axis (AdjTimeAxis: -mpm_final_time, -mpm_dt, -mpm_steps, -mpm_cfl) with the CFL limit
      dt <= cfl h_min / (c + v),  c the largest P-wave speed, v = largest initial speed + |g| T
    (a bound on the speed reached by free fall during the run). Collective. @*/
PetscErrorCode MPMSetUpTime(MPM mpm)
{
  PetscReal   v0 = 0;
  AdjTimeAxis ta;
  char        detail[256];

  PetscFunctionBeginUser;
  PetscCall(AdjTimeAxisCreate(mpm->comm, &ta));
  PetscCall(AdjTimeAxisSetOptionsPrefix(ta, mpm->prefix, "mpm"));
  PetscCall(AdjTimeAxisSetDefaults(ta, 1.0, 0.5));
  PetscCall(AdjTimeAxisSetHelp(ta, "Simulated time [s]",
                               "Time step [s]; default: the CFL limit (rounded down to divide final_time)", NULL,
                               "CFL number in (0, 1]: dt <= cfl h / (wave speed sqrt((lambda + 2 mu)/rho) + largest "
                               "initial speed + |g| final_time)"));
  PetscOptionsBegin(mpm->comm, mpm->prefix, "MPM: time stepping", "MPM");
  PetscCall(AdjTimeAxisSetFromOptions(ta, PetscOptionsObject));
  PetscOptionsEnd();
  PetscCall(AdjTimeAxisGetFinalTime(ta, &mpm->final_time));
  PetscCall(AdjTimeAxisGetCFL(ta, &mpm->cfl));
  PetscCall(MPMSpeeds(mpm, &mpm->wave_speed, &v0));
  mpm->speed_bound = v0 + PetscSqrtReal(PetscSqr(mpm->gravity[0]) + PetscSqr(mpm->gravity[1])) * mpm->final_time;
  mpm->dt_limit    = mpm->cfl * PetscMin(mpm->grid.h[0], mpm->grid.h[1]) / (mpm->wave_speed + mpm->speed_bound);
  PetscCall(PetscSNPrintf(detail, sizeof(detail), " = -mpm_cfl %g x h %g m / (wave speed %g m/s + speed bound %g m/s)",
                          (double)mpm->cfl, (double)PetscMin(mpm->grid.h[0], mpm->grid.h[1]), (double)mpm->wave_speed,
                          (double)mpm->speed_bound));
  PetscCall(AdjTimeAxisSetLimit(ta, ADJ_TIME_LIMIT_CFL, mpm->dt_limit, "CFL limit", detail));
  PetscCall(AdjTimeAxisSetUp(ta));
  PetscCall(AdjTimeAxisGetSteps(ta, &mpm->nsteps, &mpm->dt));
  PetscCall(AdjTimeAxisDestroy(&ta));
  PetscFunctionReturn(PETSC_SUCCESS);
}
