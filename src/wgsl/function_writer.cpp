#include "wgsl/function_writer.h"

#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <optional>
#include <vector>

#include "abi/launch_abi.h"
#include "frontend/intrinsic_catalog.h"
#include "wasm/opcode.h"
#include "wgsl/branch_targets.h"
#include "wgsl/wgsl_abi.h"

namespace wasmgpu::wgsl {

using wasm::Instr;
using wasm::Opcode;
using wasm::ValType;

// Not "f" + index: f16, f32 and f64 are WGSL types.
std::string function_symbol(uint32_t index) { return "func" + std::to_string(index); }

const char* value_type(ValType type) {
  switch (type) {
    case ValType::I32: return "u32";
    case ValType::I64: return "vec2<u32>";  // low word, high word (i64_helpers.h)
    case ValType::F32: return "f32";
    case ValType::F64: return "vec2<u32>";  // its bits, low word first (f64_helpers.h)
    default: return nullptr;
  }
}

namespace {

constexpr int kMaxNesting = 120;

std::string zero_of(ValType type) {
  if (type == ValType::I64 || type == ValType::F64) return "vec2<u32>(0u, 0u)";
  return type == ValType::F32 ? "0.0f" : "0u";
}

std::string u32_literal(uint32_t value) { return fmt::format("0x{:x}u", value); }

// A wasm label while its construct is written. A label that some branch
// targets is a WGSL `loop`; one that none targets is written inline (a block
// or loop) or as a plain `if`.
struct Label {
  enum class Kind : uint8_t { Function, Block, Loop, If };
  Kind kind = Kind::Block;
  bool targeted = false;
  uint32_t id = 0;  // the value of `pending` that names it (targeted labels)
  std::vector<ValType> params, results;
  std::vector<std::string> param_vars;   // a targeted loop's: the values a branch back carries
  std::vector<std::string> result_vars;  // the values its end leaves (WGSL scopes close there)
  std::vector<std::string> if_params;    // an if's parameters, for its else arm
  size_t height = 0;                     // stack height below the parameters
  bool else_seen = false;
  bool then_reachable_end = false;  // an if whose then arm reached its end
  bool passed_through = false;      // a pending branch left its WGSL loop outward
  // A targeted loop leaves at its next branch back once the invocation has
  // trapped (`break if trapped`), unless it holds a barrier: Tint would take
  // that exit as non-uniform, and the uniformity check proved that a trapped
  // invocation takes the same iterations as the others (uniformity.h).
  bool trapped_exit = true;
};

class FunctionWriter {
 public:
  FunctionWriter(const wasm::Module& module, uint32_t index, const BarrierFacts& barriers, FunctionUses& uses)
      : module_(module),
        index_(index),
        function_(module.functions.at(index - module.imported_functions)),
        type_(module.function_type(index)),
        barriers_(barriers),
        uses_(uses) {}

  Result<std::string> write();

 private:
  Error refuse(const std::string& why) const {
    return make_error(ErrorCode::Unsupported,
                      fmt::format("function '{}' {}: not handled by the WGSL back end yet (docs/webgpu.md)",
                                  module_.function_name(index_), why));
  }
  Status check_type(ValType type, const std::string& where) const {
    if (value_type(type)) return {};
    return refuse(fmt::format("has {} {}", wasm::to_string(type), where));
  }

  void line(const std::string& text) {
    max_indent_ = std::max(max_indent_, indent_);
    body_ += std::string(2 * indent_, ' ') + text + "\n";
    terminated_ = false;
  }
  // A statement after which nothing at this level runs.
  void terminator(const std::string& text) {
    line(text);
    terminated_ = true;
  }
  std::string fresh(const std::string& prefix) { return prefix + std::to_string(next_name_++); }
  std::string declare(ValType type, const std::string& prefix) {
    std::string name = fresh(prefix);
    decls_ += fmt::format("  var {}: {};\n", name, value_type(type));
    return name;
  }
  void push_let(const std::string& expr) {
    std::string name = fresh("t");
    line(fmt::format("let {} = {};", name, expr));
    stack_.push_back(name);
  }
  std::string pop() {
    std::string value = std::move(stack_.back());
    stack_.pop_back();
    return value;
  }
  void assign(const std::vector<std::string>& vars) {
    for (size_t i = 0; i < vars.size(); ++i)
      line(fmt::format("{} = {};", vars[i], stack_[stack_.size() - vars.size() + i]));
  }
  void emit_return();
  void emit_branch(uint32_t depth);
  void close_wgsl_loop(Label& label);
  void write_br_table(const std::string& selector, const std::map<uint32_t, std::vector<size_t>>& cases,
                      uint32_t default_depth);

  Status open(const Instr& instr, size_t at);
  Status close(const Instr& instr);
  Status write_instr(const Instr& instr);
  Status write_call(uint32_t callee);
  Status write_intrinsic(uint32_t callee, const wasm::Import& import);
  Status write_sync_intrinsic(uint32_t callee, const wasm::Import& import);
  Status write_atomic(const Instr& instr);
  // A call of atomic_helpers.h's helper, its value (u32) pushed unless it stores.
  void atomic_call(AtomicHelper helper, const std::vector<std::string>& args);

  const wasm::Module& module_;
  uint32_t index_;
  const wasm::Function& function_;
  const wasm::FuncType& type_;
  const BarrierFacts& barriers_;
  FunctionUses& uses_;
  std::vector<bool> targeted_;  // per instruction index
  std::vector<Label> labels_;
  std::vector<std::string> stack_;
  std::string decls_, body_;
  int indent_ = 1;
  int max_indent_ = 1;
  uint32_t next_name_ = 0;
  uint32_t next_label_id_ = 1;
  bool dead_ = false;        // after br, br_table, return or unreachable, until the construct ends
  uint32_t dead_depth_ = 0;  // constructs opened inside dead code
  bool terminated_ = false;
  bool uses_pending_ = false;
  uint64_t memory_pages_ = 0;
};

void FunctionWriter::emit_return() {
  const auto& results = type_.results;
  if (results.empty()) return terminator("return;");
  if (results.size() == 1) return terminator("return " + stack_.back() + ";");
  std::string values;
  for (size_t i = 0; i < results.size(); ++i) values += (i ? ", " : "") + stack_[stack_.size() - results.size() + i];
  terminator(fmt::format("return {}_result({});", function_symbol(index_), values));
}

void FunctionWriter::emit_branch(uint32_t depth) {
  const size_t target = labels_.size() - 1 - depth;
  Label& label = labels_[target];
  if (label.kind == Label::Kind::Function) return emit_return();
  assign(label.kind == Label::Kind::Loop ? label.param_vars : label.result_vars);
  size_t innermost = labels_.size() - 1;
  while (!labels_[innermost].targeted) --innermost;  // the target itself is targeted
  if (innermost == target) return terminator(label.kind == Label::Kind::Loop ? "continue;" : "break;");
  for (size_t i = target + 1; i < labels_.size(); ++i)
    if (labels_[i].targeted) labels_[i].passed_through = true;
  uses_pending_ = true;
  line(fmt::format("pending = {}u;", label.id));
  terminator("break;");
}

// A `switch` whose arms name their target in `pending` (a chain of `if`s
// would nest one level per target, and WGSL compilers stop at 127); after
// it, a branch to the innermost WGSL loop completes and any other leaves it
// as a pending branch does. Arms that return, return.
void FunctionWriter::write_br_table(const std::string& selector, const std::map<uint32_t, std::vector<size_t>>& cases,
                                    uint32_t default_depth) {
  size_t innermost = labels_.size() - 1;
  while (innermost > 0 && !labels_[innermost].targeted) --innermost;
  bool to_innermost = false;
  auto arm = [&](uint32_t depth) {
    ++indent_;
    const size_t target = labels_.size() - 1 - depth;
    Label& label = labels_[target];
    if (label.kind == Label::Kind::Function) {
      emit_return();
    } else {
      assign(label.kind == Label::Kind::Loop ? label.param_vars : label.result_vars);
      line(fmt::format("pending = {}u;", label.id));
      if (target == innermost) {
        to_innermost = true;
      } else {
        for (size_t i = target + 1; i < labels_.size(); ++i)
          if (labels_[i].targeted) labels_[i].passed_through = true;
      }
    }
    --indent_;
  };
  uses_pending_ = true;
  line(fmt::format("switch {} {{", selector));
  ++indent_;
  for (const auto& [depth, values] : cases) {
    std::string selectors;
    for (size_t value : values) selectors += fmt::format("{}{}u", selectors.empty() ? "" : ", ", value);
    line(fmt::format("case {}: {{", selectors));
    arm(depth);
    line("}");
  }
  line("default: {");
  arm(default_depth);
  line("}");
  --indent_;
  line("}");
  if (to_innermost) {
    const Label& label = labels_[innermost];
    line(fmt::format("if (pending == {}u) {{", label.id));
    ++indent_;
    line("pending = 0u;");
    line(label.kind == Label::Kind::Loop ? "continue;" : "break;");
    --indent_;
    line("}");
  }
  terminator("break;");
}

// After the `}` of a targeted label's WGSL loop: a branch that left it for
// a label further out goes on to the next WGSL loop outward, or completes
// there when that loop is its target.
void FunctionWriter::close_wgsl_loop(Label& label) {
  if (!label.passed_through) return;
  size_t outer = labels_.size() - 1;  // `label` is already popped
  while (!labels_[outer].targeted) --outer;
  const Label& next = labels_[outer];
  const char* complete = next.kind == Label::Kind::Loop ? "continue;" : "break;";
  line("if (pending != 0u) {");
  ++indent_;
  if (next.passed_through) {
    line(fmt::format("if (pending == {}u) {{", next.id));
    ++indent_;
    line("pending = 0u;");
    line(complete);
    --indent_;
    line("}");
    line("break;");
  } else {
    line("pending = 0u;");
    line(complete);
  }
  --indent_;
  line("}");
}

Status FunctionWriter::open(const Instr& instr, size_t at) {
  Label label;
  label.kind = instr.op == Opcode::Block  ? Label::Kind::Block
               : instr.op == Opcode::Loop ? Label::Kind::Loop
                                          : Label::Kind::If;
  label.targeted = targeted_[at];
  if (label.targeted) label.id = next_label_id_++;
  if (instr.op == Opcode::Loop && barriers_.is_barrier_loop(index_, at)) label.trapped_exit = false;
  if (instr.block.kind == wasm::BlockType::Kind::Value) {
    label.results.push_back(instr.block.value);
  } else if (instr.block.kind == wasm::BlockType::Kind::TypeIndex) {
    const wasm::FuncType& type = module_.types.at(instr.block.type_index);
    label.params = type.params;
    label.results = type.results;
  }
  for (ValType type : label.params) WASMGPU_TRY(check_type(type, "as a block parameter"));
  for (ValType type : label.results) WASMGPU_TRY(check_type(type, "as a block result"));
  std::string condition;
  if (label.kind == Label::Kind::If) condition = pop();
  label.height = stack_.size() - label.params.size();
  const bool needs_result_vars = label.targeted || label.kind == Label::Kind::If;
  if (needs_result_vars)
    for (ValType type : label.results) label.result_vars.push_back(declare(type, "r"));
  switch (label.kind) {
    case Label::Kind::Block:
      if (label.targeted) {
        line("loop {");
        ++indent_;
      }
      break;
    case Label::Kind::Loop:
      if (label.targeted) {
        for (ValType type : label.params) label.param_vars.push_back(declare(type, "p"));
        assign(label.param_vars);
        stack_.resize(label.height);
        line("loop {");
        ++indent_;
        for (const std::string& var : label.param_vars) push_let(var);
      }
      break;
    case Label::Kind::If:
      label.if_params.assign(stack_.begin() + label.height, stack_.end());
      if (label.targeted) {
        line("loop {");
        ++indent_;
      }
      line(fmt::format("if ({} != 0u) {{", condition));
      ++indent_;
      break;
    case Label::Kind::Function: break;
  }
  labels_.push_back(std::move(label));
  return {};
}

Status FunctionWriter::close(const Instr& instr) {
  Label& label = labels_.back();
  const bool reachable = !dead_;
  if (instr.op == Opcode::Else) {
    if (reachable) assign(label.result_vars);
    label.then_reachable_end = reachable;
    label.else_seen = true;
    --indent_;
    line("} else {");
    ++indent_;
    stack_.resize(label.height);
    stack_.insert(stack_.end(), label.if_params.begin(), label.if_params.end());
    dead_ = false;
    return {};
  }
  // `end`
  if (label.kind == Label::Kind::Function) {
    if (reachable) {
      emit_return();
    } else if (!terminated_) {
      for (ValType type : type_.results) stack_.push_back(zero_of(type));
      emit_return();
    }
    labels_.pop_back();
    return {};
  }
  bool after_reachable = reachable;
  switch (label.kind) {
    case Label::Kind::Block:
      if (label.targeted) {
        if (reachable) assign(label.result_vars);
        if (!terminated_) terminator("break;");
        --indent_;
        line("}");
        after_reachable = true;
      }
      break;
    case Label::Kind::Loop:
      if (label.targeted) {
        if (reachable) assign(label.result_vars);
        if (!terminated_) terminator("break;");
        if (label.trapped_exit) {
          line("continuing {");
          line("  break if trapped;");
          line("}");
        }
        --indent_;
        line("}");
      }
      break;
    case Label::Kind::If: {
      if (reachable) assign(label.result_vars);
      --indent_;
      if (!label.else_seen && !label.result_vars.empty()) {
        line("} else {");
        ++indent_;
        for (size_t i = 0; i < label.result_vars.size(); ++i)
          line(fmt::format("{} = {};", label.result_vars[i], label.if_params[i]));
        --indent_;
      }
      line("}");
      after_reachable = reachable || !label.else_seen || label.then_reachable_end;
      if (label.targeted) {
        terminator("break;");
        --indent_;
        line("}");
        after_reachable = true;
      }
      break;
    }
    case Label::Kind::Function: break;
  }
  Label closed = std::move(labels_.back());
  labels_.pop_back();
  if (closed.targeted) close_wgsl_loop(closed);
  if (!closed.result_vars.empty()) {
    stack_.resize(closed.height);
    for (const std::string& var : closed.result_vars) {
      if (after_reachable) {
        push_let(var);
      } else {
        stack_.push_back(var);
      }
    }
  } else {
    // An untargeted block or loop leaves its results where they are; after
    // a dead end the code that follows is dead too, and placeholders keep
    // the stack's height.
    const size_t height = closed.height + closed.results.size();
    stack_.resize(std::min(stack_.size(), height));
    stack_.resize(height, "0u");
  }
  dead_ = !after_reachable;
  return {};
}

void FunctionWriter::atomic_call(AtomicHelper helper, const std::vector<std::string>& args) {
  uses_.atomics.insert(helper);
  std::string list;
  for (const std::string& arg : args) list += (list.empty() ? "" : ", ") + arg;
  std::string call = fmt::format("{}({})", atomic_helper_name(helper), list);
  if (helper.op == AtomicOp::Store) {
    line(call + ";");
  } else {
    push_let(call);
  }
}

// The threads proposal's instructions (0xFE): loads, stores and
// read-modify-writes of 1, 2 and 4 bytes through atomic_helpers.h, notify
// (no invocation waits: 0 after the checks), fence as a barrier.
Status FunctionWriter::write_atomic(const Instr& instr) {
  const wasm::OpcodeInfo& info = wasm::info(instr.op);
  if (instr.op == Opcode::AtomicFence) {
    // WGSL has no fence: a control barrier orders this invocation's storage
    // and workgroup accesses for the workgroup (uniformity.h proved every
    // invocation reaches it). docs/webgpu.md, "Memory order".
    line("storageBarrier();");
    line("workgroupBarrier();");
    return {};
  }
  const uint32_t width = info.access.bytes;
  if (width == 8) return refuse("uses " + std::string(info.text) + " (64-bit atomics: WGSL has only 32-bit ones)");
  AtomicOp op;
  size_t operands = 1;
  switch (info.access.kind) {
    case wasm::AccessKind::Load: op = AtomicOp::Load, operands = 0; break;
    case wasm::AccessKind::Store: op = AtomicOp::Store; break;
    case wasm::AccessKind::Add: op = AtomicOp::Add; break;
    case wasm::AccessKind::Sub: op = AtomicOp::Sub; break;
    case wasm::AccessKind::And: op = AtomicOp::And; break;
    case wasm::AccessKind::Or: op = AtomicOp::Or; break;
    case wasm::AccessKind::Xor: op = AtomicOp::Xor; break;
    case wasm::AccessKind::Exchange: op = AtomicOp::Exchange; break;
    case wasm::AccessKind::CompareExchange: op = AtomicOp::CompareExchange, operands = 2; break;
    case wasm::AccessKind::Notify: op = AtomicOp::Notify; break;
    default: return refuse("uses " + std::string(info.text));
  }
  // The value moved is an i64 for the i64.* forms: its low word here.
  const bool is_i64 = (info.results.empty() ? info.params[info.params.size() - 1] : info.results[0]) == ValType::I64;
  std::vector<std::string> values;
  for (size_t i = 0; i < operands; ++i) values.insert(values.begin(), pop());
  std::string address = pop();
  std::vector<std::string> args{address, fmt::format("{}u", instr.imm1)};
  if (op == AtomicOp::Notify) {
    values.clear();  // the count of waiters to wake: none wait
  }
  for (const std::string& value : values) args.push_back(is_i64 ? value + ".x" : value);
  atomic_call({op, uint8_t(width)}, args);
  if (op != AtomicOp::Store && is_i64) {
    std::string low = pop();
    push_let(fmt::format("vec2<u32>({}, 0u)", low));
  }
  return {};
}

Status FunctionWriter::write_intrinsic(uint32_t callee, const wasm::Import& import) {
  const std::string& name = import.name;
  auto dimension = [&](const std::string& vector, const std::string& outside, const std::string& x_base) {
    std::string d = pop();
    std::string value = fmt::format("{}[min({}, 2u)]", vector, d);
    if (!x_base.empty()) value = fmt::format("{} + select(0u, {}, {} == 0u)", value, x_base, d);
    push_let(fmt::format("select({}, {}, {} < 3u)", outside, value, d));
  };
  if (name == "global_id") {
    dimension("id_global", "0u", fmt::format("launch_word({}u)", kLaunchBaseIndex));
  } else if (name == "local_id") {
    dimension("id_local", "0u", "");
  } else if (name == "workgroup_id") {
    dimension("id_workgroup", "0u", fmt::format("launch_word({}u) / wg_x", kLaunchBaseIndex));
  } else if (name == "workgroup_size") {
    dimension("vec3<u32>(wg_x, wg_y, wg_z)", "1u", "");
  } else if (name == "workgroup_count") {
    // A split 1-D launch counts the whole launch's workgroups in x, as the
    // Vulkan back end does.
    std::string d = pop();
    std::string value = fmt::format("id_workgroups[min({}, 2u)]", d);
    std::string launch_x = fmt::format("(launch_word({}u) + wg_x - 1u) / wg_x", kLaunchCount);
    std::string one_d = fmt::format("{} == 0u && id_workgroups.y * wg_y == 1u && id_workgroups.z * wg_z == 1u", d);
    push_let(fmt::format("select(1u, select({v}, max({v}, {x}), {one}), {d} < 3u)", fmt::arg("v", value),
                         fmt::arg("x", launch_x), fmt::arg("one", one_d), fmt::arg("d", d)));
  } else if (name == "local_index") {
    push_let("id_local_index");
  } else {
    return write_sync_intrinsic(callee, import);
  }
  return {};
}

// Barriers, subgroup operations and the wasmgpu_atomic_* functions.
Status FunctionWriter::write_sync_intrinsic(uint32_t callee, const wasm::Import& import) {
  using K = frontend::IntrinsicKind;
  const frontend::Intrinsic* intrinsic = frontend::find_intrinsic(module_, callee);
  if (!intrinsic) return refuse("calls " + import.module + "." + import.name);
  auto subgroup = [&](const std::string& pattern) {
    uses_.subgroups = true;
    std::string a = pop();
    push_let(fmt::format(fmt::runtime(pattern), fmt::arg("a", a)));
  };
  auto value = [&](const char* name) {
    uses_.subgroups = true;
    push_let(name);
  };
  auto atomic = [&](AtomicOp op) {
    const size_t operands = op == AtomicOp::CompareExchange ? 2 : 1;
    std::vector<std::string> values;
    for (size_t i = 0; i < operands; ++i) values.insert(values.begin(), pop());
    std::string address = pop();
    std::vector<std::string> args{address, "0u"};
    for (const std::string& v : values) args.push_back(op == AtomicOp::AddF32 ? "bitcast<u32>(" + v + ")" : v);
    atomic_call({op, 4}, args);
    if (op == AtomicOp::AddF32) {
      std::string bits = pop();
      push_let("bitcast<f32>(" + bits + ")");
    }
  };
  switch (intrinsic->kind) {
    // wasmgpu.barrier is OpControlBarrier on workgroup memory in the Vulkan
    // back end: workgroupBarrier. The memory barriers have no WGSL form
    // without a control barrier; uniformity.h proved every invocation of
    // the workgroup reaches them (docs/webgpu.md, "Memory order").
    case K::Barrier:
    case K::WorkgroupMemoryBarrier: line("workgroupBarrier();"); return {};
    case K::MemoryBarrier:
      line("storageBarrier();");
      line("workgroupBarrier();");
      return {};
    case K::SubgroupSize: value("id_subgroup_size"); return {};
    case K::SubgroupInvocationId: value("id_subgroup_invocation"); return {};
    case K::SubgroupId: value("id_subgroup"); return {};
    case K::SubgroupCount: value("id_subgroups"); return {};
    // A broadcast is a shuffle, as in the Vulkan back end: WGSL's
    // subgroupBroadcast wants a constant lane.
    case K::SubgroupBroadcast:
    case K::SubgroupShuffle: {
      uses_.subgroups = true;
      std::string lane = pop(), v = pop();
      push_let(fmt::format("subgroupShuffle({}, {})", v, lane));
      return {};
    }
    case K::SubgroupBallot: {
      uses_.subgroups = true;
      std::string predicate = pop();
      std::string ballot = fresh("b");
      line(fmt::format("let {} = subgroupBallot({} != 0u);", ballot, predicate));
      push_let(fmt::format("vec2<u32>({0}.x, {0}.y)", ballot));
      return {};
    }
    case K::SubgroupAll: subgroup("select(0u, 1u, subgroupAll({a} != 0u))"); return {};
    case K::SubgroupAny: subgroup("select(0u, 1u, subgroupAny({a} != 0u))"); return {};
    case K::SubgroupAdd: subgroup("subgroupAdd({a})"); return {};
    case K::SubgroupInclusiveAdd: subgroup("subgroupInclusiveAdd({a})"); return {};
    case K::SubgroupExclusiveAdd: subgroup("subgroupExclusiveAdd({a})"); return {};
    case K::SubgroupMinS: subgroup("bitcast<u32>(subgroupMin(bitcast<i32>({a})))"); return {};
    case K::SubgroupMaxS: subgroup("bitcast<u32>(subgroupMax(bitcast<i32>({a})))"); return {};
    case K::SubgroupMinU:
    case K::SubgroupMinF: subgroup("subgroupMin({a})"); return {};
    case K::SubgroupMaxU:
    case K::SubgroupMaxF: subgroup("subgroupMax({a})"); return {};
    case K::AtomicAdd: atomic(AtomicOp::Add); return {};
    case K::AtomicSub: atomic(AtomicOp::Sub); return {};
    case K::AtomicAnd: atomic(AtomicOp::And); return {};
    case K::AtomicOr: atomic(AtomicOp::Or); return {};
    case K::AtomicXor: atomic(AtomicOp::Xor); return {};
    case K::AtomicMinS: atomic(AtomicOp::MinS); return {};
    case K::AtomicMaxS: atomic(AtomicOp::MaxS); return {};
    case K::AtomicMinU: atomic(AtomicOp::MinU); return {};
    case K::AtomicMaxU: atomic(AtomicOp::MaxU); return {};
    case K::AtomicExchange: atomic(AtomicOp::Exchange); return {};
    case K::AtomicCompareExchange: atomic(AtomicOp::CompareExchange); return {};
    case K::AtomicAddF32: atomic(AtomicOp::AddF32); return {};
    case K::ClockTimeGet:
      return refuse("calls " + import.module + "." + import.name +
                    " (the launch's host clocks are not in the WGSL launch words yet)");
    default: break;
  }
  return refuse("calls wasmgpu." + import.name + " (images are not written yet)");
}

Status FunctionWriter::write_call(uint32_t callee) {
  if (const wasm::Import* import = module_.imported_function(callee)) return write_intrinsic(callee, *import);
  const wasm::FuncType& type = module_.function_type(callee);
  std::string args;
  for (size_t i = 0; i < type.params.size(); ++i)
    args += (i ? ", " : "") + stack_[stack_.size() - type.params.size() + i];
  stack_.resize(stack_.size() - type.params.size());
  std::string call = fmt::format("{}({})", function_symbol(callee), args);
  if (type.results.empty()) {
    line(call + ";");
  } else if (type.results.size() == 1) {
    push_let(call);
  } else {
    std::string all = fresh("c");
    line(fmt::format("let {} = {};", all, call));
    for (size_t i = 0; i < type.results.size(); ++i) push_let(fmt::format("{}.v{}", all, i));
  }
  return {};
}

Status FunctionWriter::write_instr(const Instr& instr) {
  const wasm::OpcodeInfo& info = wasm::info(instr.op);
  for (ValType type : info.params) WASMGPU_TRY(check_type(type, "(" + std::string(info.text) + ")"));
  for (ValType type : info.results) WASMGPU_TRY(check_type(type, "(" + std::string(info.text) + ")"));
  if (info.cls == wasm::OpcodeClass::Atomic) return write_atomic(instr);
  if (info.cls == wasm::OpcodeClass::Vector) return refuse("uses " + std::string(info.text) + " (SIMD)");

  auto binary = [&](const std::string& pattern) {
    std::string b = pop(), a = pop();
    push_let(fmt::format(fmt::runtime(pattern), fmt::arg("a", a), fmt::arg("b", b)));
  };
  auto unary = [&](const std::string& pattern) {
    std::string a = pop();
    push_let(fmt::format(fmt::runtime(pattern), fmt::arg("a", a)));
  };
  auto compare = [&](const std::string& condition) { binary("select(0u, 1u, " + condition + ")"); };
  auto load = [&](const std::string& wrap) {
    std::string address = pop();
    std::string value = fmt::format("load_bytes({}, {}u, {}u)", address, instr.imm1, uint32_t(info.access.bytes));
    push_let(fmt::format(fmt::runtime(wrap), fmt::arg("v", value)));
  };
  auto store = [&](const std::string& wrap) {
    std::string value = pop(), address = pop();
    line(fmt::format("store_bytes({}, {}u, {}u, {});", address, instr.imm1, uint32_t(info.access.bytes),
                     fmt::format(fmt::runtime(wrap), fmt::arg("v", value))));
  };

  switch (instr.op) {
    case Opcode::Nop: return {};
    case Opcode::Unreachable:
      line(fmt::format("trap({}u);", uint32_t(abi::TrapKind::Unreachable)));
      for (ValType type : type_.results) stack_.push_back(zero_of(type));
      emit_return();
      dead_ = true;
      return {};
    case Opcode::Br:
      emit_branch(instr.imm0);
      dead_ = true;
      return {};
    case Opcode::BrIf: {
      std::string condition = pop();
      line(fmt::format("if ({} != 0u) {{", condition));
      ++indent_;
      emit_branch(instr.imm0);
      --indent_;
      line("}");
      return {};
    }
    case Opcode::BrTable: {
      std::string selector = pop();
      const std::vector<uint32_t>& table = function_.br_tables.at(instr.imm0);
      const uint32_t default_depth = table.back();
      std::map<uint32_t, std::vector<size_t>> cases;  // depth -> selector values
      for (size_t i = 0; i + 1 < table.size(); ++i)
        if (table[i] != default_depth) cases[table[i]].push_back(i);
      if (cases.empty()) {
        emit_branch(default_depth);
      } else {
        write_br_table(selector, cases, default_depth);
      }
      dead_ = true;
      return {};
    }
    case Opcode::Return:
      emit_return();
      dead_ = true;
      return {};
    case Opcode::Call: return write_call(instr.imm0);
    // Outside recursion (refused before: wgsl_compiler.cpp) a tail call is a
    // call and a return; the call graph bounds the depth.
    case Opcode::ReturnCall:
      WASMGPU_TRY(write_call(instr.imm0));
      emit_return();
      dead_ = true;
      return {};
    case Opcode::Drop: pop(); return {};
    case Opcode::Select:
    case Opcode::SelectTyped: {
      std::string c = pop(), b = pop(), a = pop();
      push_let(fmt::format("select({}, {}, {} != 0u)", b, a, c));
      return {};
    }
    case Opcode::LocalGet: push_let("l" + std::to_string(instr.imm0)); return {};
    case Opcode::LocalSet: line(fmt::format("l{} = {};", instr.imm0, pop())); return {};
    case Opcode::LocalTee: line(fmt::format("l{} = {};", instr.imm0, stack_.back())); return {};
    case Opcode::GlobalGet: push_let("g" + std::to_string(instr.imm0)); return {};
    case Opcode::GlobalSet: line(fmt::format("g{} = {};", instr.imm0, pop())); return {};

    case Opcode::I32Load: load("{v}"); return {};
    case Opcode::F32Load: load("bitcast<f32>({v})"); return {};
    case Opcode::I32Load8S: load("sign_extend({v}, 8u)"); return {};
    case Opcode::I32Load8U: load("{v}"); return {};
    case Opcode::I32Load16S: load("sign_extend({v}, 16u)"); return {};
    case Opcode::I32Load16U: load("{v}"); return {};
    case Opcode::I32Store:
    case Opcode::I32Store8:
    case Opcode::I32Store16: store("{v}"); return {};
    case Opcode::F32Store: store("bitcast<u32>({v})"); return {};
    case Opcode::MemorySize: push_let(fmt::format("{}u", memory_pages_)); return {};

    // i64 as vec2<u32> (i64_helpers.h): an 8-byte access is two 4-byte ones,
    // the high word's at offset + 4, each checked (a trap stops the rest).
    case Opcode::I64Load:
    case Opcode::F64Load:
    case Opcode::I64Load32U:
    case Opcode::I64Load32S:
    case Opcode::I64Load16U:
    case Opcode::I64Load16S:
    case Opcode::I64Load8U:
    case Opcode::I64Load8S: {
      const uint32_t bytes = uint32_t(info.access.bytes);
      if (bytes == 8 && instr.imm1 > UINT32_MAX - 4) return refuse("uses an 8-byte load with an offset past 2^32 - 4");
      std::string address = pop();
      std::string low = fmt::format("load_bytes({}, {}u, {}u)", address, instr.imm1, std::min(bytes, 4u));
      if (bytes == 8) {
        push_let(fmt::format("vec2<u32>({}, load_bytes({}, {}u, 4u))", low, address, instr.imm1 + 4));
      } else {
        const bool sign =
            instr.op == Opcode::I64Load32S || instr.op == Opcode::I64Load16S || instr.op == Opcode::I64Load8S;
        if (sign && bytes < 4) low = fmt::format("sign_extend({}, {}u)", low, 8 * bytes);
        push_let(sign ? fmt::format("i64_extend_s({})", low) : fmt::format("vec2<u32>({}, 0u)", low));
      }
      return {};
    }
    case Opcode::I64Store:
    case Opcode::F64Store: {
      if (instr.imm1 > UINT32_MAX - 4) return refuse("uses an 8-byte store with an offset past 2^32 - 4");
      std::string value = pop(), address = pop();
      line(fmt::format("store_bytes({}, {}u, 4u, {}.x);", address, instr.imm1, value));
      line(fmt::format("store_bytes({}, {}u, 4u, {}.y);", address, instr.imm1 + 4, value));
      return {};
    }
    case Opcode::I64Store8:
    case Opcode::I64Store16:
    case Opcode::I64Store32: store("{v}.x"); return {};
    case Opcode::I64Const:
      push_let(fmt::format("vec2<u32>({}, {})", u32_literal(uint32_t(instr.imm64)),
                           u32_literal(uint32_t(instr.imm64 >> 32))));
      return {};
    case Opcode::I64Eqz: unary("select(0u, 1u, ({a}.x | {a}.y) == 0u)"); return {};
    case Opcode::I64Eq: compare("all({a} == {b})"); return {};
    case Opcode::I64Ne: compare("any({a} != {b})"); return {};
    case Opcode::I64LtS: compare("i64_lt_s({a}, {b})"); return {};
    case Opcode::I64LtU: compare("i64_lt_u({a}, {b})"); return {};
    case Opcode::I64GtS: compare("i64_lt_s({b}, {a})"); return {};
    case Opcode::I64GtU: compare("i64_lt_u({b}, {a})"); return {};
    case Opcode::I64LeS: compare("!i64_lt_s({b}, {a})"); return {};
    case Opcode::I64LeU: compare("!i64_lt_u({b}, {a})"); return {};
    case Opcode::I64GeS: compare("!i64_lt_s({a}, {b})"); return {};
    case Opcode::I64GeU: compare("!i64_lt_u({a}, {b})"); return {};
    case Opcode::I64Clz: unary("i64_clz({a})"); return {};
    case Opcode::I64Ctz: unary("i64_ctz({a})"); return {};
    case Opcode::I64Popcnt: unary("i64_popcnt({a})"); return {};
    case Opcode::I64Add: binary("i64_add({a}, {b})"); return {};
    case Opcode::I64Sub: binary("i64_sub({a}, {b})"); return {};
    case Opcode::I64Mul: binary("i64_mul({a}, {b})"); return {};
    case Opcode::I64DivS: binary("i64_div_s({a}, {b})"); return {};
    case Opcode::I64DivU: binary("i64_div_u({a}, {b})"); return {};
    case Opcode::I64RemS: binary("i64_rem_s({a}, {b})"); return {};
    case Opcode::I64RemU: binary("i64_rem_u({a}, {b})"); return {};
    case Opcode::I64And: binary("({a} & {b})"); return {};
    case Opcode::I64Or: binary("({a} | {b})"); return {};
    case Opcode::I64Xor: binary("({a} ^ {b})"); return {};
    case Opcode::I64Shl: binary("i64_shl({a}, {b})"); return {};
    case Opcode::I64ShrS: binary("i64_shr_s({a}, {b})"); return {};
    case Opcode::I64ShrU: binary("i64_shr_u({a}, {b})"); return {};
    case Opcode::I64Rotl: binary("i64_rotl({a}, {b})"); return {};
    case Opcode::I64Rotr: binary("i64_rotr({a}, {b})"); return {};
    case Opcode::I64Extend8S: unary("i64_extend_s(sign_extend({a}.x, 8u))"); return {};
    case Opcode::I64Extend16S: unary("i64_extend_s(sign_extend({a}.x, 16u))"); return {};
    case Opcode::I64Extend32S: unary("i64_extend_s({a}.x)"); return {};
    case Opcode::I64ExtendI32S: unary("i64_extend_s({a})"); return {};
    case Opcode::I64ExtendI32U: unary("vec2<u32>({a}, 0u)"); return {};
    case Opcode::I32WrapI64: unary("{a}.x"); return {};
    case Opcode::F32ConvertI64S: unary("f32_from_i64({a})"); return {};
    case Opcode::F32ConvertI64U: unary("f32_from_u64({a})"); return {};
    case Opcode::I64TruncF32S: unary("i64_trunc_f32_s({a})"); return {};
    case Opcode::I64TruncF32U: unary("i64_trunc_f32_u({a})"); return {};
    case Opcode::I64TruncSatF32S: unary("i64_trunc_sat_f32_s({a})"); return {};
    case Opcode::I64TruncSatF32U: unary("i64_trunc_sat_f32_u({a})"); return {};

    // Constants are `let`s: WGSL evaluates expressions of constants when it
    // compiles and rejects those that wrap or give an infinity or a NaN.
    case Opcode::I32Const: push_let(u32_literal(uint32_t(instr.imm64))); return {};
    case Opcode::F32Const: {
      const uint32_t bits = uint32_t(instr.imm64);
      if ((bits & 0x7f800000u) != 0x7f800000u) {
        push_let(fmt::format("bitcast<f32>({})", u32_literal(bits)));
      } else {
        push_let(u32_literal(bits));
        unary("bitcast<f32>({a})");
      }
      return {};
    }

    case Opcode::I32Eqz: unary("select(0u, 1u, {a} == 0u)"); return {};
    case Opcode::I32Eq: compare("{a} == {b}"); return {};
    case Opcode::I32Ne: compare("{a} != {b}"); return {};
    case Opcode::I32LtS: compare("bitcast<i32>({a}) < bitcast<i32>({b})"); return {};
    case Opcode::I32LtU: compare("{a} < {b}"); return {};
    case Opcode::I32GtS: compare("bitcast<i32>({a}) > bitcast<i32>({b})"); return {};
    case Opcode::I32GtU: compare("{a} > {b}"); return {};
    case Opcode::I32LeS: compare("bitcast<i32>({a}) <= bitcast<i32>({b})"); return {};
    case Opcode::I32LeU: compare("{a} <= {b}"); return {};
    case Opcode::I32GeS: compare("bitcast<i32>({a}) >= bitcast<i32>({b})"); return {};
    case Opcode::I32GeU: compare("{a} >= {b}"); return {};
    case Opcode::F32Eq: compare("f32_eq({a}, {b})"); return {};
    case Opcode::F32Ne: compare("!f32_eq({a}, {b})"); return {};
    case Opcode::F32Lt: compare("f32_lt({a}, {b})"); return {};
    case Opcode::F32Gt: compare("f32_lt({b}, {a})"); return {};
    case Opcode::F32Le: compare("f32_le({a}, {b})"); return {};
    case Opcode::F32Ge: compare("f32_le({b}, {a})"); return {};

    case Opcode::I32Clz: unary("countLeadingZeros({a})"); return {};
    case Opcode::I32Ctz: unary("countTrailingZeros({a})"); return {};
    case Opcode::I32Popcnt: unary("countOneBits({a})"); return {};
    case Opcode::I32Add: binary("{a} + {b}"); return {};
    case Opcode::I32Sub: binary("{a} - {b}"); return {};
    case Opcode::I32Mul: binary("{a} * {b}"); return {};
    case Opcode::I32DivS: binary("i32_div_s({a}, {b})"); return {};
    case Opcode::I32DivU: binary("i32_div_u({a}, {b})"); return {};
    case Opcode::I32RemS: binary("i32_rem_s({a}, {b})"); return {};
    case Opcode::I32RemU: binary("i32_rem_u({a}, {b})"); return {};
    case Opcode::I32And: binary("{a} & {b}"); return {};
    case Opcode::I32Or: binary("{a} | {b}"); return {};
    case Opcode::I32Xor: binary("{a} ^ {b}"); return {};
    case Opcode::I32Shl: binary("{a} << ({b} & 31u)"); return {};
    case Opcode::I32ShrS: binary("bitcast<u32>(bitcast<i32>({a}) >> ({b} & 31u))"); return {};
    case Opcode::I32ShrU: binary("{a} >> ({b} & 31u)"); return {};
    case Opcode::I32Rotl: binary("rotl({a}, {b})"); return {};
    case Opcode::I32Rotr: binary("rotr({a}, {b})"); return {};
    case Opcode::I32Extend8S: unary("sign_extend({a}, 8u)"); return {};
    case Opcode::I32Extend16S: unary("sign_extend({a}, 16u)"); return {};

    case Opcode::F32Abs: unary("bitcast<f32>(bitcast<u32>({a}) & 0x7fffffffu)"); return {};
    case Opcode::F32Neg: unary("bitcast<f32>(bitcast<u32>({a}) ^ 0x80000000u)"); return {};
    case Opcode::F32Copysign:
      binary("bitcast<f32>((bitcast<u32>({a}) & 0x7fffffffu) | (bitcast<u32>({b}) & 0x80000000u))");
      return {};
    case Opcode::F32Ceil: unary("ceil({a})"); return {};
    case Opcode::F32Floor: unary("floor({a})"); return {};
    case Opcode::F32Trunc: unary("trunc({a})"); return {};
    case Opcode::F32Nearest: unary("round({a})"); return {};
    case Opcode::F32Sqrt: unary("sqrt({a})"); return {};
    case Opcode::F32Add: binary("{a} + {b}"); return {};
    case Opcode::F32Sub: binary("{a} - {b}"); return {};
    case Opcode::F32Mul: binary("f32_rounded({a} * {b})"); return {};
    case Opcode::F32Div: binary("{a} / {b}"); return {};
    case Opcode::F32Min: binary("f32_min({a}, {b})"); return {};
    case Opcode::F32Max: binary("f32_max({a}, {b})"); return {};

    case Opcode::I32TruncF32S: unary("i32_trunc_f32_s({a})"); return {};
    case Opcode::I32TruncF32U: unary("i32_trunc_f32_u({a})"); return {};
    case Opcode::I32TruncSatF32S: unary("i32_trunc_sat_f32_s({a})"); return {};
    case Opcode::I32TruncSatF32U: unary("i32_trunc_sat_f32_u({a})"); return {};
    case Opcode::F32ConvertI32S: unary("f32_from_i32({a})"); return {};
    case Opcode::F32ConvertI32U: unary("f32_from_u32({a})"); return {};
    case Opcode::I32ReinterpretF32: unary("bitcast<u32>({a})"); return {};
    case Opcode::F32ReinterpretI32: unary("bitcast<f32>({a})"); return {};

    // f64 as its bits in a vec2<u32>, every operation on integers
    // (f64_helpers.h).
    case Opcode::F64Const:
      push_let(fmt::format("vec2<u32>({}, {})", u32_literal(uint32_t(instr.imm64)),
                           u32_literal(uint32_t(instr.imm64 >> 32))));
      return {};
    case Opcode::F64Eq: compare("f64_eq({a}, {b})"); return {};
    case Opcode::F64Ne: compare("!f64_eq({a}, {b})"); return {};
    case Opcode::F64Lt: compare("f64_lt({a}, {b})"); return {};
    case Opcode::F64Gt: compare("f64_lt({b}, {a})"); return {};
    case Opcode::F64Le: compare("f64_le({a}, {b})"); return {};
    case Opcode::F64Ge: compare("f64_le({b}, {a})"); return {};
    case Opcode::F64Abs: unary("vec2<u32>({a}.x, {a}.y & 0x7fffffffu)"); return {};
    case Opcode::F64Neg: unary("vec2<u32>({a}.x, {a}.y ^ 0x80000000u)"); return {};
    case Opcode::F64Copysign: binary("vec2<u32>({a}.x, ({a}.y & 0x7fffffffu) | ({b}.y & 0x80000000u))"); return {};
    case Opcode::F64Trunc: unary("f64_round({a}, 0u)"); return {};
    case Opcode::F64Floor: unary("f64_round({a}, 1u)"); return {};
    case Opcode::F64Ceil: unary("f64_round({a}, 2u)"); return {};
    case Opcode::F64Nearest: unary("f64_round({a}, 3u)"); return {};
    case Opcode::F64Sqrt: unary("f64_sqrt({a})"); return {};
    case Opcode::F64Add: binary("f64_add({a}, {b})"); return {};
    case Opcode::F64Sub: binary("f64_sub({a}, {b})"); return {};
    case Opcode::F64Mul: binary("f64_mul({a}, {b})"); return {};
    case Opcode::F64Div: binary("f64_div({a}, {b})"); return {};
    case Opcode::F64Min: binary("f64_min({a}, {b})"); return {};
    case Opcode::F64Max: binary("f64_max({a}, {b})"); return {};
    case Opcode::F64PromoteF32: unary("f64_promote({a})"); return {};
    case Opcode::F32DemoteF64: unary("f32_demote({a})"); return {};
    case Opcode::F64ConvertI32S: unary("f64_from_i32({a})"); return {};
    case Opcode::F64ConvertI32U: unary("f64_from_u32({a})"); return {};
    case Opcode::F64ConvertI64S: unary("f64_from_i64({a})"); return {};
    case Opcode::F64ConvertI64U: unary("f64_from_u64({a})"); return {};
    case Opcode::I32TruncF64S: unary("i32_trunc_f64_s({a})"); return {};
    case Opcode::I32TruncF64U: unary("i32_trunc_f64_u({a})"); return {};
    case Opcode::I64TruncF64S: unary("i64_trunc_f64_s({a})"); return {};
    case Opcode::I64TruncF64U: unary("i64_trunc_f64_u({a})"); return {};
    case Opcode::I32TruncSatF64S: unary("i32_trunc_sat_f64_s({a})"); return {};
    case Opcode::I32TruncSatF64U: unary("i32_trunc_sat_f64_u({a})"); return {};
    case Opcode::I64TruncSatF64S: unary("i64_trunc_sat_f64_s({a})"); return {};
    case Opcode::I64TruncSatF64U: unary("i64_trunc_sat_f64_u({a})"); return {};
    case Opcode::I64ReinterpretF64:
    case Opcode::F64ReinterpretI64: unary("{a}"); return {};

    case Opcode::MemoryGrow: return refuse("uses memory.grow (the module memory keeps its initial size here)");
    case Opcode::CallIndirect: return refuse("uses call_indirect (tables)");
    case Opcode::ReturnCallIndirect: return refuse("uses return_call_indirect (tables)");
    default: return refuse("uses " + std::string(info.text));
  }
}

Result<std::string> FunctionWriter::write() {
  for (ValType type : type_.params) WASMGPU_TRY(check_type(type, "as a parameter"));
  for (ValType type : type_.results) WASMGPU_TRY(check_type(type, "as a result"));
  for (ValType type : function_.locals) WASMGPU_TRY(check_type(type, "as a local"));
  memory_pages_ = 0;
  if (!module_.memories.empty()) memory_pages_ = module_.memories[0].limits.min;
  targeted_ = branch_targets(function_);

  Label function_label;
  function_label.kind = Label::Kind::Function;
  function_label.results = type_.results;
  labels_.push_back(function_label);
  for (size_t i = 0; i < function_.body.size(); ++i) {
    const Instr& instr = function_.body[i];
    const bool opens = instr.op == Opcode::Block || instr.op == Opcode::Loop || instr.op == Opcode::If;
    if (dead_ && skip_dead(instr, dead_depth_)) continue;
    if (opens) {
      WASMGPU_TRY(open(instr, i));
    } else if (instr.op == Opcode::End || instr.op == Opcode::Else) {
      WASMGPU_TRY(close(instr));
    } else {
      WASMGPU_TRY(write_instr(instr));
    }
  }

  // Tint (Dawn) refuses statements nested deeper than 127.
  if (max_indent_ > kMaxNesting)
    return refuse(
        fmt::format("nests {} statements deep (WGSL compilers stop at 127; wasm labels each add one)", max_indent_));
  std::string symbol = function_symbol(index_);
  std::string out;
  std::string result_type;
  if (type_.results.size() == 1) {
    result_type = std::string(" -> ") + value_type(type_.results[0]);
  } else if (type_.results.size() > 1) {
    out += fmt::format("struct {}_result {{\n", symbol);
    for (size_t i = 0; i < type_.results.size(); ++i)
      out += fmt::format("  v{}: {},\n", i, value_type(type_.results[i]));
    out += "}\n\n";
    result_type = fmt::format(" -> {}_result", symbol);
  }
  std::string params;
  for (size_t i = 0; i < type_.params.size(); ++i)
    params += fmt::format("{}a{}: {}", i ? ", " : "", i, value_type(type_.params[i]));
  out += fmt::format("// {}\nfn {}({}){} {{\n", module_.function_name(index_), symbol, params, result_type);
  for (size_t i = 0; i < type_.params.size(); ++i) out += fmt::format("  var l{0} = a{0};\n", i);
  for (size_t i = 0; i < function_.locals.size(); ++i) {
    ValType type = function_.locals[i];
    out += fmt::format("  var l{}: {} = {};\n", type_.params.size() + i, value_type(type), zero_of(type));
  }
  if (uses_pending_) out += "  var pending: u32 = 0u;\n";
  out += decls_;
  out += body_;
  out += "}\n";
  return out;
}

}  // namespace

Result<std::string> write_function(const wasm::Module& module, uint32_t index, const BarrierFacts& barriers,
                                   FunctionUses& uses) {
  return FunctionWriter(module, index, barriers, uses).write();
}

}  // namespace wasmgpu::wgsl
