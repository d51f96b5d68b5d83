/* The particle layout shared by the kernel and its host program. It has no
 * pointers or longs, so wasm32 and the host lay it out identically. */
#ifndef PARTICLES_H
#define PARTICLES_H

struct vec3 {
  float x, y, z;
};

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

void particles_step(int i, const struct particle *in, struct particle *out, int count, int window, float dt);

#endif
