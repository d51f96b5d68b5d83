// wasmgpu selftest: the device self-test (wasmgpu/selftest.hpp) with its report.
#include <fmt/core.h>

#include <chrono>
#include <cstdio>

#include "cli/cli_support.h"
#include "cli/commands.h"
#include "support/sha256.h"
#include "wasmgpu/device.hpp"
#include "wasmgpu/selftest.hpp"

namespace wasmgpu::cli {
namespace {

struct SelftestArgs {
  std::optional<std::string> device;
  bool quiet = false;
};

void print_line(const SelftestLine& l) {
  const char* result = l.handling == "absent" ? "-" : l.correct ? "right" : "WRONG";
  std::string note;
  if (!l.how.empty()) note = "(" + l.how + ")";
  auto add = [&](const std::string& part) {
    if (part.empty()) return;
    if (!note.empty()) note += "; ";
    note += part;
  };
  add(l.raw_detail);
  add(l.wasm_detail);
  if (l.forced) add("raw forced by WASMGPU_PROBE_FORCE");
  fmt::print("{:<18} {:<8} {:<8} {:<6} {:>5}  {}\n", l.property, l.raw, l.handling, result, l.cases, note);
}

void run_selftest(const SelftestArgs& options) {
  const auto start = std::chrono::steady_clock::now();
  wasmgpu::SelftestOptions probe_options;
  std::optional<Device> device;
  try {
    probe_options.force = selftest_force_from_environment();
    DeviceOptions device_options;
    device_options.name = options.device;
    device.emplace(Device::open(device_options));
  } catch (const Exception& e) {
    fail(e.what());
  }
  const DeviceInfo& info = device->info();
  const std::string cpu = host_cpu_features();
  fmt::print("device {} ({}), host CPU features {}\n", info.name, info.driver, to_hex(sha256(cpu)).substr(0, 16));

  if (!options.quiet)
    probe_options.progress = [](const std::string& text) { fmt::print(stderr, "selftest: {}\n", text); };
  std::optional<SelftestReport> report;
  try {
    report.emplace(selftest(*device, probe_options));
  } catch (const Exception& e) {
    fail(std::string("device probe: ") + e.what());
  }

  auto controls = [](bool on) {
    return on ? "with exact mode's float controls" : "plain (the device lacks exact mode's float controls)";
  };
  fmt::print("raw f32 shader {}, raw f64 shader {}\n", controls(report->raw_float_controls[0]),
             controls(report->raw_float_controls[1]));
  fmt::print("{:<18} {:<8} {:<8} {:<6} {:>5}  {}\n", "property", "raw", "wasmgpu", "result", "cases", "notes");
  size_t wrong_raw = 0, routed_around = 0;
  for (const SelftestLine& l : report->lines) {
    print_line(l);
    const bool raw_wrong = l.raw == "wrong" || l.raw == "flushed";
    wrong_raw += raw_wrong;
    routed_around += raw_wrong && l.correct && l.handling != "native";
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print("probe results: {}\n", report->cache);
  if (report->all_correct()) {
    fmt::print(
        "selftest passed in {:.1f} s: every result wasmgpu gave is right ({} raw properties wrong, {} of them routed "
        "around or refused)\n",
        seconds, wrong_raw, routed_around);
    return;
  }
  std::fflush(stdout);
  fail(fmt::format("selftest failed in {:.1f} s: wasmgpu gave wrong results (the lines marked WRONG)", seconds));
}

}  // namespace

void add_selftest_command(CLI::App& app) {
  auto options = std::make_shared<SelftestArgs>();
  CLI::App* cmd = app.add_subcommand("selftest", "Probe the device's instructions and check wasmgpu's results");
  cmd->footer(
      "Runs each edge case twice: through the device's raw instruction (a GLSL shader; float ones\n"
      "under exact mode's float controls where the device offers them) and through a wasm module\n"
      "that wasmgpu compiles (exact float mode). One line per property:\n"
      "  raw      what the raw instruction gave: right or wrong (subnormals: kept or flushed),\n"
      "           absent when the device lacks or hides the feature (no f64, no subgroups)\n"
      "  wasmgpu  native: wasmgpu uses that instruction; routed: another lowering (in parentheses);\n"
      "           refused: the runtime refuses such kernels, naming the property; absent\n"
      "  result   right when every result wasmgpu gave is wasm's (a refusal naming the property\n"
      "           counts as right), WRONG otherwise\n"
      "  notes    the lowering of routed lines, the first wrong raw results (and how many),\n"
      "           the first wrong wasmgpu result or the refusal\n"
      "Properties: f32/f64 arith (+ - * on normal values), div, sqrt, subnormals, trunc, floor,\n"
      "ceil, nearest, convert (to and from integers at the edges); i32/i64 shift (counts >= width),\n"
      "div (unsigned with the top bit set, signed), rem_s (INT_MIN rem -1), mul; atomic_add (many\n"
      "invocations on one word), subgroup_ops, workgroup_barrier.\n"
      "The raw results are cached per device, driver and host CPU (WASMGPU_CACHE_DIR, see\n"
      "docs/selftest.md); the runtime routes by them: a device found flushing f64 subnormals gets\n"
      "the integer path, one found getting barriers wrong has barrier kernels refused.\n"
      "WASMGPU_PROBE_FORCE=f64_trunc,f64_subnormals (property names) substitutes wrong raw results,\n"
      "to test the routing on any device. Exit status 0 when every wasmgpu result is right.");
  cmd->add_option("--device", options->device, kDeviceOptionHelp);
  cmd->add_flag("-q,--quiet", options->quiet, "No progress lines on stderr");
  cmd->callback([options] { run_selftest(*options); });
}

}  // namespace wasmgpu::cli
