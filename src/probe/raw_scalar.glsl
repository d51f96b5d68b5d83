// The interface every scalar raw shader shares: one case per invocation,
// its result's bits out. Included by raw_float32/64.comp, raw_int32/64.comp.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#include "probe_ops.h"

layout(local_size_x = 64) in;

struct Case {
  uint op;
  uint unused;
  uint64_t a;
  uint64_t b;
};
layout(std430, set = 0, binding = 0) readonly buffer Cases { Case cases[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Results { uint64_t results[]; };
layout(push_constant) uniform Count { uint count; };
