// A record bigger than clang copies inline: copying one calls memcpy, which
// comes from the kernels' libc that `wasmgpu cc` links.
#pragma once

struct record {
  float values[24];
  int tag;
};

#ifdef __cplusplus
extern "C" {
#endif
struct record scaled(struct record r, float factor);
#ifdef __cplusplus
}
#endif
