#include "wgsl/runtime_helpers.h"

#include <fmt/core.h>

#include "abi/launch_abi.h"
#include "wgsl/wgsl_abi.h"

namespace wasmgpu::wgsl {
namespace {

// Word access by binding slot: 0 is the module memory, k + 1 buffer k.
// WGSL cannot index bindings, so each helper switches over them.
// The shadow stack, where there is one, is slot buffer_bindings + 1: a plain
// array<u32>, as only its invocation touches a slot (`stack_access`).
std::string slot_switch(const PreludeShape& shape, const std::string& access, const std::string& stack_access) {
  std::string out = "  switch slot {\n";
  out += fmt::format("    case 0u: {{ {} }}\n", fmt::format(fmt::runtime(access), "mem"));
  for (uint32_t k = 0; k < shape.buffer_bindings; ++k)
    out += fmt::format("    case {}u: {{ {} }}\n", k + 1, fmt::format(fmt::runtime(access), "buf" + std::to_string(k)));
  if (shape.stack_slot_bytes != 0)
    out += fmt::format("    case {}u: {{ {} }}\n", shape.buffer_bindings + 1, stack_access);
  if (shape.shared_bytes != 0)
    out += fmt::format("    case shared_slot: {{ {} }}\n", fmt::format(fmt::runtime(access), "shm"));
  out += "    default: {}\n  }\n";
  return out;
}

// resolve()'s first test where the kernel has a shadow stack, in the Vulkan
// back end's order (spirv/memory_access.cpp, emit_translate): inside the
// window, the invocation's slot; below it in the stack region, a shadow stack
// overflow; straddling the window's edges, out of bounds.
std::string stack_window(const PreludeShape& shape) {
  if (shape.stack_slot_bytes == 0) return "";
  std::string out = fmt::format(R"(  if (ea >= stack_window_lo && ea <= stack_hi - width) {{
    return vec2<u32>({slot}u, stack_slot * stack_slot_bytes + (ea - stack_window_lo));
  }}
)",
                                fmt::arg("slot", shape.buffer_bindings + 1));
  if (shape.stack_lo < shape.stack_window_lo)
    out += fmt::format(R"(  if (ea >= stack_lo && ea < stack_window_lo) {{
    trap({overflow}u);
    return vec2<u32>(no_slot, 0u);
  }}
)",
                       fmt::arg("overflow", uint32_t(abi::TrapKind::StackOverflow)));
  out += fmt::format(R"(  if (ea < stack_hi && ea + width > stack_window_lo) {{
    trap({oob}u);
    return vec2<u32>(no_slot, 0u);
  }}
)",
                     fmt::arg("oob", uint32_t(abi::TrapKind::MemoryOutOfBounds)));
  return out;
}

// resolve()'s first test where the kernel has workgroup-shared memory, as
// in the Vulkan back end (spirv/workgroup_memory.cpp): an access inside the
// shared range goes to the workgroup's array, one across its edge traps.
std::string shared_range(const PreludeShape& shape) {
  if (shape.shared_bytes == 0) return "";
  return fmt::format(R"(  if (ea < shared_hi && ea + width > shared_lo) {{
    if (ea >= shared_lo && ea + width <= shared_hi) {{
      return vec2<u32>(shared_slot, ea - shared_lo);
    }}
    trap({oob}u);
    return vec2<u32>(no_slot, 0u);
  }}
)",
                     fmt::arg("oob", uint32_t(abi::TrapKind::MemoryOutOfBounds)));
}

}  // namespace

std::string runtime_prelude(const PreludeShape& shape) {
  std::string out;
  out += "override wg_x: u32 = 64u;\noverride wg_y: u32 = 1u;\noverride wg_z: u32 = 1u;\n\n";
  out += fmt::format("@group(0) @binding({}) var<uniform> launch: array<vec4<u32>, {}>;\n", kLaunchBinding,
                     kLaunchVectors);
  out += fmt::format("@group(0) @binding({}) var<storage, read_write> traps: array<atomic<u32>>;\n", kTrapBinding);
  out += fmt::format("@group(0) @binding({}) var<storage, read_write> mem: array<atomic<u32>>;\n", kMemoryBinding);
  for (uint32_t k = 0; k < shape.buffer_bindings; ++k)
    out += fmt::format("@group(0) @binding({}) var<storage, read_write> buf{}: array<atomic<u32>>;\n",
                       kFirstBufferBinding + k, k);
  if (shape.stack_slot_bytes != 0)
    out += fmt::format("@group(0) @binding({}) var<storage, read_write> stk: array<u32>;\n", shape.stack_binding);
  if (shape.shared_bytes != 0)
    out += fmt::format("var<workgroup> shm: array<atomic<u32>, {}>;\n", shape.shared_bytes / 4);
  out += fmt::format("\nconst memory_bytes: u32 = {}u;\n", shape.memory_bytes);
  if (shape.shared_bytes != 0) {
    out += fmt::format("const shared_lo: u32 = {}u;\n", shape.shared_lo);
    out += fmt::format("const shared_hi: u32 = {}u;\n", shape.shared_lo + shape.shared_bytes);
    out += fmt::format("const shared_slot: u32 = {}u;\n", shared_slot(shape));
  }
  out += fmt::format("const regions_at: u32 = {}u;\n", kLaunchArgs + kLaunchArgWords * shape.arg_count);
  if (shape.stack_slot_bytes != 0) {
    out += fmt::format("const stack_lo: u32 = {}u;\n", shape.stack_lo);
    out += fmt::format("const stack_window_lo: u32 = {}u;\n", shape.stack_window_lo);
    out += fmt::format("const stack_hi: u32 = {}u;\n", shape.stack_hi);
    out += fmt::format("const stack_slot_bytes: u32 = {}u;\n", shape.stack_slot_bytes);
  }
  out += R"(const no_slot: u32 = 0xffffffffu;

var<private> trapped: bool = false;
var<private> invocation_index: u32;
var<private> opaque_zero: u32;
var<private> id_global: vec3<u32>;
var<private> id_local: vec3<u32>;
var<private> id_workgroup: vec3<u32>;
var<private> id_workgroups: vec3<u32>;
var<private> id_local_index: u32;
var<private> stack_slot: u32;

fn launch_word(i: u32) -> u32 {
  return launch[i >> 2u][i & 3u];
}

// The first trap of an invocation counts (abi::TrapRecord); later code runs
// on without effects: stores check `trapped`, loops leave at their next
// branch back.
fn trap(kind: u32) {
  if (!trapped) {
    trapped = true;
    atomicAdd(&traps[0], 1u);
    atomicMin(&traps[1u + kind], invocation_index);
  }
}

)";
  if (shape.subgroups)
    out +=
        "// The subgroup built-ins, set by main (WGSL gives them to the entry point only).\n"
        "var<private> id_subgroup_size: u32;\nvar<private> id_subgroup_invocation: u32;\n"
        "var<private> id_subgroup: u32;\nvar<private> id_subgroups: u32;\n\n";
  out += "fn word_load(slot: u32, w: u32) -> u32 {\n" +
         slot_switch(shape, "return atomicLoad(&{}[w]);", "return stk[w];") + "  return 0u;\n}\n\n";
  out += "fn word_store(slot: u32, w: u32, v: u32) {\n" + slot_switch(shape, "atomicStore(&{}[w], v);", "stk[w] = v;") +
         "}\n\n";
  // Bytes of a word another invocation may write are never lost: AND clears
  // this access's bytes, OR sets them, each atomic on the whole word. A stack
  // slot is the invocation's own: a plain read-modify-write.
  out +=
      "fn word_merge(slot: u32, w: u32, mask: u32, bits: u32) {\n" +
      slot_switch(shape, "atomicAnd(&{0}[w], ~mask); atomicOr(&{0}[w], bits);", "stk[w] = (stk[w] & ~mask) | bits;") +
      "}\n\n";
  out += fmt::format(R"(// [addr + offset, + width) as (binding slot, byte offset), or no_slot after
// trapping: the invocation's stack slot, the module memory, else the region
// of the table that holds the whole access (docs/memory-model.md). The
// effective address is 33 bits in wasm: one past 2^32 is out of bounds.
fn resolve(addr: u32, offset: u32, width: u32) -> vec2<u32> {{
  let ea = addr + offset;
  if (ea < addr) {{
    trap({oob}u);
    return vec2<u32>(no_slot, 0u);
  }}
{shared}{stack}  if (ea < memory_bytes && width <= memory_bytes - ea) {{
    return vec2<u32>(0u, ea);
  }}
  let n = launch_word({region_count}u);
  for (var r = 0u; r < n; r = r + 1u) {{
    let e = regions_at + {region_words}u * r;
    let base = launch_word(e);
    let size = launch_word(e + 1u);
    if (ea >= base && ea - base < size && width <= size - (ea - base)) {{
      return vec2<u32>(launch_word(e + 2u) + 1u, ea - base);
    }}
  }}
  trap({oob}u);
  return vec2<u32>(no_slot, 0u);
}}

)",
                     fmt::arg("oob", uint32_t(abi::TrapKind::MemoryOutOfBounds)),
                     fmt::arg("shared", shared_range(shape)), fmt::arg("stack", stack_window(shape)),
                     fmt::arg("region_count", kLaunchRegionCount), fmt::arg("region_words", kRegionWords));
  out += R"(// `width` (1, 2 or 4) bytes at addr + offset, zero-extended.
fn load_bytes(addr: u32, offset: u32, width: u32) -> u32 {
  let at = resolve(addr, offset, width);
  if (at.x == no_slot) {
    return 0u;
  }
  let w = at.y >> 2u;
  let byte = at.y & 3u;
  var v = word_load(at.x, w);
  if (byte != 0u) {
    v = v >> (8u * byte);
    if (byte + width > 4u) {
      v = v | (word_load(at.x, w + 1u) << (32u - 8u * byte));
    }
  }
  if (width == 4u) {
    return v;
  }
  return v & ((1u << (8u * width)) - 1u);
}

// Writes the low `width` bytes of `value`; nothing once the invocation has
// trapped, nothing when the access is out of bounds.
fn store_bytes(addr: u32, offset: u32, width: u32, value: u32) {
  if (trapped) {
    return;
  }
  let at = resolve(addr, offset, width);
  if (at.x == no_slot) {
    return;
  }
  let w = at.y >> 2u;
  let byte = at.y & 3u;
  if (byte == 0u && width == 4u) {
    word_store(at.x, w, value);
    return;
  }
  let mask = select((1u << (8u * width)) - 1u, 0xffffffffu, width == 4u);
  let v = value & mask;
  word_merge(at.x, w, mask << (8u * byte), v << (8u * byte));
  if (byte + width > 4u) {
    let back = 32u - 8u * byte;
    word_merge(at.x, w + 1u, mask >> back, v >> back);
  }
}

fn sign_extend(v: u32, bits: u32) -> u32 {
  return bitcast<u32>(bitcast<i32>(v << (32u - bits)) >> (32u - bits));
}

)";
  out += fmt::format(R"(fn i32_div_s(a: u32, b: u32) -> u32 {{
  if (b == 0u) {{
    trap({zero}u);
    return 0u;
  }}
  if (a == 0x80000000u && b == 0xffffffffu) {{
    trap({overflow}u);
    return 0u;
  }}
  return bitcast<u32>(bitcast<i32>(a) / bitcast<i32>(b));
}}

fn i32_div_u(a: u32, b: u32) -> u32 {{
  if (b == 0u) {{
    trap({zero}u);
    return 0u;
  }}
  return a / b;
}}

fn i32_rem_s(a: u32, b: u32) -> u32 {{
  if (b == 0u) {{
    trap({zero}u);
    return 0u;
  }}
  if (b == 0xffffffffu) {{
    return 0u;
  }}
  return bitcast<u32>(bitcast<i32>(a) % bitcast<i32>(b));
}}

fn i32_rem_u(a: u32, b: u32) -> u32 {{
  if (b == 0u) {{
    trap({zero}u);
    return 0u;
  }}
  return a % b;
}}

fn rotl(a: u32, b: u32) -> u32 {{
  let s = b & 31u;
  return (a << s) | (a >> ((32u - s) & 31u));
}}

fn rotr(a: u32, b: u32) -> u32 {{
  let s = b & 31u;
  return (a >> s) | (a << ((32u - s) & 31u));
}}

)",
                     fmt::arg("zero", uint32_t(abi::TrapKind::IntegerDivideByZero)),
                     fmt::arg("overflow", uint32_t(abi::TrapKind::IntegerOverflow)));
  // Float comparisons and min/max work on the bits, so that a device that
  // flushes subnormals or does not keep NaNs still compares as wasm does.
  out += R"(// A quiet NaN's bits, as a value: WGSL rejects a NaN computed from constants.
var<private> nan_bits: u32 = 0x7fc00000u;

fn f32_is_nan(b: u32) -> bool {
  return (b & 0x7fffffffu) > 0x7f800000u;
}

// Bits to an unsigned key in float order (-0 below +0).
fn f32_order(b: u32) -> u32 {
  return select(b | 0x80000000u, ~b, (b & 0x80000000u) != 0u);
}

// The same with both zeros equal, for comparisons.
fn f32_compare_key(b: u32) -> u32 {
  return f32_order(select(b, 0u, (b & 0x7fffffffu) == 0u));
}

fn f32_eq(a: f32, b: f32) -> bool {
  let x = bitcast<u32>(a);
  let y = bitcast<u32>(b);
  return !f32_is_nan(x) && !f32_is_nan(y) && f32_compare_key(x) == f32_compare_key(y);
}

fn f32_lt(a: f32, b: f32) -> bool {
  let x = bitcast<u32>(a);
  let y = bitcast<u32>(b);
  return !f32_is_nan(x) && !f32_is_nan(y) && f32_compare_key(x) < f32_compare_key(y);
}

fn f32_le(a: f32, b: f32) -> bool {
  let x = bitcast<u32>(a);
  let y = bitcast<u32>(b);
  return !f32_is_nan(x) && !f32_is_nan(y) && f32_compare_key(x) <= f32_compare_key(y);
}

fn f32_min(a: f32, b: f32) -> f32 {
  let x = bitcast<u32>(a);
  let y = bitcast<u32>(b);
  if (f32_is_nan(x) || f32_is_nan(y)) {
    return bitcast<f32>(nan_bits);
  }
  return bitcast<f32>(select(y, x, f32_order(x) <= f32_order(y)));
}

fn f32_max(a: f32, b: f32) -> f32 {
  let x = bitcast<u32>(a);
  let y = bitcast<u32>(b);
  if (f32_is_nan(x) || f32_is_nan(y)) {
    return bitcast<f32>(nan_bits);
  }
  return bitcast<f32>(select(y, x, f32_order(x) >= f32_order(y)));
}

// A product the device cannot see is one: xor with a launch word that is
// always 0, so that it is not fused with the add that follows (wasm rounds
// each operation; WGSL does not forbid contraction).
fn f32_rounded(v: f32) -> f32 {
  return bitcast<f32>(bitcast<u32>(v) ^ opaque_zero);
}

// Round to nearest, ties to even, on the integer (WGSL leaves the rounding
// of conversions that are not exact to the device).
fn f32_from_u32(x: u32) -> f32 {
  if (x < 0x1000000u) {
    return f32(x);
  }
  let e = 31u - countLeadingZeros(x);
  let shift = e - 23u;
  let m = x >> shift;
  let rest = x & ((1u << shift) - 1u);
  let half = 1u << (shift - 1u);
  var r = m;
  if (rest > half || (rest == half && (m & 1u) == 1u)) {
    r = r + 1u;
  }
  return bitcast<f32>(((e + 127u) << 23u) + (r - 0x800000u));
}

fn f32_from_i32(x: u32) -> f32 {
  let negative = (x & 0x80000000u) != 0u;
  let magnitude = select(x, 0u - x, negative);
  return bitcast<f32>(bitcast<u32>(f32_from_u32(magnitude)) | select(0u, 0x80000000u, negative));
}

)";
  out += fmt::format(R"(fn i32_trunc_f32_s(v: f32) -> u32 {{
  let b = bitcast<u32>(v);
  if (f32_is_nan(b)) {{
    trap({invalid}u);
    return 0u;
  }}
  if ((b & 0x7fffffffu) >= 0x4f000000u) {{
    if (b == 0xcf000000u) {{
      return 0x80000000u;
    }}
    trap({overflow}u);
    return 0u;
  }}
  return bitcast<u32>(i32(v));
}}

fn i32_trunc_f32_u(v: f32) -> u32 {{
  let b = bitcast<u32>(v);
  if (f32_is_nan(b)) {{
    trap({invalid}u);
    return 0u;
  }}
  if ((b & 0x80000000u) != 0u) {{
    if ((b & 0x7fffffffu) >= 0x3f800000u) {{
      trap({overflow}u);
    }}
    return 0u;
  }}
  if (b >= 0x4f800000u) {{
    trap({overflow}u);
    return 0u;
  }}
  return u32(v);
}}

fn i32_trunc_sat_f32_s(v: f32) -> u32 {{
  let b = bitcast<u32>(v);
  if (f32_is_nan(b)) {{
    return 0u;
  }}
  if ((b & 0x7fffffffu) >= 0x4f000000u) {{
    return select(0x7fffffffu, 0x80000000u, (b & 0x80000000u) != 0u);
  }}
  return bitcast<u32>(i32(v));
}}

fn i32_trunc_sat_f32_u(v: f32) -> u32 {{
  let b = bitcast<u32>(v);
  if (f32_is_nan(b) || (b & 0x80000000u) != 0u) {{
    return 0u;
  }}
  if (b >= 0x4f800000u) {{
    return 0xffffffffu;
  }}
  return u32(v);
}}

)",
                     fmt::arg("invalid", uint32_t(abi::TrapKind::InvalidConversionToInteger)),
                     fmt::arg("overflow", uint32_t(abi::TrapKind::IntegerOverflow)));
  return out;
}

}  // namespace wasmgpu::wgsl
