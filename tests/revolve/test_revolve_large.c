/* Revolve schedule, large n: the closed-form counts must stay exact (no binomial overflow) for
   n = 10^8 and c = 10, 50, 200, and full schedules of 10^6 steps must run quickly and be optimal.
   References: this file's own exact arithmetic (unsigned __int128 binomials) and values computed
   independently with Python's math.comb. Option -large_n <n> changes the size of the executed schedules. */
#include "revolvesim.h"

typedef unsigned __int128 u128;

/* exact t(n,c) = r n - C(c+r, r-1), r = min{r : C(c+r,c) >= n}; C(c+r,c) grows by (c+r+1)/(r+1) per r */
static int64_t ExactExtra(int64_t n, int c, int64_t *rep)
{
  u128    binom = 1; /* C(c+r, c) */
  u128    lower = 0; /* C(c+r, r-1) = C(c+r, c) * r / (c+1) */
  int64_t r     = 0;

  while (binom < (u128)n) {
    binom = binom * (u128)(c + r + 1) / (u128)(r + 1);
    r++;
  }
  if (r > 0) lower = binom * (u128)r / (u128)(c + 1);
  *rep = r;
  return r == 0 ? 0 : (int64_t)((u128)r * (u128)n - lower);
}

int main(int argc, char **argv)
{
  const int      cs[]        = {10, 50, 200};
  const int64_t  known_1e8[] = {2113902240, 663711748, 428547045}; /* math.comb, n = 10^8 */
  const int64_t  known_rep[] = {24, 7, 5};
  const int64_t  known_1e6[] = {11647922, 4658945, 2979497}; /* math.comb, n = 10^6 */
  int64_t        nbig = 100000000, nrun = 1000000;
  PetscLogDouble t_start, t0, t1;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  {
    PetscInt n_option = (PetscInt)nrun;
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-large_n", &n_option, NULL));
    nrun = n_option;
  }
  PetscCall(PetscTime(&t_start));
  for (int i = 0; i < 3; i++) {
    int64_t rep, exact = ExactExtra(nbig, cs[i], &rep);
    int64_t lib = AdjRevolveMinimalAdvances(nbig, cs[i]), librep = AdjRevolveRepetitionNumber(nbig, cs[i]);

    PetscCheck(exact == known_1e8[i] && rep == known_rep[i], PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "test arithmetic broken: t(1e8,%d) = %" PRId64 " (r=%" PRId64 "), Python says %" PRId64 " (r=%" PRId64
               ")",
               cs[i], exact, rep, known_1e8[i], known_rep[i]);
    PetscCheck(lib == exact && librep == rep, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "n=1e8 c=%d: library t = %" PRId64 " r = %" PRId64 ", exact t = %" PRId64 " r = %" PRId64
               " (off by %" PRId64 ")",
               cs[i], lib, librep, exact, rep, lib - exact);
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "n=1e8 c=%3d: r=%" PRId64 " t=%" PRId64 " exact\n", cs[i], rep, lib));
  }
  /* extreme corners: one slot (quadratic count) and thousands of slots (r tiny) */
  {
    int64_t rep, n = 3000000000LL;
    PetscCheck(AdjRevolveMinimalAdvances(n, 1) == n / 2 * (n - 1), PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "t(3e9,1) = %" PRId64 ", expected n(n-1)/2 = %" PRId64, AdjRevolveMinimalAdvances(n, 1),
               n / 2 * (n - 1));
    PetscCheck(AdjRevolveMinimalAdvances(n, 5000) == ExactExtra(n, 5000, &rep), PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "t(3e9,5000) = %" PRId64 ", exact %" PRId64, AdjRevolveMinimalAdvances(n, 5000),
               ExactExtra(n, 5000, &rep));
    PetscCheck(AdjRevolveMinimalAdvances(n, 2) == ExactExtra(n, 2, &rep), PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "t(3e9,2) = %" PRId64 ", exact %" PRId64, AdjRevolveMinimalAdvances(n, 2), ExactExtra(n, 2, &rep));
  }
  for (int i = 0; i < 3; i++) {
    SimResult res;
    int64_t   rep, exact = ExactExtra(nrun, cs[i], &rep);

    if (nrun == 1000000)
      PetscCheck(exact == known_1e6[i], PETSC_COMM_SELF, PETSC_ERR_PLIB,
                 "test arithmetic broken: t(1e6,%d) = %" PRId64 ", Python says %" PRId64, cs[i], exact, known_1e6[i]);
    PetscCall(PetscTime(&t0));
    PetscCall(SimulateSchedule(nrun, cs[i], PETSC_FALSE, &res));
    PetscCall(PetscTime(&t1));
    PetscCheck(res.forward == nrun + exact, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "n=%" PRId64 " c=%d: schedule evaluates %" PRId64 " forward steps, optimum %" PRId64 " (off by %" PRId64
               ")",
               nrun, cs[i], res.forward, nrun + exact, res.forward - (nrun + exact));
    PetscCall(PetscPrintf(PETSC_COMM_SELF,
                          "n=%" PRId64 " c=%3d: %" PRId64 " forward steps (optimal), %" PRId64 " actions, %" PRId64
                          " snapshots, peak %" PetscInt_FMT " live, %.2f s\n",
                          nrun, cs[i], res.forward, res.actions, res.takeshots, res.peak_live, t1 - t0));
  }
  PetscCall(PetscTime(&t1));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "total %.2f s\n", t1 - t_start));
  PetscCall(PetscFinalize());
  return 0;
}
