// wasmgpu call IN.wasm FUNC [ARGS...] [--tuples FILE]: vectorised calls of an
// exported function, one invocation per argument tuple.
#include <fmt/core.h>

#include <chrono>
#include <fstream>
#include <sstream>

#include "cli/cache_options.h"
#include "cli/cli_support.h"
#include "cli/commands.h"
#include "cli/call_stack_depth_option.h"
#include "cli/heap_option.h"
#include "cli/trap_sites_option.h"
#include "cli/float_mode_option.h"
#include "cli/value_text.h"
#include "cli/wait_notice.h"
#include "wasmgpu/device.hpp"

namespace wasmgpu::cli {
namespace {

struct CallArgs {
  std::string input;
  std::string function;
  std::vector<std::string> args;
  std::optional<std::string> tuples_file;
  std::optional<std::string> device;
  double timeout_seconds = 60;
  spirv::CompileOptions compile_options;
  CacheCliOptions cache;
  PrintCliOptions print;
  std::optional<std::string> heap;  // --heap
};

std::vector<Value> parse_tuple(const std::vector<std::string>& words, const wasm::FuncType& type,
                               const std::string& where) {
  if (words.size() != type.params.size())
    fail(fmt::format("{}: the function takes {} argument{} {}, got {}", where, type.params.size(),
                     type.params.size() == 1 ? "" : "s", signature_text(type), words.size()));
  std::vector<Value> values;
  for (size_t i = 0; i < words.size(); ++i) {
    auto value = parse_value(words[i], type.params[i]);
    if (!value)
      fail(fmt::format("{}: argument {} ('{}') is not a valid {}", where, i + 1, words[i],
                       wasm::to_string(type.params[i])));
    values.push_back(*value);
  }
  return values;
}

void run_call(const CallArgs& args) {
  const wasm::Module parsed = load_module_or_fail(args.input);
  const wasm::Export* exported = parsed.find_export(args.function, wasm::ExternalKind::Func);
  if (!exported) fail(fmt::format("{}: no exported function named '{}'", args.input, args.function));
  const wasm::FuncType& type = parsed.function_type(exported->index);

  std::vector<std::vector<Value>> tuples;
  if (args.tuples_file) {
    if (!args.args.empty()) fail("give the arguments either on the command line or with --tuples, not both");
    std::ifstream in(*args.tuples_file);
    if (!in) fail(fmt::format("cannot open '{}'", *args.tuples_file));
    std::string line;
    for (size_t number = 1; std::getline(in, line); ++number) {
      if (auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
      std::istringstream words_in(line);
      std::vector<std::string> words;
      for (std::string w; words_in >> w;) words.push_back(w);
      if (words.empty()) continue;                               // blank or comment line
      if (words.size() == 1 && words[0] == "()") words.clear();  // a call without arguments
      tuples.push_back(parse_tuple(words, type, fmt::format("{}:{}", *args.tuples_file, number)));
    }
    if (tuples.empty()) fail(fmt::format("'{}' holds no argument tuples", *args.tuples_file));
  } else {
    tuples.push_back(parse_tuple(args.args, type, "arguments"));
  }

  LoadedModule loaded = load_on_device_or_fail(args.input, args.device, args.compile_options, args.cache.cache,
                                               args.cache.verbose, args.print, args.heap);
  std::vector<CallResult> results;
  try {
    WaitNotice notice("the calls of " + args.function, loaded.device.info());
    results = loaded.module.call(args.function, tuples, timeout_of(args.timeout_seconds));
  } catch (const Exception& e) {
    fail(args.input + ": " + e.what());
  }
  size_t trapped = 0;
  for (const CallResult& result : results) {
    if (result.trapped) {
      ++trapped;
      fmt::print("trap: {}\n", result.trap);
      if (!result.trap_site.empty()) fmt::print("  in {}\n", result.trap_site);
      continue;
    }
    std::string line;
    for (const Value& value : result.values) {
      if (!line.empty()) line += ' ';
      line += format_value(value);
    }
    fmt::print("{}\n", line);
  }
  std::fflush(stdout);
  if (args.cache.verbose) fmt::print(stderr, "{}\n", cache_report(loaded.device.cache_stats()));
  fail_on_validation_messages();
  if (trapped > 0)
    fail(fmt::format("{} of {} call{} trapped", trapped, results.size(), results.size() == 1 ? "" : "s"));
}

}  // namespace

void add_call_command(CLI::App& app) {
  auto args = std::make_shared<CallArgs>();
  CLI::App* cmd = app.add_subcommand("call", "Call an exported function on the device, once per argument tuple");
  cmd->footer(
      "Any exported function with i32/i64/f32/f64 parameters and results can be called.\n"
      "All tuples run in one launch, one invocation each, in no defined order.\n"
      "Values are parsed by the parameter types: 42, -7, 0xff, 2.5, 0x1.8p3, inf, -inf,\n"
      "nan, nan:0x200000. Put `--` before arguments that start with '-' but are not numbers\n"
      "(like -inf). --tuples FILE reads one tuple per line (whitespace-separated; '#' starts a\n"
      "comment; a line `()` is a call without arguments). Prints one line per tuple: the results, space-separated, or "
      "`trap: KIND`;\n"
      "exits with status 1 when any call trapped.\n"
      "Example: wasmgpu call math.wasm add 1 2\n"
      "         wasmgpu call math.wasm add --tuples pairs.txt");
  cmd->add_option("input", args->input, "The wasm module")->required();
  cmd->add_option("function", args->function, "The exported function to call")->required();
  cmd->add_option("args", args->args, "One value per parameter");
  cmd->add_option("--tuples", args->tuples_file, "Read argument tuples from FILE, one per line");
  cmd->add_option("--device", args->device, kDeviceOptionHelp);
  cmd->add_option("--timeout", args->timeout_seconds, "Seconds to wait for the launch")->check(CLI::PositiveNumber);
  add_float_mode_option(cmd, &args->compile_options);
  add_call_stack_depth_option(cmd, &args->compile_options);
  add_trap_sites_option(cmd, &args->compile_options);
  add_cache_options(cmd, &args->cache);
  add_print_options(cmd, &args->print);
  add_heap_option(cmd, &args->heap);
  cmd->callback([args] { run_call(*args); });
}

}  // namespace wasmgpu::cli
