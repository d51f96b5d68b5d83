#version 450
// values[i] /= total: a GLSL kernel bound by reflection, by name.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Values { float v[]; } values;
layout(set = 0, binding = 1) readonly buffer Total { float sum; } total;
layout(push_constant) uniform Params { uint count; } params;
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < params.count) values.v[i] = values.v[i] / total.sum;
}
