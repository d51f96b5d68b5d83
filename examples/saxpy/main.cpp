// saxpy: y = a*x + y on the GPU, through a C kernel compiled to wasm, checked
// against the same kernel run natively.
#include <CLI/CLI.hpp>
#include <cstring>
#include <random>

#include "common/example_support.h"

extern "C" void saxpy(int i, float a, const float* x, float* y);

int main(int argc, char** argv) {
  using namespace wasmgpu;
  uint32_t n = 1u << 20;
  float a = 2.5f;
  std::optional<std::string> device;
  std::string wasm = WASMGPU_EXAMPLE_WASM;
  CLI::App app{"saxpy: y = a*x + y on the default Vulkan device, checked against native code"};
  app.add_option("--n", n, "Number of elements");
  app.add_option("--a", a, "The scalar a");
  examples::add_example_options(app, device, wasm);
  CLI11_PARSE(app, argc, argv);

  examples::ExampleContext ctx = examples::open_example(wasm, device);

  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(-100.0f, 100.0f);
  std::vector<float> x(n), y(n);
  for (auto& v : x) v = dist(rng);
  for (auto& v : y) v = dist(rng);

  runtime::Buffer xb = examples::check(ctx.device.create_buffer(n * sizeof(float)));
  runtime::Buffer yb = examples::check(ctx.device.create_buffer(n * sizeof(float)));
  examples::check(xb.write(x));
  examples::check(yb.write(y));
  runtime::Kernel& kernel = *examples::check(ctx.module.kernel("saxpy"));
  examples::check(kernel.launch(n, 0, {a, xb, yb}));  // warm-up: pipeline creation
  examples::check(yb.write(y));
  double ms = examples::time_ms([&] { examples::check(kernel.launch(n, 0, {a, xb, yb})); });
  std::vector<float> gpu = examples::check(yb.read_as<float>(n));

  for (uint32_t i = 0; i < n; ++i) saxpy(int(i), a, x.data(), y.data());
  if (std::memcmp(gpu.data(), y.data(), n * sizeof(float)) != 0) {
    for (uint32_t i = 0; i < n; ++i)
      if (std::memcmp(&gpu[i], &y[i], sizeof(float)) != 0)
        examples::die("mismatch at " + std::to_string(i) + ": gpu " + std::to_string(gpu[i]) + ", native " +
                      std::to_string(y[i]));
  }
  std::printf("saxpy: n = %u, %.3f ms (%.2f GB/s), bit-exact with native code\n", n, ms,
              3.0 * n * sizeof(float) / (ms * 1e6));
  return examples::finish(ctx);
}
