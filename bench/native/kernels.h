// The C kernels timed by harness.c (kmeans.c, lse.c).

double kmeans_cost(const double *points, const double *centroids, int n, int k, int d);
void kmeans_dir(const double *points, const double *centroids, int n, int k, int d, double *dir,
                double *count);
double lse_primal(const double *x, int n);
void lse_gradient(const double *x, int n, double *out);
