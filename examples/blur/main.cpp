// The demo: a Gaussian blur of a PNG on the default Vulkan device, by a C
// kernel compiled to wasm that reads and writes images through the wasmgpu
// image imports; written as a PNG and checked bit for bit against the same
// C code run natively.
#include <stb/stb_image.h>
#include <stb/stb_image_write.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/example_support.h"
#include "runtime/device_state.h"
#include "runtime/image.h"

extern "C" void blur_pass_reference(const float* src, float* dst, int w, int h, const float* weights, int radius,
                                    int dx, int dy);

namespace {

// Normalised weights of a Gaussian with sigma = radius / 2 over [-radius, radius].
std::vector<float> gaussian_weights(int radius) {
  const double sigma = std::max(radius, 1) / 2.0;
  std::vector<double> w(2 * radius + 1);
  double total = 0;
  for (int k = -radius; k <= radius; ++k) total += w[k + radius] = std::exp(-0.5 * k * k / (sigma * sigma));
  std::vector<float> out;
  for (double v : w) out.push_back(float(v / total));
  return out;
}

// A synthetic test picture: a checkerboard with a colour gradient and sharp edges.
std::vector<uint8_t> synthetic(int w, int h) {
  std::vector<uint8_t> rgba(size_t(w) * h * 4);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      uint8_t* p = &rgba[(size_t(y) * w + x) * 4];
      const bool on = ((x / 8) + (y / 8)) % 2 == 0;
      p[0] = uint8_t(on ? 255 : x * 255 / std::max(w - 1, 1));
      p[1] = uint8_t(on ? 255 : y * 255 / std::max(h - 1, 1));
      p[2] = uint8_t(on ? 0 : 128);
      p[3] = 255;
    }
  return rgba;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace wasmgpu;
  std::string input, output = "blurred.png", write_input;
  int width = 256, height = 192, radius = 5;
  std::optional<std::string> device;
  std::string wasm = WASMGPU_EXAMPLE_WASM;
  bool check_native = true;
  CLI::App app{"blur: a separable Gaussian blur of a PNG on the default Vulkan device, by a wasm kernel "
               "using the wasmgpu image imports"};
  app.add_option("-i,--input", input, "PNG file to blur (default: a synthetic picture of --width x --height)");
  app.add_option("--width", width, "Width of the synthetic picture")->check(CLI::Range(1, 16384));
  app.add_option("--height", height, "Height of the synthetic picture")->check(CLI::Range(1, 16384));
  app.add_option("--write-input", write_input, "Also write the picture blurred (e.g. the synthetic one) as a PNG");
  app.add_option("-r,--radius", radius, "Blur radius in pixels: 2 * radius + 1 taps per pass")
      ->check(CLI::Range(0, 64));
  app.add_option("-o,--output", output, "PNG file to write");
  examples::add_example_options(app, device, wasm);
  app.add_flag("!--no-check", check_native, "Skip the comparison with native code");
  CLI11_PARSE(app, argc, argv);

  std::vector<uint8_t> pixels;
  if (!input.empty()) {
    int channels = 0;
    stbi_uc* loaded = stbi_load(input.c_str(), &width, &height, &channels, 4);
    if (!loaded) examples::die("cannot read " + input + ": " + stbi_failure_reason());
    pixels.assign(loaded, loaded + size_t(width) * height * 4);
    stbi_image_free(loaded);
  } else {
    pixels = synthetic(width, height);
  }
  if (!write_input.empty() && !stbi_write_png(write_input.c_str(), width, height, 4, pixels.data(), width * 4))
    examples::die("cannot write " + write_input);

  examples::ExampleContext ctx = examples::open_example(wasm, device);
  runtime::DeviceState& state = ctx.device.state();
  // Texels as floats in [0, 1]: every pass reads and writes rgba32f, so
  // nothing is rounded to bytes until the PNG is written.
  std::vector<float> texels(pixels.size());
  for (size_t i = 0; i < pixels.size(); ++i) texels[i] = float(pixels[i]) / 255.0f;
  const runtime::ImageDesc desc{.width = uint32_t(width), .height = uint32_t(height),
                                .format = runtime::ImageFormat::Rgba32Float};
  runtime::Image src = examples::check(runtime::Image::create(state, desc));
  runtime::Image tmp = examples::check(runtime::Image::create(state, desc));
  runtime::Image dst = examples::check(runtime::Image::create(state, desc));
  examples::check(src.write(texels.data(), texels.size() * 4));
  const std::vector<float> weights = gaussian_weights(radius);
  runtime::Buffer weight_buffer = examples::check(ctx.device.create_buffer(weights.size() * 4));
  examples::check(weight_buffer.write(weights));

  runtime::Kernel& kernel = *examples::check(ctx.module.kernel("blur_pass"));
  const uint32_t n = uint32_t(width) * uint32_t(height);
  auto blur = [&] {
    examples::check(kernel.launch(n, 0, {src, tmp, weight_buffer, radius, 1, 0}));
    examples::check(kernel.launch(n, 0, {tmp, dst, weight_buffer, radius, 0, 1}));
  };
  examples::check(kernel.launch(1, 0, {src, tmp, weight_buffer, 0, 1, 0}));  // warm-up: pipeline creation
  const double ms = examples::time_ms(blur);
  std::vector<float> result(texels.size());
  examples::check(dst.read(result.data(), result.size() * 4));
  std::printf("blur: %d x %d pixels, radius %d (%d taps per pass), %.1f ms on the device for both passes\n", width,
              height, radius, 2 * radius + 1, ms);

  if (check_native) {
    std::vector<float> across(texels.size()), native(texels.size());
    blur_pass_reference(texels.data(), across.data(), width, height, weights.data(), radius, 1, 0);
    blur_pass_reference(across.data(), native.data(), width, height, weights.data(), radius, 0, 1);
    for (size_t i = 0; i < native.size(); ++i)
      if (std::memcmp(&native[i], &result[i], 4) != 0)
        examples::die("texel " + std::to_string(i / 4) + " channel " + std::to_string(i % 4) +
                      " differs from native code: " + std::to_string(result[i]) + " vs " + std::to_string(native[i]));
    std::printf("check: every texel equals the native result bit for bit\n");
  }
  std::vector<uint8_t> out(result.size());
  for (size_t i = 0; i < result.size(); ++i)
    out[i] = uint8_t(std::lround(std::clamp(result[i], 0.0f, 1.0f) * 255.0f));
  if (!stbi_write_png(output.c_str(), width, height, 4, out.data(), width * 4)) examples::die("cannot write " + output);
  std::printf("wrote %s\n", output.c_str());
  return examples::finish(ctx);
}
