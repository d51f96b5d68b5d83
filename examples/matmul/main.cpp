// matmul: tiled matrix multiply with shared memory on a 2-D grid, checked
// bit for bit against the CPU summing in the same order.
#include <CLI/CLI.hpp>
#include <cstring>
#include <random>

#include "common/example_support.h"

int main(int argc, char** argv) {
  using namespace wasmgpu;
  uint32_t m = 1024, n = 1024, k = 1024;
  std::optional<std::string> device;
  std::string wasm = WASMGPU_EXAMPLE_WASM;
  CLI::App app{"matmul: C = A * B with shared-memory tiles, checked against the CPU"};
  app.add_option("--m", m, "Rows of A and C");
  app.add_option("--n", n, "Columns of B and C");
  app.add_option("--k", k, "Columns of A, rows of B");
  examples::add_example_options(app, device, wasm);
  CLI11_PARSE(app, argc, argv);

  examples::ExampleContext ctx = examples::open_example(wasm, device);
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> a(size_t(m) * k), b(size_t(k) * n);
  for (float& v : a) v = dist(rng);
  for (float& v : b) v = dist(rng);

  runtime::Buffer ab = examples::check(ctx.device.create_buffer(a.size() * sizeof(float)));
  runtime::Buffer bb = examples::check(ctx.device.create_buffer(b.size() * sizeof(float)));
  runtime::Buffer cb = examples::check(ctx.device.create_buffer(size_t(m) * n * sizeof(float)));
  examples::check(ab.write(a));
  examples::check(bb.write(b));
  runtime::Kernel& kernel = *examples::check(ctx.module.kernel("matmul"));
  const uint32_t tile = 16;
  runtime::Grid grid{(n + tile - 1) / tile, (m + tile - 1) / tile, 1};
  auto run = [&] {
    examples::check(kernel.launch(grid, runtime::WorkgroupSize{tile, tile, 1}, {ab, bb, cb, m, n, k}));
  };
  run();  // warm-up: pipeline creation
  double ms = examples::time_ms(run);
  std::vector<float> gpu = examples::check(cb.read_as<float>(size_t(m) * n));

  for (uint32_t row = 0; row < m; ++row)
    for (uint32_t col = 0; col < n; ++col) {
      float sum = 0.0f;
      for (uint32_t j = 0; j < k; ++j) {
        float product = a[size_t(row) * k + j] * b[size_t(j) * n + col];  // separate: no fused multiply-add
        sum += product;
      }
      if (std::memcmp(&sum, &gpu[size_t(row) * n + col], sizeof sum) != 0)
        examples::die("C[" + std::to_string(row) + "][" + std::to_string(col) + "]: gpu " +
                      std::to_string(gpu[size_t(row) * n + col]) + ", CPU " + std::to_string(sum));
    }
  std::printf("matmul: %u x %u x %u, %.3f ms (%.2f GFLOP/s), bit-exact with the CPU\n", m, n, k, ms,
              2.0 * m * n * k / (ms * 1e6));
  return examples::finish(ctx);
}
