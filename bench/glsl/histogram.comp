#version 460
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
// One byte per access, as the C kernel reads them.
layout(local_size_x = 256) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Bytes { uint8_t v[]; };
layout(push_constant) uniform Push { Bytes data; Ints bins; uint n; } p;
shared int local_bins[256];
void main() {
  uint local = gl_LocalInvocationIndex;
  local_bins[local] = 0;
  barrier();
  uint stride = gl_NumWorkGroups.x * 256u;
  for (uint j = gl_GlobalInvocationID.x; j < p.n; j += stride) atomicAdd(local_bins[uint(p.data.v[j])], 1);
  barrier();
  int count = local_bins[local];
  if (count != 0) atomicAdd(p.bins.v[local], count);
}
