#include "common/example_support.h"

#include <fstream>
#include <iterator>

namespace wasmgpu::examples {

namespace {

void print_device(const runtime::Device& device) {
  const runtime::DeviceInfo& info = device.info();
  std::printf("device: %s (%s, %s)\n", info.name.c_str(), runtime::to_string(info.type),
              info.driver_info.empty() ? info.driver_name.c_str() : info.driver_info.c_str());
}

}  // namespace

ExampleContext open_example(const std::string& wasm_path, const std::optional<std::string>& device) {
  std::ifstream in(wasm_path, std::ios::binary);
  if (!in) die("cannot open " + wasm_path);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  runtime::Instance instance = check(runtime::Instance::create());
  runtime::DeviceOptions options;
  options.name = device;
  runtime::Device dev = check(runtime::Device::create(instance, options));
  print_device(dev);
  runtime::Module module = check(runtime::Module::load(dev, bytes));
  return ExampleContext{std::move(instance), std::move(dev), std::move(module)};
}

void add_example_options(CLI::App& app, std::optional<std::string>& device, std::string& wasm) {
  app.add_option("--device", device,
                 "Device index or part of its name (default: WASMGPU_DEVICE, else discrete GPU first)");
  app.add_option("--wasm", wasm, "The kernel module");
}

int finish(const ExampleContext& ctx) {
  auto messages = ctx.instance.validation_messages();
  if (messages.empty()) return 0;
  std::fprintf(stderr, "error: the Vulkan validation layer reported %zu message(s)\n", messages.size());
  return 1;
}

}  // namespace wasmgpu::examples
