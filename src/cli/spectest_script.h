// A WebAssembly spec-test script (.wast) as the commands wast2json writes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "support/result.h"
#include "wasm/module.h"

namespace wasmgpu::cli {

// An expected result: exact bits, or a NaN class (spec: nan:canonical,
// nan:arithmetic). `supported` is false for types wasmgpu cannot call with
// (references). A v128 has `lanes` (of `lane_bits` each, first lane first,
// each with its own kind), and its 16 bytes in `bits` (bytes 0..7) and
// `bits_hi` (8..15) when every lane is Bits.
struct ExpectedValue {
  enum class Kind { Bits, CanonicalNan, ArithmeticNan };
  wasm::ValType type = wasm::ValType::I32;
  Kind kind = Kind::Bits;
  uint64_t bits = 0;
  uint64_t bits_hi = 0;
  bool supported = true;
  std::string type_name;  // as wast2json spells it
  uint32_t lane_bits = 0;
  std::vector<ExpectedValue> lanes;
};

struct ScriptAction {
  enum class Type { Invoke, Get };
  Type type = Type::Invoke;
  std::string module;  // empty: the current module
  std::string field;
  std::vector<ExpectedValue> args;  // Kind::Bits
};

struct ScriptCommand {
  enum class Type {
    Module,
    Register,
    Action,
    AssertReturn,
    AssertTrap,
    AssertExhaustion,
    AssertMalformed,
    AssertInvalid,
    AssertUninstantiable,
    AssertUnlinkable,
    Other
  };
  Type type = Type::Other;
  std::string type_name;
  uint32_t line = 0;
  std::string name;         // module: its $name; register: the registered module's $name
  std::string as;           // register: the import name
  std::string filename;     // module, assert_malformed/invalid/...: the module file
  std::string module_type;  // "binary" or "text"
  ScriptAction action;
  std::vector<ExpectedValue> expected;
  // assert_return with `(either ...)` (relaxed SIMD): the results match if
  // they are any one of these alternatives; `expected` is then empty.
  std::vector<std::vector<ExpectedValue>> either;
  std::string text;  // assert_trap and friends: the expected message
};

struct Script {
  std::string source;  // the .wast path
  std::vector<ScriptCommand> commands;
};

// Parses the JSON file wast2json wrote.
Result<Script> parse_script_json(const std::string& json_path, const std::string& source);

}  // namespace wasmgpu::cli
