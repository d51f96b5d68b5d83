// Foreign SPIR-V modules (GLSL, HLSL, Slang, rust-gpu) behind the same
// Module / Kernel / Argument API as wasm, with interfaces from
// reflect::reflect_spirv; their kernels are created by the device
// (module.cpp).
#include "api/impl.h"
#include "reflect/spirv_reflect.h"
#include "wasmgpu/device.hpp"

namespace wasmgpu {

Module Device::load_spirv(std::span<const uint32_t> words, const ModuleOptions&) {
  if (!impl_) detail::raise(ErrorKind::UseAfterMove, "use of a moved-from Device");
  reflect::SpirvReflection reflection = detail::check(reflect::reflect_spirv(words), ErrorKind::Compile);
  auto impl = std::make_shared<detail::ModuleImpl>();
  impl->device = impl_.get();
  impl->source = KernelSource::Spirv;
  impl->interfaces = std::move(reflection.kernels);
  impl->spirv.assign(words.begin(), words.end());
  return Module(impl_, std::move(impl));
}

}  // namespace wasmgpu
