#include "wasm/kernel_metadata.h"

#include <set>

namespace wasmgpu::wasm {

namespace {

// Reads the section's contents; offsets in errors are relative to them.
class MetadataReader {
 public:
  explicit MetadataReader(std::span<const uint8_t> bytes) : bytes_(bytes) {}

  bool at_end() const { return pos_ == bytes_.size(); }
  size_t offset() const { return pos_; }

  Result<uint8_t> byte(std::string_view what) {
    if (pos_ >= bytes_.size()) return truncated(what);
    return bytes_[pos_++];
  }

  Result<uint32_t> u32(std::string_view what) {
    if (bytes_.size() - pos_ < 4) return truncated(what);
    uint32_t value = 0;
    for (int i = 0; i < 4; ++i) value |= uint32_t(bytes_[pos_ + i]) << (8 * i);
    pos_ += 4;
    return value;
  }

  Result<std::string> string(std::string_view what) {
    for (size_t end = pos_; end < bytes_.size(); ++end) {
      if (bytes_[end] != 0) continue;
      std::string text(bytes_.begin() + std::ptrdiff_t(pos_), bytes_.begin() + std::ptrdiff_t(end));
      pos_ = end + 1;
      return text;
    }
    return truncated(what);
  }

  Error error_at(size_t offset, const std::string& message) const {
    return make_error(ErrorCode::Decode, "wasmgpu.kernels section, byte " + std::to_string(offset) + ": " + message);
  }

 private:
  Error truncated(std::string_view what) const {
    return error_at(pos_, "truncated: the section ends inside " + std::string(what));
  }

  std::span<const uint8_t> bytes_;
  size_t pos_ = 0;
};

Result<KernelParam> read_param(MetadataReader& r, const std::string& kernel, size_t index) {
  const std::string where = "parameter " + std::to_string(index) + " of kernel '" + kernel + "'";
  KernelParam param;
  size_t kind_offset = r.offset();
  WASMGPU_ASSIGN_OR_RETURN(uint8_t kind, r.byte("the kind of " + where));
  if (kind > uint8_t(KernelParam::Kind::Sampler))
    return r.error_at(kind_offset, "unknown kind " + std::to_string(kind) + " of " + where);
  param.kind = KernelParam::Kind(kind);
  WASMGPU_ASSIGN_OR_RETURN(param.size, r.u32("the size of " + where));
  size_t alignment_offset = r.offset();
  WASMGPU_ASSIGN_OR_RETURN(param.alignment, r.u32("the alignment of " + where));
  if (param.alignment == 0 || (param.alignment & (param.alignment - 1)) != 0 || (param.size % param.alignment) != 0)
    return r.error_at(alignment_offset, "alignment " + std::to_string(param.alignment) + " of " + where +
                                            " is not a power of two dividing its size " + std::to_string(param.size));
  WASMGPU_ASSIGN_OR_RETURN(param.name, r.string("the name of " + where));
  WASMGPU_ASSIGN_OR_RETURN(param.type, r.string("the type of " + where));
  WASMGPU_ASSIGN_OR_RETURN(param.pointee, r.string("the pointee type of " + where));
  if (param.name.empty()) return r.error_at(kind_offset, where + " has no name");
  if (param.is_pointer() == param.pointee.empty())
    return r.error_at(kind_offset, where + (param.is_pointer() ? " is a pointer without a pointee type"
                                                               : " is a value with a pointee type"));
  return param;
}

// The wasm type a parameter of this kind and size is passed as, or nullopt.
std::optional<ValType> wasm_type_of(const KernelParam& param) {
  switch (param.kind) {
    case KernelParam::Kind::Pointer:
    case KernelParam::Kind::ConstPointer: return ValType::I32;
    case KernelParam::Kind::Image:
    case KernelParam::Kind::Sampler:
      if (param.size == 4) return ValType::I32;
      return std::nullopt;
    case KernelParam::Kind::Integer:
      if (param.size == 1 || param.size == 2 || param.size == 4) return ValType::I32;
      if (param.size == 8) return ValType::I64;
      return std::nullopt;
    case KernelParam::Kind::Float:
      if (param.size == 4) return ValType::F32;
      if (param.size == 8) return ValType::F64;
      return std::nullopt;
  }
  return std::nullopt;
}

Status check_against_signature(const Module& module, const KernelMetadata& record) {
  const std::string kernel = "kernel '" + record.kernel + "'";
  const Export* exported = nullptr;
  for (const Export& e : module.exports)
    if (e.name == record.kernel) exported = &e;
  if (!exported)
    return make_error(ErrorCode::Validation,
                      "parameter metadata for " + kernel + ": the module exports no such function");
  if (exported->kind != ExternalKind::Func)
    return make_error(ErrorCode::Validation, "parameter metadata for " + kernel + ": the export is a " +
                                                 to_string(exported->kind) + ", not a function");
  const FuncType& type = module.function_type(exported->index);
  if (type.params.size() != record.params.size())
    return make_error(ErrorCode::Validation,
                      "parameter metadata for " + kernel + " lists " + std::to_string(record.params.size()) +
                          " parameters, the wasm function takes " + std::to_string(type.params.size()));
  for (size_t i = 0; i < record.params.size(); ++i) {
    const KernelParam& param = record.params[i];
    std::optional<ValType> expected = wasm_type_of(param);
    if (expected == type.params[i]) continue;
    return make_error(ErrorCode::Validation,
                      "parameter metadata for " + kernel + ", parameter " + std::to_string(i) + " (" + describe(param) +
                          "): the wasm function takes " + to_string(type.params[i]) + " there" +
                          (expected ? std::string(", not ") + to_string(*expected) : std::string()));
  }
  return {};
}

}  // namespace

Result<std::vector<KernelMetadata>> parse_kernel_metadata(std::span<const uint8_t> contents) {
  MetadataReader r(contents);
  std::vector<KernelMetadata> records;
  while (!r.at_end()) {
    size_t version_offset = r.offset();
    WASMGPU_ASSIGN_OR_RETURN(uint8_t version, r.byte("a record's version"));
    if (version != kKernelMetadataVersion)
      return r.error_at(version_offset, "record version " + std::to_string(version) + " (this wasmgpu reads " +
                                            std::to_string(kKernelMetadataVersion) + ")");
    KernelMetadata record;
    size_t name_offset = r.offset();
    WASMGPU_ASSIGN_OR_RETURN(record.kernel, r.string("a kernel name"));
    if (record.kernel.empty()) return r.error_at(name_offset, "a record without a kernel name");
    WASMGPU_ASSIGN_OR_RETURN(uint8_t count, r.byte("the parameter count of kernel '" + record.kernel + "'"));
    for (size_t i = 0; i < count; ++i) {
      WASMGPU_ASSIGN_OR_RETURN(KernelParam param, read_param(r, record.kernel, i));
      record.params.push_back(std::move(param));
    }
    records.push_back(std::move(record));
  }
  return records;
}

Result<std::vector<KernelMetadata>> read_kernel_metadata(const Module& module) {
  std::vector<KernelMetadata> records;
  for (const CustomSection& section : module.custom_sections) {
    if (section.name != kKernelMetadataSection) continue;
    WASMGPU_ASSIGN_OR_RETURN(std::vector<KernelMetadata> parsed, parse_kernel_metadata(section.bytes));
    for (KernelMetadata& record : parsed) records.push_back(std::move(record));
  }
  std::set<std::string> seen;
  for (const KernelMetadata& record : records) {
    if (!seen.insert(record.kernel).second)
      return make_error(ErrorCode::Validation, "parameter metadata for kernel '" + record.kernel + "' appears twice");
    WASMGPU_TRY(check_against_signature(module, record));
  }
  return records;
}

std::string describe(const KernelParam& param) {
  std::string text = param.type + " " + param.name;
  if (param.is_pointer())
    text += " (" + param.pointee + ": " + std::to_string(param.size) + " bytes, align " +
            std::to_string(param.alignment) + ")";
  return text;
}

}  // namespace wasmgpu::wasm
