// Implementation of test_support.h. Named *_test.cpp so that it is built into
// runtime_tests only, never into the library.
#include "runtime/test_support.h"

#include "runtime/module.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <unistd.h>

namespace wasmgpu::runtime::testing {

std::vector<uint8_t> wat_to_wasm(const std::string& wat) {
  namespace fs = std::filesystem;
  static int counter = 0;
  const fs::path dir =
      fs::temp_directory_path() / ("wasmgpu-wat-" + std::to_string(getpid()) + "-" + std::to_string(counter++));
  fs::create_directories(dir);
  std::ofstream(dir / "m.wat") << wat;
  // Tail calls (WebAssembly 3.0) are off by default in wabt 1.0.32; the flag
  // changes nothing for modules without them.
  const std::string command =
      "wat2wasm --enable-tail-call '" + (dir / "m.wat").string() + "' -o '" + (dir / "m.wasm").string() + "'";
  if (std::system(command.c_str()) != 0) {
    ADD_FAILURE() << "wat2wasm rejected:\n" << wat;
    return {};
  }
  std::ifstream file(dir / "m.wasm", std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  fs::remove_all(dir);
  return bytes;
}

namespace {

// Runs `command`, returning its standard output.
std::string output_of(const std::string& command) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return out;
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
  pclose(pipe);
  return out;
}

// wasm-interp's way of printing results: "i32:N, i64:N", unsigned decimal.
std::string interp_text(const std::vector<Value>& values) {
  std::string text;
  for (const Value& v : values) {
    if (!text.empty()) text += ", ";
    text += std::string(v.type == wasm::ValType::I64 ? "i64:" : "i32:") + std::to_string(v.bits);
  }
  return text;
}

}  // namespace

int expect_exports_match_wasm_interp(Device& device, const std::string& wat, const spirv::CompileOptions& options) {
  namespace fs = std::filesystem;
  const std::vector<uint8_t> bytes = wat_to_wasm(wat);
  if (bytes.empty()) return 0;
  const fs::path path = fs::temp_directory_path() / ("wasmgpu-interp-" + std::to_string(getpid()) + ".wasm");
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  const std::string expected = output_of("wasm-interp --enable-tail-call '" + path.string() + "' --run-all-exports");
  fs::remove(path);

  auto module = Module::load(device, bytes, options);
  if (!module.ok()) {
    ADD_FAILURE() << module.error().to_string();
    return 0;
  }
  std::istringstream lines(expected);
  std::string line;
  int compared = 0;
  while (std::getline(lines, line)) {
    size_t arrow = line.find("() => ");
    if (arrow == std::string::npos) {
      ADD_FAILURE() << "wasm-interp printed: " << line;
      continue;
    }
    std::string name = line.substr(0, arrow);
    const std::vector<std::vector<Value>> no_arguments(1);
    auto results = module->call(name, no_arguments);
    if (!results.ok()) {
      ADD_FAILURE() << name << ": " << results.error().to_string();
      continue;
    }
    EXPECT_FALSE((*results)[0].trapped) << name;
    EXPECT_EQ(name + "() => " + interp_text((*results)[0].values), line);
    ++compared;
  }
  return compared;
}

std::vector<uint32_t> compile_glsl(const std::string& source) {
  namespace fs = std::filesystem;
  static int counter = 0;
  const fs::path dir = fs::temp_directory_path() / ("wasmgpu-runtime-test-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const fs::path input = dir / ("shader" + std::to_string(counter) + ".comp");
  const fs::path output = dir / ("shader" + std::to_string(counter++) + ".spv");
  std::ofstream(input) << source;
  const std::string command =
      "glslangValidator --quiet --target-env vulkan1.2 -V -o '" + output.string() + "' '" + input.string() + "' 2>&1";
  std::string log;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    char chunk[512];
    while (size_t got = fread(chunk, 1, sizeof chunk, pipe)) log.append(chunk, got);
    if (pclose(pipe) != 0) {
      ADD_FAILURE() << "glslangValidator failed:\n" << log << "\n" << source;
      return {};
    }
  }
  std::ifstream file(output, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  std::vector<uint32_t> words(bytes.size() / 4);
  std::memcpy(words.data(), bytes.data(), words.size() * 4);
  fs::remove(input);
  fs::remove(output);
  return words;
}

std::string abi_shader(const std::string& body) {
  return R"(#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(push_constant, std430) uniform Push {
  uint64_t launch_block;
  uint base_index;
  uint count;
} pc;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Words { uint w[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer Dwords { uint64_t d[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Traps {
  uint count;
  uint lowest[10];
};

uint header32(uint offset) { return Words(pc.launch_block + offset).w[0]; }
uint64_t header64(uint offset) { return Dwords(pc.launch_block + offset).d[0]; }
uint arg32(uint i) { return header32(header32(24) + 8 * i); }
uint64_t arg64(uint i) { return header64(header32(24) + 8 * i); }
uint64_t stack_slot() { return header64(8) + uint64_t(gl_GlobalInvocationID.x) * header32(16); }

bool trapped = false;
void trap(uint kind, uint index) {
  if (trapped) return;
  Traps t = Traps(header64(0));
  atomicAdd(t.count, 1u);
  atomicMin(t.lowest[kind], index);
  trapped = true;
}

// Device address of wasm bytes [ea, ea + width), or 0 after trapping.
uint64_t translate(uint ea, uint width, uint index) {
  uint regions = header32(20);
  uint table = header32(28);
  for (uint r = 0; r < regions; ++r) {
    uint64_t entry = pc.launch_block + table + 16 * r;
    uint base = Words(entry).w[0];
    uint size = Words(entry).w[1];
    if (ea >= base && uint64_t(ea) + width <= uint64_t(base) + size)
      return Dwords(entry + 8).d[0] + (ea - base);
  }
  trap(1, index);
  return 0;
}
uint load32(uint ea, uint index) {
  uint64_t a = translate(ea, 4, index);
  return a == 0 ? 0 : Words(a).w[0];
}
void store32(uint ea, uint value, uint index) {
  uint64_t a = translate(ea, 4, index);
  if (a != 0) Words(a).w[0] = value;
}

void kernel(uint index);

void main() {
  uint index = pc.base_index + gl_GlobalInvocationID.x;
  if (index >= pc.count) return;
  kernel(index);
}
)" + body;
}

spirv::CompiledKernel glsl_kernel(const std::string& name, const std::string& body, std::vector<wasm::ValType> params,
                                  uint64_t memory_bytes, uint32_t stack_slot_size) {
  spirv::CompiledKernel kernel;
  kernel.words = compile_glsl(abi_shader(body));
  kernel.info.export_name = name;
  kernel.info.params = std::move(params);
  kernel.info.memory_bytes = memory_bytes;
  kernel.info.stack_slot_size = stack_slot_size;
  for (wasm::ValType type : kernel.info.params) kernel.info.uses_float64 |= type == wasm::ValType::F64;
  return kernel;
}

void VulkanTest::SetUp() {
  auto created = Instance::create();
  ASSERT_TRUE(created.ok()) << created.error().message;
  instance.emplace(std::move(created).value());
  auto made = Device::create(*instance, device_options());
  ASSERT_TRUE(made.ok()) << made.error().message;
  device.emplace(std::move(made).value());
}

void VulkanTest::TearDown() {
  device.reset();  // destruction messages count too
  if (!instance) return;
  for (const std::string& message : instance->validation_messages()) ADD_FAILURE() << "validation: " << message;
  instance.reset();
}

}  // namespace wasmgpu::runtime::testing
