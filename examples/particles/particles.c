/* One integration step over an array of structs, reached through pointer
 * arithmetic: each invocation walks its particle's neighbours by pointer. */
#include <wasmgpu.h>

struct vec3 { float x, y, z; };

struct particle {
  struct vec3 position;
  struct vec3 velocity;
  float mass;
  float inverse_mass; /* 1 / mass, so that the kernel needs no division */
  int id;
  unsigned char flags; /* bit 0: pinned */
  unsigned char pad[3];
  short generation;
  short pad2;
};

static struct vec3 sub(struct vec3 a, struct vec3 b) {
  struct vec3 r = {a.x - b.x, a.y - b.y, a.z - b.z};
  return r;
}

/* Pulls each particle towards its `window` neighbours on either side. */
WASMGPU_KERNEL(particles_step)
void particles_step(int i, const struct particle *in, struct particle *out, int count, int window, float dt) {
  const struct particle *self = in + i;
  struct particle next = *self;
  if (!(self->flags & 1)) {
    struct vec3 pull = {0.0f, 0.0f, 0.0f};
    const struct particle *first = self - window < in ? in : self - window;
    const struct particle *last = self + window >= in + count ? in + count - 1 : self + window;
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
