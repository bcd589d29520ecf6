// GradBench kmeans in C, the same maths as gradbench/evals/kmeans.ts: the cost
// Σ_i min_j ‖P_i − C_j‖² and the Newton direction J ⊘ H, where J_j = Σ 2(C_j − P_i) over the
// points nearest to C_j and H_j = 2·count_j (the cost's Hessian is diagonal). Row-major flat
// arrays. No -ffast-math: the sums keep the JavaScript order, so the results agree with nabla's
// to rounding (the distance of a point to a centroid is even bit-identical).

#include "kernels.h"

static double squared_distance(const double *a, const double *b, int d) {
  double sum = 0;
  for (int i = 0; i < d; i++) {
    double diff = a[i] - b[i];
    sum += diff * diff;
  }
  return sum;
}

double kmeans_cost(const double *points, const double *centroids, int n, int k, int d) {
  double total = 0;
  for (int p = 0; p < n; p++) {
    double nearest = 1.0 / 0.0;
    for (int j = 0; j < k; j++) {
      double dist = squared_distance(points + (long)p * d, centroids + (long)j * d, d);
      if (dist < nearest) nearest = dist;
    }
    total += nearest;
  }
  return total;
}

// `dir` (k·d) receives J ⊘ H; `count` (k) is scratch. The nearest centroid is the first of the
// smallest distances, as the strict `<` of the JavaScript picks it.
void kmeans_dir(const double *points, const double *centroids, int n, int k, int d, double *dir,
                double *count) {
  for (long i = 0; i < (long)k * d; i++) dir[i] = 0;
  for (int j = 0; j < k; j++) count[j] = 0;
  for (int p = 0; p < n; p++) {
    const double *point = points + (long)p * d;
    double nearest = 1.0 / 0.0;
    int best = 0;
    for (int j = 0; j < k; j++) {
      double dist = squared_distance(point, centroids + (long)j * d, d);
      if (dist < nearest) {
        nearest = dist;
        best = j;
      }
    }
    const double *c = centroids + (long)best * d;
    double *g = dir + (long)best * d;
    for (int i = 0; i < d; i++) g[i] += 2 * (c[i] - point[i]);
    count[best] += 1;
  }
  for (int j = 0; j < k; j++) {
    double h = 2 * count[j];
    for (int i = 0; i < d; i++) dir[(long)j * d + i] /= h;
  }
}
