#version 460
// The device's own 64-bit integer instructions, one per case (probe_ops.h):
// the SPIR-V instructions themselves (GL_EXT_spirv_intrinsics), since GLSL's
// % is OpSMod and its shifts leave counts >= 64 undefined without saying so.
#extension GL_EXT_spirv_intrinsics : require
#extension GL_GOOGLE_include_directive : require
#include "raw_scalar.glsl"

spirv_instruction(id = 196) uint64_t shift_left_logical(uint64_t x, uint64_t n);
spirv_instruction(id = 195) int64_t shift_right_arithmetic(int64_t x, uint64_t n);
spirv_instruction(id = 194) uint64_t shift_right_logical(uint64_t x, uint64_t n);
spirv_instruction(id = 135) int64_t sdiv(int64_t a, int64_t b);
spirv_instruction(id = 134) uint64_t udiv(uint64_t a, uint64_t b);
spirv_instruction(id = 138) int64_t srem(int64_t a, int64_t b);
spirv_instruction(id = 137) uint64_t umod(uint64_t a, uint64_t b);
spirv_instruction(id = 132) uint64_t imul(uint64_t a, uint64_t b);

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= count) return;
  Case c = cases[i];
  uint64_t a = uint64_t(c.a), b = uint64_t(c.b);
  uint64_t r = 0;
  switch (c.op) {
    case PROBE_I_SHL: r = shift_left_logical(a, b); break;
    case PROBE_I_SHR_S: r = uint64_t(shift_right_arithmetic(int64_t(a), b)); break;
    case PROBE_I_SHR_U: r = shift_right_logical(a, b); break;
    case PROBE_I_DIV_S: r = uint64_t(sdiv(int64_t(a), int64_t(b))); break;
    case PROBE_I_DIV_U: r = udiv(a, b); break;
    case PROBE_I_REM_S: r = uint64_t(srem(int64_t(a), int64_t(b))); break;
    case PROBE_I_REM_U: r = umod(a, b); break;
    case PROBE_I_MUL: r = imul(a, b); break;
  }
  results[i] = uint64_t(r);
}
