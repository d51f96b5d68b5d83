#include "wasm/binary_reader.h"

#include <cstring>

namespace wasmgpu::wasm {

bool is_valid_utf8(std::span<const uint8_t> bytes) {
  size_t i = 0;
  while (i < bytes.size()) {
    uint8_t lead = bytes[i];
    if (lead < 0x80) {
      ++i;
      continue;
    }
    size_t length;
    uint32_t code_point;
    uint32_t min_code_point;
    if ((lead & 0xE0) == 0xC0) {
      length = 2, code_point = lead & 0x1F, min_code_point = 0x80;
    } else if ((lead & 0xF0) == 0xE0) {
      length = 3, code_point = lead & 0x0F, min_code_point = 0x800;
    } else if ((lead & 0xF8) == 0xF0) {
      length = 4, code_point = lead & 0x07, min_code_point = 0x10000;
    } else {
      return false;  // a continuation byte or 0xF8..0xFF as lead
    }
    if (bytes.size() - i < length) return false;
    for (size_t k = 1; k < length; ++k) {
      uint8_t continuation = bytes[i + k];
      if ((continuation & 0xC0) != 0x80) return false;
      code_point = (code_point << 6) | (continuation & 0x3F);
    }
    if (code_point < min_code_point) return false;                   // overlong
    if (code_point >= 0xD800 && code_point <= 0xDFFF) return false;  // surrogate
    if (code_point > 0x10FFFF) return false;
    i += length;
  }
  return true;
}

BinaryReader::BinaryReader(std::span<const uint8_t> whole, size_t begin, size_t end)
    : whole_(whole), pos_(begin), end_(end) {
  assert(begin <= end && end <= whole.size());
}

Result<BinaryReader> BinaryReader::sub_reader(uint64_t size) {
  if (size > remaining()) return error_here("unexpected end of section or function");
  BinaryReader sub(whole_, pos_, pos_ + size_t(size));
  sub.in_section_ = true;
  pos_ += size_t(size);
  return sub;
}

Result<uint8_t> BinaryReader::read_byte() {
  if (pos_ >= end_) return error_here(end_message());
  return whole_[pos_++];
}

Result<uint8_t> BinaryReader::peek_byte() const {
  if (pos_ >= end_) return error_here(end_message());
  return whole_[pos_];
}

Result<uint8_t> BinaryReader::read_small_leb_byte() {
  WASMGPU_ASSIGN_OR_RETURN(uint8_t byte, read_byte());
  if (byte & 0x80) return make_error_at(ErrorCode::Decode, pos_ - 1, "integer representation too long");
  return byte;
}

Result<std::span<const uint8_t>> BinaryReader::read_bytes(uint64_t count) {
  if (count > remaining()) return error_here(end_message());
  auto bytes = whole_.subspan(pos_, size_t(count));
  pos_ += size_t(count);
  return bytes;
}

Result<uint64_t> BinaryReader::read_leb(unsigned bits, bool is_signed) {
  const size_t start = pos_;
  const unsigned max_bytes = (bits + 6) / 7;
  uint64_t value = 0;
  for (unsigned index = 0;; ++index) {
    if (pos_ >= end_) return error_here(end_message());
    uint8_t byte = whole_[pos_++];
    const unsigned shift = 7 * index;
    const bool is_last_allowed = index + 1 == max_bytes;
    if (is_last_allowed) {
      if (byte & 0x80) return make_error_at(ErrorCode::Decode, start, "integer representation too long");
      // Bits of this byte beyond the integer's width must be zero (unsigned)
      // or copies of the sign bit (signed).
      const unsigned used_bits = bits - shift;  // 1..7
      if (is_signed) {
        const uint8_t sign_and_unused = uint8_t((0x7F >> (used_bits - 1)) << (used_bits - 1));
        const uint8_t top = byte & sign_and_unused;
        if (top != 0 && top != sign_and_unused) return make_error_at(ErrorCode::Decode, start, "integer too large");
      } else {
        const uint8_t unused = uint8_t((0x7F << used_bits) & 0x7F);
        if (byte & unused) return make_error_at(ErrorCode::Decode, start, "integer too large");
      }
    }
    if (shift < 64) value |= uint64_t(byte & 0x7F) << shift;
    if (!(byte & 0x80)) {
      const unsigned total = shift + 7;
      if (is_signed && total < 64 && (byte & 0x40)) value |= ~uint64_t(0) << total;
      break;
    }
  }
  if (bits < 64) {
    // Keep exactly `bits` bits (sign-extended for signed reads, from bit bits-1).
    const uint64_t mask = (uint64_t(1) << bits) - 1;
    if (is_signed) {
      const uint64_t sign = uint64_t(1) << (bits - 1);
      value = ((value & mask) ^ sign) - sign;
    } else {
      value &= mask;
    }
  }
  return value;
}

Result<uint32_t> BinaryReader::read_u32() {
  WASMGPU_ASSIGN_OR_RETURN(uint64_t value, read_leb(32, false));
  return uint32_t(value);
}

Result<uint64_t> BinaryReader::read_u64() { return read_leb(64, false); }

Result<int32_t> BinaryReader::read_s32() {
  WASMGPU_ASSIGN_OR_RETURN(uint64_t value, read_leb(32, true));
  return int32_t(uint32_t(value));
}

Result<int64_t> BinaryReader::read_s33() {
  WASMGPU_ASSIGN_OR_RETURN(uint64_t value, read_leb(33, true));
  return int64_t(value);
}

Result<int64_t> BinaryReader::read_s64() {
  WASMGPU_ASSIGN_OR_RETURN(uint64_t value, read_leb(64, true));
  return int64_t(value);
}

Result<uint32_t> BinaryReader::read_f32_bits() {
  WASMGPU_ASSIGN_OR_RETURN(auto bytes, read_bytes(4));
  uint32_t bits = 0;
  for (int i = 3; i >= 0; --i) bits = (bits << 8) | bytes[size_t(i)];
  return bits;
}

Result<uint64_t> BinaryReader::read_f64_bits() {
  WASMGPU_ASSIGN_OR_RETURN(auto bytes, read_bytes(8));
  uint64_t bits = 0;
  for (int i = 7; i >= 0; --i) bits = (bits << 8) | bytes[size_t(i)];
  return bits;
}

Result<std::string> BinaryReader::read_name() {
  WASMGPU_ASSIGN_OR_RETURN(uint32_t length, read_u32());
  const size_t start = pos_;
  if (length > remaining()) return error_here("length out of bounds");
  WASMGPU_ASSIGN_OR_RETURN(auto bytes, read_bytes(length));
  if (!is_valid_utf8(bytes)) return make_error_at(ErrorCode::Decode, start, "malformed UTF-8 encoding");
  return std::string(bytes.begin(), bytes.end());
}

}  // namespace wasmgpu::wasm
