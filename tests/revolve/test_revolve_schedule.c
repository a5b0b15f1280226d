/* Revolve schedule, exhaustive: every n <= 500 with every c <= 50.
   - each schedule is executed by a simulator that checks every action (revolvesim.h);
   - its forward count must equal n + t(n,c), with t computed here from our own Pascal triangle;
   - for n <= 100, c <= 10 the closed form is confirmed by a brute-force dynamic program of
     T(l,s) = min_m [m + T(m,s) + T(l-m,s-1)], T(l,1) = l(l-1)/2, T(1,s) = 0;
   - bad arguments to AdjRevolveCreate must be refused with PETSC_ERR_ARG_OUTOFRANGE. */
#include "revolvesim.h"

#define NMAX     500
#define CMAX     50
#define DP_NMAX  100
#define DP_CMAX  10
#define ROWS     (NMAX + CMAX + 2)
#define SATURATE ((uint64_t)1 << 62)

static uint64_t pascal[ROWS][ROWS]; /* pascal[a][k] = C(a,k), saturated at SATURATE */

static void PascalBuild(void)
{
  for (int a = 0; a < ROWS; a++) {
    pascal[a][0] = 1;
    for (int k = 1; k <= a; k++) {
      uint64_t v   = pascal[a - 1][k - 1] + (k <= a - 1 ? pascal[a - 1][k] : 0);
      pascal[a][k] = v > SATURATE ? SATURATE : v;
    }
  }
}

/* reference repetition number and extra forward steps from the Pascal triangle */
static int64_t RefRepetition(int64_t n, int c)
{
  int64_t r = 0;
  while (pascal[c + r][c] < (uint64_t)n) r++;
  return r;
}

static int64_t RefExtra(int64_t n, int c)
{
  int64_t r = RefRepetition(n, c);
  return r == 0 ? 0 : r * n - (int64_t)pascal[c + r][r - 1];
}

static PetscErrorCode CheckClosedFormAgainstDP(void)
{
  static int64_t T[DP_NMAX + 1][DP_CMAX + 1];

  PetscFunctionBeginUser;
  for (int l = 1; l <= DP_NMAX; l++) {
    for (int s = 1; s <= DP_CMAX; s++) {
      if (l == 1)
        T[l][s] = 0;
      else if (s == 1)
        T[l][s] = (int64_t)l * (l - 1) / 2;
      else {
        int64_t best = INT64_MAX;
        for (int m = 1; m < l; m++) best = PetscMin(best, m + T[m][s] + T[l - m][s - 1]);
        T[l][s] = best;
      }
      PetscCheck(T[l][s] == RefExtra(l, s), PETSC_COMM_SELF, PETSC_ERR_PLIB,
                 "closed form r l - C(s+r,r-1) = %" PRId64 " differs from the dynamic program T(%d,%d) = %" PRId64
                 " by %" PRId64,
                 RefExtra(l, s), l, s, T[l][s], RefExtra(l, s) - T[l][s]);
    }
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "closed form == dynamic program for l <= %d, s <= %d\n", DP_NMAX, DP_CMAX));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckBadArguments(void)
{
  AdjRevolve     rev = NULL;
  PetscErrorCode ierr0, ierr1;

  PetscFunctionBeginUser;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr0 = AdjRevolveCreate(0, 3, &rev);
  ierr1 = AdjRevolveCreate(5, 0, &rev);
  PetscCall(PetscPopErrorHandler());
  PetscCheck(ierr0 == PETSC_ERR_ARG_OUTOFRANGE && ierr1 == PETSC_ERR_ARG_OUTOFRANGE && !rev, PETSC_COMM_SELF,
             PETSC_ERR_PLIB,
             "AdjRevolveCreate(0,3) returned %d and (5,0) returned %d, expected %d (PETSC_ERR_ARG_OUTOFRANGE)",
             (int)ierr0, (int)ierr1, (int)PETSC_ERR_ARG_OUTOFRANGE);
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  AdjStepIndex   total_actions = 0;
  PetscLogDouble t0, t1;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscTime(&t0));
  PascalBuild();
  PetscCall(CheckClosedFormAgainstDP());
  PetscCall(CheckBadArguments());
  for (int64_t n = 1; n <= NMAX; n++) {
    for (int c = 1; c <= CMAX; c++) {
      SimResult res;
      int64_t   extra = RefExtra(n, c);

      PetscCheck(AdjRevolveRepetitionNumber(n, c) == RefRepetition(n, c), PETSC_COMM_SELF, PETSC_ERR_PLIB,
                 "n=%" PRId64 " c=%d: AdjRevolveRepetitionNumber = %" PRId64 ", reference %" PRId64, n, c,
                 AdjRevolveRepetitionNumber(n, c), RefRepetition(n, c));
      PetscCheck(AdjRevolveMinimalAdvances(n, c) == extra, PETSC_COMM_SELF, PETSC_ERR_PLIB,
                 "n=%" PRId64 " c=%d: AdjRevolveMinimalAdvances = %" PRId64 ", reference t(n,c) = %" PRId64
                 " (off by %" PRId64 ")",
                 n, c, AdjRevolveMinimalAdvances(n, c), extra, AdjRevolveMinimalAdvances(n, c) - extra);
      PetscCall(SimulateSchedule(n, c, PETSC_TRUE, &res));
      PetscCheck(res.forward == n + extra, PETSC_COMM_SELF, PETSC_ERR_PLIB,
                 "n=%" PRId64 " c=%d: schedule evaluates %" PRId64 " forward steps, optimum n + t(n,c) = %" PRId64
                 " (off by %" PRId64 ")",
                 n, c, res.forward, n + extra, res.forward - (n + extra));
      PetscCheck(res.peak_live <= c, PETSC_COMM_SELF, PETSC_ERR_PLIB,
                 "n=%" PRId64 " c=%d: %" PetscInt_FMT " checkpoints live at once", n, c, res.peak_live);
      total_actions += res.actions;
    }
  }
  PetscCall(PetscTime(&t1));
  PetscCall(PetscPrintf(PETSC_COMM_SELF,
                        "revolve schedules n <= %d, c <= %d: all valid and optimal (%" PRId64 " actions, %.2f s)\n",
                        NMAX, CMAX, total_actions, t1 - t0));
  PetscCall(PetscFinalize());
  return 0;
}
