#include "spirv/access_groups.h"

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
  return i.cls == wasm::OpcodeClass::Memory && i.access.kind == wasm::AccessKind::Load;
}

// Numeric instructions and comparisons other than those that trap: integer
// division and remainder, and the trapping float-to-integer truncations.
bool is_pure_numeric(Opcode op) {
  const wasm::OpcodeInfo& i = wasm::info(op);
  return (i.cls == wasm::OpcodeClass::Numeric || i.cls == wasm::OpcodeClass::Comparison) && !i.may_trap;
}

bool reads_local(const Instr& i) { return i.op == Opcode::LocalGet || i.op == Opcode::LocalTee; }

// Values an instruction pops and pushes, for the instructions an operand of
// a grouped store may be computed by (no trap, no memory access other than a
// load, which `loads` tells); nullopt for every other instruction.
std::optional<std::pair<int, int>> operand_stack_effect(const Instr& instr, bool& loads) {
  if (is_plain_load(instr.op)) {
    loads = true;
    return std::pair{1, 1};
  }
  switch (instr.op) {
    case Opcode::LocalGet: case Opcode::GlobalGet: case Opcode::I32Const: case Opcode::I64Const:
    case Opcode::F32Const: case Opcode::F64Const:
      return std::pair{0, 1};
    case Opcode::LocalTee: return std::pair{1, 1};
    case Opcode::Select: case Opcode::SelectTyped: return std::pair{3, 1};
    default: break;
  }
  if (!is_pure_numeric(instr.op)) return std::nullopt;
  const wasm::OpcodeInfo& info = wasm::info(instr.op);
  return std::pair{int(info.params.size()), int(info.results.size())};
}

// The first instruction of the code that ends just before `end` and pushes
// `count` values, when it is made of operand_stack_effect's instructions;
// `loads` tells whether a load is among them.
std::optional<size_t> operands_start(const std::vector<Instr>& body, size_t end, int count, bool& loads) {
  int needed = count;
  for (size_t i = end; i-- > 0;) {
    std::optional<std::pair<int, int>> effect = operand_stack_effect(body[i], loads);
    if (!effect || effect->second > needed) return std::nullopt;
    needed += effect->first - effect->second;
    if (needed == 0) return i;
  }
  return std::nullopt;
}

bool writes_local(const std::vector<Instr>& body, size_t from, size_t to, uint32_t local) {
  for (size_t i = from; i < to; ++i)
    if ((body[i].op == Opcode::LocalSet || body[i].op == Opcode::LocalTee) && body[i].imm0 == local) return true;
  return false;
}

// What a read of a local holds, where some earlier `local.get R; i32.const
// C; i32.add; local.set|tee X` still tells: X = root + constant, the root a
// local whose value has not changed since (clang keeps `p + 4`, `p + 8`,
// `p + 12` of a loop's pointer `p` in locals of their own, set before the
// loop). Facts made inside a block, loop or if end with it, and a loop
// starts without those about locals it writes (its back edge may bring
// other values). Per instruction index: set at the `local.get`s it covers.
struct LocalAlias {
  uint32_t root;
  int32_t constant;
};
std::vector<std::optional<LocalAlias>> local_aliases(const std::vector<Instr>& body) {
  std::vector<std::optional<LocalAlias>> at(body.size());
  std::map<uint32_t, LocalAlias> facts;  // by aliased local
  struct Construct {
    size_t start;
    std::map<uint32_t, LocalAlias> on_entry;
  };
  std::vector<Construct> open;
  auto forget = [&](std::map<uint32_t, LocalAlias>& in, uint32_t local) {
    std::erase_if(in, [&](const auto& fact) { return fact.first == local || fact.second.root == local; });
  };
  // Where each local is written, in order, and where each construct ends:
  // whether a construct writes a local is then a binary search.
  std::map<uint32_t, std::vector<size_t>> writes;
  std::vector<size_t> end_of(body.size(), body.size());
  {
    std::vector<size_t> starts;
    for (size_t ip = 0; ip < body.size(); ++ip) {
      const Opcode op = body[ip].op;
      if (op == Opcode::Block || op == Opcode::Loop || op == Opcode::If) starts.push_back(ip);
      if (op == Opcode::End && !starts.empty()) {
        end_of[starts.back()] = ip;
        starts.pop_back();
      }
      if (op == Opcode::LocalSet || op == Opcode::LocalTee) writes[body[ip].imm0].push_back(ip);
    }
  }
  auto written_in = [&](uint32_t local, size_t from, size_t to) {
    auto it = writes.find(local);
    if (it == writes.end()) return false;
    auto first = std::lower_bound(it->second.begin(), it->second.end(), from);
    return first != it->second.end() && *first <= to;
  };
  // Drops the facts that a write of their local or root in [from, to] may break.
  auto forget_written = [&](size_t from, size_t to) {
    std::erase_if(facts, [&](const auto& fact) {
      return written_in(fact.first, from, to) || written_in(fact.second.root, from, to);
    });
  };
  for (size_t ip = 0; ip < body.size(); ++ip) {
    const Instr& instr = body[ip];
    switch (instr.op) {
      case Opcode::Block: case Opcode::If: open.push_back({ip, facts}); break;
      case Opcode::Loop:
        open.push_back({ip, facts});
        forget_written(ip, end_of[ip]);
        break;
      case Opcode::Else:
        if (!open.empty()) facts = open.back().on_entry;
        break;
      case Opcode::End:
        if (open.empty()) break;
        // What held on entry and was not written inside holds at the end.
        facts = std::move(open.back().on_entry);
        forget_written(open.back().start, ip);
        open.pop_back();
        break;
      case Opcode::LocalGet: {
        auto it = facts.find(instr.imm0);
        if (it != facts.end()) at[ip] = it->second;
        break;
      }
      case Opcode::LocalSet: case Opcode::LocalTee: {
        const uint32_t local = instr.imm0;
        forget(facts, local);
        if (ip >= 3 && body[ip - 1].op == Opcode::I32Add && body[ip - 2].op == Opcode::I32Const &&
            reads_local(body[ip - 3]) && body[ip - 3].imm0 != local) {
          auto from = facts.find(body[ip - 3].imm0);
          LocalAlias base = from != facts.end() ? from->second : LocalAlias{body[ip - 3].imm0, 0};
          facts[local] = {base.root, int32_t(uint32_t(base.constant) + uint32_t(body[ip - 2].imm64))};
        }
        break;
      }
      default: break;
    }
  }
  return at;
}

// The address of the load at `ip` as the sum of one or two locals'
// values plus a constant, when it has one of the shapes find_load_groups
// accepts; a local that is an alias (local_aliases) counts as its root.
struct Address {
  uint32_t local;
  uint32_t other = kNoLocal;  // the second local of a sum, the larger index
  int32_t constant = 0;
  static constexpr uint32_t kNoLocal = UINT32_MAX;
  bool same_locals(const Address& a) const { return local == a.local && other == a.other; }
};
std::optional<Address> address_of(const std::vector<Instr>& body, const std::vector<std::optional<LocalAlias>>& aliases,
                                  size_t ip) {
  auto resolved = [&](size_t read) {
    if (body[read].op == Opcode::LocalGet && aliases[read]) return *aliases[read];
    return LocalAlias{body[read].imm0, 0};
  };
  if (ip >= 1 && reads_local(body[ip - 1])) {
    LocalAlias a = resolved(ip - 1);
    return Address{a.root, Address::kNoLocal, a.constant};
  }
  if (ip < 3 || body[ip - 1].op != Opcode::I32Add) return std::nullopt;
  const Instr& x = body[ip - 3];
  const Instr& y = body[ip - 2];
  if (reads_local(x) && y.op == Opcode::I32Const) {
    LocalAlias a = resolved(ip - 3);
    return Address{a.root, Address::kNoLocal, int32_t(uint32_t(a.constant) + uint32_t(y.imm64))};
  }
  if (x.op == Opcode::I32Const && reads_local(y)) {
    LocalAlias a = resolved(ip - 2);
    return Address{a.root, Address::kNoLocal, int32_t(uint32_t(a.constant) + uint32_t(x.imm64))};
  }
  if (!reads_local(y)) return std::nullopt;
  // local + local: `local.get P; local.get Q; i32.add`, or `local.get P;
  // <pure code>; local.tee Q; i32.add`.
  size_t p_read = ip - 3;
  if (y.op == Opcode::LocalTee) {
    bool loads = false;
    std::optional<size_t> start = operands_start(body, ip - 2, 1, loads);
    if (!start || *start == 0 || loads) return std::nullopt;
    p_read = *start - 1;
  }
  if (body[p_read].op != Opcode::LocalGet) return std::nullopt;
  LocalAlias p = resolved(p_read), q = resolved(ip - 2);
  // P's value must still be what it was when read: the tee's operand may
  // not write P or its root (the group's later members read them anew).
  if (writes_local(body, p_read + 1, ip - 2, body[p_read].imm0) || writes_local(body, p_read + 1, ip - 2, p.root))
    return std::nullopt;
  if (p.root == q.root) return std::nullopt;
  return Address{std::min(p.root, q.root), std::max(p.root, q.root), int32_t(uint32_t(p.constant) + uint32_t(q.constant))};
}

// A group being built: the membership rules shared by loads and stores.
class OpenGroup {
 public:
  OpenGroup(uint32_t ip, Address address, uint32_t offset, uint32_t width)
      : constant_(address.constant), offset_(offset), zero_offsets_(offset == 0), hi_(width) {
    members_.push_back({ip, 0, 0, offset, width});
  }
  // Adds the access if its address relates to the first member's as
  // access_groups.h allows; returns whether it did.
  bool add(uint32_t ip, Address address, uint32_t offset, uint32_t width) {
    const bool same_constant = address.constant == constant_;
    const bool zero_offset = offset == 0;
    const int64_t delta = (int64_t(address.constant) - constant_) + (int64_t(offset) - offset_);
    const int64_t lo = std::min(lo_, delta), hi = std::max(hi_, delta + width);
    if (!((same_constant && same_constant_) || (zero_offset && zero_offsets_)) || hi - lo > kMaxAccessGroupSpan)
      return false;
    same_constant_ &= same_constant;
    zero_offsets_ &= zero_offset;
    lo_ = lo;
    hi_ = hi;
    members_.push_back({ip, delta, uint32_t(address.constant) - uint32_t(constant_), offset, width});
    return true;
  }
  // Records the group in `result` when it has two members or more.
  void close(AccessGroups& result) {
    if (members_.size() < 2) return;
    for (const GroupMember& m : members_) result.group_of[m.ip] = int32_t(result.groups.size());
    result.groups.push_back(AccessGroup{std::move(members_)});
  }

 private:
  std::vector<GroupMember> members_;
  int32_t constant_;  // the first member's C
  uint32_t offset_;   // the first member's O
  bool same_constant_ = true, zero_offsets_;
  int64_t lo_ = 0, hi_;  // span of the members so far, relative to the first
};

uint32_t group_store_width(Opcode op) {
  switch (op) {
    case Opcode::I32Store: case Opcode::F32Store: return 4;
    case Opcode::I64Store: case Opcode::F64Store: return 8;
    default: return 0;
  }
}
}  // namespace

AccessGroups find_load_groups(const std::vector<Instr>& body) {
  AccessGroups result;
  result.group_of.assign(body.size(), -1);
  const std::vector<std::optional<LocalAlias>> aliases = local_aliases(body);
  std::map<std::pair<uint32_t, uint32_t>, OpenGroup> open;  // by the address's locals
  auto close_all = [&] {
    for (auto& [local, group] : open) group.close(result);
    open.clear();
  };
  for (size_t ip = 0; ip < body.size(); ++ip) {
    const Instr& instr = body[ip];
    if (uint32_t width = group_load_width(instr.op)) {
      std::optional<Address> address = address_of(body, aliases, ip);
      if (!address) continue;
      const std::pair key{address->local, address->other};
      auto it = open.find(key);
      if (it != open.end()) {
        if (it->second.add(uint32_t(ip), *address, instr.imm1, width)) continue;
        it->second.close(result);
        open.erase(it);
      }
      open.emplace(key, OpenGroup(uint32_t(ip), *address, instr.imm1, width));
      continue;
    }
    switch (instr.op) {
      case Opcode::LocalSet: case Opcode::LocalTee: {
        for (auto it = open.begin(); it != open.end();) {
          if (it->first.first != instr.imm0 && it->first.second != instr.imm0) {
            ++it;
            continue;
          }
          it->second.close(result);
          it = open.erase(it);
        }
        continue;
      }
      // Entering a block is no branch: the code after it runs next.
      case Opcode::Block:
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

AccessGroups find_store_groups(const std::vector<Instr>& body) {
  AccessGroups result;
  result.group_of.assign(body.size(), -1);
  const std::vector<std::optional<LocalAlias>> aliases = local_aliases(body);
  std::optional<OpenGroup> open;
  std::optional<Address> open_address;  // the first member's
  size_t next_start = 0;  // where the open group's next member's operands must start
  auto close = [&] {
    if (open) open->close(result);
    open.reset();
  };
  for (size_t ip = 0; ip < body.size(); ++ip) {
    const uint32_t width = group_store_width(body[ip].op);
    if (width == 0) continue;
    // value: [value_start, ip); address: [address_start, value_start). The
    // first member's operands may load (they run before any member is
    // stored); a later member's may not.
    bool loads = false;
    std::optional<size_t> value_start = operands_start(body, ip, 1, loads);
    std::optional<size_t> address_start = value_start ? operands_start(body, *value_start, 1, loads) : std::nullopt;
    std::optional<Address> address = value_start ? address_of(body, aliases, *value_start) : std::nullopt;
    auto writes_address_local = [&](size_t from) {
      return writes_local(body, from, ip, address->local) ||
             (address->other != Address::kNoLocal && writes_local(body, from, ip, address->other));
    };
    if (!address_start || !address || writes_address_local(*value_start)) {
      close();
      continue;
    }
    const bool follows = open && open_address->same_locals(*address) && *address_start == next_start && !loads &&
                         !writes_address_local(*address_start);
    if (!follows || !open->add(uint32_t(ip), *address, body[ip].imm1, width)) {
      close();
      open.emplace(uint32_t(ip), *address, body[ip].imm1, width);
      open_address = address;
    }
    next_start = ip + 1;
  }
  close();
  return result;
}

}  // namespace wasmgpu::spirv
