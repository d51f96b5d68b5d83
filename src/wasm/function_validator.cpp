#include "wasm/function_validator.h"

#include <array>
#include <bit>
#include <cassert>
#include <string>

namespace wasmgpu::wasm {

IndexSpaces build_index_spaces(const Module& module) {
  IndexSpaces spaces;
  for (const Import& import : module.imports) {
    switch (import.kind) {
      case ExternalKind::Func: spaces.functions.push_back(&module.types.at(import.func_type)); break;
      case ExternalKind::Table: spaces.tables.push_back(import.table); break;
      case ExternalKind::Memory: break;
      case ExternalKind::Global: spaces.globals.push_back(import.global); break;
    }
  }
  for (const Function& function : module.functions) spaces.functions.push_back(&module.types.at(function.type_index));
  for (const TableType& table : module.tables) spaces.tables.push_back(table);
  for (const Global& global : module.globals) spaces.globals.push_back(global.type);
  return spaces;
}

namespace {

// An operand type during validation: a ValType byte, or Unknown for the
// bottom type produced by popping from an unreachable (polymorphic) stack.
using Operand = uint8_t;
constexpr Operand kUnknown = 0;
constexpr Operand operand(ValType type) { return static_cast<Operand>(type); }

bool is_numeric_or_vector(Operand type) {
  switch (type) {
    case operand(ValType::I32):
    case operand(ValType::I64):
    case operand(ValType::F32):
    case operand(ValType::F64):
    case operand(ValType::V128): return true;
    default: return false;
  }
}

bool is_reference(Operand type) { return type == operand(ValType::FuncRef) || type == operand(ValType::ExternRef); }

// log2 of the natural alignment (access width in bytes) of a memory access.
uint32_t natural_alignment(Opcode op) {
  const uint32_t bytes = info(op).access.bytes;
  assert(bytes != 0 && "not a memory access");
  return uint32_t(std::countr_zero(bytes));
}

// Lane count of a SIMD instruction with a Lane immediate (the lanes of its shape).
uint32_t lane_count(Opcode op) {
  switch (op) {
    case Opcode::I8x16ExtractLaneS:
    case Opcode::I8x16ExtractLaneU:
    case Opcode::I8x16ReplaceLane: return 16;
    case Opcode::I16x8ExtractLaneS:
    case Opcode::I16x8ExtractLaneU:
    case Opcode::I16x8ReplaceLane: return 8;
    case Opcode::I32x4ExtractLane:
    case Opcode::I32x4ReplaceLane:
    case Opcode::F32x4ExtractLane:
    case Opcode::F32x4ReplaceLane: return 4;
    case Opcode::I64x2ExtractLane:
    case Opcode::I64x2ReplaceLane:
    case Opcode::F64x2ExtractLane:
    case Opcode::F64x2ReplaceLane: return 2;
    default: assert(false && "not a lane instruction"); return 0;
  }
}

struct ControlFrame {
  Opcode op;  // Block, Loop, If, Else, or Nop for the function itself
  const std::vector<ValType>* start_types;
  const std::vector<ValType>* end_types;
  size_t height;  // operand stack height on entry
  bool unreachable = false;
  const std::vector<ValType>& label_types() const { return op == Opcode::Loop ? *start_types : *end_types; }
};

class FunctionValidator {
 public:
  FunctionValidator(const Module& module, const IndexSpaces& spaces, const Function& function)
      : module_(module), spaces_(spaces), function_(function), type_(module.types.at(function.type_index)) {}

  Status validate() {
    locals_ = type_.params;
    locals_.insert(locals_.end(), function_.locals.begin(), function_.locals.end());
    push_control(Opcode::Nop, &kNoTypes, &type_.results);
    for (const Instr& instr : function_.body) {
      at_ = instr.offset;
      WASMGPU_TRY(validate_instr(instr));
      if (controls_.empty()) return {};  // the function's final `end`
    }
    return make_error_at(ErrorCode::Validation, at_, "unexpected end of function body");
  }

 private:
  static inline const std::vector<ValType> kNoTypes{};
  static inline const std::vector<ValType> kI32{ValType::I32};

  Error error(std::string message) const { return make_error_at(ErrorCode::Validation, at_, std::move(message)); }
  Error type_mismatch(Operand expected, Operand actual) const {
    auto name = [](Operand t) { return t == kUnknown ? "nothing" : to_string(static_cast<ValType>(t)); };
    return error(std::string("type mismatch: expected ") + name(expected) + ", found " + name(actual) + " in " +
                 std::string(info(current_op_).text));
  }

  void push(Operand type) { operands_.push_back(type); }
  void push(ValType type) { operands_.push_back(operand(type)); }
  template <typename Types>  // std::vector<ValType> or ValTypes
  void push_all(const Types& types) {
    for (ValType type : types) push(type);
  }

  Result<Operand> pop() {
    const ControlFrame& frame = controls_.back();
    if (operands_.size() == frame.height) {
      if (frame.unreachable) return kUnknown;
      return error(std::string("type mismatch: operand stack empty in ") + std::string(info(current_op_).text));
    }
    Operand type = operands_.back();
    operands_.pop_back();
    return type;
  }

  Result<Operand> pop(Operand expected) {
    WASMGPU_ASSIGN_OR_RETURN(Operand actual, pop());
    if (actual != expected && actual != kUnknown && expected != kUnknown) return type_mismatch(expected, actual);
    return actual;
  }
  Status pop(ValType expected) {
    WASMGPU_TRY(pop(operand(expected)));
    return {};
  }

  template <typename Types>
  Status pop_all(const Types& types) {
    for (size_t i = types.size(); i-- > 0;) WASMGPU_TRY(pop(types[i]));
    return {};
  }

  void push_control(Opcode op, const std::vector<ValType>* start, const std::vector<ValType>* end) {
    controls_.push_back(ControlFrame{op, start, end, operands_.size()});
    push_all(*start);
  }

  Result<ControlFrame> pop_control() {
    if (controls_.empty()) return error("unexpected end");
    WASMGPU_TRY(pop_all(*controls_.back().end_types));
    if (operands_.size() != controls_.back().height)
      return error("type mismatch: values remaining on the stack at the end of a block");
    ControlFrame frame = controls_.back();
    controls_.pop_back();
    return frame;
  }

  void set_unreachable() {
    operands_.resize(controls_.back().height);
    controls_.back().unreachable = true;
  }

  Result<const ControlFrame*> label(uint32_t depth) {
    if (depth >= controls_.size()) return error("unknown label " + std::to_string(depth));
    return &controls_[controls_.size() - 1 - depth];
  }

  Status block_types(const BlockType& block, const std::vector<ValType>*& start, const std::vector<ValType>*& end) {
    switch (block.kind) {
      case BlockType::Kind::Empty: start = end = &kNoTypes; return {};
      case BlockType::Kind::Value:
        start = &kNoTypes;
        end = &single_value_types_[block.value];
        return {};
      case BlockType::Kind::TypeIndex:
        if (block.type_index >= module_.types.size()) return error("unknown type " + std::to_string(block.type_index));
        start = &module_.types[block.type_index].params;
        end = &module_.types[block.type_index].results;
        return {};
    }
    return error("malformed block type");
  }

  // Memory `index` exists (several with multi-memory, WebAssembly 3.0).
  Status require_memory(uint32_t index) {
    if (index >= module_.total_memories()) return error("unknown memory " + std::to_string(index));
    return {};
  }

  Status check_mem_arg(const Instr& instr) {
    WASMGPU_TRY(require_memory(instr.memory));
    if (info(instr.op).cls == OpcodeClass::Atomic) {  // threads proposal: exactly natural
      if (instr.imm0 != natural_alignment(instr.op)) return error("alignment must be equal to natural");
      return {};
    }
    if (instr.imm0 > natural_alignment(instr.op)) return error("alignment must not be larger than natural");
    return {};
  }

  Result<const TableType*> table(uint32_t index) {
    if (index >= spaces_.tables.size()) return error("unknown table " + std::to_string(index));
    return &spaces_.tables[index];
  }

  Status require_element_segment(uint32_t index) {
    if (index >= module_.elements.size()) return error("unknown elem segment " + std::to_string(index));
    return {};
  }

  Status require_data_segment(uint32_t index) {
    if (!module_.data_count || index >= *module_.data_count)
      return error("unknown data segment " + std::to_string(index));
    return {};
  }

  Status validate_instr(const Instr& instr) {
    current_op_ = instr.op;
    const OpcodeInfo& facts = info(instr.op);
    // Immediate checks shared by signature-typed instructions.
    switch (facts.immediate) {
      case ImmediateKind::MemArg: WASMGPU_TRY(check_mem_arg(instr)); break;
      case ImmediateKind::MemArgLane:
        WASMGPU_TRY(check_mem_arg(instr));
        if (instr.imm64 >= (16u >> natural_alignment(instr.op))) return error("invalid lane index");
        break;
      case ImmediateKind::Memory:
        WASMGPU_TRY(require_memory(instr.memory));
        if (instr.op == Opcode::MemoryCopy) WASMGPU_TRY(require_memory(instr.source_memory));
        break;
      case ImmediateKind::Lane:
        if (instr.imm0 >= lane_count(instr.op)) return error("invalid lane index");
        break;
      case ImmediateKind::Shuffle:
        for (int i = 0; i < 8; ++i)
          if (((instr.imm64 >> (8 * i)) & 0xFF) >= 32 || ((instr.imm64_hi >> (8 * i)) & 0xFF) >= 32)
            return error("invalid lane index");
        break;
      default: break;
    }
    if (!facts.typed_by_hand) {
      switch (instr.op) {
        case Opcode::MemoryInit:
          WASMGPU_TRY(require_memory(instr.memory));
          WASMGPU_TRY(require_data_segment(instr.imm0));
          break;
        case Opcode::DataDrop: WASMGPU_TRY(require_data_segment(instr.imm0)); break;
        case Opcode::TableSize: WASMGPU_TRY(table(instr.imm0)); break;
        case Opcode::ElemDrop: WASMGPU_TRY(require_element_segment(instr.imm0)); break;
        case Opcode::TableInit: {
          WASMGPU_ASSIGN_OR_RETURN(const TableType* destination, table(instr.imm1));
          WASMGPU_TRY(require_element_segment(instr.imm0));
          if (module_.elements[instr.imm0].type != destination->element) return error("type mismatch");
          break;
        }
        case Opcode::TableCopy: {
          WASMGPU_ASSIGN_OR_RETURN(const TableType* destination, table(instr.imm0));
          WASMGPU_ASSIGN_OR_RETURN(const TableType* source, table(instr.imm1));
          if (destination->element != source->element) return error("type mismatch");
          break;
        }
        default: break;
      }
      WASMGPU_TRY(pop_all(facts.params));
      push_all(facts.results);
      return {};
    }
    return validate_by_hand(instr);
  }

  Status validate_by_hand(const Instr& instr) {
    switch (instr.op) {
      case Opcode::Unreachable: set_unreachable(); return {};
      case Opcode::Nop: return {};
      case Opcode::Block:
      case Opcode::Loop:
      case Opcode::If: {
        const std::vector<ValType>* start;
        const std::vector<ValType>* end;
        WASMGPU_TRY(block_types(instr.block, start, end));
        if (instr.op == Opcode::If) WASMGPU_TRY(pop(ValType::I32));
        WASMGPU_TRY(pop_all(*start));
        push_control(instr.op, start, end);
        return {};
      }
      case Opcode::Else: {
        WASMGPU_ASSIGN_OR_RETURN(ControlFrame frame, pop_control());
        if (frame.op != Opcode::If) return error("else without matching if");
        push_control(Opcode::Else, frame.start_types, frame.end_types);
        return {};
      }
      case Opcode::End: {
        WASMGPU_ASSIGN_OR_RETURN(ControlFrame frame, pop_control());
        // An `if` without `else` passes its inputs through the implicit else.
        if (frame.op == Opcode::If && *frame.start_types != *frame.end_types)
          return error("type mismatch: if without else must leave its parameters as results");
        push_all(*frame.end_types);
        return {};
      }
      case Opcode::Br: {
        WASMGPU_ASSIGN_OR_RETURN(const ControlFrame* target, label(instr.imm0));
        WASMGPU_TRY(pop_all(target->label_types()));
        set_unreachable();
        return {};
      }
      case Opcode::BrIf: {
        WASMGPU_ASSIGN_OR_RETURN(const ControlFrame* target, label(instr.imm0));
        WASMGPU_TRY(pop(ValType::I32));
        const std::vector<ValType>& types = target->label_types();
        WASMGPU_TRY(pop_all(types));
        push_all(types);
        return {};
      }
      case Opcode::BrTable: return validate_br_table(instr);
      case Opcode::Return:
        WASMGPU_TRY(pop_all(type_.results));
        set_unreachable();
        return {};
      case Opcode::Call: {
        if (instr.imm0 >= spaces_.functions.size()) return error("unknown function " + std::to_string(instr.imm0));
        const FuncType& callee = *spaces_.functions[instr.imm0];
        WASMGPU_TRY(pop_all(callee.params));
        push_all(callee.results);
        return {};
      }
      case Opcode::CallIndirect: {
        WASMGPU_ASSIGN_OR_RETURN(const TableType* callee_table, table(instr.imm1));
        if (callee_table->element != ValType::FuncRef)
          return error("type mismatch: call_indirect on a non-funcref table");
        if (instr.imm0 >= module_.types.size()) return error("unknown type " + std::to_string(instr.imm0));
        const FuncType& callee = module_.types[instr.imm0];
        WASMGPU_TRY(pop(ValType::I32));
        WASMGPU_TRY(pop_all(callee.params));
        push_all(callee.results);
        return {};
      }
      // A tail call returns what the callee returns: its results must be the
      // caller's, and nothing after it is reached (as after `return`).
      case Opcode::ReturnCall: {
        if (instr.imm0 >= spaces_.functions.size()) return error("unknown function " + std::to_string(instr.imm0));
        const FuncType& callee = *spaces_.functions[instr.imm0];
        if (callee.results != type_.results) return error("type mismatch: return_call's callee results differ");
        WASMGPU_TRY(pop_all(callee.params));
        set_unreachable();
        return {};
      }
      case Opcode::ReturnCallIndirect: {
        WASMGPU_ASSIGN_OR_RETURN(const TableType* callee_table, table(instr.imm1));
        if (callee_table->element != ValType::FuncRef)
          return error("type mismatch: return_call_indirect on a non-funcref table");
        if (instr.imm0 >= module_.types.size()) return error("unknown type " + std::to_string(instr.imm0));
        const FuncType& callee = module_.types[instr.imm0];
        if (callee.results != type_.results)
          return error("type mismatch: return_call_indirect's callee results differ");
        WASMGPU_TRY(pop(ValType::I32));
        WASMGPU_TRY(pop_all(callee.params));
        set_unreachable();
        return {};
      }
      case Opcode::Drop: {
        WASMGPU_TRY(pop());
        return {};
      }
      case Opcode::Select: {
        WASMGPU_TRY(pop(ValType::I32));
        WASMGPU_ASSIGN_OR_RETURN(Operand first, pop());
        WASMGPU_ASSIGN_OR_RETURN(Operand second, pop());
        // Untyped select is only for numeric and vector operands.
        if ((first != kUnknown && !is_numeric_or_vector(first)) ||
            (second != kUnknown && !is_numeric_or_vector(second)))
          return error("type mismatch: select without a type needs numeric or vector operands");
        if (first != second && first != kUnknown && second != kUnknown) return type_mismatch(first, second);
        push(first == kUnknown ? second : first);
        return {};
      }
      case Opcode::SelectTyped: {
        if (instr.imm1 != 1) return error("invalid result arity");
        const Operand type = Operand(instr.imm0);
        WASMGPU_TRY(pop(ValType::I32));
        WASMGPU_TRY(pop(type));
        WASMGPU_TRY(pop(type));
        push(type);
        return {};
      }
      case Opcode::LocalGet:
      case Opcode::LocalSet:
      case Opcode::LocalTee: {
        if (instr.imm0 >= locals_.size()) return error("unknown local " + std::to_string(instr.imm0));
        ValType type = locals_[instr.imm0];
        if (instr.op == Opcode::LocalGet) {
          push(type);
        } else {
          WASMGPU_TRY(pop(type));
          if (instr.op == Opcode::LocalTee) push(type);
        }
        return {};
      }
      case Opcode::GlobalGet:
      case Opcode::GlobalSet: {
        if (instr.imm0 >= spaces_.globals.size()) return error("unknown global " + std::to_string(instr.imm0));
        const GlobalType& global = spaces_.globals[instr.imm0];
        if (instr.op == Opcode::GlobalGet) {
          push(global.type);
        } else {
          if (!global.is_mutable) return error("global is immutable");
          WASMGPU_TRY(pop(global.type));
        }
        return {};
      }
      case Opcode::TableGet: {
        WASMGPU_ASSIGN_OR_RETURN(const TableType* target, table(instr.imm0));
        WASMGPU_TRY(pop(ValType::I32));
        push(target->element);
        return {};
      }
      case Opcode::TableSet: {
        WASMGPU_ASSIGN_OR_RETURN(const TableType* target, table(instr.imm0));
        WASMGPU_TRY(pop(target->element));
        WASMGPU_TRY(pop(ValType::I32));
        return {};
      }
      case Opcode::TableGrow: {
        WASMGPU_ASSIGN_OR_RETURN(const TableType* target, table(instr.imm0));
        WASMGPU_TRY(pop(ValType::I32));
        WASMGPU_TRY(pop(target->element));
        push(ValType::I32);
        return {};
      }
      case Opcode::TableFill: {
        WASMGPU_ASSIGN_OR_RETURN(const TableType* target, table(instr.imm0));
        WASMGPU_TRY(pop(ValType::I32));
        WASMGPU_TRY(pop(target->element));
        WASMGPU_TRY(pop(ValType::I32));
        return {};
      }
      case Opcode::RefNull: push(Operand(instr.imm0)); return {};
      case Opcode::RefIsNull: {
        WASMGPU_ASSIGN_OR_RETURN(Operand type, pop());
        if (type != kUnknown && !is_reference(type)) return error("type mismatch: ref.is_null needs a reference");
        push(ValType::I32);
        return {};
      }
      case Opcode::RefFunc: {
        if (instr.imm0 >= spaces_.functions.size()) return error("unknown function " + std::to_string(instr.imm0));
        if (!spaces_.declared_references[instr.imm0]) return error("undeclared function reference");
        push(ValType::FuncRef);
        return {};
      }
      default: return error("no typing rule for " + std::string(info(instr.op).text));
    }
  }

  Status validate_br_table(const Instr& instr) {
    WASMGPU_TRY(pop(ValType::I32));
    const std::vector<uint32_t>& targets = function_.br_tables.at(instr.imm0);
    WASMGPU_ASSIGN_OR_RETURN(const ControlFrame* default_target, label(targets.back()));
    const size_t arity = default_target->label_types().size();
    for (uint32_t depth : targets) {
      WASMGPU_ASSIGN_OR_RETURN(const ControlFrame* target, label(depth));
      const std::vector<ValType>& types = target->label_types();
      if (types.size() != arity) return error("type mismatch: br_table targets of different arity");
      // Check against each label without consuming: pop, then restore.
      std::vector<Operand> popped;
      for (size_t i = types.size(); i-- > 0;) {
        WASMGPU_ASSIGN_OR_RETURN(Operand type, pop(operand(types[i])));
        popped.push_back(type);
      }
      for (size_t i = popped.size(); i-- > 0;) push(popped[i]);
    }
    WASMGPU_TRY(pop_all(default_target->label_types()));
    set_unreachable();
    return {};
  }

  const Module& module_;
  const IndexSpaces& spaces_;
  const Function& function_;
  const FuncType& type_;
  std::vector<ValType> locals_;
  std::vector<Operand> operands_;
  std::vector<ControlFrame> controls_;
  uint32_t at_ = 0;
  Opcode current_op_ = Opcode::Nop;

  // Result types of the one-value block types, addressable by ValType.
  struct SingleValueTypes {
    std::array<std::vector<ValType>, 256> by_byte;
    SingleValueTypes() {
      for (ValType t : {ValType::I32, ValType::I64, ValType::F32, ValType::F64, ValType::V128, ValType::FuncRef,
                        ValType::ExternRef})
        by_byte[size_t(t)] = {t};
    }
    const std::vector<ValType>& operator[](ValType t) const { return by_byte[size_t(t)]; }
  };
  static inline const SingleValueTypes single_value_types_{};
};

}  // namespace

Status validate_function(const Module& module, const IndexSpaces& spaces, const Function& function) {
  return FunctionValidator(module, spaces, function).validate();
}

}  // namespace wasmgpu::wasm
