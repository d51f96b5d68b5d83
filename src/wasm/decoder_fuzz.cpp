// Fuzz target: the decoder and the validator on arbitrary bytes. Neither may
// crash, hang or trip a sanitizer; each input is decoded alone, then validated,
// and decode_and_validate must agree with the two steps.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "wasm/decoder.h"
#include "wasm/validator.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> bytes(data, size);
  auto decoded = wasmgpu::wasm::decode(bytes);
  const bool valid = decoded.ok() && wasmgpu::wasm::validate(*decoded).ok();
  if (wasmgpu::wasm::decode_and_validate(bytes).ok() != valid) std::abort();
  return 0;
}
