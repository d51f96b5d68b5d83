#include "harness/report.h"

#include <fmt/core.h>

#include <cstdio>

namespace wasmgpu::bench {
namespace {

std::string number(double value) {
  if (std::isnan(value)) return "-";
  if (value >= 100) return fmt::format("{:.0f}", value);
  if (value >= 10) return fmt::format("{:.1f}", value);
  return fmt::format("{:.3g}", value);
}

std::string ratio(double wasm, double other, bool inverted) {
  if (std::isnan(wasm) || std::isnan(other) || wasm <= 0 || other <= 0) return "-";
  return fmt::format("{:.2f}", inverted ? other / wasm : wasm / other);
}

double get(const std::map<Variant, double>& values, Variant v) {
  auto it = values.find(v);
  return it == values.end() ? NAN : it->second;
}

}  // namespace

void print(const Report& report, bool tsv) {
  const std::vector<std::string> header = {
      "workload",   "size",         "unit",       "glsl",         "wasm",       "glsl-precise", "exact",
      "cuda",       "cuda-nofma",   "cublas",     "wasm/glsl",    "exact/glsl", "wasm/cuda",    "exact/cuda-nofma",
      "glsl/copy",  "wasm/copy",    "default",    "default/glsl", "cpu",        "native",       "lavapipe",
      "cpu/native", "cpu/lavapipe", "native/ref", "cpu-compile-s"};
  // A CPU column's cell: its value, or why it has none.
  auto cpu_cell = [](double value, const std::string& absent) {
    if (!std::isnan(value)) return number(value);
    return absent.empty() ? std::string("-") : std::string("absent");
  };
  std::vector<std::vector<std::string>> table;
  if (!std::isnan(report.copy_gbs)) {
    std::vector<std::string> copy(header.size(), "-");
    copy[0] = "copy", copy[1] = "vkCmdCopyBuffer", copy[2] = "GB/s", copy[3] = number(report.copy_gbs);
    table.push_back(copy);
  }
  // The machine's memory bandwidth, in the native column.
  const double stream_best =
      std::isnan(report.stream_copy_gbs) ? NAN : std::max(report.stream_copy_gbs, report.stream_triad_gbs);
  for (const char* which : {"stream-copy", "stream-triad"}) {
    std::vector<std::string> line(header.size(), "-");
    const bool copy = which[7] == 'c';
    line[0] = which, line[1] = report.stream_size.empty() ? "-" : report.stream_size, line[2] = "GB/s";
    line[19] = cpu_cell(copy ? report.stream_copy_gbs : report.stream_triad_gbs, report.native_absent);
    table.push_back(line);
  }
  for (const Row& row : report.rows) {
    const double glsl = get(row.value, Variant::Glsl), wasm = get(row.value, Variant::WasmFast);
    const double precise = get(row.value, Variant::GlslPrecise), exact = get(row.value, Variant::WasmExact);
    const double user = get(row.value, Variant::WasmDefault);
    const bool inv = row.lower_is_better;
    // The best twin: the faster of plain and precise.
    double best_glsl = glsl;
    if (!std::isnan(precise) && (std::isnan(best_glsl) || (inv ? precise < best_glsl : precise > best_glsl)))
      best_glsl = precise;
    const bool copy_ratio = row.memory_bound && !std::isnan(report.copy_gbs);
    table.push_back(
        {row.workload,
         row.size,
         row.unit,
         number(glsl),
         number(wasm),
         number(precise),
         number(exact),
         number(row.cuda),
         number(row.cuda_nofma),
         number(row.cuda_library),
         ratio(wasm, glsl, inv),
         ratio(exact, precise, inv),
         ratio(wasm, row.cuda, inv),
         ratio(exact, row.cuda_nofma, inv),
         copy_ratio ? ratio(glsl, report.copy_gbs, false) : "-",
         copy_ratio ? ratio(wasm, report.copy_gbs, false) : "-",
         number(user),
         ratio(user, best_glsl, inv),
         cpu_cell(row.cpu, report.cpu_absent),
         cpu_cell(row.native, report.native_absent),
         cpu_cell(row.lavapipe, report.lavapipe_absent),
         ratio(row.cpu, row.native, inv),
         ratio(row.cpu, row.lavapipe, inv),
         row.memory_bound ? ratio(row.native, stream_best, false) : ratio(row.native, row.library_value, false),
         std::isnan(row.cpu_compile_s) ? "-" : fmt::format("{:.2f}", row.cpu_compile_s)});
    if (!row.library.empty()) {
      std::vector<std::string> line(header.size(), "-");
      line[0] = row.workload + " " + row.library, line[1] = row.size, line[2] = row.unit;
      line[19] = cpu_cell(row.library_value, "absent");
      table.push_back(line);
    }
  }
  if (tsv) {
    for (size_t c = 0; c < header.size(); ++c) std::printf("%s%s", c ? "\t" : "", header[c].c_str());
    std::printf("\n");
    for (const auto& line : table) {
      for (size_t c = 0; c < line.size(); ++c) std::printf("%s%s", c ? "\t" : "", line[c].c_str());
      std::printf("\n");
    }
    return;
  }
  std::printf("device: %s\n", report.device.c_str());
  std::vector<size_t> width(header.size());
  for (size_t c = 0; c < header.size(); ++c) {
    width[c] = header[c].size();
    for (const auto& line : table) width[c] = std::max(width[c], line[c].size());
  }
  auto print_line = [&](const std::vector<std::string>& line) {
    for (size_t c = 0; c < line.size(); ++c)
      std::printf(c < 3 ? "%-*s%s" : "%*s%s", int(width[c]), line[c].c_str(), c + 1 < line.size() ? "  " : "\n");
  };
  print_line(header);
  for (const auto& line : table) print_line(line);
  std::printf(
      "\nglsl, wasm (fast mode), glsl-precise, exact (wasm in exact mode): medians; ratios above 1 mean wasm is "
      "faster.\nwasm/glsl compares fast mode with the plain twin, exact/glsl exact mode with the precise twin; "
      "x/copy is the\nfraction of the copy bandwidth (bytes read + written). launch: per-launch cost in a command "
      "buffer\n(glsl: raw Vulkan); sync: one synchronous kernel(...) call end to end, host included (glsl: raw "
      "Vulkan\nsubmit and wait; cuda: cudaLaunchKernel + cudaDeviceSynchronize); compile: wasm -> SPIR-V throughput "
      "of one\ncore (wasm: fast mode, exact: exact mode). default: the kernel in the default (exact) float mode "
      "launched as kernel(n, ...), "
      "with the\nworkgroup size chosen for the device (1-D kernels only); default/glsl against the faster twin.\n"
      "cpu, lavapipe: the wasm kernel (exact mode) launched as default is, or with its own grid where it has no "
      "default,\non the cpu device and on lavapipe, timed on the host's clock (cpu) or with GPU timestamps; "
      "native: the CPU twin\n(bench/native, clang-19 -O2 -march=native -fopenmp), checked against the cpu "
      "kernel's output; native/ref: the twin\nagainst the better STREAM row (memory-bound rows) or its library "
      "(OpenBLAS SGEMM); cpu-compile-s: the slowest\nkernel's load and compile on the cpu device, no cache.\n");
}

}  // namespace wasmgpu::bench
