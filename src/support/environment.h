// The environment variables wasmgpu reads, each parsed here and documented
// (README.md, "Environment", lists them for users). This is the only code
// that calls getenv. Every function reads the variable when it is called, so
// a change (setenv in a test) shows at the next call; callers that want a
// value fixed for the process keep it themselves.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wasmgpu::environment {

// ---------------------------------------------------------------- parsing

// "1", "yes", anything set and non-empty but "0": on.
bool parse_flag(std::string_view text);
// "0", "off", "false", "no": a cache turned off.
bool parse_off(std::string_view text);
// The whole text a number of seconds, > 0 and < 1e9 ("0.5", "1e-9").
std::optional<std::chrono::nanoseconds> parse_seconds(std::string_view text);
// "a,b,,c" -> {"a", "b", "c"}: empty items are dropped.
std::vector<std::string> parse_list(std::string_view text);
// A decimal count >= 1 (trailing text ignored), at most `max`.
std::optional<unsigned> parse_count(std::string_view text, unsigned max);

// ---------------------------------------------------------------- raw access

// The variable's value, nullopt when unset.
std::optional<std::string> get(const char* name);
// The value when set and not empty.
std::optional<std::string> get_nonempty(const char* name);

// ---------------------------------------------------------------- wasmgpu's variables

// WASMGPU_DEVICE: the default device, an index or part of a name (non-empty).
std::optional<std::string> device();
// WASMGPU_VALIDATION: a flag; the Khronos validation layer.
bool validation();
// WASMGPU_LAUNCH_TIMEOUT: seconds a launch waits for its kernel.
std::optional<std::chrono::nanoseconds> launch_timeout();
// WASMGPU_COMPILE_TIMEOUT: seconds a pipeline warm-up waits for the driver's compile.
std::optional<std::chrono::nanoseconds> compile_timeout();
// WASMGPU_PIPELINE_WARMUP: "1" true, "0" false, anything else nullopt (the driver decides).
std::optional<bool> pipeline_warmup();
// WASMGPU_PIPELINE_STATISTICS: a flag; print every pipeline's driver statistics.
bool pipeline_statistics();
// WASMGPU_PIPELINE_IR: where the drivers' internal representations go ("" when unset: nowhere).
std::string pipeline_ir_directory();
// WASMGPU_HIDE_FEATURES: device features to hide ("float64", "images", ...).
std::vector<std::string> hidden_features();
// WASMGPU_PROBE_FORCE: device-probe properties to see as wrong (the probe
// checks the names).
std::vector<std::string> probe_force();
// WASMGPU_CACHE: true when it turns the caches off; its text, for the reason, is cache_setting().
bool cache_off();
std::optional<std::string> cache_setting();
// WASMGPU_CACHE_DIR: the cache directory (non-empty).
std::optional<std::string> cache_directory();
// WASMGPU_CACHE_MAX_SIZE: the cache's size bound, unparsed ("512M"; non-empty).
std::optional<std::string> cache_max_size();
// WASMGPU_AUTOTUNE: false when it turns the launch-shape autotuner off ("0",
// "off", "false", "no"): launches without a workgroup size get the device
// heuristic only, deterministically.
bool autotune();
// WASMGPU_BENCH_THREADS: host threads of the bench (1..1024).
std::optional<unsigned> bench_threads();
// WASMGPU_CPU_THREADS: worker threads of the cpu device (1..1024).
std::optional<unsigned> cpu_threads();
// WASMGPU_BENCH_TRACE: a flag; the bench's phase times on stderr.
bool bench_trace();
// WASMGPU_INLINE_BUDGET: the instructions a shader may reach with every call
// inlined before its costliest functions are kept out of line
// (spirv/inline_budget.h); "0" keeps none out of line. nullopt when unset or
// not a whole decimal number.
std::optional<uint64_t> inline_budget();
// WASMGPU_PROGRESS: the CLI's notice while a long first launch runs: a false
// flag ("0", "off", ...) turns it off, "always" shows it from the start
// (logs, tests), anything else turns it on after 2 s; nullopt when unset (then
// it is on where standard error is a terminal).
enum class Progress : uint8_t { Off, On, Always };
std::optional<Progress> progress();
// WASMGPU_PRINT_BUFFER: bytes of a module's print buffer (printf, puts,
// fd_write from kernels): a decimal count, optionally with k, K, m, M (KiB,
// MiB); nullopt when unset or not such a number.
std::optional<uint64_t> print_buffer_bytes();
// WASMGPU_HEAP: bytes of a module's device heap (malloc, Rust's alloc,
// AssemblyScript's new), as WASMGPU_PRINT_BUFFER's count; nullopt when unset
// or not such a number.
std::optional<uint64_t> heap_bytes();
// WASMGPU_PRINT_INVOCATION: a flag; each printed line starts with "[N] ",
// the invocation index that printed it.
bool print_invocation();
// WASMGPU_TRAP_SITES: a flag; wasm modules are compiled to record where a
// kernel traps (ModuleOptions::trap_sites).
bool trap_sites();

// ---------------------------------------------------------------- other programs' variables

// XDG_CACHE_HOME when absolute (relative values are invalid: XDG Base Directory).
std::optional<std::string> xdg_cache_home();
// HOME (non-empty).
std::optional<std::string> home();
// The variables the Vulkan loader reads when it creates an instance (which
// drivers and layers): "\nNAME=value" for each, unset ones as "\nNAME=".
std::string vulkan_loader_settings();

}  // namespace wasmgpu::environment
