// Fuzz target: reflection of foreign SPIR-V. Inputs that spirv-val accepts
// for the Vulkan 1.2 environment (as the compiler's own output is checked)
// are reflected with SPIRV-Cross; reflection may refuse a module with an
// error, but must never crash.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "reflect/spirv_reflect.h"
#include "spirv/compiler.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace wasmgpu;
  const std::span<const uint8_t> bytes(data, size);
  if (!reflect::is_spirv(bytes)) return 0;
  auto words = reflect::spirv_words(bytes);
  if (!words.ok() || !spirv::validate(*words).ok()) return 0;
  (void)reflect::reflect_spirv(*words);
  return 0;
}
