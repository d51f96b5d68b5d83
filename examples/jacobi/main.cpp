// jacobi: iterations of a 2-D stencil on a 2-D grid, checked bit for bit
// against the same step on the CPU.
#include <CLI/CLI.hpp>
#include <cstring>
#include <random>
#include <utility>

#include "common/example_support.h"
#include "jacobi.h"

int main(int argc, char** argv) {
  using namespace wasmgpu;
  uint32_t w = 2048, h = 2048, steps = 100;
  std::optional<std::string> device;
  std::string wasm = WASMGPU_EXAMPLE_WASM;
  CLI::App app{"jacobi: 2-D stencil iterations on a 2-D grid, checked against the CPU"};
  app.add_option("--width", w, "Grid width");
  app.add_option("--height", h, "Grid height");
  app.add_option("--steps", steps, "Iterations");
  examples::add_example_options(app, device, wasm);
  CLI11_PARSE(app, argc, argv);

  examples::ExampleContext ctx = examples::open_example(wasm, device);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(0.0f, 100.0f);
  std::vector<float> field(size_t(w) * h);
  for (float& v : field) v = dist(rng);

  runtime::Buffer front = examples::check(ctx.device.create_buffer(field.size() * sizeof(float)));
  runtime::Buffer back = examples::check(ctx.device.create_buffer(field.size() * sizeof(float)));
  examples::check(front.write(field));
  runtime::Kernel& kernel = *examples::check(ctx.module.kernel("jacobi_step"));
  runtime::Grid grid{(w + 7) / 8, (h + 7) / 8, 1};
  runtime::Buffer* from = &front;
  runtime::Buffer* to = &back;
  double ms = examples::time_ms([&] {
    for (uint32_t s = 0; s < steps; ++s) {
      examples::check(kernel.launch(grid, runtime::WorkgroupSize{8, 8, 1}, {*from, *to, w, h}));
      std::swap(from, to);
    }
  });
  std::vector<float> gpu = examples::check(from->read_as<float>(field.size()));

  std::vector<float> next(field.size());
  for (uint32_t s = 0; s < steps; ++s) {
    for (uint32_t y = 0; y < h; ++y)
      for (uint32_t x = 0; x < w; ++x) next[size_t(y) * w + x] = jacobi_point(field.data(), x, y, w, h);
    std::swap(field, next);
  }
  if (std::memcmp(gpu.data(), field.data(), field.size() * sizeof(float)) != 0)
    examples::die("the GPU's field differs from the CPU's");
  std::printf("jacobi: %u x %u, %u steps, %.3f ms, bit-exact with the CPU\n", w, h, steps, ms);
  return examples::finish(ctx);
}
