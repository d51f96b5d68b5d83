// `wasmgpu reflect`: the JSON it prints for SPIR-V fixtures and for a wasm
// kernel with WASMGPU_DEFINE_KERNEL metadata, and its errors.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <string>
#include <sys/wait.h>

namespace {

struct Output {
  int status = -1;
  std::string text;
};

Output run(const std::string& arguments) {
  const std::string command = "'" WASMGPU_CLI_PATH "' " + arguments + " 2>&1";
  Output out;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return out;
  std::array<char, 4096> chunk;
  while (size_t got = fread(chunk.data(), 1, chunk.size(), pipe)) out.text.append(chunk.data(), got);
  const int status = pclose(pipe);
  out.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

nlohmann::json reflect(const std::string& arguments) {
  Output out = run("reflect " + arguments);
  EXPECT_EQ(out.status, 0) << out.text;
  nlohmann::json json = nlohmann::json::parse(out.text, nullptr, false);
  EXPECT_FALSE(json.is_discarded()) << out.text;
  return json;
}

const std::string fixtures = WASMGPU_SPIRV_FIXTURES_DIR;

TEST(ReflectCli, SpirvInterfaceAsJson) {
  nlohmann::json json = reflect("'" + fixtures + "/uniform_params.spv'");
  EXPECT_EQ(json["source"], "spirv");
  ASSERT_EQ(json["kernels"].size(), 1u);
  const nlohmann::json& k = json["kernels"][0];
  EXPECT_EQ(k["name"], "main");
  EXPECT_EQ(k["workgroup_size"], nlohmann::json::array({8, 2, 1}));
  ASSERT_EQ(k["params"].size(), 2u);
  const nlohmann::json& params = k["params"][1];
  EXPECT_EQ(params["name"], "params");
  EXPECT_EQ(params["kind"], "uniform_buffer");
  EXPECT_EQ(params["set"], 1);
  EXPECT_EQ(params["binding"], 0);
  EXPECT_EQ(params["index"], 1);
  EXPECT_EQ(params["layout"]["size"], 64);
  EXPECT_EQ(
      params["layout"]["members"][2],
      nlohmann::json::parse(R"({"name": "bias", "type": "float[2]", "offset": 32, "size": 32, "array_stride": 16})"));
  ASSERT_EQ(json["structs"].size(), 1u);
  EXPECT_EQ(json["structs"][0]["name"], "Range");
  ASSERT_EQ(k["spec_constants"].size(), 2u);
  EXPECT_EQ(k["spec_constants"][1],
            nlohmann::json::parse(R"({"id": 5, "name": "FACTOR", "type": "f32", "default": 2.5})"));
}

TEST(ReflectCli, EntryPointAndPushConstants) {
  nlohmann::json json = reflect("'" + fixtures + "/rust_gpu_style.spv' --entry add_cs");
  ASSERT_EQ(json["kernels"].size(), 1u);
  const nlohmann::json& k = json["kernels"][0];
  EXPECT_EQ(k["name"], "add_cs");
  EXPECT_EQ(k["push_constant_size"], 8);
  EXPECT_EQ(k["params"][3], nlohmann::json::parse(R"({"name": "scale", "kind": "scalar", "scalar": "f32",
      "push_offset": 4, "element_type": "float", "element_size": 4, "size": 4, "writable": false, "index": 3})"));
  nlohmann::json specialisable = reflect("'" + fixtures + "/saxpy.spv'")["kernels"][0];
  EXPECT_TRUE(specialisable["workgroup_size"].is_null());
  EXPECT_EQ(specialisable["workgroup_size_spec_ids"], nlohmann::json::parse("[0, null, null]"));
}

TEST(ReflectCli, WasmKernelWithMetadata) {
  nlohmann::json json = reflect("'" WASMGPU_TEST_KERNELS_DIR "/kernel_params.O2.wasm' --entry integrate");
  EXPECT_EQ(json["source"], "wasm");
  ASSERT_EQ(json["kernels"].size(), 1u);
  const nlohmann::json& params = json["kernels"][0]["params"];
  ASSERT_EQ(params.size(), 6u);
  const char* names[] = {"bodies", "dt", "step", "damping", "states", "count"};
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(params[i]["name"], names[i]);
  EXPECT_EQ(params[0]["kind"], "buffer");
  EXPECT_EQ(params[0]["element_type"], "Body");
  EXPECT_EQ(params[0]["element_size"], 24);
  EXPECT_EQ(params[0]["writable"], false);
  EXPECT_EQ(params[4]["writable"], true);
  EXPECT_EQ(params[1]["scalar"], "f64");
  EXPECT_EQ(params[2]["scalar"], "i64");
  EXPECT_EQ(params[5]["scalar"], "u32");
}

TEST(ReflectCli, UnknownEntryAndBadInputAreOneLineErrors) {
  Output unknown = run("reflect '" + fixtures + "/rust_gpu_style.spv' --entry main");
  EXPECT_EQ(unknown.status, 1);
  EXPECT_EQ(unknown.text,
            "wasmgpu: error: " + fixtures + "/rust_gpu_style.spv has no kernel 'main' (kernels: main_cs, add_cs)\n");
  Output bad = run("reflect '" + fixtures + "/../CMakeCache.txt'");
  EXPECT_EQ(bad.status, 1);
  EXPECT_EQ(bad.text.rfind("wasmgpu: error: ", 0), 0u) << bad.text;
  EXPECT_NE(bad.text.find("neither SPIR-V nor a valid wasm module"), std::string::npos) << bad.text;
}

}  // namespace
