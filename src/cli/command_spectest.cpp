// wasmgpu spectest FILE.wast...: runs WebAssembly spec-test scripts on the
// device. Each script is converted with wast2json; its modules are loaded in
// order, its invocations run as vectorised calls and compared bit-exactly.
#include <fmt/core.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <set>

#include "cli/cache_options.h"
#include "cli/call_stack_depth_option.h"
#include "cli/cli_support.h"
#include "cli/commands.h"
#include "cli/spectest_script.h"
#include "cli/value_text.h"
#include "wasm/decoder.h"
#include "wasmgpu/device.hpp"

namespace wasmgpu::cli {
namespace {

namespace fs = std::filesystem;

struct SpecArgs {
  std::vector<std::string> files;
  spirv::CompileOptions compile_options;
  CacheCliOptions cache;
  std::optional<std::string> deviations_file;
  std::optional<std::string> device;
  size_t max_details = 10;
  std::string wast2json = "wast2json";
  // WebAssembly 3.0 proposals wast2json must parse (`--enable-<name>`), e.g. tail-call.
  std::vector<std::string> wast2json_features;
  double launch_timeout = 20;  // seconds per launch
  double file_timeout = 300;   // seconds per script
};

// The values the spec interpreter's `spectest` module exports.
std::optional<uint64_t> spectest_global(const std::string& name) {
  if (name == "global_i32" || name == "global_i64") return 666;
  if (name == "global_f32") {
    const float v = 666.6f;
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    return bits;
  }
  if (name == "global_f64") {
    const double v = 666.6;
    uint64_t bits;
    std::memcpy(&bits, &v, 8);
    return bits;
  }
  return std::nullopt;
}

// The trap an assert_trap message names, as CallResult::trap names it.
std::optional<std::string> trap_named_by(const std::string& text) {
  static const std::pair<const char*, const char*> traps[] = {
      {"unreachable", "unreachable executed"},
      {"out of bounds memory access", "out of bounds memory access"},
      {"integer divide by zero", "integer divide by zero"},
      {"integer overflow", "integer overflow"},
      {"invalid conversion to integer", "invalid conversion to integer"},
      {"call stack exhausted", "call stack exhausted"},
      {"indirect call type mismatch", "indirect call type mismatch"},
      {"undefined element", "undefined element"},
      {"out of bounds table access", "out of bounds table access"},
      {"uninitialized element", "uninitialized element"},
  };
  for (const auto& [prefix, trap] : traps)
    if (text.rfind(prefix, 0) == 0) return std::string(trap);
  return std::nullopt;
}

std::string one_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// A device's refusal as a skip reason: its first line with the quoted names
// of exports and functions left out, so that refusals for one reason count
// together.
std::string refusal_reason(const std::string& message) {
  static const std::regex quoted("'[^']*'");
  return "refused by the device: " + std::regex_replace(one_line(message), quoted, "'…'");
}

bool matches(const ExpectedValue& expected, const Value& actual) {
  if (expected.type != wasm_type(actual.type)) return false;
  const bool is_f32 = expected.type == wasm::ValType::F32;
  const uint64_t quiet_nan = is_f32 ? 0x7FC0'0000ull : 0x7FF8'0000'0000'0000ull;
  const uint64_t magnitude = is_f32 ? 0x7FFF'FFFFull : 0x7FFF'FFFF'FFFF'FFFFull;
  switch (expected.kind) {
    case ExpectedValue::Kind::Bits: return expected.bits == actual.bits;
    case ExpectedValue::Kind::CanonicalNan: return (actual.bits & magnitude) == quiet_nan;
    case ExpectedValue::Kind::ArithmeticNan: return (actual.bits & quiet_nan) == quiet_nan;
  }
  return false;
}

// A v128 lane's bits out of the two i64 halves of a call's v128 value.
uint64_t v128_lane(uint64_t low, uint64_t high, uint32_t lane_bits, size_t i) {
  const uint32_t at = uint32_t(i) * lane_bits;
  const uint64_t half = at < 64 ? low : high;
  const uint64_t mask = lane_bits == 64 ? ~uint64_t(0) : (uint64_t(1) << lane_bits) - 1;
  return (half >> (at % 64)) & mask;
}

// Whether `actual` (a call's values, a v128 as two i64 values) is what
// `expected` lists, each lane of a v128 matched as a scalar of its type.
bool matches_all(const std::vector<ExpectedValue>& expected, const std::vector<Value>& actual) {
  size_t at = 0;
  for (const ExpectedValue& e : expected) {
    if (e.type != wasm::ValType::V128) {
      if (at >= actual.size() || !matches(e, actual[at])) return false;
      ++at;
      continue;
    }
    if (at + 1 >= actual.size() || actual[at].type != ScalarType::I64 || actual[at + 1].type != ScalarType::I64)
      return false;
    for (size_t i = 0; i < e.lanes.size(); ++i) {
      const ExpectedValue& lane = e.lanes[i];
      const uint64_t bits = v128_lane(actual[at].bits, actual[at + 1].bits, e.lane_bits, i);
      const ScalarType t = lane.type == wasm::ValType::F32   ? ScalarType::F32
                           : lane.type == wasm::ValType::F64 ? ScalarType::F64
                           : lane.type == wasm::ValType::I64 ? ScalarType::I64
                                                             : ScalarType::I32;
      if (!matches(lane, Value{t, bits})) return false;
    }
    at += 2;
  }
  return at == actual.size();
}

std::string expected_text(const ExpectedValue& e);

std::string v128_text(const ExpectedValue& e) {
  std::string text =
      "v128:" + (e.lanes.empty() ? std::string("?") : e.lanes[0].type_name) + "x" + std::to_string(e.lanes.size());
  for (const ExpectedValue& lane : e.lanes) {
    const std::string t = expected_text(lane);
    text += " " + t.substr(t.find(':') + 1);
  }
  return text;
}

std::string expected_text(const ExpectedValue& e) {
  if (e.type == wasm::ValType::V128) return v128_text(e);
  if (e.kind == ExpectedValue::Kind::CanonicalNan) return e.type_name + ":nan:canonical";
  if (e.kind == ExpectedValue::Kind::ArithmeticNan) return e.type_name + ":nan:arithmetic";
  return e.type_name + ":" + format_value(wasm_value(e.type, e.bits));
}

std::string value_list(const std::vector<Value>& values) {
  std::string text;
  for (const Value& v : values) {
    if (!text.empty()) text += ' ';
    text += std::string(type_name(v)) + ":" + format_value(v);
  }
  return text.empty() ? "()" : text;
}

// One module instance of a script.
struct ScriptInstance {
  std::optional<Module> module;
  std::string skip_reason;  // its assertions are skipped, for this reason
  std::string load_error;   // it failed to load: its assertions fail
  // The spectest host functions it imports ("spectest.print_i32"): the
  // module loads, and invoking an export the device refuses because it
  // reaches one of them is a skip.
  std::vector<std::string> host_functions;
};

struct FileReport {
  size_t passed = 0, failed = 0, skipped = 0;
  std::map<std::string, size_t> skip_reasons;
  std::vector<std::string> details;
  std::vector<std::string> stale_deviations;
};

// Runs a program without a shell; its stderr goes to `log`. Returns its exit status.
int run_program(const std::vector<std::string>& argv, const std::string& log) {
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    FILE* out = std::freopen(log.c_str(), "w", stderr);
    (void)out;
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    std::fprintf(stderr, "cannot run %s: %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

class ScriptRunner {
 public:
  ScriptRunner(Device& device, const SpecArgs& args, const std::set<std::string>& deviations,
               std::chrono::steady_clock::time_point deadline)
      : device_(device), args_(args), deviations_(deviations), deadline_(deadline) {}

  FileReport run(const Script& script, const fs::path& dir) {
    name_ = fs::path(script.source).filename().string();
    dir_ = dir;
    for (size_t i = 0; i < script.commands.size(); ++i) {
      const ScriptCommand& cmd = script.commands[i];
      using T = ScriptCommand::Type;
      switch (cmd.type) {
        case T::Module:
          flush();
          load(cmd);
          break;
        case T::Register:
          flush();
          registered_[cmd.as] = cmd.name;
          registered_instances_[cmd.as] = cmd.name.empty() ? current_ : named_[cmd.name];
          break;
        case T::Action:
        case T::AssertReturn:
        case T::AssertTrap:
        case T::AssertExhaustion: invoke(cmd); break;
        case T::AssertMalformed:
        case T::AssertInvalid: check_rejected(cmd); break;
        case T::AssertUninstantiable: check_uninstantiable(cmd); break;
        case T::AssertUnlinkable: skip(cmd, "instantiation and linking failures are not checked"); break;
        case T::Other: skip(cmd, "unknown command " + cmd.type_name); break;
      }
    }
    flush();
    instances_.clear();
    named_.clear();
    registered_instances_.clear();
    return std::move(report_);
  }

 private:
  struct Pending {
    const ScriptCommand* cmd;
    bool pure;
  };

  std::string where(const ScriptCommand& cmd) const { return name_ + ":" + std::to_string(cmd.line); }
  bool deviation(const ScriptCommand& cmd) const { return deviations_.count(where(cmd)) > 0; }

  void skip(const ScriptCommand& cmd, const std::string& reason) {
    if (cmd.type == ScriptCommand::Type::Module || cmd.type == ScriptCommand::Type::Register) return;
    ++report_.skipped;
    ++report_.skip_reasons[reason];
  }
  void pass(const ScriptCommand& cmd) {
    if (cmd.type == ScriptCommand::Type::Action) return;
    ++report_.passed;
    if (deviation(cmd)) report_.stale_deviations.push_back(where(cmd));
  }
  void failure(const ScriptCommand& cmd, const std::string& what) {
    if (deviation(cmd)) {
      ++report_.skipped;
      ++report_.skip_reasons["expected deviation (docs/deviations.md)"];
      return;
    }
    ++report_.failed;
    if (report_.details.size() < args_.max_details) report_.details.push_back(where(cmd) + ": " + what);
  }

  std::string call_text(const ScriptCommand& cmd) const {
    std::string text = cmd.type_name + " " + cmd.action.field + "(";
    for (size_t i = 0; i < cmd.action.args.size(); ++i) {
      if (i) text += ", ";
      text += expected_text(cmd.action.args[i]);
    }
    return text + ")";
  }

  // A module that imports from another instance is not instantiated, so
  // what its instantiation would have written into the memories and tables
  // it imports (active data and element segments, a start function) is
  // missing there: the exporting instance's later assertions would check a
  // state the script never meant. They are skipped, naming why.
  void taint_exporters(const wasm::Module& importer) {
    uint32_t memory = 0, table = 0;
    for (const wasm::Import& import : importer.imports) {
      bool written = false;
      if (import.kind == wasm::ExternalKind::Memory) {
        for (const wasm::DataSegment& segment : importer.data)
          written = written || (segment.mode == wasm::DataSegment::Mode::Active && segment.memory == memory);
        ++memory;
      } else if (import.kind == wasm::ExternalKind::Table) {
        for (const wasm::ElementSegment& segment : importer.elements)
          written = written || (segment.mode == wasm::ElementSegment::Mode::Active && segment.table == table);
        ++table;
      } else if (import.kind == wasm::ExternalKind::Global) {
        written = import.global.is_mutable;
      }
      written = written || (importer.start.has_value() && import.kind != wasm::ExternalKind::Func);
      auto exporter = registered_instances_.find(import.module);
      if (!written || exporter == registered_instances_.end() || !exporter->second ||
          !exporter->second->skip_reason.empty())
        continue;
      exporter->second->skip_reason =
          "shares state with a later module that writes it when instantiated, which is not linked (linking is not "
          "supported)";
    }
  }

  void load(const ScriptCommand& cmd) {
    auto instance = std::make_shared<ScriptInstance>();
    current_ = instance;
    instances_.push_back(instance);
    if (!cmd.name.empty()) named_[cmd.name] = instance;
    if (cmd.module_type != "binary") {
      instance->skip_reason = "text-format module";
      return;
    }
    auto bytes = read_file((dir_ / cmd.filename).string());
    if (!bytes) {
      instance->load_error = bytes.error().to_string();
      return;
    }
    auto decoded = wasm::decode_and_validate(*bytes);
    if (!decoded) {
      instance->load_error = "module at line " + std::to_string(cmd.line) + " rejected: " + decoded.error().to_string();
      return;
    }
    std::vector<uint64_t> globals;
    for (const wasm::Import& import : decoded->imports) {
      const std::string name = import.module + "." + import.name;
      if (import.module != "spectest") {
        instance->skip_reason = "imports from another module instance (linking is not supported)";
        taint_exporters(*decoded);
        return;
      }
      switch (import.kind) {
        case wasm::ExternalKind::Func: instance->host_functions.push_back(name); break;
        case wasm::ExternalKind::Table: instance->skip_reason = "imports table " + name + " (not supported)"; return;
        case wasm::ExternalKind::Memory: break;  // the module gets its own memory of that size
        case wasm::ExternalKind::Global: {
          auto value = spectest_global(import.name);
          if (!value) {
            instance->load_error = "unknown import " + name;
            return;
          }
          globals.push_back(*value);
          break;
        }
      }
    }
    // A start function runs when the device loads the module: one that traps
    // fails the load (a failure here; assert_uninstantiable expects it).
    ModuleOptions options = module_options(args_.compile_options);
    options.imported_globals = std::move(globals);
    try {
      instance->module.emplace(device_.load(*bytes, options));
    } catch (const Exception& e) {
      if (e.kind() == ErrorKind::Unsupported) {
        instance->skip_reason = refusal_reason(e.what());
        return;
      }
      instance->load_error = "module at line " + std::to_string(cmd.line) + " failed to load: " + e.what();
    }
  }

  // assert_uninstantiable: checked where the module has a start function,
  // which must trap as the loading device runs it (runtime::Module::load);
  // other instantiation failures (segments out of bounds) are not checked.
  void check_uninstantiable(const ScriptCommand& cmd) {
    flush();
    if (cmd.module_type != "binary") return skip(cmd, "text-format module (wasmgpu decodes binaries only)");
    auto bytes = read_file((dir_ / cmd.filename).string());
    if (!bytes) return failure(cmd, bytes.error().to_string());
    auto decoded = wasm::decode_and_validate(*bytes);
    if (!decoded) return failure(cmd, "module rejected: " + decoded.error().to_string());
    if (!decoded->start) return skip(cmd, "instantiation failures without a start function are not checked");
    for (const wasm::Import& import : decoded->imports)
      if (import.module != "spectest" || import.kind != wasm::ExternalKind::Memory)
        return skip(cmd, "a start function's module with imports is not checked");
    try {
      device_.load(*bytes, module_options(args_.compile_options));
    } catch (const Exception& e) {
      if (e.kind() == ErrorKind::Trap) {
        const std::optional<std::string> expected = trap_named_by(cmd.text);
        if (expected && std::string(e.what()).find(*expected) == std::string::npos)
          return failure(cmd, "the start function trapped with another trap: " + one_line(e.what()) + ", expected \"" +
                                  cmd.text + "\"");
        return pass(cmd);
      }
      if (e.kind() == ErrorKind::Unsupported) return skip(cmd, refusal_reason(e.what()));
      return failure(cmd, "the module failed to load without a trap: " + one_line(e.what()));
    }
    failure(cmd, "the module was instantiated, expected its start function to trap (\"" + cmd.text + "\")");
  }

  void check_rejected(const ScriptCommand& cmd) {
    if (cmd.module_type != "binary") {
      skip(cmd, "text-format module (wasmgpu decodes binaries only)");
      return;
    }
    auto bytes = read_file((dir_ / cmd.filename).string());
    if (!bytes) return failure(cmd, bytes.error().to_string());
    auto decoded = wasm::decode_and_validate(*bytes);
    if (decoded.ok()) return failure(cmd, cmd.type_name + ": the module was accepted, expected \"" + cmd.text + "\"");
    pass(cmd);
  }

  void invoke(const ScriptCommand& cmd) {
    std::shared_ptr<ScriptInstance> instance = current_;
    if (!cmd.action.module.empty()) {
      auto it = named_.find(cmd.action.module);
      instance = it == named_.end() ? nullptr : it->second;
    }
    if (cmd.action.field.empty() && !cmd.filename.empty())
      return skip(cmd, "traps during instantiation are not checked");
    if (!instance) return failure(cmd, "no module to invoke");
    if (!instance->skip_reason.empty()) return skip(cmd, "module " + instance->skip_reason);
    if (!instance->load_error.empty()) return failure(cmd, instance->load_error);
    if (cmd.action.type == ScriptAction::Type::Get) return skip(cmd, "reading exported globals is not supported");
    for (const ExpectedValue& v : cmd.action.args)
      if (!v.supported) return skip(cmd, v.type_name + " values are not supported");
    if (cmd.type == ScriptCommand::Type::AssertReturn) {
      for (const ExpectedValue& v : cmd.expected)
        if (!v.supported) return skip(cmd, v.type_name + " values are not supported");
      for (const std::vector<ExpectedValue>& alternative : cmd.either)
        for (const ExpectedValue& v : alternative)
          if (!v.supported) return skip(cmd, v.type_name + " values are not supported");
    }
    bool pure = false;
    try {
      pure = !instance->module->function_info(cmd.action.field).has_side_effects;
    } catch (const Exception& e) {
      // An export that reaches a host function cannot run on a device (the
      // front end refuses it, naming the import): a skip.
      for (const std::string& host : instance->host_functions)
        if (one_line(e.what()).find(host) != std::string::npos)
          return skip(cmd, "calls host function " + host + " (not supported)");
      // What the device refuses by design (Unsupported) is a skip with the
      // device's reason; any other error fails the assertion.
      if (e.kind() == ErrorKind::Unsupported) return skip(cmd, refusal_reason(e.what()));
      return failure(cmd, call_text(cmd) + ": " + one_line(e.what()));
    }
    // One launch runs consecutive side-effect-free calls of one export: each
    // export then gets a small call shader of its own, which lavapipe builds
    // much faster than one holding several (call_indirect.wast from a cold
    // shader cache: 12 s this way, 54 s with every export of a run in one).
    if (!pending_.empty() &&
        (!pure || batch_instance_ != instance.get() || pending_.back().cmd->action.field != cmd.action.field))
      flush();
    pending_.push_back(Pending{&cmd, pure});
    batch_instance_ = instance.get();
    if (!pure) flush();
  }

  // Runs the pending calls in one launch and checks them.
  void flush() {
    if (pending_.empty()) return;
    std::vector<Call> requests;
    for (const Pending& p : pending_) {
      Call request{p.cmd->action.field, {}};
      for (const ExpectedValue& v : p.cmd->action.args) {
        if (v.type == wasm::ValType::V128) {  // two i64 halves (Module::function_info lists them)
          request.args.push_back(Value::i64(v.bits));
          request.args.push_back(Value::i64(v.bits_hi));
        } else {
          request.args.push_back(wasm_value(v.type, v.bits));
        }
      }
      requests.push_back(std::move(request));
    }
    ScriptInstance* instance = batch_instance_;
    std::vector<Pending> pending = std::move(pending_);
    pending_.clear();
    pending_.clear();
    std::vector<CallResult> results;
    try {
      results = instance->module->call(requests, timeout_of(args_.launch_timeout));
    } catch (const Exception& e) {
      for (const Pending& p : pending) failure(*p.cmd, call_text(*p.cmd) + ": " + one_line(e.what()));
      wait_for_device();
      return;
    }
    for (size_t i = 0; i < pending.size(); ++i) check(*pending[i].cmd, results[i]);
  }

  // After a launch that timed out (a slow pipeline compile, or a call that
  // really runs long), waits for it while the script's time allows, so that
  // the later commands run instead of all failing on a busy device. The
  // launch's calls have taken effect once it finishes, as the script expects.
  void wait_for_device() {
    const auto left = deadline_ - std::chrono::steady_clock::now();
    if (left <= std::chrono::steady_clock::duration::zero()) return;
    try {
      device_.wait_idle(std::chrono::duration_cast<std::chrono::nanoseconds>(left));
    } catch (const Exception&) {
      // Still busy at the deadline: the later commands fail on their own.
    }
  }

  void check(const ScriptCommand& cmd, const CallResult& result) {
    using T = ScriptCommand::Type;
    if (cmd.type == T::AssertTrap || cmd.type == T::AssertExhaustion) {
      const auto kind =
          cmd.type == T::AssertExhaustion ? trap_named_by("call stack exhausted") : trap_named_by(cmd.text);
      if (!result.trapped)
        return failure(cmd,
                       call_text(cmd) + ": expected trap \"" + cmd.text + "\", returned " + value_list(result.values));
      if (!kind || *kind != result.trap)
        return failure(cmd, call_text(cmd) + ": expected trap \"" + cmd.text + "\", trapped: " + result.trap);
      return pass(cmd);
    }
    if (result.trapped) return failure(cmd, call_text(cmd) + ": trapped: " + result.trap);
    if (cmd.type == T::Action) return;
    auto listed = [](const std::vector<ExpectedValue>& values) {
      std::string text;
      for (const ExpectedValue& e : values) text += (text.empty() ? "" : " ") + expected_text(e);
      return text.empty() ? std::string("()") : text;
    };
    if (!cmd.either.empty()) {
      // (either ...): any one alternative, each compared as `expected` is.
      std::string alternatives;
      for (const std::vector<ExpectedValue>& alternative : cmd.either) {
        if (matches_all(alternative, result.values)) return pass(cmd);
        alternatives += (alternatives.empty() ? "" : " or ") + listed(alternative);
      }
      return failure(cmd, call_text(cmd) + ": expected either " + alternatives + ", got " + value_list(result.values));
    }
    if (matches_all(cmd.expected, result.values)) return pass(cmd);
    failure(cmd, call_text(cmd) + ": expected " + listed(cmd.expected) + ", got " + value_list(result.values));
  }

  Device& device_;
  const SpecArgs& args_;
  const std::set<std::string>& deviations_;
  const std::chrono::steady_clock::time_point deadline_;
  std::string name_;
  fs::path dir_;
  FileReport report_;
  std::vector<std::shared_ptr<ScriptInstance>> instances_;
  std::map<std::string, std::shared_ptr<ScriptInstance>> named_;
  std::map<std::string, std::string> registered_;
  std::map<std::string, std::shared_ptr<ScriptInstance>> registered_instances_;  // by the name registered
  std::shared_ptr<ScriptInstance> current_;
  std::vector<Pending> pending_;
  ScriptInstance* batch_instance_ = nullptr;
};

// Entries of a deviations list: bullet lines that start with `FILE.wast:LINE`.
std::set<std::string> read_deviations(const std::string& path) {
  std::ifstream in(path);
  if (!in) fail(fmt::format("cannot open deviations list '{}'", path));
  std::set<std::string> entries;
  static const std::regex entry(R"(^\s*[-*]\s+`([A-Za-z0-9_.\-]+\.wast:[0-9]+)`)");
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, entry)) entries.insert(m[1]);
  }
  return entries;
}

struct FileOutcome {
  size_t passed = 0, failed = 0, skipped = 0;
  std::vector<std::string> stale;
  // What the caches did (for --verbose).
  uint64_t compiles = 0, cache_hits = 0, pipelines = 0, pipeline_cache_hits = 0;
  double compile_seconds = 0, cache_read_seconds = 0;
};

// Runs one script on a device of its own and prints its report lines.
FileOutcome run_file(const SpecArgs& args, const std::set<std::string>& deviations, const std::string& file,
                     const fs::path& dir) {
  FileOutcome outcome;
  const std::string name = fs::path(file).filename().string();
  const auto start = std::chrono::steady_clock::now();
  const std::string json = (dir / "script.json").string();
  const std::string log = (dir / "wast2json.log").string();
  std::vector<std::string> convert = {args.wast2json, file, "-o", json};
  for (const std::string& feature : args.wast2json_features) convert.push_back("--enable-" + feature);
  if (run_program(convert, log) != 0) {
    fmt::print("{}: FAILED: wast2json could not convert it: {}\n", name, first_line(log));
    outcome.failed = 1;
    return outcome;
  }
  auto script = parse_script_json(json, file);
  if (!script) {
    fmt::print("{}: FAILED: {}\n", name, script.error().to_string());
    outcome.failed = 1;
    return outcome;
  }
  DeviceOptions device_options;
  device_options.name = args.device;
  device_options.cache = args.cache.cache;
  // Never destroyed: this runs in a child process that ends with _exit, and
  // closing the Device would wait for a launch that timed out.
  Device* device = new Device(open_device_or_fail(device_options, false));
  // Leaves a tenth of the script's time for reporting after waiting on a
  // timed-out launch (run_file_isolated kills the script at file_timeout).
  const auto deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                    std::chrono::duration<double>(0.9 * args.file_timeout));
  ScriptRunner runner(*device, args, deviations, deadline);
  FileReport report = runner.run(*script, dir);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::string line = fmt::format("{}: {} passed, {} failed", name, report.passed, report.failed);
  if (report.skipped > 0) {
    line += fmt::format(", {} skipped (", report.skipped);
    bool first = true;
    for (const auto& [reason, count] : report.skip_reasons) {
      line += fmt::format("{}{}: {}", first ? "" : "; ", reason, count);
      first = false;
    }
    line += ")";
  }
  fmt::print("{} [{:.1f} s]\n", line, seconds);
  for (const std::string& detail : report.details) fmt::print("  {}\n", detail);
  if (report.failed > report.details.size())
    fmt::print("  ... {} more failure(s) (raise --max-details to see them)\n", report.failed - report.details.size());
  const size_t messages = validation_messages().size();
  if (messages > 0) {
    fmt::print("  {}: the Vulkan validation layer reported {} message(s)\n", name, messages);
    ++report.failed;
  }
  // The Device is never destroyed (see above), so its pipeline cache is
  // saved here.
  device->save_caches();
  const CacheStats cache = device->cache_stats();
  outcome.compiles = cache.spirv_compiles;
  outcome.cache_hits = cache.spirv_cache_hits;
  outcome.pipelines = cache.pipelines_created;
  outcome.pipeline_cache_hits = cache.pipeline_cache_hits;
  outcome.compile_seconds = cache.spirv_compile_seconds;
  outcome.cache_read_seconds = cache.spirv_cache_read_seconds;
  outcome.passed = report.passed;
  outcome.failed = report.failed;
  outcome.skipped = report.skipped;
  outcome.stale = std::move(report.stale_deviations);
  return outcome;
}

// Runs run_file in a child process, so that a launch that never finishes (a
// kernel in an endless loop cannot be stopped on every device) costs only its
// file: the child is killed after `file_timeout` seconds.
FileOutcome run_file_isolated(const SpecArgs& args, const std::set<std::string>& deviations, const std::string& file,
                              const fs::path& dir) {
  std::fflush(stdout);
  const std::string name = fs::path(file).filename().string();
  const fs::path result_path = dir / "outcome.txt";
  const pid_t pid = fork();
  if (pid < 0) fail(fmt::format("fork failed: {}", std::strerror(errno)));
  if (pid == 0) {
    int status = 0;
    try {
      FileOutcome outcome = run_file(args, deviations, file, dir);
      std::ofstream out(result_path);
      out << outcome.passed << ' ' << outcome.failed << ' ' << outcome.skipped << ' ' << outcome.compiles << ' '
          << outcome.cache_hits << ' ' << outcome.pipelines << ' ' << outcome.pipeline_cache_hits << ' '
          << outcome.compile_seconds << ' ' << outcome.cache_read_seconds << '\n';
      for (const std::string& s : outcome.stale) out << s << '\n';
    } catch (const CommandError& e) {
      fmt::print("{}: FAILED: {}\n", name, e.message);
      status = 1;
    }
    std::fflush(stdout);
    // Leave without destructors: a timed-out launch may still hold the device.
    _exit(status);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(args.file_timeout);
  int status = 0;
  bool finished = false;
  while (true) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) {
      finished = true;
      break;
    }
    if (done < 0 || std::chrono::steady_clock::now() > deadline) break;
    usleep(20'000);
  }
  FileOutcome outcome;
  if (!finished) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    fmt::print("{}: FAILED: did not finish within {} s (killed)\n", name, args.file_timeout);
    outcome.failed = 1;
    return outcome;
  }
  std::ifstream in(result_path);
  if (!in ||
      !(in >> outcome.passed >> outcome.failed >> outcome.skipped >> outcome.compiles >> outcome.cache_hits >>
        outcome.pipelines >> outcome.pipeline_cache_hits >> outcome.compile_seconds >> outcome.cache_read_seconds)) {
    if (!WIFEXITED(status) || WEXITSTATUS(status) == 0)
      fmt::print("{}: FAILED: its process ended without a report\n", name);
    outcome = FileOutcome{};
    outcome.failed = 1;
    return outcome;
  }
  for (std::string s; in >> s;) outcome.stale.push_back(s);
  return outcome;
}

void run_spectest(const SpecArgs& args) {
  std::set<std::string> deviations;
  if (args.deviations_file) deviations = read_deviations(*args.deviations_file);
  for (const std::string& file : args.files)
    if (!fs::exists(file)) fail(fmt::format("cannot open '{}'", file));

  std::string pattern = (fs::temp_directory_path() / "wasmgpu-spectest-XXXXXX").string();
  if (!mkdtemp(pattern.data())) fail(fmt::format("cannot create a temporary directory: {}", std::strerror(errno)));
  const fs::path temp = pattern;
  struct Cleanup {
    fs::path dir;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } cleanup{temp};

  size_t passed = 0, failed = 0, skipped = 0;
  FileOutcome cache_totals;
  std::vector<std::string> stale;
  for (size_t index = 0; index < args.files.size(); ++index) {
    const fs::path dir = temp / std::to_string(index);
    fs::create_directories(dir);
    FileOutcome outcome = run_file_isolated(args, deviations, args.files[index], dir);
    passed += outcome.passed;
    failed += outcome.failed;
    skipped += outcome.skipped;
    cache_totals.compiles += outcome.compiles;
    cache_totals.cache_hits += outcome.cache_hits;
    cache_totals.pipelines += outcome.pipelines;
    cache_totals.pipeline_cache_hits += outcome.pipeline_cache_hits;
    cache_totals.compile_seconds += outcome.compile_seconds;
    cache_totals.cache_read_seconds += outcome.cache_read_seconds;
    stale.insert(stale.end(), outcome.stale.begin(), outcome.stale.end());
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  if (!stale.empty()) {
    fmt::print("{} listed deviation(s) now pass; remove them from the list:", stale.size());
    for (const std::string& s : stale) fmt::print(" {}", s);
    fmt::print("\n");
  }
  if (args.cache.verbose) {
    DeviceOptions cache_options;
    cache_options.cache = args.cache.cache;
    const CacheLocation location = cache_location(cache_options);
    fmt::print(
        stderr,
        "{}: {} compiled to SPIR-V ({:.1f} s), {} from cache ({:.1f} s reading the cache); "
        "pipelines: {} created, {} found in the pipeline cache\n",
        location.directory.empty() ? "cache off (" + location.disabled_reason + ")" : "cache " + location.directory,
        cache_totals.compiles, cache_totals.compile_seconds, cache_totals.cache_hits, cache_totals.cache_read_seconds,
        cache_totals.pipelines, cache_totals.pipeline_cache_hits);
  }
  std::string last = fmt::format("{} passed, {} failed", passed, failed);
  if (skipped > 0) last += fmt::format(", {} skipped", skipped);
  fmt::print("{}\n", last);
  std::fflush(stdout);
  if (failed > 0) throw CommandError{fmt::format("{} spec assertion(s) failed", failed)};
}

}  // namespace

void add_spectest_command(CLI::App& app) {
  auto args = std::make_shared<SpecArgs>();
  CLI::App* cmd = app.add_subcommand("spectest", "Run WebAssembly spec-test scripts (.wast) on the device");
  cmd->footer(
      "Each script is converted with wast2json (wabt) into a temporary directory. Its modules are\n"
      "instantiated in order; assert_return, assert_trap and assert_exhaustion run on the device and\n"
      "are compared bit-exactly (nan:canonical / nan:arithmetic as the spec defines them; an\n"
      "`(either ...)` result, as relaxed SIMD's scripts write, passes if any alternative matches); actions run\n"
      "in script order and change state. Calls that cannot observe each other (no side effects) share\n"
      "one launch; a launch that exceeds --timeout fails its assertions, and the script waits for\n"
      "it to finish before going on. assert_malformed / assert_invalid with binary modules pass when\n"
      "the decoder or validator rejects the module; text-format ones are skipped, as are modules that import host\n"
      "functions, tables or other instances. Prints a line per file, failures with the script line,\n"
      "and as the last line `N passed, N failed[, N skipped]`; exits with status 1 on any failure.\n"
      "--deviations FILE: assertions listed there (bullet lines starting `FILE.wast:LINE`) that fail\n"
      "count as skipped instead; ones that pass are reported so the list can shrink.");
  cmd->add_option("files", args->files, "The .wast scripts")->required();
  cmd->add_option("--deviations", args->deviations_file, "List of expected deviations (docs/deviations.md)");
  cmd->add_option("--max-details", args->max_details, "Failures shown per file (default 10)");
  cmd->add_option("--wast2json", args->wast2json, "The wast2json program (default: wast2json on PATH)");
  cmd->add_option("--enable", args->wast2json_features,
                  "A proposal wast2json must parse, passed as --enable-FEATURE (tail-call, relaxed-simd, "
                  "multi-memory, memory64); repeatable")
      ->type_name("FEATURE")
      ->allow_extra_args(false);  // one feature per --enable: the scripts that follow are files
  cmd->add_option("--timeout", args->launch_timeout, "Seconds to wait for one launch (default 20)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--file-timeout", args->file_timeout,
                  "Seconds one script may take before it is stopped and fails (default 300)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--device", args->device, kDeviceOptionHelp);
  add_call_stack_depth_option(cmd, &args->compile_options);
  add_cache_options(cmd, &args->cache);
  cmd->callback([args] { run_spectest(*args); });
}

}  // namespace wasmgpu::cli
