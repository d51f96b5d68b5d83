#include "cli/cli_support.h"

#include <fmt/core.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include "support/environment.h"
#include "wasm/decoder.h"

namespace wasmgpu::cli {

void fail(std::string message) { throw CommandError{std::move(message)}; }

Result<std::vector<uint8_t>> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(ErrorCode::Io, "cannot open '" + path + "': " + std::strerror(errno));
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return make_error(ErrorCode::Io, "cannot read '" + path + "'");
  return bytes;
}

Status write_file(const std::string& path, const void* data, size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return make_error(ErrorCode::Io, "cannot open '" + path + "' for writing: " + std::strerror(errno));
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!out) return make_error(ErrorCode::Io, "cannot write '" + path + "'");
  return {};
}

wasm::Module load_module_or_fail(const std::string& path) {
  auto bytes = read_file(path);
  if (!bytes) fail(bytes.error().to_string());
  auto module = wasm::decode_and_validate(*bytes);
  if (!module) fail(path + ": " + module.error().to_string());
  return std::move(module).value();
}

Device open_device_or_fail(const DeviceOptions& options, bool verbose) {
  std::optional<Device> opened;
  try {
    opened.emplace(Device::open(options));
    // No device named anywhere and the cpu device opened: it stands in for
    // a Vulkan device that is missing (default_device() says why).
    if (verbose && !options.name && !options.index && !environment::device() && cpu_device() &&
        opened->info().name == cpu_device()->name && opened->info().type == cpu_device()->type)
      fmt::print(stderr, "running on the cpu device: {}\n", default_device().reason);
  } catch (const Exception& e) {
    fail(e.what());
  }
  return std::move(*opened);
}

void add_print_options(CLI::App* cmd, PrintCliOptions* options) {
  cmd->add_option("--print-buffer", options->buffer,
                  "Bytes of the module's print buffer for printf, puts and fd_write from kernels (suffix k or M; "
                  "default: WASMGPU_PRINT_BUFFER, else 1M); what does not fit is dropped and counted");
  cmd->add_flag("--print-invocation", options->invocation,
                "Start each line kernels print with [N], the invocation index that printed it "
                "(as WASMGPU_PRINT_INVOCATION=1)");
}

namespace {

// "4096", "64k", "1M": digits, optionally with k or M (KiB, MiB).
uint64_t byte_count_or_fail(const std::string& option, const std::string& text) {
  std::string digits = text;
  uint64_t scale = 1;
  if (!digits.empty() && (digits.back() == 'k' || digits.back() == 'K')) scale = 1024, digits.pop_back();
  if (!digits.empty() && (digits.back() == 'm' || digits.back() == 'M')) scale = 1024 * 1024, digits.pop_back();
  if (digits.empty() || digits.size() > 12 || digits.find_first_not_of("0123456789") != std::string::npos)
    fail(option + " " + text + ": not a byte count (digits, optionally with k or M)");
  return std::stoull(digits) * scale;
}

}  // namespace

LoadedModule load_on_device_or_fail(const std::string& path, const std::optional<std::string>& device,
                                    const spirv::CompileOptions& options, bool cache, bool verbose,
                                    const PrintCliOptions& print, const std::optional<std::string>& heap) {
  DeviceOptions device_options;
  device_options.name = device;
  device_options.cache = cache;
  std::optional<Device> opened;
  opened.emplace(open_device_or_fail(device_options, verbose));
  auto bytes = read_file(path);
  if (!bytes) fail(bytes.error().to_string());
  try {
    ModuleOptions loading = module_options(options);
    if (print.invocation) loading.print_invocation = true;
    if (print.buffer) loading.print_buffer_bytes = byte_count_or_fail("--print-buffer", *print.buffer);
    if (heap) loading.heap_bytes = byte_count_or_fail("--heap", *heap);
    Module module = opened->load(*bytes, loading);
    return LoadedModule{std::move(*opened), std::move(module)};
  } catch (const Exception& e) {
    fail(path + ": " + e.what());
  }
}

ModuleOptions module_options(const spirv::CompileOptions& options) {
  ModuleOptions out;
  out.float_mode =
      options.float_mode == spirv::FloatMode::Fast ? ModuleOptions::FloatMode::Fast : ModuleOptions::FloatMode::Exact;
  out.max_call_depth = options.max_call_depth;
  if (options.trap_sites) out.trap_sites = true;  // else the environment's WASMGPU_TRAP_SITES
  return out;
}

std::chrono::nanoseconds timeout_of(double seconds) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(seconds));
}

void fail_on_validation_messages() {
  const size_t messages = validation_messages().size();
  if (messages > 0) fail(fmt::format("the Vulkan validation layer reported {} message(s)", messages));
}

std::string signature_text(const wasm::FuncType& type) {
  auto list = [](const std::vector<wasm::ValType>& types) {
    std::string text = "(";
    for (size_t i = 0; i < types.size(); ++i) {
      if (i) text += ", ";
      text += wasm::to_string(types[i]);
    }
    return text + ")";
  };
  return list(type.params) + " -> " + list(type.results);
}

}  // namespace wasmgpu::cli
