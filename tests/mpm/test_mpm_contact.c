/* MPM contact physics (run on 1 and 2 ranks):
 *  1. a disk dropped on a horizontal plane obstacle (not a domain wall) comes to rest on it: no particle
 *     ever passes through the plane, the lowest one ends within a cell of it, the centre of mass stops;
 *  2. a box sliding on a friction floor wall decelerates at mu g (Coulomb), and keeps its speed on a
 *     slip floor;
 *  3. the same on a friction / slip plane obstacle above the floor;
 *  4. a disk on a slip plane tilted by 30 degrees: contact only pushes along the plane's normal, so the
 *     centre of mass accelerates along the slope at exactly g sin(30 deg).
 * Coulomb friction is checked at a smoothing width eps = 1e-3 m/s, well below the normal speed g dt
 * (~1e-2 m/s) that the contact removes per step: the regularization then adds about eps^2 / (4 (g dt)^2)
 * ~ 0.3 % to the friction force (at the default eps = 1e-2 m/s, i.e. eps ~ g dt, we measured +11 %); the
 * MLS-MPM discretization of the contact band adds about 1 %.  Tolerance 5 %. */
#include "mpmtest.h"

#define MAX_STEPS 4096

typedef struct {
  PetscInt  n;                   /* states recorded */
  PetscReal t[MAX_STEPS];        /* time [s] */
  PetscReal v[MAX_STEPS][2];     /* centre-of-mass velocity [m/s] */
  PetscReal c[MAX_STEPS][2];     /* centre of mass [m] */
  PetscReal phimin[MAX_STEPS];   /* lowest signed distance of a particle to obstacle 0 [m] */
  PetscReal maxspeed[MAX_STEPS]; /* largest particle speed [m/s] */
  PetscReal h;                   /* smaller cell size [m] */
} History;

static PetscErrorCode HistoryMonitor(AdjStepper st, AdjStepIndex k, Vec x, void *vctx)
{
  History           *hist = (History *)vctx;
  MPM                mpm;
  MPMSummary         s;
  const MPMParticle *p;
  PetscInt           n;
  PetscReal          phi = PETSC_MAX_REAL, gphi = (PetscReal)NAN;

  PetscFunctionBeginUser;
  PetscCheck(k < MAX_STEPS, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "test run too long");
  PetscCall(AdjStepperGetContext(st, &mpm));
  PetscCall(MPMSummarize(st, x, &s));
  PetscCall(VecGetLocalSize(x, &n));
  PetscCall(VecGetArrayRead(x, (const PetscScalar **)&p));
  for (PetscInt i = 0; i < n / MPM_NSTATE && mpm->grid.nobstacles; i++) {
    PetscReal nrm[MPM_DIM];
    phi = AdjTestMin(phi, MPMObstacleDistance(&mpm->grid.obstacle[0], p[i].x, nrm));
  }
  PetscCall(VecRestoreArrayRead(x, (const PetscScalar **)&p));
  PetscCall(AdjTestGlobalMin(PETSC_COMM_WORLD, phi, &gphi)); /* keeps a NaN, unlike PetscMin and MPI_MIN */
  hist->t[k]        = k * mpm->dt;
  hist->v[k][0]     = s.momentum[0] / s.mass;
  hist->v[k][1]     = s.momentum[1] / s.mass;
  hist->c[k][0]     = s.centre[0];
  hist->c[k][1]     = s.centre[1];
  hist->phimin[k]   = gphi;
  hist->maxspeed[k] = s.max_speed;
  hist->n           = k + 1;
  hist->h           = PetscMin(mpm->grid.h[0], mpm->grid.h[1]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Runs the case of the options base + extra and records its history. */
static PetscErrorCode RunCase(const char *const base[], const char *const extra[], History *hist)
{
  AdjStepper st;
  MPM        mpm;
  Vec        x;

  PetscFunctionBeginUser;
  PetscCall(MPMTestCreate(PETSC_COMM_WORLD, base, extra, &st));
  PetscCall(AdjStepperGetContext(st, &mpm));
  PetscCall(VecDuplicate(mpm->x0, &x));
  PetscCall(MPMTestRun(st, -1, x, HistoryMonitor, hist));
  PetscCall(VecDestroy(&x));
  PetscCall(AdjStepperDestroy(&st));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* How far the deepest particle went below the obstacle (0 when none did): NaN when a distance was NaN, and infinite
 * when no distance was ever measured (deepest still at its start PETSC_MAX_REAL: no obstacle, no particles), since
 * then "nothing went through the plane" tests nothing. */
static PetscReal Penetration(PetscReal deepest)
{
  return deepest >= PETSC_MAX_REAL ? (PetscReal)INFINITY : AdjTestMax(0, -deepest);
}

/* Least-squares slope of the velocity component along dir over the recorded times in [t0, t1]. */
static PetscReal Slope(const History *hist, const PetscReal dir[2], PetscReal t0, PetscReal t1)
{
  PetscReal st = 0, sv = 0, stt = 0, stv = 0, cnt = 0;

  for (PetscInt k = 0; k < hist->n; k++) {
    const PetscReal t = hist->t[k], v = hist->v[k][0] * dir[0] + hist->v[k][1] * dir[1];

    if (t < t0 || t > t1) continue;
    st += t, sv += v, stt += t * t, stv += t * v, cnt += 1;
  }
  return (cnt * stv - st * sv) / (cnt * stt - st * st);
}

/* 1. Disk (r = 0.1 m, E = 100 kPa) dropped from 0.1 m onto the friction plane y = 0.3 m; 1 s.  Elastic waves
 * in the disk are not damped (explicit MLS-MPM has no viscosity), so "at rest" means: over the last 0.3 s its
 * centre of mass moves up and down by less than a quarter of a cell (it no longer bounces) and stays over
 * its starting point. */
static PetscErrorCode TestDiskOnPlane(History *hist, PetscInt *fail)
{
  const char *const opts[]  = {"-mpm_grid",
                               "32,32",
                               "-mpm_E",
                               "1e5",
                               "-mpm_body0",
                               "disk:0.5,0.5,0.1",
                               "-mpm_obstacle0",
                               "plane:0,0.3,0,1:friction",
                               "-mpm_final_time",
                               "1.0",
                               NULL};
  PetscReal         deepest = PETSC_MAX_REAL, lo = PETSC_MAX_REAL, hi = -PETSC_MAX_REAL, speed = 0, drift = 0;

  PetscFunctionBeginUser;
  PetscCall(RunCase(opts, NULL, hist));
  for (PetscInt k = 0; k < hist->n; k++) {
    deepest = AdjTestMin(deepest, hist->phimin[k]);
    if (hist->t[k] < 0.7) continue;
    lo    = AdjTestMin(lo, hist->c[k][1]);
    hi    = AdjTestMax(hi, hist->c[k][1]);
    speed = AdjTestMax(speed, PetscSqrtReal(PetscSqr(hist->v[k][0]) + PetscSqr(hist->v[k][1])));
    drift = AdjTestMax(drift, PetscAbsReal(hist->c[k][0] - 0.5));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "disk on plane: lowest particle %.4f m above the plane at the end (h = %.4f m); over t in "
                        "[0.7, 1] s the centre of mass lies at %.4f .. %.4f m, speed <= %.3f m/s\n",
                        (double)hist->phimin[hist->n - 1], (double)hist->h, (double)lo, (double)hi, (double)speed));
  PetscCall(MPMTestReport("disk on plane: deepest particle below the plane during the run [m]", Penetration(deepest), 0,
                          fail));
  PetscCall(MPMTestReport("disk on plane: final lowest particle height above the plane [cells]",
                          hist->phimin[hist->n - 1] / hist->h, 1.0, fail));
  PetscCall(MPMTestReport("disk on plane: up-down motion of the centre of mass over t in [0.7, 1] s [cells]",
                          (hi - lo) / hist->h, 0.25, fail));
  PetscCall(MPMTestReport("disk on plane: sideways drift of the centre of mass [m]", drift, 1e-12, fail));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 2, 3. A box (0.3 m x 0.1 m, E = 50 kPa) sliding at 2 m/s on a floor of the given kind (options extra):
 * with friction mu = 0.3 its centre of mass decelerates at mu g, fitted over t in [0.05, 0.5] s (it stops at
 * 0.68 s); on a slip floor it keeps vx = 2 m/s to round-off (nothing acts along the floor). */
static PetscErrorCode TestSlidingBox(const char name[], const char *const box, const char *const friction[],
                                     const char *const slip[], History *hist, PetscInt *fail)
{
  const char *const base[] = {"-mpm_grid",
                              "64,16",
                              "-mpm_domain",
                              "2,0.5",
                              "-mpm_E",
                              "5e4",
                              "-mpm_body0",
                              box,
                              "-mpm_wall_friction",
                              "0.3",
                              "-mpm_friction_smoothing",
                              "1e-3",
                              "-mpm_final_time",
                              "0.5",
                              NULL};
  const PetscReal   ex[2] = {1, 0}, mug = 0.3 * 9.81;
  PetscReal         a, drift            = 0;
  char              title[128];

  PetscFunctionBeginUser;
  PetscCall(RunCase(base, friction, hist));
  a = -Slope(hist, ex, 0.05, 0.5);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s, friction: deceleration %.4f m/s^2, mu g = %.4f m/s^2\n", name, (double)a,
                        (double)mug));
  PetscCall(PetscSNPrintf(title, sizeof(title), "%s, friction: |deceleration / (mu g) - 1|", name));
  PetscCall(MPMTestReport(title, PetscAbsReal(a / mug - 1), 0.05, fail));
  PetscCall(RunCase(base, slip, hist));
  for (PetscInt k = 0; k < hist->n; k++) drift = AdjTestMax(drift, PetscAbsReal(hist->v[k][0] / 2.0 - 1));
  PetscCall(PetscSNPrintf(title, sizeof(title), "%s, slip: max |vx / v0 - 1| of the centre of mass", name));
  PetscCall(MPMTestReport(title, drift, 1e-12, fail));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 4. A disk resting against the slip plane through (0.6, 0.3) tilted by 30 degrees (outward normal
 * (-1/2, sqrt(3)/2)): along the slope t = (-sqrt(3)/2, -1/2) only gravity acts, v_t = g sin(30) t. */
static PetscErrorCode TestTiltedPlane(History *hist, PetscInt *fail)
{
  const char *const opts[] = {"-mpm_grid",
                              "32,32",
                              "-mpm_E",
                              "2e4",
                              "-mpm_body0",
                              "disk:0.55,0.46,0.1",
                              "-mpm_obstacle0",
                              "plane:0.6,0.3,-0.5,0.8660254037844386:slip",
                              "-mpm_final_time",
                              "0.25",
                              NULL};
  const PetscReal   dir[2] = {-0.8660254037844386, -0.5};
  PetscReal         err = 0, deepest = PETSC_MAX_REAL;

  PetscFunctionBeginUser;
  PetscCall(RunCase(opts, NULL, hist));
  for (PetscInt k = 0; k < hist->n; k++) {
    const PetscReal vt = hist->v[k][0] * dir[0] + hist->v[k][1] * dir[1];

    err     = AdjTestMax(err, PetscAbsReal(vt - 0.5 * 9.81 * hist->t[k]) / (0.5 * 9.81 * hist->t[hist->n - 1]));
    deepest = AdjTestMin(deepest, hist->phimin[k]);
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "tilted slip plane: slid %.3f m/s down the slope\n",
                        (double)(hist->v[hist->n - 1][0] * dir[0] + hist->v[hist->n - 1][1] * dir[1])));
  PetscCall(MPMTestReport("tilted slip plane: max |v_slope - g sin(30) t| / (g sin(30) T)", err, 1e-12, fail));
  PetscCall(MPMTestReport("tilted slip plane: deepest particle below the plane [m]", Penetration(deepest), 0, fail));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt          fail      = 0;
  History          *hist      = NULL;
  const char *const wall_f[]  = {"-mpm_wall_ylo", "friction", NULL};
  const char *const wall_s[]  = {"-mpm_wall_ylo", "slip", NULL};
  const char *const plane_f[] = {"-mpm_obstacle0", "plane:0,0.2,0,1:friction", NULL};
  const char *const plane_s[] = {"-mpm_obstacle0", "plane:0,0.2,0,1:slip", NULL};

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscNew(&hist));
  PetscCall(TestDiskOnPlane(hist, &fail));
  /* the floor wall acts on the nodes y <= 2 h = 0.0625 m: the box starts resting on them */
  PetscCall(TestSlidingBox("box on floor wall", "box:0.2,0.0625,0.5,0.1625:0:2,0", wall_f, wall_s, hist, &fail));
  PetscCall(TestSlidingBox("box on plane obstacle", "box:0.2,0.2,0.5,0.3:0:2,0", plane_f, plane_s, hist, &fail));
  PetscCall(TestTiltedPlane(hist, &fail));
  PetscCall(PetscFree(hist));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " check(s) failed\n", fail ? "FAIL" : "PASS", fail));
  PetscCall(PetscFinalize());
  return fail ? 1 : 0;
}
