// Included by every twin: buffers are passed as device addresses in push
// constants (GL_EXT_buffer_reference), as the wasm kernels' pointers are, so
// no twin binds a descriptor. PREC marks the variables whose arithmetic must
// not be contracted or reassociated in the `precise` build (-DPRECISE), which
// then computes the same bits as a wasm kernel in exact mode.
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_control_flow_attributes : require
#ifdef PRECISE
#define PREC precise
#else
#define PREC
#endif
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Floats { float v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Uints { uint v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Ints { int v[]; };
