// The demo: a Gaussian blur of a PNG through the public host API
// (wasmgpu/wasmgpu.hpp), by a C kernel compiled to wasm that reads and writes
// images through the wasmgpu image imports, or (--glsl) by the same pass in
// GLSL bound through reflection; written as a PNG and checked bit for bit
// against the same C code run natively.
#include <stb/stb_image.h>
#include <stb/stb_image_write.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <wasmgpu/wasmgpu.hpp>

extern "C" void blur_pass_reference(const float* src, float* dst, int w, int h, const float* weights, int radius,
                                    int dx, int dy);

namespace {

[[noreturn]] void die(const std::string& message) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  std::exit(1);
}

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
  std::string input, output = "blurred.png", write_input;
  int width = 256, height = 192, radius = 5;
  std::optional<std::string> device_name;
  std::string wasm = WASMGPU_EXAMPLE_WASM;
#ifdef WASMGPU_EXAMPLE_SPV
  std::string spv = WASMGPU_EXAMPLE_SPV;
#else
  std::string spv;
#endif
  bool glsl = false, check_native = true;
  CLI::App app{
      "blur: a separable Gaussian blur of a PNG on the default Vulkan device, by a wasm kernel "
      "using the wasmgpu image imports (or its GLSL twin with --glsl)"};
  app.add_option("-i,--input", input, "PNG file to blur (default: a synthetic picture of --width x --height)");
  app.add_option("--width", width, "Width of the synthetic picture")->check(CLI::Range(1, 16384));
  app.add_option("--height", height, "Height of the synthetic picture")->check(CLI::Range(1, 16384));
  app.add_option("--write-input", write_input, "Also write the picture blurred (e.g. the synthetic one) as a PNG");
  app.add_option("-r,--radius", radius, "Blur radius in pixels: 2 * radius + 1 taps per pass")
      ->check(CLI::Range(0, 64));
  app.add_option("-o,--output", output, "PNG file to write");
  app.add_option("--device", device_name, "Device index or part of its name (default: WASMGPU_DEVICE, else the best)");
  app.add_option("--wasm", wasm, "The kernel module (blur.wasm, built with the example)");
  app.add_flag("--glsl", glsl, "Run the GLSL pass (blur.comp compiled to SPIR-V) instead of the wasm kernel");
  app.add_option("--spv", spv, "The GLSL pass as SPIR-V (blur.spv, built with the example)");
  app.add_flag("!--no-check", check_native, "Skip the comparison with native code");
  CLI11_PARSE(app, argc, argv);

  std::vector<uint8_t> pixels;
  if (!input.empty()) {
    int channels = 0;
    stbi_uc* loaded = stbi_load(input.c_str(), &width, &height, &channels, 4);
    if (!loaded) die("cannot read " + input + ": " + stbi_failure_reason());
    pixels.assign(loaded, loaded + size_t(width) * height * 4);
    stbi_image_free(loaded);
  } else {
    pixels = synthetic(width, height);
  }
  if (!write_input.empty() && !stbi_write_png(write_input.c_str(), width, height, 4, pixels.data(), width * 4))
    die("cannot write " + write_input);
  if (glsl && spv.empty()) die("--glsl: this build has no blur.spv (glslangValidator was not found)");

  try {
    wasmgpu::DeviceOptions options;
    options.name = device_name;
    wasmgpu::Device device = wasmgpu::Device::open(options);
    std::printf("device: %s (%s, %s)\n", device.info().name.c_str(), device.info().type.c_str(),
                device.info().driver.c_str());
    wasmgpu::Module module = device.load_file(glsl ? spv : wasm);
    wasmgpu::Kernel pass = module.kernel(glsl ? "main" : "blur_pass");

    // Texels as floats in [0, 1]: both passes read and write rgba32f, so
    // nothing is rounded to bytes until the PNG is written.
    std::vector<float> texels(pixels.size());
    for (size_t i = 0; i < pixels.size(); ++i) texels[i] = float(pixels[i]) / 255.0f;
    const uint32_t w = uint32_t(width), h = uint32_t(height);
    wasmgpu::Image src = device.image_2d(w, h, wasmgpu::ImageFormat::Rgba32F);
    wasmgpu::Image tmp = device.image_2d(w, h, wasmgpu::ImageFormat::Rgba32F);
    wasmgpu::Image dst = device.image_2d(w, h, wasmgpu::ImageFormat::Rgba32F);
    src.write(texels);
    const std::vector<float> weights = gaussian_weights(radius);
    wasmgpu::Buffer<float> weight_buffer = device.upload(weights);

    // The wasm kernel takes one invocation per pixel (index = x + y * w);
    // the GLSL pass runs 8x8 workgroups over the picture. Both take their
    // arguments in the same order: src, dst, weights, radius, dx, dy.
    const wasmgpu::Launch shape = glsl ? wasmgpu::Launch::grid({(w + 7) / 8, (h + 7) / 8, 1}) : wasmgpu::Launch(w * h);
    wasmgpu::CommandBuffer commands = device.command_buffer();
    commands.launch(pass, shape, src, tmp, weight_buffer, radius, 1, 0);
    commands.launch(pass, shape, tmp, dst, weight_buffer, radius, 0, 1);  // reads tmp: a barrier goes in
    commands.submit().wait();                                             // the first run compiles the pipeline
    const auto start = std::chrono::steady_clock::now();
    commands.submit().wait();
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    const std::vector<float> result = dst.read<float>();
    std::printf("blur: %d x %d pixels, radius %d (%d taps per pass), %s, %.1f ms on the device for both passes\n",
                width, height, radius, 2 * radius + 1, glsl ? "GLSL" : "wasm", ms);

    if (check_native) {
      std::vector<float> across(texels.size()), native(texels.size());
      blur_pass_reference(texels.data(), across.data(), width, height, weights.data(), radius, 1, 0);
      blur_pass_reference(across.data(), native.data(), width, height, weights.data(), radius, 0, 1);
      for (size_t i = 0; i < native.size(); ++i)
        if (std::memcmp(&native[i], &result[i], 4) != 0)
          die("texel " + std::to_string(i / 4) + " channel " + std::to_string(i % 4) +
              " differs from native code: " + std::to_string(result[i]) + " vs " + std::to_string(native[i]));
      std::printf("check: every texel equals the native result bit for bit\n");
    }
    std::vector<uint8_t> out(result.size());
    for (size_t i = 0; i < result.size(); ++i)
      out[i] = uint8_t(std::lround(std::clamp(result[i], 0.0f, 1.0f) * 255.0f));
    if (!stbi_write_png(output.c_str(), width, height, 4, out.data(), width * 4)) die("cannot write " + output);
    std::printf("wrote %s\n", output.c_str());
  } catch (const wasmgpu::Exception& e) {
    die(e.what());
  }
  if (wasmgpu::validation_enabled() && !wasmgpu::validation_messages().empty()) {
    std::fprintf(stderr, "error: the validation layer reported %zu message(s)\n",
                 wasmgpu::validation_messages().size());
    return 1;
  }
  return 0;
}
