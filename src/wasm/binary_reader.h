// Bounds-checked reading of the WebAssembly binary format's primitives:
// bytes, LEB128 integers with the spec's length and unused-bit rules, IEEE
// floats and UTF-8 names. Every read reports failure as an Error naming the
// absolute byte offset, so that callers never touch memory past the input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "support/result.h"

namespace wasmgpu::wasm {

// True if `bytes` is well-formed UTF-8 (no overlong forms, no surrogates,
// nothing above U+10FFFF), as the spec requires of names.
bool is_valid_utf8(std::span<const uint8_t> bytes);

class BinaryReader {
 public:
  // Reads `whole[begin, end)`; offsets reported are positions in `whole`,
  // i.e. absolute offsets in the module binary.
  BinaryReader(std::span<const uint8_t> whole, size_t begin, size_t end);
  explicit BinaryReader(std::span<const uint8_t> whole) : BinaryReader(whole, 0, whole.size()) {}

  size_t offset() const { return pos_; }
  size_t end_offset() const { return end_; }
  size_t remaining() const { return end_ - pos_; }
  bool at_end() const { return pos_ == end_; }

  // A reader over the next `size` bytes, which this reader then skips.
  Result<BinaryReader> sub_reader(uint64_t size);

  Result<uint8_t> read_byte();
  Result<uint8_t> peek_byte() const;
  // A one-byte field the spec encodes as a LEB128 integer of at most 7 bits
  // (flags, type forms): a set continuation bit is "integer representation too long".
  Result<uint8_t> read_small_leb_byte();
  Result<std::span<const uint8_t>> read_bytes(uint64_t count);

  Result<uint32_t> read_u32();
  Result<uint64_t> read_u64();
  Result<int32_t> read_s32();
  Result<int64_t> read_s33();  // block type indices
  Result<int64_t> read_s64();
  Result<uint32_t> read_f32_bits();
  Result<uint64_t> read_f64_bits();

  // A length-prefixed UTF-8 name.
  Result<std::string> read_name();

  // An error at the current position.
  Error error_here(std::string message) const { return make_error_at(ErrorCode::Decode, pos_, std::move(message)); }

 private:
  // LEB128 of `bits` bits; `is_signed` selects the sign-extension rule for the
  // unused bits of the final byte.
  Result<uint64_t> read_leb(unsigned bits, bool is_signed);

  // The spec's wording for running out of bytes inside a section differs
  // from running out at the top level.
  const char* end_message() const { return in_section_ ? "unexpected end of section or function" : "unexpected end"; }

  std::span<const uint8_t> whole_;
  size_t pos_;
  size_t end_;
  bool in_section_ = false;
};

}  // namespace wasmgpu::wasm
