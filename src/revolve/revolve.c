/* Binomial checkpointing schedule (Griewank & Walther, ACM TOMS 26(1), 2000).

   Cost model. Reversing l steps from a checkpoint holding the current state, with s slots available
   (the one holding the current state included), costs l recomputations (one per REVERSE) plus T(l,s)
   extra forward steps, where
     T(1,s) = 0,   T(l,1) = l(l-1)/2   (advance l-1, reverse, restore, advance l-2, ...),
     T(l,s) = min_{1<=m<l} [ m + T(m,s) + T(l-m,s-1) ]:
   advance m steps and store x_m on top of the stack, reverse the last l-m steps with one slot less,
   then drop that snapshot and reverse the first m steps with all s slots again. The closed form is
     T(l,s) = r l - C(s+r, r-1),   r = r(l,s) = min{ r >= 0 : C(s+r, s) >= l }.
   T(.,s) is convex and piecewise linear with slope T(l,s) - T(l-1,s) = r(l,s) (at a breakpoint
   l-1 = C(s+r,s) the jump is l + r - C(s+r,r) = r+1), so h(m) = m + T(m,s) + T(l-m,s-1) is convex in m
   with forward difference
     h(m+1) - h(m) = 1 + r(m+1,s) - r(l-m,s-1),
   nondecreasing in m. The smallest minimiser is the smallest m with a nonnegative difference (or l-1),
   found by bisection in O(log l) repetition-number evaluations. Every minimiser gives the optimal
   forward count; the smallest one takes fewer snapshots than the largest (measured: n = 10^6, c = 10:
   430486 vs 446124), hence fewer disk writes in the two-level store. With m = l-1 no snapshot is
   taken at all, because x_{end-1} would be dead right after the reversal of step `end`. */
#include <adjsim/revolve.h>

struct _p_AdjRevolve {
  AdjStepIndex  nsteps;   /* n */
  PetscInt      nslots;   /* c */
  AdjStepIndex *stack;    /* stack[k] = step held by stack position k, k < ntop */
  PetscInt      ntop;     /* number of live checkpoints */
  AdjStepIndex  current;  /* step of the current state; -1 once a reversal has consumed it */
  AdjStepIndex  end;      /* next step to reverse; 0 when everything is reversed */
  PetscBool     started;  /* x_0 has been handed out for storage */
  PetscBool     pending;  /* the last ADVANCE reached a step that must be stored next */
  PetscBool     finished; /* TERMINATE has been handed out */
};

static int64_t GreatestCommonDivisor(int64_t a, int64_t b)
{
  while (b) {
    int64_t t = a % b;
    a         = b;
    b         = t;
  }
  return a;
}

/* min(C(a,k), cap) for a >= 0, without overflow. The partial products C(a-k+i, i), i = 1..k, grow
   monotonically, so the loop stops as soon as the cap is reached. Each update
   C(a-k+i, i) = C(a-k+i-1, i-1) (a-k+i) / i is exact: after cancelling g = gcd(a-k+i, i) the
   denominator i/g is coprime with the numerator and must divide the previous binomial. */
static int64_t BinomialCapped(int64_t a, int64_t k, int64_t cap)
{
  int64_t v = 1;

  if (k < 0 || k > a) return 0;
  if (k > a - k) k = a - k;
  if (cap <= 1) return cap < 1 ? cap : 1;
  for (int64_t i = 1; i <= k; i++) {
    int64_t num = a - k + i, den = i, g = GreatestCommonDivisor(num, den);
    num /= g;
    den /= g;
    v /= den;
    if (v > cap / num) return cap;
    v *= num;
    if (v >= cap) return cap;
  }
  return v;
}

AdjStepIndex AdjRevolveRepetitionNumber(AdjStepIndex n, PetscInt c)
{
  AdjStepIndex lo, hi;

  if (n <= 1 || c < 1) return 0;
  if (c == 1) return n - 1; /* C(1+r,1) = r+1 */
  /* Gallop then bisect on r: C(c+r,c) costs min(c,r) multiplications, so this is cheap for both
     many slots (small r) and few slots (large r). Invariant: C(c+lo,c) < n <= C(c+hi,c). */
  lo = 0;
  hi = 1;
  while (BinomialCapped((int64_t)c + hi, c, n) < n) {
    lo = hi;
    hi *= 2;
  }
  while (hi - lo > 1) {
    AdjStepIndex mid = lo + (hi - lo) / 2;
    if (BinomialCapped((int64_t)c + mid, c, n) < n)
      lo = mid;
    else
      hi = mid;
  }
  return hi;
}

AdjStepIndex AdjRevolveMinimalAdvances(AdjStepIndex n, PetscInt c)
{
  AdjStepIndex r;

  if (n <= 1 || c < 1) return 0;
  if (c == 1) return n % 2 ? n * ((n - 1) / 2) : (n / 2) * (n - 1);
  r = AdjRevolveRepetitionNumber(n, c);
  /* C(c+r, r-1) <= r n because t(n,c) >= 0, so the cap is never reached */
  return r * n - BinomialCapped((int64_t)c + r, r - 1, INT64_MAX);
}

/* Position of the next snapshot: m steps ahead of the current checkpoint, 1 <= m <= l-1, with l >= 2
   steps left to reverse and s >= 2 slots available. See the comment at the top of the file. */
static AdjStepIndex RevolveOptimalSplit(AdjStepIndex l, PetscInt s)
{
  AdjStepIndex lo = 1, hi = l - 1; /* answer in [lo, hi]; l-1 when every difference is negative */

  while (lo < hi) {
    AdjStepIndex m     = lo + (hi - lo) / 2;
    AdjStepIndex delta = 1 + AdjRevolveRepetitionNumber(m + 1, s) - AdjRevolveRepetitionNumber(l - m, s - 1);
    if (delta >= 0)
      hi = m;
    else
      lo = m + 1;
  }
  return lo;
}

PetscErrorCode AdjRevolveCreate(AdjStepIndex nsteps, PetscInt nslots, AdjRevolve *rev)
{
  AdjRevolve r;

  PetscFunctionBeginUser;
  PetscCheck(rev, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "AdjRevolveCreate: output argument rev is NULL");
  PetscCheck(nsteps >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "Revolve needs at least one step, got nsteps = %" PRId64, (int64_t)nsteps);
  PetscCheck(nslots >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "Revolve needs at least one slot (the one holding x_0), got nslots = %" PetscInt_FMT, nslots);
  PetscCall(PetscNew(&r));
  r->nsteps = nsteps;
  r->nslots = nslots;
  /* at most one checkpoint per step 0..n-2 is ever live (x_{n-1} is never stored), and at most c */
  PetscCall(PetscMalloc1((size_t)PetscMin((AdjStepIndex)nslots, nsteps), &r->stack));
  r->ntop     = 0;
  r->current  = -1;
  r->end      = nsteps;
  r->started  = PETSC_FALSE;
  r->pending  = PETSC_FALSE;
  r->finished = PETSC_FALSE;
  *rev        = r;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void RevolveSetAction(AdjRevolveAction *action, AdjRevolveActionType type, AdjStepIndex from, AdjStepIndex to,
                             PetscInt slot)
{
  action->type = type;
  action->from = from;
  action->to   = to;
  action->slot = slot;
}

static void RevolvePush(AdjRevolve rev, AdjRevolveAction *action)
{
  rev->stack[rev->ntop] = rev->current;
  RevolveSetAction(action, ADJ_REVOLVE_TAKESHOT, rev->current, rev->current, rev->ntop);
  rev->ntop++;
}

PetscErrorCode AdjRevolveNext(AdjRevolve rev, AdjRevolveAction *action)
{
  PetscFunctionBeginUser;
  PetscCheck(rev && action, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "AdjRevolveNext: NULL schedule or action");
  if (rev->finished) {
    RevolveSetAction(action, ADJ_REVOLVE_TERMINATE, 0, 0, -1);
  } else if (!rev->started) {
    rev->started = PETSC_TRUE;
    rev->current = 0;
    RevolvePush(rev, action);
  } else if (rev->pending) {
    rev->pending = PETSC_FALSE;
    RevolvePush(rev, action);
  } else if (rev->current < 0) {
    /* the last reversal consumed the current state: continue from the newest live checkpoint */
    if (rev->end == 0) {
      rev->finished = PETSC_TRUE;
      RevolveSetAction(action, ADJ_REVOLVE_TERMINATE, 0, 0, -1);
    } else {
      rev->current = rev->stack[rev->ntop - 1];
      RevolveSetAction(action, ADJ_REVOLVE_RESTORE, rev->current, rev->current, rev->ntop - 1);
    }
  } else if (rev->current == rev->end - 1) {
    RevolveSetAction(action, ADJ_REVOLVE_REVERSE, rev->end - 1, rev->end, -1);
    rev->end--;
    rev->current = -1;
    /* a checkpoint at step k is dead once every step > k is reversed */
    if (rev->stack[rev->ntop - 1] == rev->end) rev->ntop--;
  } else {
    AdjStepIndex l = rev->end - rev->current, m;
    PetscInt     s = rev->nslots - (rev->ntop - 1); /* slots from the current checkpoint's position up */

    PetscCheck(rev->stack[rev->ntop - 1] == rev->current, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "Revolve: current step %" PRId64 " is not on top of the stack (%" PRId64 ")", (int64_t)rev->current,
               (int64_t)rev->stack[rev->ntop - 1]);
    m = s == 1 ? l - 1 : RevolveOptimalSplit(l, s);
    RevolveSetAction(action, ADJ_REVOLVE_ADVANCE, rev->current, rev->current + m, -1);
    rev->current += m;
    rev->pending = m < l - 1 ? PETSC_TRUE : PETSC_FALSE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjRevolveDestroy(AdjRevolve *rev)
{
  PetscFunctionBeginUser;
  if (!rev || !*rev) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree((*rev)->stack));
  PetscCall(PetscFree(*rev));
  PetscFunctionReturn(PETSC_SUCCESS);
}
