/* The structs of kernel_params.c, shared with the host test. Their layout is
 * the same on wasm32 and the host (no pointers, no long). */
#ifndef KERNEL_PARAMS_H
#define KERNEL_PARAMS_H
#include <stdint.h>

typedef struct {
  double position, velocity;
  float mass;
} Body; /* 24 bytes, align 8 */

typedef struct {
  double position;
  int64_t step;
  float energy;
} BodyState; /* 24 bytes, align 8 */

#ifdef __cplusplus
extern "C" {
#endif
void integrate(int index, const Body *bodies, double dt, int64_t step, float damping, BodyState *states,
               unsigned count);
#ifdef __cplusplus
}
#endif
#endif
