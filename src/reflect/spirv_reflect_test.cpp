// Reflection of SPIR-V from glslang (GLSL, HLSL) and of hand-written modules
// with Slang's and rust-gpu's interface patterns (fixtures/), checked field
// by field against what each source declares.
#include "reflect/spirv_reflect.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>

namespace wasmgpu::reflect {
namespace {

std::vector<uint32_t> fixture(const std::string& name) {
  std::ifstream file(std::string(WASMGPU_SPIRV_FIXTURES_DIR) + "/" + name, std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  auto words = spirv_words(bytes);
  EXPECT_TRUE(words.ok()) << name << ": " << (words.ok() ? "" : words.error().to_string());
  return words.ok() ? *words : std::vector<uint32_t>{};
}

SpirvReflection reflect_fixture(const std::string& name) {
  auto reflection = reflect_spirv(fixture(name));
  EXPECT_TRUE(reflection.ok()) << name << ": " << (reflection.ok() ? "" : reflection.error().to_string());
  return reflection.ok() ? *reflection : SpirvReflection{};
}

void expect_member(const StructMember& m, const std::string& name, const std::string& type, uint32_t offset,
                   uint32_t size, uint32_t stride = 0) {
  EXPECT_EQ(m.name, name);
  EXPECT_EQ(m.type, type) << name;
  EXPECT_EQ(m.offset, offset) << name;
  EXPECT_EQ(m.size, size) << name;
  EXPECT_EQ(m.array_stride, stride) << name;
}

void expect_binding(const Param& p, const std::string& name, ParamKind kind, uint32_t set, uint32_t binding,
                    bool writable) {
  EXPECT_EQ(p.name, name);
  EXPECT_EQ(p.kind, kind) << name;
  EXPECT_EQ(p.set, set) << name;
  EXPECT_EQ(p.binding, binding) << name;
  EXPECT_EQ(p.writable, writable) << name;
  EXPECT_FALSE(p.push_offset) << name;
}

void expect_push(const Param& p, const std::string& name, ScalarType type, uint32_t offset) {
  EXPECT_EQ(p.name, name);
  EXPECT_EQ(p.kind, ParamKind::Scalar) << name;
  EXPECT_EQ(p.scalar, type) << name;
  EXPECT_EQ(p.push_offset, offset) << name;
  EXPECT_EQ(p.size, 4u) << name;
  EXPECT_FALSE(p.set) << name;
}

uint64_t float_bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

TEST(SpirvReflect, GlslStorageBuffersPushConstantsAndSpecialisableWorkgroupSize) {
  SpirvReflection r = reflect_fixture("saxpy.spv");
  ASSERT_EQ(r.kernels.size(), 1u);
  const KernelInterface& k = r.kernels[0];
  EXPECT_EQ(k.name, "main");
  EXPECT_EQ(k.source, KernelSource::Spirv);
  ASSERT_EQ(k.params.size(), 4u);
  expect_binding(k.params[0], "xs", ParamKind::Buffer, 0, 0, false);
  EXPECT_EQ(k.params[0].element_type, "float");
  EXPECT_EQ(k.params[0].element_size, 4u);
  ASSERT_TRUE(k.params[0].layout);
  EXPECT_EQ(k.params[0].layout->name, "Xs");
  EXPECT_EQ(k.params[0].layout->size, 0u);  // a runtime array counts no elements
  ASSERT_EQ(k.params[0].layout->members.size(), 1u);
  expect_member(k.params[0].layout->members[0], "x", "float[]", 0, 0, 4);
  expect_binding(k.params[1], "ys", ParamKind::Buffer, 0, 1, true);
  EXPECT_EQ(k.params[1].layout->name, "Ys");
  expect_push(k.params[2], "n", ScalarType::U32, 0);
  expect_push(k.params[3], "a", ScalarType::F32, 4);
  EXPECT_EQ(k.push_constant_size, 8u);
  // local_size_x_id = 0: x specialisable (default 1), y and z fixed at 1.
  EXPECT_FALSE(k.workgroup_size);
  EXPECT_EQ(k.workgroup_size_spec_ids[0], 0u);
  EXPECT_FALSE(k.workgroup_size_spec_ids[1]);
  EXPECT_FALSE(k.workgroup_size_spec_ids[2]);
  EXPECT_EQ(k.workgroup_size_default, (std::array<uint32_t, 3>{1, 1, 1}));
  ASSERT_EQ(k.spec_constants.size(), 1u);
  EXPECT_EQ(k.spec_constants[0].id, 0u);
  EXPECT_EQ(k.spec_constants[0].type, ScalarType::U32);
  EXPECT_EQ(k.spec_constants[0].default_bits, 1u);
  EXPECT_EQ(k.shared_memory_bytes, 0u);
}

TEST(SpirvReflect, GlslStd140UniformBlockNestedStructAndSpecConstants) {
  SpirvReflection r = reflect_fixture("uniform_params.spv");
  ASSERT_EQ(r.kernels.size(), 1u);
  const KernelInterface& k = r.kernels[0];
  ASSERT_EQ(k.params.size(), 2u);
  // Ordered by (set, binding): the output in set 0 before the uniforms in set 1.
  const Param& out = k.params[0];
  expect_binding(out, "result", ParamKind::Buffer, 0, 2, true);
  EXPECT_EQ(out.element_type, "vec2");
  EXPECT_EQ(out.element_size, 8u);
  ASSERT_TRUE(out.layout);
  EXPECT_EQ(out.layout->name, "Out");
  EXPECT_EQ(out.layout->size, 8u);  // the fixed header before values[]
  ASSERT_EQ(out.layout->members.size(), 3u);
  expect_member(out.layout->members[0], "written", "uint", 0, 4);
  expect_member(out.layout->members[1], "mode", "uint", 4, 4);
  expect_member(out.layout->members[2], "values", "vec2[]", 8, 0, 8);

  const Param& params = k.params[1];
  expect_binding(params, "params", ParamKind::UniformBuffer, 1, 0, false);
  EXPECT_EQ(params.size, 64u);
  EXPECT_EQ(params.element_type, "Params");
  ASSERT_TRUE(params.layout);
  EXPECT_EQ(params.layout->size, 64u);
  ASSERT_EQ(params.layout->members.size(), 3u);
  expect_member(params.layout->members[0], "scale", "vec4", 0, 16);
  // std140: the struct and each float of the array start on 16 bytes.
  expect_member(params.layout->members[1], "range", "Range", 16, 8);
  expect_member(params.layout->members[2], "bias", "float[2]", 32, 32, 16);
  ASSERT_EQ(r.nested_structs.size(), 1u);
  EXPECT_EQ(r.nested_structs[0].name, "Range");
  ASSERT_EQ(r.nested_structs[0].members.size(), 2u);
  expect_member(r.nested_structs[0].members[0], "first", "uint", 0, 4);
  expect_member(r.nested_structs[0].members[1], "count", "uint", 4, 4);

  ASSERT_EQ(k.spec_constants.size(), 2u);
  EXPECT_EQ(k.spec_constants[0].id, 3u);
  EXPECT_EQ(k.spec_constants[0].name, "MODE");
  EXPECT_EQ(k.spec_constants[0].type, ScalarType::I32);
  EXPECT_EQ(k.spec_constants[0].default_bits, 1u);
  EXPECT_EQ(k.spec_constants[1].id, 5u);
  EXPECT_EQ(k.spec_constants[1].name, "FACTOR");
  EXPECT_EQ(k.spec_constants[1].type, ScalarType::F32);
  EXPECT_EQ(k.spec_constants[1].default_bits, float_bits(2.5f));
  EXPECT_EQ(k.workgroup_size, (std::array<uint32_t, 3>{8, 2, 1}));
  EXPECT_EQ(k.workgroup_size_default, (std::array<uint32_t, 3>{8, 2, 1}));
  EXPECT_FALSE(k.workgroup_size_spec_ids[0]);
  EXPECT_EQ(k.push_constant_size, 0u);
}

TEST(SpirvReflect, AnonymousBlocksTakeTheBlockNameAndSharedMemoryIsCounted) {
  SpirvReflection r = reflect_fixture("workgroup_sum.spv");
  ASSERT_EQ(r.kernels.size(), 1u);
  const KernelInterface& k = r.kernels[0];
  ASSERT_EQ(k.params.size(), 2u);
  expect_binding(k.params[0], "In", ParamKind::Buffer, 0, 0, false);
  expect_binding(k.params[1], "Sums", ParamKind::Buffer, 0, 1, true);  // writeonly is still written
  EXPECT_EQ(k.params[1].element_type, "uint");
  EXPECT_EQ(k.shared_memory_bytes, 64u * 4);
  EXPECT_EQ(k.workgroup_size, (std::array<uint32_t, 3>{64, 1, 1}));
}

TEST(SpirvReflect, ImagesAndSamplersOfEveryKind) {
  SpirvReflection r = reflect_fixture("images.spv");
  ASSERT_EQ(r.kernels.size(), 1u);
  const KernelInterface& k = r.kernels[0];
  ASSERT_EQ(k.params.size(), 5u);
  expect_binding(k.params[0], "dst", ParamKind::StorageImage, 0, 0, true);
  EXPECT_EQ(k.params[0].element_type, "image2D");
  expect_binding(k.params[1], "volume", ParamKind::StorageImage, 0, 1, false);
  EXPECT_EQ(k.params[1].element_type, "image3D");
  expect_binding(k.params[2], "src", ParamKind::CombinedImageSampler, 0, 2, false);
  EXPECT_EQ(k.params[2].element_type, "sampler2D");
  expect_binding(k.params[3], "tex", ParamKind::SampledImage, 1, 0, false);
  EXPECT_EQ(k.params[3].element_type, "texture2D");
  expect_binding(k.params[4], "smp", ParamKind::Sampler, 1, 1, false);
  EXPECT_EQ(k.workgroup_size, (std::array<uint32_t, 3>{8, 8, 1}));
}

TEST(SpirvReflect, HlslConstantBufferStructuredBuffersAndPushConstants) {
  SpirvReflection r = reflect_fixture("scale.hlsl.spv");
  ASSERT_EQ(r.kernels.size(), 1u);
  const KernelInterface& k = r.kernels[0];
  EXPECT_EQ(k.name, "main");
  ASSERT_EQ(k.params.size(), 5u);
  // glslang leaves the cbuffer's variable unnamed: the block's name stands in.
  expect_binding(k.params[0], "Params", ParamKind::UniformBuffer, 0, 0, false);
  EXPECT_EQ(k.params[0].size, 8u);
  ASSERT_TRUE(k.params[0].layout);
  ASSERT_EQ(k.params[0].layout->members.size(), 2u);
  expect_member(k.params[0].layout->members[0], "scale", "float", 0, 4);
  expect_member(k.params[0].layout->members[1], "stride", "uint", 4, 4);
  // StructuredBuffer: NonWritable on the member of a BufferBlock.
  expect_binding(k.params[1], "input", ParamKind::Buffer, 0, 1, false);
  EXPECT_EQ(k.params[1].element_type, "float");
  EXPECT_EQ(k.params[1].element_size, 4u);
  expect_binding(k.params[2], "output", ParamKind::Buffer, 0, 2, true);
  expect_push(k.params[3], "n", ScalarType::U32, 0);
  expect_push(k.params[4], "offset", ScalarType::F32, 4);
  EXPECT_EQ(k.push_constant_size, 8u);
  EXPECT_EQ(k.workgroup_size, (std::array<uint32_t, 3>{32, 1, 1}));
}

TEST(SpirvReflect, SlangEntryPointParamsGlobalParamsAndStructuredBuffers) {
  SpirvReflection r = reflect_fixture("slang_style.spv");
  ASSERT_EQ(r.kernels.size(), 1u);
  const KernelInterface& k = r.kernels[0];
  EXPECT_EQ(k.name, "main");  // the entry point's name, not the function's (computeMain)
  ASSERT_EQ(k.params.size(), 5u);
  expect_binding(k.params[0], "globalParams", ParamKind::UniformBuffer, 0, 0, false);
  EXPECT_EQ(k.params[0].layout->name, "GlobalParams_std140");
  EXPECT_EQ(k.params[0].size, 8u);
  expect_member(k.params[0].layout->members[0], "scale", "float", 0, 4);
  expect_member(k.params[0].layout->members[1], "offset", "float", 4, 4);
  expect_binding(k.params[1], "input", ParamKind::Buffer, 0, 1, false);
  EXPECT_EQ(k.params[1].layout->name, "StructuredBuffer");
  EXPECT_EQ(k.params[1].element_type, "float");
  expect_binding(k.params[2], "output", ParamKind::Buffer, 0, 2, true);
  EXPECT_EQ(k.params[2].layout->name, "RWStructuredBuffer");
  EXPECT_EQ(k.params[2].element_size, 4u);
  // The entry point's uniform parameters: push-constant members.
  expect_push(k.params[3], "count", ScalarType::U32, 0);
  expect_push(k.params[4], "bias", ScalarType::F32, 4);
  EXPECT_EQ(k.push_constant_size, 8u);
  EXPECT_EQ(k.workgroup_size, (std::array<uint32_t, 3>{64, 1, 1}));
}

TEST(SpirvReflect, RustGpuEntryPointsSeeOnlyTheBindingsTheyUse) {
  SpirvReflection r = reflect_fixture("rust_gpu_style.spv");
  ASSERT_EQ(r.kernels.size(), 2u);
  const KernelInterface& main_cs = r.kernels[0];
  EXPECT_EQ(main_cs.name, "main_cs");
  ASSERT_EQ(main_cs.params.size(), 4u);
  expect_binding(main_cs.params[0], "input", ParamKind::Buffer, 0, 0, false);  // NonWritable on the variable
  expect_binding(main_cs.params[1], "output", ParamKind::Buffer, 0, 1, true);
  // The unnamed block struct gets a made-up but valid name.
  ASSERT_TRUE(main_cs.params[0].layout);
  EXPECT_EQ(main_cs.params[0].layout->name.rfind("_struct", 0), 0u) << main_cs.params[0].layout->name;
  EXPECT_EQ(main_cs.params[0].layout->members[0].name, "_m0");
  EXPECT_EQ(main_cs.params[0].element_type, "float");
  expect_push(main_cs.params[2], "n", ScalarType::U32, 0);
  expect_push(main_cs.params[3], "scale", ScalarType::F32, 4);
  EXPECT_EQ(main_cs.workgroup_size, (std::array<uint32_t, 3>{64, 1, 1}));

  const KernelInterface& add_cs = r.kernels[1];
  EXPECT_EQ(add_cs.name, "add_cs");
  ASSERT_EQ(add_cs.params.size(), 4u);
  expect_binding(add_cs.params[0], "output", ParamKind::Buffer, 0, 1, true);
  // No OpName on the variable or its type: named by set and binding.
  expect_binding(add_cs.params[1], "set0_binding2", ParamKind::Buffer, 0, 2, false);
  expect_push(add_cs.params[2], "n", ScalarType::U32, 0);
  EXPECT_EQ(add_cs.workgroup_size, (std::array<uint32_t, 3>{32, 1, 1}));
  ASSERT_EQ(add_cs.spec_constants.size(), 1u);
  EXPECT_EQ(add_cs.spec_constants[0].id, 7u);
  EXPECT_EQ(add_cs.spec_constants[0].name, "repeat");
  EXPECT_EQ(add_cs.spec_constants[0].default_bits, 1u);
}

TEST(SpirvReflect, LocalSizeIdWithASpecConstantAndAPlainConstant) {
  SpirvReflection r = reflect_fixture("local_size_id.spv");
  ASSERT_EQ(r.kernels.size(), 1u);
  const KernelInterface& k = r.kernels[0];
  EXPECT_FALSE(k.workgroup_size);
  EXPECT_EQ(k.workgroup_size_spec_ids[0], 10u);
  EXPECT_FALSE(k.workgroup_size_spec_ids[1]);
  EXPECT_FALSE(k.workgroup_size_spec_ids[2]);
  EXPECT_EQ(k.workgroup_size_default, (std::array<uint32_t, 3>{16, 4, 1}));
  ASSERT_EQ(k.spec_constants.size(), 1u);
  EXPECT_EQ(k.spec_constants[0].name, "size_x");
  EXPECT_EQ(k.spec_constants[0].default_bits, 16u);
  ASSERT_EQ(k.params.size(), 1u);
  expect_binding(k.params[0], "out", ParamKind::Buffer, 0, 0, true);
}

TEST(SpirvReflect, RejectsWhatIsNotSpirv) {
  const uint8_t wasm[] = {0x00, 0x61, 0x73, 0x6D, 0x01, 0x00, 0x00, 0x00};
  EXPECT_FALSE(is_spirv(wasm));
  auto words = spirv_words(wasm);
  ASSERT_FALSE(words.ok());
  EXPECT_NE(words.error().message.find("not a SPIR-V module"), std::string::npos) << words.error().message;
  const uint32_t garbage[] = {0x07230203, 0x00010000, 0, 100, 0, 0xFFFFFFFF};
  auto reflected = reflect_spirv(garbage);
  ASSERT_FALSE(reflected.ok());
  EXPECT_NE(reflected.error().message.find("SPIRV-Cross"), std::string::npos) << reflected.error().message;
}

TEST(SpirvReflect, ReadsBigEndianModules) {
  std::vector<uint32_t> words = fixture("saxpy.spv");
  ASSERT_FALSE(words.empty());
  std::vector<uint8_t> swapped(words.size() * 4);
  for (size_t i = 0; i < words.size(); ++i) {
    const uint32_t w = __builtin_bswap32(words[i]);
    std::memcpy(&swapped[i * 4], &w, 4);
  }
  EXPECT_TRUE(is_spirv(swapped));
  auto back = spirv_words(swapped);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, words);
}

}  // namespace
}  // namespace wasmgpu::reflect
