// Times the C kernels (kmeans.c, lse.c) in C, with the method of bench/gradbench/timing.ts:
// each function is warmed up, then timed in samples of as many calls as fit in a tenth of the
// budget, the functions of one workload interleaved round by round; the median per call is
// reported. Run by bench/native/c.ts, which writes the input file (raw little-endian doubles)
// and reads the one line of JSON printed here: the outputs (to check them against JavaScript's)
// and the timings.
//
//   harness kmeans FILE N K D SECONDS   FILE: the points (N·D) then the centroids (K·D)
//   harness lse FILE N SECONDS          FILE: x (N)

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels.h"

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

// A result every call writes, so that the compiler cannot drop a call.
static volatile double sink;

typedef struct {
  const char *name;
  void (*run)(void *);
  void *ctx;
  long batch;
  double samples[10000];
  int count;
  double spent;
} Candidate;

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, n, sizeof *v, by_value);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

enum { MIN_SAMPLES = 10 };

static void time_side_by_side(Candidate *c, int m, double seconds, double warmup) {
  for (int i = 0; i < m; i++) {
    double start = now_ms(), fastest = 1e300;
    do {
      double t0 = now_ms();
      c[i].run(c[i].ctx);
      double t = now_ms() - t0;
      if (t < fastest) fastest = t;
    } while (now_ms() - start < warmup * 1e3);
    c[i].batch = (long)(seconds * 1e3 / 10 / (fastest > 1e-6 ? fastest : 1e-6));
    if (c[i].batch < 1) c[i].batch = 1;
  }
  for (int round = 0;; round++) {
    int busy = 0;
    for (int r = 0; r < m; r++) {
      Candidate *x = &c[(r + round) % m];
      if ((x->count >= MIN_SAMPLES && x->spent >= seconds * 1e3) || x->count == 10000) continue;
      busy = 1;
      double t0 = now_ms();
      for (long j = 0; j < x->batch; j++) x->run(x->ctx);
      double t = now_ms() - t0;
      x->spent += t;
      x->samples[x->count++] = t / x->batch;
    }
    if (!busy) break;
  }
}

static void print_timing(Candidate *c) {
  double lo = 1e300, hi = 0;
  for (int i = 0; i < c->count; i++) {
    if (c->samples[i] < lo) lo = c->samples[i];
    if (c->samples[i] > hi) hi = c->samples[i];
  }
  printf("\"%s\":{\"ms\":%.6g,\"minMs\":%.6g,\"maxMs\":%.6g,\"samples\":%d,\"batch\":%ld}", c->name,
         median(c->samples, c->count), lo, hi, c->count, c->batch);
}

static double *read_doubles(const char *file, long count) {
  double *v = malloc(count * sizeof *v);
  FILE *f = fopen(file, "rb");
  if (!v || !f || fread(v, sizeof *v, count, f) != (size_t)count) {
    fprintf(stderr, "harness: cannot read %ld doubles from %s\n", count, file);
    exit(1);
  }
  fclose(f);
  return v;
}

// JSON has no NaN (J ⊘ H of a centroid no point is nearest to is 0/0): null, read back as NaN.
static void print_array(const char *name, const double *v, long n) {
  printf("\"%s\":[", name);
  for (long i = 0; i < n; i++) {
    if (i) printf(",");
    if (v[i] != v[i])
      printf("null");
    else
      printf("%.17g", v[i]);
  }
  printf("]");
}

typedef struct {
  const double *points, *centroids;
  int n, k, d;
  double *dir, *count;
} Kmeans;

static void run_cost(void *p) {
  Kmeans *w = p;
  sink = kmeans_cost(w->points, w->centroids, w->n, w->k, w->d);
}

static void run_dir(void *p) {
  Kmeans *w = p;
  kmeans_dir(w->points, w->centroids, w->n, w->k, w->d, w->dir, w->count);
  sink = w->dir[0];
}

typedef struct {
  const double *x;
  int n;
  double *out;
} Lse;

static void run_lse_primal(void *p) {
  Lse *w = p;
  sink = lse_primal(w->x, w->n);
}

static void run_lse_gradient(void *p) {
  Lse *w = p;
  lse_gradient(w->x, w->n, w->out);
  sink = w->out[0];
}

static Candidate candidates[2];

int main(int argc, char **argv) {
  if (argc == 7 && strcmp(argv[1], "kmeans") == 0) {
    int n = atoi(argv[3]), k = atoi(argv[4]), d = atoi(argv[5]);
    double seconds = atof(argv[6]);
    double *data = read_doubles(argv[2], (long)(n + k) * d);
    Kmeans w = {data, data + (long)n * d, n, k, d, malloc((long)k * d * sizeof(double)),
                malloc(k * sizeof(double))};
    double cost = kmeans_cost(w.points, w.centroids, n, k, d);
    candidates[0] = (Candidate){.name = "cost", .run = run_cost, .ctx = &w};
    candidates[1] = (Candidate){.name = "dir", .run = run_dir, .ctx = &w};
    time_side_by_side(candidates, 2, seconds, seconds / 5);
    kmeans_dir(w.points, w.centroids, n, k, d, w.dir, w.count);
    printf("{\"cost\":%.17g,", cost);
    print_array("dir", w.dir, (long)k * d);
    printf(",\"timings\":{");
    print_timing(&candidates[0]);
    printf(",");
    print_timing(&candidates[1]);
    printf("}}\n");
    return 0;
  }
  if (argc == 5 && strcmp(argv[1], "lse") == 0) {
    int n = atoi(argv[3]);
    double seconds = atof(argv[4]);
    Lse w = {read_doubles(argv[2], n), n, malloc(n * sizeof(double))};
    double primal = lse_primal(w.x, n);
    candidates[0] = (Candidate){.name = "primal", .run = run_lse_primal, .ctx = &w};
    candidates[1] = (Candidate){.name = "gradient", .run = run_lse_gradient, .ctx = &w};
    time_side_by_side(candidates, 2, seconds, seconds / 5);
    lse_gradient(w.x, n, w.out);
    printf("{\"primal\":%.17g,", primal);
    print_array("gradient", w.out, n);
    printf(",\"timings\":{");
    print_timing(&candidates[0]);
    printf(",");
    print_timing(&candidates[1]);
    printf("}}\n");
    return 0;
  }
  fprintf(stderr,
          "usage: harness kmeans FILE N K D SECONDS | harness lse FILE N SECONDS (see harness.c)\n");
  return 2;
}
