// Image imports: see images.h. Helper signatures (SPIR-V functions):
//   load_2d(handle, x, y) -> vec4       load_3d(handle, x, y, z) -> vec4
//   store_2d(handle, x, y, r, g, b, a)  store_3d(handle, x, y, z, r, g, b, a)
//   sample_2d(image, sampler, u, v, lod) -> vec4
//   sample_3d(image, sampler, u, v, w, lod) -> vec4
//   size(handle, dimension) -> u32
// Coordinates are u32: a negative int is a huge unsigned value, so one
// unsigned comparison with the size rejects both ends.
#include "spirv/images.h"

#include <vector>

#include "abi/image_abi.h"
#include "spirv/runtime_helpers.h"

namespace wasmgpu::spirv {

namespace {

using SpvOp = spv::Op;

bool is_3d(Images::Op op) {
  return op == Images::Op::Load3D || op == Images::Op::Store3D || op == Images::Op::Sample3D;
}

const char* helper_name(Images::Op op) {
  switch (op) {
    case Images::Op::Load2D: return "wasmgpu.image_load_2d";
    case Images::Op::Load3D: return "wasmgpu.image_load_3d";
    case Images::Op::Store2D: return "wasmgpu.image_store_2d";
    case Images::Op::Store3D: return "wasmgpu.image_store_3d";
    case Images::Op::Sample2D: return "wasmgpu.image_sample_2d";
    case Images::Op::Sample3D: return "wasmgpu.image_sample_3d";
    case Images::Op::Size: return "wasmgpu.image_size";
  }
  return "wasmgpu.image";
}

}  // namespace

Id Images::t_vec4() { return k_.b.vector_type(k_.types.f32(), 4); }

void Images::declare() {
  if (table_var_) return;
  ModuleBuilder& b = k_.b;
  for (spv::Capability c :
       {spv::Capability::RuntimeDescriptorArray, spv::Capability::ShaderNonUniform,
        spv::Capability::StorageImageArrayNonUniformIndexing, spv::Capability::SampledImageArrayNonUniformIndexing,
        spv::Capability::StorageImageReadWithoutFormat, spv::Capability::StorageImageWriteWithoutFormat})
    b.capability(c);
  const Id f32 = k_.types.f32();
  auto array_var = [&](Id element, uint32_t binding, const char* name) {
    const Id type = b.runtime_array_type(element);
    Id var =
        b.global_variable(b.pointer_type(spv::StorageClass::UniformConstant, type), spv::StorageClass::UniformConstant);
    b.decorate(var, spv::Decoration::DescriptorSet, {abi::kImageSet});
    b.decorate(var, spv::Decoration::Binding, {binding});
    b.name(var, name);
    return var;
  };
  storage_2d_ = array_var(b.image_type(f32, spv::Dim::Dim2D, 2), abi::kBindingStorageImage2D, "storage_images_2d");
  storage_3d_ = array_var(b.image_type(f32, spv::Dim::Dim3D, 2), abi::kBindingStorageImage3D, "storage_images_3d");
  sampled_2d_ = array_var(b.image_type(f32, spv::Dim::Dim2D, 1), abi::kBindingSampledImage2D, "sampled_images_2d");
  sampled_3d_ = array_var(b.image_type(f32, spv::Dim::Dim3D, 1), abi::kBindingSampledImage3D, "sampled_images_3d");
  sampler_ = array_var(b.sampler_type(), abi::kBindingSampler, "samplers");

  const Id uvec4 = b.vector_type(k_.types.u32, 4);
  const Id entries = b.runtime_array_type(uvec4);
  b.decorate(entries, spv::Decoration::ArrayStride, {abi::kHandleEntrySize});
  const Id members[] = {entries};
  const Id block = b.unique_struct_type(members);
  b.decorate(block, spv::Decoration::Block);
  b.member_decorate(block, 0, spv::Decoration::Offset, {0});
  b.member_decorate(block, 0, spv::Decoration::NonWritable);
  b.name(block, "HandleTable");
  table_var_ =
      b.global_variable(b.pointer_type(spv::StorageClass::StorageBuffer, block), spv::StorageClass::StorageBuffer);
  b.decorate(table_var_, spv::Decoration::DescriptorSet, {abi::kImageSet});
  b.decorate(table_var_, spv::Decoration::Binding, {abi::kBindingHandleTable});
  b.name(table_var_, "handle_table");
}

Id Images::helper(Op op) {
  declare();
  auto it = ids_.find(op);
  if (it != ids_.end()) return it->second;
  Id id = k_.b.fresh_id();
  ids_.emplace(op, id);
  emitted_.emplace(op, false);
  return id;
}

void Images::emit_bodies() {
  for (auto& [op, done] : emitted_) {
    if (done) continue;
    done = true;
    emit(ids_.at(op), op);
  }
}

Id Images::lower(FunctionBuilder& f, Op op, std::span<const Id> args) {
  ModuleBuilder& b = k_.b;
  const Id id = helper(op);
  auto call = [&](Id type, std::span<const Id> operands) { return f.call(type, id, operands); };
  // Writes the vec4 `texel` to the 16 bytes at wasm address `out` (u32).
  auto store_texel = [&](Id out, Id texel) {
    std::optional<uint64_t> constant = b.integer_constant(out);
    Id base = constant ? Id() : f.op(SpvOp::OpUConvert, k_.types.u64, {out});
    for (uint32_t c = 0; c < 4; ++c) {
      Id ea = constant ? b.const_u64(*constant + 4 * c)
                       : (c == 0 ? base : f.op(SpvOp::OpIAdd, k_.types.u64, {base, b.const_u64(4 * c)}));
      Id bits =
          f.op(SpvOp::OpBitcast, k_.types.u32, {f.op(SpvOp::OpCompositeExtract, k_.types.f32(), {texel, literal(c)})});
      k_.helpers->store(f, ea, bits, 4);
    }
  };
  switch (op) {
    case Op::Load2D:
    case Op::Load3D:
    case Op::Sample2D:
    case Op::Sample3D: store_texel(args[0], call(t_vec4(), args.subspan(1))); return Id();
    case Op::Store2D:
    case Op::Store3D: call(k_.types.void_type, args); return Id();
    case Op::Size: return call(k_.types.u32, args);
  }
  return Id();
}

std::pair<Id, Id> Images::entry(FunctionBuilder& f, Id handle, uint32_t mask, uint32_t required) {
  ModuleBuilder& b = k_.b;
  const Id u32 = k_.types.u32, uvec4 = b.vector_type(u32, 4);
  Id length = f.op(SpvOp::OpArrayLength, u32, {table_var_, literal(0)});
  Id in_range = f.op(SpvOp::OpULessThan, k_.types.bool_type, {handle, length});
  Id safe = f.op(SpvOp::OpSelect, u32, {in_range, handle, b.const_u32(0)});
  Id zero = b.const_u32(0);
  Id pointer =
      f.op(SpvOp::OpAccessChain, b.pointer_type(spv::StorageClass::StorageBuffer, uvec4), {table_var_, zero, safe});
  Id value = f.load(uvec4, pointer);
  Id flags = f.op(SpvOp::OpCompositeExtract, u32, {value, literal(3)});
  Id masked = f.op(SpvOp::OpBitwiseAnd, u32, {flags, b.const_u32(mask)});
  Id kind_ok = required == 0 ? f.op(SpvOp::OpINotEqual, k_.types.bool_type, {masked, b.const_u32(0)})
                             : f.op(SpvOp::OpIEqual, k_.types.bool_type, {masked, b.const_u32(required)});
  return {value, f.op(SpvOp::OpLogicalAnd, k_.types.bool_type, {in_range, kind_ok})};
}

Id Images::descriptor(FunctionBuilder& f, Id var, Id type, Id handle) {
  ModuleBuilder& b = k_.b;
  Id pointer = f.op(SpvOp::OpAccessChain, b.pointer_type(spv::StorageClass::UniformConstant, type), {var, handle});
  b.decorate(pointer, spv::Decoration::NonUniform);
  Id value = f.load(type, pointer);
  b.decorate(value, spv::Decoration::NonUniform);
  return value;
}

void Images::emit(Id id, Op op) {
  ModuleBuilder& b = k_.b;
  RuntimeHelpers& h = *k_.helpers;
  const Id u32 = k_.types.u32, f32 = k_.types.f32();
  const Id vec4 = t_vec4();
  const bool three_d = is_3d(op);
  const uint32_t dims = three_d ? 3 : 2;
  const spv::Dim dim = three_d ? spv::Dim::Dim3D : spv::Dim::Dim2D;
  const uint32_t dim_flag = three_d ? abi::kHandle3D : 0;

  std::vector<Id> params;
  Id result = vec4;
  switch (op) {
    case Op::Load2D:
    case Op::Load3D: params.assign(1 + dims, u32); break;
    case Op::Store2D:
    case Op::Store3D:
      params.assign(1 + dims, u32);
      params.insert(params.end(), 4, f32);
      result = k_.types.void_type;
      break;
    case Op::Sample2D:
    case Op::Sample3D:
      params.assign(2, u32);
      params.insert(params.end(), dims + 1, f32);
      break;
    case Op::Size:
      params.assign(2, u32);
      result = u32;
      break;
  }
  FunctionBuilder f(b, id, result, params);
  b.name(id, helper_name(op));
  const Id handle = f.param(0);
  auto trap_unless = [&](Id ok, abi::TrapKind kind) {
    f.if_else(f.op(SpvOp::OpLogicalNot, k_.types.bool_type, {ok}), [&] { h.trap_and_return(f, kind); });
  };

  if (op == Op::Size) {
    auto [value, ok] = entry(f, handle, abi::kHandleStorage | abi::kHandleSampled, 0);
    trap_unless(ok, abi::TrapKind::InvalidHandle);
    Id dimension = f.param(1);
    Id inside = f.op(SpvOp::OpULessThan, k_.types.bool_type, {dimension, b.const_u32(3)});
    Id safe = f.op(SpvOp::OpSelect, u32, {inside, dimension, b.const_u32(0)});
    Id size = f.op(SpvOp::OpVectorExtractDynamic, u32, {value, safe});
    f.return_value(f.op(SpvOp::OpSelect, u32, {inside, size, b.const_u32(1)}));
    f.finish();
    return;
  }

  if (op == Op::Sample2D || op == Op::Sample3D) {
    auto [image_entry, image_ok] =
        entry(f, handle, abi::kHandleSampled | abi::kHandle3D | abi::kHandleSampler, abi::kHandleSampled | dim_flag);
    auto [sampler_entry, sampler_ok] = entry(f, f.param(1), abi::kHandleSampler, abi::kHandleSampler);
    (void)image_entry;
    (void)sampler_entry;
    trap_unless(f.op(SpvOp::OpLogicalAnd, k_.types.bool_type, {image_ok, sampler_ok}), abi::TrapKind::InvalidHandle);
    const Id image_type = b.image_type(f32, dim, 1);
    Id image = descriptor(f, three_d ? sampled_3d_ : sampled_2d_, image_type, handle);
    Id sampler = descriptor(f, sampler_, b.sampler_type(), f.param(1));
    Id combined = f.op(SpvOp::OpSampledImage, b.sampled_image_type(image_type), {image, sampler});
    b.decorate(combined, spv::Decoration::NonUniform);
    Operands coords;
    for (uint32_t i = 0; i < dims; ++i) coords.push_back(f.param(2 + i));
    Id coord = f.op(SpvOp::OpCompositeConstruct, b.vector_type(f32, dims), coords);
    Id lod = f.param(2 + dims);
    f.return_value(f.op(SpvOp::OpImageSampleExplicitLod, vec4, {combined, coord, spv::ImageOperandsMask::Lod, lod}));
    f.finish();
    return;
  }

  const bool store = op == Op::Store2D || op == Op::Store3D;
  if (store) h.return_if_trapped(f);  // a trapped invocation writes nothing more
  auto [value, ok] =
      entry(f, handle, abi::kHandleStorage | abi::kHandle3D | abi::kHandleSampler, abi::kHandleStorage | dim_flag);
  trap_unless(ok, abi::TrapKind::InvalidHandle);
  Operands coords;
  Id inside;
  for (uint32_t i = 0; i < dims; ++i) {
    Id c = f.param(1 + i);
    coords.push_back(c);
    Id below =
        f.op(SpvOp::OpULessThan, k_.types.bool_type, {c, f.op(SpvOp::OpCompositeExtract, u32, {value, literal(i)})});
    inside = inside ? f.op(SpvOp::OpLogicalAnd, k_.types.bool_type, {inside, below}) : below;
  }
  trap_unless(inside, abi::TrapKind::ImageOutOfBounds);
  const Id image_type = b.image_type(f32, dim, 2);
  Id image = descriptor(f, three_d ? storage_3d_ : storage_2d_, image_type, handle);
  Id coord = f.op(SpvOp::OpCompositeConstruct, b.vector_type(u32, dims), coords);
  if (store) {
    Id texel = f.op(SpvOp::OpCompositeConstruct, vec4,
                    {f.param(1 + dims), f.param(2 + dims), f.param(3 + dims), f.param(4 + dims)});
    f.op_void(SpvOp::OpImageWrite, {image, coord, texel});
    f.return_();
  } else {
    f.return_value(f.op(SpvOp::OpImageRead, vec4, {image, coord}));
  }
  f.finish();
}

}  // namespace wasmgpu::spirv
