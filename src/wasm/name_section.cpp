#include "wasm/name_section.h"

#include <algorithm>

#include "wasm/binary_reader.h"

namespace wasmgpu::wasm {
namespace {

using NameMap = std::vector<std::pair<uint32_t, std::string>>;

enum NameSubsection : uint8_t {
  kModuleName = 0,
  kFunctionNames = 1,
  kLocalNames = 2,
  kGlobalNames = 7,
  kDataNames = 9,
};

Result<NameMap> read_name_map(BinaryReader& reader) {
  WASMGPU_ASSIGN_OR_RETURN(uint32_t count, reader.read_u32());
  NameMap names;
  names.reserve(std::min<size_t>(count, reader.remaining() / 2));
  for (uint32_t i = 0; i < count; ++i) {
    WASMGPU_ASSIGN_OR_RETURN(uint32_t index, reader.read_u32());
    WASMGPU_ASSIGN_OR_RETURN(std::string name, reader.read_name());
    names.emplace_back(index, std::move(name));
  }
  // The format requires increasing indices; sort anyway so that lookups by
  // binary search stay correct for producers that get this wrong.
  std::sort(names.begin(), names.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return names;
}

Result<NameSection> parse(std::span<const uint8_t> contents) {
  BinaryReader reader(contents);
  NameSection section;
  while (!reader.at_end()) {
    WASMGPU_ASSIGN_OR_RETURN(uint8_t id, reader.read_byte());
    WASMGPU_ASSIGN_OR_RETURN(uint32_t size, reader.read_u32());
    WASMGPU_ASSIGN_OR_RETURN(BinaryReader sub, reader.sub_reader(size));
    switch (id) {
      case kModuleName: {
        WASMGPU_ASSIGN_OR_RETURN(section.module_name, sub.read_name());
        break;
      }
      case kFunctionNames: {
        WASMGPU_ASSIGN_OR_RETURN(section.function_names, read_name_map(sub));
        break;
      }
      case kLocalNames: {
        WASMGPU_ASSIGN_OR_RETURN(uint32_t count, sub.read_u32());
        section.local_names.reserve(std::min<size_t>(count, sub.remaining() / 2));
        for (uint32_t i = 0; i < count; ++i) {
          WASMGPU_ASSIGN_OR_RETURN(uint32_t function, sub.read_u32());
          WASMGPU_ASSIGN_OR_RETURN(NameMap locals, read_name_map(sub));
          section.local_names.emplace_back(function, std::move(locals));
        }
        std::sort(section.local_names.begin(), section.local_names.end(),
                  [](const auto& a, const auto& b) { return a.first < b.first; });
        break;
      }
      case kGlobalNames: {
        WASMGPU_ASSIGN_OR_RETURN(section.global_names, read_name_map(sub));
        break;
      }
      case kDataNames: {
        WASMGPU_ASSIGN_OR_RETURN(section.data_names, read_name_map(sub));
        break;
      }
      default: continue;  // other subsections (labels, types, ...) are skipped whole
    }
    if (!sub.at_end()) return sub.error_here("name subsection size mismatch");
  }
  return section;
}

}  // namespace

std::optional<NameSection> parse_name_section(std::span<const uint8_t> contents) {
  Result<NameSection> names = parse(contents);
  if (!names.ok()) return std::nullopt;
  return std::move(names).value();
}

}  // namespace wasmgpu::wasm
