// Launch-time proofs of a kernel's pointer accesses (docs/compiler.md,
// "Accesses proven at launch").
//
// Most kernels address their buffers with arithmetic on the invocation's ids
// and their scalar arguments: `out[y * w + x]` under `if (x < w && y < h)`.
// Whether every such access lies in its argument's buffer cannot be known
// when the kernel is compiled, but it can when it is launched: the runtime
// knows the arguments, the buffers they point into and the ranges of the ids.
// The compiler records each access's address as an expression over those
// (a LaunchProof); the runtime bounds the expressions with interval
// arithmetic at each launch, and where every recorded access of a pointer
// argument lies inside that argument's buffer it sets the argument's bit in
// specialization constant kSpecProvenParams. The shader's range check of
// each recorded access is `proven || check`, which the driver folds: a
// proven launch runs plain loads and stores, as a hand-written shader does.
//
// Soundness: the expressions use only + - * and shifts by constants (ring
// operations modulo 2^32, so an exact integer result inside [0, 2^32) is the
// wasm value) and, on operands proven to lie in [0, 2^32), shr_u, and, div_u
// and rem_u by constants. Facts from branches ("x + 1 < w" after a br_if
// that leaves when it fails) refine an id's range only where the compare
// cannot wrap. A counted loop's variable ranges from its entry value to its
// last value below the loop's bound. Traps do not invalidate any of it: a
// trapped invocation only leaves loops early and stores nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace wasmgpu::abi {

// Specialization constant: bit p set when every access the LaunchProof
// records for kernel parameter p lies in that argument's ParamRegion.
inline constexpr uint32_t kSpecProvenParams = 5;

struct ProofNode {
  enum class Op : uint32_t {
    Const,           // value
    Arg,             // the i32 value of kernel parameter a (1 = the first after the index)
    Index,           // the invocation index (parameter 0)
    GlobalId,        // wasmgpu_global_id(a); a = 3 stands for every dimension above 2
    LocalId,         // wasmgpu_local_id(a)
    WorkgroupId,     // wasmgpu_workgroup_id(a)
    WorkgroupSize,   // wasmgpu_workgroup_size(a)
    WorkgroupCount,  // wasmgpu_workgroup_count(a)
    LocalIndex,      // wasmgpu_local_index()
    // A counted loop's variable: enters as node a, steps by node b (> 0),
    // goes round again while below node c (unsigned; value 0) or while not
    // equal to it (value 1).
    LoopVar,
    Add,
    Sub,
    Mul,   // nodes a, b
    Shl,   // node a shifted left by value (< 32)
    ShrU,  // node a shifted right by value (< 32)
    And,   // node a & value (a u32)
    DivU,
    RemU,  // node a / value, a % value (value > 0)
  };
  Op op = Op::Const;
  uint32_t a = 0, b = 0, c = 0;  // operands: earlier nodes, or a parameter / dimension
  int64_t value = 0;
  bool operator==(const ProofNode&) const = default;
};

// u32(node var + add) `relation` u32(node bound), unsigned, holds where the
// access runs.
struct ProofConstraint {
  enum class Relation : uint32_t { Less, LessEqual, Greater, GreaterEqual, Equal, NotEqual };
  uint32_t var = 0;  // an id, the index or a loop variable
  int64_t add = 0;
  Relation relation = Relation::Less;
  uint32_t bound = 0;
  bool operator==(const ProofConstraint&) const = default;
};

// An access of [address + lo, address + hi) through parameter `param`'s region.
// With `align` > 1 (a power of two) the proof also needs the access's first
// byte, as a device address, to be a multiple of `align` in every
// invocation: the shader then takes a vector access without asking the
// subgroup (docs/compiler.md, "Accesses proven at launch").
struct ProofAccess {
  uint32_t param = 0;
  uint32_t address = 0;  // node
  uint64_t lo = 0, hi = 0;
  std::vector<uint32_t> constraints;  // indexes into LaunchProof::constraints
  uint32_t align = 1;
  bool operator==(const ProofAccess&) const = default;
};

struct LaunchProof {
  std::vector<ProofNode> nodes;  // operands precede their users
  std::vector<ProofConstraint> constraints;
  std::vector<ProofAccess> accesses;
  bool operator==(const LaunchProof&) const = default;
};

// What the runtime knows of a launch's invocations.
struct LaunchRanges {
  uint32_t count = 0;  // invocations (n); none run past it
  uint32_t workgroup_size[3] = {1, 1, 1};
  uint32_t workgroups[3] = {0, 1, 1};  // a 1-D launch: count rounded up to workgroups, 1, 1
  bool grid = false;                   // a 1-D launch's global ids stop at count - 1
};

// A parameter's buffer, as its ParamRegion describes it: wasm address
// wasm_base is device address device_base.
struct ProvenRegion {
  uint64_t wasm_base = 0, size = 0;
  uint64_t device_base = 0;
};

// The kSpecProvenParams value for a launch: bit p (p < 32) set when
// parameter p has a recorded access and every one lies in regions[p - 1],
// aligned as its `align` asks (nullopt: the argument points into no
// buffer). args[p - 1] holds parameter p's bits.
uint32_t proven_params(const LaunchProof& proof, const LaunchRanges& ranges, std::span<const uint64_t> args,
                       std::span<const std::optional<ProvenRegion>> regions);

}  // namespace wasmgpu::abi
