// reduction: the sum of n floats on the GPU (shared memory, a barrier and a
// subgroup reduction), checked against a double-precision sum on the CPU.
#include <CLI/CLI.hpp>
#include <cmath>
#include <random>

#include "common/example_support.h"

int main(int argc, char** argv) {
  using namespace wasmgpu;
  uint32_t n = 100'000'000;
  uint32_t workgroups = 1024, workgroup_size = 256;
  std::optional<std::string> device;
  std::string wasm = WASMGPU_EXAMPLE_WASM;
  CLI::App app{"reduction: sum of n floats, checked against the CPU"};
  app.add_option("--n", n, "Number of floats");
  app.add_option("--workgroups", workgroups, "Workgroups of the first pass");
  app.add_option("--workgroup-size", workgroup_size, "Invocations per workgroup");
  examples::add_example_options(app, device, wasm);
  CLI11_PARSE(app, argc, argv);

  examples::ExampleContext ctx = examples::open_example(wasm, device);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> data(n);
  for (float& v : data) v = dist(rng);

  runtime::Buffer in = examples::check(ctx.device.create_buffer(uint64_t(n) * sizeof(float)));
  runtime::Buffer partial = examples::check(ctx.device.create_buffer(workgroups * sizeof(float)));
  runtime::Buffer total = examples::check(ctx.device.create_buffer(sizeof(float)));
  examples::check(in.write(data));
  runtime::Kernel& kernel = *examples::check(ctx.module.kernel("reduce_sum"));
  runtime::WorkgroupSize size{workgroup_size, 1, 1};
  auto run = [&] {
    examples::check(kernel.launch(runtime::Grid{workgroups, 1, 1}, size, {in, n, partial}));
    examples::check(kernel.launch(runtime::Grid{1, 1, 1}, size, {partial, workgroups, total}));
  };
  run();  // warm-up: pipeline creation
  double ms = examples::time_ms(run);
  float gpu = examples::check(total.read_as<float>(1))[0];

  double reference = 0.0;
  for (float v : data) reference += v;
  // Float sums in a different order differ by rounding: n * 2^-24 relative at worst.
  double tolerance = std::max(1e-6, double(n) * 6e-8) * std::max(1.0, std::fabs(reference));
  if (std::fabs(double(gpu) - reference) > tolerance)
    examples::die("sum " + std::to_string(gpu) + " differs from the CPU's " + std::to_string(reference));
  std::printf("reduction: n = %u, sum %.6g (CPU %.6g), %.3f ms (%.2f GB/s)\n", n, gpu, reference, ms,
              double(n) * sizeof(float) / (ms * 1e6));
  return examples::finish(ctx);
}
