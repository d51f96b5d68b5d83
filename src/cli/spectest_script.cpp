#include "cli/spectest_script.h"

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

namespace wasmgpu::cli {
namespace {

using json = nlohmann::json;

std::optional<uint64_t> to_u64(const std::string& text) {
  if (text.empty()) return std::nullopt;
  uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + uint64_t(c - '0');
  }
  return value;
}

Result<ExpectedValue> parse_value(const json& v);

// {"type": "v128", "lane_type": "i8" ... "f64", "value": [lane, ...]}.
Result<ExpectedValue> parse_v128(const json& v) {
  ExpectedValue out;
  out.type = wasm::ValType::V128;
  out.type_name = "v128";
  const std::string lane_type = v.value("lane_type", "");
  if (!v.contains("value")) {
    out.supported = false;
    return out;
  }
  if (lane_type == "i8" || lane_type == "i16") {
    out.lane_bits = lane_type == "i8" ? 8 : 16;
  } else if (lane_type == "i32" || lane_type == "f32") {
    out.lane_bits = 32;
  } else if (lane_type == "i64" || lane_type == "f64") {
    out.lane_bits = 64;
  } else {
    return make_error(ErrorCode::Decode, "unexpected v128 lane type '" + lane_type + "'");
  }
  const json& values = v["value"];
  if (!values.is_array() || values.size() * out.lane_bits != 128)
    return make_error(ErrorCode::Decode,
                      "a v128 of " + lane_type + " lanes needs " + std::to_string(128 / out.lane_bits) + " lanes");
  const bool narrow = out.lane_bits < 32;
  for (size_t i = 0; i < values.size(); ++i) {
    json lane = {{"type", narrow ? std::string("i32") : lane_type}, {"value", values[i]}};
    WASMGPU_ASSIGN_OR_RETURN(ExpectedValue l, parse_value(lane));
    l.type_name = lane_type;
    if (l.kind == ExpectedValue::Kind::Bits) {
      const uint64_t mask = out.lane_bits == 64 ? ~uint64_t(0) : (uint64_t(1) << out.lane_bits) - 1;
      const uint32_t at = uint32_t(i) * out.lane_bits;
      uint64_t& half = at < 64 ? out.bits : out.bits_hi;
      half |= (l.bits & mask) << (at % 64);
    } else {
      out.kind = l.kind;  // not all Bits: a result to match lane by lane, never an argument
    }
    out.lanes.push_back(l);
  }
  return out;
}

Result<ExpectedValue> parse_value(const json& v) {
  ExpectedValue out;
  out.type_name = v.value("type", "");
  if (out.type_name == "i32")
    out.type = wasm::ValType::I32;
  else if (out.type_name == "i64")
    out.type = wasm::ValType::I64;
  else if (out.type_name == "f32")
    out.type = wasm::ValType::F32;
  else if (out.type_name == "f64")
    out.type = wasm::ValType::F64;
  else if (out.type_name == "v128")
    return parse_v128(v);
  else {
    out.supported = false;
    return out;
  }
  if (!v.contains("value")) {
    out.supported = false;  // a result of any value (assert_trap's expected types)
    return out;
  }
  const std::string text = v["value"].get<std::string>();
  if (text == "nan:canonical")
    out.kind = ExpectedValue::Kind::CanonicalNan;
  else if (text == "nan:arithmetic")
    out.kind = ExpectedValue::Kind::ArithmeticNan;
  else if (auto bits = to_u64(text))
    out.bits = *bits;
  else
    return make_error(ErrorCode::Decode, "unexpected value '" + text + "'");
  return out;
}

const std::map<std::string, ScriptCommand::Type>& command_types() {
  using T = ScriptCommand::Type;
  static const std::map<std::string, T> types = {
      {"module", T::Module},
      {"register", T::Register},
      {"action", T::Action},
      {"assert_return", T::AssertReturn},
      {"assert_trap", T::AssertTrap},
      {"assert_exhaustion", T::AssertExhaustion},
      {"assert_malformed", T::AssertMalformed},
      {"assert_invalid", T::AssertInvalid},
      {"assert_uninstantiable", T::AssertUninstantiable},
      {"assert_unlinkable", T::AssertUnlinkable},
  };
  return types;
}

}  // namespace

Result<Script> parse_script_json(const std::string& json_path, const std::string& source) {
  std::ifstream in(json_path);
  if (!in) return make_error(ErrorCode::Io, "cannot open '" + json_path + "'");
  json doc;
  try {
    doc = json::parse(in);
  } catch (const json::exception& e) {
    return make_error(ErrorCode::Decode, "'" + json_path + "': " + e.what());
  }
  Script script;
  script.source = source;
  try {
    for (const json& c : doc.at("commands")) {
      ScriptCommand cmd;
      cmd.type_name = c.at("type").get<std::string>();
      auto type = command_types().find(cmd.type_name);
      cmd.type = type == command_types().end() ? ScriptCommand::Type::Other : type->second;
      cmd.line = c.value("line", 0u);
      cmd.name = c.value("name", "");
      cmd.as = c.value("as", "");
      cmd.filename = c.value("filename", "");
      cmd.module_type = c.value("module_type", "binary");
      cmd.text = c.value("text", "");
      if (c.contains("action")) {
        const json& a = c["action"];
        cmd.action.type = a.value("type", "invoke") == "get" ? ScriptAction::Type::Get : ScriptAction::Type::Invoke;
        cmd.action.module = a.value("module", "");
        cmd.action.field = a.value("field", "");
        for (const json& arg : a.value("args", json::array())) {
          WASMGPU_ASSIGN_OR_RETURN(ExpectedValue value, parse_value(arg));
          cmd.action.args.push_back(value);
        }
      }
      for (const json& e : c.value("expected", json::array())) {
        WASMGPU_ASSIGN_OR_RETURN(ExpectedValue value, parse_value(e));
        cmd.expected.push_back(value);
      }
      // wast2json writes `(either r1 r2 ...)` as "either": one value per
      // alternative; a list stands for an alternative of several results.
      for (const json& alternative : c.value("either", json::array())) {
        std::vector<ExpectedValue> values;
        for (const json& e : alternative.is_array() ? alternative : json::array({alternative})) {
          WASMGPU_ASSIGN_OR_RETURN(ExpectedValue value, parse_value(e));
          values.push_back(value);
        }
        cmd.either.push_back(std::move(values));
      }
      script.commands.push_back(std::move(cmd));
    }
  } catch (const json::exception& e) {
    return make_error(ErrorCode::Decode, "'" + json_path + "': " + e.what());
  }
  return script;
}

}  // namespace wasmgpu::cli
