#include "probe/probe_cases.h"

#include <bit>
#include <cfenv>
#include <cmath>
#include <cstring>
#include <limits>

#include "probe/probe_ops.h"
#include "runtime/call.h"

namespace wasmgpu::probe {
namespace {

using wasm::ValType;

template <class F>
using Bits = std::conditional_t<sizeof(F) == 4, uint32_t, uint64_t>;

template <class F>
uint64_t bits(F v) {
  return std::bit_cast<Bits<F>>(v);
}
template <class F>
F from_bits(uint64_t b) {
  return std::bit_cast<F>(Bits<F>(b));
}

template <class F>
bool is_subnormal(F v) {
  return std::fpclassify(v) == FP_SUBNORMAL;
}
// What a device that flushes subnormals makes of a value: a zero of its sign.
template <class F>
F flush(F v) {
  return is_subnormal(v) ? std::copysign(F(0), v) : v;
}

// The host computes every expected result; volatile keeps the compiler from
// folding the operations (it would fold them correctly too, but the host's
// instructions are the reference this comment promises).
template <class F>
F host_op(uint32_t op, F a, F b) {
  volatile F x = a, y = b;
  switch (op) {
    case PROBE_F_ADD: return x + y;
    case PROBE_F_SUB: return x - y;
    case PROBE_F_MUL: return x * y;
    case PROBE_F_DIV: return x / y;
    case PROBE_F_SQRT: return std::sqrt(F(x));
    case PROBE_F_TRUNC: return std::trunc(F(x));
    case PROBE_F_FLOOR: return std::floor(F(x));
    case PROBE_F_CEIL: return std::ceil(F(x));
    case PROBE_F_NEAREST: return std::nearbyint(F(x));  // round to nearest, ties to even
  }
  return F(0);
}

const char* op_text(uint32_t op) {
  switch (op) {
    case PROBE_F_ADD: return "+";
    case PROBE_F_SUB: return "-";
    case PROBE_F_MUL: return "*";
    case PROBE_F_DIV: return "/";
    case PROBE_F_SQRT: return "sqrt";
    case PROBE_F_TRUNC: return "trunc";
    case PROBE_F_FLOOR: return "floor";
    case PROBE_F_CEIL: return "ceil";
    case PROBE_F_NEAREST: return "nearest";
    case PROBE_F_TO_S32: return "trunc_s32";
    case PROBE_F_TO_U32: return "trunc_u32";
    case PROBE_F_TO_S64: return "trunc_s64";
    case PROBE_F_TO_U64: return "trunc_u64";
    case PROBE_F_FROM_S32: return "convert_s32";
    case PROBE_F_FROM_U32: return "convert_u32";
    case PROBE_F_FROM_S64: return "convert_s64";
    case PROBE_F_FROM_U64: return "convert_u64";
    case PROBE_I_SHL: return "shl";
    case PROBE_I_SHR_S: return "shr_s";
    case PROBE_I_SHR_U: return "shr_u";
    case PROBE_I_DIV_S: return "div_s";
    case PROBE_I_DIV_U: return "div_u";
    case PROBE_I_REM_S: return "rem_s";
    case PROBE_I_REM_U: return "rem_u";
    case PROBE_I_MUL: return "mul";
  }
  return "?";
}

bool binary(uint32_t op) {
  return op == PROBE_F_ADD || op == PROBE_F_SUB || op == PROBE_F_MUL || op == PROBE_F_DIV || op >= PROBE_I_SHL;
}

// A case of `property` for `op` in `shader`; the caller fills in operands
// and expectations.
ScalarCase start(const std::string& property, Shader shader, uint32_t op) {
  ScalarCase c;
  c.property = property;
  c.shader = shader;
  c.op = op;
  return c;
}

class Builder {
 public:
  std::vector<ScalarCase> cases;

  template <class F>
  void arith(const std::string& property, uint32_t op, F a, F b = F(0)) {
    ScalarCase c = start(property, sizeof(F) == 4 ? Shader::Float32 : Shader::Float64, op);
    c.a = bits(a);
    c.b = bits(b);
    const F r = host_op(op, a, b);
    c.expected = bits(r);
    c.expect_nan = std::isnan(r);
    c.flushed = bits(flush(host_op(op, flush(a), flush(b))));
    c.text = binary(op) ? runtime::to_string(value(a)) + " " + op_text(op) + " " + runtime::to_string(value(b))
                        : std::string(op_text(op)) + "(" + runtime::to_string(value(a)) + ")";
    cases.push_back(std::move(c));
  }

  // Float to integer, for operands in range (out of range wasm traps and
  // SPIR-V leaves the conversion undefined).
  template <class F, class I>
  void to_int(const std::string& property, uint32_t op, F a) {
    ScalarCase c = start(property, sizeof(F) == 4 ? Shader::Float32 : Shader::Float64, op);
    c.a = bits(a);
    volatile F x = a;
    c.expected = uint64_t(std::make_unsigned_t<I>(I(x)));
    c.text = std::string(op_text(op)) + "(" + runtime::to_string(value(a)) + ")";
    cases.push_back(std::move(c));
  }

  template <class F, class I>
  void from_int(const std::string& property, uint32_t op, I a) {
    ScalarCase c = start(property, sizeof(F) == 4 ? Shader::Float32 : Shader::Float64, op);
    c.a = uint64_t(std::make_unsigned_t<I>(a));
    volatile I x = a;
    c.expected = bits(F(x));
    c.text = std::string(op_text(op)) + "(" + std::to_string(a) + ")";
    cases.push_back(std::move(c));
  }

  // Integer ops with wasm's semantics: shift counts modulo the width,
  // wrapping multiplication, rem_s of INT_MIN by -1 is 0.
  template <class U>
  void integer(const std::string& property, uint32_t op, U a, U b) {
    using S = std::make_signed_t<U>;
    constexpr unsigned width = sizeof(U) * 8;
    const unsigned n = unsigned(b % width);
    U r = 0;
    switch (op) {
      case PROBE_I_SHL: r = U(a << n); break;
      case PROBE_I_SHR_S: r = U(S(a) >> n); break;
      case PROBE_I_SHR_U: r = U(a >> n); break;
      case PROBE_I_DIV_S: r = U(S(a) / S(b)); break;
      case PROBE_I_DIV_U: r = U(a / b); break;
      case PROBE_I_REM_S: r = S(b) == -1 ? 0 : U(S(a) % S(b)); break;
      case PROBE_I_REM_U: r = U(a % b); break;
      case PROBE_I_MUL: r = U(a * b); break;
    }
    ScalarCase c = start(property, width == 32 ? Shader::Int32 : Shader::Int64, op);
    c.a = a;
    c.b = b;
    c.expected = r;
    const bool is_signed = op == PROBE_I_SHR_S || op == PROBE_I_DIV_S || op == PROBE_I_REM_S;
    auto text = [&](U v) { return is_signed ? std::to_string(S(v)) : "0x" + hex(v); };
    c.text =
        std::string(op_text(op)) + "(" + text(a) + ", " + (op <= PROBE_I_SHR_U ? std::to_string(b) : text(b)) + ")";
    cases.push_back(std::move(c));
  }

 private:
  template <class F>
  static runtime::Value value(F v) {
    return sizeof(F) == 4 ? runtime::Value{ValType::F32, bits(v)} : runtime::Value{ValType::F64, bits(v)};
  }
  template <class U>
  static std::string hex(U v) {
    static const char digits[] = "0123456789abcdef";
    std::string s;
    do {
      s.insert(s.begin(), digits[v & 15]);
      v >>= 4;
    } while (v);
    return s;
  }
};

// A fixed pseudo-random sequence (same cases on every run): normal operands
// over a wide exponent range, for rounding that edge cases do not reach.
struct Random {
  uint64_t state = 0x2545F4914F6CDD1Dull;
  uint64_t next() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  }
  template <class F>
  F normal(int max_exponent) {
    const F mantissa = F(1) + F(next() >> 11) / F(1ull << 53);  // [1, 2)
    const int exponent = int(next() % uint64_t(2 * max_exponent + 1)) - max_exponent;
    return std::ldexp(next() & 1 ? -mantissa : mantissa, exponent);
  }
};

template <class F>
void float_cases(Builder& b, const std::string& t) {
  using L = std::numeric_limits<F>;
  const int digits = L::digits;                  // 24, 53
  const F ulp_half = std::ldexp(F(1), -digits);  // half an ulp of 1
  const F min_normal = L::min(), tiny = L::denorm_min(), max = L::max();
  const F inf = L::infinity(), nan = L::quiet_NaN();
  Random random;

  // Rounding of + - * on normal values: ties to even, overflow, signed zeros.
  const std::string arith = t + "_arith";
  b.arith(arith, PROBE_F_ADD, F(1), ulp_half);           // a tie: stays 1
  b.arith(arith, PROBE_F_ADD, F(1), F(3) * ulp_half);    // a tie: rounds up to even
  b.arith(arith, PROBE_F_ADD, F(1), ulp_half * F(1.5));  // above the tie
  b.arith(arith, PROBE_F_SUB, F(1), ulp_half / F(2));    // below half an ulp of 1 - ...
  b.arith(arith, PROBE_F_ADD, F(0.1), F(0.2));
  b.arith(arith, PROBE_F_ADD, max, max);                                        // overflow: inf
  b.arith(arith, PROBE_F_ADD, -F(0), -F(0));                                    // -0
  b.arith(arith, PROBE_F_SUB, F(0), F(0));                                      // +0
  b.arith(arith, PROBE_F_MUL, -F(0), F(5));                                     // -0
  b.arith(arith, PROBE_F_SUB, inf, inf);                                        // NaN
  b.arith(arith, PROBE_F_MUL, F(1) + F(2) * ulp_half, F(1) + F(2) * ulp_half);  // 1 + 2u + u^2 rounds
  b.arith(arith, PROBE_F_MUL, max, F(1) + F(2) * ulp_half);                     // overflow
  for (int i = 0; i < 8; ++i) {
    b.arith(arith, PROBE_F_ADD, random.normal<F>(20), random.normal<F>(20));
    b.arith(arith, PROBE_F_SUB, random.normal<F>(20), random.normal<F>(20));
    b.arith(arith, PROBE_F_MUL, random.normal<F>(40), random.normal<F>(40));
  }

  // Division and square root, correctly rounded (Vulkan lets a device be 2.5 ulp off).
  const std::string div = t + "_div";
  b.arith(div, PROBE_F_DIV, F(1), F(3));
  b.arith(div, PROBE_F_DIV, F(2), F(3));
  b.arith(div, PROBE_F_DIV, F(1), F(10));
  b.arith(div, PROBE_F_DIV, max, F(0.5));  // overflow: inf
  b.arith(div, PROBE_F_DIV, F(7), F(0));   // inf
  b.arith(div, PROBE_F_DIV, -F(0), F(3));  // -0
  b.arith(div, PROBE_F_DIV, F(0), F(0));   // NaN
  for (int i = 0; i < 12; ++i) b.arith(div, PROBE_F_DIV, random.normal<F>(30), random.normal<F>(30));
  const std::string sqrt = t + "_sqrt";
  for (F v : {F(2), F(3), F(0.5), F(1e30), max, min_normal, -F(0), F(-1), inf}) b.arith(sqrt, PROBE_F_SQRT, v);
  for (int i = 0; i < 12; ++i) b.arith(sqrt, PROBE_F_SQRT, std::fabs(random.normal<F>(60)));

  // Subnormal operands and results of + - *: kept, or flushed to zero.
  const std::string sub = t + "_subnormals";
  const F largest_subnormal = min_normal - tiny;
  b.arith(sub, PROBE_F_ADD, tiny, tiny);  // subnormal + subnormal
  b.arith(sub, PROBE_F_SUB, F(5) * tiny, F(3) * tiny);
  b.arith(sub, PROBE_F_SUB, min_normal, tiny);                     // normal - subnormal = subnormal
  b.arith(sub, PROBE_F_SUB, F(1.5) * min_normal, min_normal);      // normals, subnormal result
  b.arith(sub, PROBE_F_ADD, largest_subnormal, tiny);              // subnormals, normal result
  b.arith(sub, PROBE_F_MUL, min_normal, F(0.5));                   // normal operands, subnormal result
  b.arith(sub, PROBE_F_MUL, F(3) * tiny, F(0.5));                  // 1.5 tiny: a tie, to even (2 tiny)
  b.arith(sub, PROBE_F_MUL, tiny, std::ldexp(F(1), digits + 10));  // subnormal operand, normal result
  b.arith(sub, PROBE_F_MUL, -largest_subnormal, F(1));

  // Rounding to integral: ties, halves, the largest non-integers, signed
  // zeros, subnormals, infinities, NaN.
  const F below_integers = std::ldexp(F(1), digits - 1) - F(0.5);  // 2^52 - 0.5, 2^23 - 0.5
  std::vector<F> values = {F(0.5),
                           F(-0.5),
                           F(1.5),
                           F(-1.5),
                           F(2.5),
                           F(-2.5),
                           F(-3.5),
                           F(-0.3),
                           F(0.7),
                           std::nextafter(F(0.5), F(0)),
                           below_integers,
                           -below_integers,
                           std::ldexp(F(1), digits - 1) + F(1),
                           std::ldexp(F(1), digits) - F(1),
                           F(1e30),
                           F(-1e30),
                           F(0),
                           -F(0),
                           tiny,
                           -tiny,
                           largest_subnormal,
                           inf,
                           -inf,
                           nan};
  if constexpr (sizeof(F) == 8) values.push_back(from_bits<double>(0xc25def3841b53f3dull));
  const std::pair<const char*, uint32_t> rounding[] = {
      {"_trunc", PROBE_F_TRUNC}, {"_floor", PROBE_F_FLOOR}, {"_ceil", PROBE_F_CEIL}, {"_nearest", PROBE_F_NEAREST}};
  for (auto [name, op] : rounding)
    for (F v : values) b.arith(t + name, op, v);

  // Conversions at the edges of each integer type.
  const std::string conv = t + "_convert";
  b.to_int<F, int32_t>(conv, PROBE_F_TO_S32, F(-2147483648.0));
  b.to_int<F, int32_t>(conv, PROBE_F_TO_S32, std::nextafter(F(2147483648.0), F(0)));
  b.to_int<F, int32_t>(conv, PROBE_F_TO_S32, F(-1.75));
  b.to_int<F, uint32_t>(conv, PROBE_F_TO_U32, std::nextafter(F(4294967296.0), F(0)));
  b.to_int<F, uint32_t>(conv, PROBE_F_TO_U32, F(2147483648.0));  // the top bit set
  b.to_int<F, uint32_t>(conv, PROBE_F_TO_U32, F(3e9));
  b.to_int<F, int64_t>(conv, PROBE_F_TO_S64, F(-9223372036854775808.0));
  b.to_int<F, int64_t>(conv, PROBE_F_TO_S64, std::nextafter(F(9223372036854775808.0), F(0)));
  b.to_int<F, uint64_t>(conv, PROBE_F_TO_U64, std::nextafter(F(18446744073709551616.0), F(0)));
  b.to_int<F, uint64_t>(conv, PROBE_F_TO_U64, F(9223372036854775808.0));  // the top bit set
  b.to_int<F, uint64_t>(conv, PROBE_F_TO_U64, F(9223372036854775808.0) * F(1.5));
  b.from_int<F, int32_t>(conv, PROBE_F_FROM_S32, 16777217);  // a tie in f32
  b.from_int<F, int32_t>(conv, PROBE_F_FROM_S32, std::numeric_limits<int32_t>::min());
  b.from_int<F, int32_t>(conv, PROBE_F_FROM_S32, std::numeric_limits<int32_t>::max());
  b.from_int<F, uint32_t>(conv, PROBE_F_FROM_U32, 0xFFFFFFFFu);
  b.from_int<F, uint32_t>(conv, PROBE_F_FROM_U32, 0x80000081u);
  b.from_int<F, int64_t>(conv, PROBE_F_FROM_S64, (int64_t(1) << 53) + 1);  // a tie in f64
  b.from_int<F, int64_t>(conv, PROBE_F_FROM_S64,
                         (int64_t(1) << 60) + (int64_t(1) << 36) + 1);  // rounding twice (via f64) gives the tie
  b.from_int<F, int64_t>(conv, PROBE_F_FROM_S64, -((int64_t(1) << 60) + (int64_t(1) << 36) + 1));
  b.from_int<F, int64_t>(conv, PROBE_F_FROM_S64, std::numeric_limits<int64_t>::min());
  b.from_int<F, int64_t>(conv, PROBE_F_FROM_S64, std::numeric_limits<int64_t>::max());
  b.from_int<F, uint64_t>(conv, PROBE_F_FROM_U64, ~uint64_t(0));
  b.from_int<F, uint64_t>(conv, PROBE_F_FROM_U64,
                          (uint64_t(1) << 63) + (uint64_t(1) << 10) + 1);  // halving loses the sticky bit
  b.from_int<F, uint64_t>(conv, PROBE_F_FROM_U64, (uint64_t(1) << 63) + (uint64_t(1) << 39) + 1);
  b.from_int<F, uint64_t>(conv, PROBE_F_FROM_U64, (uint64_t(1) << 63) + (uint64_t(1) << 10));  // a tie in f64
}

template <class U>
void integer_cases(Builder& b, const std::string& t) {
  using S = std::make_signed_t<U>;
  constexpr unsigned width = sizeof(U) * 8;
  const U top = U(1) << (width - 1), ones = ~U(0);
  // Counts of the width and more: wasm takes them modulo the width.
  const std::string shift = t + "_shift";
  for (U count : {U(width - 1), U(width), U(width + 1), U(2 * width - 1), ones}) {
    b.integer<U>(shift, PROBE_I_SHL, U(3), count);
    b.integer<U>(shift, PROBE_I_SHR_S, top | U(8), count);
    b.integer<U>(shift, PROBE_I_SHR_U, top | U(8), count);
  }
  // Unsigned division with the top bit set, truncating signed division.
  const std::string div = t + "_div";
  b.integer<U>(div, PROBE_I_DIV_U, ones, U(3));
  b.integer<U>(div, PROBE_I_DIV_U, top, U(7));
  b.integer<U>(div, PROBE_I_DIV_U, ones - 1, ones);
  b.integer<U>(div, PROBE_I_DIV_U, ones, top + 1);
  b.integer<U>(div, PROBE_I_REM_U, ones, top + 1);
  b.integer<U>(div, PROBE_I_REM_U, top + 5, U(10));
  b.integer<U>(div, PROBE_I_DIV_S, U(S(-7)), U(2));
  b.integer<U>(div, PROBE_I_DIV_S, U(7), U(S(-2)));
  b.integer<U>(div, PROBE_I_DIV_S, top, U(1));
  b.integer<U>(div, PROBE_I_DIV_S, top, U(S(-2)));
  // rem_s takes the dividend's sign; INT_MIN rem -1 is 0 (and must not trap).
  const std::string rem = t + "_rem_s";
  b.integer<U>(rem, PROBE_I_REM_S, top, ones);
  b.integer<U>(rem, PROBE_I_REM_S, U(S(-7)), U(2));
  b.integer<U>(rem, PROBE_I_REM_S, U(7), U(S(-2)));
  b.integer<U>(rem, PROBE_I_REM_S, top, U(3));
  b.integer<U>(rem, PROBE_I_REM_S, ones, top);
  // Wrapping multiplication.
  const std::string mul = t + "_mul";
  b.integer<U>(mul, PROBE_I_MUL, U(0x0123456789ABCDEFull), U(0xFEDCBA9876543210ull));
  b.integer<U>(mul, PROBE_I_MUL, top, ones);
  b.integer<U>(mul, PROBE_I_MUL, U(0xFFFFFFFFull), U(0xFFFFFFFFull));
  b.integer<U>(mul, PROBE_I_MUL, U(0x100000001ull), U(0xFFFFFFFFull));
}

}  // namespace

std::vector<ScalarCase> scalar_cases() {
  // The expected results assume round to nearest, which is the default.
  std::fesetround(FE_TONEAREST);
  Builder b;
  float_cases<float>(b, "f32");
  float_cases<double>(b, "f64");
  integer_cases<uint32_t>(b, "i32");
  integer_cases<uint64_t>(b, "i64");
  return std::move(b.cases);
}

std::string export_name(const ScalarCase& c) {
  static const char* const names[] = {"add",    "sub",      "mul",      "div",      "sqrt",    "trunc",
                                      "floor",  "ceil",     "nearest",  "to_s32",   "to_u32",  "to_s64",
                                      "to_u64", "from_s32", "from_u32", "from_s64", "from_u64"};
  static const char* const int_names[] = {"shl", "shr_s", "shr_u", "div_s", "div_u", "rem_s", "rem_u", "mul"};
  const char* type = c.shader == Shader::Float32   ? "f32"
                     : c.shader == Shader::Float64 ? "f64"
                     : c.shader == Shader::Int32   ? "i32"
                                                   : "i64";
  const char* name = c.op >= PROBE_I_SHL ? int_names[c.op - PROBE_I_SHL] : names[c.op];
  return std::string(type) + "." + name;
}

std::vector<ValType> param_types(const ScalarCase& c) {
  const ValType own = c.shader == Shader::Float32   ? ValType::F32
                      : c.shader == Shader::Float64 ? ValType::F64
                      : c.shader == Shader::Int32   ? ValType::I32
                                                    : ValType::I64;
  if (c.op == PROBE_F_FROM_S32 || c.op == PROBE_F_FROM_U32) return {ValType::I32};
  if (c.op == PROBE_F_FROM_S64 || c.op == PROBE_F_FROM_U64) return {ValType::I64};
  if (binary(c.op)) return {own, own};
  return {own};
}

ValType result_type(const ScalarCase& c) {
  if (c.op == PROBE_F_TO_S32 || c.op == PROBE_F_TO_U32) return ValType::I32;
  if (c.op == PROBE_F_TO_S64 || c.op == PROBE_F_TO_U64) return ValType::I64;
  switch (c.shader) {
    case Shader::Float32: return ValType::F32;
    case Shader::Float64: return ValType::F64;
    case Shader::Int32: return ValType::I32;
    case Shader::Int64: return ValType::I64;
  }
  return ValType::I64;
}

uint64_t result_mask(ValType type) {
  return type == ValType::I32 || type == ValType::F32 ? 0xFFFF'FFFFull : ~uint64_t(0);
}

std::string value_text(ValType type, uint64_t bits) {
  return runtime::to_string(runtime::Value{type, bits & result_mask(type)});
}

bool matches(const ScalarCase& c, uint64_t result) {
  const ValType type = result_type(c);
  result &= result_mask(type);
  if (c.expect_nan) {
    if (type == ValType::F32) return std::isnan(from_bits<float>(result));
    return std::isnan(from_bits<double>(result));
  }
  return result == c.expected;
}

bool is_subnormal_property(std::string_view property) { return property.ends_with("_subnormals"); }

uint64_t forced_wrong_result(const ScalarCase& c) {
  if (is_subnormal_property(c.property)) return c.flushed;
  if (c.op == PROBE_F_TRUNC || c.op == PROBE_F_FLOOR || c.op == PROBE_F_CEIL || c.op == PROBE_F_NEAREST) return c.a;
  return c.expected ^ 1;
}

}  // namespace wasmgpu::probe
