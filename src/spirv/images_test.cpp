// The image imports in SPIR-V: every import validates (spirv-val, Vulkan 1.2)
// at -O0 and -O2, declares the bindless set only when used, and reaches its
// image instruction; wrong signatures are refused.
#include "abi/image_abi.h"
#include "spirv/test_util.h"

namespace wasmgpu::spirv::testing {
namespace {

const std::string kHeader = std::string("-I") + WASMGPU_INCLUDE_DIR;

constexpr const char* kEveryImageImport = R"(
#include <wasmgpu.h>
WASMGPU_DEFINE_KERNEL(k, WASMGPU_VALUE(int, i), WASMGPU_IMAGE(src), WASMGPU_IMAGE(volume),
                      WASMGPU_SAMPLER(s), WASMGPU_IMAGE(dst), WASMGPU_PTR(float, out)) {
  float t[4], v[4], a[4], b[4];
  int w = wasmgpu_image_size(src, 0), h = wasmgpu_image_size(src, 1);
  wasmgpu_image_load_2d(t, src, i % w, i / w);
  wasmgpu_image_load_3d(v, volume, i & 1, 0, wasmgpu_image_size(volume, 2) - 1);
  wasmgpu_image_sample_2d(a, src, s, (i + 0.5f) / w, 0.5f / h, 0.0f);
  wasmgpu_image_sample_3d(b, volume, s, 0.25f, 0.5f, 0.75f, 0.0f);
  wasmgpu_image_store_2d(dst, i % w, i / w, t[0] + v[1], t[1] + a[2], t[2] + b[3], t[3]);
  wasmgpu_image_store_3d(volume, 0, 0, 0, 1.0f, 2.0f, 3.0f, (float)wasmgpu_image_size(dst, 7));
  out[i] = a[0] + b[0];
}
)";

TEST(Images, EveryImageImportValidates) {
  for (const char* opt : {"-O0", "-O2"}) {
    CompiledKernel k = expect_compiles(c_to_wasm(kEveryImageImport, opt, kHeader), "k");
    EXPECT_TRUE(k.info.uses_images) << opt;
    std::string text = disassembly(k);
    for (const char* expected :
         {"OpImageRead", "OpImageWrite", "OpImageSampleExplicitLod", "OpSampledImage", "OpArrayLength",
          "OpTypeRuntimeArray", "NonUniform", "OpCapability StorageImageReadWithoutFormat",
          "OpCapability StorageImageWriteWithoutFormat", "OpCapability RuntimeDescriptorArray"})
      EXPECT_NE(text.find(expected), std::string::npos) << expected << " at " << opt;
    // Every binding of set 0 is declared, each once.
    for (uint32_t binding = 0; binding < abi::kImageBindingCount; ++binding) {
      std::string decoration = "Binding " + std::to_string(binding) + "\n";
      size_t first = text.find(decoration);
      EXPECT_NE(first, std::string::npos) << decoration << opt;
      EXPECT_EQ(text.find(decoration, first + 1), std::string::npos) << decoration << opt;
    }
  }
}

TEST(Images, KernelsWithoutImagesDeclareNoDescriptors) {
  CompiledKernel k = expect_compiles(c_to_wasm(R"(
#include <wasmgpu.h>
WASMGPU_KERNEL(k) void k(int i, float *out) { out[i] = 2.0f * out[i]; }
)",
                                               "-O2", kHeader),
                                     "k");
  EXPECT_FALSE(k.info.uses_images);
  std::string text = disassembly(k);
  EXPECT_EQ(text.find("DescriptorSet"), std::string::npos);
  EXPECT_EQ(text.find("OpTypeImage"), std::string::npos);
}

// Only the size query: the whole set is still declared (the pipeline layout
// is one for every image kernel) and the module validates.
TEST(Images, SizeQueryAloneValidates) {
  CompiledKernel k = expect_compiles(wat_to_wasm(R"((module
    (import "wasmgpu" "image_size" (func $size (param i32 i32) (result i32)))
    (memory 1)
    (func $k (export "k") (param i32 i32)
      (i32.store (i32.mul (local.get 0) (i32.const 4)) (call $size (local.get 1) (local.get 0))))))"),
                                     "k");
  EXPECT_TRUE(k.info.uses_images);
}

TEST(Images, RefusesWrongSignature) {
  std::string error = compile_error(wat_to_wasm(R"((module
    (import "wasmgpu" "image_store_2d" (func $store (param i32 i32 i32 f32)))
    (func $k (export "k") (param i32)
      (call $store (local.get 0) (i32.const 0) (i32.const 0) (f32.const 1)))))"),
                                    "k");
  EXPECT_NE(error.find("wasmgpu.image_store_2d has signature (i32, i32, i32, f32, f32, f32, f32) -> ()"),
            std::string::npos)
      << error;
}

}  // namespace
}  // namespace wasmgpu::spirv::testing
