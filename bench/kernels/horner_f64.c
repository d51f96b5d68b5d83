/* Double precision: y = p(x) for a polynomial of `degree` with coefficients
 * from a buffer, in Horner form, one element per invocation (workgroups of 256). */
#include <wasmgpu.h>

WASMGPU_DEFINE_KERNEL(horner_f64, WASMGPU_VALUE(int, i), WASMGPU_CONST_PTR(double, x), WASMGPU_PTR(double, y),
                      WASMGPU_CONST_PTR(double, coef), WASMGPU_VALUE(unsigned, degree)) {
  double v = x[i];
  double acc = coef[degree];
  for (unsigned k = degree; k-- > 0;) acc = acc * v + coef[k];
  y[i] = acc;
}
