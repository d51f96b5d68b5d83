// The blur pass of blur.c in GLSL, for the same host program through
// reflection: the bindings and push constants are found by name, not
// written down twice.
#version 450
layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = 0, rgba32f) uniform readonly image2D src;
layout(set = 0, binding = 1, rgba32f) uniform writeonly image2D dst;
layout(set = 0, binding = 2) readonly buffer Weights { float weights[]; };
layout(push_constant) uniform Params {
  int radius;
  int dx;
  int dy;
};

void main() {
  ivec2 size = imageSize(src);
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  if (p.x >= size.x || p.y >= size.y) return;
  vec4 sum = vec4(0.0);
  for (int k = -radius; k <= radius; ++k) {
    ivec2 q = clamp(p + k * ivec2(dx, dy), ivec2(0), size - 1);
    // precise: one multiply and one add per step, rounded each, as in C.
    precise vec4 term = weights[k + radius] * imageLoad(src, q);
    precise vec4 next = sum + term;
    sum = next;
  }
  imageStore(dst, p, sum);
}
