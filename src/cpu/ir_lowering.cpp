// wasm -> LLVM IR for the cpu device. Every defined function becomes an
// internal LLVM function (InvocationState*, params...) -> results; a trap
// stores its kind in the state and returns at once, and every caller returns
// after a call that trapped. The entry point loops over one row of
// invocations (cpu/kernel_abi.h).
#include "cpu/ir_lowering.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include <cmath>
#include <functional>
#include <map>
#include <vector>

#include "abi/launch_abi.h"
#include "cpu/float_rules.h"
#include "cpu/kernel_abi.h"
#include "cpu/kernel_support.h"
#include "cpu/simd_ir_lowering.h"
#include "frontend/instance_state.h"
#include "frontend/table.h"
#include "frontend/shared_memory.h"

namespace wasmgpu::cpu {

namespace {

using wasm::Opcode;
using wasm::ValType;

// The state every function of one lowering shares.
struct ModuleLowering {
  const wasm::Module& module;
  const frontend::FrontEndFacts& facts;
  frontend::FloatMode float_mode;
  llvm::Module& out;
  llvm::LLVMContext& context;
  std::map<uint32_t, llvm::Function*> functions;  // by function index
  uint64_t memory_bytes = 0;
  uint32_t memory_pages = 0;
  frontend::SharedMemory shared;  // the WASMGPU_SHARED range (empty: none)
  uint32_t max_call_depth = spirv::kDefaultCallStackDepth;
  // The module grows its memory somewhere: its size is read from the
  // instance (abi::kInstanceMemoryPages) rather than folded.
  bool dynamic_memory = false;
  frontend::InstanceLayout layout;  // the InstanceState's offsets

  llvm::Type* type_of(ValType type) {
    switch (type) {
      case ValType::I32: return llvm::Type::getInt32Ty(context);
      case ValType::I64: return llvm::Type::getInt64Ty(context);
      case ValType::F32: return llvm::Type::getFloatTy(context);
      case ValType::F64: return llvm::Type::getDoubleTy(context);
      // References are function indices, abi::kNullRef for null (as in the
      // InstanceState's tables).
      case ValType::FuncRef:
      case ValType::ExternRef: return llvm::Type::getInt32Ty(context);
      case ValType::V128: return v128_type(context);    // cpu/simd_ir_lowering.h
      default: return llvm::Type::getInt64Ty(context);  // refused earlier
    }
  }
  llvm::Type* results_type(const std::vector<ValType>& results) {
    if (results.empty()) return llvm::Type::getVoidTy(context);
    if (results.size() == 1) return type_of(results[0]);
    std::vector<llvm::Type*> members;
    for (ValType t : results) members.push_back(type_of(t));
    return llvm::StructType::get(context, members);
  }
  llvm::Function* declare(uint32_t index) {
    const wasm::FuncType& type = module.function_type(index);
    std::vector<llvm::Type*> params{llvm::PointerType::get(context, 0)};
    for (ValType t : type.params) params.push_back(type_of(t));
    auto* fn_type = llvm::FunctionType::get(results_type(type.results), params, false);
    auto* fn = llvm::Function::Create(fn_type, llvm::Function::InternalLinkage, "wasm_f" + std::to_string(index), out);
    functions[index] = fn;
    return fn;
  }
};

// The constant initialiser of an immutable defined global, which the
// lowering folds; null for a global read from the instance.
const wasm::Instr* folded_init(const wasm::Module& module, uint32_t global) {
  if (global < module.imported_globals) return nullptr;
  const wasm::Global& g = module.globals[global - module.imported_globals];
  if (g.type.is_mutable || g.init.instrs.size() != 2) return nullptr;
  const Opcode op = g.init.instrs[0].op;
  if (op != Opcode::I32Const && op != Opcode::I64Const && op != Opcode::F32Const && op != Opcode::F64Const)
    return nullptr;
  return &g.init.instrs[0];
}

bool grows_memory(const wasm::Module& module) {
  for (const wasm::Function& function : module.functions)
    for (const wasm::Instr& instr : function.body)
      if (instr.op == Opcode::MemoryGrow) return true;
  return false;
}

}  // namespace

std::optional<wasm::Limits> memory_limits(const wasm::Module& module) {
  if (!module.memories.empty()) return module.memories[0].limits;
  for (const wasm::Import& import : module.imports)
    if (import.kind == wasm::ExternalKind::Memory) return import.memory.limits;
  return std::nullopt;
}

namespace {

// A block, loop or if being lowered.
struct Frame {
  enum class Kind { Block, Loop, If, Function } kind = Kind::Block;
  llvm::BasicBlock* end = nullptr;         // where the frame continues; results' phis there
  llvm::BasicBlock* header = nullptr;      // Loop: the branch target; params' phis there
  llvm::BasicBlock* else_block = nullptr;  // If: the false arm (until `else`)
  std::vector<llvm::PHINode*> end_phis, header_phis;
  std::vector<ValType> params, results;
  size_t height = 0;                    // operand stack height below the params
  std::vector<llvm::Value*> if_params;  // If: the params, for the else arm
  bool has_else = false;
  bool end_reached = false;  // some branch or fall-through goes to `end`
};

class FunctionLowering final : public SimdHost {
 public:
  FunctionLowering(ModuleLowering& m, uint32_t index)
      : m_(m),
        index_(index),
        fn_(m.functions.at(index)),
        b_(m.context),
        body_(m.module.functions[index - m.module.imported_functions]) {}

  void lower();

 private:
  using Value = llvm::Value;

  llvm::Type* i8() { return b_.getInt8Ty(); }
  llvm::Type* i32() { return b_.getInt32Ty(); }
  llvm::Type* i64() { return b_.getInt64Ty(); }
  llvm::Type* f32() { return b_.getFloatTy(); }
  llvm::Type* f64() { return b_.getDoubleTy(); }
  llvm::Type* ptr() { return b_.getPtrTy(); }
  bool exact() const { return m_.float_mode == frontend::FloatMode::Exact; }

  Value* pop() override {
    Value* v = stack_.back();
    stack_.pop_back();
    return v;
  }
  void push(Value* v) override { stack_.push_back(v); }

  Value* field(Value* base, uint32_t offset, llvm::Type* type) {
    return b_.CreateLoad(type, b_.CreateConstInBoundsGEP1_64(i8(), base, offset));
  }
  Value* state_field_ptr(uint32_t offset) { return b_.CreateConstInBoundsGEP1_64(i8(), state_, offset); }
  Value* launch() { return field(state_, kStateLaunch, ptr()); }
  // This function's recursive component's count of active calls.
  Value* depth_slot() {
    const uint32_t component = m_.facts.graph.component_of.at(index_);
    return b_.CreateConstInBoundsGEP1_64(i32(), field(state_, kStateCallDepths, ptr()), component);
  }

  // Records trap `kind`, and the instruction being lowered as its site, in
  // the state (the caller then leaves the function). For a trap of a memory
  // access, `ea` (i64) and `bytes` name the access.
  void set_trap(abi::TrapKind kind, Value* ea = nullptr, Value* bytes = nullptr) {
    b_.CreateStore(b_.getInt32(uint32_t(kind) + 1), state_field_ptr(kStateTrap));
    b_.CreateStore(b_.getInt32(site_), state_field_ptr(kStateTrapSite));
    b_.CreateStore(ea ? ea : b_.getInt64(abi::kNoTrapAddress), state_field_ptr(kStateTrapAddress));
    b_.CreateStore(bytes ? b_.CreateZExtOrTrunc(bytes, i32()) : b_.getInt32(0), state_field_ptr(kStateTrapBytes));
  }
  // Records trap `kind` in the state and leaves the function.
  void trap_if(Value* condition, abi::TrapKind kind) {
    llvm::BasicBlock* trap = llvm::BasicBlock::Create(m_.context, "trap", fn_);
    llvm::BasicBlock* cont = llvm::BasicBlock::Create(m_.context, "ok", fn_);
    b_.CreateCondBr(condition, trap, cont, weights_unlikely());
    b_.SetInsertPoint(trap);
    set_trap(kind);
    return_default();
    b_.SetInsertPoint(cont);
  }
  llvm::MDNode* weights_unlikely() { return llvm::MDBuilder(m_.context).createBranchWeights(1, 1 << 20); }
  void return_default() {
    llvm::Type* type = fn_->getReturnType();
    if (type->isVoidTy())
      b_.CreateRetVoid();
    else
      b_.CreateRet(llvm::Constant::getNullValue(type));
  }

  // The host address of [ea, ea + width) (ea: i64), or a trap
  // (docs/memory-model.md, "How an access is translated").
  Value* translate(Value* ea, uint32_t width) override;
  // The same for [ea, ea + length) with a run-time length (bulk memory).
  Value* translate_range(Value* ea, Value* length);
  Value* instance() { return field(launch(), kLaunchInstance, ptr()); }
  Value* instance_ptr(uint32_t offset) { return b_.CreateConstInBoundsGEP1_64(i8(), instance(), offset); }
  // Bytes of module memory now.
  Value* memory_bytes();
  void lower_bulk(const wasm::Instr& instr);
  // `tail`: return_call_indirect (a true tail call where the signature allows, tail_call_kind).
  void lower_call_indirect(const wasm::Instr& instr, bool tail = false);
  // return_call: a musttail call where the callee's LLVM signature is this
  // function's, else a call and a return.
  void lower_return_call(uint32_t callee);
  // Whether a tail call to a function of wasm type `type` can be LLVM's
  // musttail (the same LLVM function type: the same wasm params and results).
  bool can_musttail(const wasm::FuncType& type) const {
    return type.params == m_.module.function_type(index_).params &&
           type.results == m_.module.function_type(index_).results;
  }
  // A musttail call of `callee` and the return of its result; the depth
  // count of this function's component is given back first (the callee
  // counts itself), so a tail-recursive loop runs at one depth and one frame.
  void musttail_call(llvm::Function* callee, const std::vector<Value*>& args);
  // Leaves the function with the top values (the function label's arity).
  void return_top() {
    branch_to(frames_.front());
    go_dead();
  }
  // Table instructions on the instance's tables (abi/launch_abi.h, Table).
  void lower_table(const wasm::Instr& instr);
  Value* table_record(uint32_t table) { return instance_ptr(m_.layout.table_offsets.at(table)); }
  Value* slot_ptr(Value* record, Value* index) {
    return b_.CreateInBoundsGEP(i32(), b_.CreateConstInBoundsGEP1_64(i8(), record, abi::kTableSlots), index);
  }
  // Stores `value` in `count` slots from `slots` (a loop).
  void fill_slots(Value* slots, Value* value, Value* count);
  // Results of a call that may have trapped: leaves the function when it did.
  void after_call(Value* result, const wasm::FuncType& type);
  void lower_load(const wasm::Instr& instr);
  void lower_store(const wasm::Instr& instr);
  // Threads-proposal atomics (0xFE): relaxed C++-style atomics on the
  // translated address, which must be naturally aligned or the access traps.
  void lower_atomic(const wasm::Instr& instr);
  Value* atomic_address(Value* ea, uint32_t width);
  Value* atomic_rmw(llvm::AtomicRMWInst::BinOp op, Value* host, Value* value, uint32_t width);
  Value* atomic_cmpxchg(Value* host, Value* expected, Value* replacement, uint32_t width);
  void lower_call(uint32_t callee);
  Value* intrinsic(CpuIntrinsic which, std::span<Value* const> args);
  Value* atomic_float_add(Value* host, Value* addend);

  // Control flow.
  Frame& label(uint32_t depth) { return frames_[frames_.size() - 1 - depth]; }
  // Adds the top values (the label's arity) as incoming values of a branch
  // from the current block to the frame's target.
  void branch_to(Frame& target);
  // The fall-through at a frame's end (or an if's else): to its end block.
  void fall_through(Frame& frame);
  void add_incoming(Frame& target, llvm::BasicBlock* from);
  void begin_frame(Frame::Kind kind, const wasm::BlockType& type);
  void end_frame();
  void else_frame();
  // After br, br_table, return, unreachable: the rest of the frame is dead.
  void go_dead() { dead_ = true; }

  bool lower_numeric(const wasm::Instr& instr);
  // The float rules of docs/float-modes.md (cpu/float_rules.h).
  FloatRules rules() { return FloatRules(b_, exact()); }
  Value* nan_fix(Value* result, Value* a, Value* b) { return rules().nan_fix(result, a, b); }
  Value* float_bits(Value* v) { return rules().bits(v); }
  Value* min_max(Value* a, Value* b, bool is_min) { return rules().min_max(a, b, is_min); }
  Value* trunc_checked(Value* x, bool is_signed, unsigned bits);
  Value* convert_nan(Value* result, Value* operand) { return rules().convert_nan(result, operand); }

  ModuleLowering& m_;
  uint32_t index_;
  llvm::Function* fn_;
  llvm::IRBuilder<> b_;
  const wasm::Function& body_;
  Value* state_ = nullptr;
  std::vector<llvm::AllocaInst*> locals_;
  std::vector<ValType> local_types_;
  std::vector<Value*> stack_;
  std::vector<Frame> frames_;
  bool dead_ = false;
  uint32_t site_ = abi::kNoTrapSite;  // module offset of the instruction being lowered
  uint32_t dead_depth_ = 0;           // blocks opened inside dead code
};

void FunctionLowering::lower() {
  llvm::BasicBlock* entry = llvm::BasicBlock::Create(m_.context, "entry", fn_);
  b_.SetInsertPoint(entry);
  state_ = fn_->getArg(0);
  const wasm::FuncType& type = m_.module.function_type(index_);
  local_types_ = type.params;
  local_types_.insert(local_types_.end(), body_.locals.begin(), body_.locals.end());
  for (size_t i = 0; i < local_types_.size(); ++i) {
    llvm::AllocaInst* slot = b_.CreateAlloca(m_.type_of(local_types_[i]));
    locals_.push_back(slot);
    const bool reference = local_types_[i] == ValType::FuncRef || local_types_[i] == ValType::ExternRef;
    Value* initial = reference ? static_cast<Value*>(b_.getInt32(abi::kNullRef))
                               : llvm::Constant::getNullValue(m_.type_of(local_types_[i]));
    b_.CreateStore(i < type.params.size() ? static_cast<Value*>(fn_->getArg(unsigned(i + 1))) : initial, slot);
  }
  if (m_.facts.graph.is_recursive(index_)) {
    // As on the SPIR-V back end, per component: the first call into it plus
    // max_call_depth nested ones may be active; one more traps.
    Value* slot = depth_slot();
    Value* depth = b_.CreateLoad(i32(), slot);
    trap_if(b_.CreateICmpUGT(depth, b_.getInt32(m_.max_call_depth)), abi::TrapKind::CallStackExhausted);
    b_.CreateStore(b_.CreateAdd(depth, b_.getInt32(1)), slot);
  }
  Frame function;
  function.kind = Frame::Kind::Function;
  function.results = type.results;
  function.end = llvm::BasicBlock::Create(m_.context, "return", fn_);
  {
    llvm::IRBuilder<>::InsertPointGuard guard(b_);
    b_.SetInsertPoint(function.end);
    for (ValType t : function.results) function.end_phis.push_back(b_.CreatePHI(m_.type_of(t), 2));
  }
  frames_.push_back(std::move(function));

  for (const wasm::Instr& instr : body_.body) {
    site_ = instr.offset;
    if (dead_) {
      const Opcode op = instr.op;
      if (op == Opcode::Block || op == Opcode::Loop || op == Opcode::If) {
        ++dead_depth_;
        continue;
      }
      if (op == Opcode::End && dead_depth_ > 0) {
        --dead_depth_;
        continue;
      }
      if (op != Opcode::End && !(op == Opcode::Else && dead_depth_ == 0)) continue;
    }
    switch (instr.op) {
      case Opcode::Nop: break;
      case Opcode::Unreachable:
        set_trap(abi::TrapKind::Unreachable);
        return_default();
        go_dead();
        break;
      case Opcode::Block: begin_frame(Frame::Kind::Block, instr.block); break;
      case Opcode::Loop: begin_frame(Frame::Kind::Loop, instr.block); break;
      case Opcode::If: begin_frame(Frame::Kind::If, instr.block); break;
      case Opcode::Else: else_frame(); break;
      case Opcode::End: end_frame(); break;
      case Opcode::Br:
        branch_to(label(instr.imm0));
        go_dead();
        break;
      case Opcode::BrIf: {
        Value* condition = b_.CreateICmpNE(pop(), b_.getInt32(0));
        llvm::BasicBlock* taken = llvm::BasicBlock::Create(m_.context, "br_if", fn_);
        llvm::BasicBlock* cont = llvm::BasicBlock::Create(m_.context, "br_if_not", fn_);
        b_.CreateCondBr(condition, taken, cont);
        b_.SetInsertPoint(taken);
        branch_to(label(instr.imm0));
        b_.SetInsertPoint(cont);
        break;
      }
      case Opcode::BrTable: {
        const std::vector<uint32_t>& targets = body_.br_tables[instr.imm0];
        Value* selector = pop();
        llvm::BasicBlock* from = b_.GetInsertBlock();
        // One arm per distinct label: a table of thousands of entries to a
        // few labels stays a few blocks (SimplifyCFG is slow on many).
        std::map<uint32_t, llvm::BasicBlock*> arm_of;
        std::vector<llvm::BasicBlock*> arms;
        for (size_t i = 0; i < targets.size(); ++i) {
          llvm::BasicBlock*& arm = arm_of[targets[i]];
          if (!arm) {
            arm = llvm::BasicBlock::Create(m_.context, "br_table", fn_);
            b_.SetInsertPoint(arm);
            branch_to(label(targets[i]));
          }
          arms.push_back(arm);
        }
        b_.SetInsertPoint(from);
        llvm::SwitchInst* sw = b_.CreateSwitch(selector, arms.back(), unsigned(targets.size() - 1));
        for (size_t i = 0; i + 1 < targets.size(); ++i) sw->addCase(b_.getInt32(uint32_t(i)), arms[i]);
        go_dead();
        break;
      }
      case Opcode::Return: return_top(); break;
      case Opcode::Call: lower_call(instr.imm0); break;
      case Opcode::ReturnCall: lower_return_call(instr.imm0); break;
      case Opcode::ReturnCallIndirect: lower_call_indirect(instr, true); break;
      case Opcode::Drop: pop(); break;
      case Opcode::Select:
      case Opcode::SelectTyped: {
        Value* condition = b_.CreateICmpNE(pop(), b_.getInt32(0));
        Value* if_false = pop();
        Value* if_true = pop();
        push(b_.CreateSelect(condition, if_true, if_false));
        break;
      }
      case Opcode::LocalGet: push(b_.CreateLoad(m_.type_of(local_types_[instr.imm0]), locals_[instr.imm0])); break;
      case Opcode::LocalSet: b_.CreateStore(pop(), locals_[instr.imm0]); break;
      case Opcode::LocalTee: b_.CreateStore(stack_.back(), locals_[instr.imm0]); break;
      case Opcode::GlobalGet: {
        if (instr.imm0 == m_.facts.stack.stack_pointer) {
          push(b_.CreateLoad(i32(), state_field_ptr(kStateStackPointer)));
          break;
        }
        const wasm::GlobalType global_type = m_.module.global_type(instr.imm0);
        llvm::Type* type = m_.type_of(global_type.type);
        if (const wasm::Instr* init = folded_init(m_.module, instr.imm0)) {
          if (init->op == Opcode::I32Const || init->op == Opcode::F32Const)
            push(b_.CreateBitCast(b_.getInt32(uint32_t(init->imm64)), type));
          else
            push(b_.CreateBitCast(b_.getInt64(init->imm64), type));
          break;
        }
        // Mutable, imported or set from another global: the instance's slot
        // (a v128's 16 bytes in the layout's v128 slots).
        if (global_type.type == ValType::V128) {
          push(b_.CreateAlignedLoad(type, instance_ptr(m_.layout.v128_globals_offset + 16 * instr.imm0),
                                    llvm::MaybeAlign(8)));
          break;
        }
        push(b_.CreateAlignedLoad(type, instance_ptr(abi::kInstanceGlobals + abi::kInstanceGlobalSlotSize * instr.imm0),
                                  llvm::MaybeAlign(4)));
        break;
      }
      case Opcode::GlobalSet:
        if (instr.imm0 == m_.facts.stack.stack_pointer) {
          b_.CreateStore(pop(), state_field_ptr(kStateStackPointer));
        } else if (m_.module.global_type(instr.imm0).type == ValType::V128) {
          b_.CreateAlignedStore(pop(), instance_ptr(m_.layout.v128_globals_offset + 16 * instr.imm0),
                                llvm::MaybeAlign(8));
        } else {
          b_.CreateAlignedStore(pop(), instance_ptr(abi::kInstanceGlobals + abi::kInstanceGlobalSlotSize * instr.imm0),
                                llvm::MaybeAlign(4));
        }
        break;
      case Opcode::MemorySize:
        push(m_.dynamic_memory ? static_cast<Value*>(b_.CreateLoad(i32(), instance_ptr(abi::kInstanceMemoryPages)))
                               : b_.getInt32(m_.memory_pages));
        break;
      case Opcode::MemoryGrow: {
        auto* grow_type = llvm::FunctionType::get(i32(), {ptr(), i32()}, false);
        push(b_.CreateCall(grow_type, field(launch(), kLaunchMemoryGrow, ptr()), {instance(), pop()}));
        break;
      }
      case Opcode::MemoryFill:
      case Opcode::MemoryCopy:
      case Opcode::MemoryInit:
      case Opcode::DataDrop: lower_bulk(instr); break;
      case Opcode::CallIndirect: lower_call_indirect(instr); break;
      case Opcode::RefNull: push(b_.getInt32(abi::kNullRef)); break;
      case Opcode::RefFunc: push(b_.getInt32(instr.imm0)); break;
      case Opcode::RefIsNull: push(b_.CreateZExt(b_.CreateICmpEQ(pop(), b_.getInt32(abi::kNullRef)), i32())); break;
      case Opcode::TableGet:
      case Opcode::TableSet:
      case Opcode::TableSize:
      case Opcode::TableGrow:
      case Opcode::TableFill:
      case Opcode::TableCopy:
      case Opcode::TableInit:
      case Opcode::ElemDrop: lower_table(instr); break;
      default: {
        const wasm::OpcodeInfo& info = wasm::info(instr.op);
        if (info.cls == wasm::OpcodeClass::Atomic) {
          lower_atomic(instr);
        } else if (info.cls == wasm::OpcodeClass::Vector) {
          if (!lower_simd(b_, rules(), *this, instr)) {
            set_trap(abi::TrapKind::Unreachable);
            return_default();
            go_dead();
          }
        } else if (info.access.kind == wasm::AccessKind::Load) {
          lower_load(instr);
        } else if (info.access.kind == wasm::AccessKind::Store) {
          lower_store(instr);
        } else if (!lower_numeric(instr)) {
          // check_cpu_support refuses everything else first.
          set_trap(abi::TrapKind::Unreachable);
          return_default();
          go_dead();
        }
      }
    }
  }
}

void FunctionLowering::add_incoming(Frame& target, llvm::BasicBlock* from) {
  const bool loop = target.kind == Frame::Kind::Loop;
  std::vector<llvm::PHINode*>& phis = loop ? target.header_phis : target.end_phis;
  const size_t arity = phis.size();
  for (size_t i = 0; i < arity; ++i) phis[i]->addIncoming(stack_[stack_.size() - arity + i], from);
  if (!loop) target.end_reached = true;
}

void FunctionLowering::fall_through(Frame& frame) {
  const size_t arity = frame.end_phis.size();
  for (size_t i = 0; i < arity; ++i)
    frame.end_phis[i]->addIncoming(stack_[stack_.size() - arity + i], b_.GetInsertBlock());
  frame.end_reached = true;
  b_.CreateBr(frame.end);
}

void FunctionLowering::branch_to(Frame& target) {
  add_incoming(target, b_.GetInsertBlock());
  b_.CreateBr(target.kind == Frame::Kind::Loop ? target.header : target.end);
}

void FunctionLowering::begin_frame(Frame::Kind kind, const wasm::BlockType& type) {
  Frame frame;
  frame.kind = kind;
  if (type.kind == wasm::BlockType::Kind::Value) {
    frame.results = {type.value};
  } else if (type.kind == wasm::BlockType::Kind::TypeIndex) {
    frame.params = m_.module.types[type.type_index].params;
    frame.results = m_.module.types[type.type_index].results;
  }
  Value* condition = kind == Frame::Kind::If ? b_.CreateICmpNE(pop(), b_.getInt32(0)) : nullptr;
  frame.height = stack_.size() - frame.params.size();
  frame.end = llvm::BasicBlock::Create(m_.context, "end", fn_);
  {
    llvm::IRBuilder<>::InsertPointGuard guard(b_);
    b_.SetInsertPoint(frame.end);
    for (ValType t : frame.results) frame.end_phis.push_back(b_.CreatePHI(m_.type_of(t), 2));
  }
  if (kind == Frame::Kind::Loop) {
    frame.header = llvm::BasicBlock::Create(m_.context, "loop", fn_);
    llvm::BasicBlock* from = b_.GetInsertBlock();
    b_.CreateBr(frame.header);
    b_.SetInsertPoint(frame.header);
    for (size_t i = 0; i < frame.params.size(); ++i) {
      llvm::PHINode* phi = b_.CreatePHI(m_.type_of(frame.params[i]), 2);
      phi->addIncoming(stack_[frame.height + i], from);
      stack_[frame.height + i] = phi;
      frame.header_phis.push_back(phi);
    }
  } else if (kind == Frame::Kind::If) {
    llvm::BasicBlock* then_block = llvm::BasicBlock::Create(m_.context, "then", fn_);
    frame.else_block = llvm::BasicBlock::Create(m_.context, "else", fn_);
    frame.if_params.assign(stack_.begin() + long(frame.height), stack_.end());
    b_.CreateCondBr(condition, then_block, frame.else_block);
    b_.SetInsertPoint(then_block);
  }
  frames_.push_back(std::move(frame));
}

void FunctionLowering::else_frame() {
  Frame& frame = frames_.back();
  if (dead_ && !b_.GetInsertBlock()->getTerminator()) b_.CreateUnreachable();
  if (!dead_) fall_through(frame);
  dead_ = false;
  frame.has_else = true;
  stack_.resize(frame.height);
  stack_.insert(stack_.end(), frame.if_params.begin(), frame.if_params.end());
  b_.SetInsertPoint(frame.else_block);
}

void FunctionLowering::end_frame() {
  Frame& frame = frames_.back();
  if (dead_ && !b_.GetInsertBlock()->getTerminator()) b_.CreateUnreachable();
  if (!dead_) fall_through(frame);
  if (frame.kind == Frame::Kind::If && !frame.has_else) {
    // The missing else arm passes the params on as results.
    b_.SetInsertPoint(frame.else_block);
    stack_.resize(frame.height);
    stack_.insert(stack_.end(), frame.if_params.begin(), frame.if_params.end());
    fall_through(frame);
  }
  dead_ = false;
  stack_.resize(frame.height);
  b_.SetInsertPoint(frame.end);
  if (!frame.end_reached) {
    // No way in: the code after the frame is dead too.
    for (llvm::PHINode* phi : frame.end_phis) phi->eraseFromParent();
    b_.CreateUnreachable();
    go_dead();
  } else {
    for (llvm::PHINode* phi : frame.end_phis) push(phi);
  }
  const bool function_end = frame.kind == Frame::Kind::Function;
  std::vector<ValType> results = frame.results;
  frames_.pop_back();
  if (!function_end) {
    if (dead_) {
      // Keep the dead state for the enclosing frame, in a fresh block.
      b_.SetInsertPoint(llvm::BasicBlock::Create(m_.context, "dead", fn_));
    }
    return;
  }
  if (dead_) return;
  if (m_.facts.graph.is_recursive(index_)) {
    Value* slot = depth_slot();
    b_.CreateStore(b_.CreateSub(b_.CreateLoad(i32(), slot), b_.getInt32(1)), slot);
  }
  llvm::Type* type = fn_->getReturnType();
  if (results.empty()) {
    b_.CreateRetVoid();
  } else if (results.size() == 1) {
    b_.CreateRet(pop());
  } else {
    Value* aggregate = llvm::UndefValue::get(type);
    for (size_t i = 0; i < results.size(); ++i)
      aggregate = b_.CreateInsertValue(aggregate, stack_[stack_.size() - results.size() + i], unsigned(i));
    b_.CreateRet(aggregate);
  }
}

void FunctionLowering::lower_call(uint32_t callee) {
  const wasm::FuncType& type = m_.module.function_type(callee);
  std::vector<Value*> args(stack_.end() - long(type.params.size()), stack_.end());
  stack_.resize(stack_.size() - type.params.size());
  if (std::optional<CpuIntrinsic> which = cpu_intrinsic(m_.module, callee)) {
    if (Value* result = intrinsic(*which, args)) push(result);
    return;
  }
  args.insert(args.begin(), state_);
  after_call(b_.CreateCall(m_.functions.at(callee), args), type);
}

void FunctionLowering::lower_return_call(uint32_t callee) {
  const wasm::FuncType& type = m_.module.function_type(callee);
  if (cpu_intrinsic(m_.module, callee) || !can_musttail(type)) {
    // Not a true tail call: the call's depth counts (a recursive component's
    // count traps `call stack exhausted` before the native stack runs out).
    lower_call(callee);
    return_top();
    return;
  }
  std::vector<Value*> args{state_};
  args.insert(args.end(), stack_.end() - long(type.params.size()), stack_.end());
  stack_.resize(stack_.size() - type.params.size());
  musttail_call(m_.functions.at(callee), args);
  go_dead();
}

void FunctionLowering::musttail_call(llvm::Function* callee, const std::vector<Value*>& args) {
  if (m_.facts.graph.is_recursive(index_)) {
    Value* slot = depth_slot();
    b_.CreateStore(b_.CreateSub(b_.CreateLoad(i32(), slot), b_.getInt32(1)), slot);
  }
  llvm::CallInst* call = b_.CreateCall(callee, args);
  call->setTailCallKind(llvm::CallInst::TCK_MustTail);
  // A callee that trapped returned its default values: they pass on, and the
  // caller's caller sees the trap after its call.
  if (call->getType()->isVoidTy())
    b_.CreateRetVoid();
  else
    b_.CreateRet(call);
}

void FunctionLowering::after_call(Value* result, const wasm::FuncType& type) {
  Value* trapped = b_.CreateICmpNE(b_.CreateLoad(i32(), state_field_ptr(kStateTrap)), b_.getInt32(0));
  llvm::BasicBlock* leave = llvm::BasicBlock::Create(m_.context, "trapped", fn_);
  llvm::BasicBlock* cont = llvm::BasicBlock::Create(m_.context, "returned", fn_);
  b_.CreateCondBr(trapped, leave, cont, weights_unlikely());
  b_.SetInsertPoint(leave);
  return_default();
  b_.SetInsertPoint(cont);
  if (type.results.size() == 1) {
    push(result);
  } else {
    for (unsigned i = 0; i < type.results.size(); ++i) push(b_.CreateExtractValue(result, i));
  }
}

FunctionLowering::Value* FunctionLowering::intrinsic(CpuIntrinsic which, std::span<Value* const> args) {
  Value* l = launch();
  auto vector_field = [&](uint32_t offset, Value* dimension) {
    Value* safe = b_.CreateSelect(b_.CreateICmpULT(dimension, b_.getInt32(3)), dimension, b_.getInt32(0));
    Value* address = b_.CreateInBoundsGEP(i32(), b_.CreateConstInBoundsGEP1_64(i8(), l, offset), safe);
    return b_.CreateLoad(i32(), address);
  };
  auto size = [&](uint32_t d) { return field(l, kLaunchWorkgroupSize + 4 * d, i32()); };
  // Global ids from the running invocation's index and the row the state
  // describes (cpu/kernel_abi.h).
  auto global = [&](uint32_t d) -> Value* {
    if (d == 1) return b_.CreateLoad(i32(), state_field_ptr(kStateGlobalY));
    if (d == 2) return b_.CreateLoad(i32(), state_field_ptr(kStateGlobalZ));
    return b_.CreateSub(b_.CreateLoad(i32(), state_field_ptr(kStateInvocation)),
                        b_.CreateLoad(i32(), state_field_ptr(kStateRowBase)));
  };
  auto per_dimension = [&](Value* dimension, Value* outside, const std::function<Value*(uint32_t)>& of) {
    Value* result = outside;
    for (uint32_t d = 0; d < 3; ++d)
      result = b_.CreateSelect(b_.CreateICmpEQ(dimension, b_.getInt32(d)), of(d), result);
    return result;
  };
  auto local_index = [&] {
    Value* x = b_.CreateURem(global(0), size(0));
    Value* y = b_.CreateURem(global(1), size(1));
    Value* z = b_.CreateURem(global(2), size(2));
    return b_.CreateAdd(x, b_.CreateMul(size(0), b_.CreateAdd(y, b_.CreateMul(size(1), z))));
  };
  if (is_cross_lane(which)) {
    // The device's rendezvous (kernel_abi.h): bits in, bits out.
    llvm::Type* type = args[0]->getType();
    Value* bits = type->isFloatTy() ? b_.CreateBitCast(args[0], i32()) : args[0];
    Value* lane = args.size() > 1 ? args[1] : b_.getInt32(0);
    auto* callback = llvm::FunctionType::get(i64(), {ptr(), i32(), i64(), i32()}, false);
    Value* result = b_.CreateCall(callback, field(l, kLaunchSubgroup, ptr()),
                                  {state_, b_.getInt32(uint32_t(which)), b_.CreateZExt(bits, i64()), lane});
    if (which == CpuIntrinsic::SubgroupBallot) return result;
    Value* low = b_.CreateTrunc(result, i32());
    return type->isFloatTy() ? b_.CreateBitCast(low, f32()) : low;
  }
  switch (which) {
    case CpuIntrinsic::GlobalId: return per_dimension(args[0], b_.getInt32(0), global);
    case CpuIntrinsic::LocalId:
      return per_dimension(args[0], b_.getInt32(0), [&](uint32_t d) { return b_.CreateURem(global(d), size(d)); });
    case CpuIntrinsic::WorkgroupId:
      return per_dimension(args[0], b_.getInt32(0), [&](uint32_t d) { return b_.CreateUDiv(global(d), size(d)); });
    case CpuIntrinsic::WorkgroupSize:
      return b_.CreateSelect(b_.CreateICmpULT(args[0], b_.getInt32(3)), vector_field(kLaunchWorkgroupSize, args[0]),
                             b_.getInt32(1));
    case CpuIntrinsic::WorkgroupCount:
      return b_.CreateSelect(b_.CreateICmpULT(args[0], b_.getInt32(3)), vector_field(kLaunchWorkgroups, args[0]),
                             b_.getInt32(1));
    case CpuIntrinsic::LocalIndex: return local_index();
    case CpuIntrinsic::SubgroupSize: return b_.getInt32(kSubgroupSize);
    case CpuIntrinsic::SubgroupInvocationId: return b_.CreateURem(local_index(), b_.getInt32(kSubgroupSize));
    case CpuIntrinsic::SubgroupId: return b_.CreateUDiv(local_index(), b_.getInt32(kSubgroupSize));
    case CpuIntrinsic::SubgroupCount: {
      Value* invocations = b_.CreateMul(size(0), b_.CreateMul(size(1), size(2)));
      return b_.CreateUDiv(b_.CreateAdd(invocations, b_.getInt32(kSubgroupSize - 1)), b_.getInt32(kSubgroupSize));
    }
    case CpuIntrinsic::Barrier: {
      // Shared memory is the workgroup's thread's own; device memory is
      // ordered as on a GPU's barrier by the fence around the switch.
      b_.CreateFence(llvm::AtomicOrdering::AcquireRelease);
      auto* type = llvm::FunctionType::get(b_.getVoidTy(), {ptr()}, false);
      b_.CreateCall(type, field(l, kLaunchBarrier, ptr()), {state_});
      b_.CreateFence(llvm::AtomicOrdering::AcquireRelease);
      return nullptr;
    }
    case CpuIntrinsic::MemoryBarrier: b_.CreateFence(llvm::AtomicOrdering::AcquireRelease); return nullptr;
    case CpuIntrinsic::ClockTimeGet: {
      // (id, precision, *time) -> errno: the launch's host clock, stored
      // little-endian at the pointer for the two clocks it has.
      Value* known = b_.CreateICmpULT(args[0], b_.getInt32(abi::kWasiClockMonotonic + 1));
      llvm::BasicBlock* write = llvm::BasicBlock::Create(m_.context, "clock_write", fn_);
      llvm::BasicBlock* done = llvm::BasicBlock::Create(m_.context, "clock_done", fn_);
      b_.CreateCondBr(known, write, done);
      b_.SetInsertPoint(write);
      Value* monotonic = b_.CreateICmpEQ(args[0], b_.getInt32(abi::kWasiClockMonotonic));
      Value* offset = b_.CreateSelect(monotonic, b_.getInt64(kLaunchHostClock + 8), b_.getInt64(kLaunchHostClock));
      Value* clock = b_.CreateLoad(i64(), b_.CreateInBoundsGEP(i8(), l, offset));
      b_.CreateAlignedStore(clock, translate(b_.CreateZExt(args[2], i64()), 8), llvm::MaybeAlign(1));
      b_.CreateBr(done);
      b_.SetInsertPoint(done);
      return b_.CreateSelect(known, b_.getInt32(abi::kWasiErrnoSuccess), b_.getInt32(abi::kWasiErrnoInval));
    }
    default: break;
  }
  // The wasmgpu atomics: 4-byte words at the pointer argument, relaxed,
  // returning the old value.
  Value* host = atomic_address(b_.CreateZExt(args[0], i64()), 4);
  using Rmw = llvm::AtomicRMWInst::BinOp;
  switch (which) {
    case CpuIntrinsic::AtomicAdd: return atomic_rmw(Rmw::Add, host, args[1], 4);
    case CpuIntrinsic::AtomicSub: return atomic_rmw(Rmw::Sub, host, args[1], 4);
    case CpuIntrinsic::AtomicAnd: return atomic_rmw(Rmw::And, host, args[1], 4);
    case CpuIntrinsic::AtomicOr: return atomic_rmw(Rmw::Or, host, args[1], 4);
    case CpuIntrinsic::AtomicXor: return atomic_rmw(Rmw::Xor, host, args[1], 4);
    case CpuIntrinsic::AtomicMinS: return atomic_rmw(Rmw::Min, host, args[1], 4);
    case CpuIntrinsic::AtomicMaxS: return atomic_rmw(Rmw::Max, host, args[1], 4);
    case CpuIntrinsic::AtomicMinU: return atomic_rmw(Rmw::UMin, host, args[1], 4);
    case CpuIntrinsic::AtomicMaxU: return atomic_rmw(Rmw::UMax, host, args[1], 4);
    case CpuIntrinsic::AtomicExchange: return atomic_rmw(Rmw::Xchg, host, args[1], 4);
    case CpuIntrinsic::AtomicCompareExchange: return atomic_cmpxchg(host, args[1], args[2], 4);
    case CpuIntrinsic::AtomicAddF32:
      // A compare-exchange loop on the bits, adding with wasm's f32 add
      // (nan_fix in exact mode), as the SPIR-V back end's loop does.
      return atomic_float_add(host, args[1]);
    default: break;
  }
  return b_.getInt32(0);
}

FunctionLowering::Value* FunctionLowering::translate(Value* ea, uint32_t width) {
  const frontend::StackLayout& stack = m_.facts.stack;
  llvm::BasicBlock* done = llvm::BasicBlock::Create(m_.context, "translated", fn_);
  llvm::BasicBlock* oob = llvm::BasicBlock::Create(m_.context, "out_of_bounds", fn_);
  std::vector<std::pair<Value*, llvm::BasicBlock*>> results;
  auto next = [&](Value* condition, const char* name) {
    llvm::BasicBlock* yes = llvm::BasicBlock::Create(m_.context, name, fn_);
    llvm::BasicBlock* no = llvm::BasicBlock::Create(m_.context, "next", fn_);
    b_.CreateCondBr(condition, yes, no);
    b_.SetInsertPoint(yes);
    return no;
  };
  if (stack.slot_size > 0 && stack.stack_hi - stack.window_lo >= width) {
    // 1. The invocation's stack window; below it in the stack region: overflow.
    Value* offset = b_.CreateSub(ea, b_.getInt64(stack.window_lo));
    llvm::BasicBlock* no =
        next(b_.CreateICmpULE(offset, b_.getInt64(stack.stack_hi - stack.window_lo - width)), "stack");
    results.push_back({b_.CreateInBoundsGEP(i8(), field(state_, kStateStackSlot, ptr()), offset), b_.GetInsertBlock()});
    b_.CreateBr(done);
    b_.SetInsertPoint(no);
    if (stack.window_lo > stack.stack_lo) {
      Value* below = b_.CreateSub(ea, b_.getInt64(stack.stack_lo));
      llvm::BasicBlock* rest = next(b_.CreateICmpULT(below, b_.getInt64(stack.window_lo - stack.stack_lo)), "overflow");
      set_trap(abi::TrapKind::StackOverflow, ea, b_.getInt32(width));
      return_default();
      b_.SetInsertPoint(rest);
    }
  }
  Value* l = launch();
  Value* end = b_.CreateAdd(ea, b_.getInt64(width));
  if (m_.shared.hi > m_.shared.lo) {
    // 2. The workgroup's shared block; an access straddling the range's
    // edge lies in neither it nor the module memory: out of bounds.
    const uint64_t lo = m_.shared.lo, size = m_.shared.hi - m_.shared.lo;
    Value* offset = b_.CreateSub(ea, b_.getInt64(lo));
    if (size >= width) {
      llvm::BasicBlock* no = next(b_.CreateICmpULE(offset, b_.getInt64(size - width)), "shared");
      results.push_back({b_.CreateInBoundsGEP(i8(), field(state_, kStateShared, ptr()), offset), b_.GetInsertBlock()});
      b_.CreateBr(done);
      b_.SetInsertPoint(no);
    }
    Value* overlaps =
        b_.CreateAnd(b_.CreateICmpULT(ea, b_.getInt64(m_.shared.hi)), b_.CreateICmpUGT(end, b_.getInt64(lo)));
    llvm::BasicBlock* outside = llvm::BasicBlock::Create(m_.context, "outside_shared", fn_);
    b_.CreateCondBr(overlaps, oob, outside);
    b_.SetInsertPoint(outside);
  }
  if (m_.memory_bytes > 0 || m_.dynamic_memory) {
    // 3. Module memory below the buffers.
    llvm::BasicBlock* buffers = next(b_.CreateICmpULT(ea, b_.getInt64(abi::kBufferAddressBase)), "module_memory");
    llvm::BasicBlock* inside = llvm::BasicBlock::Create(m_.context, "in_memory", fn_);
    b_.CreateCondBr(b_.CreateICmpULE(end, memory_bytes()), inside, oob);
    b_.SetInsertPoint(inside);
    results.push_back({b_.CreateInBoundsGEP(i8(), field(l, kLaunchMemoryBase, ptr()), ea), inside});
    b_.CreateBr(done);
    b_.SetInsertPoint(buffers);
  }
  // 4. A buffer: the page's owner ends at or after the access's end.
  Value* page = b_.CreateLShr(ea, b_.getInt64(kPageShift));
  llvm::BasicBlock* in_space = llvm::BasicBlock::Create(m_.context, "in_space", fn_);
  b_.CreateCondBr(b_.CreateICmpULT(page, b_.getInt64(kPageCount)), in_space, oob);
  b_.SetInsertPoint(in_space);
  Value* page_end = b_.CreateLoad(i64(), b_.CreateInBoundsGEP(i64(), field(l, kLaunchPageEnd, ptr()), page));
  llvm::BasicBlock* inside = llvm::BasicBlock::Create(m_.context, "in_buffer", fn_);
  b_.CreateCondBr(b_.CreateICmpULE(end, page_end), inside, oob);
  b_.SetInsertPoint(inside);
  results.push_back({b_.CreateInBoundsGEP(i8(), field(l, kLaunchBufferBase, ptr()), ea), inside});
  b_.CreateBr(done);
  // 5. Nothing there.
  b_.SetInsertPoint(oob);
  set_trap(abi::TrapKind::MemoryOutOfBounds, ea, b_.getInt32(width));
  return_default();
  b_.SetInsertPoint(done);
  llvm::PHINode* host = b_.CreatePHI(ptr(), unsigned(results.size()));
  for (auto& [value, from] : results) host->addIncoming(value, from);
  return host;
}

FunctionLowering::Value* FunctionLowering::memory_bytes() {
  if (!m_.dynamic_memory) return b_.getInt64(m_.memory_bytes);
  Value* pages = b_.CreateZExt(b_.CreateLoad(i32(), instance_ptr(abi::kInstanceMemoryPages)), i64());
  return b_.CreateShl(pages, b_.getInt64(16));
}

FunctionLowering::Value* FunctionLowering::translate_range(Value* ea, Value* length) {
  // ea < 2^33 and length < 2^32: no sum below wraps.
  const frontend::StackLayout& stack = m_.facts.stack;
  llvm::BasicBlock* done = llvm::BasicBlock::Create(m_.context, "translated", fn_);
  llvm::BasicBlock* oob = llvm::BasicBlock::Create(m_.context, "out_of_bounds", fn_);
  std::vector<std::pair<Value*, llvm::BasicBlock*>> results;
  auto next = [&](Value* condition, const char* name) {
    llvm::BasicBlock* yes = llvm::BasicBlock::Create(m_.context, name, fn_);
    llvm::BasicBlock* no = llvm::BasicBlock::Create(m_.context, "next", fn_);
    b_.CreateCondBr(condition, yes, no);
    b_.SetInsertPoint(yes);
    return no;
  };
  auto within = [&](Value* lo, Value* hi, Value* a, Value* e) {
    return b_.CreateAnd(b_.CreateICmpUGE(a, lo), b_.CreateICmpULE(e, hi));
  };
  Value* end = b_.CreateAdd(ea, length);
  if (stack.slot_size > 0) {
    llvm::BasicBlock* no = next(within(b_.getInt64(stack.window_lo), b_.getInt64(stack.stack_hi), ea, end), "stack");
    Value* offset = b_.CreateSub(ea, b_.getInt64(stack.window_lo));
    results.push_back({b_.CreateInBoundsGEP(i8(), field(state_, kStateStackSlot, ptr()), offset), b_.GetInsertBlock()});
    b_.CreateBr(done);
    b_.SetInsertPoint(no);
    if (stack.window_lo > stack.stack_lo) {
      llvm::BasicBlock* rest = next(b_.CreateAnd(b_.CreateICmpUGE(ea, b_.getInt64(stack.stack_lo)),
                                                 b_.CreateICmpULT(ea, b_.getInt64(stack.window_lo))),
                                    "overflow");
      set_trap(abi::TrapKind::StackOverflow, ea, length);
      return_default();
      b_.SetInsertPoint(rest);
    }
  }
  Value* l = launch();
  if (m_.shared.hi > m_.shared.lo) {
    llvm::BasicBlock* no = next(within(b_.getInt64(m_.shared.lo), b_.getInt64(m_.shared.hi), ea, end), "shared");
    Value* offset = b_.CreateSub(ea, b_.getInt64(m_.shared.lo));
    results.push_back({b_.CreateInBoundsGEP(i8(), field(state_, kStateShared, ptr()), offset), b_.GetInsertBlock()});
    b_.CreateBr(done);
    b_.SetInsertPoint(no);
    Value* overlaps =
        b_.CreateAnd(b_.CreateICmpULT(ea, b_.getInt64(m_.shared.hi)), b_.CreateICmpUGT(end, b_.getInt64(m_.shared.lo)));
    llvm::BasicBlock* outside = llvm::BasicBlock::Create(m_.context, "outside_shared", fn_);
    b_.CreateCondBr(overlaps, oob, outside);
    b_.SetInsertPoint(outside);
  }
  if (m_.memory_bytes > 0 || m_.dynamic_memory) {
    llvm::BasicBlock* buffers = next(b_.CreateICmpULT(ea, b_.getInt64(abi::kBufferAddressBase)), "module_memory");
    llvm::BasicBlock* inside = llvm::BasicBlock::Create(m_.context, "in_memory", fn_);
    b_.CreateCondBr(b_.CreateICmpULE(end, memory_bytes()), inside, oob);
    b_.SetInsertPoint(inside);
    results.push_back({b_.CreateInBoundsGEP(i8(), field(l, kLaunchMemoryBase, ptr()), ea), inside});
    b_.CreateBr(done);
    b_.SetInsertPoint(buffers);
  }
  Value* page = b_.CreateLShr(ea, b_.getInt64(kPageShift));
  llvm::BasicBlock* in_space = llvm::BasicBlock::Create(m_.context, "in_space", fn_);
  b_.CreateCondBr(b_.CreateICmpULT(page, b_.getInt64(kPageCount)), in_space, oob);
  b_.SetInsertPoint(in_space);
  Value* page_end = b_.CreateLoad(i64(), b_.CreateInBoundsGEP(i64(), field(l, kLaunchPageEnd, ptr()), page));
  llvm::BasicBlock* inside = llvm::BasicBlock::Create(m_.context, "in_buffer", fn_);
  b_.CreateCondBr(b_.CreateICmpULE(end, page_end), inside, oob);
  b_.SetInsertPoint(inside);
  results.push_back({b_.CreateInBoundsGEP(i8(), field(l, kLaunchBufferBase, ptr()), ea), inside});
  b_.CreateBr(done);
  b_.SetInsertPoint(oob);
  set_trap(abi::TrapKind::MemoryOutOfBounds, ea, length);
  return_default();
  b_.SetInsertPoint(done);
  llvm::PHINode* host = b_.CreatePHI(ptr(), unsigned(results.size()));
  for (auto& [value, from] : results) host->addIncoming(value, from);
  return host;
}

// Bulk memory: every range is checked before a byte is written (a trap
// leaves memory as it was, as the spec's bounds checks up front do).
void FunctionLowering::lower_bulk(const wasm::Instr& instr) {
  const uint32_t dropped = m_.layout.data_dropped_offset + 4 * instr.imm0;
  if (instr.op == Opcode::DataDrop) {
    b_.CreateStore(b_.getInt32(1), instance_ptr(dropped));
    return;
  }
  Value* length = b_.CreateZExt(pop(), i64());
  if (instr.op == Opcode::MemoryFill) {
    Value* value = b_.CreateTrunc(pop(), i8());
    Value* host = translate_range(b_.CreateZExt(pop(), i64()), length);
    b_.CreateMemSet(host, value, length, llvm::MaybeAlign(1));
    return;
  }
  if (instr.op == Opcode::MemoryCopy) {
    Value* src = b_.CreateZExt(pop(), i64());
    Value* dst = b_.CreateZExt(pop(), i64());
    Value* from = translate_range(src, length);
    Value* to = translate_range(dst, length);
    b_.CreateMemMove(to, llvm::MaybeAlign(1), from, llvm::MaybeAlign(1), length);
    return;
  }
  // memory.init: a dropped segment has length 0.
  Value* src = b_.CreateZExt(pop(), i64());
  Value* dst = b_.CreateZExt(pop(), i64());
  const uint64_t segment_bytes = m_.module.data[instr.imm0].bytes.size();
  Value* is_dropped = b_.CreateICmpNE(b_.CreateLoad(i32(), instance_ptr(dropped)), b_.getInt32(0));
  Value* available = b_.CreateSelect(is_dropped, b_.getInt64(0), b_.getInt64(segment_bytes));
  trap_if(b_.CreateICmpUGT(b_.CreateAdd(src, length), available), abi::TrapKind::MemoryOutOfBounds);
  Value* to = translate_range(dst, length);
  Value* data = b_.CreateLoad(ptr(), instance_ptr(abi::kInstanceDataSegments));
  Value* from =
      b_.CreateInBoundsGEP(i8(), b_.CreateConstInBoundsGEP1_64(i8(), data, m_.layout.data_offsets[instr.imm0]), src);
  b_.CreateMemCpy(to, llvm::MaybeAlign(1), from, llvm::MaybeAlign(1), length);
}

// call_indirect: the slot's function index from the instance's table (its
// traps as the SPIR-V back end gives them), then a switch over the functions
// of the expected type the table may hold; any other index is a type
// mismatch.
void FunctionLowering::lower_call_indirect(const wasm::Instr& instr, bool tail) {
  const wasm::FuncType& expected = m_.module.types.at(instr.imm0);
  Value* element = pop();
  std::vector<Value*> args(stack_.end() - long(expected.params.size()), stack_.end());
  stack_.resize(stack_.size() - expected.params.size());
  args.insert(args.begin(), state_);
  Value* table = instance_ptr(m_.layout.table_offsets.at(instr.imm1));
  Value* size = b_.CreateLoad(i32(), b_.CreateConstInBoundsGEP1_64(i8(), table, abi::kTableSize));
  trap_if(b_.CreateICmpUGE(element, size), abi::TrapKind::UndefinedElement);
  Value* slots = b_.CreateConstInBoundsGEP1_64(i8(), table, abi::kTableSlots);
  Value* function = b_.CreateLoad(i32(), b_.CreateInBoundsGEP(i32(), slots, element));
  trap_if(b_.CreateICmpEQ(function, b_.getInt32(abi::kNullRef)), abi::TrapKind::UninitializedElement);
  llvm::BasicBlock* mismatch = llvm::BasicBlock::Create(m_.context, "type_mismatch", fn_);
  llvm::BasicBlock* merge = llvm::BasicBlock::Create(m_.context, "called", fn_);
  const std::vector<uint32_t> callees = frontend::indirect_callees(m_.module, *m_.facts.indirect_targets, instr.imm0);
  llvm::SwitchInst* sw = b_.CreateSwitch(function, mismatch, unsigned(callees.size()));
  llvm::Type* result_type = m_.results_type(expected.results);
  llvm::PHINode* result = nullptr;
  {
    llvm::IRBuilder<>::InsertPointGuard guard(b_);
    b_.SetInsertPoint(merge);
    if (!result_type->isVoidTy()) result = b_.CreatePHI(result_type, unsigned(callees.size()));
  }
  // Every callee has the expected type: all arms are musttail calls or none.
  const bool musttail = tail && can_musttail(expected);
  for (uint32_t callee : callees) {
    llvm::BasicBlock* arm = llvm::BasicBlock::Create(m_.context, "indirect", fn_);
    sw->addCase(b_.getInt32(callee), arm);
    b_.SetInsertPoint(arm);
    if (musttail) {
      musttail_call(m_.functions.at(callee), args);
      continue;
    }
    Value* value = b_.CreateCall(m_.functions.at(callee), args);
    if (result) result->addIncoming(value, arm);
    b_.CreateBr(merge);
  }
  b_.SetInsertPoint(mismatch);
  set_trap(abi::TrapKind::IndirectCallTypeMismatch);
  return_default();
  b_.SetInsertPoint(merge);
  if (callees.empty() || musttail) {
    // Nothing continues here: every path trapped or tail-called.
    if (result) result->eraseFromParent();
    b_.CreateUnreachable();
    go_dead();
    return;
  }
  after_call(result, expected);
  if (tail) return_top();
}

void FunctionLowering::fill_slots(Value* slots, Value* value, Value* count) {
  llvm::BasicBlock* from = b_.GetInsertBlock();
  llvm::BasicBlock* loop = llvm::BasicBlock::Create(m_.context, "fill", fn_);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(m_.context, "filled", fn_);
  b_.CreateCondBr(b_.CreateICmpEQ(count, b_.getInt32(0)), done, loop);
  b_.SetInsertPoint(loop);
  llvm::PHINode* i = b_.CreatePHI(i32(), 2);
  i->addIncoming(b_.getInt32(0), from);
  b_.CreateStore(value, b_.CreateInBoundsGEP(i32(), slots, i));
  Value* following = b_.CreateAdd(i, b_.getInt32(1));
  i->addIncoming(following, b_.GetInsertBlock());
  b_.CreateCondBr(b_.CreateICmpULT(following, count), loop, done);
  b_.SetInsertPoint(done);
}

// The checks and traps the SPIR-V back end's table instructions have
// (spirv/table_access.cpp): every range is checked before a slot changes.
void FunctionLowering::lower_table(const wasm::Instr& instr) {
  auto size_of = [&](Value* record) {
    return b_.CreateLoad(i32(), b_.CreateConstInBoundsGEP1_64(i8(), record, abi::kTableSize));
  };
  auto wide = [&](Value* v) { return b_.CreateZExt(v, i64()); };
  // start + count <= size, in 64 bits.
  auto check_range = [&](Value* start, Value* count, Value* size) {
    trap_if(b_.CreateICmpUGT(b_.CreateAdd(wide(start), wide(count)), wide(size)), abi::TrapKind::TableOutOfBounds);
  };
  switch (instr.op) {
    case Opcode::TableGet: {
      Value* index = pop();
      Value* record = table_record(instr.imm0);
      trap_if(b_.CreateICmpUGE(index, size_of(record)), abi::TrapKind::TableOutOfBounds);
      push(b_.CreateLoad(i32(), slot_ptr(record, index)));
      return;
    }
    case Opcode::TableSet: {
      Value* value = pop();
      Value* index = pop();
      Value* record = table_record(instr.imm0);
      trap_if(b_.CreateICmpUGE(index, size_of(record)), abi::TrapKind::TableOutOfBounds);
      b_.CreateStore(value, slot_ptr(record, index));
      return;
    }
    case Opcode::TableSize: push(size_of(table_record(instr.imm0))); return;
    case Opcode::TableGrow: {
      Value* delta = pop();
      Value* value = pop();
      Value* record = table_record(instr.imm0);
      Value* old_size = size_of(record);
      Value* capacity = b_.CreateLoad(i32(), b_.CreateConstInBoundsGEP1_64(i8(), record, abi::kTableCapacity));
      Value* fits = b_.CreateICmpULE(b_.CreateAdd(wide(old_size), wide(delta)), wide(capacity));
      llvm::BasicBlock* grow = llvm::BasicBlock::Create(m_.context, "table_grow", fn_);
      llvm::BasicBlock* done = llvm::BasicBlock::Create(m_.context, "table_grown", fn_);
      llvm::BasicBlock* from = b_.GetInsertBlock();
      b_.CreateCondBr(fits, grow, done);
      b_.SetInsertPoint(grow);
      b_.CreateStore(b_.CreateAdd(old_size, delta), b_.CreateConstInBoundsGEP1_64(i8(), record, abi::kTableSize));
      fill_slots(slot_ptr(record, old_size), value, delta);
      llvm::BasicBlock* grown = b_.GetInsertBlock();
      b_.CreateBr(done);
      b_.SetInsertPoint(done);
      llvm::PHINode* result = b_.CreatePHI(i32(), 2);
      result->addIncoming(b_.getInt32(0xFFFF'FFFFu), from);
      result->addIncoming(old_size, grown);
      push(result);
      return;
    }
    case Opcode::TableFill: {
      Value* count = pop();
      Value* value = pop();
      Value* index = pop();
      Value* record = table_record(instr.imm0);
      check_range(index, count, size_of(record));
      fill_slots(slot_ptr(record, index), value, count);
      return;
    }
    case Opcode::TableCopy:
    case Opcode::TableInit: {
      Value* count = pop();
      Value* source = pop();
      Value* dest = pop();
      const bool copy = instr.op == Opcode::TableCopy;
      Value* dest_record = table_record(copy ? instr.imm0 : instr.imm1);
      Value* from = nullptr;
      if (copy) {
        Value* source_record = table_record(instr.imm1);
        check_range(source, count, size_of(source_record));
        from = slot_ptr(source_record, source);
      } else {
        // A dropped segment (every active one after instantiation) has no items.
        Value* dropped = b_.CreateICmpNE(
            b_.CreateLoad(i32(), instance_ptr(m_.layout.elem_dropped_offset + 4 * instr.imm0)), b_.getInt32(0));
        Value* items = b_.CreateSelect(dropped, b_.getInt32(0),
                                       b_.getInt32(uint32_t(m_.module.elements.at(instr.imm0).items.size())));
        check_range(source, count, items);
        from = b_.CreateInBoundsGEP(i32(), instance_ptr(m_.layout.elem_items_offsets.at(instr.imm0)), source);
      }
      check_range(dest, count, size_of(dest_record));
      b_.CreateMemMove(slot_ptr(dest_record, dest), llvm::MaybeAlign(4), from, llvm::MaybeAlign(4),
                       b_.CreateMul(wide(count), b_.getInt64(4)));
      return;
    }
    case Opcode::ElemDrop:
      b_.CreateStore(b_.getInt32(1), instance_ptr(m_.layout.elem_dropped_offset + 4 * instr.imm0));
      return;
    default: return;
  }
}

void FunctionLowering::lower_load(const wasm::Instr& instr) {
  const wasm::OpcodeInfo& info = wasm::info(instr.op);
  Value* ea = b_.CreateAdd(b_.CreateZExt(pop(), i64()), b_.getInt64(instr.imm1));
  Value* host = translate(ea, info.access.bytes);
  llvm::Type* raw_type = b_.getIntNTy(8 * info.access.bytes);
  Value* raw = b_.CreateAlignedLoad(raw_type, host, llvm::MaybeAlign(1));
  llvm::Type* result = m_.type_of(info.results[0]);
  llvm::Type* wide = result->isFloatTy() ? i32() : result->isDoubleTy() ? i64() : result;
  if (raw_type != wide)
    raw = info.access.extend == wasm::Extend::Sign ? b_.CreateSExt(raw, wide) : b_.CreateZExt(raw, wide);
  push(b_.CreateBitCast(raw, result));
}

void FunctionLowering::lower_store(const wasm::Instr& instr) {
  const wasm::OpcodeInfo& info = wasm::info(instr.op);
  Value* value = pop();
  Value* ea = b_.CreateAdd(b_.CreateZExt(pop(), i64()), b_.getInt64(instr.imm1));
  Value* host = translate(ea, info.access.bytes);
  if (value->getType()->isFloatingPointTy()) value = float_bits(value);
  llvm::Type* raw_type = b_.getIntNTy(8 * info.access.bytes);
  if (value->getType() != raw_type) value = b_.CreateTrunc(value, raw_type);
  b_.CreateAlignedStore(value, host, llvm::MaybeAlign(1));
}

FunctionLowering::Value* FunctionLowering::atomic_address(Value* ea, uint32_t width) {
  if (width > 1)
    trap_if(b_.CreateICmpNE(b_.CreateAnd(ea, b_.getInt64(width - 1)), b_.getInt64(0)),
            abi::TrapKind::MemoryOutOfBounds);
  return translate(ea, width);
}

FunctionLowering::Value* FunctionLowering::atomic_rmw(llvm::AtomicRMWInst::BinOp op, Value* host, Value* value,
                                                      uint32_t width) {
  llvm::Type* wide = value->getType();
  llvm::Type* raw = b_.getIntNTy(8 * width);
  Value* operand = wide == raw ? value : b_.CreateTrunc(value, raw);
  Value* old = b_.CreateAtomicRMW(op, host, operand, llvm::MaybeAlign(width), llvm::AtomicOrdering::Monotonic);
  return wide == raw ? old : b_.CreateZExt(old, wide);
}

FunctionLowering::Value* FunctionLowering::atomic_cmpxchg(Value* host, Value* expected, Value* replacement,
                                                          uint32_t width) {
  llvm::Type* wide = expected->getType();
  llvm::Type* raw = b_.getIntNTy(8 * width);
  if (wide != raw) {
    expected = b_.CreateTrunc(expected, raw);
    replacement = b_.CreateTrunc(replacement, raw);
  }
  Value* pair = b_.CreateAtomicCmpXchg(host, expected, replacement, llvm::MaybeAlign(width),
                                       llvm::AtomicOrdering::Monotonic, llvm::AtomicOrdering::Monotonic);
  Value* old = b_.CreateExtractValue(pair, 0);
  return wide == raw ? old : b_.CreateZExt(old, wide);
}

FunctionLowering::Value* FunctionLowering::atomic_float_add(Value* host, Value* addend) {
  llvm::BasicBlock* from = b_.GetInsertBlock();
  llvm::BasicBlock* loop = llvm::BasicBlock::Create(m_.context, "atomic_fadd", fn_);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(m_.context, "atomic_fadd_done", fn_);
  Value* first = b_.CreateAlignedLoad(i32(), host, llvm::MaybeAlign(4));
  llvm::cast<llvm::LoadInst>(first)->setAtomic(llvm::AtomicOrdering::Monotonic);
  b_.CreateBr(loop);
  b_.SetInsertPoint(loop);
  llvm::PHINode* seen = b_.CreatePHI(i32(), 2);
  seen->addIncoming(first, from);
  Value* old = b_.CreateBitCast(seen, f32());
  Value* sum = nan_fix(b_.CreateFAdd(old, addend), old, addend);
  Value* pair = b_.CreateAtomicCmpXchg(host, seen, b_.CreateBitCast(sum, i32()), llvm::MaybeAlign(4),
                                       llvm::AtomicOrdering::Monotonic, llvm::AtomicOrdering::Monotonic);
  Value* now = b_.CreateExtractValue(pair, 0);
  seen->addIncoming(now, loop);
  b_.CreateCondBr(b_.CreateExtractValue(pair, 1), done, loop);
  b_.SetInsertPoint(done);
  return old;
}

void FunctionLowering::lower_atomic(const wasm::Instr& instr) {
  const wasm::OpcodeInfo& info = wasm::info(instr.op);
  const uint32_t width = info.access.bytes;
  using Kind = wasm::AccessKind;
  using Rmw = llvm::AtomicRMWInst::BinOp;
  if (instr.op == Opcode::AtomicFence) {
    b_.CreateFence(llvm::AtomicOrdering::SequentiallyConsistent);
    return;
  }
  // Operands above the address, popped first.
  const size_t operands = info.params.size() - 1;
  std::vector<Value*> values(stack_.end() - long(operands), stack_.end());
  stack_.resize(stack_.size() - operands);
  Value* ea = b_.CreateAdd(b_.CreateZExt(pop(), i64()), b_.getInt64(instr.imm1));
  Value* host = atomic_address(ea, width);
  llvm::Type* raw = b_.getIntNTy(8 * width);
  switch (info.access.kind) {
    case Kind::Notify: push(b_.getInt32(0)); return;  // no invocation ever waits
    case Kind::Load: {
      llvm::LoadInst* load = b_.CreateAlignedLoad(raw, host, llvm::MaybeAlign(width));
      load->setAtomic(llvm::AtomicOrdering::Monotonic);
      llvm::Type* result = m_.type_of(info.results[0]);
      push(raw == result ? static_cast<Value*>(load) : b_.CreateZExt(load, result));
      return;
    }
    case Kind::Store: {
      Value* value = values[0]->getType() == raw ? values[0] : b_.CreateTrunc(values[0], raw);
      llvm::StoreInst* store = b_.CreateAlignedStore(value, host, llvm::MaybeAlign(width));
      store->setAtomic(llvm::AtomicOrdering::Monotonic);
      return;
    }
    case Kind::Add: push(atomic_rmw(Rmw::Add, host, values[0], width)); return;
    case Kind::Sub: push(atomic_rmw(Rmw::Sub, host, values[0], width)); return;
    case Kind::And: push(atomic_rmw(Rmw::And, host, values[0], width)); return;
    case Kind::Or: push(atomic_rmw(Rmw::Or, host, values[0], width)); return;
    case Kind::Xor: push(atomic_rmw(Rmw::Xor, host, values[0], width)); return;
    case Kind::Exchange: push(atomic_rmw(Rmw::Xchg, host, values[0], width)); return;
    case Kind::CompareExchange: push(atomic_cmpxchg(host, values[0], values[1], width)); return;
    default:
      // check_cpu_support refuses the rest (wait) first.
      set_trap(abi::TrapKind::Unreachable);
      return_default();
      go_dead();
  }
}

// A trapping float-to-integer conversion: NaN is an invalid conversion, a
// value whose truncation does not fit an overflow.
FunctionLowering::Value* FunctionLowering::trunc_checked(Value* x, bool is_signed, unsigned bits) {
  llvm::Type* type = x->getType();
  const bool single = type->isFloatTy();
  trap_if(b_.CreateFCmpUNO(x, x), abi::TrapKind::InvalidConversionToInteger);
  auto constant = [&](double v) { return llvm::ConstantFP::get(type, v); };
  Value* fits = nullptr;
  if (is_signed) {
    const double low = -std::ldexp(1.0, int(bits) - 1);
    // low - 1 is exactly representable only in f64 for 32-bit results.
    Value* above = !single && bits == 32 ? b_.CreateFCmpOGT(x, constant(low - 1)) : b_.CreateFCmpOGE(x, constant(low));
    fits = b_.CreateAnd(above, b_.CreateFCmpOLT(x, constant(std::ldexp(1.0, int(bits) - 1))));
  } else {
    fits = b_.CreateAnd(b_.CreateFCmpOGT(x, constant(-1.0)), b_.CreateFCmpOLT(x, constant(std::ldexp(1.0, int(bits)))));
  }
  trap_if(b_.CreateNot(fits), abi::TrapKind::IntegerOverflow);
  llvm::Type* result = b_.getIntNTy(bits);
  return is_signed ? b_.CreateFPToSI(x, result) : b_.CreateFPToUI(x, result);
}

bool FunctionLowering::lower_numeric(const wasm::Instr& instr) {
  const Opcode op = instr.op;
  auto binary = [&](auto&& make) {
    Value* rhs = pop();
    Value* lhs = pop();
    push(make(lhs, rhs));
  };
  auto unary = [&](auto&& make) { push(make(pop())); };
  auto compare = [&](llvm::CmpInst::Predicate predicate) {
    binary([&](Value* a, Value* c) { return b_.CreateZExt(b_.CreateCmp(predicate, a, c), i32()); });
  };
  auto int_intrinsic = [&](llvm::Intrinsic::ID id, bool flag) {
    unary([&](Value* a) {
      if (id == llvm::Intrinsic::ctpop) return static_cast<Value*>(b_.CreateUnaryIntrinsic(id, a));
      return static_cast<Value*>(b_.CreateBinaryIntrinsic(id, a, b_.getFalse()));
    });
    (void)flag;
  };
  auto shift = [&](auto&& make) {
    binary([&](Value* a, Value* c) {
      const unsigned width = a->getType()->getIntegerBitWidth();
      return make(a, b_.CreateAnd(c, llvm::ConstantInt::get(a->getType(), width - 1)));
    });
  };
  auto rotate = [&](llvm::Intrinsic::ID id) {
    binary([&](Value* a, Value* c) { return static_cast<Value*>(b_.CreateIntrinsic(id, {a->getType()}, {a, a, c})); });
  };
  auto division = [&](bool is_signed, bool remainder) {
    binary([&](Value* a, Value* d) {
      llvm::Type* type = a->getType();
      trap_if(b_.CreateICmpEQ(d, llvm::ConstantInt::get(type, 0)), abi::TrapKind::IntegerDivideByZero);
      if (!is_signed) return remainder ? b_.CreateURem(a, d) : b_.CreateUDiv(a, d);
      const unsigned width = type->getIntegerBitWidth();
      Value* minus_one = b_.CreateICmpEQ(d, llvm::ConstantInt::getSigned(type, -1));
      Value* overflow = b_.CreateAnd(
          minus_one, b_.CreateICmpEQ(a, llvm::ConstantInt::get(type, llvm::APInt::getSignedMinValue(width))));
      if (!remainder) {
        trap_if(overflow, abi::TrapKind::IntegerOverflow);
        return b_.CreateSDiv(a, d);
      }
      // x rem -1 is 0; the divisor 1 keeps srem defined for INT_MIN.
      Value* safe = b_.CreateSelect(minus_one, llvm::ConstantInt::get(type, 1), d);
      return b_.CreateSelect(minus_one, llvm::ConstantInt::get(type, 0), b_.CreateSRem(a, safe));
    });
  };
  auto arith = [&](llvm::Instruction::BinaryOps kind) {
    binary([&](Value* a, Value* c) {
      Value* r = b_.CreateBinOp(kind, a, c);
      if (!exact()) {
        llvm::FastMathFlags flags;
        flags.setAllowContract(true);
        llvm::cast<llvm::Instruction>(r)->setFastMathFlags(flags);
      }
      return nan_fix(r, a, c);
    });
  };
  auto float_unary_intrinsic = [&](llvm::Intrinsic::ID id) {
    unary([&](Value* a) { return nan_fix(b_.CreateUnaryIntrinsic(id, a), a, nullptr); });
  };
  auto sign_bits = [&](Value* a, bool clear, bool flip) {
    Value* raw = float_bits(a);
    const unsigned width = raw->getType()->getIntegerBitWidth();
    llvm::Constant* sign = llvm::ConstantInt::get(raw->getType(), llvm::APInt::getSignMask(width));
    Value* out = clear ? b_.CreateAnd(raw, b_.CreateNot(sign)) : flip ? b_.CreateXor(raw, sign) : raw;
    return b_.CreateBitCast(out, a->getType());
  };
  auto extend_from = [&](unsigned bits) {
    unary([&](Value* a) { return b_.CreateSExt(b_.CreateTrunc(a, b_.getIntNTy(bits)), a->getType()); });
  };
  auto saturate = [&](bool is_signed, llvm::Type* result) {
    unary([&](Value* a) {
      return static_cast<Value*>(b_.CreateIntrinsic(
          is_signed ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat, {result, a->getType()}, {a}));
    });
  };
  using P = llvm::CmpInst::Predicate;
  using B = llvm::Instruction::BinaryOps;
  namespace I = llvm::Intrinsic;
  switch (op) {
    case Opcode::I32Const: push(b_.getInt32(uint32_t(instr.imm64))); return true;
    case Opcode::I64Const: push(b_.getInt64(instr.imm64)); return true;
    case Opcode::F32Const: push(b_.CreateBitCast(b_.getInt32(uint32_t(instr.imm64)), f32())); return true;
    case Opcode::F64Const: push(b_.CreateBitCast(b_.getInt64(instr.imm64), f64())); return true;
    case Opcode::I32Eqz:
      unary([&](Value* a) { return b_.CreateZExt(b_.CreateICmpEQ(a, b_.getInt32(0)), i32()); });
      return true;
    case Opcode::I64Eqz:
      unary([&](Value* a) { return b_.CreateZExt(b_.CreateICmpEQ(a, b_.getInt64(0)), i32()); });
      return true;
    case Opcode::I32Eq:
    case Opcode::I64Eq: compare(P::ICMP_EQ); return true;
    case Opcode::I32Ne:
    case Opcode::I64Ne: compare(P::ICMP_NE); return true;
    case Opcode::I32LtS:
    case Opcode::I64LtS: compare(P::ICMP_SLT); return true;
    case Opcode::I32LtU:
    case Opcode::I64LtU: compare(P::ICMP_ULT); return true;
    case Opcode::I32GtS:
    case Opcode::I64GtS: compare(P::ICMP_SGT); return true;
    case Opcode::I32GtU:
    case Opcode::I64GtU: compare(P::ICMP_UGT); return true;
    case Opcode::I32LeS:
    case Opcode::I64LeS: compare(P::ICMP_SLE); return true;
    case Opcode::I32LeU:
    case Opcode::I64LeU: compare(P::ICMP_ULE); return true;
    case Opcode::I32GeS:
    case Opcode::I64GeS: compare(P::ICMP_SGE); return true;
    case Opcode::I32GeU:
    case Opcode::I64GeU: compare(P::ICMP_UGE); return true;
    // IEEE comparisons are wasm's: no flushing on the CPU (MXCSR is set by the device).
    case Opcode::F32Eq:
    case Opcode::F64Eq: compare(P::FCMP_OEQ); return true;
    case Opcode::F32Ne:
    case Opcode::F64Ne: compare(P::FCMP_UNE); return true;
    case Opcode::F32Lt:
    case Opcode::F64Lt: compare(P::FCMP_OLT); return true;
    case Opcode::F32Gt:
    case Opcode::F64Gt: compare(P::FCMP_OGT); return true;
    case Opcode::F32Le:
    case Opcode::F64Le: compare(P::FCMP_OLE); return true;
    case Opcode::F32Ge:
    case Opcode::F64Ge: compare(P::FCMP_OGE); return true;
    case Opcode::I32Clz:
    case Opcode::I64Clz: int_intrinsic(I::ctlz, false); return true;
    case Opcode::I32Ctz:
    case Opcode::I64Ctz: int_intrinsic(I::cttz, false); return true;
    case Opcode::I32Popcnt:
    case Opcode::I64Popcnt: int_intrinsic(I::ctpop, false); return true;
    case Opcode::I32Add:
    case Opcode::I64Add: binary([&](Value* a, Value* c) { return b_.CreateAdd(a, c); }); return true;
    case Opcode::I32Sub:
    case Opcode::I64Sub: binary([&](Value* a, Value* c) { return b_.CreateSub(a, c); }); return true;
    case Opcode::I32Mul:
    case Opcode::I64Mul: binary([&](Value* a, Value* c) { return b_.CreateMul(a, c); }); return true;
    case Opcode::I32DivS:
    case Opcode::I64DivS: division(true, false); return true;
    case Opcode::I32DivU:
    case Opcode::I64DivU: division(false, false); return true;
    case Opcode::I32RemS:
    case Opcode::I64RemS: division(true, true); return true;
    case Opcode::I32RemU:
    case Opcode::I64RemU: division(false, true); return true;
    case Opcode::I32And:
    case Opcode::I64And: binary([&](Value* a, Value* c) { return b_.CreateAnd(a, c); }); return true;
    case Opcode::I32Or:
    case Opcode::I64Or: binary([&](Value* a, Value* c) { return b_.CreateOr(a, c); }); return true;
    case Opcode::I32Xor:
    case Opcode::I64Xor: binary([&](Value* a, Value* c) { return b_.CreateXor(a, c); }); return true;
    case Opcode::I32Shl:
    case Opcode::I64Shl: shift([&](Value* a, Value* c) { return b_.CreateShl(a, c); }); return true;
    case Opcode::I32ShrS:
    case Opcode::I64ShrS: shift([&](Value* a, Value* c) { return b_.CreateAShr(a, c); }); return true;
    case Opcode::I32ShrU:
    case Opcode::I64ShrU: shift([&](Value* a, Value* c) { return b_.CreateLShr(a, c); }); return true;
    case Opcode::I32Rotl:
    case Opcode::I64Rotl: rotate(I::fshl); return true;
    case Opcode::I32Rotr:
    case Opcode::I64Rotr: rotate(I::fshr); return true;
    case Opcode::F32Abs:
    case Opcode::F64Abs: unary([&](Value* a) { return sign_bits(a, true, false); }); return true;
    case Opcode::F32Neg:
    case Opcode::F64Neg: unary([&](Value* a) { return sign_bits(a, false, true); }); return true;
    case Opcode::F32Copysign:
    case Opcode::F64Copysign:
      binary([&](Value* a, Value* c) {
        Value* magnitude = float_bits(sign_bits(a, true, false));
        Value* sign = float_bits(c);
        const unsigned width = sign->getType()->getIntegerBitWidth();
        sign = b_.CreateAnd(sign, llvm::ConstantInt::get(sign->getType(), llvm::APInt::getSignMask(width)));
        return b_.CreateBitCast(b_.CreateOr(magnitude, sign), a->getType());
      });
      return true;
    case Opcode::F32Ceil:
    case Opcode::F64Ceil: float_unary_intrinsic(I::ceil); return true;
    case Opcode::F32Floor:
    case Opcode::F64Floor: float_unary_intrinsic(I::floor); return true;
    case Opcode::F32Trunc:
    case Opcode::F64Trunc: float_unary_intrinsic(I::trunc); return true;
    case Opcode::F32Nearest:
    case Opcode::F64Nearest: float_unary_intrinsic(I::roundeven); return true;
    case Opcode::F32Sqrt:
    case Opcode::F64Sqrt: float_unary_intrinsic(I::sqrt); return true;
    case Opcode::F32Add:
    case Opcode::F64Add: arith(B::FAdd); return true;
    case Opcode::F32Sub:
    case Opcode::F64Sub: arith(B::FSub); return true;
    case Opcode::F32Mul:
    case Opcode::F64Mul: arith(B::FMul); return true;
    case Opcode::F32Div:
    case Opcode::F64Div: arith(B::FDiv); return true;
    case Opcode::F32Min:
    case Opcode::F64Min: binary([&](Value* a, Value* c) { return min_max(a, c, true); }); return true;
    case Opcode::F32Max:
    case Opcode::F64Max: binary([&](Value* a, Value* c) { return min_max(a, c, false); }); return true;
    case Opcode::I32WrapI64: unary([&](Value* a) { return b_.CreateTrunc(a, i32()); }); return true;
    case Opcode::I64ExtendI32S: unary([&](Value* a) { return b_.CreateSExt(a, i64()); }); return true;
    case Opcode::I64ExtendI32U: unary([&](Value* a) { return b_.CreateZExt(a, i64()); }); return true;
    case Opcode::I32TruncF32S:
    case Opcode::I32TruncF64S: unary([&](Value* a) { return trunc_checked(a, true, 32); }); return true;
    case Opcode::I32TruncF32U:
    case Opcode::I32TruncF64U: unary([&](Value* a) { return trunc_checked(a, false, 32); }); return true;
    case Opcode::I64TruncF32S:
    case Opcode::I64TruncF64S: unary([&](Value* a) { return trunc_checked(a, true, 64); }); return true;
    case Opcode::I64TruncF32U:
    case Opcode::I64TruncF64U: unary([&](Value* a) { return trunc_checked(a, false, 64); }); return true;
    case Opcode::I32TruncSatF32S:
    case Opcode::I32TruncSatF64S: saturate(true, i32()); return true;
    case Opcode::I32TruncSatF32U:
    case Opcode::I32TruncSatF64U: saturate(false, i32()); return true;
    case Opcode::I64TruncSatF32S:
    case Opcode::I64TruncSatF64S: saturate(true, i64()); return true;
    case Opcode::I64TruncSatF32U:
    case Opcode::I64TruncSatF64U: saturate(false, i64()); return true;
    case Opcode::F32ConvertI32S:
    case Opcode::F32ConvertI64S: unary([&](Value* a) { return b_.CreateSIToFP(a, f32()); }); return true;
    case Opcode::F32ConvertI32U:
    case Opcode::F32ConvertI64U: unary([&](Value* a) { return b_.CreateUIToFP(a, f32()); }); return true;
    case Opcode::F64ConvertI32S:
    case Opcode::F64ConvertI64S: unary([&](Value* a) { return b_.CreateSIToFP(a, f64()); }); return true;
    case Opcode::F64ConvertI32U:
    case Opcode::F64ConvertI64U: unary([&](Value* a) { return b_.CreateUIToFP(a, f64()); }); return true;
    case Opcode::F32DemoteF64: unary([&](Value* a) { return convert_nan(b_.CreateFPTrunc(a, f32()), a); }); return true;
    case Opcode::F64PromoteF32: unary([&](Value* a) { return convert_nan(b_.CreateFPExt(a, f64()), a); }); return true;
    case Opcode::I32ReinterpretF32: unary([&](Value* a) { return b_.CreateBitCast(a, i32()); }); return true;
    case Opcode::I64ReinterpretF64: unary([&](Value* a) { return b_.CreateBitCast(a, i64()); }); return true;
    case Opcode::F32ReinterpretI32: unary([&](Value* a) { return b_.CreateBitCast(a, f32()); }); return true;
    case Opcode::F64ReinterpretI64: unary([&](Value* a) { return b_.CreateBitCast(a, f64()); }); return true;
    case Opcode::I32Extend8S:
    case Opcode::I64Extend8S: extend_from(8); return true;
    case Opcode::I32Extend16S:
    case Opcode::I64Extend16S: extend_from(16); return true;
    case Opcode::I64Extend32S: extend_from(32); return true;
    default: return false;
  }
}

// Zeroes the invocation's call depths (one per recursive component).
void reset_depths(ModuleLowering& m, llvm::IRBuilder<>& b, llvm::Value* state) {
  const size_t components = m.facts.graph.recursive_components.size();
  if (components == 0) return;
  llvm::Value* depths =
      b.CreateLoad(b.getPtrTy(), b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), state, kStateCallDepths));
  b.CreateMemSet(depths, b.getInt8(0), b.getInt64(4 * components), llvm::MaybeAlign(4));
}

// The entry point: for each invocation of [begin, end), a fresh stack
// pointer and trap, the kernel's call with the launch's arguments, and a
// report of its trap.
void emit_entry(ModuleLowering& m, uint32_t kernel) {
  llvm::LLVMContext& c = m.context;
  llvm::IRBuilder<> b(c);
  llvm::Type* i32 = b.getInt32Ty();
  auto* type = llvm::FunctionType::get(b.getVoidTy(), {b.getPtrTy(), i32, i32}, false);
  auto* fn = llvm::Function::Create(type, llvm::Function::ExternalLinkage, kEntrySymbol, m.out);
  llvm::Value* state = fn->getArg(0);
  llvm::BasicBlock* entry = llvm::BasicBlock::Create(c, "entry", fn);
  llvm::BasicBlock* loop = llvm::BasicBlock::Create(c, "invocation", fn);
  llvm::BasicBlock* trapped = llvm::BasicBlock::Create(c, "trapped", fn);
  llvm::BasicBlock* next = llvm::BasicBlock::Create(c, "next", fn);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(c, "done", fn);
  b.SetInsertPoint(entry);
  auto state_field = [&](uint32_t offset) { return b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), state, offset); };
  llvm::Value* launch = b.CreateLoad(b.getPtrTy(), state_field(kStateLaunch));
  llvm::Value* args_base = b.CreateLoad(b.getPtrTy(), b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), launch, kLaunchArgs));
  const wasm::FuncType& kernel_type = m.module.function_type(kernel);
  std::vector<llvm::Value*> args{state, nullptr};
  for (size_t i = 1; i < kernel_type.params.size(); ++i) {
    llvm::Value* slot = b.CreateConstInBoundsGEP1_64(b.getInt64Ty(), args_base, i - 1);
    args.push_back(b.CreateLoad(m.type_of(kernel_type.params[i]), slot));
  }
  b.CreateCondBr(b.CreateICmpULT(fn->getArg(1), fn->getArg(2)), loop, done);
  b.SetInsertPoint(loop);
  llvm::PHINode* index = b.CreatePHI(i32, 2);
  index->addIncoming(fn->getArg(1), entry);
  b.CreateStore(b.getInt32(0), state_field(kStateTrap));
  reset_depths(m, b, state);  // a trap left them anywhere
  b.CreateStore(b.getInt32(m.facts.stack.stack_hi), state_field(kStateStackPointer));
  b.CreateStore(index, state_field(kStateInvocation));
  args[1] = index;
  b.CreateCall(m.functions.at(kernel), args);
  llvm::Value* trap = b.CreateLoad(i32, state_field(kStateTrap));
  b.CreateCondBr(b.CreateICmpNE(trap, b.getInt32(0)), trapped, next);
  b.SetInsertPoint(trapped);
  llvm::Value* record =
      b.CreateLoad(b.getPtrTy(), b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), launch, kLaunchRecordTrap));
  auto* record_type = llvm::FunctionType::get(b.getVoidTy(), {b.getPtrTy(), i32, i32}, false);
  b.CreateCall(record_type, record, {state, index, b.CreateSub(trap, b.getInt32(1))});
  b.CreateBr(next);
  b.SetInsertPoint(next);
  llvm::Value* following = b.CreateAdd(index, b.getInt32(1));
  index->addIncoming(following, next);
  b.CreateCondBr(b.CreateICmpULT(following, fn->getArg(2)), loop, done);
  b.SetInsertPoint(done);
  b.CreateRetVoid();
}

// A call entry (CallEntry): fresh stack pointer, depth and trap, the
// function's call with its parameters from 8-byte slots, its results stored
// as bits.
void emit_call_entry(ModuleLowering& m, uint32_t function, const std::string& symbol) {
  llvm::LLVMContext& c = m.context;
  llvm::IRBuilder<> b(c);
  auto* type = llvm::FunctionType::get(b.getVoidTy(), {b.getPtrTy(), b.getPtrTy(), b.getPtrTy()}, false);
  auto* fn = llvm::Function::Create(type, llvm::Function::ExternalLinkage, symbol, m.out);
  llvm::Value* state = fn->getArg(0);
  b.SetInsertPoint(llvm::BasicBlock::Create(c, "entry", fn));
  auto state_field = [&](uint32_t offset) { return b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), state, offset); };
  b.CreateStore(b.getInt32(0), state_field(kStateTrap));
  reset_depths(m, b, state);
  b.CreateStore(b.getInt32(m.facts.stack.stack_hi), state_field(kStateStackPointer));
  const wasm::FuncType& signature = m.module.function_type(function);
  std::vector<llvm::Value*> args{state};
  // A v128 takes two slots, its low 8 bytes first (as on the Vulkan device).
  uint64_t slot = 0;
  for (ValType t : signature.params) {
    args.push_back(b.CreateAlignedLoad(m.type_of(t), b.CreateConstInBoundsGEP1_64(b.getInt64Ty(), fn->getArg(1), slot),
                                       llvm::MaybeAlign(8)));
    slot += t == ValType::V128 ? 2 : 1;
  }
  llvm::Value* result = b.CreateCall(m.functions.at(function), args);
  slot = 0;
  for (size_t i = 0; i < signature.results.size(); ++i) {
    llvm::Value* value = signature.results.size() == 1 ? result : b.CreateExtractValue(result, unsigned(i));
    llvm::Value* at = b.CreateConstInBoundsGEP1_64(b.getInt64Ty(), fn->getArg(2), slot);
    llvm::Type* type = value->getType();
    if (signature.results[i] == ValType::V128) {
      b.CreateAlignedStore(value, at, llvm::MaybeAlign(8));
      slot += 2;
      continue;
    }
    if (type->isFloatingPointTy()) value = b.CreateBitCast(value, type->isFloatTy() ? b.getInt32Ty() : b.getInt64Ty());
    b.CreateStore(b.CreateZExt(value, b.getInt64Ty()), at);
    slot += 1;
  }
  b.CreateRetVoid();
}

}  // namespace

std::string call_symbol(size_t position) { return "wasmgpu_cpu_call_" + std::to_string(position); }

Status lower_module(const wasm::Module& module, const frontend::FrontEndFacts& facts, const LoweringOptions& options,
                    std::span<const uint32_t> calls, llvm::Module& out) {
  if (!facts.kernel_function && calls.empty())
    return make_error(ErrorCode::Internal, "cpu lowering: no kernel function and no calls");
  ModuleLowering m{module, facts, options.float_mode, out, out.getContext(), {}, 0, 0, {}};
  m.max_call_depth = options.max_call_depth;
  m.dynamic_memory = module.total_memories() > 0 && grows_memory(module);
  m.layout = frontend::instance_layout(module);
  Result<frontend::SharedMemory> shared = frontend::find_shared_memory(module);
  if (!shared.ok()) return shared.error();
  m.shared = shared.value();
  if (std::optional<wasm::Limits> limits = memory_limits(module)) {
    m.memory_pages = uint32_t(limits->min);
    m.memory_bytes = uint64_t(m.memory_pages) * abi::kPageSize;
  }
  for (uint32_t function : facts.graph.functions)
    if (function >= module.imported_functions) m.declare(function);
  for (uint32_t function : facts.graph.functions)
    if (function >= module.imported_functions) FunctionLowering(m, function).lower();
  if (facts.kernel_function) emit_entry(m, *facts.kernel_function);
  for (size_t i = 0; i < calls.size(); ++i) emit_call_entry(m, calls[i], call_symbol(i));
  std::string problems;
  llvm::raw_string_ostream stream(problems);
  if (llvm::verifyModule(out, &stream))
    return make_error(ErrorCode::Internal, "cpu lowering produced invalid LLVM IR: " + stream.str());
  return {};
}

}  // namespace wasmgpu::cpu
