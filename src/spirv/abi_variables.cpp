#include "spirv/abi_variables.h"

#include <string>

namespace wasmgpu::spirv {

Id AbiVariables::builtin_input(spv::BuiltIn builtin, Id type) {
  auto it = builtin_vars_.find(uint32_t(builtin));
  if (it != builtin_vars_.end()) return it->second;
  const Id var = b_.global_variable(b_.pointer_type(spv::StorageClass::Input, type), spv::StorageClass::Input);
  b_.decorate(var, spv::Decoration::BuiltIn, {uint32_t(builtin)});
  builtin_vars_.emplace(uint32_t(builtin), var);
  return var;
}

const AbiVariables::ParamRegion& AbiVariables::param_region(uint32_t param) {
  auto it = param_regions_.find(param);
  if (it != param_regions_.end()) return it->second;
  auto var = [&](const std::string& name) {
    const Id v =
        b_.global_variable(b_.pointer_type(spv::StorageClass::Private, types_.u64), spv::StorageClass::Private);
    b_.name(v, name);
    return v;
  };
  std::string prefix = "param" + std::to_string(param) + "_region_";
  ParamRegion region{var(prefix + "base"), var(prefix + "size"), var(prefix + "device")};
  return param_regions_.emplace(param, region).first->second;
}

}  // namespace wasmgpu::spirv
