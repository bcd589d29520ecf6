// GradBench lse in C, the same maths as gradbench/evals/lse.ts: log Σ exp(x_i) computed around
// the largest element, and its gradient softmax(x). libm's exp and log, as C++ tools use.

#include <math.h>

#include "kernels.h"

double lse_primal(const double *x, int n) {
  double max = -1.0 / 0.0;
  for (int i = 0; i < n; i++)
    if (x[i] > max) max = x[i];
  double sum = 0;
  for (int i = 0; i < n; i++) sum += exp(x[i] - max);
  return max + log(sum);
}

void lse_gradient(const double *x, int n, double *out) {
  double max = -1.0 / 0.0;
  for (int i = 0; i < n; i++)
    if (x[i] > max) max = x[i];
  double sum = 0;
  for (int i = 0; i < n; i++) {
    out[i] = exp(x[i] - max);
    sum += out[i];
  }
  for (int i = 0; i < n; i++) out[i] /= sum;
}
