/* A STREAM-like memory bandwidth probe for bench/roofline.sh (one process, one thread, no MPI).
 *
 * Four kernels of McCalpin's STREAM on arrays far larger than the last-level cache, plus a
 * read-only sum:
 *   copy   c[i] = a[i]                  counted 16 bytes per element (STREAM's convention)
 *   scale  b[i] = s c[i]                16
 *   add    c[i] = a[i] + b[i]           24
 *   triad  a[i] = b[i] + s c[i]         24
 *   sum    t += a[i]                     8 (reads only)
 * STREAM counts what the program asks for: one read per operand and one write per result.  A
 * write to a line that is not in cache first reads it (write-allocate) unless the compiler emits
 * non-temporal stores, which gcc does not do for these loops: the bus then carries 8 bytes more
 * per element of every kernel that writes (copy and scale 24, add and triad 32).  Both figures
 * are printed; bench/roofline.sh compares the solvers' traffic model with the matching one.
 * Each kernel runs REPS times; the best (shortest) repetition is reported, as STREAM does, by wall
 * time and by the thread's CPU time (on a shared machine a repetition can wait for a core).
 *
 * usage: stream_triad [elements per array, default 2^25 (256 MiB per array)] [repetitions, default 10]
 * output: one line per kernel,
 *   <kernel> <GB/s counted as STREAM> <GB/s with write-allocate> <best s> <median s> <GB/s by CPU time>
 * and a final "check" line (a checksum, so that no loop is optimized away). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* the CPU time of this thread: on a shared machine, the time it ran, without the time it waited */
static double cpu(void)
{
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static int cmp(const void *x, const void *y)
{
  const double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

/* The kernels take restrict pointers, as STREAM's arrays are distinct, so that they vectorize. */
static void copy(long n, double *restrict c, const double *restrict a)
{
  for (long i = 0; i < n; i++) c[i] = a[i];
}
static void scale(long n, double *restrict b, const double *restrict c, double s)
{
  for (long i = 0; i < n; i++) b[i] = s * c[i];
}
static void add(long n, double *restrict c, const double *restrict a, const double *restrict b)
{
  for (long i = 0; i < n; i++) c[i] = a[i] + b[i];
}
static void triad(long n, double *restrict a, const double *restrict b, const double *restrict c, double s)
{
  for (long i = 0; i < n; i++) a[i] = b[i] + s * c[i];
}
static double sum(long n, const double *restrict a)
{
  double t0 = 0, t1 = 0, t2 = 0, t3 = 0; /* four partial sums: not latency-bound on one add chain */
  long   i;
  for (i = 0; i + 3 < n; i += 4) t0 += a[i], t1 += a[i + 1], t2 += a[i + 2], t3 += a[i + 3];
  for (; i < n; i++) t0 += a[i];
  return (t0 + t1) + (t2 + t3);
}

int main(int argc, char **argv)
{
  const long   n        = argc > 1 ? atol(argv[1]) : 1L << 25;
  const int    reps     = argc > 2 ? atoi(argv[2]) : 10;
  const double s        = 3.0;
  const char  *name[5]  = {"copy", "scale", "add", "triad", "sum"};
  const double bytes[5] = {16, 16, 24, 24, 8}, wa[5] = {8, 8, 8, 8, 0};
  double      *a, *b, *c, *t[5], *u[5], check = 0;

  if (n < 1000 || reps < 1) {
    fprintf(stderr, "stream_triad: need at least 1000 elements and 1 repetition (got %ld, %d)\n", n, reps);
    return 1;
  }
  a = malloc(n * sizeof(double)), b = malloc(n * sizeof(double)), c = malloc(n * sizeof(double));
  for (int k = 0; k < 5; k++) t[k] = malloc(reps * sizeof(double)), u[k] = malloc(reps * sizeof(double));
  if (!a || !b || !c || !t[4] || !u[4]) {
    fprintf(stderr, "stream_triad: cannot allocate 3 x %ld doubles\n", n);
    return 1;
  }
  for (long i = 0; i < n; i++) a[i] = 1.0, b[i] = 2.0, c[i] = 0.0; /* touch every page before timing */
  for (int r = 0; r < reps; r++) {
    double t0 = now(), c0 = cpu();
    copy(n, c, a);
    t[0][r] = now() - t0, u[0][r] = cpu() - c0, t0 = now(), c0 = cpu();
    scale(n, b, c, s);
    t[1][r] = now() - t0, u[1][r] = cpu() - c0, t0 = now(), c0 = cpu();
    add(n, c, a, b);
    t[2][r] = now() - t0, u[2][r] = cpu() - c0, t0 = now(), c0 = cpu();
    triad(n, a, b, c, s);
    t[3][r] = now() - t0, u[3][r] = cpu() - c0, t0 = now(), c0 = cpu();
    check += sum(n, a);
    t[4][r] = now() - t0, u[4][r] = cpu() - c0;
  }
  printf("# %ld doubles per array (%.0f MiB each), %d repetitions; GB = 1e9 bytes\n", n, n * 8.0 / (1 << 20), reps);
  printf("# kernel  GB/s(STREAM bytes)  GB/s(with write-allocate)  best_s  median_s  GB/s(STREAM bytes, CPU time)\n");
  for (int k = 0; k < 5; k++) {
    qsort(t[k], reps, sizeof(double), cmp);
    qsort(u[k], reps, sizeof(double), cmp);
    printf("%-6s %8.2f %8.2f %10.6f %10.6f %8.2f\n", name[k], bytes[k] * n / t[k][0] * 1e-9,
           (bytes[k] + wa[k]) * n / t[k][0] * 1e-9, t[k][0], t[k][reps / 2], bytes[k] * n / u[k][0] * 1e-9);
  }
  printf("check %.6e\n", check);
  free(a), free(b), free(c);
  for (int k = 0; k < 5; k++) free(t[k]), free(u[k]);
  return 0;
}
