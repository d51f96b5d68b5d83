// Grouped accesses (access_groups.h): the members of a group share one range
// check when every member would take the same fast path on its own: the
// typed Parameter path of one pointer argument, or the shared-memory path of
// Indexed addresses.
//
// Loads are issued at the group's first member. As for single accesses,
// they run before the check is known (at a safe address when it fails), and
// when it fails each member then takes its general path, in code order, at
// its own effective address. Stores are done at the last member: when the
// check holds (and the invocation has not trapped) together, else one by
// one on the general path, in code order.
//
// On the Parameter path, four 4-byte members at consecutive addresses whose
// first is proven 16-aligned are one 16-byte vector access (two, 8-aligned,
// an 8-byte one): the wide accesses a hand-written shader gets from vec4
// types. Shared memory is an array of words, so there each member is one
// word access at a common base index plus a constant, which a driver can
// combine.
#include <algorithm>

#include "frontend/access_groups.h"
#include "spirv/runtime_helpers.h"
#include "spirv/workgroup_memory.h"

namespace wasmgpu::spirv {

namespace {
using Op = spv::Op;

// A run of members done by one device access.
struct Chunk {
  int64_t delta;   // of its first byte, relative to the first member
  uint32_t words;  // 1, 2 or 4 words of 4 bytes, or 0 for one 8-byte member
  // Four words whose alignment is known only at run time (an address such as
  // `a + 4 * (row * n + k)`, 16-aligned when n is a multiple of 4): one
  // 16-byte access when the address is 16-aligned, else four word accesses.
  bool when_aligned = false;
};
}  // namespace

std::optional<RuntimeHelpers::GroupPlan> RuntimeHelpers::plan_group(std::span<const GroupedAccess> members,
                                                                    bool stores) {
  GroupPlan plan;
  const GroupedAccess& first = members[0];
  if (parameter_path(first.fact, first.offset, first.width) == AccessPath::Parameter) {
    plan.shared = false;
    plan.param = first.fact->param;
  } else if (k_.shared.variable &&
             indexed_path(first.fact, first.offset, first.width, std::nullopt) == AccessPath::Indexed) {
    plan.shared = true;
  } else {
    return std::nullopt;
  }
  for (const GroupedAccess& m : members) {
    if (!plan.shared &&
        (parameter_path(m.fact, m.offset, m.width) != AccessPath::Parameter || m.fact->param != plan.param))
      return std::nullopt;
    if (plan.shared && (indexed_path(m.fact, m.offset, m.width, std::nullopt) != AccessPath::Indexed ||
                        m.fact->alignment(m.offset) < 4))
      return std::nullopt;
    plan.lo = std::min(plan.lo, m.delta);
    plan.hi = std::max(plan.hi, m.delta + int64_t(m.width));
    if (std::find(plan.deltas.begin(), plan.deltas.end(), m.delta) == plan.deltas.end()) plan.deltas.push_back(m.delta);
  }
  std::sort(plan.deltas.begin(), plan.deltas.end());
  // One width per address; stores must not overlap (the last would win).
  for (const GroupedAccess& m : members)
    for (const GroupedAccess& n : members) {
      if (&m == &n) continue;
      if (m.delta == n.delta && (m.width != n.width || stores)) return std::nullopt;
      if (stores && m.delta < n.delta && m.delta + int64_t(m.width) > n.delta) return std::nullopt;
    }
  if (plan.shared && uint64_t(plan.hi - plan.lo) > k_.shared.hi - k_.shared.lo) return std::nullopt;
  for (const GroupedAccess& m : members) {
    plan.width_at[m.delta] = m.width;
    k_.access_paths.add(plan.shared ? AccessPath::Indexed : AccessPath::Parameter);
  }
  k_.access_paths.grouped += uint32_t(members.size());
  return plan;
}

// The group's range check: whether [first_ea + lo, first_ea + hi) lies in
// the argument's buffer (Parameter) or the shared range, and the device
// address (Parameter, u64) or shared byte offset (u32) of its first byte then.
std::pair<Id, Id> RuntimeHelpers::group_check(FunctionBuilder& f, const GroupPlan& plan, Id first_ea,
                                              bool proven_at_launch) {
  const uint64_t span = uint64_t(plan.hi - plan.lo);
  if (!plan.shared) return region_check(f, plan.param, first_ea, plan.lo, span, proven_at_launch);
  return shared_range_check(k_, f, first_ea, plan.lo, span);
}

// Whether the device address (u64) is a multiple of 16 in every active
// invocation of the subgroup: then the subgroup takes a chunk's 16-byte path
// together, and where the addresses of neighbouring invocations differ by
// less than 16 bytes (`p = src + 4 * i`) it takes the word path together
// rather than both paths one after the other.
static Id aligned16(FunctionBuilder& f, KernelContext& k, Id address) {
  Id low = f.op(Op::OpUConvert, k.types.u32, {address});
  Id rest = f.op(Op::OpBitwiseAnd, k.types.u32, {low, k.b.const_u32(15)});
  Id aligned = f.op(Op::OpIEqual, k.types.bool_type, {rest, k.b.const_u32(0)});
  k.b.capability(spv::Capability::GroupNonUniformVote);
  return f.op(Op::OpGroupNonUniformAll, k.types.bool_type, {k.b.const_u32(uint32_t(spv::Scope::Subgroup)), aligned});
}

// As aligned16, for a chunk of a group of loads at `delta`: where the member
// there is recorded for proof at launch, the proof also asks for its
// 16-alignment (abi::ProofAccess::align), and a launch that proves the
// parameter needs no vote: the driver folds `proven || vote` to the vector
// access. SGEMM ran at 0.97-1.00 of its GLSL twin so, against 0.93 with the
// vote in its staging loads (H200; docs/performance.md).
Id RuntimeHelpers::aligned_for_launch(FunctionBuilder& f, const GroupPlan& plan, std::span<const GroupedAccess> members,
                                      int64_t delta, Id address, bool proven_at_launch) {
  Id vote = aligned16(f, k_, address);
  if (!proven_at_launch || plan.shared) return vote;
  for (const GroupedAccess& m : members) {
    if (m.delta != delta || m.proof_access < 0 || size_t(m.proof_access) >= k_.proofs.launch_proof.accesses.size())
      continue;
    abi::ProofAccess& proof = k_.proofs.launch_proof.accesses[size_t(m.proof_access)];
    if (proof.param != plan.param) return vote;
    proof.align = 16;
    return f.op(Op::OpLogicalOr, k_.types.bool_type, {k_.spec.param_proven(plan.param), vote});
  }
  return vote;
}

// Parameter path: 4 or 2 contiguous words when aligned, else single members.
// Counts the vector accesses in k.access_paths (each group's chunks are
// emitted once).
static std::vector<Chunk> chunks_of(KernelContext& k, const RuntimeHelpers::GroupPlan& plan, const PointerFact& first,
                                    uint64_t first_offset) {
  auto alignment_at = [&](int64_t delta) { return first.alignment(first_offset + uint64_t(delta)); };
  const std::vector<int64_t>& deltas = plan.deltas;
  std::vector<Chunk> chunks;
  for (size_t i = 0; i < deltas.size();) {
    int64_t d = deltas[i];
    if (plan.width_at.at(d) == 8) {
      chunks.push_back({d, 0});
      ++i;
      continue;
    }
    auto words_from = [&](int64_t from, uint32_t n) {
      if (i + n > deltas.size()) return false;
      for (uint32_t j = 0; j < n; ++j)
        if (deltas[i + j] != from + 4 * int64_t(j) || plan.width_at.at(deltas[i + j]) != 4) return false;
      return true;
    };
    auto run = [&](uint32_t n) { return words_from(d, n) && alignment_at(d) >= 4 * n; };
    // Word-aligned, and what is known of the low bits leaves 16-alignment
    // possible.
    auto may_be_aligned = [&](int64_t at) {
      return k.subgroup_vote && first.known_bits < 4 && alignment_at(at) >= 4 &&
             alignment_at(at) == (1u << first.known_bits);
    };
    uint32_t n = run(4) ? 4 : run(2) ? 2 : 1;
    if (n < 4 && may_be_aligned(d) && words_from(d, 4)) {
      chunks.push_back({d, 4, /*when_aligned=*/true});
      ++k.access_paths.wide_when_aligned;
      i += 4;
      continue;
    }
    chunks.push_back({d, n});
    if (n > 1) ++k.access_paths.wide;
    i += n;
  }
  return chunks;
}

// Shared path: the word index of the group's first byte, visibly a multiple
// of 4 when that byte is 16-aligned in the shared array (so that a driver
// may access 16 bytes at once). `offset` is a byte offset in the array.
// The multiple is `(offset >> 2) & ~3`: written `(offset >> 4) << 2`, NVIDIA's
// compiler loaded SGEMM's four words of B as one LDS.128 and the fourth word
// again with a scalar LDS (0.89 of the GLSL twin against 0.93;
// docs/performance.md).
Id RuntimeHelpers::group_base_index(FunctionBuilder& f, const GroupPlan& plan, const PointerFact& first,
                                    uint64_t first_offset, Id offset) {
  ModuleBuilder& b = k_.b;
  Id words = f.op(Op::OpShiftRightLogical, k_.types.u32, {offset, b.const_u32(2)});
  if (first.alignment(first_offset + uint64_t(plan.lo)) >= 16 && k_.shared.lo % 16 == 0)
    return f.op(Op::OpBitwiseAnd, k_.types.u32, {words, b.const_u32(~3u)});
  return words;
}

std::vector<Id> RuntimeHelpers::load_group(FunctionBuilder& f, Id first_ea, std::span<const GroupedAccess> members,
                                           bool proven_at_launch) {
  std::optional<GroupPlan> plan = plan_group(members, /*stores=*/false);
  if (!plan) return {};
  ModuleBuilder& b = k_.b;
  const GroupedAccess& first = members[0];
  auto add64 = [&](Id x, int64_t c) {
    return c == 0 ? x : f.op(Op::OpIAdd, k_.types.u64, {x, b.const_u64(uint64_t(c))});
  };
  auto [inside, at] = group_check(f, *plan, first_ea, proven_at_launch);
  std::map<int64_t, Id> value_at;  // delta -> u32 or u64 bits
  auto load_from = [&](Id base) {
    for (const Chunk& c : chunks_of(k_, *plan, *first.fact, first.offset)) {
      Id address = add64(base, c.delta - plan->lo);
      if (c.words <= 1) {
        const uint32_t width = c.words == 0 ? 8 : 4;
        value_at[c.delta] = load_at(f, address, width, width);
        continue;
      }
      Id vector = b.vector_type(k_.types.u32, c.words);
      auto load_vector = [&] {
        std::vector<Id> words;
        Id loaded = f.load_aligned(vector, k_.device_pointer(f, address, vector), 4 * c.words);
        for (uint32_t j = 0; j < c.words; ++j)
          words.push_back(f.op(Op::OpCompositeExtract, k_.types.u32, {loaded, literal(j)}));
        return words;
      };
      if (!c.when_aligned) {
        std::vector<Id> words = load_vector();
        for (uint32_t j = 0; j < c.words; ++j) value_at[c.delta + 4 * j] = words[j];
        continue;
      }
      Id words[4];
      for (Id& w : words) w = f.variable(k_.types.u32);
      f.if_else(
          aligned_for_launch(f, *plan, members, c.delta, address, proven_at_launch),
          [&] {
            std::vector<Id> loaded = load_vector();
            for (uint32_t j = 0; j < 4; ++j) f.store(words[j], loaded[j]);
          },
          [&] {
            for (uint32_t j = 0; j < 4; ++j) f.store(words[j], load_at(f, add64(address, 4 * j), 4, 4));
          });
      for (uint32_t j = 0; j < 4; ++j) value_at[c.delta + 4 * j] = f.load(k_.types.u32, words[j]);
    }
  };
  std::vector<Id> variables;
  for (const GroupedAccess& m : members) variables.push_back(f.variable(m.width == 8 ? k_.types.u64 : k_.types.u32));
  auto keep_values = [&] {
    for (size_t i = 0; i < members.size(); ++i) f.store(variables[i], value_at.at(members[i].delta));
  };
  auto general = [&] {
    // The address each member has in place: u32(first address - first
    // offset + constant) + offset (access_groups.h), which is exact even
    // where the grouped sum would wrap.
    auto add32 = [&](Id x, uint32_t c) { return c == 0 ? x : f.op(Op::OpIAdd, k_.types.u32, {x, b.const_u32(c)}); };
    Id first_address = add32(f.op(Op::OpUConvert, k_.types.u32, {first_ea}), uint32_t(-first.offset));
    for (size_t i = 0; i < members.size(); ++i) {
      const GroupedAccess& m = members[i];
      Id ea = add64(f.op(Op::OpUConvert, k_.types.u64, {add32(first_address, m.constant)}), int64_t(m.offset));
      if (!plan->shared) {
        f.store(variables[i], load_translated(f, ea, m.width));
        continue;
      }
      indexed_module_or_general(
          f, ea, m.width,
          [&] { f.store(variables[i], load_device(f, module_address(f, ea), m.width, AccessPath::Parameter)); },
          [&] { f.store(variables[i], load_translated(f, ea, m.width)); });
    }
  };
  // Fast mode loads a parameter group only where its check holds. Exact mode
  // loads it speculatively, at the LaunchBlock where the check fails, before
  // the general path: there the branch cost its stencil 0.76 -> 0.66 of the
  // precise twin on the H200, while in fast mode it took horner_f64 from
  // 0.87 to 0.96 (docs/performance.md).
  const bool fast_mode = k_.exact_float == nullptr;
  if (!plan->shared && fast_mode) {
    f.if_else(
        inside,
        [&] {
          load_from(at);
          keep_values();
        },
        general);
    return variables;
  }
  if (!plan->shared) {
    // At the LaunchBlock (mapped, 16-aligned, at least kLaunchBlockMinSize
    // bytes) when the check fails: one select for the group.
    static_assert(kMaxAccessGroupSpan <= abi::kLaunchBlockMinSize);
    load_from(f.op(Op::OpSelect, k_.types.u64, {inside, at, f.load(k_.types.u64, k_.abi.launch_block_var)}));
  } else {
    Id safe = f.op(Op::OpSelect, k_.types.u32, {inside, at, b.const_u32(0)});
    Id base = group_base_index(f, *plan, *first.fact, first.offset, safe);
    for (int64_t d : plan->deltas) {
      Id low = f.load(k_.types.u32, shared_word_pointer_at(k_, f, base, uint32_t((d - plan->lo) / 4)));
      if (plan->width_at.at(d) == 4) {
        value_at[d] = low;
        continue;
      }
      Id high = f.load(k_.types.u32, shared_word_pointer_at(k_, f, base, uint32_t((d - plan->lo) / 4 + 1)));
      high = f.op(Op::OpShiftLeftLogical, k_.types.u64, {f.op(Op::OpUConvert, k_.types.u64, {high}), b.const_u32(32)});
      value_at[d] = f.op(Op::OpBitwiseOr, k_.types.u64, {f.op(Op::OpUConvert, k_.types.u64, {low}), high});
    }
  }
  keep_values();
  f.if_else(f.op(Op::OpLogicalNot, k_.types.bool_type, {inside}), general);
  return variables;
}

bool RuntimeHelpers::store_group(FunctionBuilder& f, std::span<const GroupedAccess> members, bool proven_at_launch) {
  std::optional<GroupPlan> plan = plan_group(members, /*stores=*/true);
  if (!plan) return false;
  ModuleBuilder& b = k_.b;
  const GroupedAccess& first = members[0];
  auto [inside, at] = group_check(f, *plan, first.ea, proven_at_launch);
  std::map<int64_t, Id> value_at;
  for (const GroupedAccess& m : members) value_at[m.delta] = m.value;
  // A trapped invocation writes nothing more: the general path checks that.
  Id fast =
      f.op(Op::OpLogicalAnd, k_.types.bool_type, {inside, f.op(Op::OpLogicalNot, k_.types.bool_type, {trapped(f)})});
  f.if_else(
      fast,
      [&] {
        if (!plan->shared) {
          for (const Chunk& c : chunks_of(k_, *plan, *first.fact, first.offset)) {
            Id address = c.delta == plan->lo
                             ? at
                             : f.op(Op::OpIAdd, k_.types.u64, {at, b.const_u64(uint64_t(c.delta - plan->lo))});
            if (c.words <= 1) {
              const uint32_t width = c.words == 0 ? 8 : 4;
              store_at(f, address, value_at.at(c.delta), width, width);
              continue;
            }
            std::vector<Id> parts;
            for (uint32_t j = 0; j < c.words; ++j) parts.push_back(value_at.at(c.delta + 4 * j));
            const Id vector = b.vector_type(k_.types.u32, c.words);
            auto store_vector = [&] {
              Id words = f.op(Op::OpCompositeConstruct, vector, parts);
              f.store_aligned(k_.device_pointer(f, address, vector), words, 4 * c.words);
            };
            if (!c.when_aligned) {
              store_vector();
              continue;
            }
            f.if_else(aligned16(f, k_, address), store_vector, [&] {
              for (uint32_t j = 0; j < 4; ++j) {
                Id word = j == 0 ? address : f.op(Op::OpIAdd, k_.types.u64, {address, b.const_u64(4 * j)});
                store_at(f, word, parts[j], 4, 4);
              }
            });
          }
          return;
        }
        Id base = group_base_index(f, *plan, *first.fact, first.offset, at);
        for (int64_t d : plan->deltas) {
          Id value = value_at.at(d);
          if (plan->width_at.at(d) == 4) {
            f.store(shared_word_pointer_at(k_, f, base, uint32_t((d - plan->lo) / 4)), value);
            continue;
          }
          Id low = f.op(Op::OpUConvert, k_.types.u32, {value});
          f.store(shared_word_pointer_at(k_, f, base, uint32_t((d - plan->lo) / 4)), low);
          Id high = f.op(Op::OpUConvert, k_.types.u32,
                         {f.op(Op::OpShiftRightLogical, k_.types.u64, {value, b.const_u32(32)})});
          f.store(shared_word_pointer_at(k_, f, base, uint32_t((d - plan->lo) / 4 + 1)), high);
        }
      },
      [&] {
        for (const GroupedAccess& m : members) store_translated(f, m.ea, m.value, m.width);
      });
  return true;
}

}  // namespace wasmgpu::spirv
