// Grouped loads (load_groups.h): the members of a group are issued at its
// leader behind one range check, when every member would take the same fast
// path on its own: the typed Parameter path of one pointer argument, or the
// speculative shared-memory path of Indexed addresses. As for single
// accesses, the loads run before the check is known (at a safe address when
// it fails), and when it fails each member then takes its general path, in
// code order, at its own effective address.
//
// On the Parameter path, four 4-byte members at consecutive addresses whose
// first is proven 16-aligned are one 16-byte vector load (two, 8-aligned, an
// 8-byte one): the wide accesses a hand-written shader gets from vec4 types.
// Shared memory is an array of words, so there each member is one word load
// at a common base index plus a constant, which a driver can combine.
#include <algorithm>

#include "spirv/runtime_helpers.h"
#include "spirv/workgroup_memory.h"

namespace wasmgpu::spirv {

namespace {
using Op = spv::Op;

// A run of members read by one device access.
struct Chunk {
  int64_t delta;      // of its first byte, relative to the leader
  uint32_t words;     // 1, 2 or 4 words of 4 bytes, or 0 for one 8-byte member
};
}  // namespace

std::vector<uint32_t> RuntimeHelpers::load_group(FunctionBuilder& f, uint32_t leader_ea,
                                                 std::span<const GroupedLoad> members) {
  // Every member on the same path, decided as load() would.
  enum class Kind { Parameter, Shared } kind;
  const GroupedLoad& leader = members[0];
  uint32_t param = 0;
  if (parameter_path(leader.fact, leader.offset, leader.width) == AccessPath::Parameter) {
    kind = Kind::Parameter;
    param = leader.fact->param;
  } else if (k_.shared.variable != 0 &&
             indexed_path(leader.fact, leader.offset, leader.width, std::nullopt) == AccessPath::Indexed) {
    kind = Kind::Shared;
  } else {
    return {};
  }
  for (const GroupedLoad& m : members) {
    if (kind == Kind::Parameter &&
        (parameter_path(m.fact, m.offset, m.width) != AccessPath::Parameter || m.fact->param != param))
      return {};
    if (kind == Kind::Shared && (indexed_path(m.fact, m.offset, m.width, std::nullopt) != AccessPath::Indexed ||
                                 m.fact->alignment(m.offset) < 4))
      return {};
  }
  for (const GroupedLoad& m : members)
    for (const GroupedLoad& n : members)
      if (m.delta == n.delta && m.width != n.width) return {};  // one value per address
  int64_t lo = 0, hi = 0;
  for (const GroupedLoad& m : members) {
    lo = std::min(lo, m.delta);
    hi = std::max(hi, m.delta + int64_t(m.width));
  }
  const uint64_t span = uint64_t(hi - lo);
  if (kind == Kind::Shared && span > k_.shared.hi - k_.shared.lo) return {};
  for (size_t i = 0; i < members.size(); ++i)
    k_.access_paths.add(kind == Kind::Parameter ? AccessPath::Parameter : AccessPath::Indexed);

  ModuleBuilder& b = k_.b;
  auto add64 = [&](uint32_t x, int64_t c) { return c == 0 ? x : f.op(Op::OpIAdd, k_.t_u64, {x, b.const_u64(uint64_t(c))}); };
  // The group's first byte; below 0 it wraps to a huge value and fails the check.
  const uint32_t start = add64(leader_ea, lo);
  // Alignment of the leader's effective address plus `delta`.
  auto alignment_at = [&](int64_t delta) { return leader.fact->alignment(leader.offset + uint64_t(delta)); };

  // The values, by distinct delta.
  std::vector<int64_t> deltas;
  for (const GroupedLoad& m : members) deltas.push_back(m.delta);
  std::sort(deltas.begin(), deltas.end());
  deltas.erase(std::unique(deltas.begin(), deltas.end()), deltas.end());
  auto width_at = [&](int64_t delta) {
    for (const GroupedLoad& m : members)
      if (m.delta == delta) return m.width;
    return 0u;
  };
  std::map<int64_t, uint32_t> value_at;  // delta -> u32 or u64 bits

  uint32_t inside = 0;
  if (kind == Kind::Parameter) {
    const KernelContext::ParamRegion& region = k_.param_region(param);
    // offset <= size - span, with size >= span (a group may be wider than its buffer).
    uint32_t offset = f.op(Op::OpISub, k_.t_u64, {start, f.load(k_.t_u64, region.wasm_base)});
    uint32_t size = f.load(k_.t_u64, region.size);
    uint32_t fits = f.op(Op::OpUGreaterThanEqual, k_.t_bool, {size, b.const_u64(span)});
    uint32_t limit = f.op(Op::OpISub, k_.t_u64, {size, b.const_u64(span)});
    inside = f.op(Op::OpLogicalAnd, k_.t_bool, {fits, f.op(Op::OpULessThanEqual, k_.t_bool, {offset, limit})});
    uint32_t device_start = f.op(Op::OpIAdd, k_.t_u64, {f.load(k_.t_u64, region.device_address), offset});
    uint32_t launch_block = f.load(k_.t_u64, k_.launch_block_var);
    // Chunks: 4 or 2 contiguous words when aligned, else single members.
    std::vector<Chunk> chunks;
    for (size_t i = 0; i < deltas.size();) {
      int64_t d = deltas[i];
      if (width_at(d) == 8) {
        chunks.push_back({d, 0});
        ++i;
        continue;
      }
      auto run = [&](uint32_t n) {
        if (i + n > deltas.size()) return false;
        for (uint32_t j = 0; j < n; ++j)
          if (deltas[i + j] != d + 4 * int64_t(j) || width_at(deltas[i + j]) != 4) return false;
        return alignment_at(d) >= 4 * n;
      };
      uint32_t n = run(4) ? 4 : run(2) ? 2 : 1;
      chunks.push_back({d, n});
      i += n;
    }
    for (const Chunk& c : chunks) {
      // At the LaunchBlock (mapped, 16-aligned, over 16 bytes) when the check fails.
      uint32_t address = f.op(Op::OpSelect, k_.t_u64, {inside, add64(device_start, c.delta - lo), launch_block});
      if (c.words == 0) {
        value_at[c.delta] = load_at(f, address, 8, 8);
      } else if (c.words == 1) {
        value_at[c.delta] = load_at(f, address, 4, 4);
      } else {
        uint32_t vector = b.vector_type(k_.t_u32, c.words);
        uint32_t loaded = f.load_aligned(vector, k_.device_pointer(f, address, vector), 4 * c.words);
        for (uint32_t j = 0; j < c.words; ++j)
          value_at[c.delta + 4 * j] = f.op(Op::OpCompositeExtract, k_.t_u32, {loaded, j});
      }
    }
  } else {
    // ea - lo_shared <= (hi - lo) - span: one compare, as for single accesses.
    uint32_t offset = f.op(Op::OpISub, k_.t_u64, {start, b.const_u64(k_.shared.lo)});
    inside = f.op(Op::OpULessThanEqual, k_.t_bool, {offset, b.const_u64(k_.shared.hi - k_.shared.lo - span)});
    uint32_t safe = f.op(Op::OpSelect, k_.t_u64, {inside, offset, b.const_u64(0)});
    // A base index that is visibly a multiple of 4 when the group's start is
    // 16-aligned in the shared array, so that a driver may read 16 bytes at once.
    uint32_t base = 0;
    if (alignment_at(lo) >= 16 && k_.shared.lo % 16 == 0)
      base = f.op(Op::OpShiftLeftLogical, k_.t_u32,
                  {f.op(Op::OpUConvert, k_.t_u32, {f.op(Op::OpShiftRightLogical, k_.t_u64, {safe, b.const_u32(4)})}),
                   b.const_u32(2)});
    else
      base = f.op(Op::OpUConvert, k_.t_u32, {f.op(Op::OpShiftRightLogical, k_.t_u64, {safe, b.const_u32(2)})});
    uint32_t word_pointer = b.pointer_type(spv::StorageClass::Workgroup, k_.t_u32);
    auto word = [&](int64_t byte_delta) {
      uint32_t words = uint32_t((byte_delta - lo) / 4);
      uint32_t index = words == 0 ? base : f.op(Op::OpIAdd, k_.t_u32, {base, b.const_u32(words)});
      return f.load(k_.t_u32, f.op(Op::OpAccessChain, word_pointer, {k_.shared.variable, index}));
    };
    for (int64_t d : deltas) {
      uint32_t low = word(d);
      if (width_at(d) == 4) {
        value_at[d] = low;
        continue;
      }
      uint32_t high = f.op(Op::OpShiftLeftLogical, k_.t_u64, {f.op(Op::OpUConvert, k_.t_u64, {word(d + 4)}), b.const_u32(32)});
      value_at[d] = f.op(Op::OpBitwiseOr, k_.t_u64, {f.op(Op::OpUConvert, k_.t_u64, {low}), high});
    }
  }

  std::vector<uint32_t> variables;
  for (const GroupedLoad& m : members) {
    uint32_t variable = f.variable(m.width == 8 ? k_.t_u64 : k_.t_u32);
    f.store(variable, value_at.at(m.delta));
    variables.push_back(variable);
  }
  f.if_else(f.op(Op::OpLogicalNot, k_.t_bool, {inside}), [&] {
    // The address each member has in place: u32(leader's address - leader's
    // offset + constant) + offset (load_groups.h), which is exact even where
    // the grouped sum would wrap.
    auto add32 = [&](uint32_t x, uint32_t c) { return c == 0 ? x : f.op(Op::OpIAdd, k_.t_u32, {x, b.const_u32(c)}); };
    uint32_t leader_address = add32(f.op(Op::OpUConvert, k_.t_u32, {leader_ea}), uint32_t(-leader.offset));
    for (size_t i = 0; i < members.size(); ++i) {
      const GroupedLoad& m = members[i];
      uint32_t address = add32(leader_address, m.constant);
      uint32_t ea = add64(f.op(Op::OpUConvert, k_.t_u64, {address}), int64_t(m.offset));
      if (kind == Kind::Parameter) {
        f.store(variables[i], load_translated(f, ea, m.width));
      } else {
        indexed_module_or_general(
            f, ea, m.width,
            [&] { f.store(variables[i], load_device(f, module_address(f, ea), m.width, AccessPath::Parameter)); },
            [&] { f.store(variables[i], load_translated(f, ea, m.width)); });
      }
    }
  });
  return variables;
}

}  // namespace wasmgpu::spirv
