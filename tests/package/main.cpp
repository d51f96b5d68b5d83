// A user's program, written from the README and docs/host-api.md only: saxpy
// (a wasm kernel), a two-step reduction (wasm), a GLSL kernel bound by
// reflection and a two-pass image blur (wasm, image handles), recorded into
// ONE command buffer with the barriers the library inserts between dependent
// launches; then a kernel of C and C++ that copies structs (records.c);
// results checked against the CPU.
// Usage: package_user KERNEL_DIR
#include <wasmgpu/wasmgpu.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "records.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: package_user KERNEL_DIR\n");
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  try {
    wasmgpu::Device device = wasmgpu::Device::open();
    std::printf("device: %s\n", device.info().name.c_str());

    constexpr int n = 4096, chunk = 64, chunks = n / chunk;
    std::vector<float> x(n), y(n);
    for (int i = 0; i < n; ++i) {
      x[i] = float(i % 17) * 0.25f;
      y[i] = float(i % 5) + 1.0f;
    }
    auto x_buf = device.upload(x);
    auto y_buf = device.upload(y);
    auto partial = device.buffer<float>(chunks);
    auto total = device.buffer<float>(1);

    wasmgpu::Module saxpy_module = device.load_file(dir / "saxpy.wasm");
    wasmgpu::Module reduce_module = device.load_file(dir / "reduce.wasm");
    wasmgpu::Module normalize_module = device.load_file(dir / "normalize.spv");
    wasmgpu::Kernel saxpy = saxpy_module.kernel("saxpy");
    wasmgpu::Kernel sum_chunks = reduce_module.kernel("sum_chunks");
    wasmgpu::Kernel normalize = normalize_module.kernel("main");
    wasmgpu::Module blur_module = device.load_file(dir / "blur.wasm");
    wasmgpu::Kernel blur = blur_module.kernel("blur");

    constexpr uint32_t width = 37, height = 23;
    std::vector<float> picture(4 * width * height);
    for (size_t t = 0; t < picture.size(); ++t) picture[t] = float((t * 7919) % 256) / 255.0f;
    wasmgpu::Image image = device.image_2d(width, height, wasmgpu::ImageFormat::Rgba32F);
    wasmgpu::Image scratch = device.image_2d(width, height, wasmgpu::ImageFormat::Rgba32F);
    image.write(picture);

    wasmgpu::CommandBuffer commands = device.command_buffer();
    commands.launch(saxpy, n, 2.0f, x_buf, y_buf);                // y = 2x + y
    commands.launch(sum_chunks, chunks, y_buf, chunk, partial);   // 64 partial sums of y
    commands.launch(sum_chunks, 1, partial, chunks, total);       // their sum
    commands.launch(normalize, n, wasmgpu::arg("values", y_buf),  // y /= total
                    wasmgpu::arg("total", total), wasmgpu::arg("count", uint32_t(n)));
    commands.launch(blur, width * height, image, scratch, 1, 0);  // horizontal pass
    commands.launch(blur, width * height, scratch, image, 0, 1);  // vertical pass
    wasmgpu::Submission submission = commands.submit();
    submission.wait();

    // The same on the CPU, in the same order (wasm's float semantics are the CPU's).
    std::vector<float> want(n), sums(chunks);
    for (int i = 0; i < n; ++i) want[i] = 2.0f * x[i] + y[i];
    float want_total = 0.0f;
    for (int c = 0; c < chunks; ++c) {
      float s = 0.0f;
      for (int k = 0; k < chunk; ++k) s += want[c * chunk + k];
      sums[c] = s;
    }
    for (int c = 0; c < chunks; ++c) want_total += sums[c];
    const float got_total = total.read()[0];
    if (got_total != want_total) {
      std::fprintf(stderr, "reduction: got %.9g, want %.9g\n", got_total, want_total);
      return 1;
    }
    // GLSL division may be approximate (Vulkan allows 2.5 ulp): compare closely.
    const std::vector<float> got = y_buf.read();
    for (int i = 0; i < n; ++i) {
      const float expect = want[i] / want_total;
      if (std::fabs(got[i] - expect) > 4e-7f * std::fabs(expect) + 1e-12f) {
        std::fprintf(stderr, "normalize: y[%d] = %.9g, want %.9g\n", i, got[i], expect);
        return 1;
      }
    }
    // The blur on the CPU: the same float operations in the same order.
    const float weights[5] = {0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f};
    auto pass = [&](const std::vector<float>& src, int dx, int dy) {
      std::vector<float> dst(src.size());
      for (int y = 0; y < int(height); ++y)
        for (int x = 0; x < int(width); ++x)
          for (int c = 0; c < 4; ++c) {
            float sum = 0.0f;
            for (int k = -2; k <= 2; ++k) {
              const int sx = std::clamp(x + k * dx, 0, int(width) - 1);
              const int sy = std::clamp(y + k * dy, 0, int(height) - 1);
              sum += weights[k + 2] * src[4 * (sy * width + sx) + c];
            }
            dst[4 * (y * width + x) + c] = sum;
          }
      return dst;
    };
    if (image.read<float>() != pass(pass(picture, 1, 0), 0, 1)) {
      std::fprintf(stderr, "blur: the image differs from the CPU's\n");
      return 1;
    }
    std::printf("saxpy, reduction (sum %.6g), GLSL normalize and a 2-pass image blur in one command buffer: correct\n",
                double(got_total));

    // wasmgpu_add_kernel's C and C++ module, found through its target property.
    constexpr int records = 9;
    std::vector<record> in(records);
    for (int r = 0; r < records; ++r) {
      for (int v = 0; v < 24; ++v) in[r].values[v] = float(r * 24 + v) * 0.5f;
      in[r].tag = r;
    }
    auto in_buf = device.upload(in);
    auto out_buf = device.buffer<record>(records);
    device.load_file(RECORDS_WASM).kernel("rotate_records")(records, records, in_buf, out_buf);
    const std::vector<record> out = out_buf.read();
    for (int r = 0; r < records; ++r) {
      const record& from = in[(r + 1) % records];
      bool same = out[r].tag == from.tag + 1000;
      for (int v = 0; v < 24; ++v) same = same && out[r].values[v] == from.values[v] * 2.0f;
      if (!same) {
        std::fprintf(stderr, "rotate_records: record %d differs from the CPU's\n", r);
        return 1;
      }
    }
    std::printf("records (C and C++, struct copies through memcpy) from wasmgpu_add_kernel: correct\n");
  } catch (const wasmgpu::Exception& e) {
    std::fprintf(stderr, "wasmgpu error (%s): %s\n", wasmgpu::to_string(e.kind()), e.what());
    return 1;
  }
  return 0;
}
