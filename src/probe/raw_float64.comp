#version 460
// The device's own f64 instructions, one per case (probe_ops.h). Built
// twice: plain, as GLSL gives them, and with -DFLOAT_CONTROLS under the float
// controls exact mode asks for (SignedZeroInfNanPreserve, RoundingModeRTE),
// which the probe runs where the device offers them: the conditions wasmgpu
// would use the instruction under.
#ifdef FLOAT_CONTROLS
#extension GL_EXT_spirv_intrinsics : require
spirv_execution_mode(capabilities = [4466], 4461, 64);  // SignedZeroInfNanPreserve
spirv_execution_mode(capabilities = [4467], 4462, 64);  // RoundingModeRTE
#endif
#extension GL_GOOGLE_include_directive : require
#include "raw_scalar.glsl"

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= count) return;
  Case c = cases[i];
  double a = uint64BitsToDouble(c.a), b = uint64BitsToDouble(c.b);
  precise double r = 0.0;
  uint64_t bits = 0;
  bool integer = false;
  switch (c.op) {
    case PROBE_F_ADD: r = a + b; break;
    case PROBE_F_SUB: r = a - b; break;
    case PROBE_F_MUL: r = a * b; break;
    case PROBE_F_DIV: r = a / b; break;
    case PROBE_F_SQRT: r = sqrt(a); break;
    case PROBE_F_TRUNC: r = trunc(a); break;
    case PROBE_F_FLOOR: r = floor(a); break;
    case PROBE_F_CEIL: r = ceil(a); break;
    case PROBE_F_NEAREST: r = roundEven(a); break;
    case PROBE_F_TO_S32: bits = uint64_t(uint(int(a))); integer = true; break;
    case PROBE_F_TO_U32: bits = uint64_t(uint(a)); integer = true; break;
    case PROBE_F_TO_S64: bits = uint64_t(int64_t(a)); integer = true; break;
    case PROBE_F_TO_U64: bits = uint64_t(a); integer = true; break;
    case PROBE_F_FROM_S32: r = double(int(uint(c.a))); break;
    case PROBE_F_FROM_U32: r = double(uint(c.a)); break;
    case PROBE_F_FROM_S64: r = double(int64_t(c.a)); break;
    case PROBE_F_FROM_U64: r = double(c.a); break;
  }
  results[i] = integer ? bits : doubleBitsToUint64(r);
}
