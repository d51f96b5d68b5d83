#version 460
// Shared memory written, a barrier, then read by an invocation half a
// workgroup away (another subgroup, where lockstep cannot hide a missing
// barrier), four rounds. probe_kernels.c's probe_barrier is its wasm twin.
layout(local_size_x = 128) in;
shared uint tile[128];
layout(std430, set = 0, binding = 0) writeonly buffer Out { uint results[]; };

void main() {
  uint lid = gl_LocalInvocationIndex, group = gl_WorkGroupID.x;
  uint sum = 0u;
  for (uint round = 0u; round < 4u; ++round) {
    tile[lid] = lid * 7u + group * 1000u + round;
    barrier();
    sum += tile[(lid + 64u + round) % 128u];
    barrier();
  }
  results[gl_GlobalInvocationID.x] = sum;
}
