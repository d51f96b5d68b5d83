/* One integration step over an array of structs, reached through pointer
 * arithmetic: each invocation walks its particle's neighbours by pointer. */
#include <wasmgpu.h>

#include "particles.h"

static struct vec3 sub(struct vec3 a, struct vec3 b) {
  struct vec3 r = {a.x - b.x, a.y - b.y, a.z - b.z};
  return r;
}

/* Pulls each particle towards its `window` neighbours on either side. */
WASMGPU_DEFINE_KERNEL(particles_step, WASMGPU_VALUE(int, i), WASMGPU_CONST_PTR(struct particle, in),
                      WASMGPU_PTR(struct particle, out), WASMGPU_VALUE(int, count), WASMGPU_VALUE(int, window),
                      WASMGPU_VALUE(float, dt)) {
  const struct particle *self = in + i;
  struct particle next = *self;
  if (!(self->flags & 1)) {
    struct vec3 pull = {0.0f, 0.0f, 0.0f};
    int lo = i - window < 0 ? 0 : i - window;
    int hi = i + window >= count ? count - 1 : i + window;
    const struct particle *first = in + lo, *last = in + hi;
    for (const struct particle *p = first; p <= last; ++p) {
      if (p == self) continue;
      struct vec3 d = sub(p->position, self->position);
      pull.x += d.x * p->mass;
      pull.y += d.y * p->mass;
      pull.z += d.z * p->mass;
    }
    next.velocity.x += pull.x * dt * self->inverse_mass;
    next.velocity.y += pull.y * dt * self->inverse_mass;
    next.velocity.z += pull.z * dt * self->inverse_mass;
    next.position.x += next.velocity.x * dt;
    next.position.y += next.velocity.y * dt;
    next.position.z += next.velocity.z * dt;
  }
  next.generation = (short)(self->generation + 1);
  out[i] = next;
}
