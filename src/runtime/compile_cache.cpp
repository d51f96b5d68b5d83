#include "runtime/compile_cache.h"

#include <spirv-tools/libspirv.h>

#include <chrono>
#include <cstring>
#include <limits>
#include <type_traits>

#include "runtime/cache.h"

namespace wasmgpu::runtime {

// Generated at build time (cmake/CodegenFingerprint.cmake):
// "PROJECT_VERSION+<SHA-256 over the compiler's sources>".
const char* generated_codegen_fingerprint();

namespace {

// ---------------------------------------------------------------- field lists
//
// One function per struct lists its fields for both directions (Writer and
// Reader below) and for the key. Each takes the struct apart with a
// structured binding, which must name every member: a member added to the
// struct stops the build here until it is listed, so no field can be left out
// of an entry or of the key.

template <class V, class T>
void visit_fields(V& v, T& o)
  requires std::is_same_v<std::remove_const_t<T>, spirv::CompileOptions>
{
  auto& [validate, max_call_depth, float_mode, subgroup_vote, loop_exit_breaks, f64_subnormals_native, inline_budget,
         trap_sites] = o;
  v(validate), v(max_call_depth), v(float_mode), v(subgroup_vote), v(loop_exit_breaks), v(f64_subnormals_native);
  v(inline_budget), v(trap_sites);
}

template <class V, class T>
void visit_fields(V& v, T& o)
  requires std::is_same_v<std::remove_const_t<T>, spirv::AccessPathCounts>
{
  auto& [direct, bounds_checked, translated, parameter, parameter_unaligned, indexed, indexed_unaligned, grouped, wide,
         wide_when_aligned, proven_shared] = o;
  v(direct), v(bounds_checked), v(translated), v(parameter), v(parameter_unaligned), v(indexed), v(indexed_unaligned),
      v(grouped), v(wide), v(wide_when_aligned), v(proven_shared);
}

template <class V, class T>
void visit_fields(V& v, T& o)
  requires std::is_same_v<std::remove_const_t<T>, abi::ProofNode>
{
  auto& [op, a, b, c, value] = o;
  v(op), v(a), v(b), v(c), v(value);
}

template <class V, class T>
void visit_fields(V& v, T& o)
  requires std::is_same_v<std::remove_const_t<T>, abi::ProofConstraint>
{
  auto& [var, add, relation, bound] = o;
  v(var), v(add), v(relation), v(bound);
}

template <class V, class T>
void visit_fields(V& v, T& o)
  requires std::is_same_v<std::remove_const_t<T>, abi::ProofAccess>
{
  auto& [param, address, lo, hi, constraints, align] = o;
  v(param), v(address), v(lo), v(hi), v(constraints), v(align);
}

template <class V, class T>
void visit_fields(V& v, T& o)
  requires std::is_same_v<std::remove_const_t<T>, abi::LaunchProof>
{
  auto& [nodes, constraints, accesses] = o;
  v(nodes), v(constraints), v(accesses);
}

template <class V, class T>
void visit_fields(V& v, T& o)
  requires std::is_same_v<std::remove_const_t<T>, spirv::KernelInfo>
{
  auto& [export_name, function_index, params, memory_bytes, stack_hi, stack_window_lo, stack_slot_size, uses_float64,
         uses_int8_storage, shared_memory_bytes, uses_barriers, uses_images, uses_int64, float64_function,
         uses_instance_state, float_mode, call_stack_bytes, compiled_functions, inlined_instructions,
         instructions_after_inlining, inlined_blocks, blocks_after_inlining, functions_kept_out_of_line,
         memory_access_paths, launch_proof] = o;
  v(export_name), v(function_index), v(params), v(memory_bytes), v(stack_hi), v(stack_window_lo);
  v(stack_slot_size), v(uses_float64), v(uses_int8_storage), v(shared_memory_bytes), v(uses_barriers);
  v(uses_images), v(uses_int64), v(float64_function), v(uses_instance_state), v(float_mode), v(call_stack_bytes);
  v(compiled_functions), v(inlined_instructions), v(instructions_after_inlining), v(inlined_blocks);
  v(blocks_after_inlining), v(functions_kept_out_of_line);
  v(memory_access_paths), v(launch_proof);
}

template <class V, class T>
void visit_fields(V& v, T& o)
  requires std::is_same_v<std::remove_const_t<T>, spirv::CallInfo>
{
  auto& [export_name, function_index, params, results, has_side_effects] = o;
  v(export_name), v(function_index), v(params), v(results), v(has_side_effects);
}

template <class V, class T>
void visit_fields(V& v, T& o)
  requires std::is_same_v<std::remove_const_t<T>, spirv::CompiledKernel>
{
  auto& [words, info] = o;
  v(words), v(info);
}

template <class V, class T>
void visit_fields(V& v, T& o)
  requires std::is_same_v<std::remove_const_t<T>, spirv::CompiledCalls>
{
  auto& [words, info, calls, call_record_size, result_record_size] = o;
  v(words), v(info), v(calls), v(call_record_size), v(result_record_size);
}

template <class V, class T>
void visit_fields(V& v, T& o)
  requires std::is_same_v<std::remove_const_t<T>, CallCatalogueData>
{
  auto& [calls, refused] = o;
  v(calls), v(refused);
}

template <class T>
struct is_vector : std::false_type {};
template <class T>
struct is_vector<std::vector<T>> : std::true_type {};
template <class T>
struct is_pair : std::false_type {};
template <class A, class B>
struct is_pair<std::pair<A, B>> : std::true_type {};

// Enum values a payload may hold.
bool valid(wasm::ValType t) {
  switch (t) {
    case wasm::ValType::I32:
    case wasm::ValType::I64:
    case wasm::ValType::F32:
    case wasm::ValType::F64:
    case wasm::ValType::V128:
    case wasm::ValType::FuncRef:
    case wasm::ValType::ExternRef: return true;
  }
  return false;
}
bool valid(spirv::FloatMode m) { return m == spirv::FloatMode::Exact || m == spirv::FloatMode::Fast; }
bool valid(abi::ProofNode::Op op) { return op <= abi::ProofNode::Op::RemU; }
bool valid(abi::ProofConstraint::Relation r) { return r <= abi::ProofConstraint::Relation::NotEqual; }

// Little-endian, fixed-width integers; strings and vectors as a u64 count
// and their elements; bools one byte (0 or 1); enums as u32.
class Writer {
 public:
  template <class T>
  void operator()(const T& value) {
    if constexpr (std::is_same_v<T, bool>) {
      bytes.push_back(value ? 1 : 0);
    } else if constexpr (std::is_enum_v<T>) {
      static_assert(sizeof(T) <= 4);
      put(uint32_t(value), 4);
    } else if constexpr (std::is_integral_v<T>) {
      static_assert(sizeof(T) <= 8);
      put(uint64_t(value), sizeof(T));
    } else if constexpr (std::is_same_v<T, std::string>) {
      put(value.size(), 8);
      bytes.insert(bytes.end(), value.begin(), value.end());
    } else if constexpr (is_vector<T>::value) {
      put(value.size(), 8);
      for (const auto& element : value) (*this)(element);
    } else if constexpr (is_pair<T>::value) {
      (*this)(value.first), (*this)(value.second);
    } else {
      visit_fields(*this, value);
    }
  }
  std::vector<uint8_t> bytes;

 private:
  void put(uint64_t v, size_t size) {
    for (size_t i = 0; i < size; ++i) bytes.push_back(uint8_t(v >> (8 * i)));
  }
};

class Reader {
 public:
  explicit Reader(std::span<const uint8_t> bytes) : bytes_(bytes) {}

  template <class T>
  void operator()(T& value) {
    if (!ok) return;
    if constexpr (std::is_same_v<T, bool>) {
      const uint64_t b = get(1);
      if (b > 1) ok = false;
      value = b == 1;
    } else if constexpr (std::is_enum_v<T>) {
      const uint64_t raw = get(4);
      value = T(raw);
      if (raw > uint64_t(std::numeric_limits<std::underlying_type_t<T>>::max()) || !valid(value)) ok = false;
    } else if constexpr (std::is_integral_v<T>) {
      value = T(get(sizeof(T)));
    } else if constexpr (std::is_same_v<T, std::string>) {
      const uint64_t size = get(8);
      if (!ok || size > remaining()) {
        ok = false;
        return;
      }
      value.assign(reinterpret_cast<const char*>(bytes_.data() + at_), size);
      at_ += size;
    } else if constexpr (is_vector<T>::value) {
      const uint64_t size = get(8);
      // Every element takes at least one byte: a count beyond what is left is
      // corrupt (and must not reserve gigabytes).
      if (!ok || size > remaining()) {
        ok = false;
        return;
      }
      value.clear();
      value.resize(size);
      for (auto& element : value) (*this)(element);
    } else if constexpr (is_pair<T>::value) {
      (*this)(value.first), (*this)(value.second);
    } else {
      visit_fields(*this, value);
    }
  }

  bool finished() const { return ok && at_ == bytes_.size(); }
  bool ok = true;

 private:
  uint64_t remaining() const { return bytes_.size() - at_; }
  uint64_t get(size_t size) {
    if (remaining() < size) {
      ok = false;
      return 0;
    }
    uint64_t v = 0;
    for (size_t i = 0; i < size; ++i) v |= uint64_t(bytes_[at_ + i]) << (8 * i);
    at_ += size;
    return v;
  }

  std::span<const uint8_t> bytes_;
  size_t at_ = 0;
};

template <class T>
std::vector<uint8_t> encode(const T& value) {
  Writer writer;
  writer(value);
  return std::move(writer.bytes);
}

template <class T>
std::optional<T> decode(std::span<const uint8_t> payload) {
  T value{};
  Reader reader(payload);
  reader(value);
  if (!reader.finished()) return std::nullopt;
  return value;
}

constexpr uint32_t kSpirvMagic = 0x07230203;

// Adds the wall time of its scope to `seconds`.
class Timer {
 public:
  explicit Timer(double& seconds) : seconds_(seconds), start_(std::chrono::steady_clock::now()) {}
  ~Timer() { seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }

 private:
  double& seconds_;
  std::chrono::steady_clock::time_point start_;
};

bool plausible_spirv(const std::vector<uint32_t>& words) { return words.size() >= 5 && words[0] == kSpirvMagic; }

const char* kind_name(CacheEntryKind kind) {
  switch (kind) {
    case CacheEntryKind::CompiledKernel: return "kernel";
    case CacheEntryKind::CompiledCalls: return "calls";
    case CacheEntryKind::CallCatalogue: return "catalogue";
    case CacheEntryKind::PipelineCache: return "pipelines";
    case CacheEntryKind::DeviceProbe: return "probe";
    case CacheEntryKind::ApiEntry: return "api";
    case CacheEntryKind::NativeCode: return "native";
  }
  return "?";
}

// Entries live in <cache>/spirv/<key>.bin.
constexpr std::string_view kFolder = "spirv";

}  // namespace

const std::string& compiler_fingerprint() {
  static const std::string fingerprint = std::string(generated_codegen_fingerprint()) + "+f" +
                                         std::to_string(kCompileCacheFormat) + "+" + spvSoftwareVersionDetailsString();
  return fingerprint;
}

std::vector<uint8_t> compile_options_key_bytes(const spirv::CompileOptions& options) { return encode(options); }

Sha256Digest compile_cache_key(CacheEntryKind kind, const Sha256Digest& wasm_sha256,
                               const spirv::CompileOptions& options, std::span<const std::string> names) {
  // Each part is length-prefixed (Writer), so no two different inputs give
  // the same byte stream.
  Writer key;
  key(std::string("wasmgpu compiled SPIR-V"));
  key(compiler_fingerprint());
  key(std::string(kind_name(kind)));
  key(std::vector<uint8_t>(wasm_sha256.begin(), wasm_sha256.end()));
  key(options);
  key(std::vector<std::string>(names.begin(), names.end()));
  return sha256(key.bytes);
}

std::vector<uint8_t> serialize(const spirv::CompiledKernel& kernel) { return encode(kernel); }
std::vector<uint8_t> serialize(const spirv::CompiledCalls& calls) { return encode(calls); }
std::vector<uint8_t> serialize(const CallCatalogueData& catalogue) { return encode(catalogue); }

std::optional<spirv::CompiledKernel> deserialize_kernel(std::span<const uint8_t> payload) {
  auto kernel = decode<spirv::CompiledKernel>(payload);
  if (kernel && !plausible_spirv(kernel->words)) return std::nullopt;
  return kernel;
}

std::optional<spirv::CompiledCalls> deserialize_calls(std::span<const uint8_t> payload) {
  auto calls = decode<spirv::CompiledCalls>(payload);
  if (calls && !plausible_spirv(calls->words)) return std::nullopt;
  return calls;
}

std::optional<CallCatalogueData> deserialize_catalogue(std::span<const uint8_t> payload) {
  return decode<CallCatalogueData>(payload);
}

// -------------------------------------------------------------- CompileCache

std::optional<std::vector<uint8_t>> CompileCache::lookup(CacheEntryKind kind, const Sha256Digest& key) {
  DiskCache::ReadResult read = disk_->read(kFolder, to_hex(key) + ".bin", kind, key);
  if (read.status == DiskCache::ReadStatus::Hit) return std::move(read.payload);
  ++stats_->spirv_cache_misses;
  if (read.status == DiskCache::ReadStatus::Corrupt) ++stats_->spirv_cache_corrupt;
  return std::nullopt;
}

void CompileCache::store(CacheEntryKind kind, const Sha256Digest& key, std::span<const uint8_t> payload) {
  Status written = disk_->write(kFolder, to_hex(key) + ".bin", kind, key, payload);
  if (written.ok()) {
    ++stats_->spirv_cache_writes;
  } else {
    ++stats_->cache_write_failures;
    stats_->last_write_failure = written.error().to_string();
  }
}

Result<spirv::CompiledKernel> CompileCache::kernel(const wasm::Module& module, const Sha256Digest& wasm_sha256,
                                                   std::string_view export_name, const spirv::CompileOptions& options) {
  const std::string name(export_name);
  std::optional<Sha256Digest> key;
  if (disk_) {
    Timer timer(stats_->spirv_cache_read_seconds);
    key =
        compile_cache_key(CacheEntryKind::CompiledKernel, wasm_sha256, options, std::span<const std::string>(&name, 1));
    if (auto payload = lookup(CacheEntryKind::CompiledKernel, *key)) {
      // A payload with a valid checksum that does not decode was written by
      // a different build with the same fingerprint: treat it as corrupt.
      if (auto kernel = deserialize_kernel(*payload)) {
        ++stats_->spirv_cache_hits;
        return std::move(*kernel);
      }
      ++stats_->spirv_cache_misses, ++stats_->spirv_cache_corrupt;
    }
  }
  ++stats_->spirv_compiles;
  Result<spirv::CompiledKernel> result = [&] {
    Timer timer(stats_->spirv_compile_seconds);
    return with_default_code(spirv::compile_kernel(module, export_name, options), ErrorCode::Compile);
  }();
  if (!result.ok()) return result.take_error();
  spirv::CompiledKernel compiled = std::move(result).value();
  if (key) store(CacheEntryKind::CompiledKernel, *key, serialize(compiled));
  return compiled;
}

Result<spirv::CompiledCalls> CompileCache::calls(const wasm::Module& module, const Sha256Digest& wasm_sha256,
                                                 std::span<const std::string> exports,
                                                 const spirv::CompileOptions& options) {
  std::optional<Sha256Digest> key;
  if (disk_) {
    Timer timer(stats_->spirv_cache_read_seconds);
    key = compile_cache_key(CacheEntryKind::CompiledCalls, wasm_sha256, options, exports);
    if (auto payload = lookup(CacheEntryKind::CompiledCalls, *key)) {
      if (auto calls = deserialize_calls(*payload)) {
        ++stats_->spirv_cache_hits;
        return std::move(*calls);
      }
      ++stats_->spirv_cache_misses, ++stats_->spirv_cache_corrupt;
    }
  }
  WASMGPU_ASSIGN_OR_RETURN(spirv::CompiledCalls compiled, compile_calls_uncached(module, exports, options));
  if (key) store(CacheEntryKind::CompiledCalls, *key, serialize(compiled));
  return compiled;
}

Result<spirv::CompiledCalls> CompileCache::compile_calls_uncached(const wasm::Module& module,
                                                                  std::span<const std::string> exports,
                                                                  const spirv::CompileOptions& options) {
  ++stats_->spirv_compiles;
  Timer timer(stats_->spirv_compile_seconds);
  return with_default_code(spirv::compile_calls(module, exports, options), ErrorCode::Compile);
}

std::optional<CallCatalogueData> CompileCache::find_catalogue(const Sha256Digest& wasm_sha256,
                                                              const spirv::CompileOptions& options) {
  if (!disk_) return std::nullopt;
  Timer timer(stats_->spirv_cache_read_seconds);
  const Sha256Digest key = compile_cache_key(CacheEntryKind::CallCatalogue, wasm_sha256, options, {});
  auto payload = lookup(CacheEntryKind::CallCatalogue, key);
  if (!payload) return std::nullopt;
  auto catalogue = deserialize_catalogue(*payload);
  if (!catalogue) {
    ++stats_->spirv_cache_misses, ++stats_->spirv_cache_corrupt;
    return std::nullopt;
  }
  ++stats_->spirv_cache_hits;
  return catalogue;
}

void CompileCache::store_catalogue(const Sha256Digest& wasm_sha256, const spirv::CompileOptions& options,
                                   const CallCatalogueData& catalogue) {
  if (!disk_) return;
  store(CacheEntryKind::CallCatalogue, compile_cache_key(CacheEntryKind::CallCatalogue, wasm_sha256, options, {}),
        serialize(catalogue));
}

}  // namespace wasmgpu::runtime
