#version 460
// The device's own 32-bit integer instructions, one per case (probe_ops.h):
// the SPIR-V instructions themselves (GL_EXT_spirv_intrinsics), since GLSL's
// % is OpSMod and its shifts leave counts >= 32 undefined without saying so.
#extension GL_EXT_spirv_intrinsics : require
#extension GL_GOOGLE_include_directive : require
#include "raw_scalar.glsl"

spirv_instruction(id = 196) uint shift_left_logical(uint x, uint n);
spirv_instruction(id = 195) int shift_right_arithmetic(int x, uint n);
spirv_instruction(id = 194) uint shift_right_logical(uint x, uint n);
spirv_instruction(id = 135) int sdiv(int a, int b);
spirv_instruction(id = 134) uint udiv(uint a, uint b);
spirv_instruction(id = 138) int srem(int a, int b);
spirv_instruction(id = 137) uint umod(uint a, uint b);
spirv_instruction(id = 132) uint imul(uint a, uint b);

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= count) return;
  Case c = cases[i];
  uint a = uint(c.a), b = uint(c.b);
  uint r = 0;
  switch (c.op) {
    case PROBE_I_SHL: r = shift_left_logical(a, b); break;
    case PROBE_I_SHR_S: r = uint(shift_right_arithmetic(int(a), b)); break;
    case PROBE_I_SHR_U: r = shift_right_logical(a, b); break;
    case PROBE_I_DIV_S: r = uint(sdiv(int(a), int(b))); break;
    case PROBE_I_DIV_U: r = udiv(a, b); break;
    case PROBE_I_REM_S: r = uint(srem(int(a), int(b))); break;
    case PROBE_I_REM_U: r = umod(a, b); break;
    case PROBE_I_MUL: r = imul(a, b); break;
  }
  results[i] = uint64_t(r);
}
