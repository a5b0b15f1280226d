/* The sample generator of robust design (AdjRobustDraw, src/optim/robust.c, docs/multipoint.md "Robust design"):
 *  1. known values: seed 1, samples 0..3 of normal(0, 1) and uniform(0, 1) equal the documented ones bit for bit;
 *  2. the documented formula: the values equal a re-implementation with libm's log and cos to 1e-14 (the generator's
 *     own series for ln and cos are what make it libm independent);
 *  3. every rank draws the same bits (min = max over the ranks);
 *  4. moments of 200000 draws: mean and variance of normal(2, 3) and uniform(-1, 5) within 5 standard errors, the
 *     uniform draws in [lo, hi). Fails by exit code. */
#include <adjsim/multipoint.h>
#include <math.h>
#include <stdint.h>

static uint64_t Mix(uint64_t z)
{
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}

/* the formula of docs/multipoint.md with libm */
static double Reference(uint64_t seed, uint64_t i, uint64_t v, AdjRobustDist dist, double a, double b)
{
  const uint64_t key = Mix(Mix(seed) ^ (65536 * i + v)), g = UINT64_C(0x9e3779b97f4a7c15);
  const double   u1 = ((Mix(key + g) >> 11) + 1) * 0x1p-53, u2 = ((Mix(key + 2 * g) >> 11) + 1) * 0x1p-53;
  return dist == ADJ_ROBUST_UNIFORM ? a + (b - a) * (u1 - 0x1p-53)
                                    : a + b * sqrt(-2 * log(u1)) * cos(2 * PETSC_PI * u2);
}

int main(int argc, char **argv)
{
  /* seed 1, samples 0..3, variable 0: normal(0, 1), then uniform(0, 1) (docs/multipoint.md; an independent Python
   * implementation of the formula with math.log and math.cos gives the same to 4e-16) */
  const double known[2][4] = {
      {1.4032894255557904, -1.479023855909688, -2.0420140612511832, -0.29603003715100562},
      {0.2558852031320078, 0.3225781845341229, 0.037392706155143118, 0.54691817446414503},
  };
  PetscInt    fails = 0;
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  for (int d = 0; d < 2; d++)
    for (int i = 0; i < 4; i++) {
      PetscReal x, lo, hi;
      PetscCall(AdjRobustDraw(1, i, 0, (AdjRobustDist)d, 0, 1, &x));
      PetscCallMPI(MPI_Allreduce(&x, &lo, 1, MPIU_REAL, MPIU_MIN, PETSC_COMM_WORLD));
      PetscCallMPI(MPI_Allreduce(&x, &hi, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "seed 1 sample %d %s: %.17g (documented %.17g)\n", i,
                            d ? "uniform(0,1)" : "normal(0,1) ", (double)x, known[d][i]));
      if (x != known[d][i]) fails++;
      if (lo != hi) fails++;
    }
  {
    double err = 0;
    for (int i = 0; i < 2000; i++)
      for (int d = 0; d < 2; d++) {
        PetscReal x;
        PetscCall(AdjRobustDraw(7, i, 1, (AdjRobustDist)d, 2, 3, &x));
        err = fmax(err, fabs(x - Reference(7, (uint64_t)i, 1, (AdjRobustDist)d, 2, 3)) / (1 + fabs(x)));
      }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "against the formula with libm's log and cos: max rel diff %.2e\n", err));
    if (!(err <= 1e-14)) fails++;
  }
  for (int d = 0; d < 2; d++) {
    const int    n = 200000;
    const double a = d ? -1 : 2, b = d ? 5 : 3;
    const double mean = d ? 0.5 * (a + b) : a, var = d ? (b - a) * (b - a) / 12 : b * b;
    double       s = 0, s2 = 0, ok = 1;
    for (int i = 0; i < n; i++) {
      PetscReal x;
      PetscCall(AdjRobustDraw(3, i, 0, (AdjRobustDist)d, a, b, &x));
      s += x;
      s2 += x * x;
      if (d && !(x >= a && x < b)) ok = 0;
    }
    const double m = s / n, v = s2 / n - m * m;
    const double se_m = sqrt(var / n), se_v = var * sqrt((d ? 0.8 : 2.0) / n); /* var of s^2: (kurtosis - 1) var^2 */
    PetscCall(
        PetscPrintf(PETSC_COMM_WORLD,
                    "%s: mean %.5f (exact %.5f, %.1f std errors), variance %.5f (exact %.5f, %.1f std errors)%s\n",
                    d ? "uniform(-1,5)" : "normal(2,3)", m, mean, fabs(m - mean) / se_m, v, var, fabs(v - var) / se_v,
                    ok ? "" : ", DRAWS OUTSIDE [lo, hi)"));
    if (!(fabs(m - mean) < 5 * se_m && fabs(v - var) < 5 * se_v && ok)) fails++;
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s (%" PetscInt_FMT " failures)\n", fails ? "FAIL" : "PASS", fails));
  PetscCall(PetscFinalize());
  return fails ? 1 : 0;
}
