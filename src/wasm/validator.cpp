#include "wasm/validator.h"

#include <set>
#include <string_view>

#include "wasm/function_validator.h"

namespace wasmgpu::wasm {
namespace {

constexpr uint64_t kMaxMemoryPages = 65536;  // 4 GiB of 64 KiB pages

// `at` is the entry's offset where the module records one (imports).
Error limits_error(std::optional<uint64_t> at, std::string message) {
  return at ? make_error_at(ErrorCode::Validation, *at, std::move(message))
            : make_error(ErrorCode::Validation, std::move(message));
}

Status validate_limits(const Limits& limits, uint64_t bound, const char* too_large, std::optional<uint64_t> at) {
  if (limits.min > bound) return limits_error(at, too_large);
  if (limits.max) {
    if (*limits.max > bound) return limits_error(at, too_large);
    if (limits.min > *limits.max) return limits_error(at, "size minimum must not be greater than maximum");
  }
  return {};
}

Status validate_memory_type(const MemoryType& memory, std::optional<uint64_t> at) {
  if (memory.limits.shared && !memory.limits.max) return limits_error(at, "shared memory must have maximum");
  return validate_limits(memory.limits, kMaxMemoryPages, "memory size must be at most 65536 pages (4GiB)", at);
}

Status validate_table_type(const TableType& table, std::optional<uint64_t> at) {
  return validate_limits(table.limits, 0xFFFFFFFFu, "table size must be at most 2^32-1", at);
}

uint64_t expr_offset(const ConstExpr& expr) { return expr.instrs.empty() ? 0 : expr.instrs[0].offset; }

class ModuleValidator {
 public:
  explicit ModuleValidator(const Module& module) : module_(module) {}

  Status validate() {
    WASMGPU_TRY(validate_imports());
    for (const Function& function : module_.functions)
      if (function.type_index >= module_.types.size())
        return make_error_at(ErrorCode::Validation, function.body_offset, "unknown type");
    for (const TableType& table : module_.tables) WASMGPU_TRY(validate_table_type(table, std::nullopt));
    for (const MemoryType& memory : module_.memories) WASMGPU_TRY(validate_memory_type(memory, std::nullopt));
    collect_declared_function_references();
    // Global initialisers see only imported globals (each defined global is
    // initialised before the next exists).
    for (const Global& global : module_.globals) WASMGPU_TRY(validate_const_expr(global.init, global.type.type));
    WASMGPU_TRY(validate_exports());
    WASMGPU_TRY(validate_start());
    WASMGPU_TRY(validate_elements());
    WASMGPU_TRY(validate_data());
    IndexSpaces spaces = build_index_spaces(module_);
    spaces.declared_references = std::move(declared_references_);
    for (const Function& function : module_.functions) WASMGPU_TRY(validate_function(module_, spaces, function));
    return {};
  }

 private:
  Status validate_imports() {
    for (const Import& import : module_.imports) {
      switch (import.kind) {
        case ExternalKind::Func:
          if (import.func_type >= module_.types.size())
            return make_error_at(ErrorCode::Validation, import.offset, "unknown type");
          break;
        case ExternalKind::Table: WASMGPU_TRY(validate_table_type(import.table, import.offset)); break;
        case ExternalKind::Memory: WASMGPU_TRY(validate_memory_type(import.memory, import.offset)); break;
        case ExternalKind::Global: break;
      }
    }
    return {};
  }

  // C.refs: functions named anywhere outside function bodies and the start
  // section; only those may be the target of ref.func inside a body.
  void collect_declared_function_references() {
    declared_references_.assign(module_.total_functions(), false);
    auto note_expr = [&](const ConstExpr& expr) {
      for (const Instr& instr : expr.instrs)
        if (instr.op == Opcode::RefFunc && instr.imm0 < declared_references_.size())
          declared_references_[instr.imm0] = true;
    };
    for (const Global& global : module_.globals) note_expr(global.init);
    for (const ElementSegment& segment : module_.elements) {
      note_expr(segment.offset);
      for (const ConstExpr& item : segment.items) note_expr(item);
    }
    for (const Export& entry : module_.exports)
      if (entry.kind == ExternalKind::Func && entry.index < declared_references_.size())
        declared_references_[entry.index] = true;
  }

  Status validate_const_expr(const ConstExpr& expr, ValType expected) {
    std::vector<ValType> stack;
    for (const Instr& instr : expr.instrs) {
      switch (instr.op) {
        case Opcode::I32Const: stack.push_back(ValType::I32); break;
        case Opcode::I64Const: stack.push_back(ValType::I64); break;
        case Opcode::F32Const: stack.push_back(ValType::F32); break;
        case Opcode::F64Const: stack.push_back(ValType::F64); break;
        case Opcode::V128Const: stack.push_back(ValType::V128); break;
        case Opcode::RefNull: stack.push_back(static_cast<ValType>(instr.imm0)); break;
        case Opcode::RefFunc:
          if (instr.imm0 >= module_.total_functions())
            return make_error_at(ErrorCode::Validation, instr.offset, "unknown function " + std::to_string(instr.imm0));
          stack.push_back(ValType::FuncRef);
          break;
        case Opcode::GlobalGet: {
          // Only imported globals are in scope for constant expressions (2.0).
          if (instr.imm0 >= module_.imported_globals)
            return make_error_at(ErrorCode::Validation, instr.offset, "unknown global " + std::to_string(instr.imm0));
          GlobalType global = module_.global_type(instr.imm0);
          if (global.is_mutable)
            return make_error_at(ErrorCode::Validation, instr.offset, "constant expression required");
          stack.push_back(global.type);
          break;
        }
        case Opcode::End:
          if (stack.size() != 1 || stack[0] != expected)
            return make_error_at(ErrorCode::Validation, instr.offset, "type mismatch");
          return {};
        default: return make_error_at(ErrorCode::Validation, instr.offset, "constant expression required");
      }
    }
    return make_error_at(ErrorCode::Validation, expr_offset(expr), "constant expression required");
  }

  Status validate_exports() {
    std::set<std::string_view> names;
    for (const Export& entry : module_.exports) {
      if (!names.insert(entry.name).second)
        return make_error_at(ErrorCode::Validation, entry.offset, "duplicate export name \"" + entry.name + "\"");
      uint32_t count = 0;
      switch (entry.kind) {
        case ExternalKind::Func: count = module_.total_functions(); break;
        case ExternalKind::Table: count = module_.total_tables(); break;
        case ExternalKind::Memory: count = module_.total_memories(); break;
        case ExternalKind::Global: count = module_.total_globals(); break;
      }
      if (entry.index >= count)
        return make_error_at(ErrorCode::Validation, entry.offset,
                             std::string("unknown ") +
                                 (entry.kind == ExternalKind::Func ? "function" : to_string(entry.kind)) + " " +
                                 std::to_string(entry.index) + " in export \"" + entry.name + "\"");
    }
    return {};
  }

  Status validate_start() {
    if (!module_.start) return {};
    if (*module_.start >= module_.total_functions())
      return make_error_at(ErrorCode::Validation, module_.start_offset,
                           "unknown function " + std::to_string(*module_.start) + " as start");
    const FuncType& type = module_.function_type(*module_.start);
    if (!type.params.empty() || !type.results.empty())
      return make_error_at(ErrorCode::Validation, module_.start_offset, "start function must have type [] -> []");
    return {};
  }

  Status validate_elements() {
    for (const ElementSegment& segment : module_.elements) {
      if (segment.mode == ElementSegment::Mode::Active) {
        if (segment.table >= module_.total_tables())
          return make_error_at(ErrorCode::Validation, expr_offset(segment.offset),
                               "unknown table " + std::to_string(segment.table));
        if (table_type(segment.table).element != segment.type)
          return make_error_at(ErrorCode::Validation, expr_offset(segment.offset), "type mismatch");
        WASMGPU_TRY(validate_const_expr(segment.offset, ValType::I32));
      }
      for (const ConstExpr& item : segment.items) WASMGPU_TRY(validate_const_expr(item, segment.type));
    }
    return {};
  }

  Status validate_data() {
    for (const DataSegment& segment : module_.data) {
      if (segment.mode != DataSegment::Mode::Active) continue;
      if (segment.memory >= module_.total_memories())
        return make_error_at(ErrorCode::Validation, expr_offset(segment.offset),
                             "unknown memory " + std::to_string(segment.memory));
      WASMGPU_TRY(validate_const_expr(segment.offset, ValType::I32));
    }
    return {};
  }

  TableType table_type(uint32_t index) const {
    if (index >= module_.imported_tables) return module_.tables.at(index - module_.imported_tables);
    for (const Import& import : module_.imports) {
      if (import.kind != ExternalKind::Table) continue;
      if (index == 0) return import.table;
      --index;
    }
    return {};
  }

  const Module& module_;
  std::vector<bool> declared_references_;
};

}  // namespace

Status validate(const Module& module) {
  return with_default_code(ModuleValidator(module).validate(), ErrorCode::Validation);
}

}  // namespace wasmgpu::wasm
