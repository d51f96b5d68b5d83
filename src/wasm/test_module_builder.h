// Helpers for tests that build module binaries by hand.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string_view>
#include <vector>

namespace wasmgpu::wasm::testing {

using Bytes = std::vector<uint8_t>;

inline Bytes uleb(uint64_t value) {
  Bytes out;
  do {
    uint8_t byte = value & 0x7F;
    value >>= 7;
    out.push_back(value ? byte | 0x80 : byte);
  } while (value);
  return out;
}

inline Bytes concat(std::initializer_list<Bytes> parts) {
  Bytes out;
  for (const Bytes& part : parts) out.insert(out.end(), part.begin(), part.end());
  return out;
}

inline Bytes name(std::string_view text) {
  Bytes out = uleb(text.size());
  out.insert(out.end(), text.begin(), text.end());
  return out;
}

// A section: id, size, contents.
inline Bytes section(uint8_t id, const Bytes& contents) { return concat({Bytes{id}, uleb(contents.size()), contents}); }

inline Bytes module_header() { return {0x00, 0x61, 0x73, 0x6D, 0x01, 0x00, 0x00, 0x00}; }

inline Bytes module_of(std::initializer_list<Bytes> sections) {
  Bytes out = module_header();
  for (const Bytes& s : sections) out.insert(out.end(), s.begin(), s.end());
  return out;
}

// Type section with the single type [] -> [] ...
inline Bytes type_section_void() { return section(1, {0x01, 0x60, 0x00, 0x00}); }
// ... or with the single type [] -> [i32].
inline Bytes type_section_to_i32() { return section(1, {0x01, 0x60, 0x00, 0x01, 0x7F}); }
// Function section declaring `count` functions of type 0.
inline Bytes function_section(uint8_t count) {
  Bytes contents{count};
  for (uint8_t i = 0; i < count; ++i) contents.push_back(0x00);
  return section(3, contents);
}
// One function body from its locals vector and instruction bytes (ending in 0x0B).
inline Bytes body(const Bytes& locals_and_code) { return concat({uleb(locals_and_code.size()), locals_and_code}); }
inline Bytes code_section(std::initializer_list<Bytes> bodies) {
  Bytes contents = uleb(bodies.size());
  for (const Bytes& b : bodies) contents.insert(contents.end(), b.begin(), b.end());
  return section(10, contents);
}

// A module with one function of type [] -> [] (or -> [i32]) whose body is
// `code` (no locals).
inline Bytes single_function_module(const Bytes& code, bool returns_i32 = false) {
  return module_of({returns_i32 ? type_section_to_i32() : type_section_void(), function_section(1),
                    code_section({body(concat({Bytes{0x00}, code}))})});
}

}  // namespace wasmgpu::wasm::testing
