// Interfaces of wasm kernels: from the signature alone, and with the
// "wasmgpu.kernels" metadata WASMGPU_DEFINE_KERNEL writes.
#include "reflect/wasm_interface.h"

#include <gtest/gtest.h>

#include "reflect/interface_json.h"
#include "wasm/decoder.h"
#include "wasm/test_module_builder.h"

namespace wasmgpu::reflect {
namespace {

using namespace wasm::testing;  // NOLINT: the builder helpers

Bytes cstring(std::string_view text) {
  Bytes out(text.begin(), text.end());
  out.push_back(0);
  return out;
}

Bytes le32(uint32_t value) { return {uint8_t(value), uint8_t(value >> 8), uint8_t(value >> 16), uint8_t(value >> 24)}; }

Bytes param(uint8_t kind, uint32_t size, uint32_t alignment, std::string_view name, std::string_view type,
            std::string_view pointee) {
  return concat({Bytes{kind}, le32(size), le32(alignment), cstring(name), cstring(type), cstring(pointee)});
}

// Exports "k" of type (i32 index, f32, i32, i32, i64, i32) -> () and "helper"
// of type () -> i32 (no kernel: returns a value), with `custom` appended.
Bytes module_with(const Bytes& custom) {
  Bytes types = section(1, {0x02, 0x60, 0x06, 0x7F, 0x7D, 0x7F, 0x7F, 0x7E, 0x7F, 0x00, 0x60, 0x00, 0x01, 0x7F});
  Bytes functions = section(3, {0x02, 0x00, 0x01});
  Bytes exports = section(7, concat({Bytes{0x02}, name("k"), Bytes{0x00, 0x00}, name("helper"), Bytes{0x00, 0x01}}));
  Bytes code = code_section({body({0x00, 0x0B}), body({0x00, 0x41, 0x00, 0x0B})});
  std::vector<Bytes> sections{types, functions, exports, code};
  Bytes out = module_header();
  for (const Bytes& s : sections) out.insert(out.end(), s.begin(), s.end());
  out.insert(out.end(), custom.begin(), custom.end());
  return out;
}

std::vector<KernelInterface> interfaces_of(const Bytes& bytes) {
  auto module = wasm::decode_and_validate(bytes);
  EXPECT_TRUE(module.ok()) << (module.ok() ? "" : module.error().to_string());
  if (!module.ok()) return {};
  auto interfaces = wasm_interfaces(*module);
  EXPECT_TRUE(interfaces.ok()) << (interfaces.ok() ? "" : interfaces.error().to_string());
  return interfaces.ok() ? *interfaces : std::vector<KernelInterface>{};
}

TEST(WasmInterface, WithoutMetadataParametersAreNumberedScalars) {
  std::vector<KernelInterface> kernels = interfaces_of(module_with({}));
  ASSERT_EQ(kernels.size(), 1u);  // "helper" returns a value: no kernel
  const KernelInterface& k = kernels[0];
  EXPECT_EQ(k.name, "k");
  EXPECT_EQ(k.source, KernelSource::Wasm);
  ASSERT_EQ(k.params.size(), 5u);
  const ScalarType types[] = {ScalarType::F32, ScalarType::I32, ScalarType::I32, ScalarType::I64, ScalarType::I32};
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(k.params[i].name, "arg" + std::to_string(i + 1));
    EXPECT_EQ(k.params[i].kind, ParamKind::Scalar);
    EXPECT_EQ(k.params[i].scalar, types[i]) << i;
    EXPECT_EQ(k.params[i].size, types[i] == ScalarType::I64 ? 8u : 4u);
    EXPECT_FALSE(k.params[i].set);
  }
  EXPECT_FALSE(k.workgroup_size);
  EXPECT_EQ(k.push_constant_size, 0u);
}

TEST(WasmInterface, MetadataNamesParametersAndTypesPointers) {
  Bytes record = concat({Bytes{1}, cstring("k"), Bytes{6}, param(0, 4, 4, "i", "int", ""),
                         param(1, 4, 4, "a", "float", ""), param(3, 4, 4, "x", "const float *", "float"),
                         param(2, 24, 8, "p", "struct particle *", "struct particle"),
                         param(0, 8, 8, "step", "uint64_t", ""), param(0, 4, 4, "n", "unsigned int", "")});
  std::vector<KernelInterface> kernels =
      interfaces_of(module_with(section(0, concat({name("wasmgpu.kernels"), record}))));
  ASSERT_EQ(kernels.size(), 1u);
  const KernelInterface& k = kernels[0];
  ASSERT_EQ(k.params.size(), 5u);
  EXPECT_EQ(k.params[0].name, "a");
  EXPECT_EQ(k.params[0].kind, ParamKind::Scalar);
  EXPECT_EQ(k.params[0].scalar, ScalarType::F32);
  EXPECT_EQ(k.params[1].name, "x");
  EXPECT_EQ(k.params[1].kind, ParamKind::Buffer);
  EXPECT_EQ(k.params[1].element_type, "float");
  EXPECT_EQ(k.params[1].element_size, 4u);
  EXPECT_FALSE(k.params[1].writable);
  EXPECT_EQ(k.params[2].name, "p");
  EXPECT_EQ(k.params[2].kind, ParamKind::Buffer);
  EXPECT_EQ(k.params[2].element_type, "struct particle");
  EXPECT_EQ(k.params[2].element_size, 24u);
  EXPECT_TRUE(k.params[2].writable);
  EXPECT_EQ(k.params[3].name, "step");
  EXPECT_EQ(k.params[3].scalar, ScalarType::U64);
  EXPECT_EQ(k.params[3].size, 8u);
  EXPECT_EQ(k.params[4].name, "n");
  EXPECT_EQ(k.params[4].scalar, ScalarType::U32);

  nlohmann::ordered_json json = to_json(k);
  EXPECT_EQ(json["name"], "k");
  EXPECT_EQ(json["source"], "wasm");
  EXPECT_EQ(json["params"][1]["kind"], "buffer");
  EXPECT_EQ(json["params"][1]["element_type"], "float");
  EXPECT_EQ(json["params"][1]["writable"], false);
  EXPECT_EQ(json["params"][3]["scalar"], "u64");
  EXPECT_EQ(json["params"][3]["index"], 3);
  EXPECT_FALSE(json.contains("workgroup_size"));
}

// WASMGPU_IMAGE / WASMGPU_SAMPLER handles (kinds 4, 5) on i32 parameters.
TEST(WasmInterface, ImageAndSamplerHandles) {
  Bytes record =
      concat({Bytes{1}, cstring("k"), Bytes{6}, param(0, 4, 4, "i", "int", ""), param(1, 4, 4, "a", "float", ""),
              param(4, 4, 4, "src", "wasmgpu_image", ""), param(5, 4, 4, "s", "wasmgpu_sampler", ""),
              param(0, 8, 8, "n", "long long", ""), param(4, 4, 4, "dst", "wasmgpu_image", "")});
  std::vector<KernelInterface> kernels =
      interfaces_of(module_with(section(0, concat({name("wasmgpu.kernels"), record}))));
  ASSERT_EQ(kernels.size(), 1u);
  const KernelInterface& k = kernels[0];
  ASSERT_EQ(k.params.size(), 5u);
  EXPECT_EQ(k.params[1].name, "src");
  EXPECT_EQ(k.params[1].kind, ParamKind::StorageImage);
  EXPECT_EQ(k.params[1].element_type, "wasmgpu_image");
  EXPECT_EQ(k.params[2].name, "s");
  EXPECT_EQ(k.params[2].kind, ParamKind::Sampler);
  EXPECT_EQ(k.params[4].kind, ParamKind::StorageImage);
  EXPECT_FALSE(k.params[4].set);  // handles, not descriptor bindings
}

TEST(WasmInterface, MetadataThatDisagreesWithTheSignatureIsAnError) {
  // "a" declared double, but the signature takes f32.
  Bytes record =
      concat({Bytes{1}, cstring("k"), Bytes{6}, param(0, 4, 4, "i", "int", ""), param(1, 8, 8, "a", "double", ""),
              param(0, 4, 4, "x", "int", ""), param(0, 4, 4, "y", "int", ""), param(0, 8, 8, "z", "long long", ""),
              param(0, 4, 4, "n", "int", "")});
  auto module = wasm::decode_and_validate(module_with(section(0, concat({name("wasmgpu.kernels"), record}))));
  ASSERT_TRUE(module.ok());
  auto interfaces = wasm_interfaces(*module);
  ASSERT_FALSE(interfaces.ok());
  EXPECT_EQ(interfaces.error().message,
            "parameter metadata for kernel 'k', parameter 1 (double a): the wasm function takes f32 there, not f64");
}

}  // namespace
}  // namespace wasmgpu::reflect
