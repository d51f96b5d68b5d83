// particles: an integration step over an array of structs, each invocation
// walking its neighbours by pointer; checked against native code.
#include <CLI/CLI.hpp>
#include <cstring>
#include <random>

#include "common/example_support.h"

extern "C" {
#include "particles.h"
}

int main(int argc, char** argv) {
  using namespace wasmgpu;
  uint32_t n = 100000;
  int window = 8, steps = 4;
  std::optional<std::string> device;
  std::string wasm = WASMGPU_EXAMPLE_WASM;
  CLI::App app{"particles: integration steps over an array of structs, checked against native code"};
  app.add_option("--n", n, "Number of particles")->check(CLI::Range(1u, 1u << 24));
  app.add_option("--window", window, "Neighbours on each side")->check(CLI::Range(0, 64));
  app.add_option("--steps", steps, "Steps")->check(CLI::Range(1, 1000));
  examples::add_example_options(app, device, wasm);
  CLI11_PARSE(app, argc, argv);

  examples::ExampleContext ctx = examples::open_example(wasm, device);

  std::mt19937 rng(7);
  std::uniform_real_distribution<float> pos(-10.0f, 10.0f), mass(0.5f, 4.0f);
  std::vector<particle> state(n);
  for (uint32_t i = 0; i < n; ++i) {
    particle& p = state[i];
    std::memset(&p, 0, sizeof p);
    p.position = {pos(rng), pos(rng), pos(rng)};
    p.mass = mass(rng);
    p.inverse_mass = 1.0f / p.mass;
    p.id = int(i);
    p.flags = (i % 17 == 0) ? 1 : 0;
  }
  const float dt = 0.01f;
  runtime::Buffer a = examples::check(ctx.device.create_buffer(n * sizeof(particle)));
  runtime::Buffer b = examples::check(ctx.device.create_buffer(n * sizeof(particle)));
  examples::check(a.write(state));
  runtime::Kernel& kernel = *examples::check(ctx.module.kernel("particles_step"));
  double ms = examples::time_ms([&] {
    for (int s = 0; s < steps; ++s) {
      const runtime::Buffer& in = s % 2 ? b : a;
      const runtime::Buffer& out = s % 2 ? a : b;
      examples::check(kernel.launch(n, 0, {in, out, int(n), window, dt}));
    }
  });
  std::vector<particle> gpu = examples::check((steps % 2 ? b : a).read_as<particle>(n));

  std::vector<particle> next(n);
  for (int s = 0; s < steps; ++s) {
    for (uint32_t i = 0; i < n; ++i) particles_step(int(i), state.data(), next.data(), int(n), window, dt);
    state.swap(next);
  }
  for (uint32_t i = 0; i < n; ++i)
    if (std::memcmp(&gpu[i], &state[i], sizeof(particle)) != 0)
      examples::die("particle " + std::to_string(i) + " differs from native code");
  std::printf("particles: %u particles (%zu-byte structs), %d steps, window %d, %.1f ms; bit-exact with native code\n",
              n, sizeof(particle), steps, window, ms);
  return examples::finish(ctx);
}
