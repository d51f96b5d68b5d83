#include "spirv/load_groups.h"

#include <algorithm>
#include <map>
#include <optional>

#include "wasm/opcode.h"

namespace wasmgpu::spirv {

namespace {
using wasm::Instr;
using wasm::Opcode;

uint32_t group_load_width(Opcode op) {
  switch (op) {
    case Opcode::I32Load: case Opcode::F32Load: return 4;
    case Opcode::I64Load: case Opcode::F64Load: return 8;
    default: return 0;
  }
}

bool is_plain_load(Opcode op) {
  const wasm::OpcodeInfo& i = wasm::info(op);
  return i.prefix == 0 && i.code >= 0x28 && i.code <= 0x35;
}

// Numeric instructions (i32.eqz .. i64.extend32_s) other than those that
// trap: integer division and remainder, and the trapping float-to-integer
// truncations.
bool is_pure_numeric(Opcode op) {
  const wasm::OpcodeInfo& i = wasm::info(op);
  if (i.prefix != 0 || i.code < 0x45 || i.code > 0xC4) return false;
  switch (op) {
    case Opcode::I32DivS: case Opcode::I32DivU: case Opcode::I32RemS: case Opcode::I32RemU:
    case Opcode::I64DivS: case Opcode::I64DivU: case Opcode::I64RemS: case Opcode::I64RemU:
    case Opcode::I32TruncF32S: case Opcode::I32TruncF32U: case Opcode::I32TruncF64S: case Opcode::I32TruncF64U:
    case Opcode::I64TruncF32S: case Opcode::I64TruncF32U: case Opcode::I64TruncF64S: case Opcode::I64TruncF64U:
      return false;
    default: return true;
  }
}

bool reads_local(const Instr& i) { return i.op == Opcode::LocalGet || i.op == Opcode::LocalTee; }

// The address of the load at `ip` as local + constant, when it has one of
// the shapes find_load_groups accepts.
struct Address {
  uint32_t local;
  int32_t constant;
};
std::optional<Address> address_of(const std::vector<Instr>& body, size_t ip) {
  if (ip >= 1 && reads_local(body[ip - 1])) return Address{body[ip - 1].imm0, 0};
  if (ip >= 3 && body[ip - 1].op == Opcode::I32Add) {
    const Instr& x = body[ip - 3];
    const Instr& y = body[ip - 2];
    if (reads_local(x) && y.op == Opcode::I32Const) return Address{x.imm0, int32_t(uint32_t(y.imm64))};
    if (x.op == Opcode::I32Const && reads_local(y)) return Address{y.imm0, int32_t(uint32_t(x.imm64))};
  }
  return std::nullopt;
}

struct OpenGroup {
  std::vector<LoadGroupMember> members;
  int32_t constant = 0;   // the leader's C
  uint32_t offset = 0;    // the leader's O
  bool same_constant = true, zero_offsets = true;
  int64_t lo = 0, hi = 0;  // span of the members so far, relative to the leader
};
}  // namespace

LoadGroups find_load_groups(const std::vector<Instr>& body) {
  LoadGroups result;
  result.group_of.assign(body.size(), -1);
  std::map<uint32_t, OpenGroup> open;  // by base local
  auto close = [&](std::map<uint32_t, OpenGroup>::iterator it) {
    if (it->second.members.size() >= 2) {
      for (const LoadGroupMember& m : it->second.members) result.group_of[m.ip] = int32_t(result.groups.size());
      result.groups.push_back(LoadGroup{std::move(it->second.members)});
    }
    return open.erase(it);
  };
  auto close_all = [&] {
    for (auto it = open.begin(); it != open.end();) it = close(it);
  };
  for (size_t ip = 0; ip < body.size(); ++ip) {
    const Instr& instr = body[ip];
    if (uint32_t width = group_load_width(instr.op)) {
      std::optional<Address> address = address_of(body, ip);
      if (!address) continue;
      auto it = open.find(address->local);
      if (it != open.end()) {
        OpenGroup& g = it->second;
        const bool same_constant = address->constant == g.constant;
        const bool zero_offset = instr.imm1 == 0;
        const int64_t delta = (int64_t(address->constant) - g.constant) + (int64_t(instr.imm1) - g.offset);
        const int64_t lo = std::min(g.lo, delta), hi = std::max(g.hi, delta + width);
        if (((same_constant && g.same_constant) || (zero_offset && g.zero_offsets)) && hi - lo <= kMaxLoadGroupSpan) {
          g.same_constant &= same_constant;
          g.zero_offsets &= zero_offset;
          g.lo = lo;
          g.hi = hi;
          g.members.push_back({uint32_t(ip), delta, uint32_t(address->constant) - uint32_t(g.constant),
                               instr.imm1, width});
          continue;
        }
        close(it);
      }
      OpenGroup g;
      g.constant = address->constant;
      g.offset = instr.imm1;
      g.zero_offsets = instr.imm1 == 0;
      g.hi = width;
      g.members.push_back({uint32_t(ip), 0, 0, instr.imm1, width});
      open.emplace(address->local, std::move(g));
      continue;
    }
    switch (instr.op) {
      case Opcode::LocalSet: case Opcode::LocalTee: {
        auto it = open.find(instr.imm0);
        if (it != open.end()) close(it);
        continue;
      }
      case Opcode::LocalGet: case Opcode::GlobalGet: case Opcode::I32Const: case Opcode::I64Const:
      case Opcode::F32Const: case Opcode::F64Const: case Opcode::Drop: case Opcode::Select:
      case Opcode::SelectTyped: case Opcode::Nop:
        continue;
      default:
        if (is_plain_load(instr.op) || is_pure_numeric(instr.op)) continue;
        close_all();
    }
  }
  close_all();
  return result;
}

}  // namespace wasmgpu::spirv
