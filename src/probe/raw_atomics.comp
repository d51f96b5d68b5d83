#version 460
// Many invocations add 1 to one word: the final value must be the count and
// the old values each invocation got a permutation of 0..count-1.
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Counter { uint counter; };
layout(std430, set = 0, binding = 1) writeonly buffer Olds { uint olds[]; };
layout(push_constant) uniform Count { uint count; };

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= count) return;
  olds[i] = atomicAdd(counter, 1u);
}
