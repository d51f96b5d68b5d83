#include "reflect/spirv_reflect.h"

#include <spirv_cross/spirv_cross_c.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>

namespace wasmgpu::reflect {
namespace {

constexpr uint32_t kSpirvMagic = 0x07230203;

// Owns the SPIRV-Cross context; the compiler and everything it hands out
// (names, lists) live as long as the context.
struct ContextDeleter {
  void operator()(spvc_context_s* context) const { spvc_context_destroy(context); }
};
using ContextPtr = std::unique_ptr<spvc_context_s, ContextDeleter>;

std::string str(const char* s) { return s ? std::string(s) : std::string(); }

class Reflector {
 public:
  Reflector(spvc_context context, spvc_compiler compiler, std::span<const uint32_t> words)
      : context_(context), compiler_(compiler), words_(words) {}

  Result<KernelInterface> entry_point(const std::string& name);
  std::vector<StructLayout> take_nested() {
    std::vector<StructLayout> out;
    for (auto& [name, layout] : nested_) out.push_back(std::move(layout));
    return out;
  }

 private:
  Error fail(const std::string& what) const {
    return make_error(ErrorCode::Internal, what + ": " + str(spvc_context_get_last_error_string(context_)));
  }
  std::string type_name(spvc_type_id id);
  std::string base_type_name(spvc_type type, spvc_type_id id);
  StructLayout layout_of(spvc_type_id id);
  bool explicitly_laid_out(spvc_type type);
  std::string binding_name(const spvc_reflected_resource& resource);
  Status add_descriptors(spvc_resources resources, KernelInterface& kernel);
  Status add_push_constants(spvc_resources resources, KernelInterface& kernel);
  Status add_spec_constants(KernelInterface& kernel);
  Status add_workgroup_size(KernelInterface& kernel);
  uint32_t shared_memory_bytes();
  uint64_t natural_size(spvc_type_id id);
  uint32_t constant_u32(spvc_constant_id id) {
    return spvc_constant_get_scalar_u32(spvc_compiler_get_constant_handle(compiler_, id), 0, 0);
  }

  spvc_context context_;
  spvc_compiler compiler_;
  std::span<const uint32_t> words_;
  std::map<std::string, StructLayout> nested_;
};

// The GLSL spelling of a type without its array dimensions: "float", "vec4",
// "mat4", "uvec2", "int64_t", or the struct's name.
std::string Reflector::base_type_name(spvc_type type, spvc_type_id id) {
  const unsigned vec = spvc_type_get_vector_size(type);
  const unsigned cols = spvc_type_get_columns(type);
  const char* scalar = "?";
  const char* prefix = "";
  switch (spvc_type_get_basetype(type)) {
    case SPVC_BASETYPE_BOOLEAN:
      scalar = "bool";
      prefix = "b";
      break;
    case SPVC_BASETYPE_INT8:
      scalar = "int8_t";
      prefix = "i8";
      break;
    case SPVC_BASETYPE_UINT8:
      scalar = "uint8_t";
      prefix = "u8";
      break;
    case SPVC_BASETYPE_INT16:
      scalar = "int16_t";
      prefix = "i16";
      break;
    case SPVC_BASETYPE_UINT16:
      scalar = "uint16_t";
      prefix = "u16";
      break;
    case SPVC_BASETYPE_INT32:
      scalar = "int";
      prefix = "i";
      break;
    case SPVC_BASETYPE_UINT32:
      scalar = "uint";
      prefix = "u";
      break;
    case SPVC_BASETYPE_INT64:
      scalar = "int64_t";
      prefix = "i64";
      break;
    case SPVC_BASETYPE_UINT64:
      scalar = "uint64_t";
      prefix = "u64";
      break;
    case SPVC_BASETYPE_FP16:
      scalar = "float16_t";
      prefix = "f16";
      break;
    case SPVC_BASETYPE_FP32:
      scalar = "float";
      prefix = "";
      break;
    case SPVC_BASETYPE_FP64:
      scalar = "double";
      prefix = "d";
      break;
    case SPVC_BASETYPE_STRUCT: {
      const spvc_type_id base = spvc_type_get_base_type_id(type);
      std::string name = str(spvc_compiler_get_name(compiler_, base));
      return name.empty() ? "_struct" + std::to_string(base) : name;
    }
    case SPVC_BASETYPE_IMAGE:
    case SPVC_BASETYPE_SAMPLED_IMAGE: {
      std::string dim;
      switch (spvc_type_get_image_dimension(type)) {
        case SpvDim1D: dim = "1D"; break;
        case SpvDim2D: dim = "2D"; break;
        case SpvDim3D: dim = "3D"; break;
        case SpvDimCube: dim = "Cube"; break;
        case SpvDimBuffer: dim = "Buffer"; break;
        default: dim = "?"; break;
      }
      if (spvc_type_get_image_arrayed(type)) dim += "Array";
      if (spvc_type_get_basetype(type) == SPVC_BASETYPE_SAMPLED_IMAGE) return "sampler" + dim;
      return (spvc_type_get_image_is_storage(type) ? "image" : "texture") + dim;
    }
    case SPVC_BASETYPE_SAMPLER: return "sampler";
    default: return "?" + std::to_string(id);
  }
  if (cols > 1)
    return std::string(prefix) + "mat" + std::to_string(cols) + (cols == vec ? "" : "x" + std::to_string(vec));
  if (vec > 1) return std::string(prefix) + "vec" + std::to_string(vec);
  return scalar;
}

// With array dimensions, outermost first: "uint[4]", "vec4[]".
std::string Reflector::type_name(spvc_type_id id) {
  spvc_type type = spvc_compiler_get_type_handle(compiler_, id);
  std::string name = base_type_name(type, id);
  const unsigned dims = spvc_type_get_num_array_dimensions(type);
  // SPIRV-Cross keeps the outermost dimension last.
  for (unsigned d = dims; d-- > 0;) {
    const SpvId size = spvc_type_get_array_dimension(type, d);
    if (!spvc_type_array_dimension_is_literal(type, d))
      name += "[" + std::to_string(constant_u32(size)) + "]";
    else if (size == 0)
      name += "[]";
    else
      name += "[" + std::to_string(size) + "]";
  }
  return name;
}

// SPIRV-Cross computes sizes from Offset and ArrayStride decorations and
// dereferences a missing one. spirv-val lets a struct reached only through a
// physical pointer go without them (found by fuzzing), so sizes are asked for
// only where every member, nested structs included, carries its layout.
bool Reflector::explicitly_laid_out(spvc_type type) {
  const spvc_type_id base = spvc_type_get_base_type_id(type);
  const unsigned count = spvc_type_get_num_member_types(type);
  for (unsigned i = 0; i < count; ++i) {
    if (!spvc_compiler_has_member_decoration(compiler_, base, i, SpvDecorationOffset)) return false;
    const spvc_type_id member_id = spvc_type_get_member_type(type, i);
    spvc_type member_type = spvc_compiler_get_type_handle(compiler_, member_id);
    if (spvc_type_get_num_array_dimensions(member_type) > 0 &&
        !spvc_compiler_has_decoration(compiler_, member_id, SpvDecorationArrayStride))
      return false;
    if (spvc_type_get_basetype(member_type) == SPVC_BASETYPE_STRUCT && !explicitly_laid_out(member_type)) return false;
  }
  return true;
}

StructLayout Reflector::layout_of(spvc_type_id id) {
  spvc_type type = spvc_compiler_get_type_handle(compiler_, id);
  const spvc_type_id base = spvc_type_get_base_type_id(type);
  StructLayout layout;
  layout.name = base_type_name(type, id);
  const bool laid_out = explicitly_laid_out(type);
  size_t size = 0;
  if (laid_out && spvc_compiler_get_declared_struct_size(compiler_, type, &size) == SPVC_SUCCESS)
    layout.size = uint32_t(size);
  const unsigned count = spvc_type_get_num_member_types(type);
  for (unsigned i = 0; i < count; ++i) {
    StructMember member;
    member.name = str(spvc_compiler_get_member_name(compiler_, base, i));
    if (member.name.empty()) member.name = "_m" + std::to_string(i);
    const spvc_type_id member_id = spvc_type_get_member_type(type, i);
    spvc_type member_type = spvc_compiler_get_type_handle(compiler_, member_id);
    member.type = type_name(member_id);
    if (laid_out) {
      unsigned offset = 0;
      spvc_compiler_type_struct_member_offset(compiler_, type, i, &offset);
      member.offset = offset;
      size_t member_size = 0;
      spvc_compiler_get_declared_struct_member_size(compiler_, type, i, &member_size);
      member.size = uint32_t(member_size);
      if (spvc_type_get_num_array_dimensions(member_type) > 0) {
        unsigned stride = 0;
        spvc_compiler_type_struct_member_array_stride(compiler_, type, i, &stride);
        member.array_stride = stride;
      }
    }
    if (spvc_type_get_basetype(member_type) == SPVC_BASETYPE_STRUCT) {
      const spvc_type_id nested = spvc_type_get_base_type_id(member_type);
      StructLayout inner = layout_of(nested);
      nested_.emplace(inner.name, std::move(inner));
    }
    layout.members.push_back(std::move(member));
  }
  return layout;
}

std::string Reflector::binding_name(const spvc_reflected_resource& resource) {
  std::string name = str(spvc_compiler_get_name(compiler_, resource.id));
  if (name.empty()) name = str(spvc_compiler_get_name(compiler_, resource.base_type_id));
  if (name.empty())
    name = "set" + std::to_string(spvc_compiler_get_decoration(compiler_, resource.id, SpvDecorationDescriptorSet)) +
           "_binding" + std::to_string(spvc_compiler_get_decoration(compiler_, resource.id, SpvDecorationBinding));
  return name;
}

// A block is read-only when the variable, or every member, is NonWritable
// (glslang puts `readonly` on the members; Slang and rust-gpu on either).
bool block_non_writable(spvc_compiler compiler, const spvc_reflected_resource& resource) {
  if (spvc_compiler_has_decoration(compiler, resource.id, SpvDecorationNonWritable)) return true;
  spvc_type type = spvc_compiler_get_type_handle(compiler, resource.base_type_id);
  const unsigned count = spvc_type_get_num_member_types(type);
  if (count == 0) return false;
  for (unsigned i = 0; i < count; ++i)
    if (!spvc_compiler_has_member_decoration(compiler, resource.base_type_id, i, SpvDecorationNonWritable))
      return false;
  return true;
}

Status Reflector::add_descriptors(spvc_resources resources, KernelInterface& kernel) {
  struct Kind {
    spvc_resource_type type;
    ParamKind kind;
  };
  const Kind kinds[] = {
      {SPVC_RESOURCE_TYPE_STORAGE_BUFFER, ParamKind::Buffer},
      {SPVC_RESOURCE_TYPE_UNIFORM_BUFFER, ParamKind::UniformBuffer},
      {SPVC_RESOURCE_TYPE_STORAGE_IMAGE, ParamKind::StorageImage},
      {SPVC_RESOURCE_TYPE_SEPARATE_IMAGE, ParamKind::SampledImage},
      {SPVC_RESOURCE_TYPE_SEPARATE_SAMPLERS, ParamKind::Sampler},
      {SPVC_RESOURCE_TYPE_SAMPLED_IMAGE, ParamKind::CombinedImageSampler},
  };
  std::vector<Param> params;
  for (const Kind& k : kinds) {
    const spvc_reflected_resource* list = nullptr;
    size_t count = 0;
    if (spvc_resources_get_resource_list_for_type(resources, k.type, &list, &count) != SPVC_SUCCESS)
      return fail("listing resources");
    for (size_t i = 0; i < count; ++i) {
      const spvc_reflected_resource& r = list[i];
      Param param;
      param.name = binding_name(r);
      param.kind = k.kind;
      param.set = spvc_compiler_get_decoration(compiler_, r.id, SpvDecorationDescriptorSet);
      param.binding = spvc_compiler_get_decoration(compiler_, r.id, SpvDecorationBinding);
      spvc_type var_type = spvc_compiler_get_type_handle(compiler_, r.type_id);
      if (spvc_type_get_num_array_dimensions(var_type) > 0)
        return make_error(ErrorCode::Unsupported, "entry point '" + kernel.name + "': binding '" + param.name +
                                                      "' (set " + std::to_string(*param.set) + ", binding " +
                                                      std::to_string(*param.binding) +
                                                      ") is an array of descriptors, which wasmgpu does not bind yet");
      spvc_type base = spvc_compiler_get_type_handle(compiler_, r.base_type_id);
      if ((k.kind == ParamKind::StorageImage || k.kind == ParamKind::SampledImage) &&
          spvc_type_get_image_dimension(base) == SpvDimBuffer)
        return make_error(ErrorCode::Unsupported, "entry point '" + kernel.name + "': binding '" + param.name +
                                                      "' is a texel buffer, which wasmgpu does not bind yet");
      switch (k.kind) {
        case ParamKind::Buffer:
        case ParamKind::UniformBuffer: {
          param.layout = layout_of(r.base_type_id);
          param.size = param.layout->size;
          param.writable = k.kind == ParamKind::Buffer && !block_non_writable(compiler_, r);
          // A block ending in a runtime array is an array of its element
          // (the common `{ float data[]; }`, RWStructuredBuffer, &mut [T]).
          const StructLayout& layout = *param.layout;
          const unsigned members = spvc_type_get_num_member_types(base);
          spvc_type last = members
                               ? spvc_compiler_get_type_handle(compiler_, spvc_type_get_member_type(base, members - 1))
                               : nullptr;
          const unsigned last_dims = last ? spvc_type_get_num_array_dimensions(last) : 0;
          if (last && last_dims > 0 && spvc_type_array_dimension_is_literal(last, last_dims - 1) &&
              spvc_type_get_array_dimension(last, last_dims - 1) == 0) {
            std::string element = layout.members.back().type;
            element.resize(element.size() - 2);  // drop "[]"
            param.element_type = element;
            param.element_size = layout.members.back().array_stride;
          } else {
            param.element_type = layout.name;
            param.element_size = layout.size;
          }
          break;
        }
        case ParamKind::StorageImage:
          param.element_type = base_type_name(base, r.base_type_id);
          param.writable = !spvc_compiler_has_decoration(compiler_, r.id, SpvDecorationNonWritable);
          break;
        default:
          param.element_type = base_type_name(base, r.base_type_id);
          param.writable = false;
          break;
      }
      params.push_back(std::move(param));
    }
  }
  std::sort(params.begin(), params.end(), [](const Param& a, const Param& b) {
    return std::pair(*a.set, *a.binding) < std::pair(*b.set, *b.binding);
  });
  for (size_t i = 1; i < params.size(); ++i)
    if (params[i].set == params[i - 1].set && params[i].binding == params[i - 1].binding)
      return make_error(ErrorCode::Validation, "entry point '" + kernel.name + "': '" + params[i - 1].name + "' and '" +
                                                   params[i].name + "' share set " + std::to_string(*params[i].set) +
                                                   ", binding " + std::to_string(*params[i].binding));
  for (Param& p : params) kernel.params.push_back(std::move(p));
  return {};
}

std::optional<ScalarType> scalar_of(spvc_type type) {
  if (spvc_type_get_num_array_dimensions(type) > 0 || spvc_type_get_vector_size(type) != 1 ||
      spvc_type_get_columns(type) != 1)
    return std::nullopt;
  switch (spvc_type_get_basetype(type)) {
    case SPVC_BASETYPE_INT32: return ScalarType::I32;
    case SPVC_BASETYPE_UINT32: return ScalarType::U32;
    case SPVC_BASETYPE_INT64: return ScalarType::I64;
    case SPVC_BASETYPE_UINT64: return ScalarType::U64;
    case SPVC_BASETYPE_FP32: return ScalarType::F32;
    case SPVC_BASETYPE_FP64: return ScalarType::F64;
    default: return std::nullopt;
  }
}

Status Reflector::add_push_constants(spvc_resources resources, KernelInterface& kernel) {
  const spvc_reflected_resource* list = nullptr;
  size_t count = 0;
  if (spvc_resources_get_resource_list_for_type(resources, SPVC_RESOURCE_TYPE_PUSH_CONSTANT, &list, &count) !=
      SPVC_SUCCESS)
    return fail("listing push constants");
  if (count > 1)
    return make_error(ErrorCode::Validation, "entry point '" + kernel.name + "' uses " + std::to_string(count) +
                                                 " push-constant blocks; Vulkan allows one");
  if (count == 0) return {};
  const spvc_reflected_resource& r = list[0];
  const StructLayout block = layout_of(r.base_type_id);
  spvc_type type = spvc_compiler_get_type_handle(compiler_, r.base_type_id);
  kernel.push_constant_size = block.size;
  std::vector<Param> params;
  for (size_t i = 0; i < block.members.size(); ++i) {
    const StructMember& member = block.members[i];
    Param param;
    param.name = member.name;
    param.push_offset = member.offset;
    param.size = member.size;
    param.element_type = member.type;
    param.element_size = member.size;
    param.writable = false;
    const spvc_type_id member_id = spvc_type_get_member_type(type, unsigned(i));
    spvc_type member_type = spvc_compiler_get_type_handle(compiler_, member_id);
    if (auto scalar = scalar_of(member_type)) {
      param.kind = ParamKind::Scalar;
      param.scalar = *scalar;
    } else {
      param.kind = ParamKind::Bytes;
      if (spvc_type_get_basetype(member_type) == SPVC_BASETYPE_STRUCT &&
          spvc_type_get_num_array_dimensions(member_type) == 0)
        param.layout = layout_of(member_id);
    }
    params.push_back(std::move(param));
  }
  std::stable_sort(params.begin(), params.end(),
                   [](const Param& a, const Param& b) { return *a.push_offset < *b.push_offset; });
  for (Param& p : params) kernel.params.push_back(std::move(p));
  return {};
}

Status Reflector::add_spec_constants(KernelInterface& kernel) {
  const spvc_specialization_constant* list = nullptr;
  size_t count = 0;
  if (spvc_compiler_get_specialization_constants(compiler_, &list, &count) != SPVC_SUCCESS)
    return fail("listing specialization constants");
  for (size_t i = 0; i < count; ++i) {
    spvc_constant constant = spvc_compiler_get_constant_handle(compiler_, list[i].id);
    spvc_type type = spvc_compiler_get_type_handle(compiler_, spvc_constant_get_type(constant));
    SpecConstant spec;
    spec.id = list[i].constant_id;
    spec.name = str(spvc_compiler_get_name(compiler_, list[i].id));
    switch (spvc_type_get_basetype(type)) {
      case SPVC_BASETYPE_BOOLEAN:
      case SPVC_BASETYPE_UINT32: spec.type = ScalarType::U32; break;
      case SPVC_BASETYPE_INT32: spec.type = ScalarType::I32; break;
      case SPVC_BASETYPE_FP32: spec.type = ScalarType::F32; break;
      case SPVC_BASETYPE_INT64: spec.type = ScalarType::I64; break;
      case SPVC_BASETYPE_UINT64: spec.type = ScalarType::U64; break;
      case SPVC_BASETYPE_FP64: spec.type = ScalarType::F64; break;
      default: continue;  // 8/16-bit constants keep their defaults
    }
    if (spec.type == ScalarType::I64 || spec.type == ScalarType::U64 || spec.type == ScalarType::F64) {
      // The C API has no 64-bit integer getter; the value is a union, so the
      // double's bits are the constant's bits.
      const double value = spvc_constant_get_scalar_fp64(constant, 0, 0);
      std::memcpy(&spec.default_bits, &value, 8);
    } else {
      spec.default_bits = spvc_constant_get_scalar_u32(constant, 0, 0);
    }
    kernel.spec_constants.push_back(std::move(spec));
  }
  std::sort(kernel.spec_constants.begin(), kernel.spec_constants.end(),
            [](const SpecConstant& a, const SpecConstant& b) { return a.id < b.id; });
  return {};
}

// Three sources, in SPIR-V's order of precedence: a WorkgroupSize built-in
// constant (glslang's local_size_x_id), the LocalSizeId mode (ids of
// constants, SPIR-V 1.2+), the LocalSize mode (literals).
Status Reflector::add_workgroup_size(KernelInterface& kernel) {
  spvc_specialization_constant spec[3];
  const spvc_constant_id builtin =
      spvc_compiler_get_work_group_size_specialization_constants(compiler_, &spec[0], &spec[1], &spec[2]);
  const SpvExecutionMode* modes = nullptr;
  size_t mode_count = 0;
  spvc_compiler_get_execution_modes(compiler_, &modes, &mode_count);
  const bool local_size_id = std::find(modes, modes + mode_count, SpvExecutionModeLocalSizeId) != modes + mode_count;
  std::array<uint32_t, 3> size{1, 1, 1};
  for (unsigned d = 0; d < 3; ++d) {
    if (spec[d].id != 0) {
      kernel.workgroup_size_spec_ids[d] = spec[d].constant_id;
      size[d] = constant_u32(spec[d].id);
    } else if (builtin != 0) {
      const spvc_constant_id* parts = nullptr;
      size_t part_count = 0;
      spvc_constant_get_subconstants(spvc_compiler_get_constant_handle(compiler_, builtin), &parts, &part_count);
      size[d] = d < part_count
                    ? constant_u32(parts[d])
                    : spvc_constant_get_scalar_u32(spvc_compiler_get_constant_handle(compiler_, builtin), 0, d);
    } else if (local_size_id) {
      size[d] =
          constant_u32(spvc_compiler_get_execution_mode_argument_by_index(compiler_, SpvExecutionModeLocalSizeId, d));
    } else {
      size[d] = spvc_compiler_get_execution_mode_argument_by_index(compiler_, SpvExecutionModeLocalSize, d);
    }
  }
  kernel.workgroup_size_default = size;
  const bool specialisable = spec[0].id || spec[1].id || spec[2].id;
  if (!specialisable) kernel.workgroup_size = size;
  return {};
}

uint64_t Reflector::natural_size(spvc_type_id id) {
  spvc_type type = spvc_compiler_get_type_handle(compiler_, id);
  uint64_t size = 0;
  if (spvc_type_get_basetype(type) == SPVC_BASETYPE_STRUCT) {
    // Workgroup structs carry no Offset decorations: count members packed.
    const unsigned count = spvc_type_get_num_member_types(type);
    for (unsigned i = 0; i < count; ++i) size += natural_size(spvc_type_get_member_type(type, i));
  } else {
    size = uint64_t(std::max(spvc_type_get_bit_width(type), 8u) / 8) * spvc_type_get_vector_size(type) *
           spvc_type_get_columns(type);
  }
  const unsigned dims = spvc_type_get_num_array_dimensions(type);
  for (unsigned d = 0; d < dims; ++d) {
    const SpvId n = spvc_type_get_array_dimension(type, d);
    size *= spvc_type_array_dimension_is_literal(type, d) ? n : constant_u32(n);
  }
  return size;
}

// Workgroup (shared) variables are not resources, so SPIRV-Cross's resource
// lists miss them: find them in the words (OpTypePointer / OpVariable).
uint32_t Reflector::shared_memory_bytes() {
  std::map<uint32_t, uint32_t> pointee;  // Workgroup pointer type -> pointee
  uint64_t total = 0;
  for (size_t i = 5; i < words_.size();) {
    const uint32_t count = words_[i] >> 16, opcode = words_[i] & 0xffff;
    if (count == 0 || i + count > words_.size()) break;
    if (opcode == SpvOpTypePointer && count == 4 && words_[i + 2] == SpvStorageClassWorkgroup)
      pointee[words_[i + 1]] = words_[i + 3];
    if (opcode == SpvOpVariable && count >= 4 && words_[i + 3] == SpvStorageClassWorkgroup) {
      auto it = pointee.find(words_[i + 1]);
      if (it != pointee.end()) total += natural_size(it->second);
    }
    i += count;
  }
  return uint32_t(std::min<uint64_t>(total, UINT32_MAX));
}

Result<KernelInterface> Reflector::entry_point(const std::string& name) {
  if (spvc_compiler_set_entry_point(compiler_, name.c_str(), SpvExecutionModelGLCompute) != SPVC_SUCCESS)
    return fail("selecting entry point '" + name + "'");
  KernelInterface kernel;
  kernel.name = name;
  kernel.source = KernelSource::Spirv;
  spvc_set active = nullptr;
  spvc_resources resources = nullptr;
  if (spvc_compiler_get_active_interface_variables(compiler_, &active) != SPVC_SUCCESS ||
      spvc_compiler_create_shader_resources_for_active_variables(compiler_, &resources, active) != SPVC_SUCCESS)
    return fail("reflecting entry point '" + name + "'");
  WASMGPU_TRY(add_descriptors(resources, kernel));
  WASMGPU_TRY(add_push_constants(resources, kernel));
  WASMGPU_TRY(add_spec_constants(kernel));
  WASMGPU_TRY(add_workgroup_size(kernel));
  kernel.shared_memory_bytes = shared_memory_bytes();
  return kernel;
}

// Names of the OpEntryPoint instructions, in module order.
std::vector<std::string> entry_point_order(std::span<const uint32_t> words) {
  std::vector<std::string> names;
  for (size_t i = 5; i < words.size();) {
    const uint32_t count = words[i] >> 16, opcode = words[i] & 0xffff;
    if (count == 0 || i + count > words.size()) break;
    if (opcode == SpvOpEntryPoint && count > 3) {
      const char* text = reinterpret_cast<const char*>(&words[i + 3]);
      names.emplace_back(text, strnlen(text, (count - 3) * 4));
    }
    if (opcode == SpvOpFunction) break;  // entry points precede every function
    i += count;
  }
  return names;
}

}  // namespace

bool is_spirv(std::span<const uint8_t> bytes) {
  if (bytes.size() < 4) return false;
  uint32_t word;
  std::memcpy(&word, bytes.data(), 4);
  return word == kSpirvMagic || __builtin_bswap32(word) == kSpirvMagic;
}

Result<std::vector<uint32_t>> spirv_words(std::span<const uint8_t> bytes) {
  if (bytes.size() % 4 != 0 || bytes.size() < 20)
    return make_error(ErrorCode::Decode, "not a SPIR-V module: " + std::to_string(bytes.size()) +
                                             " bytes is no whole number of words of a module header");
  if (!is_spirv(bytes)) return make_error(ErrorCode::Decode, "not a SPIR-V module: no magic number 0x07230203");
  std::vector<uint32_t> words(bytes.size() / 4);
  std::memcpy(words.data(), bytes.data(), bytes.size());
  if (words[0] != kSpirvMagic)
    for (uint32_t& w : words) w = __builtin_bswap32(w);
  return words;
}

Result<SpirvReflection> reflect_spirv(std::span<const uint32_t> words) {
  if (words.size() < 5 || words[0] != kSpirvMagic)
    return make_error(ErrorCode::Decode, "not a SPIR-V module (no magic number)");
  spvc_context raw = nullptr;
  if (spvc_context_create(&raw) != SPVC_SUCCESS)
    return make_error(ErrorCode::Internal, "SPIRV-Cross: cannot create a context");
  ContextPtr context(raw);
  spvc_parsed_ir ir = nullptr;
  if (spvc_context_parse_spirv(raw, words.data(), words.size(), &ir) != SPVC_SUCCESS)
    return make_error(ErrorCode::Decode,
                      "SPIRV-Cross cannot parse the module: " + str(spvc_context_get_last_error_string(raw)));
  spvc_compiler compiler = nullptr;
  if (spvc_context_create_compiler(raw, SPVC_BACKEND_NONE, ir, SPVC_CAPTURE_MODE_TAKE_OWNERSHIP, &compiler) !=
      SPVC_SUCCESS)
    return make_error(ErrorCode::Internal, "SPIRV-Cross: " + str(spvc_context_get_last_error_string(raw)));
  const spvc_entry_point* entries = nullptr;
  size_t entry_count = 0;
  if (spvc_compiler_get_entry_points(compiler, &entries, &entry_count) != SPVC_SUCCESS)
    return make_error(ErrorCode::Internal, "SPIRV-Cross: " + str(spvc_context_get_last_error_string(raw)));
  std::vector<std::string> names;
  for (size_t i = 0; i < entry_count; ++i)
    if (entries[i].execution_model == SpvExecutionModelGLCompute) names.push_back(str(entries[i].name));
  if (names.empty()) return make_error(ErrorCode::Unsupported, "the SPIR-V module has no GLCompute entry point");
  // SPIRV-Cross lists entry points in hash order: restore the module's.
  std::vector<std::string> order = entry_point_order(words);
  auto position = [&](const std::string& name) { return std::find(order.begin(), order.end(), name) - order.begin(); };
  std::stable_sort(names.begin(), names.end(),
                   [&](const std::string& a, const std::string& b) { return position(a) < position(b); });
  Reflector reflector(raw, compiler, words);
  SpirvReflection out;
  for (const std::string& name : names) {
    WASMGPU_ASSIGN_OR_RETURN(KernelInterface kernel, reflector.entry_point(name));
    out.kernels.push_back(std::move(kernel));
  }
  out.nested_structs = reflector.take_nested();
  return out;
}

}  // namespace wasmgpu::reflect
