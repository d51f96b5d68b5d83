#include "support/environment.h"

#include <algorithm>
#include <cstdlib>

namespace wasmgpu::environment {

bool parse_flag(std::string_view text) { return !text.empty() && text != "0"; }

bool parse_off(std::string_view text) { return text == "0" || text == "off" || text == "false" || text == "no"; }

std::optional<std::chrono::nanoseconds> parse_seconds(std::string_view text) {
  const std::string copy(text);  // strtod needs the terminating NUL
  char* end = nullptr;
  const double seconds = std::strtod(copy.c_str(), &end);
  if (end == copy.c_str() || *end != '\0' || !(seconds > 0.0 && seconds < 1e9)) return std::nullopt;
  return std::chrono::nanoseconds(int64_t(seconds * 1e9));
}

std::vector<std::string> parse_list(std::string_view text) {
  std::vector<std::string> items;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    if (std::string_view item = text.substr(0, comma); !item.empty()) items.emplace_back(item);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
  }
  return items;
}

std::optional<unsigned> parse_count(std::string_view text, unsigned max) {
  const std::string copy(text);
  const long n = std::strtol(copy.c_str(), nullptr, 10);
  if (n < 1) return std::nullopt;
  return unsigned(std::min<long>(n, long(max)));
}

std::optional<std::string> get(const char* name) {
  if (const char* value = std::getenv(name)) return std::string(value);
  return std::nullopt;
}

std::optional<std::string> get_nonempty(const char* name) {
  std::optional<std::string> value = get(name);
  if (value && value->empty()) return std::nullopt;
  return value;
}

namespace {
bool flag(const char* name) { return parse_flag(get(name).value_or("")); }
}  // namespace

std::optional<std::string> device() { return get_nonempty("WASMGPU_DEVICE"); }

bool validation() { return flag("WASMGPU_VALIDATION"); }

std::optional<std::chrono::nanoseconds> launch_timeout() {
  std::optional<std::string> text = get("WASMGPU_LAUNCH_TIMEOUT");
  return text ? parse_seconds(*text) : std::nullopt;
}

std::optional<std::chrono::nanoseconds> compile_timeout() {
  std::optional<std::string> text = get("WASMGPU_COMPILE_TIMEOUT");
  return text ? parse_seconds(*text) : std::nullopt;
}

std::optional<bool> pipeline_warmup() {
  std::optional<std::string> text = get("WASMGPU_PIPELINE_WARMUP");
  if (text == "1") return true;
  if (text == "0") return false;
  return std::nullopt;
}

bool pipeline_statistics() { return flag("WASMGPU_PIPELINE_STATISTICS"); }

std::string pipeline_ir_directory() { return get("WASMGPU_PIPELINE_IR").value_or(""); }

std::vector<std::string> hidden_features() { return parse_list(get("WASMGPU_HIDE_FEATURES").value_or("")); }

std::vector<std::string> probe_force() { return parse_list(get("WASMGPU_PROBE_FORCE").value_or("")); }

std::optional<std::string> cache_setting() { return get("WASMGPU_CACHE"); }

bool cache_off() {
  std::optional<std::string> text = cache_setting();
  return text && parse_off(*text);
}

std::optional<std::string> cache_directory() { return get_nonempty("WASMGPU_CACHE_DIR"); }

std::optional<std::string> cache_max_size() { return get_nonempty("WASMGPU_CACHE_MAX_SIZE"); }

std::optional<unsigned> bench_threads() {
  std::optional<std::string> text = get("WASMGPU_BENCH_THREADS");
  return text ? parse_count(*text, 1024) : std::nullopt;
}

std::optional<unsigned> cpu_threads() {
  const std::optional<std::string> text = get_nonempty("WASMGPU_CPU_THREADS");
  return text ? parse_count(*text, 1024) : std::nullopt;
}

bool autotune() {
  std::optional<std::string> text = get("WASMGPU_AUTOTUNE");
  return !(text && parse_off(*text));
}

bool bench_trace() { return flag("WASMGPU_BENCH_TRACE"); }

bool trap_sites() { return flag("WASMGPU_TRAP_SITES"); }

std::optional<Progress> progress() {
  const std::optional<std::string> text = get_nonempty("WASMGPU_PROGRESS");
  if (!text) return std::nullopt;
  if (parse_off(*text)) return Progress::Off;
  return *text == "always" ? Progress::Always : Progress::On;
}

std::optional<uint64_t> inline_budget() {
  const std::optional<std::string> text = get_nonempty("WASMGPU_INLINE_BUDGET");
  if (!text || text->size() > 19 || text->find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return std::stoull(*text);
}

namespace {

std::optional<uint64_t> byte_count(const char* name) {
  std::optional<std::string> text = get_nonempty(name);
  if (!text) return std::nullopt;
  uint64_t scale = 1;
  if (text->back() == 'k' || text->back() == 'K') scale = 1024;
  if (text->back() == 'm' || text->back() == 'M') scale = 1024 * 1024;
  if (scale != 1) text->pop_back();
  if (text->empty() || text->size() > 12 || text->find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  return std::stoull(*text) * scale;
}

}  // namespace

std::optional<uint64_t> print_buffer_bytes() { return byte_count("WASMGPU_PRINT_BUFFER"); }

std::optional<uint64_t> heap_bytes() { return byte_count("WASMGPU_HEAP"); }

bool print_invocation() {
  std::optional<std::string> text = get("WASMGPU_PRINT_INVOCATION");
  return text && parse_flag(*text);
}

std::optional<std::string> xdg_cache_home() {
  std::optional<std::string> value = get("XDG_CACHE_HOME");
  if (value && value->starts_with('/')) return value;
  return std::nullopt;
}

std::optional<std::string> home() { return get_nonempty("HOME"); }

std::string vulkan_loader_settings() {
  std::string settings;
  for (const char* name : {"VK_DRIVER_FILES", "VK_ICD_FILENAMES", "VK_ADD_DRIVER_FILES", "VK_LAYER_PATH",
                           "VK_ADD_LAYER_PATH", "VK_INSTANCE_LAYERS", "VK_LOADER_DRIVERS_SELECT",
                           "VK_LOADER_DRIVERS_DISABLE", "VK_LOADER_LAYERS_ENABLE", "VK_LOADER_LAYERS_DISABLE"})
    settings += std::string("\n") + name + "=" + get(name).value_or("");
  return settings;
}

}  // namespace wasmgpu::environment
