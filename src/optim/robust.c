/* AdjRobust: robust design on the multipoint layer (include/adjsim/multipoint.h, docs/multipoint.md "Robust design").
 *
 * N samples of the operating conditions become N design points: sample i sets each varied option to its draw, as
 * -design_pointI_OPTION value would, and the multipoint layer solves them (several per rank group if there are more
 * samples than groups) and gathers J_i, dJ_i/dp. The robust objective, weights w_i = 1/N (Monte Carlo),
 *
 *   m = sum_i w_i J_i,  s^2 = sum_i w_i (J_i - m)^2,  s_eps = sqrt(s^2 + eps^2),  J = m + k s_eps,
 *   dJ/dp = sum_i c_i dJ_i/dp,  c_i = w_i + (k / s_eps) w_i ((J_i - m) - S1),  S1 = sum_j w_j (J_j - m)
 *
 * (S1 = 0 in exact arithmetic when the weights sum to 1; it is kept so the gradient is that of the formula for any
 * weights). k = 0: c_i = w_i exactly, the multipoint weighted sum.
 *
 * Sample generator (platform independent: integer arithmetic and IEEE +, -, *, /, sqrt only, no libm):
 *   mix(z)      = the splitmix64 finalizer (AdjSplitMix64Mix, include/adjsim/splitmix.h)
 *   key(s,i,v)  = mix(mix(s) ^ (65536 i + v))        seed s, sample i, varied option v (counter based: sample i
 *                                                   does not depend on N, so N = 32 contains the N = 16 samples)
 *   x_j         = mix(key + j * 0x9e3779b97f4a7c15), j = 1, 2  (the splitmix64 stream from key: AdjSplitMix64Next)
 *   u_j         = ((x_j >> 11) + 1) 2^-53 in (0, 1]
 *   uniform(lo, hi): lo + (hi - lo) (u_1 - 2^-53)    (in [lo, hi))
 *   normal(mu, sd):  mu + sd sqrt(-2 ln u_1) cos(2 pi u_2)   (Box-Muller; ln and cos by the series below) */
#include <adjsim/multipoint.h>
#include <adjsim/optcheck.h>
#include <adjsim/io.h>
#include <adjsim/splitmix.h>
#include <string.h>

#define ADJ_ROBUST_MAX_VARY 8

static const char *const AdjRobustDistNames[] = {"normal", "uniform"};

struct _p_AdjRobust {
  MPI_Comm      comm;
  PetscInt      nsamples, nvary;
  uint64_t      seed;
  char          name[ADJ_ROBUST_MAX_VARY][128]; /* the varied options, without their dash */
  AdjRobustDist dist[ADJ_ROBUST_MAX_VARY];
  PetscReal     a[ADJ_ROBUST_MAX_VARY], b[ADJ_ROBUST_MAX_VARY];
  PetscReal    *sample; /* nsamples x nvary */
  PetscReal     k, eps;
};

/* ln(u) for u in (0, 1]: u = f 2^e with f in [1, 2) by exact doublings, ln f = 2 atanh((f - 1)/(f + 1)) by its series
 * (ratio below 1/3: 30 terms reach 1e-28). */
static double AdjRobustLog(double u)
{
  const double ln2 = 0.69314718055994530942;
  int          e   = 0;
  double       s, s2, term, sum = 0;

  while (u < 1) {
    u *= 2;
    e--;
  }
  s    = (u - 1) / (u + 1);
  s2   = s * s;
  term = s;
  for (int k = 0; k < 30; k++) {
    sum += term / (2 * k + 1);
    term *= s2;
  }
  return e * ln2 + 2 * sum;
}

/* cos(2 pi u) for u in (0, 1]: = -cos(t), t = 2 pi (u - 1/2) in (-pi, pi], by its Taylor series (24 terms: the last
 * below 1e-24 at |t| = pi). */
static double AdjRobustCos2Pi(double u)
{
  const double twopi = 6.28318530717958647693;
  const double t = twopi * (u - 0.5), t2 = t * t;
  double       term = 1, sum = 0;

  for (int k = 1; k <= 24; k++) {
    sum += term;
    term *= -t2 / ((2 * k - 1) * (2.0 * k));
  }
  return -sum;
}

PetscErrorCode AdjRobustDraw(PetscInt64 seed, PetscInt sample, PetscInt variable, AdjRobustDist dist, PetscReal a,
                             PetscReal b, PetscReal *value)
{
  const uint64_t unit = 53;
  uint64_t       state;
  double         u1, u2;

  PetscFunctionBeginUser;
  state =
      AdjSplitMix64Mix(AdjSplitMix64Mix((uint64_t)seed) ^ (UINT64_C(65536) * (uint64_t)sample + (uint64_t)variable));
  u1 = (double)((AdjSplitMix64Next(&state) >> 11) + 1) / (double)(UINT64_C(1) << unit);
  u2 = (double)((AdjSplitMix64Next(&state) >> 11) + 1) / (double)(UINT64_C(1) << unit);
  if (dist == ADJ_ROBUST_UNIFORM)
    *value = a + (b - a) * (u1 - 1.0 / (double)(UINT64_C(1) << unit));
  else
    *value = a + b * sqrt(-2 * AdjRobustLog(u1)) * AdjRobustCos2Pi(u2);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One entry NAME:DIST:A,B of -design_robust_vary (text: "NAME:DIST:A", the B token given separately). */
static PetscErrorCode AdjRobustParseEntry(AdjRobust r, const char *entry, const char *second)
{
  char        buf[256], label[320], *c1, *c2, *end;
  PetscInt    v   = r->nvary;
  const char *opt = "-design_robust_vary";

  PetscFunctionBeginUser;
  PetscCheck(v < ADJ_ROBUST_MAX_VARY, r->comm, PETSC_ERR_USER_INPUT, "%s: at most %d varied options", opt,
             ADJ_ROBUST_MAX_VARY);
  PetscCall(PetscStrncpy(buf, entry, sizeof(buf)));
  c1 = strchr(buf, ':');
  c2 = c1 ? strchr(c1 + 1, ':') : NULL;
  PetscCheck(c1 && c2 && second, r->comm, PETSC_ERR_USER_INPUT,
             "%s: '%s' is not NAME:DIST:A,B (e.g. fluid_body_alpha:normal:4,1 or fluid_re:uniform:400,600)", opt,
             entry);
  *c1 = *c2 = 0;
  PetscCheck(buf[0] && buf[0] != '-', r->comm, PETSC_ERR_USER_INPUT,
             "%s: '%s': give the option's name without its dash (e.g. fluid_body_alpha)", opt, entry);
  PetscCall(PetscStrncpy(r->name[v], buf, sizeof(r->name[v])));
  for (r->dist[v] = 0; r->dist[v] < 2 && strcmp(c1 + 1, AdjRobustDistNames[r->dist[v]]); r->dist[v]++) {
  }
  PetscCheck(r->dist[v] < 2, r->comm, PETSC_ERR_USER_INPUT,
             "%s: unknown distribution '%s' for %s: give normal (NAME:normal:MEAN,SD) or uniform (NAME:uniform:LO,HI)",
             opt, c1 + 1, buf);
  r->a[v] = strtod(c2 + 1, &end);
  PetscCheck(c2[1] && !*end, r->comm, PETSC_ERR_USER_INPUT, "%s: '%s' in the entry of %s is not a number", opt, c2 + 1,
             buf);
  r->b[v] = strtod(second, &end);
  PetscCheck(second[0] && !*end, r->comm, PETSC_ERR_USER_INPUT, "%s: '%s' in the entry of %s is not a number", opt,
             second, buf);
  PetscCall(PetscSNPrintf(label, sizeof(label), "%s %s:%s", opt, buf, AdjRobustDistNames[r->dist[v]]));
  PetscCall(AdjCheckRealOption(r->comm, label, r->a[v], ADJ_REAL_FINITE, NULL));
  PetscCall(AdjCheckRealOption(r->comm, label, r->b[v], ADJ_REAL_FINITE, NULL));
  if (r->dist[v] == ADJ_ROBUST_NORMAL)
    PetscCheck(r->b[v] >= 0, r->comm, PETSC_ERR_USER_INPUT, "%s: %s:normal:%s,%s: the standard deviation must be >= 0",
               opt, buf, c2 + 1, second);
  else
    PetscCheck(r->a[v] < r->b[v], r->comm, PETSC_ERR_USER_INPUT, "%s: %s:uniform:%s,%s: needs lo < hi", opt, buf,
               c2 + 1, second);
  for (PetscInt w = 0; w < v; w++)
    PetscCheck(strcmp(r->name[w], buf), r->comm, PETSC_ERR_USER_INPUT, "%s lists %s twice", opt, buf);
  r->nvary++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -design_robust_vary NAME:DIST:A,B[,NAME:DIST:A,B...]: the comma-separated tokens; one with a ':' starts an entry,
 * the next token is its B. */
static PetscErrorCode AdjRobustParseVary(AdjRobust r, char *text)
{
  char *tok[2 * ADJ_ROBUST_MAX_VARY + 2];
  int   n = 0;

  PetscFunctionBeginUser;
  for (char *s = text, *next; s && n < 2 * ADJ_ROBUST_MAX_VARY + 2; s = next) {
    next = strchr(s, ',');
    if (next) *next++ = 0;
    tok[n++] = s;
  }
  PetscCheck(n % 2 == 0 && n <= 2 * ADJ_ROBUST_MAX_VARY, r->comm, PETSC_ERR_USER_INPUT,
             "-design_robust_vary: give NAME:DIST:A,B entries separated by commas (at most %d), e.g. "
             "fluid_body_alpha:normal:4,1,fluid_re:uniform:400,600",
             ADJ_ROBUST_MAX_VARY);
  for (int i = 0; i < n; i += 2) {
    PetscCheck(!strchr(tok[i + 1], ':'), r->comm, PETSC_ERR_USER_INPUT,
               "-design_robust_vary: '%s' has no second parameter (NAME:DIST:A,B)", tok[i]);
    PetscCall(AdjRobustParseEntry(r, tok[i], tok[i + 1]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The per-point options of multipoint design are generated here: none may be given by hand. */
static PetscErrorCode AdjRobustRefuseMultipointOptions(AdjRobust r)
{
  char     *all, *s;
  PetscBool set;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsHasName(NULL, NULL, "-design_points", &set));
  PetscCheck(!set, r->comm, PETSC_ERR_USER_INPUT,
             "-design_points with -design_robust_samples: the samples are the design points; give one of the two");
  PetscCall(PetscOptionsHasName(NULL, NULL, "-design_point_weights", &set));
  PetscCheck(!set, r->comm, PETSC_ERR_USER_INPUT,
             "-design_point_weights with -design_robust_samples: the samples' weights are 1/N");
  PetscCall(PetscOptionsGetAll(NULL, &all));
  s = strstr(all, "-design_point");
  while (s && !(s[13] >= '0' && s[13] <= '9')) s = strstr(s + 1, "-design_point");
  if (s) {
    char name[128] = "";
    for (int i = 0; i < 127 && s[i] && s[i] != ' '; i++) name[i] = s[i];
    PetscCall(PetscFree(all));
    SETERRQ(r->comm, PETSC_ERR_USER_INPUT,
            "%s with -design_robust_samples: the samples' option values come from -design_robust_vary; a common value "
            "goes without the -design_pointK_ prefix",
            name);
  }
  PetscCall(PetscFree(all));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The samples, and each as -design_pointI_NAME value in the options database (17 digits: read back exactly). */
static PetscErrorCode AdjRobustGenerate(AdjRobust r)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(r->nsamples * r->nvary, &r->sample));
  for (PetscInt i = 0; i < r->nsamples; i++)
    for (PetscInt v = 0; v < r->nvary; v++) {
      char      opt[192], value[64];
      PetscReal x;
      PetscCall(AdjRobustDraw((PetscInt64)r->seed, i, v, r->dist[v], r->a[v], r->b[v], &x));
      r->sample[i * r->nvary + v] = x;
      PetscCall(PetscSNPrintf(opt, sizeof(opt), "-design_point%" PetscInt_FMT "_%s", i, r->name[v]));
      PetscCall(PetscSNPrintf(value, sizeof(value), "%.17g", (double)x));
      PetscCall(PetscOptionsSetValue(NULL, opt, value));
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjRobustCreate(MPI_Comm comm, AdjRobust *robust)
{
  AdjRobust r;
  PetscInt  n = 0, seed = 1;
  PetscReal k = 0, eps = 1e-9;
  char      vary[1024] = "";
  PetscBool set, vset;

  PetscFunctionBeginUser;
  *robust = NULL;
  PetscOptionsBegin(comm, NULL, "Robust design", "AdjRobust");
  PetscCall(PetscOptionsInt("-design_robust_samples",
                            "Robust design: J = mean (+ k std) of the objective over this many samples of the "
                            "operating conditions (-design_robust_vary), each a design point (0: off)",
                            "AdjRobustCreate", n, &n, &set));
  PetscCall(PetscOptionsInt("-design_robust_seed",
                            "Seed of the samples (the same samples at every iteration and on every rank count)",
                            "AdjRobustCreate", seed, &seed, NULL));
  PetscCall(PetscOptionsString("-design_robust_vary",
                               "The varied options NAME:DIST:A,B[,...]: DIST normal (A mean, B standard deviation) or "
                               "uniform (A lo, B hi), e.g. fluid_body_alpha:normal:4,1",
                               "AdjRobustCreate", vary, vary, sizeof(vary), &vset));
  PetscCall(PetscOptionsReal("-design_robust_std_weight", "k in J = mean + k std (0: the expectation)",
                             "AdjRobustCreate", k, &k, NULL));
  PetscCall(PetscOptionsReal("-design_robust_std_eps",
                             "Smoothing eps of the standard deviation, sqrt(s^2 + eps^2) [units of J]",
                             "AdjRobustCreate", eps, &eps, NULL));
  PetscOptionsEnd();
  if (!set) {
    PetscCheck(!vset, comm, PETSC_ERR_USER_INPUT, "-design_robust_vary needs -design_robust_samples N");
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(n >= 1 && n <= ADJ_MAX_DESIGN_POINTS, comm, PETSC_ERR_USER_INPUT,
             "-design_robust_samples %" PetscInt_FMT ": give 1 to %d samples", n, ADJ_MAX_DESIGN_POINTS);
  PetscCheck(vset && vary[0], comm, PETSC_ERR_USER_INPUT,
             "-design_robust_samples needs -design_robust_vary NAME:DIST:A,B (e.g. fluid_body_alpha:normal:4,1)");
  PetscCheck(seed >= 0, comm, PETSC_ERR_USER_INPUT, "-design_robust_seed %" PetscInt_FMT ": give a seed >= 0", seed);
  PetscCall(AdjCheckRealOption(comm, "-design_robust_std_weight", k, ADJ_REAL_FINITE, NULL));
  PetscCall(AdjCheckRealOption(comm, "-design_robust_std_eps", eps, ADJ_REAL_POSITIVE, NULL));
  PetscCall(PetscNew(&r));
  r->comm     = comm;
  r->nsamples = n;
  r->seed     = (uint64_t)seed;
  r->k        = k;
  r->eps      = eps;
  PetscCall(AdjRobustParseVary(r, vary));
  PetscCall(AdjRobustRefuseMultipointOptions(r));
  PetscCall(AdjRobustGenerate(r));
  *robust = r;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjRobustGetSamples(AdjRobust r, PetscInt *n)
{
  PetscFunctionBeginUser;
  *n = r->nsamples;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjRobustIsVaried(AdjRobust r, const char option[], PetscBool *varied)
{
  PetscFunctionBeginUser;
  *varied = PETSC_FALSE;
  for (PetscInt v = 0; v < r->nvary; v++)
    if (!strcmp(r->name[v], option + (option[0] == '-'))) *varied = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* m = sum_i w_i J_i, s^2 = sum_i w_i (J_i - m)^2 and S1 = sum_i w_i (J_i - m) (see the top of the file). */
static void AdjRobustMoments(PetscInt n, const PetscReal w[], const PetscReal Jk[], PetscReal *m, PetscReal *s2,
                             PetscReal *s1)
{
  *m = *s2 = *s1 = 0;
  for (PetscInt i = 0; i < n; i++) *m += w[i] * Jk[i];
  for (PetscInt i = 0; i < n; i++) {
    *s1 += w[i] * (Jk[i] - *m);
    *s2 += w[i] * (Jk[i] - *m) * (Jk[i] - *m);
  }
}

PetscErrorCode AdjRobustCombine(AdjRobust r, PetscInt n, const PetscReal w[], const PetscReal Jk[], PetscReal c[],
                                PetscReal *J)
{
  PetscReal m, s2, s1, seps;

  PetscFunctionBeginUser;
  AdjRobustMoments(n, w, Jk, &m, &s2, &s1);
  seps = PetscSqrtReal(s2 + r->eps * r->eps);
  if (r->k == 0) { /* the expectation: exactly the weighted sum of multipoint design */
    *J = m;
    if (c) PetscCall(PetscArraycpy(c, w, n));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  *J = m + r->k * seps;
  for (PetscInt i = 0; c && i < n; i++) c[i] = w[i] + r->k / seps * w[i] * ((Jk[i] - m) - s1);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjRobustView(AdjRobust r, PetscInt n, const PetscReal w[], const PetscReal Jk[])
{
  PetscReal m, s2, s1, J;

  PetscFunctionBeginUser;
  AdjRobustMoments(n, w, Jk, &m, &s2, &s1);
  PetscCall(AdjRobustCombine(r, n, w, Jk, NULL, &J));
  PetscCall(PetscPrintf(r->comm, "robust: %" PetscInt_FMT " samples (seed %" PetscInt64_FMT "), weights 1/N;",
                        r->nsamples, (PetscInt64)r->seed));
  for (PetscInt v = 0; v < r->nvary; v++)
    PetscCall(PetscPrintf(r->comm, " %s %s(%g, %g)", r->name[v], AdjRobustDistNames[r->dist[v]], (double)r->a[v],
                          (double)r->b[v]));
  PetscCall(PetscPrintf(r->comm, "\nrobust: mean %.16e  std %.16e  J = mean + %g sqrt(std^2 + %g^2) = %.16e\n",
                        (double)m, (double)PetscSqrtReal(s2), (double)r->k, (double)r->eps, (double)J));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjRobustWrite(AdjRobust r, PetscInt n, const PetscReal w[], const PetscReal Jk[], AdjOutput out)
{
  PetscReal stats[4] = {0, 0, r->k, r->eps}, s1;

  PetscFunctionBeginUser;
  AdjRobustMoments(n, w, Jk, &stats[0], &stats[1], &s1);
  stats[1] = PetscSqrtReal(stats[1]); /* s, not smoothed */
  PetscCall(AdjOutputWriteOptimizationArray(out, "robust_samples", "1", r->nsamples * r->nvary, r->sample));
  PetscCall(AdjOutputWriteOptimizationArray(out, "robust_mean_std_k_eps", "1", 4, stats));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjRobustDestroy(AdjRobust *robust)
{
  PetscFunctionBeginUser;
  if (!*robust) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree((*robust)->sample));
  PetscCall(PetscFree(*robust));
  PetscFunctionReturn(PETSC_SUCCESS);
}
