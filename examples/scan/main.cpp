// scan: exclusive prefix sum of n unsigned integers, a scan per workgroup in
// shared memory, then the workgroup totals scanned the same way (recursively)
// and added back; checked exactly against a CPU exclusive scan.
#include <CLI/CLI.hpp>
#include <random>

#include "common/example_support.h"

namespace {

using namespace wasmgpu;

struct Scanner {
  runtime::Device& device;
  runtime::Kernel& scan_block;
  runtime::Kernel& add_offsets;
  uint32_t workgroup_size;

  // out[i] = in[0] + ... + in[i-1] (mod 2^32) for i < n.
  void scan(runtime::Buffer& in, runtime::Buffer& out, uint32_t n) {
    uint32_t blocks = (n + workgroup_size - 1) / workgroup_size;
    runtime::Buffer sums = examples::check(device.create_buffer(4ull * blocks));
    runtime::Grid grid{blocks, 1, 1};
    runtime::WorkgroupSize size{workgroup_size, 1, 1};
    examples::check(scan_block.launch(grid, size, {in, out, sums, n}));
    if (blocks == 1) return;
    runtime::Buffer offsets = examples::check(device.create_buffer(4ull * blocks));
    scan(sums, offsets, blocks);
    examples::check(add_offsets.launch(grid, size, {out, offsets, n}));
  }
};

}  // namespace

int main(int argc, char** argv) {
  uint32_t n = 1u << 24, workgroup_size = 512;
  std::optional<std::string> device;
  std::string wasm = WASMGPU_EXAMPLE_WASM;
  CLI::App app{"scan: exclusive prefix sum of n unsigned integers, checked against the CPU"};
  app.add_option("--n", n, "Number of elements")->check(CLI::Range(1u, 1u << 30));
  app.add_option("--workgroup-size", workgroup_size, "Invocations per workgroup (at most 1024)")
      ->check(CLI::Range(1u, 1024u));
  examples::add_example_options(app, device, wasm);
  CLI11_PARSE(app, argc, argv);

  examples::ExampleContext ctx = examples::open_example(wasm, device);
  std::mt19937 rng(7);
  std::vector<uint32_t> data(n);
  for (uint32_t& v : data) v = rng() % 4 == 0 ? rng() : rng() % 1000;  // large values wrap the sum

  runtime::Buffer in = examples::check(ctx.device.create_buffer(4ull * n));
  runtime::Buffer out = examples::check(ctx.device.create_buffer(4ull * n));
  examples::check(in.write(data));
  Scanner scanner{ctx.device, *examples::check(ctx.module.kernel("scan_block")),
                  *examples::check(ctx.module.kernel("add_offsets")), workgroup_size};
  double ms = examples::time_ms([&] { scanner.scan(in, out, n); });
  std::vector<uint32_t> gpu = examples::check(out.read_as<uint32_t>(n));

  uint32_t sum = 0;
  for (uint32_t i = 0; i < n; ++i) {
    if (gpu[i] != sum)
      examples::die("element " + std::to_string(i) + ": gpu " + std::to_string(gpu[i]) + ", CPU " +
                    std::to_string(sum));
    sum += data[i];
  }
  std::printf("scan: n = %u, workgroup size %u, %.3f ms, all elements equal the CPU's\n", n, workgroup_size, ms);
  return examples::finish(ctx);
}
