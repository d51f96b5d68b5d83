#include "frontend/access_groups.h"

#include <algorithm>
#include <map>
#include <optional>

#include "wasm/opcode.h"

namespace wasmgpu::frontend {

namespace {
using wasm::Instr;
using wasm::Opcode;

// Only memory 0's accesses group: other memories (multi-memory) take paths of their own.
uint32_t group_load_width(const Instr& instr) {
  if (instr.memory != 0) return 0;
  switch (instr.op) {
    case Opcode::I32Load:
    case Opcode::F32Load: return 4;
    case Opcode::I64Load:
    case Opcode::F64Load: return 8;
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

// Whether an operand of a grouped store may be computed by the instruction:
// it neither traps nor touches memory other than by a load, which `loads`
// tells.
bool pure_operand_code(const Instr& instr, bool& loads) {
  if (is_plain_load(instr.op)) {
    loads = true;
    return true;
  }
  switch (instr.op) {
    case Opcode::LocalGet:
    case Opcode::GlobalGet:
    case Opcode::I32Const:
    case Opcode::I64Const:
    case Opcode::F32Const:
    case Opcode::F64Const:
    case Opcode::LocalTee:
    case Opcode::Select:
    case Opcode::SelectTyped: return true;
    default: return is_pure_numeric(instr.op);
  }
}

// Where each local is written (local.set, local.tee), in code order.
class LocalWrites {
 public:
  explicit LocalWrites(const std::vector<Instr>& body) {
    for (size_t ip = 0; ip < body.size(); ++ip)
      if (body[ip].op == Opcode::LocalSet || body[ip].op == Opcode::LocalTee) writes_[body[ip].imm0].push_back(ip);
  }
  // Whether an instruction in [from, to) writes `local`.
  bool in(uint32_t local, size_t from, size_t to) const {
    auto it = writes_.find(local);
    if (it == writes_.end()) return false;
    auto first = std::lower_bound(it->second.begin(), it->second.end(), from);
    return first != it->second.end() && *first < to;
  }

 private:
  std::map<uint32_t, std::vector<size_t>> writes_;
};

// A local's value as another local's (the root) plus a constant.
struct LocalAlias {
  uint32_t root;
  int32_t constant;
};

// What the analysis reads of one function: its body, its operand flow
// (wasm/operand_flow.h), where locals are written, and what each read of a
// local holds (local_aliases).
struct Code {
  Code(const std::vector<Instr>& body, const wasm::OperandFlow& flow) : body(body), flow(flow), writes(body) {}
  const std::vector<Instr>& body;
  const wasm::OperandFlow& flow;
  LocalWrites writes;
  std::vector<std::optional<LocalAlias>> aliases;  // per instruction index: set at local.get and local.tee

  // The instruction that produces operand k of body[ip], when it is an
  // instruction's result (not a join, not dead code's unknown value).
  std::optional<size_t> producer(size_t ip, size_t k) const {
    std::optional<uint32_t> p = flow.producer(ip, k);
    return p ? std::optional<size_t>(*p) : std::nullopt;
  }
  // The value that the local.get or local.tee at `read` produces, as root
  // plus constant (an alias counts as its root, unless that root is
  // `not_root`), provided that the root is not written after the read and
  // before `use`: then the root still holds there what it held at the read.
  std::optional<LocalAlias> local_value(size_t read, size_t use, uint32_t not_root = UINT32_MAX) const {
    const uint32_t local = body[read].imm0;
    LocalAlias value{local, 0};
    if (aliases[read] && aliases[read]->root != not_root) value = *aliases[read];
    if (writes.in(value.root, read + 1, use)) return std::nullopt;
    return value;
  }
  // Operand k of body[ip] as a local's value plus a constant: a read of the
  // local, or an i32.add of such a read and an i32.const (either operand
  // first, wherever the code computes them).
  std::optional<LocalAlias> local_plus_constant(size_t ip, size_t k, uint32_t not_root = UINT32_MAX) const {
    std::optional<size_t> p = producer(ip, k);
    if (!p) return std::nullopt;
    if (reads_local(body[*p])) return local_value(*p, ip, not_root);
    if (body[*p].op != Opcode::I32Add) return std::nullopt;
    for (size_t c = 0; c < 2; ++c) {
      std::optional<size_t> constant = producer(*p, c), read = producer(*p, 1 - c);
      if (!constant || !read || body[*constant].op != Opcode::I32Const || !reads_local(body[*read])) continue;
      std::optional<LocalAlias> value = local_value(*read, ip, not_root);
      if (!value) return std::nullopt;
      return LocalAlias{value->root, int32_t(uint32_t(value->constant) + uint32_t(body[*constant].imm64))};
    }
    return std::nullopt;
  }
  // The first instruction of the code that computes operand k of body[ip],
  // when that code ends at `end` - 1, fills [first, end) and is made of
  // pure_operand_code's instructions alone; `loads` tells whether a load is
  // among them.
  std::optional<size_t> operand_code_start(size_t ip, size_t k, size_t end, bool& loads) const {
    std::optional<size_t> root = producer(ip, k);
    if (!root || *root + 1 != end) return std::nullopt;
    size_t first = *root, count = 0;
    std::vector<size_t> pending{*root};
    while (!pending.empty()) {
      const size_t at = pending.back();
      pending.pop_back();
      if (!pure_operand_code(body[at], loads)) return std::nullopt;
      ++count;
      first = std::min(first, at);
      for (size_t i = 0; i < flow.operands(at).size(); ++i) {
        std::optional<size_t> p = producer(at, i);
        if (!p) return std::nullopt;
        pending.push_back(*p);
      }
    }
    if (end - first != count) return std::nullopt;  // other code lies between
    return first;
  }
};

// What each read of a local holds, where some earlier `local.set|tee X` of
// a local's value plus a constant (Code::local_plus_constant) still tells:
// X = root + constant, the root a local whose value has not changed since
// (clang keeps `p + 4`, `p + 8`, `p + 12` of a loop's pointer `p` in locals
// of their own, set before the loop). Facts made inside a block, loop or if
// end with it, and a loop starts without those about locals it writes (its
// back edge may bring other values). Set in code.aliases at the
// `local.get`s it covers, and at each `local.tee` for the value it leaves.
void local_aliases(Code& code) {
  const std::vector<Instr>& body = code.body;
  code.aliases.assign(body.size(), std::nullopt);
  std::map<uint32_t, LocalAlias> facts;  // by aliased local
  struct Construct {
    size_t start;
    std::map<uint32_t, LocalAlias> on_entry;
  };
  std::vector<Construct> open;
  auto forget = [&](std::map<uint32_t, LocalAlias>& in, uint32_t local) {
    std::erase_if(in, [&](const auto& fact) { return fact.first == local || fact.second.root == local; });
  };
  // Where each construct ends.
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
    }
  }
  // Drops the facts that a write of their local or root in [from, to] may break.
  auto forget_written = [&](size_t from, size_t to) {
    std::erase_if(facts, [&](const auto& fact) {
      return code.writes.in(fact.first, from, to + 1) || code.writes.in(fact.second.root, from, to + 1);
    });
  };
  for (size_t ip = 0; ip < body.size(); ++ip) {
    const Instr& instr = body[ip];
    switch (instr.op) {
      case Opcode::Block:
      case Opcode::If: open.push_back({ip, facts}); break;
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
        if (it != facts.end()) code.aliases[ip] = it->second;
        break;
      }
      case Opcode::LocalSet:
      case Opcode::LocalTee: {
        const uint32_t local = instr.imm0;
        forget(facts, local);
        // The stored value as a read of another local plus a constant, that
        // read's alias counting as its root unless the root is the local
        // written here.
        std::optional<size_t> sum = code.producer(ip, 0);
        std::optional<LocalAlias> value;
        if (sum && body[*sum].op == Opcode::I32Add) value = code.local_plus_constant(ip, 0, local);
        if (value && value->root != local) facts[local] = *value;
        if (instr.op == Opcode::LocalTee) {
          auto it = facts.find(local);
          if (it != facts.end()) code.aliases[ip] = it->second;
        }
        break;
      }
      default: break;
    }
  }
}

// The address operand of the access at `ip` as the sum of one or two
// locals' values plus a constant, when it has one of the shapes
// find_load_groups accepts; a local that is an alias (local_aliases) counts
// as its root.
struct Address {
  uint32_t local;
  uint32_t other = kNoLocal;  // the second local of a sum, the larger index
  int32_t constant = 0;
  static constexpr uint32_t kNoLocal = UINT32_MAX;
  bool same_locals(const Address& a) const { return local == a.local && other == a.other; }
};
std::optional<Address> address_of(const Code& code, size_t ip) {
  if (std::optional<LocalAlias> a = code.local_plus_constant(ip, 0))
    return Address{a->root, Address::kNoLocal, a->constant};
  // local + local.
  std::optional<size_t> sum = code.producer(ip, 0);
  if (!sum || code.body[*sum].op != Opcode::I32Add) return std::nullopt;
  std::optional<size_t> x = code.producer(*sum, 0), y = code.producer(*sum, 1);
  if (!x || !y || !reads_local(code.body[*x]) || !reads_local(code.body[*y])) return std::nullopt;
  std::optional<LocalAlias> p = code.local_value(*x, ip), q = code.local_value(*y, ip);
  if (!p || !q || p->root == q->root) return std::nullopt;
  return Address{std::min(p->root, q->root), std::max(p->root, q->root),
                 int32_t(uint32_t(p->constant) + uint32_t(q->constant))};
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

uint32_t group_store_width(const Instr& instr) {
  if (instr.memory != 0) return 0;
  switch (instr.op) {
    case Opcode::I32Store:
    case Opcode::F32Store: return 4;
    case Opcode::I64Store:
    case Opcode::F64Store: return 8;
    default: return 0;
  }
}
}  // namespace

AccessGroups find_load_groups(const std::vector<Instr>& body, const wasm::OperandFlow& flow) {
  AccessGroups result;
  result.group_of.assign(body.size(), -1);
  Code code(body, flow);
  local_aliases(code);
  std::map<std::pair<uint32_t, uint32_t>, OpenGroup> open;  // by the address's locals
  auto close_all = [&] {
    for (auto& [local, group] : open) group.close(result);
    open.clear();
  };
  for (size_t ip = 0; ip < body.size(); ++ip) {
    const Instr& instr = body[ip];
    if (uint32_t width = group_load_width(instr)) {
      std::optional<Address> address = address_of(code, ip);
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
      case Opcode::LocalSet:
      case Opcode::LocalTee: {
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
      case Opcode::LocalGet:
      case Opcode::GlobalGet:
      case Opcode::I32Const:
      case Opcode::I64Const:
      case Opcode::F32Const:
      case Opcode::F64Const:
      case Opcode::Drop:
      case Opcode::Select:
      case Opcode::SelectTyped:
      case Opcode::Nop: continue;
      default:
        if (is_plain_load(instr.op) || is_pure_numeric(instr.op)) continue;
        close_all();
    }
  }
  close_all();
  return result;
}

AccessGroups find_store_groups(const std::vector<Instr>& body, const wasm::OperandFlow& flow) {
  AccessGroups result;
  result.group_of.assign(body.size(), -1);
  Code code(body, flow);
  local_aliases(code);
  std::optional<OpenGroup> open;
  std::optional<Address> open_address;  // the first member's
  size_t next_start = 0;                // where the open group's next member's operands must start
  auto close = [&] {
    if (open) open->close(result);
    open.reset();
  };
  for (size_t ip = 0; ip < body.size(); ++ip) {
    const uint32_t width = group_store_width(body[ip]);
    if (width == 0) continue;
    // value: [value_start, ip); address: [address_start, value_start). The
    // first member's operands may load (they run before any member is
    // stored); a later member's may not.
    bool loads = false;
    std::optional<size_t> value_start = code.operand_code_start(ip, 1, ip, loads);
    std::optional<size_t> address_start =
        value_start ? code.operand_code_start(ip, 0, *value_start, loads) : std::nullopt;
    std::optional<Address> address = address_start ? address_of(code, ip) : std::nullopt;
    auto writes_address_local = [&](size_t from) {
      return code.writes.in(address->local, from, ip) ||
             (address->other != Address::kNoLocal && code.writes.in(address->other, from, ip));
    };
    if (!address) {
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

}  // namespace wasmgpu::frontend
