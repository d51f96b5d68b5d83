// histogram: 256 bins of n bytes with shared-memory and device atomics,
// checked exactly against the CPU.
#include <CLI/CLI.hpp>
#include <random>

#include "common/example_support.h"

int main(int argc, char** argv) {
  using namespace wasmgpu;
  uint32_t n = 1u << 26, workgroups = 256, workgroup_size = 256;
  std::optional<std::string> device;
  std::string wasm = WASMGPU_EXAMPLE_WASM;
  CLI::App app{"histogram: 256 bins of n bytes, checked against the CPU"};
  app.add_option("--n", n, "Number of bytes");
  app.add_option("--workgroups", workgroups, "Workgroups");
  app.add_option("--workgroup-size", workgroup_size, "Invocations per workgroup");
  examples::add_example_options(app, device, wasm);
  CLI11_PARSE(app, argc, argv);

  examples::ExampleContext ctx = examples::open_example(wasm, device);
  std::mt19937 rng(3);
  std::binomial_distribution<int> dist(255, 0.3);  // uneven bins: contention on a few
  std::vector<uint8_t> data(n);
  for (uint8_t& v : data) v = uint8_t(dist(rng));

  runtime::Buffer in = examples::check(ctx.device.create_buffer(std::max<uint64_t>(n, 4)));
  runtime::Buffer bins = examples::check(ctx.device.create_buffer(256 * sizeof(int)));
  examples::check(in.write(data));
  runtime::Kernel& kernel = *examples::check(ctx.module.kernel("histogram"));
  std::vector<int> zeros(256, 0);
  examples::check(bins.write(zeros));
  double ms = examples::time_ms([&] {
    examples::check(
        kernel.launch(runtime::Grid{workgroups, 1, 1}, runtime::WorkgroupSize{workgroup_size, 1, 1}, {in, n, bins}));
  });
  std::vector<int> gpu = examples::check(bins.read_as<int>(256));

  std::vector<int> reference(256, 0);
  for (uint8_t v : data) ++reference[v];
  for (int b = 0; b < 256; ++b)
    if (gpu[b] != reference[b])
      examples::die("bin " + std::to_string(b) + ": gpu " + std::to_string(gpu[b]) + ", CPU " +
                    std::to_string(reference[b]));
  std::printf("histogram: n = %u, %.3f ms, all 256 bins equal the CPU's\n", n, ms);
  return examples::finish(ctx);
}
