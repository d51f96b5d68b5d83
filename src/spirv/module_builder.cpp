#include "spirv/module_builder.h"

#include <cassert>
#include <cstring>

namespace wasmgpu::spirv {

namespace {
void append_words(Words& out, std::span<const Operand> operands) {
  for (Operand operand : operands) out.push_back(operand.word());
}
}  // namespace

void append_instruction(Words& out, spv::Op op, std::span<const Operand> operands) {
  out.push_back(uint32_t(operands.size() + 1) << 16 | uint32_t(op));
  append_words(out, operands);
}

void append_instruction(Words& out, spv::Op op, std::initializer_list<Operand> leading, std::span<const Operand> rest) {
  out.push_back(uint32_t(leading.size() + rest.size() + 1) << 16 | uint32_t(op));
  append_words(out, leading);
  append_words(out, rest);
}

void append_instruction(Words& out, spv::Op op, std::initializer_list<Operand> leading, std::span<const Id> rest) {
  out.push_back(uint32_t(leading.size() + rest.size() + 1) << 16 | uint32_t(op));
  append_words(out, leading);
  for (Id id : rest) out.push_back(id.value());
}

void append_string(Words& out, std::string_view text) {
  size_t words = text.size() / 4 + 1;  // always room for the terminating NUL
  size_t first = out.size();
  out.resize(first + words, 0);
  std::memcpy(&out[first], text.data(), text.size());
}

namespace {
// Instructions with a literal string: build the operand list, then the word count.
void append_with_string(Words& out, spv::Op op, std::initializer_list<Operand> before, std::string_view text,
                        std::span<const Id> after = {}) {
  Words operands;
  for (Operand operand : before) operands.push_back(operand.word());
  append_string(operands, text);
  for (Id id : after) operands.push_back(id.value());
  out.push_back(uint32_t(operands.size() + 1) << 16 | uint32_t(op));
  out.insert(out.end(), operands.begin(), operands.end());
}

// Instructions whose last operands are literal numbers (decorations, execution modes).
void append_with_literals(Words& out, spv::Op op, std::initializer_list<Operand> leading,
                          std::initializer_list<uint32_t> literals) {
  out.push_back(uint32_t(leading.size() + literals.size() + 1) << 16 | uint32_t(op));
  append_words(out, leading);
  out.insert(out.end(), literals.begin(), literals.end());
}
}  // namespace

Id ModuleBuilder::glsl_std_450() {
  if (!glsl_) glsl_ = fresh_id();
  return glsl_;
}

void ModuleBuilder::entry_point(Id function, std::string_view name) {
  entry_names_.emplace_back(function, std::string(name));
}

void ModuleBuilder::execution_mode(Id function, spv::ExecutionMode mode, std::initializer_list<uint32_t> literals) {
  append_with_literals(execution_modes_, spv::Op::OpExecutionMode, {function, mode}, literals);
}

void ModuleBuilder::name(Id id, std::string_view text) {
  // A SPIR-V string ends at its first NUL, but a wasm name may hold U+0000
  // (the spec suite's names.wast does): written as a backslash and a zero, it stays one operand.
  if (text.find('\0') == std::string_view::npos) {
    append_with_string(debug_names_, spv::Op::OpName, {id}, text);
    return;
  }
  std::string escaped;
  for (char c : text) {
    if (c == '\0')
      escaped += "\\0";
    else
      escaped += c;
  }
  append_with_string(debug_names_, spv::Op::OpName, {id}, escaped);
}

void ModuleBuilder::decorate(Id id, spv::Decoration decoration, std::initializer_list<uint32_t> literals) {
  append_with_literals(annotations_, spv::Op::OpDecorate, {id, decoration}, literals);
}

void ModuleBuilder::member_decorate(Id struct_type, uint32_t member, spv::Decoration decoration,
                                    std::initializer_list<uint32_t> literals) {
  append_with_literals(annotations_, spv::Op::OpMemberDecorate, {struct_type, literal(member), decoration}, literals);
}

size_t ModuleBuilder::WordsHash::operator()(const Words& words) const noexcept {
  // FNV-1a over the words: the keys are short (an opcode and a few operands).
  uint64_t hash = 0xcbf29ce484222325ull;
  for (uint32_t word : words) hash = (hash ^ word) * 0x100000001b3ull;
  return size_t(hash);
}

Id ModuleBuilder::dedup(spv::Op op, std::span<const Operand> operands, bool has_type) {
  dedup_key_.assign(1, uint32_t(op));
  append_words(dedup_key_, operands);
  auto [it, inserted] = dedup_.try_emplace(dedup_key_, Id());
  if (!inserted) return it->second;
  const Id id = fresh_id();
  it->second = id;
  // Types put the result id first; constants put the type first.
  if (has_type) {
    set_type(id, Id(operands[0].word()));
    append_instruction(types_and_globals_, op, {operands[0], id}, operands.subspan(1));
  } else {
    append_instruction(types_and_globals_, op, {id}, operands);
  }
  return id;
}

Id ModuleBuilder::void_type() { return dedup(spv::Op::OpTypeVoid, {}, false); }
Id ModuleBuilder::bool_type() { return dedup(spv::Op::OpTypeBool, {}, false); }

namespace {
// The slot for a scalar type of `width` bits (8, 16, 32 or 64) in an array
// of four; null for any other width.
Id* width_slot(std::array<Id, 4>& slots, uint32_t width) {
  switch (width) {
    case 8: return &slots[0];
    case 16: return &slots[1];
    case 32: return &slots[2];
    case 64: return &slots[3];
    default: return nullptr;
  }
}
}  // namespace

Id ModuleBuilder::uint_type(uint32_t width) {
  Id* declared = width_slot(uint_types_, width);
  if (declared && *declared) return *declared;
  if (width == 64) capability(spv::Capability::Int64);
  if (width == 8) capability(spv::Capability::Int8);
  const Id id = dedup(spv::Op::OpTypeInt, {literal(width), literal(0)}, false);
  if (declared) *declared = id;
  return id;
}

Id ModuleBuilder::float_type(uint32_t width) {
  Id* declared = width_slot(float_types_, width);
  if (declared && *declared) return *declared;
  if (width == 64) capability(spv::Capability::Float64);
  const Id id = dedup(spv::Op::OpTypeFloat, {literal(width)}, false);
  if (declared) *declared = id;
  return id;
}

Id ModuleBuilder::vector_type(Id component, uint32_t count) {
  return dedup(spv::Op::OpTypeVector, {component, literal(count)}, false);
}

Id ModuleBuilder::array_type(Id element, Id length_constant) {
  return dedup(spv::Op::OpTypeArray, {element, length_constant}, false);
}

Id ModuleBuilder::runtime_array_type(Id element) { return dedup(spv::Op::OpTypeRuntimeArray, {element}, false); }

Id ModuleBuilder::image_type(Id sampled_type, spv::Dim dim, uint32_t sampled) {
  return dedup(spv::Op::OpTypeImage,
               {sampled_type, dim, literal(0), literal(0), literal(0), literal(sampled), spv::ImageFormat::Unknown},
               false);
}

Id ModuleBuilder::sampler_type() { return dedup(spv::Op::OpTypeSampler, {}, false); }

Id ModuleBuilder::sampled_image_type(Id image_type) { return dedup(spv::Op::OpTypeSampledImage, {image_type}, false); }

Id ModuleBuilder::pointer_type(spv::StorageClass storage, Id pointee) {
  return dedup(spv::Op::OpTypePointer, {storage, pointee}, false);
}

Id ModuleBuilder::function_type(Id result, std::span<const Id> params) {
  Operands operands{result};
  operands.insert(operands.end(), params.begin(), params.end());
  return dedup(spv::Op::OpTypeFunction, operands, false);
}

Id ModuleBuilder::struct_type(std::span<const Id> members) {
  const Operands operands(members.begin(), members.end());
  return dedup(spv::Op::OpTypeStruct, operands, false);
}

Id ModuleBuilder::unique_struct_type(std::span<const Id> members) {
  const Id id = fresh_id();
  append_instruction(types_and_globals_, spv::Op::OpTypeStruct, {id}, members);
  return id;
}

size_t ModuleBuilder::ScalarConstantHash::operator()(const ScalarConstant& c) const noexcept {
  return std::hash<uint64_t>()(c.bits * 0x9e3779b97f4a7c15ull ^ c.type.value());
}

Id ModuleBuilder::scalar_constant(Id type, uint32_t width, uint64_t bits, bool is_integer) {
  auto [it, inserted] = scalar_constants_.try_emplace(ScalarConstant{type, bits}, Id());
  if (!inserted) return it->second;
  const Id id = fresh_id();
  it->second = id;
  set_type(id, type);
  if (width == 64)
    append_instruction(types_and_globals_, spv::Op::OpConstant,
                       {type, id, literal(uint32_t(bits)), literal(uint32_t(bits >> 32))});
  else
    append_instruction(types_and_globals_, spv::Op::OpConstant, {type, id, literal(uint32_t(bits))});
  if (is_integer) integer_constants_.emplace(id, bits);
  return id;
}

Id ModuleBuilder::const_u32(uint32_t value) { return scalar_constant(uint_type(32), 32, value, true); }

Id ModuleBuilder::const_u64(uint64_t value) { return scalar_constant(uint_type(64), 64, value, true); }

std::optional<uint64_t> ModuleBuilder::integer_constant(Id id) const {
  auto it = integer_constants_.find(id);
  if (it == integer_constants_.end()) return std::nullopt;
  return it->second;
}

Id ModuleBuilder::const_u8(uint8_t value) { return dedup(spv::Op::OpConstant, {uint_type(8), literal(value)}, true); }

Id ModuleBuilder::const_f32_bits(uint32_t bits) { return scalar_constant(float_type(32), 32, bits, false); }

Id ModuleBuilder::const_f64_bits(uint64_t bits) { return scalar_constant(float_type(64), 64, bits, false); }

Id ModuleBuilder::const_bool(bool value) {
  return dedup(value ? spv::Op::OpConstantTrue : spv::Op::OpConstantFalse, {bool_type()}, true);
}

Id ModuleBuilder::const_null(Id type) { return dedup(spv::Op::OpConstantNull, {type}, true); }

Id ModuleBuilder::const_composite(Id type, std::span<const Id> constituents) {
  Operands operands{type};
  operands.insert(operands.end(), constituents.begin(), constituents.end());
  return dedup(spv::Op::OpConstantComposite, operands, true);
}

Id ModuleBuilder::spec_const_u32(uint32_t default_value, uint32_t spec_id) {
  const Id id = fresh_id();
  append_instruction(types_and_globals_, spv::Op::OpSpecConstant, {uint_type(32), id, literal(default_value)});
  decorate(id, spv::Decoration::SpecId, {spec_id});
  return id;
}

Id ModuleBuilder::spec_const_composite(Id type, std::span<const Id> constituents) {
  const Id id = fresh_id();
  append_instruction(types_and_globals_, spv::Op::OpSpecConstantComposite, {type, id}, constituents);
  return id;
}

Id ModuleBuilder::spec_const_op(Id type, spv::Op op, std::span<const Operand> operands) {
  const Id id = fresh_id();
  append_instruction(types_and_globals_, spv::Op::OpSpecConstantOp, {type, id, op}, operands);
  return id;
}

Id ModuleBuilder::global_variable(Id pointer_type, spv::StorageClass storage, Id initializer) {
  const Id id = fresh_id();
  if (initializer)
    append_instruction(types_and_globals_, spv::Op::OpVariable, {pointer_type, id, storage, initializer});
  else
    append_instruction(types_and_globals_, spv::Op::OpVariable, {pointer_type, id, storage});
  interface_.push_back(id);
  return id;
}

Id ModuleBuilder::type_of(Id id) const {
  size_t page = id.value() / kTypesPerPage;
  Id type = page < result_type_pages_.size() && result_type_pages_[page]
                ? (*result_type_pages_[page])[id.value() % kTypesPerPage]
                : Id();
  assert(type && "id without a recorded type");
  return type;
}

Words ModuleBuilder::assemble() const {
  Words out{spv::MagicNumber, 0x00010500, 0 /* generator */, next_id_, 0};
  for (spv::Capability capability : capabilities_) append_instruction(out, spv::Op::OpCapability, {capability});
  if (glsl_) append_with_string(out, spv::Op::OpExtInstImport, {glsl_}, "GLSL.std.450");
  append_instruction(out, spv::Op::OpMemoryModel,
                     {spv::AddressingModel::PhysicalStorageBuffer64, spv::MemoryModel::GLSL450});
  for (const auto& [function, name] : entry_names_)
    append_with_string(out, spv::Op::OpEntryPoint, {spv::ExecutionModel::GLCompute, function}, name, interface_);
  // The rest is megabytes for large modules: reserve once rather than regrow.
  size_t rest = execution_modes_.size() + debug_names_.size() + annotations_.size() + types_and_globals_.size();
  for (const Words& words : functions_) rest += words.size();
  out.reserve(out.size() + rest);
  out.insert(out.end(), execution_modes_.begin(), execution_modes_.end());
  out.insert(out.end(), debug_names_.begin(), debug_names_.end());
  out.insert(out.end(), annotations_.begin(), annotations_.end());
  out.insert(out.end(), types_and_globals_.begin(), types_and_globals_.end());
  for (const Words& words : functions_) out.insert(out.end(), words.begin(), words.end());
  return out;
}

// ---------------------------------------------------------------------------

FunctionBuilder::FunctionBuilder(ModuleBuilder& module, Id id, Id result_type, std::span<const Id> param_types)
    : module_(module), id_(id), result_type_(result_type), param_types_(param_types.begin(), param_types.end()) {
  function_type_ = module.function_type(result_type, param_types);
  for (size_t i = 0; i < param_types.size(); ++i) {
    params_.push_back(module.fresh_id());
    module.set_type(params_.back(), param_types[i]);
  }
  entry_label_ = module.fresh_id();
}

Id FunctionBuilder::variable(Id value_type) {
  const Id id = module_.fresh_id();
  const Id pointer = module_.pointer_type(spv::StorageClass::Function, value_type);
  append_instruction(variables_, spv::Op::OpVariable, {pointer, id, spv::StorageClass::Function});
  return id;
}

bool FunctionBuilder::begin_block(Id label, bool keep_open) {
  assert(!open_ && "previous block not terminated");
  append_instruction(body_, spv::Op::OpLabel, {label});
  bool reachable = was_targeted(label);
  open_ = true;
  if (!reachable && !keep_open) unreachable();
  return reachable;
}

Id FunctionBuilder::op(spv::Op op, Id type, std::span<const Operand> operands) {
  assert(open_);
  const Id id = module_.fresh_id();
  append_instruction(body_, op, {type, id}, operands);
  module_.set_type(id, type);
  return id;
}

Id FunctionBuilder::op(spv::Op op, Id type, std::span<const Id> operands) {
  assert(open_);
  const Id id = module_.fresh_id();
  append_instruction(body_, op, {type, id}, operands);
  module_.set_type(id, type);
  return id;
}

Id FunctionBuilder::op(spv::Op op, Id type, std::initializer_list<Operand> operands) {
  return this->op(op, type, std::span<const Operand>(operands.begin(), operands.size()));
}

void FunctionBuilder::op_void(spv::Op op, std::span<const Operand> operands) {
  assert(open_);
  append_instruction(body_, op, operands);
}

void FunctionBuilder::op_void(spv::Op op, std::initializer_list<Operand> operands) {
  op_void(op, std::span<const Operand>(operands.begin(), operands.size()));
}

Id FunctionBuilder::glsl(uint32_t instruction, Id type, std::initializer_list<Id> operands) {
  assert(open_);
  const Id set = module_.glsl_std_450();  // its id first, on first use: ids follow the order of asking
  const Id id = module_.fresh_id();
  append_instruction(body_, spv::Op::OpExtInst, {type, id, set, literal(instruction)},
                     std::span<const Id>(operands.begin(), operands.size()));
  module_.set_type(id, type);
  return id;
}

Id FunctionBuilder::call(Id result_type, Id function, std::span<const Id> args) {
  assert(open_);
  const Id id = module_.fresh_id();
  append_instruction(body_, spv::Op::OpFunctionCall, {result_type, id, function}, args);
  module_.set_type(id, result_type);
  return id;
}

void FunctionBuilder::terminate(spv::Op op, std::initializer_list<Operand> operands) {
  assert(open_);
  append_instruction(body_, op, operands);
  open_ = false;
}

void FunctionBuilder::branch(Id target) {
  targeted_.insert(target);
  terminate(spv::Op::OpBranch, {target});
}

void FunctionBuilder::branch_conditional(Id condition, Id if_true, Id if_false) {
  targeted_.insert(if_true);
  targeted_.insert(if_false);
  terminate(spv::Op::OpBranchConditional, {condition, if_true, if_false});
}

void FunctionBuilder::switch_(Id selector, Id default_label, const std::vector<std::pair<uint32_t, Id>>& cases) {
  assert(open_);
  Operands operands{selector, default_label};
  targeted_.insert(default_label);
  for (auto [value, label] : cases) {
    operands.push_back(literal(value));
    operands.push_back(label);
    targeted_.insert(label);
  }
  append_instruction(body_, spv::Op::OpSwitch, operands);
  open_ = false;
}

void FunctionBuilder::return_() { terminate(spv::Op::OpReturn, {}); }
void FunctionBuilder::return_value(Id value) { terminate(spv::Op::OpReturnValue, {value}); }

void FunctionBuilder::return_default() {
  if (result_type_ == module_.void_type())
    return_();
  else
    return_value(module_.const_null(result_type()));
}

void FunctionBuilder::unreachable() { terminate(spv::Op::OpUnreachable, {}); }

void FunctionBuilder::selection_merge(Id merge) {
  op_void(spv::Op::OpSelectionMerge, {merge, spv::SelectionControlMask::MaskNone});
}

void FunctionBuilder::loop_merge(Id merge, Id continue_target) {
  op_void(spv::Op::OpLoopMerge, {merge, continue_target, spv::LoopControlMask::MaskNone});
}

void FunctionBuilder::if_else(Id condition, const std::function<void()>& then_fn,
                              const std::function<void()>& else_fn) {
  const Id then_label = module_.fresh_id();
  const Id merge = module_.fresh_id();
  const Id else_label = else_fn ? module_.fresh_id() : merge;
  selection_merge(merge);
  branch_conditional(condition, then_label, else_label);
  begin_block(then_label);
  then_fn();
  if (open_) branch(merge);
  if (else_fn) {
    begin_block(else_label);
    else_fn();
    if (open_) branch(merge);
  }
  begin_block(merge);
}

bool FunctionBuilder::loop(const std::function<void(const LoopBlocks&)>& body_fn,
                           const std::function<void(const LoopBlocks&)>& continue_fn) {
  const LoopBlocks blocks{module_.fresh_id(), module_.fresh_id(), module_.fresh_id(), module_.fresh_id()};
  branch(blocks.header);
  begin_block(blocks.header);
  loop_merge(blocks.merge, blocks.continue_target);
  branch(blocks.body);
  begin_block(blocks.body);
  body_fn(blocks);
  if (open_) branch(blocks.continue_target);
  // Kept open: a continue target branches back to its header even when unreached.
  begin_block(blocks.continue_target, /*keep_open=*/true);
  if (continue_fn)
    continue_fn(blocks);
  else
    branch(blocks.header);
  return begin_block(blocks.merge);
}

Id FunctionBuilder::load(Id type, Id pointer) { return op(spv::Op::OpLoad, type, {pointer}); }

void FunctionBuilder::store(Id pointer, Id value) { op_void(spv::Op::OpStore, {pointer, value}); }

Id FunctionBuilder::load_aligned(Id type, Id pointer, uint32_t alignment) {
  return op(spv::Op::OpLoad, type, {pointer, spv::MemoryAccessMask::Aligned, literal(alignment)});
}

void FunctionBuilder::store_aligned(Id pointer, Id value, uint32_t alignment) {
  op_void(spv::Op::OpStore, {pointer, value, spv::MemoryAccessMask::Aligned, literal(alignment)});
}

void FunctionBuilder::finish() {
  assert(!open_ && "function ends with an open block");
  Words head;
  append_instruction(head, spv::Op::OpFunction,
                     {result_type_, id_, spv::FunctionControlMask::MaskNone, function_type_});
  for (size_t i = 0; i < params_.size(); ++i)
    append_instruction(head, spv::Op::OpFunctionParameter, {param_types_[i], params_[i]});
  append_instruction(head, spv::Op::OpLabel, {entry_label_});
  head.insert(head.end(), variables_.begin(), variables_.end());
  module_.add_function_words(std::move(head));
  // The body's first block is the continuation of the entry block.
  append_instruction(body_, spv::Op::OpFunctionEnd, {});
  module_.add_function_words(std::move(body_));
  body_.clear();  // moved from: valid but unspecified
}

}  // namespace wasmgpu::spirv
