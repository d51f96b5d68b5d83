// The demo: the Mandelbrot set computed on the default Vulkan device by a C
// kernel compiled to wasm, written as a PNG and checked against native code.
#include <stb/stb_image_write.h>

#include <CLI/CLI.hpp>

#include "common/example_support.h"

extern "C" void mandelbrot(int i, unsigned* rgba, int width, int height, int max_iterations, float scale);

int main(int argc, char** argv) {
  using namespace wasmgpu;
  int width = 1024, height = 768, max_iterations = 256;
  std::string output = "mandelbrot.png";
  std::optional<std::string> device;
  std::string wasm = WASMGPU_EXAMPLE_WASM;
  bool check_native = true;
  CLI::App app{"mandelbrot: the Mandelbrot set on the default Vulkan device, written as a PNG"};
  app.add_option("--width", width, "Image width in pixels")->check(CLI::Range(1, 16384));
  app.add_option("--height", height, "Image height in pixels")->check(CLI::Range(1, 16384));
  app.add_option("--iterations", max_iterations, "Maximum iterations per pixel")->check(CLI::Range(1, 1 << 20));
  app.add_option("-o,--output", output, "PNG file to write");
  examples::add_example_options(app, device, wasm);
  app.add_flag("!--no-check", check_native, "Skip the comparison with native code");
  CLI11_PARSE(app, argc, argv);

  examples::ExampleContext ctx = examples::open_example(wasm, device);

  const uint32_t pixels = uint32_t(width) * uint32_t(height);
  const float scale = 3.2f / float(width);
  runtime::Buffer image = examples::check(ctx.device.create_buffer(uint64_t(pixels) * 4));
  runtime::Kernel& kernel = *examples::check(ctx.module.kernel("mandelbrot"));
  examples::check(kernel.launch(1, 0, {image, width, height, 1, scale}));  // warm-up: pipeline creation
  double ms = examples::time_ms(
      [&] { examples::check(kernel.launch(pixels, 0, {image, width, height, max_iterations, scale})); });
  std::vector<uint32_t> rgba = examples::check(image.read_as<uint32_t>(pixels));

  std::printf("mandelbrot: %d x %d pixels, %d iterations max, %.1f ms on the device\n", width, height, max_iterations,
              ms);
  if (check_native) {
    std::vector<uint32_t> native(pixels);
    for (uint32_t i = 0; i < pixels; ++i) mandelbrot(int(i), native.data(), width, height, max_iterations, scale);
    for (uint32_t i = 0; i < pixels; ++i)
      if (native[i] != rgba[i]) examples::die("pixel " + std::to_string(i) + " differs from native code");
    std::printf("check: every pixel equals the native result\n");
  }
  if (!stbi_write_png(output.c_str(), width, height, 4, rgba.data(), width * 4))
    examples::die("cannot write " + output);
  std::printf("wrote %s\n", output.c_str());
  return examples::finish(ctx);
}
