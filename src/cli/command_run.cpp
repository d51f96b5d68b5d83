// wasmgpu run IN.wasm KERNEL --n N ARGS...: launch a kernel with scalar and
// file-backed buffer arguments.
#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>

#include "cli/cache_options.h"
#include "cli/cli_support.h"
#include "cli/commands.h"
#include "cli/call_stack_depth_option.h"
#include "cli/heap_option.h"
#include "cli/trap_sites_option.h"
#include "cli/float_mode_option.h"
#include "cli/wait_notice.h"
#include "frontend/kernel_signature.h"
#include "spirv/compiler.h"
#include "wasmgpu/device.hpp"

namespace wasmgpu::cli {
namespace {

// "X[,Y[,Z]]": one to three integers from 1 to 2^32-1, missing ones 1.
std::array<uint32_t, 3> parse_dimensions(const std::string& text, const char* option) {
  std::array<uint32_t, 3> dims{1, 1, 1};
  size_t start = 0, count = 0;
  for (;;) {
    size_t comma = text.find(',', start);
    std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    uint64_t value = 0;
    bool digits = !part.empty() && part.size() <= 10 && part.find_first_not_of("0123456789") == std::string::npos;
    if (digits) value = std::stoull(part);
    if (count == 3 || !digits || value == 0 || value > std::numeric_limits<uint32_t>::max())
      fail(fmt::format("{}: expected X[,Y[,Z]] with each between 1 and 4294967295, got '{}'", option, text));
    dims[count++] = uint32_t(value);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return dims;
}

struct RunArgs {
  std::string input;
  std::string kernel;
  uint64_t n = 0;
  std::string grid;            // "X[,Y[,Z]]" workgroups; exclusive with n
  std::string workgroup_size;  // "X[,Y[,Z]]" invocations per workgroup
  std::optional<std::string> device;
  double timeout_seconds = 60;
  uint32_t repeat = 0;          // timed launches after the first
  std::optional<double> bytes;  // bytes one launch moves, for a bandwidth figure
  spirv::CompileOptions compile_options;
  CacheCliOptions cache;
  PrintCliOptions print;
  std::optional<std::string> heap;  // --heap
  std::vector<std::string> args;
};

// A buffer argument: where its initial bytes come from and where they go.
struct BufferArg {
  std::string spec;
  std::optional<std::string> read_from;
  std::optional<std::string> write_to;
  uint64_t size = 0;
};

uint64_t parse_size(const std::string& text, const std::string& spec) {
  uint64_t multiplier = 1;
  std::string digits = text;
  if (!digits.empty() && (digits.back() == 'k' || digits.back() == 'K'))
    multiplier = 1024, digits.pop_back();
  else if (!digits.empty() && (digits.back() == 'M' || digits.back() == 'm'))
    multiplier = 1024 * 1024, digits.pop_back();
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || value == 0)
    fail("argument '" + spec + "': '" + text + "' is not a size in bytes (like 4096, 64k or 2M)");
  return value * multiplier;
}

std::optional<BufferArg> parse_buffer_arg(const std::string& spec) {
  auto colon = spec.find(':');
  if (colon == std::string::npos) return std::nullopt;
  std::string kind = spec.substr(0, colon), rest = spec.substr(colon + 1);
  BufferArg arg{spec, {}, {}, 0};
  if (kind == "in" || kind == "inout") {
    if (rest.empty()) fail("argument '" + spec + "': missing file name");
    arg.read_from = rest;
    if (kind == "inout") arg.write_to = rest;
  } else if (kind == "out") {
    auto last = rest.rfind(':');
    if (last == std::string::npos || last == 0)
      fail("argument '" + spec + "': write it as out:FILE:SIZE (SIZE in bytes, like 4096 or 64k)");
    arg.write_to = rest.substr(0, last);
    arg.size = parse_size(rest.substr(last + 1), spec);
  } else if (kind == "zeros") {
    arg.size = parse_size(rest, spec);
  } else {
    return std::nullopt;
  }
  return arg;
}

template <class T>
bool parse_integer(const std::string& text, T& out) {
  std::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) negative = s[0] == '-', s.remove_prefix(1);
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) base = 16, s.remove_prefix(2);
  uint64_t magnitude = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), magnitude, base);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return false;
  using U = std::make_unsigned_t<T>;
  // Accept the signed range and, written without a sign, the unsigned range.
  if (negative) {
    if (magnitude > uint64_t(std::numeric_limits<T>::max()) + 1) return false;
    out = T(U(0) - U(magnitude));
  } else {
    if (magnitude > uint64_t(std::numeric_limits<U>::max())) return false;
    out = T(U(magnitude));
  }
  return true;
}

template <class T>
bool parse_float(const std::string& text, T& out) {
  std::string lower;
  for (char c : text) lower += char(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "nan" || lower == "+nan") return out = std::numeric_limits<T>::quiet_NaN(), true;
  if (lower == "-nan") return out = -std::numeric_limits<T>::quiet_NaN(), true;
  if (lower == "inf" || lower == "+inf") return out = std::numeric_limits<T>::infinity(), true;
  if (lower == "-inf") return out = -std::numeric_limits<T>::infinity(), true;
  char* end = nullptr;
  errno = 0;
  double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0') return false;
  out = T(value);
  return true;
}

Argument parse_scalar(const std::string& text, wasm::ValType type, size_t position) {
  auto bad = [&](const char* what) -> Argument {
    fail(fmt::format("argument {} ('{}'): expected {} for a parameter of type {}", position, text, what,
                     wasm::to_string(type)));
  };
  switch (type) {
    case wasm::ValType::I32: {
      int32_t v;
      return parse_integer(text, v) ? Argument(v) : bad("a 32-bit integer or a buffer (in:, inout:, out:, zeros:)");
    }
    case wasm::ValType::I64: {
      int64_t v;
      return parse_integer(text, v) ? Argument(v) : bad("a 64-bit integer");
    }
    case wasm::ValType::F32: {
      float v;
      return parse_float(text, v) ? Argument(v) : bad("a number");
    }
    case wasm::ValType::F64: {
      double v;
      return parse_float(text, v) ? Argument(v) : bad("a number");
    }
    default: return bad("a value");
  }
}

// --repeat: the same launch `args.repeat` more times, each a submission of
// one recorded command buffer with GPU timestamps around it, so that the
// figures are the device's time per launch without the compile (done by the
// first launch) or the host's recording, submission and wait. The output
// files hold the first launch's results: they were written before.
void report_repeats(Device& device, const Kernel& kernel, const Launch& launch, std::span<const Argument> launch_args,
                    const RunArgs& args) {
  std::vector<double> seconds;
  seconds.reserve(args.repeat);
  bool gpu_timed = true;
  try {
    CommandBuffer commands = device.command_buffer();
    commands.launch_dynamic(kernel, launch, launch_args);
    commands.set_gpu_timing(true);
    for (uint32_t i = 0; i < args.repeat; ++i) {
      const auto start = std::chrono::steady_clock::now();
      Submission run = [&] {
        try {
          return commands.submit();
        } catch (const Exception& e) {
          // A device without GPU timestamps (the cpu device): the host's clock.
          if (e.kind() != ErrorKind::Unsupported || !gpu_timed) throw;
          gpu_timed = false;
          commands.set_gpu_timing(false);
          return commands.submit();
        }
      }();
      run.wait(timeout_of(args.timeout_seconds));
      seconds.push_back(gpu_timed ? run.gpu_seconds()
                                  : std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
  } catch (const Exception& e) {
    fail(e.what());
  }
  std::vector<double> sorted = seconds;
  std::sort(sorted.begin(), sorted.end());
  const double median =
      sorted.size() % 2 ? sorted[sorted.size() / 2] : (sorted[sorted.size() / 2 - 1] + sorted[sorted.size() / 2]) / 2;
  const double best = sorted.front();
  fmt::print(stderr, "repeat: {} launches, {} per launch: median {:.4f} ms, min {:.4f} ms\n", args.repeat,
             gpu_timed ? "device time (GPU timestamps)" : "wall time on the host (the device has no GPU timestamps)",
             median * 1e3, best * 1e3);
  if (args.bytes)
    fmt::print(stderr, "bandwidth: {:.2f} GB/s at the median, {:.2f} GB/s at the min ({} bytes a launch)\n",
               *args.bytes / median * 1e-9, *args.bytes / best * 1e-9, *args.bytes);
  const CacheStats stats = device.cache_stats();
  fmt::print(stderr,
             "compile: {:.1f} ms compiling wasm ({} compiled, {} from the disk cache), {:.1f} ms in the driver "
             "creating pipelines (neither in the times above)\n",
             stats.spirv_compile_seconds * 1e3, stats.spirv_compiles, stats.spirv_cache_hits,
             stats.pipeline_create_seconds * 1e3);
}

void run_kernel(const RunArgs& args) {
  wasm::Module parsed = load_module_or_fail(args.input);
  const wasm::Export* exported = parsed.find_export(args.kernel, wasm::ExternalKind::Func);
  if (!exported) {
    std::string kernels;
    for (const wasm::Export& e : parsed.exports)
      if (e.kind == wasm::ExternalKind::Func && frontend::check_kernel_signature(parsed, e.name).ok())
        kernels += (kernels.empty() ? "" : ", ") + e.name;
    fail(fmt::format("{} has no exported function '{}' (kernels: {})", args.input, args.kernel,
                     kernels.empty() ? "none" : kernels));
  }
  if (Status signature = frontend::check_kernel_signature(parsed, args.kernel); !signature.ok())
    fail(fmt::format("'{}' is not a kernel: {}", args.kernel, signature.error().message));
  const auto& params = parsed.function_type(exported->index).params;
  const size_t expected = params.size() - 1;
  if (args.args.size() != expected)
    fail(fmt::format("kernel '{}' takes {} argument{} after the invocation index {}, got {}", args.kernel, expected,
                     expected == 1 ? "" : "s", signature_text(parsed.function_type(exported->index)),
                     args.args.size()));
  const bool use_grid = !args.grid.empty();
  if (use_grid && args.n != 0) fail("--n and --grid are exclusive: give one of them");
  if (!use_grid && args.n == 0) fail("give --n N (invocations) or --grid X[,Y[,Z]] (workgroups)");
  if (args.bytes && !args.repeat) fail("--bytes gives a bandwidth for the --repeat launches: give --repeat N too");
  if (!use_grid && args.n > std::numeric_limits<uint32_t>::max()) fail("--n must be between 1 and 4294967295");
  std::array<uint32_t, 3> grid{1, 1, 1}, size{0, 1, 1};
  if (use_grid) grid = parse_dimensions(args.grid, "--grid");
  if (!args.workgroup_size.empty()) size = parse_dimensions(args.workgroup_size, "--workgroup-size");
  if (!use_grid && (size[1] != 1 || size[2] != 1))
    fail("--workgroup-size with Y or Z needs --grid (a --n launch is 1-D)");

  // Read input files before touching the device, so that a typo fails fast.
  std::vector<std::optional<BufferArg>> buffer_args(expected);
  std::vector<std::vector<uint8_t>> initial(expected);
  for (size_t i = 0; i < expected; ++i) {
    buffer_args[i] = parse_buffer_arg(args.args[i]);
    if (!buffer_args[i]) continue;
    if (params[i + 1] != wasm::ValType::I32)
      fail(fmt::format("argument {} ('{}'): a buffer needs an i32 (pointer) parameter, this one is {}", i + 1,
                       args.args[i], wasm::to_string(params[i + 1])));
    if (buffer_args[i]->read_from) {
      auto bytes = read_file(*buffer_args[i]->read_from);
      if (!bytes) fail(fmt::format("argument {}: {}", i + 1, bytes.error().to_string()));
      if (bytes->empty()) fail(fmt::format("argument {}: '{}' is empty", i + 1, *buffer_args[i]->read_from));
      buffer_args[i]->size = bytes->size();
      initial[i] = std::move(bytes).value();
    }
  }

  LoadedModule loaded = load_on_device_or_fail(args.input, args.device, args.compile_options, args.cache.cache,
                                               args.cache.verbose, args.print, args.heap);
  Device& device = loaded.device;
  std::optional<Kernel> kernel;
  try {
    kernel.emplace(loaded.module.kernel(args.kernel));
  } catch (const Exception& e) {
    fail(args.input + ": " + e.what());
  }

  // Arguments refer to the buffers: reserved, so that none moves.
  std::vector<BufferBase> buffers;
  buffers.reserve(expected);
  std::vector<Argument> launch_args;
  std::vector<size_t> buffer_of_arg(expected, SIZE_MAX);
  for (size_t i = 0; i < expected; ++i) {
    if (!buffer_args[i]) continue;
    try {
      BufferBase buffer = device.buffer_bytes(buffer_args[i]->size);
      if (!initial[i].empty()) buffer.write_bytes(std::as_bytes(std::span<const uint8_t>(initial[i])));
      buffer_of_arg[i] = buffers.size();
      buffers.push_back(std::move(buffer));
    } catch (const Exception& e) {
      fail(fmt::format("argument {}: {}", i + 1, e.what()));
    }
  }
  for (size_t i = 0; i < expected; ++i)
    launch_args.push_back(buffer_args[i] ? Argument(buffers[buffer_of_arg[i]])
                                         : parse_scalar(args.args[i], params[i + 1], i + 1));

  const Launch launch = use_grid ? Launch::grid(grid, size) : Launch::invocations(uint32_t(args.n), size[0]);
  auto start = std::chrono::steady_clock::now();
  try {
    WaitNotice notice(args.kernel, device.info());
    kernel->launch(launch, launch_args, timeout_of(args.timeout_seconds));
  } catch (const Exception& e) {
    fail(e.what());
  }
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();

  for (size_t i = 0; i < expected; ++i) {
    if (!buffer_args[i] || !buffer_args[i]->write_to) continue;
    std::vector<std::byte> data;
    try {
      data = buffers[buffer_of_arg[i]].read_bytes();
    } catch (const Exception& e) {
      fail(fmt::format("argument {}: {}", i + 1, e.what()));
    }
    if (Status written = write_file(*buffer_args[i]->write_to, data.data(), data.size()); !written)
      fail(written.error().to_string());
  }
  std::string shape = use_grid ? fmt::format("a grid of {}x{}x{} workgroups", grid[0], grid[1], grid[2])
                               : fmt::format("{} invocations", args.n);
  fmt::print(stderr, "ran {} over {} on {} in {:.3f} ms{}\n", args.kernel, shape, device.info().name, ms,
             args.repeat ? " (the first launch: compiling it, then running it once)" : "");
  if (args.repeat) report_repeats(device, *kernel, launch, launch_args, args);
  if (args.cache.verbose) fmt::print(stderr, "{}\n", cache_report(device.cache_stats()));
  fail_on_validation_messages();
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand("run", "Run a kernel over N invocations");
  cmd->footer(
      "ARGS gives one value per kernel parameter after the invocation index:\n"
      "  42, -7, 0x1f, 2.5, inf, nan  a scalar, parsed as the parameter's type\n"
      "  in:FILE                      a buffer holding FILE's bytes (not written back)\n"
      "  inout:FILE                   a buffer holding FILE's bytes, written back after the run\n"
      "  out:FILE:SIZE                SIZE zero bytes (suffix k or M), written to FILE after the run\n"
      "  zeros:SIZE                   SIZE zero bytes of scratch, not saved\n"
      "Buffers are raw little-endian data; a buffer passes its address to an i32 parameter.\n"
      "A trap is reported with its kind, the lowest trapping invocation and how many trapped.\n"
      "Launch shape: --n N runs invocations 0..N-1 (1-D, workgroups of --workgroup-size X or of a\n"
      "size chosen for the device);\n"
      "--grid X[,Y[,Z]] runs that many workgroups of --workgroup-size X[,Y[,Z]] invocations,\n"
      "all of them (the kernel checks its own bounds; wasmgpu_global_id(d) gives coordinates).\n"
      "Sizes are checked against the device's workgroup size, count and invocation limits.\n"
      "Example: wasmgpu run saxpy.wasm saxpy --n 1024 2.0 in:x.bin inout:y.bin\n"
      "Example: wasmgpu run blur.wasm blur --grid 64,64 --workgroup-size 16,16 in:a.bin out:b.bin:4M");
  cmd->add_option("input", args->input, "The wasm module")->required();
  cmd->add_option("kernel", args->kernel, "The exported kernel to run")->required();
  cmd->add_option("args", args->args, "Kernel arguments (see below)");
  cmd->add_option("--n", args->n, "Number of invocations (1-D launch; exclusive with --grid)");
  cmd->add_option("--grid", args->grid, "Workgroups per dimension, X[,Y[,Z]] (exclusive with --n)");
  cmd->add_option("--workgroup-size", args->workgroup_size,
                  "Invocations per workgroup, X[,Y[,Z]] (default: a size chosen for the device for --n "
                  "(docs/host-api.md, \"Launch shapes\"), 64 for --grid)");
  cmd->add_option("--device", args->device, kDeviceOptionHelp);
  cmd->add_option("--timeout", args->timeout_seconds, "Seconds to wait for the kernel")->check(CLI::PositiveNumber);
  cmd->add_option("--repeat", args->repeat,
                  "After the first launch (which compiles the kernel), run it N more times and print the device time "
                  "per launch (GPU timestamps; median and min) apart from the compile time; output files keep the "
                  "first launch's results")
      ->check(CLI::Range(1u, 1000000u));
  cmd->add_option("--bytes", args->bytes,
                  "With --repeat: the bytes one launch reads and writes, for a bandwidth figure (GB/s)")
      ->check(CLI::PositiveNumber);
  cmd->positionals_at_end(false);
  add_float_mode_option(cmd, &args->compile_options);
  add_call_stack_depth_option(cmd, &args->compile_options);
  add_trap_sites_option(cmd, &args->compile_options);
  add_cache_options(cmd, &args->cache);
  add_print_options(cmd, &args->print);
  add_heap_option(cmd, &args->heap);
  cmd->callback([args] { run_kernel(*args); });
}

}  // namespace wasmgpu::cli
