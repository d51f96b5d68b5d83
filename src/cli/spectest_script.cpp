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

Result<ExpectedValue> parse_value(const json& v) {
  ExpectedValue out;
  out.type_name = v.value("type", "");
  if (out.type_name == "i32") out.type = wasm::ValType::I32;
  else if (out.type_name == "i64") out.type = wasm::ValType::I64;
  else if (out.type_name == "f32") out.type = wasm::ValType::F32;
  else if (out.type_name == "f64") out.type = wasm::ValType::F64;
  else {
    out.supported = false;
    return out;
  }
  if (!v.contains("value")) {
    out.supported = false;  // a result of any value (assert_trap's expected types)
    return out;
  }
  const std::string text = v["value"].get<std::string>();
  if (text == "nan:canonical") out.kind = ExpectedValue::Kind::CanonicalNan;
  else if (text == "nan:arithmetic") out.kind = ExpectedValue::Kind::ArithmeticNan;
  else if (auto bits = to_u64(text)) out.bits = *bits;
  else return make_error("unexpected value '" + text + "'");
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
    return make_error("'" + json_path + "': " + e.what());
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
        cmd.action.type = a.value("type", "invoke") == "get" ? ScriptAction::Type::Get
                                                             : ScriptAction::Type::Invoke;
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
      script.commands.push_back(std::move(cmd));
    }
  } catch (const json::exception& e) {
    return make_error("'" + json_path + "': " + e.what());
  }
  return script;
}

}  // namespace wasmgpu::cli
