#include "api/wasi_fd_write.h"

#include "api/print_ring.h"

namespace wasmgpu::detail {

namespace {

using Bytes = std::vector<uint8_t>;

void uleb(Bytes& out, uint64_t value) {
  do {
    uint8_t byte = value & 0x7f;
    value >>= 7;
    out.push_back(byte | (value ? 0x80 : 0));
  } while (value);
}

void sleb(Bytes& out, int64_t value) {
  while (true) {
    const uint8_t byte = value & 0x7f;
    value >>= 7;
    if ((value == 0 && !(byte & 0x40)) || (value == -1 && (byte & 0x40))) {
      out.push_back(byte);
      return;
    }
    out.push_back(byte | 0x80);
  }
}

// Length of the unsigned LEB128 at `at`.
size_t leb_length(std::span<const uint8_t> bytes, size_t at) {
  size_t n = 0;
  while (at + n < bytes.size() && (bytes[at + n] & 0x80)) ++n;
  return n + 1;
}

// The fd_write function's body (locals and code), wasm bytecode.
//   params: 0 fd, 1 iovs, 2 iovs_len, 3 nwritten
//   locals: 4 total, 5 i, 6 words, 7 at, 8 dst, 9 k, 10 buf, 11 len, 12 cap
// It writes the record layout of include/wasmgpu_runtime.c (kind 2, bytes),
// with the invocation unknown (0xFFFFFFFF): the module need not import the
// ids.
Bytes fd_write_body(uint32_t ring) {
  Bytes b;
  auto op = [&](std::initializer_list<uint8_t> bytes) { b.insert(b.end(), bytes); };
  auto get = [&](uint32_t local) { op({0x20}), uleb(b, local); };
  auto set = [&](uint32_t local) { op({0x21}), uleb(b, local); };
  auto i32 = [&](int64_t value) { op({0x41}), sleb(b, int32_t(uint32_t(value))); };
  auto load = [&](uint32_t offset) { op({0x28, 0x02}), uleb(b, offset); };
  auto store = [&](uint32_t offset) { op({0x36, 0x02}), uleb(b, offset); };
  auto atomic_add = [&](uint32_t offset) { op({0xFE, 0x1E, 0x02}), uleb(b, offset); };
  const uint8_t kAdd = 0x6A, kSub = 0x6B, kShl = 0x74, kShrU = 0x76, kAnd = 0x71, kNe = 0x47, kGtU = 0x4B, kLtU = 0x49,
                kGeU = 0x4F, kOr = 0x72;
  const uint8_t kBlock = 0x02, kLoop = 0x03, kIf = 0x04, kEmpty = 0x40, kEnd = 0x0B, kBr = 0x0C, kBrIf = 0x0D,
                kReturn = 0x0F;
  op({0x01, 0x09, 0x7F});  // 9 i32 locals
  // fd other than 1 and 2: EBADF.
  get(0), i32(1), op({kNe}), get(0), i32(2), op({kNe}), op({kAnd}), op({kIf, kEmpty}), i32(8), op({kReturn, kEnd});
  // total = the sum of the iovecs' lengths.
  op({kBlock, kEmpty, kLoop, kEmpty});
  get(5), get(2), op({kGeU, kBrIf, 1});
  get(4), get(1), get(5), i32(3), op({kShl, kAdd}), load(4), op({kAdd}), set(4);
  get(5), i32(1), op({kAdd}), set(5), op({kBr, 0, kEnd, kEnd});
  // words = 4 + ceil(total / 4); at = the reservation.
  get(4), i32(3), op({kAdd}), i32(2), op({kShrU}), i32(4), op({kAdd}), set(6);
  i32(ring), get(6), atomic_add(kPrintRingUsed * 4), set(7);
  i32(ring), load(kPrintRingCapacity * 4), set(12);
  // It does not fit: a filler where it crosses the end, the drop counted.
  get(7), get(12), op({kGtU}), get(6), get(12), get(7), op({kSub, kGtU, kOr, kIf, kEmpty});
  {
    get(7), get(12), op({kLtU, kIf, kEmpty});
    i32(ring + kPrintRingHeaderWords * 4), get(7), i32(2), op({kShl, kAdd}), get(12), get(7), op({kSub}), i32(8),
        op({kShl}), store(0), op({kEnd});
    i32(ring), get(6), atomic_add(kPrintRingDroppedWords * 4), op({0x1A});  // drop
    i32(ring), i32(1), atomic_add(kPrintRingDroppedRecords * 4), op({0x1A});
    get(3), get(4), store(0), i32(0), op({kReturn, kEnd});
  }
  // The record's header.
  i32(ring + kPrintRingHeaderWords * 4), get(7), i32(2), op({kShl, kAdd}), set(8);
  get(8), i32(2), get(6), i32(8), op({kShl, kOr}), store(0);
  get(8), i32(-1), store(4);
  get(8), get(0), store(8);
  get(8), get(4), store(12);
  // The bytes, one store8 each, after the header: dst advances.
  i32(0), set(5);
  op({kBlock, kEmpty, kLoop, kEmpty});
  get(5), get(2), op({kGeU, kBrIf, 1});
  get(1), get(5), i32(3), op({kShl, kAdd}), load(0), set(10);
  get(1), get(5), i32(3), op({kShl, kAdd}), load(4), set(11);
  i32(0), set(9);
  op({kBlock, kEmpty, kLoop, kEmpty});
  get(9), get(11), op({kGeU, kBrIf, 1});
  get(8), get(9), op({kAdd}), get(10), get(9), op({kAdd}), op({0x2D, 0x00, 0x00}), op({0x3A, 0x00, 16});
  get(9), i32(1), op({kAdd}), set(9), op({kBr, 0, kEnd, kEnd});
  get(8), get(11), op({kAdd}), set(8);
  get(5), i32(1), op({kAdd}), set(5), op({kBr, 0, kEnd, kEnd});
  get(3), get(4), store(0), i32(0), op({kEnd});
  Bytes out;
  uleb(out, b.size());
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

bool uses_function(const wasm::ConstExpr& expr, uint32_t function) {
  for (const wasm::Instr& instr : expr.instrs)
    if (instr.op == wasm::Opcode::RefFunc && instr.imm0 == function) return true;
  return false;
}

}  // namespace

bool imports_wasi_fd_write(const wasm::Module& module) {
  for (const wasm::Import& import : module.imports)
    if (import.kind == wasm::ExternalKind::Func && import.module == "wasi_snapshot_preview1" &&
        import.name == "fd_write")
      return true;
  return false;
}

LinkedModule link_wasi_fd_write(std::span<const uint8_t> bytes, const wasm::Module& module, uint32_t ring) {
  LinkedModule out;
  std::optional<uint32_t> imported;
  for (uint32_t f = 0; f < module.imported_functions; ++f) {
    const wasm::Import* import = module.imported_function(f);
    if (import && import->module == "wasi_snapshot_preview1" && import->name == "fd_write") imported = f;
  }
  if (!imported) return out;
  const uint32_t j = *imported;
  const wasm::FuncType& type = module.function_type(j);
  const std::vector<wasm::ValType> i32x4(4, wasm::ValType::I32);
  if (type.params != i32x4 || type.results != std::vector<wasm::ValType>{wasm::ValType::I32}) {
    out.error = "the module imports wasi_snapshot_preview1.fd_write with another signature than WASI's";
    return out;
  }
  const char* other_use = nullptr;
  for (const wasm::Export& e : module.exports)
    if (e.kind == wasm::ExternalKind::Func && e.index == j) other_use = "exports it";
  for (const wasm::ElementSegment& segment : module.elements)
    for (const wasm::ConstExpr& item : segment.items)
      if (uses_function(item, j)) other_use = "puts it in a table";
  for (const wasm::Global& global : module.globals)
    if (uses_function(global.init, j)) other_use = "takes its reference (ref.func)";
  for (const wasm::Function& function : module.functions)
    for (const wasm::Instr& instr : function.body)
      if (instr.op == wasm::Opcode::RefFunc && instr.imm0 == j) other_use = "takes its reference (ref.func)";
  if (other_use) {
    out.error = std::string("the module imports wasi_snapshot_preview1.fd_write and ") + other_use +
                ": only calls of it can be served";
    return out;
  }
  const uint32_t defined = module.total_functions();  // the new function's index
  const uint32_t type_index = module.imported_function(j)->func_type;

  // The sections, as they are; the function and code sections rebuilt.
  Bytes result(bytes.begin(), bytes.begin() + 8);
  size_t at = 8;
  bool had_function_section = false, had_code_section = false;
  while (at < bytes.size()) {
    const uint8_t id = bytes[at];
    const size_t size_at = at + 1, size_length = leb_length(bytes, size_at);
    uint64_t size = 0;
    for (size_t i = 0; i < size_length; ++i) size |= uint64_t(bytes[size_at + i] & 0x7f) << (7 * i);
    const size_t payload = size_at + size_length, end = payload + size;
    Bytes contents;
    if (id == 3) {  // function section: one more entry
      had_function_section = true;
      const size_t count_length = leb_length(bytes, payload);
      uleb(contents, module.functions.size() + 1);
      contents.insert(contents.end(), bytes.begin() + payload + count_length, bytes.begin() + end);
      uleb(contents, type_index);
    } else if (id == 10) {  // code section: calls of the import redirected, the new body appended
      had_code_section = true;
      uleb(contents, module.functions.size() + 1);
      for (const wasm::Function& function : module.functions) {
        const size_t body_size_at = function.body_offset, body_size_length = leb_length(bytes, body_size_at);
        uint64_t body_size = 0;
        for (size_t i = 0; i < body_size_length; ++i) body_size |= uint64_t(bytes[body_size_at + i] & 0x7f) << (7 * i);
        size_t copied = body_size_at + body_size_length;
        const size_t body_end = copied + body_size;
        Bytes body;
        for (const wasm::Instr& instr : function.body) {
          // A return_call (tail call) names its callee the same way, after a one-byte opcode.
          if ((instr.op != wasm::Opcode::Call && instr.op != wasm::Opcode::ReturnCall) || instr.imm0 != j) continue;
          const size_t index_at = instr.offset + 1;
          body.insert(body.end(), bytes.begin() + copied, bytes.begin() + index_at);
          uleb(body, defined);
          copied = index_at + leb_length(bytes, index_at);
        }
        body.insert(body.end(), bytes.begin() + copied, bytes.begin() + body_end);
        uleb(contents, body.size());
        contents.insert(contents.end(), body.begin(), body.end());
      }
      const Bytes added = fd_write_body(ring);
      contents.insert(contents.end(), added.begin(), added.end());
    } else {
      result.insert(result.end(), bytes.begin() + at, bytes.begin() + end);
      at = end;
      continue;
    }
    result.push_back(id);
    uleb(result, contents.size());
    result.insert(result.end(), contents.begin(), contents.end());
    at = end;
  }
  if (!had_function_section || !had_code_section) return LinkedModule{};  // nothing calls it
  out.bytes = std::move(result);
  return out;
}

}  // namespace wasmgpu::detail
