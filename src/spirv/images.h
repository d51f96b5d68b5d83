// The wasmgpu image imports (include/wasmgpu.h, "Images") in SPIR-V: bindless
// descriptor arrays in set 0 (abi/image_abi.h) indexed by handle, reached
// through one helper function per operation. Each helper first reads the
// handle's entry in the handle table and traps (InvalidHandle,
// ImageOutOfBounds) unless the handle names a live image or sampler of the
// right kind and the integer coordinates lie inside it; then it performs one
// image instruction on a NonUniform descriptor (handles may differ between
// invocations). Sizes come from the handle table, not OpImageQuerySize: the
// table is read for the check anyway, and it answers for storage and sampled
// images alike.
#pragma once

#include <cstdint>
#include <map>

#include "spirv/kernel_context.h"

namespace wasmgpu::spirv {

class Images {
 public:
  enum class Op : uint8_t { Load2D, Load3D, Store2D, Store3D, Sample2D, Sample3D, Size };

  explicit Images(KernelContext& k) : k_(k) {}

  // Lowers a call of the import for `op` with wasm arguments `args` (as
  // include/wasmgpu.h declares them; out-pointers are written through the
  // module's memory helpers). Returns the result id, or Id() for none.
  Id lower(FunctionBuilder& f, Op op, std::span<const Id> args);

  // Whether any image import was lowered: the shader then declares set 0.
  bool used() const { return bool(table_var_); }

  // Emits the helper functions asked for so far.
  void emit_bodies();

 private:
  void declare();  // the descriptor arrays, the handle table, capabilities
  Id helper(Op op);
  void emit(Id id, Op op);
  // The handle's table entry (uvec4) and whether the handle is in range and
  // its flags, masked with `mask`, equal `required` (bool).
  std::pair<Id, Id> entry(FunctionBuilder& f, Id handle, uint32_t mask, uint32_t required);
  // The descriptor at `handle` of array variable `var` with element `type`, loaded, NonUniform.
  Id descriptor(FunctionBuilder& f, Id var, Id type, Id handle);
  Id t_vec4();

  KernelContext& k_;
  Id storage_2d_, storage_3d_, sampled_2d_, sampled_3d_, sampler_;  // variables
  Id table_var_;
  std::map<Op, Id> ids_;
  std::map<Op, bool> emitted_;
};

}  // namespace wasmgpu::spirv
