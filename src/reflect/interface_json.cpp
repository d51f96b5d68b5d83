#include "reflect/interface_json.h"

#include <algorithm>
#include <cstring>

namespace wasmgpu::reflect {

using json = nlohmann::ordered_json;

json to_json(const StructLayout& layout) {
  json members = json::array();
  for (const StructMember& m : layout.members) {
    json member{{"name", m.name}, {"type", m.type}, {"offset", m.offset}, {"size", m.size}};
    if (m.array_stride) member["array_stride"] = m.array_stride;
    members.push_back(std::move(member));
  }
  return json{{"name", layout.name}, {"size", layout.size}, {"members", std::move(members)}};
}

// to_string(ParamKind) with underscores: "uniform_buffer", a JSON-friendly key.
std::string kind_name(ParamKind kind) {
  std::string name = to_string(kind);
  std::replace(name.begin(), name.end(), ' ', '_');
  return name;
}

json to_json(const Param& param) {
  json out{{"name", param.name}, {"kind", kind_name(param.kind)}};
  if (param.kind == ParamKind::Scalar) out["scalar"] = to_string(param.scalar);
  if (param.set) out["set"] = *param.set;
  if (param.binding) out["binding"] = *param.binding;
  if (param.push_offset) out["push_offset"] = *param.push_offset;
  if (!param.element_type.empty()) out["element_type"] = param.element_type;
  if (param.element_size) out["element_size"] = param.element_size;
  if (param.size) out["size"] = param.size;
  out["writable"] = param.writable;
  if (param.layout) out["layout"] = to_json(*param.layout);
  return out;
}

json spec_value(ScalarType type, uint64_t bits) {
  switch (type) {
    case ScalarType::I32: return int32_t(uint32_t(bits));
    case ScalarType::U32: return uint32_t(bits);
    case ScalarType::I64: return int64_t(bits);
    case ScalarType::U64: return bits;
    case ScalarType::F32: {
      float f;
      const uint32_t b = uint32_t(bits);
      std::memcpy(&f, &b, 4);
      return f;
    }
    case ScalarType::F64: {
      double d;
      std::memcpy(&d, &bits, 8);
      return d;
    }
  }
  return nullptr;
}

json to_json(const SpecConstant& spec) {
  return json{{"id", spec.id},
              {"name", spec.name},
              {"type", to_string(spec.type)},
              {"default", spec_value(spec.type, spec.default_bits)}};
}

json to_json(const KernelInterface& kernel) {
  json out{{"name", kernel.name}, {"source", kernel.source == KernelSource::Wasm ? "wasm" : "spirv"}};
  json params = json::array();
  for (size_t i = 0; i < kernel.params.size(); ++i) {
    json p = to_json(kernel.params[i]);
    p["index"] = i;
    params.push_back(std::move(p));
  }
  out["params"] = std::move(params);
  if (kernel.source == KernelSource::Spirv) {
    out["workgroup_size"] = kernel.workgroup_size ? json(*kernel.workgroup_size) : json(nullptr);
    out["workgroup_size_default"] = kernel.workgroup_size_default;
    json ids = json::array();
    for (const auto& id : kernel.workgroup_size_spec_ids) ids.push_back(id ? json(*id) : json(nullptr));
    out["workgroup_size_spec_ids"] = std::move(ids);
    json specs = json::array();
    for (const SpecConstant& s : kernel.spec_constants) specs.push_back(to_json(s));
    out["spec_constants"] = std::move(specs);
    out["push_constant_size"] = kernel.push_constant_size;
    out["shared_memory_bytes"] = kernel.shared_memory_bytes;
  }
  return out;
}

}  // namespace wasmgpu::reflect
