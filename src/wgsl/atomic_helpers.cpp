#include "wgsl/atomic_helpers.h"

#include <fmt/core.h>

#include "abi/launch_abi.h"

namespace wasmgpu::wgsl {
namespace {

const char* op_name(AtomicOp op) {
  switch (op) {
    case AtomicOp::Load: return "load";
    case AtomicOp::Store: return "store";
    case AtomicOp::Add: return "add";
    case AtomicOp::Sub: return "sub";
    case AtomicOp::And: return "and";
    case AtomicOp::Or: return "or";
    case AtomicOp::Xor: return "xor";
    case AtomicOp::Exchange: return "xchg";
    case AtomicOp::CompareExchange: return "cmpxchg";
    case AtomicOp::MinS: return "min_s";
    case AtomicOp::MaxS: return "max_s";
    case AtomicOp::MinU: return "min_u";
    case AtomicOp::MaxU: return "max_u";
    case AtomicOp::AddF32: return "add_f32";
    case AtomicOp::Notify: return "notify";
  }
  return "?";
}

// The field's new value from its old one `c` (and `v`, `r`).
std::string next_value(AtomicOp op, const std::string& mask) {
  switch (op) {
    case AtomicOp::Store:
    case AtomicOp::Exchange: return "v";
    case AtomicOp::Add: return "c + v";
    case AtomicOp::Sub: return "c - v";
    case AtomicOp::And: return "c & v";
    case AtomicOp::Or: return "c | v";
    case AtomicOp::Xor: return "c ^ v";
    // The expected value is wrapped to the access's width, as in the Vulkan back end.
    case AtomicOp::CompareExchange: return fmt::format("select(c, r, c == (v & {}))", mask);
    case AtomicOp::MinS: return "bitcast<u32>(min(bitcast<i32>(c), bitcast<i32>(v)))";
    case AtomicOp::MaxS: return "bitcast<u32>(max(bitcast<i32>(c), bitcast<i32>(v)))";
    case AtomicOp::MinU: return "min(c, v)";
    case AtomicOp::MaxU: return "max(c, v)";
    case AtomicOp::AddF32: return "bitcast<u32>(bitcast<f32>(c) + bitcast<f32>(v))";
    case AtomicOp::Load:
    case AtomicOp::Notify: break;
  }
  return "c";
}

// The operation on the atomic word `p` (a pointer expression).
std::string on_atomic(AtomicHelper h, const std::string& p) {
  const bool returns = h.op != AtomicOp::Store;
  const char* give = returns ? "return c;" : "return;";
  if (h.width == 4) {
    switch (h.op) {
      case AtomicOp::Load: return fmt::format("return atomicLoad({});", p);
      case AtomicOp::Store: return fmt::format("atomicStore({}, v); return;", p);
      case AtomicOp::Add: return fmt::format("return atomicAdd({}, v);", p);
      case AtomicOp::Sub: return fmt::format("return atomicSub({}, v);", p);
      case AtomicOp::And: return fmt::format("return atomicAnd({}, v);", p);
      case AtomicOp::Or: return fmt::format("return atomicOr({}, v);", p);
      case AtomicOp::Xor: return fmt::format("return atomicXor({}, v);", p);
      case AtomicOp::Exchange: return fmt::format("return atomicExchange({}, v);", p);
      case AtomicOp::MinU: return fmt::format("return atomicMin({}, v);", p);
      case AtomicOp::MaxU: return fmt::format("return atomicMax({}, v);", p);
      // A strong compare-exchange from the weak one: a spurious failure
      // (the old value equal to the expected one) tries again.
      case AtomicOp::CompareExchange:
        return fmt::format(
            "loop {{ let x = atomicCompareExchangeWeak({}, v, r); if (x.exchanged || x.old_value != v) {{ return "
            "x.old_value; }} }}",
            p);
      default:
        return fmt::format(
            "var o = atomicLoad({p}); loop {{ let c = o; let x = atomicCompareExchangeWeak({p}, o, {next}); if "
            "(x.exchanged) {{ {give} }} o = x.old_value; }}",
            fmt::arg("p", p), fmt::arg("next", next_value(h.op, "0xffffffffu")), fmt::arg("give", give));
    }
  }
  const std::string mask = h.width == 1 ? "0xffu" : "0xffffu";
  if (h.op == AtomicOp::Load) return fmt::format("return (atomicLoad({}) >> shift) & {};", p, mask);
  return fmt::format(
      "var o = atomicLoad({p}); loop {{ let c = (o >> shift) & {m}; let n = ({next}) & {m}; let x = "
      "atomicCompareExchangeWeak({p}, o, (o & ~({m} << shift)) | (n << shift)); if (x.exchanged) {{ {give} }} o = "
      "x.old_value; }}",
      fmt::arg("p", p), fmt::arg("m", mask), fmt::arg("next", next_value(h.op, mask)), fmt::arg("give", give));
}

// The same on the invocation's own stack word stk[w].
std::string on_stack(AtomicHelper h) {
  const std::string mask = h.width == 4 ? "0xffffffffu" : h.width == 1 ? "0xffu" : "0xffffu";
  const std::string shift = h.width == 4 ? "0u" : "shift";
  if (h.op == AtomicOp::Load) return fmt::format("return (stk[w] >> {}) & {};", shift, mask);
  return fmt::format(
      "let o = stk[w]; let c = (o >> {s}) & {m}; let n = ({next}) & {m}; stk[w] = (o & ~({m} << {s})) | (n << {s}); "
      "{give}",
      fmt::arg("s", shift), fmt::arg("m", mask), fmt::arg("next", next_value(h.op, mask)),
      fmt::arg("give", h.op == AtomicOp::Store ? "return;" : "return c;"));
}

std::string helper(const PreludeShape& shape, AtomicHelper h) {
  const bool returns = h.op != AtomicOp::Store;
  const char* nothing = returns ? "return 0u;" : "return;";
  std::string params = "addr: u32, offset: u32";
  if (h.op != AtomicOp::Load && h.op != AtomicOp::Notify) params += ", v: u32";
  if (h.op == AtomicOp::CompareExchange) params += ", r: u32";
  std::string out = fmt::format("fn {}({}){} {{\n", atomic_helper_name(h), params, returns ? " -> u32" : "");
  out += fmt::format("  if (trapped) {{\n    {}\n  }}\n", nothing);
  if (h.width > 1)
    out += fmt::format("  if (((addr + offset) & {}u) != 0u) {{\n    trap({}u);\n    {}\n  }}\n", h.width - 1,
                       uint32_t(abi::TrapKind::MemoryOutOfBounds), nothing);
  out += fmt::format("  let at = resolve(addr, offset, {}u);\n  if (at.x == no_slot) {{\n    {}\n  }}\n", h.width,
                     nothing);
  if (h.op == AtomicOp::Notify) return out + "  return 0u;\n}\n\n";
  out += "  let w = at.y >> 2u;\n";
  if (h.width < 4) out += "  let shift = (at.y & 3u) * 8u;\n";
  out += "  switch at.x {\n";
  out += fmt::format("    case 0u: {{ {} }}\n", on_atomic(h, "&mem[w]"));
  for (uint32_t k = 0; k < shape.buffer_bindings; ++k)
    out += fmt::format("    case {}u: {{ {} }}\n", k + 1, on_atomic(h, fmt::format("&buf{}[w]", k)));
  if (shape.stack_slot_bytes != 0)
    out += fmt::format("    case {}u: {{ {} }}\n", shape.buffer_bindings + 1, on_stack(h));
  if (shape.shared_bytes != 0) out += fmt::format("    case shared_slot: {{ {} }}\n", on_atomic(h, "&shm[w]"));
  out += "    default: {}\n  }\n";
  out += fmt::format("  {}\n}}\n\n", nothing);
  return out;
}

}  // namespace

std::string atomic_helper_name(AtomicHelper h) { return fmt::format("atomic_{}_{}", op_name(h.op), h.width); }

std::string atomic_helpers(const PreludeShape& shape, const std::set<AtomicHelper>& used) {
  std::string out;
  for (AtomicHelper h : used) out += helper(shape, h);
  return out;
}

}  // namespace wasmgpu::wgsl
