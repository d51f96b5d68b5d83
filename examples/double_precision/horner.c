/* Double precision: evaluates exp(x) by a degree-20 Taylor polynomial in
 * Horner form with compensated (Kahan) summation of a per-element series. */
#include <wasmgpu.h>

static const double kInverseFactorials[21] = {1.0,
                                              1.0,
                                              1.0 / 2,
                                              1.0 / 6,
                                              1.0 / 24,
                                              1.0 / 120,
                                              1.0 / 720,
                                              1.0 / 5040,
                                              1.0 / 40320,
                                              1.0 / 362880,
                                              1.0 / 3628800,
                                              1.0 / 39916800,
                                              1.0 / 479001600,
                                              1.0 / 6227020800.0,
                                              1.0 / 87178291200.0,
                                              1.0 / 1307674368000.0,
                                              1.0 / 20922789888000.0,
                                              1.0 / 355687428096000.0,
                                              1.0 / 6402373705728000.0,
                                              1.0 / 121645100408832000.0,
                                              1.0 / 2432902008176640000.0};

/* 1/(k+1), so that the kernel multiplies instead of dividing. */
static const double kReciprocals[21] = {1.0,      1.0 / 2,  1.0 / 3,  1.0 / 4,  1.0 / 5,  1.0 / 6,  1.0 / 7,
                                        1.0 / 8,  1.0 / 9,  1.0 / 10, 1.0 / 11, 1.0 / 12, 1.0 / 13, 1.0 / 14,
                                        1.0 / 15, 1.0 / 16, 1.0 / 17, 1.0 / 18, 1.0 / 19, 1.0 / 20, 1.0 / 21};

WASMGPU_KERNEL(exp_taylor) void exp_taylor(int i, const double *x, double *y, long long *bits) {
  double v = x[i];
  double acc = kInverseFactorials[20];
  for (int k = 19; k >= 0; --k) acc = acc * v + kInverseFactorials[k];
  /* Kahan sum of v^k/k! for comparison with the Horner result. */
  double sum = 0.0, c = 0.0, term = 1.0;
  for (int k = 0; k <= 20; ++k) {
    double t = term - c;
    double s = sum + t;
    c = (s - sum) - t;
    sum = s;
    term = term * v * kReciprocals[k];
  }
  y[2 * i] = acc;
  y[2 * i + 1] = sum;
  union {
    double d;
    long long l;
  } u = {acc - sum};
  bits[i] = u.l;
}
