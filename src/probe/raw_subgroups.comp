#version 460
// Subgroup operations whose results do not depend on how invocations map to
// subgroups: each invocation writes 8 words. probe_kernels.c's
// probe_subgroups is its wasm twin.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_shuffle : require
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) writeonly buffer Out { uint results[]; };

void main() {
  uint base = gl_GlobalInvocationID.x * 8u, lane = gl_SubgroupInvocationID;
  results[base + 0u] = gl_SubgroupSize;
  results[base + 1u] = lane;
  results[base + 2u] = subgroupAdd(1u);
  results[base + 3u] = subgroupInclusiveAdd(1u);
  results[base + 4u] = subgroupExclusiveAdd(lane);
  results[base + 5u] = subgroupBroadcast(lane + 100u, 0u);
  results[base + 6u] = subgroupShuffle(lane * 3u, lane ^ 1u);
  results[base + 7u] = subgroupBallotBitCount(subgroupBallot(true));
}
