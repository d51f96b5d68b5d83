/* The operation codes of the device probe's raw shaders (raw_*.comp), one
 * list for both sides: the probe (C++) writes them into each case, and the
 * GLSL shaders include this file to switch on them. Only #defines, so that
 * both preprocessors read it. */
#ifndef WASMGPU_PROBE_OPS_H
#define WASMGPU_PROBE_OPS_H

/* Float ops (raw_float32.comp, raw_float64.comp): operands a, b are the
 * float's bits (or an integer for the FROM_* conversions). */
#define PROBE_F_ADD 0
#define PROBE_F_SUB 1
#define PROBE_F_MUL 2
#define PROBE_F_DIV 3
#define PROBE_F_SQRT 4
#define PROBE_F_TRUNC 5
#define PROBE_F_FLOOR 6
#define PROBE_F_CEIL 7
#define PROBE_F_NEAREST 8
#define PROBE_F_TO_S32 9
#define PROBE_F_TO_U32 10
#define PROBE_F_TO_S64 11
#define PROBE_F_TO_U64 12
#define PROBE_F_FROM_S32 13
#define PROBE_F_FROM_U32 14
#define PROBE_F_FROM_S64 15
#define PROBE_F_FROM_U64 16

/* Integer ops (raw_int32.comp, raw_int64.comp): the SPIR-V instruction
 * itself, so a shift count is not masked and REM_S is OpSRem. */
#define PROBE_I_SHL 20
#define PROBE_I_SHR_S 21
#define PROBE_I_SHR_U 22
#define PROBE_I_DIV_S 23
#define PROBE_I_DIV_U 24
#define PROBE_I_REM_S 25
#define PROBE_I_REM_U 26
#define PROBE_I_MUL 27

#endif
