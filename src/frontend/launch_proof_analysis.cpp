#include "frontend/launch_proof_analysis.h"

#include <map>
#include <tuple>

#include "frontend/intrinsic_catalog.h"
#include "wasm/operand_flow.h"

namespace wasmgpu::frontend {

namespace {

using wasm::Opcode;
using Node = abi::ProofNode;
using Relation = abi::ProofConstraint::Relation;

constexpr uint32_t kUnknown = UINT32_MAX;

// Bytes a plain (not atomic, not SIMD) load or store accesses; 0 for anything else.
uint32_t plain_access_width(Opcode op) {
  const wasm::OpcodeInfo& info = wasm::info(op);
  if (info.cls != wasm::OpcodeClass::Memory) return 0;
  return info.access.bytes;
}

Relation negated(Relation r) {
  switch (r) {
    case Relation::Less: return Relation::GreaterEqual;
    case Relation::LessEqual: return Relation::Greater;
    case Relation::Greater: return Relation::LessEqual;
    case Relation::GreaterEqual: return Relation::Less;
    case Relation::Equal: return Relation::NotEqual;
    case Relation::NotEqual: return Relation::Equal;
  }
  return r;
}

// a R b as b R' a.
Relation swapped(Relation r) {
  switch (r) {
    case Relation::Less: return Relation::Greater;
    case Relation::LessEqual: return Relation::GreaterEqual;
    case Relation::Greater: return Relation::Less;
    case Relation::GreaterEqual: return Relation::LessEqual;
    default: return r;
  }
}

// A branch condition: a compare of two expressions, or an and / or of two.
struct Condition {
  enum class Kind { Compare, And, Or } kind = Kind::Compare;
  Relation relation = Relation::Equal;
  uint32_t lhs = kUnknown, rhs = kUnknown;  // Compare: nodes; And/Or: conditions
};

// An operand stack entry: an expression node, a condition, or neither.
struct Value {
  uint32_t node = kUnknown;
  int32_t condition = -1;
};

struct Frame {
  Opcode kind = Opcode::Block;  // Block, Loop, If, or Nop for the function
  size_t else_index = 0, end_index = 0;
  size_t constraints = 0;            // active constraints on entry
  std::vector<uint32_t> entry;       // If: locals on entry (the else arm's start)
  std::vector<uint32_t> else_facts;  // If: the constraints the else arm starts with
  bool seen_else = false;
  bool label_reached = false;   // a branch or fallthrough reached the end
  std::vector<uint32_t> label;  // their locals, joined
  std::vector<bool> written;    // Loop: the locals its body writes
};

class Analysis {
 public:
  Analysis(const wasm::Module& module, uint32_t function_index, const wasm::OperandFlow& flow,
           const std::vector<PointerFact>& facts)
      : module_(module),
        function_(module.functions.at(function_index - module.imported_functions)),
        type_(module.function_type(function_index)),
        facts_(facts),
        flow_(flow) {}

  LaunchProofAnalysis run() {
    const std::vector<wasm::Instr>& body = function_.body;
    result_.access_index.assign(body.size(), -1);
    if (facts_.size() != body.size() || type_.params.empty() || type_.params[0] != wasm::ValType::I32)
      return std::move(result_);
    for (size_t i = 0; i < type_.params.size(); ++i) {
      if (type_.params[i] != wasm::ValType::I32)
        locals_.push_back(kUnknown);
      else
        locals_.push_back(i == 0 ? node(Node::Op::Index) : node(Node::Op::Arg, uint32_t(i)));
    }
    for (wasm::ValType t : function_.locals) locals_.push_back(t == wasm::ValType::I32 ? constant(0) : kUnknown);
    values_.assign(flow_.value_count(), Value{});
    Frame function_frame;
    function_frame.kind = Opcode::Nop;
    function_frame.end_index = function_frame.else_index = body.size() - 1;
    frames_.push_back(function_frame);
    for (size_t ip = 0; ip < body.size() && !frames_.empty(); ++ip) {
      if (!reachable_) {
        const Frame& top = frames_.back();
        const bool in_then = top.kind == Opcode::If && !top.seen_else && top.else_index != top.end_index;
        ip = in_then ? top.else_index : top.end_index;
      }
      ip_ = ip;
      step(body[ip], ip);
    }
    return std::move(result_);
  }

 private:
  uint32_t node(Node::Op op, uint32_t a = 0, uint32_t b = 0, uint32_t c = 0, int64_t value = 0) {
    auto key = std::make_tuple(uint32_t(op), a, b, c, value);
    auto [it, inserted] = interned_.emplace(key, uint32_t(result_.proof.nodes.size()));
    if (inserted) result_.proof.nodes.push_back(Node{op, a, b, c, value});
    return it->second;
  }
  uint32_t constant(int64_t value) { return node(Node::Op::Const, 0, 0, 0, value); }
  std::optional<int64_t> constant_of(uint32_t n) const {
    if (n == kUnknown || result_.proof.nodes[n].op != Node::Op::Const) return std::nullopt;
    return result_.proof.nodes[n].value;
  }

  // The current instruction's operand k (the deepest is 0) and results,
  // as the operand flow names them.
  const Value& operand(size_t k) const { return values_[flow_.operands(ip_)[k]]; }
  size_t operand_count() const { return flow_.operands(ip_).size(); }
  void set_result(Value v) { values_[flow_.results(ip_)[0]] = v; }
  void set_result(uint32_t n) { set_result(Value{n, -1}); }

  static void join(std::vector<uint32_t>& into, const std::vector<uint32_t>& from) {
    for (size_t i = 0; i < into.size(); ++i)
      if (into[i] != from[i]) into[i] = kUnknown;
  }
  void reach_label(Frame& frame) {
    if (!frame.label_reached) {
      frame.label = locals_;
      frame.label_reached = true;
    } else {
      join(frame.label, locals_);
    }
  }
  void branch(uint32_t depth) {
    if (depth >= frames_.size()) return;
    Frame& target = frames_[frames_.size() - 1 - depth];
    // A loop's header already allows whatever its body writes; a return ends it.
    if (target.kind == Opcode::Loop || target.kind == Opcode::Nop) return;
    reach_label(target);
  }

  // Adds the facts `condition` (being true, or false) gives to `out`.
  void assume(int32_t condition, bool holds, std::vector<uint32_t>& out) {
    if (condition < 0) return;
    const Condition c = conditions_[size_t(condition)];
    if (c.kind != Condition::Kind::Compare) {
      // Both hold when an and holds; neither when an or fails.
      if ((c.kind == Condition::Kind::And) == holds) {
        assume(int32_t(c.lhs), holds, out);
        assume(int32_t(c.rhs), holds, out);
      }
      return;
    }
    const Relation r = holds ? c.relation : negated(c.relation);
    auto add = [&](uint32_t side, Relation relation, uint32_t bound) {
      // side is var + add for a constant add, var an id or loop variable.
      int64_t offset = 0;
      uint32_t var = side;
      const Node& n = result_.proof.nodes[side];
      if (n.op == Node::Op::Add && constant_of(n.b)) {
        var = n.a;
        offset = *constant_of(n.b);
      } else if (n.op == Node::Op::Sub && constant_of(n.b)) {
        var = n.a;
        offset = -*constant_of(n.b);
      }
      const Node::Op op = result_.proof.nodes[var].op;
      if (op == Node::Op::Const || op == Node::Op::Arg || op >= Node::Op::Add) return;
      out.push_back(uint32_t(result_.proof.constraints.size()));
      result_.proof.constraints.push_back({var, offset, relation, bound});
    };
    if (c.lhs == kUnknown || c.rhs == kUnknown) return;
    add(c.lhs, r, c.rhs);
    add(c.rhs, swapped(r), c.lhs);
  }

  // A branch's operand as a condition: a bare value holds when it is not 0.
  int32_t as_condition(Value v) {
    if (v.condition >= 0 || v.node == kUnknown) return v.condition;
    return condition({Condition::Kind::Compare, Relation::NotEqual, v.node, constant(0)});
  }

  int32_t condition(Condition c) {
    conditions_.push_back(c);
    return int32_t(conditions_.size() - 1);
  }

  void compare(Relation relation) {
    const Value a = operand(0), b = operand(1);
    set_result(Value{kUnknown, condition({Condition::Kind::Compare, relation, a.node, b.node})});
  }

  void binary(Node::Op op) {
    const Value a = operand(0), b = operand(1);
    set_result(a.node == kUnknown || b.node == kUnknown ? kUnknown : node(op, a.node, b.node));
  }

  // An operation by a constant right operand (Shl, ShrU, And, DivU, RemU).
  void by_constant(Node::Op op) {
    Value a = operand(0), b = operand(1);
    std::optional<int64_t> c = constant_of(b.node);
    if (!c && op == Node::Op::And && constant_of(a.node)) std::swap(a, b), c = constant_of(b.node);
    if (a.node == kUnknown || !c) return set_result(kUnknown);
    int64_t v = int64_t(uint32_t(*c));
    if (op == Node::Op::Shl || op == Node::Op::ShrU) v &= 31;
    if ((op == Node::Op::DivU || op == Node::Op::RemU) && v == 0) return set_result(kUnknown);
    set_result(node(op, a.node, 0, 0, v));
  }

  // A linear form of a node: coefficients of the nodes it adds up (those
  // that are not sums or products by constants themselves) and a constant;
  // wasm's i32 value is the form's value modulo 2^32.
  struct Linear {
    std::map<uint32_t, int64_t> terms;
    int64_t constant = 0;
  };
  // Coefficients are kept modulo 2^32, as signed 32-bit numbers: the form's
  // value modulo 2^32 is all that matters, and nothing overflows.
  static int64_t wrap(int64_t v) { return int64_t(int32_t(uint32_t(uint64_t(v)))); }
  static void add_scaled(Linear& into, const Linear& form, int64_t factor) {
    for (const auto& [atom, coefficient] : form.terms) {
      int64_t& c = into.terms[atom];
      c = wrap(c + wrap(coefficient * factor));
      if (c == 0) into.terms.erase(atom);
    }
    into.constant = wrap(into.constant + wrap(form.constant * factor));
  }
  Linear linear(uint32_t n, int depth = 0) const {
    Linear form;
    const Node& x = result_.proof.nodes[n];
    if (depth > 32) {  // deep expressions are taken whole
      form.terms[n] = 1;
      return form;
    }
    std::optional<int64_t> a = x.op == Node::Op::Const ? std::nullopt : constant_of(x.a);
    std::optional<int64_t> b = x.op == Node::Op::Const ? std::nullopt : constant_of(x.b);
    switch (x.op) {
      case Node::Op::Const: form.constant = x.value; return form;
      case Node::Op::Add:
      case Node::Op::Sub:
        form = linear(x.a, depth + 1);
        add_scaled(form, linear(x.b, depth + 1), x.op == Node::Op::Add ? 1 : -1);
        return form;
      case Node::Op::Mul:
        if (a) return add_scaled(form, linear(x.b, depth + 1), *a), form;
        if (b) return add_scaled(form, linear(x.a, depth + 1), *b), form;
        break;
      case Node::Op::Shl: return add_scaled(form, linear(x.a, depth + 1), int64_t(1) << x.value), form;
      default: break;
    }
    form.terms[n] = 1;
    return form;
  }
  // The node of a linear form.
  uint32_t from_linear(const Linear& form) {
    uint32_t sum = constant(int32_t(uint32_t(form.constant)));
    for (const auto& [atom, coefficient] : form.terms) {
      const uint32_t term =
          coefficient == 1 ? atom : node(Node::Op::Mul, atom, constant(int32_t(uint32_t(coefficient))));
      sum = constant_of(sum) == 0 ? term : node(Node::Op::Add, sum, term);
    }
    return sum;
  }
  // An integer m with form(a) = m * form(b), when there is one.
  static std::optional<int64_t> ratio(const Linear& a, const Linear& b) {
    if (b.terms.empty() && b.constant == 0) return std::nullopt;
    std::optional<int64_t> m;
    auto agree = [&](int64_t x, int64_t y) {
      if (y == 0) return x == 0;
      if (x % y != 0) return false;
      if (!m) m = x / y;
      return *m == x / y;
    };
    for (const auto& [atom, coefficient] : b.terms) {
      auto it = a.terms.find(atom);
      if (!agree(it == a.terms.end() ? 0 : it->second, coefficient)) return std::nullopt;
    }
    for (const auto& [atom, coefficient] : a.terms)
      if (!b.terms.contains(atom)) return std::nullopt;
    if (!agree(a.constant, b.constant)) return std::nullopt;
    return m;
  }

  // c0 + m * (k - k0) for a companion c whose step is m times k's constant
  // step s, m a loop-invariant linear form (STEP_c / s, coefficient by
  // coefficient); kUnknown when s does not divide STEP_c so. Exact where it
  // is defined: after j trips k = k0 + j * s without wrapping (the loop
  // variable's bound says so) and c = c0 + j * STEP_c = c0 + m * (k - k0)
  // modulo 2^32.
  uint32_t invariant_companion(uint32_t loop_var, uint32_t k0, uint32_t step_k, uint32_t c0, uint32_t step_c) {
    const std::optional<int64_t> s = constant_of(step_k);
    if (!s || *s <= 0) return kUnknown;
    Linear m = linear(step_c);
    if (m.terms.empty()) return kUnknown;  // constant steps are in proportion or not at all
    for (auto& [atom, coefficient] : m.terms) {
      if (coefficient % *s != 0) return kUnknown;
      coefficient /= *s;
    }
    if (m.constant % *s != 0) return kUnknown;
    m.constant /= *s;
    const uint32_t trips = constant_of(k0) == 0 ? loop_var : node(Node::Op::Sub, loop_var, k0);
    const uint32_t moved = node(Node::Op::Mul, from_linear(m), trips);
    return node(Node::Op::Add, c0, moved);
  }

  // What a loop at body[ip] makes of the locals it writes (`written`), as
  // nodes (kUnknown for most). A counted loop: one local k is written once
  // per trip at the loop's top level as `local.get k; STEP; i32.add;
  // local.set|tee k`, and the loop's only branch back, its last
  // instruction, tests k against END: `K END i32.lt_u|ne br_if 0`, or with
  // the operands the other way round, `END K i32.gt_u|ne br_if 0` (clang
  // writes that when it folds the increment into the test), where K is
  // `local.get|tee k` or the increment itself ending in `local.tee k`. STEP
  // and END are constants or locals the loop does not write. k becomes a
  // loop variable; another local c stepped the same way by a STEP that is m
  // times k's holds c0 + m * (k - k0) at every trip, a companion. m is a
  // constant when the steps' linear forms are in proportion (reduce's pointer
  // steps by 4 * its index's stride), or the loop-invariant form STEP_c / s
  // when k steps by a constant s that divides every coefficient of c's step
  // (a pointer walking down a column steps by 4 * n while its row steps by
  // 1: atax's and bicg's column sums).
  std::vector<uint32_t> loop_values(size_t ip, const std::vector<bool>& written) {
    const std::vector<wasm::Instr>& body = function_.body;
    std::vector<uint32_t> values(locals_.size(), kUnknown);
    const size_t end = body[ip].imm1;
    if (end < ip + 6) return values;
    const wasm::Instr& back = body[end - 1];
    const wasm::Instr& test = body[end - 2];
    if (back.op != Opcode::BrIf || back.imm0 != 0) return values;
    auto invariant = [&](const wasm::Instr& instr) -> uint32_t {
      if (instr.op == Opcode::I32Const) return constant(int32_t(uint32_t(instr.imm64)));
      if (instr.op == Opcode::LocalGet && !written[instr.imm0]) return locals_[instr.imm0];
      return kUnknown;
    };
    auto reads_local = [](const wasm::Instr& instr) {
      return instr.op == Opcode::LocalGet || instr.op == Opcode::LocalTee;
    };
    // Where the test reads k and END: `K END op`, else `END K op`.
    uint32_t k = UINT32_MAX, end_node = kUnknown;
    bool stops_at_end = false;  // the test is `ne` (kind 1), not `lt_u` (kind 0)
    const wasm::Instr& last = body[end - 3];
    if ((test.op == Opcode::I32LtU || test.op == Opcode::I32Ne) && reads_local(body[end - 4]) &&
        invariant(last) != kUnknown) {
      k = body[end - 4].imm0;
      end_node = invariant(last);
      stops_at_end = test.op == Opcode::I32Ne;
    } else if ((test.op == Opcode::I32GtU || test.op == Opcode::I32Ne) && reads_local(last)) {
      // END sits just before K: before `local.get|tee k`, or before the
      // whole `local.get k; STEP; i32.add; local.tee k`.
      const bool increment = last.op == Opcode::LocalTee && end >= ip + 8 && body[end - 4].op == Opcode::I32Add &&
                             body[end - 6].op == Opcode::LocalGet && body[end - 6].imm0 == last.imm0;
      const wasm::Instr& bound = body[increment ? end - 7 : end - 4];
      k = last.imm0;
      end_node = invariant(bound);
      stops_at_end = test.op == Opcode::I32Ne;
    }
    if (end_node == kUnknown) return values;
    // Per local: its writes, and the step of its one top-level increment.
    std::vector<uint32_t> writes(locals_.size(), 0), steps(locals_.size(), kUnknown);
    size_t depth = 0;
    for (size_t i = ip + 1; i < end - 1; ++i) {
      const wasm::Instr& instr = body[i];
      switch (instr.op) {
        case Opcode::Block:
        case Opcode::Loop:
        case Opcode::If: ++depth; break;
        case Opcode::End: --depth; break;
        case Opcode::Br:
        case Opcode::BrIf:
          if (instr.imm0 == depth) return values;  // another branch back
          break;
        case Opcode::BrTable:
          for (uint32_t target : function_.br_tables.at(instr.imm0))
            if (target == depth) return values;
          break;
        case Opcode::LocalSet:
        case Opcode::LocalTee: {
          const uint32_t c = instr.imm0;
          ++writes[c];
          const bool increment = depth == 0 && i >= ip + 4 && body[i - 1].op == Opcode::I32Add &&
                                 body[i - 3].op == Opcode::LocalGet && body[i - 3].imm0 == c;
          steps[c] = increment ? invariant(body[i - 2]) : kUnknown;
          break;
        }
        default: break;
      }
    }
    const uint32_t step = steps[k];
    if (writes[k] != 1 || step == kUnknown || locals_[k] == kUnknown) return values;
    if (std::optional<int64_t> s = constant_of(step); s && *s <= 0) return values;
    // An `ne` test bounds the loop only where it steps exactly onto END:
    // the value field says which (0: lt_u, 1: ne; abi/launch_proof.cpp).
    const int64_t kind = stops_at_end ? 1 : 0;
    const uint32_t loop_var = node(Node::Op::LoopVar, locals_[k], step, end_node, kind);
    values[k] = loop_var;
    const Linear step_k = linear(step), entry_k = linear(locals_[k]);
    for (uint32_t c = 0; c < locals_.size(); ++c) {
      if (c == k || writes[c] != 1 || steps[c] == kUnknown || locals_[c] == kUnknown) continue;
      std::optional<int64_t> m = ratio(linear(steps[c]), step_k);
      if (!m) {
        values[c] = invariant_companion(loop_var, locals_[k], step, locals_[c], steps[c]);
        continue;
      }
      if (*m == 0 || *m < INT32_MIN || *m > INT32_MAX) continue;
      Linear base = linear(locals_[c]);
      add_scaled(base, entry_k, -*m);
      const uint32_t scaled = *m == 1 ? loop_var : node(Node::Op::Mul, loop_var, constant(*m));
      const uint32_t offset = from_linear(base);
      values[c] = constant_of(offset) == 0 ? scaled : node(Node::Op::Add, offset, scaled);
    }
    return values;
  }

  std::vector<bool> enter_loop(size_t ip) {
    const std::vector<wasm::Instr>& body = function_.body;
    std::vector<bool> written(locals_.size(), false);
    for (size_t i = ip + 1; i < body[ip].imm1; ++i)
      if (body[i].op == Opcode::LocalSet || body[i].op == Opcode::LocalTee) written[body[i].imm0] = true;
    std::vector<uint32_t> values = loop_values(ip, written);
    for (size_t i = 0; i < locals_.size(); ++i)
      if (written[i]) locals_[i] = values[i];
    return written;
  }

  void record_access(const wasm::Instr& instr, size_t ip, uint32_t width) {
    const PointerFact& fact = facts_[ip];
    const uint32_t address = operand(0).node;  // the first operand
    if (fact.base != PointerFact::Base::Param || fact.param == 0 || fact.param >= type_.params.size() ||
        type_.params[fact.param] != wasm::ValType::I32 || address == kUnknown)
      return;
    result_.proof.accesses.push_back({fact.param, address, instr.imm1, uint64_t(instr.imm1) + width, active_});
    result_.access_index[ip] = int32_t(result_.proof.accesses.size() - 1);
  }

  void intrinsic_call(const Intrinsic& intrinsic) {
    std::optional<Node::Op> by_dimension;
    switch (intrinsic.kind) {
      case IntrinsicKind::LocalIndex: return set_result(node(Node::Op::LocalIndex));
      case IntrinsicKind::GlobalId: by_dimension = Node::Op::GlobalId; break;
      case IntrinsicKind::LocalId: by_dimension = Node::Op::LocalId; break;
      case IntrinsicKind::WorkgroupId: by_dimension = Node::Op::WorkgroupId; break;
      case IntrinsicKind::WorkgroupSize: by_dimension = Node::Op::WorkgroupSize; break;
      case IntrinsicKind::WorkgroupCount: by_dimension = Node::Op::WorkgroupCount; break;
      default: break;
    }
    if (by_dimension) {
      std::optional<int64_t> d = constant_of(operand(0).node);
      return set_result(d ? node(*by_dimension, uint32_t(std::min<int64_t>(uint32_t(*d), 3))) : kUnknown);
    }
    // Other intrinsics give values the proofs know nothing of.
  }

  void end_frame() {
    Frame frame = std::move(frames_.back());
    frames_.pop_back();
    active_.resize(frame.constraints);
    if (frame.kind == Opcode::Loop) {
      // A trapped invocation leaves a loop at any branch back, with the
      // locals of that point: what the loop writes is unknown after it.
      for (size_t i = 0; i < locals_.size(); ++i)
        if (frame.written[i]) locals_[i] = kUnknown;
      return;  // the loop's results are unknown
    }
    if (reachable_) reach_label(frame);
    if (frame.kind == Opcode::If && !frame.seen_else) {
      // No else arm: the if's entry reaches its end.
      std::swap(locals_, frame.entry);
      reach_label(frame);
    }
    reachable_ = frame.label_reached;
    if (reachable_) locals_ = std::move(frame.label);
    // The construct's results are unknown: the values that meet there are not joined.
  }

  void step(const wasm::Instr& instr, size_t ip) {
    switch (instr.op) {
      case Opcode::Block:
      case Opcode::Loop:
      case Opcode::If: {
        int32_t cond = -1;
        if (instr.op == Opcode::If) cond = as_condition(operand(operand_count() - 1));  // after the parameters
        Frame frame;
        frame.kind = instr.op;
        frame.else_index = instr.op == Opcode::If ? instr.imm0 : instr.imm1;
        frame.end_index = instr.imm1;
        frame.constraints = active_.size();
        if (instr.op == Opcode::If) {
          frame.entry = locals_;
          frame.else_facts = active_;
          assume(cond, false, frame.else_facts);
          assume(cond, true, active_);
        }
        if (instr.op == Opcode::Loop) {
          frame.written = enter_loop(ip);
          // The parameters at the header: the values that entered.
          for (size_t k = 0; k < flow_.results(ip).size(); ++k) values_[flow_.results(ip)[k]] = operand(k);
        }
        frames_.push_back(std::move(frame));
        return;
      }
      case Opcode::Else: {
        Frame& frame = frames_.back();
        if (reachable_) reach_label(frame);
        frame.seen_else = true;
        locals_ = frame.entry;
        active_ = frame.else_facts;
        reachable_ = true;
        return;
      }
      case Opcode::End:
        if (frames_.size() == 1) {
          frames_.pop_back();
          return;
        }
        return end_frame();
      case Opcode::Br:
        branch(instr.imm0);
        reachable_ = false;
        return;
      case Opcode::BrIf: {
        const int32_t cond = as_condition(operand(operand_count() - 1));
        branch(instr.imm0);
        // Past it, the condition failed, until the end of this construct.
        assume(cond, false, active_);
        return;
      }
      case Opcode::BrTable:
        for (uint32_t depth : function_.br_tables.at(instr.imm0)) branch(depth);
        reachable_ = false;
        return;
      case Opcode::Return:
      case Opcode::Unreachable: reachable_ = false; return;
      case Opcode::Nop: return;
      case Opcode::Drop: return;
      case Opcode::Select:
      case Opcode::SelectTyped: {
        const Value a = operand(0), b = operand(1);
        set_result(a.node == b.node ? a.node : kUnknown);
        return;
      }
      case Opcode::LocalGet: set_result(locals_.at(instr.imm0)); return;
      case Opcode::LocalSet: locals_.at(instr.imm0) = operand(0).node; return;
      case Opcode::LocalTee:
        locals_.at(instr.imm0) = operand(0).node;
        set_result(operand(0));  // the same value, a condition still
        return;
      case Opcode::Call: {
        if (const Intrinsic* intrinsic = find_intrinsic(module_, instr.imm0)) return intrinsic_call(*intrinsic);
        return;  // the results are unknown
      }
      case Opcode::CallIndirect: return;
      // Tail calls: their results are the caller's caller's; nothing after them is reached.
      case Opcode::ReturnCall:
      case Opcode::ReturnCallIndirect: reachable_ = false; return;
      case Opcode::I32Const: set_result(constant(int32_t(uint32_t(instr.imm64)))); return;
      case Opcode::I32Add: return binary(Node::Op::Add);
      case Opcode::I32Sub: return binary(Node::Op::Sub);
      case Opcode::I32Mul: return binary(Node::Op::Mul);
      case Opcode::I32Shl: return by_constant(Node::Op::Shl);
      case Opcode::I32ShrU: return by_constant(Node::Op::ShrU);
      case Opcode::I32DivU: return by_constant(Node::Op::DivU);
      case Opcode::I32RemU: return by_constant(Node::Op::RemU);
      case Opcode::I32And:
      case Opcode::I32Or: {
        const Value a = operand(0), b = operand(1);
        if (a.condition >= 0 && b.condition >= 0) {
          const auto kind = instr.op == Opcode::I32And ? Condition::Kind::And : Condition::Kind::Or;
          set_result(Value{kUnknown, condition({kind, Relation::Equal, uint32_t(a.condition), uint32_t(b.condition)})});
          return;
        }
        if (instr.op == Opcode::I32And) return by_constant(Node::Op::And);
        break;
      }
      case Opcode::I32Eqz: {
        const Value a = operand(0);
        if (a.condition >= 0) {
          // eqz of a compare is the opposite compare; of an and / or,
          // nothing the constraints can say.
          const Condition c = conditions_[size_t(a.condition)];
          if (c.kind == Condition::Kind::Compare) {
            set_result(Value{kUnknown, condition({c.kind, negated(c.relation), c.lhs, c.rhs})});
            return;
          }
          return set_result(kUnknown);
        }
        set_result(Value{kUnknown, condition({Condition::Kind::Compare, Relation::Equal, a.node, constant(0)})});
        return;
      }
      case Opcode::I32LtU: return compare(Relation::Less);
      case Opcode::I32LeU: return compare(Relation::LessEqual);
      case Opcode::I32GtU: return compare(Relation::Greater);
      case Opcode::I32GeU: return compare(Relation::GreaterEqual);
      case Opcode::I32Eq: return compare(Relation::Equal);
      case Opcode::I32Ne: return compare(Relation::NotEqual);
      default: break;
    }
    // Everything else gives values the proofs know nothing of.
    // Accesses of memories after the first (multi-memory) are never proven at launch.
    if (uint32_t width = plain_access_width(instr.op); width != 0 && instr.memory == 0) record_access(instr, ip, width);
  }

  const wasm::Module& module_;
  const wasm::Function& function_;
  const wasm::FuncType& type_;
  const std::vector<PointerFact>& facts_;
  LaunchProofAnalysis result_;
  std::map<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t, int64_t>, uint32_t> interned_;
  std::vector<Condition> conditions_;
  std::vector<uint32_t> locals_;
  const wasm::OperandFlow& flow_;
  std::vector<Value> values_;  // by stack value (wasm/operand_flow.h)
  size_t ip_ = 0;              // the instruction step() is at
  std::vector<Frame> frames_;
  std::vector<uint32_t> active_;  // constraints that hold here
  bool reachable_ = true;
};

}  // namespace

LaunchProofAnalysis analyse_launch_proof(const wasm::Module& module, uint32_t function_index,
                                         const wasm::OperandFlow& flow, const std::vector<PointerFact>& facts) {
  return Analysis(module, function_index, flow, facts).run();
}

LaunchProofAnalysis analyse_launch_proof(const wasm::Module& module, uint32_t function_index,
                                         const std::vector<PointerFact>& facts) {
  const wasm::Function& function = module.functions.at(function_index - module.imported_functions);
  return analyse_launch_proof(module, function_index, wasm::OperandFlow::build(module, function), facts);
}

}  // namespace wasmgpu::frontend
