#include "abi/launch_proof.h"

#include <algorithm>

namespace wasmgpu::abi {

namespace {

// Exact integers: products of two 32-bit ranges and more fit, and a bound
// far outside the 32-bit range just fails the proof.
using Wide = __int128;
constexpr Wide kTwo32 = Wide(1) << 32;
constexpr Wide kLimit = Wide(1) << 80;

struct Interval {
  Wide lo = 0, hi = 0;
  bool single() const { return lo == hi; }
  // The wasm i32 value is the exact value itself.
  bool in_u32() const { return lo >= 0 && hi < kTwo32; }
};

using Bound = std::optional<Interval>;  // nullopt: unknown

Bound make(Wide lo, Wide hi) {
  if (lo < -kLimit || hi > kLimit || lo > hi) return std::nullopt;
  return Interval{lo, hi};
}

Bound range(uint64_t lo, uint64_t hi) { return make(Wide(lo), Wide(hi)); }

class Evaluator {
 public:
  Evaluator(const LaunchProof& proof, const LaunchRanges& ranges, std::span<const uint64_t> args)
      : proof_(proof),
        ranges_(ranges),
        args_(args),
        memo_(proof.nodes.size()),
        known_(proof.nodes.size()),
        refined_(proof.nodes.size()) {}

  // Whether `access` lies in `region` for every invocation that reaches it.
  bool holds(const ProofAccess& access, const ProvenRegion& region) {
    std::fill(refined_.begin(), refined_.end(), std::nullopt);
    forget();
    for (uint32_t index : access.constraints) {
      if (index >= proof_.constraints.size()) return false;
      if (!refine(proof_.constraints[index])) return true;  // no invocation gets there
      forget();
    }
    Bound address = eval(access.address);
    if (empty_) return true;
    if (!address || !address->in_u32()) return false;
    return address->lo + Wide(access.lo) >= Wide(region.wasm_base) &&
           address->hi + Wide(access.hi) <= Wide(region.wasm_base) + Wide(region.size);
  }

 private:
  void forget() {
    std::fill(known_.begin(), known_.end(), false);
    empty_ = false;
  }

  // Narrows the constrained variable's range; false when none is left.
  bool refine(const ProofConstraint& c) {
    if (c.var >= proof_.nodes.size()) return true;
    Bound var = eval(c.var), bound = eval(c.bound);
    if (empty_) return false;
    if (!var || !bound || !bound->in_u32()) return true;
    // The compare saw var + add as the exact value only where it did not wrap.
    if (var->lo + c.add < 0 || var->hi + c.add >= kTwo32) return true;
    Wide lo = var->lo, hi = var->hi;
    using R = ProofConstraint::Relation;
    switch (c.relation) {
      case R::Less: hi = std::min(hi, bound->hi - 1 - c.add); break;
      case R::LessEqual: hi = std::min(hi, bound->hi - c.add); break;
      case R::Greater: lo = std::max(lo, bound->lo + 1 - c.add); break;
      case R::GreaterEqual: lo = std::max(lo, bound->lo - c.add); break;
      case R::Equal:
        lo = std::max(lo, bound->lo - c.add);
        hi = std::min(hi, bound->hi - c.add);
        break;
      case R::NotEqual:
        if (bound->single()) {
          if (lo == bound->lo - c.add) ++lo;
          if (hi == bound->lo - c.add) --hi;
        }
        break;
    }
    if (lo > hi) return false;
    refined_[c.var] = Interval{lo, hi};
    return true;
  }

  Bound eval(uint32_t node) {
    if (node >= proof_.nodes.size()) return std::nullopt;
    if (known_[node]) return memo_[node];
    Bound value = compute(proof_.nodes[node], node);
    if (value && refined_[node]) {
      value = make(std::max(value->lo, refined_[node]->lo), std::min(value->hi, refined_[node]->hi));
      if (!value) empty_ = true;
    }
    memo_[node] = value;
    known_[node] = true;
    return value;
  }

  static Bound id_range(uint64_t extent) { return extent == 0 ? std::nullopt : range(0, extent - 1); }

  Bound compute(const ProofNode& n, uint32_t self) {
    using Op = ProofNode::Op;
    const LaunchRanges& r = ranges_;
    // Dimensions above 2 read as 0 (ids) or 1 (sizes, counts), as the shader's do.
    const bool per_dimension = n.op >= Op::GlobalId && n.op <= Op::WorkgroupCount;
    if (per_dimension && n.a >= 3)
      return n.op == Op::WorkgroupSize || n.op == Op::WorkgroupCount ? range(1, 1) : range(0, 0);
    auto operand = [&](uint32_t index) -> Bound { return index < self ? eval(index) : std::nullopt; };
    switch (n.op) {
      case Op::Const: return make(n.value, n.value);
      case Op::Arg:
        if (n.a == 0 || n.a > args_.size()) return std::nullopt;
        return range(uint32_t(args_[n.a - 1]), uint32_t(args_[n.a - 1]));
      case Op::Index: return r.count == 0 ? std::nullopt : range(0, r.count - 1);
      case Op::GlobalId:
        if (!r.grid) return n.a == 0 ? id_range(r.count) : range(0, 0);
        return id_range(uint64_t(r.workgroups[n.a]) * r.workgroup_size[n.a]);
      case Op::LocalId: return id_range(r.workgroup_size[n.a]);
      case Op::WorkgroupId: return id_range(r.workgroups[n.a]);
      case Op::WorkgroupSize: return range(r.workgroup_size[n.a], r.workgroup_size[n.a]);
      case Op::WorkgroupCount: return range(r.workgroups[n.a], r.workgroups[n.a]);
      case Op::LocalIndex: return id_range(uint64_t(r.workgroup_size[0]) * r.workgroup_size[1] * r.workgroup_size[2]);
      case Op::LoopVar: {
        Bound entry = operand(n.a), step = operand(n.b), end = operand(n.c);
        if (!entry || !step || !end || !entry->in_u32() || !step->in_u32() || !end->in_u32() || step->lo < 1)
          return std::nullopt;
        const bool singles = entry->single() && step->single() && end->single();
        Wide last = std::max(entry->hi, end->hi - 1);
        if (n.value == 1) {
          // Round again while != end: bounded only when the steps land on it.
          if (!singles || entry->lo >= end->lo || (end->lo - entry->lo) % step->lo != 0) return std::nullopt;
          last = end->lo - step->lo;
        } else if (singles) {  // the last value below end it can take
          last = entry->lo < end->lo ? entry->lo + step->lo * ((end->lo - 1 - entry->lo) / step->lo) : entry->lo;
        }
        // Each step from a value up to `last` must not wrap past 2^32.
        if (last + step->hi >= kTwo32) return std::nullopt;
        return make(entry->lo, last);
      }
      case Op::Add:
      case Op::Sub:
      case Op::Mul: {
        Bound a = operand(n.a), b = operand(n.b);
        if (!a || !b) return std::nullopt;
        if (n.op == Op::Add) return make(a->lo + b->lo, a->hi + b->hi);
        if (n.op == Op::Sub) return make(a->lo - b->hi, a->hi - b->lo);
        constexpr Wide kFactor = Wide(1) << 62;  // products of two stay exact in 128 bits
        if (a->lo < -kFactor || a->hi > kFactor || b->lo < -kFactor || b->hi > kFactor) return std::nullopt;
        const Wide p[4] = {a->lo * b->lo, a->lo * b->hi, a->hi * b->lo, a->hi * b->hi};
        return make(*std::min_element(p, p + 4), *std::max_element(p, p + 4));
      }
      case Op::Shl: {
        Bound a = operand(n.a);
        if (!a || n.value < 0 || n.value >= 32) return std::nullopt;
        return make(a->lo * (Wide(1) << n.value), a->hi * (Wide(1) << n.value));
      }
      case Op::ShrU:
      case Op::And:
      case Op::DivU:
      case Op::RemU: {
        Bound a = operand(n.a);
        if (!a || !a->in_u32() || n.value < 0 || n.value >= kTwo32) return std::nullopt;
        const Wide v = n.value;
        if (n.op == Op::ShrU) return v < 32 ? make(a->lo >> int(v), a->hi >> int(v)) : std::nullopt;
        if (n.op == Op::And) return a->single() ? make(a->lo & v, a->lo & v) : make(0, std::min(a->hi, v));
        if (v == 0) return std::nullopt;
        if (n.op == Op::DivU) return make(a->lo / v, a->hi / v);
        return a->lo / v == a->hi / v ? make(a->lo % v, a->hi % v) : make(0, std::min(a->hi, v - 1));
      }
    }
    return std::nullopt;
  }

  const LaunchProof& proof_;
  const LaunchRanges& ranges_;
  std::span<const uint64_t> args_;
  std::vector<Bound> memo_;
  std::vector<bool> known_;
  std::vector<Bound> refined_;  // ranges narrowed by the access's constraints
  bool empty_ = false;          // a refined range became empty: the access is not reached
};

// What a launch fixes of each node's low bits, whatever the invocation: the
// value modulo 2^bits. wasm's i32 arithmetic is modulo 2^32, so residues
// modulo smaller powers of two are exact through + - * and shifts.
class LowBits {
 public:
  struct Known {
    uint32_t value = 0;  // < 2^bits
    uint32_t bits = 0;   // 0..32
  };

  LowBits(const LaunchProof& proof, const LaunchRanges& ranges, std::span<const uint64_t> args) {
    known_.reserve(proof.nodes.size());
    for (const ProofNode& n : proof.nodes) known_.push_back(of(n, ranges, args));
  }
  Known operator[](uint32_t node) const { return node < known_.size() ? known_[node] : Known{}; }

 private:
  static uint32_t mask(uint32_t bits) { return bits >= 32 ? ~0u : (1u << bits) - 1; }
  static Known make(uint64_t value, uint32_t bits) {
    bits = std::min(bits, 32u);
    return {uint32_t(value) & mask(bits), bits};
  }
  // Low bits known to be zero.
  static uint32_t zeros(Known k) {
    if (k.value == 0) return k.bits;
    return uint32_t(__builtin_ctz(k.value));
  }
  Known of(const ProofNode& n, const LaunchRanges& ranges, std::span<const uint64_t> args) const {
    using Op = ProofNode::Op;
    auto at = [&](uint32_t node) { return node < known_.size() ? known_[node] : Known{}; };
    switch (n.op) {
      case Op::Const: return make(uint64_t(n.value), 32);
      case Op::Arg: return n.a >= 1 && n.a <= args.size() ? make(args[n.a - 1], 32) : Known{};
      case Op::WorkgroupSize: return n.a < 3 ? make(ranges.workgroup_size[n.a], 32) : Known{};
      case Op::LoopVar: {
        // entry + j * step: fixed modulo the powers of two that divide step.
        Known entry = at(n.a);
        return make(entry.value, std::min(entry.bits, zeros(at(n.b))));
      }
      case Op::Add:
      case Op::Sub: {
        Known a = at(n.a), b = at(n.b);
        const uint32_t bits = std::min(a.bits, b.bits);
        return make(n.op == Op::Add ? uint64_t(a.value) + b.value : uint64_t(a.value) - b.value, bits);
      }
      case Op::Mul: {
        Known a = at(n.a), b = at(n.b);
        Known product = make(uint64_t(a.value) * b.value, std::min(a.bits, b.bits));
        const uint32_t z = zeros(a) + zeros(b);
        return z > product.bits ? make(0, z) : product;
      }
      case Op::Shl: {
        Known a = at(n.a);
        const uint32_t s = uint32_t(n.value) & 31;
        return make(uint64_t(a.value) << s, a.bits + s);
      }
      case Op::ShrU: {
        Known a = at(n.a);
        const uint32_t s = uint32_t(n.value) & 31;
        return a.bits == 32 ? make(a.value >> s, 32) : make(a.value >> s, a.bits > s ? a.bits - s : 0);
      }
      case Op::And: {
        // Bits that the constant clears are known too.
        Known a = at(n.a);
        const uint32_t v = uint32_t(n.value);
        uint32_t bits = a.bits;
        while (bits < 32 && !((v >> bits) & 1)) ++bits;
        return make(a.value & v, bits);
      }
      case Op::RemU: {
        Known a = at(n.a);
        const uint64_t v = uint64_t(n.value);
        if (v == 0 || (v & (v - 1)) != 0) return Known{};
        const uint32_t log = uint32_t(__builtin_ctzll(v));
        return make(a.value, std::min(a.bits, log));
      }
      default: return Known{};
    }
  }
  std::vector<Known> known_;
};

// Whether the access's first byte is a multiple of its `align` as a device
// address in `region`, in every invocation.
bool aligned(const ProofAccess& access, const ProvenRegion& region, const LowBits& low_bits) {
  if (access.align <= 1) return true;
  if ((access.align & (access.align - 1)) != 0 || access.align > (1u << 16)) return false;
  const uint32_t log = uint32_t(__builtin_ctz(access.align));
  const LowBits::Known address = low_bits[access.address];
  if (address.bits < log) return false;
  const uint64_t device = uint64_t(address.value) + access.lo + (region.device_base - region.wasm_base);
  return (device & (access.align - 1)) == 0;
}

}  // namespace

uint32_t proven_params(const LaunchProof& proof, const LaunchRanges& ranges, std::span<const uint64_t> args,
                       std::span<const std::optional<ProvenRegion>> regions) {
  if (proof.accesses.empty() || ranges.count == 0) return 0;
  Evaluator evaluator(proof, ranges, args);
  // Most proofs ask no alignment: then the low bits are not worked out.
  const bool asks_alignment =
      std::any_of(proof.accesses.begin(), proof.accesses.end(), [](const ProofAccess& a) { return a.align > 1; });
  const LowBits low_bits(asks_alignment ? proof : LaunchProof{}, ranges, args);
  uint32_t recorded = 0, failed = 0;
  for (const ProofAccess& access : proof.accesses) {
    if (access.param == 0 || access.param >= 32) continue;
    const uint32_t bit = uint32_t(1) << access.param;
    recorded |= bit;
    if (failed & bit) continue;
    const size_t slot = access.param - 1;
    if (slot >= regions.size() || !regions[slot] || !aligned(access, *regions[slot], low_bits) ||
        !evaluator.holds(access, *regions[slot]))
      failed |= bit;
  }
  return recorded & ~failed;
}

}  // namespace wasmgpu::abi
