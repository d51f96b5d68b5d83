#include "frontend/loop_induction.h"

#include <map>

#include "wasm/opcode.h"

namespace wasmgpu::frontend {

namespace {
using wasm::Opcode;

bool opens_block(Opcode op) { return op == Opcode::Block || op == Opcode::Loop || op == Opcode::If; }
bool writes_local(Opcode op) { return op == Opcode::LocalSet || op == Opcode::LocalTee; }

struct Write {
  size_t ip = 0;
  uint32_t depth = 0;
  int count = 0;
};

// `local.get L; i32.const s; i32.add|i32.sub` right before body[ip]: the step.
std::optional<int64_t> step_before(const std::vector<wasm::Instr>& body, size_t loop_ip, size_t ip, uint32_t local) {
  if (ip < loop_ip + 4) return std::nullopt;
  const wasm::Instr &get = body[ip - 3], &constant = body[ip - 2], &op = body[ip - 1];
  if (get.op != Opcode::LocalGet || get.imm0 != local || constant.op != Opcode::I32Const) return std::nullopt;
  const int64_t c = int32_t(uint32_t(constant.imm64));
  if (op.op == Opcode::I32Add) return c;
  if (op.op == Opcode::I32Sub) return -c;
  return std::nullopt;
}
}  // namespace

std::optional<LoopInduction> find_loop_induction(const std::vector<wasm::Instr>& body, size_t loop_ip) {
  if (loop_ip >= body.size() || body[loop_ip].op != Opcode::Loop) return std::nullopt;
  const size_t end_ip = body[loop_ip].imm1;
  std::map<uint32_t, Write> writes;
  std::optional<size_t> back_edge;
  uint32_t depth = 0;
  for (size_t ip = loop_ip + 1; ip < end_ip && ip < body.size(); ++ip) {
    const wasm::Instr& instr = body[ip];
    if (opens_block(instr.op)) {
      ++depth;
    } else if (instr.op == Opcode::End) {
      --depth;
    } else if (writes_local(instr.op)) {
      Write& w = writes[instr.imm0];
      w.ip = ip;
      w.depth = depth;
      ++w.count;
    } else if (instr.op == Opcode::Br || instr.op == Opcode::BrIf) {
      if (instr.imm0 != depth) continue;
      // The only branch back must be a br_if at the loop's top level.
      if (back_edge || instr.op == Opcode::Br || depth != 0) return std::nullopt;
      back_edge = ip;
    } else if (instr.op == Opcode::BrTable) {
      return std::nullopt;  // may branch back; not worth telling apart
    }
  }
  if (!back_edge) return std::nullopt;
  const size_t x = *back_edge;

  LoopInduction induction;
  for (const auto& [local, w] : writes) {
    if (w.count != 1 || w.depth != 0 || w.ip > x) continue;
    if (std::optional<int64_t> step = step_before(body, loop_ip, w.ip, local); step && *step != 0)
      induction.variables.push_back({local, *step});
  }

  // The back-edge's test: `local.tee C; br_if`, or `local.(get|tee) C;
  // i32.const E; i32.ne|lt_u|lt_s; br_if`.
  std::optional<uint32_t> control;
  if (x >= loop_ip + 2 && body[x - 1].op == Opcode::LocalTee) {
    control = body[x - 1].imm0;
    induction.test = LoopInduction::Test::NotEqual;
    induction.end = 0;
  } else if (x >= loop_ip + 4 && body[x - 2].op == Opcode::I32Const &&
             (body[x - 3].op == Opcode::LocalGet || body[x - 3].op == Opcode::LocalTee)) {
    switch (body[x - 1].op) {
      case Opcode::I32Ne: induction.test = LoopInduction::Test::NotEqual; break;
      case Opcode::I32LtU: induction.test = LoopInduction::Test::LessUnsigned; break;
      case Opcode::I32LtS: induction.test = LoopInduction::Test::LessSigned; break;
      default: return std::nullopt;
    }
    control = body[x - 3].imm0;
    induction.end = int32_t(uint32_t(body[x - 2].imm64));
  }
  if (!control) return std::nullopt;
  for (size_t i = 0; i < induction.variables.size(); ++i) {
    // The tested value must be the updated one: the update comes first (a
    // tee is the update itself).
    if (induction.variables[i].local != *control) continue;
    const size_t tested_at = body[x - 1].op == Opcode::LocalTee ? x - 1 : x - 3;
    if (writes.at(*control).ip > tested_at) return std::nullopt;
    induction.control = i;
    return induction;
  }
  return std::nullopt;
}

std::optional<uint64_t> header_visits(const LoopInduction& induction, uint32_t entry) {
  constexpr int64_t kModulus = int64_t(1) << 32;
  const int64_t step = induction.variables.at(induction.control).step;
  switch (induction.test) {
    case LoopInduction::Test::NotEqual: {
      // Round again while entry + (k+1)*step != end (mod 2^32): the header
      // is reached distance / |step| times when |step| divides the distance.
      const int64_t toward = step > 0 ? induction.end - int64_t(entry) : int64_t(entry) - induction.end;
      const int64_t distance = ((toward % kModulus) + kModulus) % kModulus;
      const int64_t magnitude = step > 0 ? step : -step;
      if (distance == 0 || distance % magnitude != 0) return std::nullopt;
      return uint64_t(distance / magnitude);
    }
    case LoopInduction::Test::LessUnsigned:
    case LoopInduction::Test::LessSigned: {
      // Round again while entry + (k+1)*step < end, counting up without
      // passing the type's largest value on the way.
      const bool is_signed = induction.test == LoopInduction::Test::LessSigned;
      const int64_t start = is_signed ? int64_t(int32_t(entry)) : int64_t(entry);
      const int64_t end = is_signed ? induction.end : int64_t(uint32_t(induction.end));
      const int64_t limit = is_signed ? kModulus / 2 : kModulus;
      if (step <= 0 || start >= end || end + step > limit) return std::nullopt;
      return uint64_t((end - start + step - 1) / step);
    }
  }
  return std::nullopt;
}

}  // namespace wasmgpu::frontend
