// double_precision: exp(x) by a Taylor polynomial (Horner) and a compensated
// series sum in f64 on the GPU, checked bit for bit against native code.
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstring>
#include <random>

#include "common/example_support.h"

extern "C" void exp_taylor(int i, const double* x, double* y, long long* bits);

int main(int argc, char** argv) {
  using namespace wasmgpu;
  uint32_t n = 1u << 18;
  std::optional<std::string> device;
  std::string wasm = WASMGPU_EXAMPLE_WASM;
  CLI::App app{"double_precision: f64 polynomial evaluation, checked against native code"};
  app.add_option("--n", n, "Number of elements")->check(CLI::Range(1u, 1u << 26));
  examples::add_example_options(app, device, wasm);
  CLI11_PARSE(app, argc, argv);

  examples::ExampleContext ctx = examples::open_example(wasm, device);

  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> dist(-2.0, 2.0);
  std::vector<double> x(n);
  for (auto& v : x) v = dist(rng);
  runtime::Buffer xb = examples::check(ctx.device.create_buffer(n * sizeof(double)));
  runtime::Buffer yb = examples::check(ctx.device.create_buffer(2ull * n * sizeof(double)));
  runtime::Buffer bb = examples::check(ctx.device.create_buffer(n * sizeof(long long)));
  examples::check(xb.write(x));
  runtime::Kernel& kernel = *examples::check(ctx.module.kernel("exp_taylor"));
  double ms = examples::time_ms([&] { examples::check(kernel.launch(n, 0, {xb, yb, bb})); });
  std::vector<double> y = examples::check(yb.read_as<double>(2ull * n));
  std::vector<long long> bits = examples::check(bb.read_as<long long>(n));

  std::vector<double> ny(2ull * n);
  std::vector<long long> nbits(n);
  for (uint32_t i = 0; i < n; ++i) exp_taylor(int(i), x.data(), ny.data(), nbits.data());
  if (std::memcmp(y.data(), ny.data(), y.size() * sizeof(double)) != 0 ||
      std::memcmp(bits.data(), nbits.data(), bits.size() * sizeof(long long)) != 0)
    examples::die("f64 results differ from native code");
  double worst = 0;
  for (uint32_t i = 0; i < n; ++i) worst = std::max(worst, std::fabs(y[2 * i] - std::exp(x[i])) / std::exp(x[i]));
  std::printf("double_precision: n = %u, %.1f ms; bit-exact with native code (max relative error vs exp: %.2e)\n", n,
              ms, worst);
  return examples::finish(ctx);
}
