#include "wasm/decoder.h"

#include <algorithm>
#include <limits>

#include "wasm/binary_reader.h"
#include "wasm/instruction_decoder.h"
#include "wasm/name_section.h"
#include "wasm/validator.h"

namespace wasmgpu::wasm {
namespace {

enum SectionId : uint8_t {
  kCustom = 0,
  kType = 1,
  kImport = 2,
  kFunction = 3,
  kTable = 4,
  kMemory = 5,
  kGlobal = 6,
  kExport = 7,
  kStart = 8,
  kElement = 9,
  kCode = 10,
  kData = 11,
  kDataCount = 12,
};

// Position of a (non-custom) section in the required order; the data count
// section sits between element and code despite its larger id.
int section_rank(uint8_t id) {
  switch (id) {
    case kDataCount: return 10;
    case kCode: return 11;
    case kData: return 12;
    default: return id;
  }
}

// Calls `read_item` `count` times, where count is the vector's leading u32.
// Nothing is reserved up front from the count: a hostile count only costs
// the reads that fail on the bytes actually present.
template <class ReadItem>
Status read_vector(BinaryReader& reader, ReadItem read_item) {
  WASMGPU_ASSIGN_OR_RETURN(uint32_t count, reader.read_u32());
  for (uint32_t i = 0; i < count; ++i) WASMGPU_TRY(read_item(i));
  return {};
}

class ModuleDecoder {
 public:
  explicit ModuleDecoder(std::span<const uint8_t> bytes) : bytes_(bytes) {}

  Result<Module> decode() {
    if (bytes_.size() > std::numeric_limits<uint32_t>::max())
      return make_error_at(ErrorCode::Decode, 0, "module too large (over 4 GiB)");
    BinaryReader reader(bytes_);
    WASMGPU_TRY(decode_header(reader));
    int last_rank = 0;
    while (!reader.at_end()) {
      const size_t section_start = reader.offset();
      WASMGPU_ASSIGN_OR_RETURN(uint8_t id, reader.read_byte());
      if (id > kDataCount) return make_error_at(ErrorCode::Decode, section_start, "malformed section id");
      WASMGPU_ASSIGN_OR_RETURN(uint32_t size, reader.read_u32());
      if (size > reader.remaining()) return reader.error_here("section size mismatch: length out of bounds");
      WASMGPU_ASSIGN_OR_RETURN(BinaryReader section, reader.sub_reader(size));
      if (id != kCustom) {
        const int rank = section_rank(id);
        if (rank <= last_rank)
          return make_error_at(ErrorCode::Decode, section_start, "unexpected content after last section");
        last_rank = rank;
      }
      WASMGPU_TRY(decode_section(id, section));
      if (!section.at_end()) return section.error_here("section size mismatch");
    }
    if (module_.functions.size() != code_count_)
      return make_error_at(ErrorCode::Decode, bytes_.size(), "function and code section have inconsistent lengths");
    if (module_.data_count && !saw_data_section_ && *module_.data_count != 0)
      return make_error_at(ErrorCode::Decode, bytes_.size(), "data count and data section have inconsistent lengths");
    return std::move(module_);
  }

 private:
  Status decode_header(BinaryReader& reader) {
    static constexpr uint8_t kMagic[4] = {0x00, 0x61, 0x73, 0x6D};
    static constexpr uint8_t kVersion[4] = {0x01, 0x00, 0x00, 0x00};
    if (bytes_.size() < 4) return make_error_at(ErrorCode::Decode, bytes_.size(), "unexpected end");
    if (!std::equal(kMagic, kMagic + 4, bytes_.begin()))
      return make_error_at(ErrorCode::Decode, 0, "magic header not detected");
    (void)reader.read_bytes(4);
    if (reader.remaining() < 4) return make_error_at(ErrorCode::Decode, 4, "unexpected end: unknown binary version");
    if (!std::equal(kVersion, kVersion + 4, bytes_.begin() + 4))
      return make_error_at(ErrorCode::Decode, 4, "unknown binary version");
    (void)reader.read_bytes(4);
    return {};
  }

  Status decode_section(uint8_t id, BinaryReader& reader) {
    switch (id) {
      case kCustom: return decode_custom_section(reader);
      case kType: return read_vector(reader, [&](uint32_t) { return decode_func_type(reader); });
      case kImport: return read_vector(reader, [&](uint32_t) { return decode_import(reader); });
      case kFunction:
        return read_vector(reader, [&](uint32_t) -> Status {
          Function function;
          WASMGPU_ASSIGN_OR_RETURN(function.type_index, reader.read_u32());
          module_.functions.push_back(std::move(function));
          return {};
        });
      case kTable:
        return read_vector(reader, [&](uint32_t) -> Status {
          WASMGPU_ASSIGN_OR_RETURN(TableType table, decode_table_type(reader));
          module_.tables.push_back(table);
          return {};
        });
      case kMemory:
        return read_vector(reader, [&](uint32_t) -> Status {
          MemoryType memory;
          WASMGPU_ASSIGN_OR_RETURN(memory.limits, decode_limits(reader, /*memory=*/true));
          module_.memories.push_back(memory);
          return {};
        });
      case kGlobal:
        return read_vector(reader, [&](uint32_t) -> Status {
          Global global;
          WASMGPU_ASSIGN_OR_RETURN(global.type, decode_global_type(reader));
          WASMGPU_ASSIGN_OR_RETURN(global.init, decode_const_expr(reader));
          module_.globals.push_back(std::move(global));
          return {};
        });
      case kExport: return read_vector(reader, [&](uint32_t) { return decode_export(reader); });
      case kStart: {
        module_.start_offset = reader.offset();
        WASMGPU_ASSIGN_OR_RETURN(uint32_t start, reader.read_u32());
        module_.start = start;
        return {};
      }
      case kElement: return read_vector(reader, [&](uint32_t) { return decode_element_segment(reader); });
      case kDataCount: {
        WASMGPU_ASSIGN_OR_RETURN(uint32_t count, reader.read_u32());
        module_.data_count = count;
        return {};
      }
      case kCode: return decode_code_section(reader);
      case kData: return decode_data_section(reader);
    }
    return make_error_at(ErrorCode::Decode, reader.offset(), "malformed section id");
  }

  Status decode_custom_section(BinaryReader& reader) {
    CustomSection custom;
    WASMGPU_ASSIGN_OR_RETURN(custom.name, reader.read_name());
    custom.offset = reader.offset();
    WASMGPU_ASSIGN_OR_RETURN(auto contents, reader.read_bytes(reader.remaining()));
    custom.bytes.assign(contents.begin(), contents.end());
    if (custom.name == "name") {
      if (std::optional<NameSection> names = parse_name_section(contents)) module_.names = std::move(*names);
    }
    module_.custom_sections.push_back(std::move(custom));
    return {};
  }

  Status decode_func_type(BinaryReader& reader) {
    const size_t at = reader.offset();
    WASMGPU_ASSIGN_OR_RETURN(uint8_t form, reader.read_small_leb_byte());
    if (form != 0x60) return make_error_at(ErrorCode::Decode, at, "malformed function type (expected 0x60)");
    FuncType type;
    WASMGPU_TRY(read_vector(reader, [&](uint32_t) -> Status {
      WASMGPU_ASSIGN_OR_RETURN(ValType param, decode_value_type(reader));
      type.params.push_back(param);
      return {};
    }));
    WASMGPU_TRY(read_vector(reader, [&](uint32_t) -> Status {
      WASMGPU_ASSIGN_OR_RETURN(ValType result, decode_value_type(reader));
      type.results.push_back(result);
      return {};
    }));
    module_.types.push_back(std::move(type));
    return {};
  }

  // Memories may also be shared (threads proposal): flags 0x02 (refused by
  // the validator: a shared memory needs a maximum) and 0x03.
  Result<Limits> decode_limits(BinaryReader& reader, bool memory = false) {
    const size_t at = reader.offset();
    WASMGPU_ASSIGN_OR_RETURN(uint8_t flags, reader.read_small_leb_byte());
    if (flags > (memory ? 3 : 1))
      return make_error_at(ErrorCode::Decode, at, "integer too large: malformed limits flags");
    Limits limits;
    limits.shared = (flags & 2) != 0;
    WASMGPU_ASSIGN_OR_RETURN(limits.min, reader.read_u32());
    if (flags & 1) {
      WASMGPU_ASSIGN_OR_RETURN(uint32_t max, reader.read_u32());
      limits.max = max;
    }
    return limits;
  }

  Result<TableType> decode_table_type(BinaryReader& reader) {
    TableType table;
    WASMGPU_ASSIGN_OR_RETURN(table.element, decode_reference_type(reader));
    WASMGPU_ASSIGN_OR_RETURN(table.limits, decode_limits(reader));
    return table;
  }

  Result<GlobalType> decode_global_type(BinaryReader& reader) {
    GlobalType global;
    WASMGPU_ASSIGN_OR_RETURN(global.type, decode_value_type(reader));
    const size_t at = reader.offset();
    WASMGPU_ASSIGN_OR_RETURN(uint8_t mutability, reader.read_byte());
    if (mutability > 1) return make_error_at(ErrorCode::Decode, at, "malformed mutability");
    global.is_mutable = mutability == 1;
    return global;
  }

  Result<ConstExpr> decode_const_expr(BinaryReader& reader) {
    ConstExpr expr;
    std::vector<std::vector<uint32_t>> br_tables;  // only in invalid constant expressions
    WASMGPU_TRY(decode_expression(reader, expression_context(), expr.instrs, br_tables));
    return expr;
  }

  ExpressionContext expression_context() const {
    return ExpressionContext{.has_data_count = module_.data_count.has_value(),
                             .multi_memory = module_.total_memories() > 1};
  }

  Status decode_import(BinaryReader& reader) {
    Import import;
    import.offset = reader.offset();
    WASMGPU_ASSIGN_OR_RETURN(import.module, reader.read_name());
    WASMGPU_ASSIGN_OR_RETURN(import.name, reader.read_name());
    const size_t kind_at = reader.offset();
    WASMGPU_ASSIGN_OR_RETURN(uint8_t kind, reader.read_byte());
    switch (kind) {
      case 0: {
        WASMGPU_ASSIGN_OR_RETURN(import.func_type, reader.read_u32());
        ++module_.imported_functions;
        break;
      }
      case 1: {
        WASMGPU_ASSIGN_OR_RETURN(import.table, decode_table_type(reader));
        ++module_.imported_tables;
        break;
      }
      case 2: {
        WASMGPU_ASSIGN_OR_RETURN(import.memory.limits, decode_limits(reader, /*memory=*/true));
        ++module_.imported_memories;
        break;
      }
      case 3: {
        WASMGPU_ASSIGN_OR_RETURN(import.global, decode_global_type(reader));
        ++module_.imported_globals;
        break;
      }
      default: return make_error_at(ErrorCode::Decode, kind_at, "malformed import kind");
    }
    import.kind = static_cast<ExternalKind>(kind);
    module_.imports.push_back(std::move(import));
    return {};
  }

  Status decode_export(BinaryReader& reader) {
    Export entry;
    entry.offset = reader.offset();
    WASMGPU_ASSIGN_OR_RETURN(entry.name, reader.read_name());
    const size_t kind_at = reader.offset();
    WASMGPU_ASSIGN_OR_RETURN(uint8_t kind, reader.read_byte());
    if (kind > 3) return make_error_at(ErrorCode::Decode, kind_at, "malformed export kind");
    entry.kind = static_cast<ExternalKind>(kind);
    WASMGPU_ASSIGN_OR_RETURN(entry.index, reader.read_u32());
    module_.exports.push_back(std::move(entry));
    return {};
  }

  // The expression `ref.func index; end`, as the item of a segment that
  // lists function indices.
  static ConstExpr ref_func_expr(uint32_t index, uint32_t offset) {
    ConstExpr expr;
    Instr ref_func;
    ref_func.op = Opcode::RefFunc;
    ref_func.offset = offset;
    ref_func.imm0 = index;
    Instr end;
    end.op = Opcode::End;
    end.offset = offset;
    expr.instrs = {ref_func, end};
    return expr;
  }

  Status decode_element_segment(BinaryReader& reader) {
    // Flag bits: 0 = passive or declarative (else active), 1 = explicit table
    // index (active) or declarative (otherwise), 2 = items are expressions.
    const size_t flags_at = reader.offset();
    WASMGPU_ASSIGN_OR_RETURN(uint32_t flags, reader.read_u32());
    if (flags > 7) return make_error_at(ErrorCode::Decode, flags_at, "malformed elements segment kind");
    ElementSegment segment;
    const bool is_active = (flags & 1) == 0;
    const bool has_table_index = is_active && (flags & 2);
    const bool uses_expressions = flags & 4;
    if (!is_active) segment.mode = (flags & 2) ? ElementSegment::Mode::Declarative : ElementSegment::Mode::Passive;
    if (has_table_index) {
      WASMGPU_ASSIGN_OR_RETURN(segment.table, reader.read_u32());
    }
    if (is_active) {
      WASMGPU_ASSIGN_OR_RETURN(segment.offset, decode_const_expr(reader));
    }
    // Flags 0 and 4 imply funcref; the others state the element kind or type.
    if (flags != 0 && flags != 4) {
      if (uses_expressions) {
        WASMGPU_ASSIGN_OR_RETURN(segment.type, decode_reference_type(reader));
      } else {
        const size_t kind_at = reader.offset();
        WASMGPU_ASSIGN_OR_RETURN(uint8_t kind, reader.read_byte());
        if (kind != 0x00) return make_error_at(ErrorCode::Decode, kind_at, "malformed element kind");
      }
    }
    WASMGPU_TRY(read_vector(reader, [&](uint32_t) -> Status {
      if (uses_expressions) {
        WASMGPU_ASSIGN_OR_RETURN(ConstExpr item, decode_const_expr(reader));
        segment.items.push_back(std::move(item));
      } else {
        const uint32_t at = uint32_t(reader.offset());
        WASMGPU_ASSIGN_OR_RETURN(uint32_t function, reader.read_u32());
        segment.items.push_back(ref_func_expr(function, at));
      }
      return {};
    }));
    module_.elements.push_back(std::move(segment));
    return {};
  }

  Status decode_code_section(BinaryReader& reader) {
    const size_t count_at = reader.offset();
    WASMGPU_ASSIGN_OR_RETURN(uint32_t count, reader.read_u32());
    if (count != module_.functions.size())
      return make_error_at(ErrorCode::Decode, count_at, "function and code section have inconsistent lengths");
    code_count_ = count;
    for (Function& function : module_.functions) WASMGPU_TRY(decode_function_body(reader, function));
    return {};
  }

  Status decode_function_body(BinaryReader& reader, Function& function) {
    function.body_offset = reader.offset();
    WASMGPU_ASSIGN_OR_RETURN(uint32_t size, reader.read_u32());
    WASMGPU_ASSIGN_OR_RETURN(BinaryReader body, reader.sub_reader(size));

    // Local declarations come as (count, type) runs; sum them before
    // expanding so that a huge count is rejected without being allocated.
    std::vector<std::pair<uint32_t, ValType>> runs;
    uint64_t total_locals = 0;
    const size_t locals_at = body.offset();
    WASMGPU_TRY(read_vector(body, [&](uint32_t) -> Status {
      WASMGPU_ASSIGN_OR_RETURN(uint32_t run_length, body.read_u32());
      WASMGPU_ASSIGN_OR_RETURN(ValType type, decode_value_type(body));
      total_locals += run_length;
      if (total_locals > std::numeric_limits<uint32_t>::max())
        return make_error_at(ErrorCode::Decode, locals_at, "too many locals");
      runs.emplace_back(run_length, type);
      return {};
    }));
    expanded_locals_ += total_locals;
    if (expanded_locals_ > kMaxExpandedLocalsPerModule)
      return make_error_at(
          ErrorCode::Decode, locals_at,
          "too many locals (implementation limit of " + std::to_string(kMaxExpandedLocalsPerModule) + " per module)");
    function.locals.reserve(size_t(total_locals));
    for (const auto& [run_length, type] : runs) function.locals.insert(function.locals.end(), run_length, type);

    WASMGPU_TRY(decode_expression(body, expression_context(), function.body, function.br_tables));
    if (!body.at_end()) return body.error_here("section size mismatch: bytes after the function's end");
    return {};
  }

  Status decode_data_section(BinaryReader& reader) {
    saw_data_section_ = true;
    const size_t count_at = reader.offset();
    WASMGPU_ASSIGN_OR_RETURN(uint32_t count, reader.read_u32());
    if (module_.data_count && *module_.data_count != count)
      return make_error_at(ErrorCode::Decode, count_at, "data count and data section have inconsistent lengths");
    for (uint32_t i = 0; i < count; ++i) {
      const size_t flags_at = reader.offset();
      WASMGPU_ASSIGN_OR_RETURN(uint32_t flags, reader.read_u32());
      DataSegment segment;
      switch (flags) {
        case 0: break;
        case 1: segment.mode = DataSegment::Mode::Passive; break;
        case 2: {
          WASMGPU_ASSIGN_OR_RETURN(segment.memory, reader.read_u32());
          break;
        }
        default: return make_error_at(ErrorCode::Decode, flags_at, "malformed data segment kind");
      }
      if (segment.mode == DataSegment::Mode::Active) {
        WASMGPU_ASSIGN_OR_RETURN(segment.offset, decode_const_expr(reader));
      }
      WASMGPU_ASSIGN_OR_RETURN(uint32_t length, reader.read_u32());
      if (length > reader.remaining()) return reader.error_here("unexpected end of section or function");
      WASMGPU_ASSIGN_OR_RETURN(auto bytes, reader.read_bytes(length));
      segment.bytes.assign(bytes.begin(), bytes.end());
      module_.data.push_back(std::move(segment));
    }
    return {};
  }

  std::span<const uint8_t> bytes_;
  Module module_;
  uint32_t code_count_ = 0;
  bool saw_data_section_ = false;
  uint64_t expanded_locals_ = 0;
};

}  // namespace

Result<Module> decode(std::span<const uint8_t> bytes) {
  return with_default_code(ModuleDecoder(bytes).decode(), ErrorCode::Decode);
}

Result<Module> decode_and_validate(std::span<const uint8_t> bytes) {
  WASMGPU_ASSIGN_OR_RETURN(Module module, decode(bytes));
  WASMGPU_TRY(validate(module));
  return module;
}

}  // namespace wasmgpu::wasm
