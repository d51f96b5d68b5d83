// Result<T>: the value of an operation that can fail for reasons outside the
// program's control (bad input, a device that says no). Internal bugs are
// assertions, not Results.
#pragma once

#include <cassert>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace wasmgpu {

// What kind of failure an Error is, set where the failure starts so that no
// caller has to read the message to learn it. The public API maps each code to
// a wasmgpu::ErrorKind (src/api/error.cpp).
enum class ErrorCode : uint8_t {
  Unspecified,      // not classified where it starts: the failing operation's own kind applies
  InvalidArgument,  // a caller's argument is wrong (count, type, size, launch shape)
  NotFound,         // no such device, export, kernel or property
  Unsupported,      // the device, the driver or this build cannot do what was asked
  Decode,           // the wasm binary is malformed
  Validation,       // the wasm module is well-formed but invalid
  Compile,          // the compiler rejected a valid module
  Trap,             // a kernel trapped
  Timeout,          // a wait ran out of time; the work may still be running
  DeviceLost,       // VK_ERROR_DEVICE_LOST, now or earlier: the device takes no more work
  Vulkan,           // any other failed Vulkan call (`vk_result` holds its VkResult)
  Io,               // a file could not be read or written
  Internal,         // wasmgpu produced something wrong (invalid SPIR-V)
};

// "invalid argument", "decode error", ...
const char* to_string(ErrorCode code);

// A failure with a human-readable reason. `offset` is the byte offset in the
// input the failure refers to, where there is one (decoder, validator).
struct Error {
  std::string message;
  std::optional<uint64_t> offset;
  ErrorCode code = ErrorCode::Unspecified;
  // The VkResult of the failed Vulkan call, where there is one (an int32_t so
  // that support/ does not depend on Vulkan).
  std::optional<int32_t> vk_result;

  // "at byte 0x1f: unexpected end" or just the message.
  std::string to_string() const;
};

// Every error names its code where it starts. ErrorCode::Unspecified, which
// leaves the kind to the failing operation, is for the rare origin that
// cannot know it (say why beside the call).
Error make_error(ErrorCode code, std::string message);
Error make_error_at(ErrorCode code, uint64_t offset, std::string message);

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::in_place_index<0>, std::move(value)) {}
  Result(Error error) : state_(std::in_place_index<1>, std::move(error)) {}

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & {
    assert(ok());
    return std::get<0>(state_);
  }
  const T& value() const& {
    assert(ok());
    return std::get<0>(state_);
  }
  T&& value() && {
    assert(ok());
    return std::get<0>(std::move(state_));
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Error& error() const {
    assert(!ok());
    return std::get<1>(state_);
  }
  Error take_error() {
    assert(!ok());
    return std::get<1>(std::move(state_));
  }

 private:
  std::variant<T, Error> state_;
};

// Success or an Error, for operations that produce nothing.
template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)) {}

  bool ok() const { return !error_.has_value(); }
  explicit operator bool() const { return ok(); }
  const Error& error() const {
    assert(!ok());
    return *error_;
  }
  Error take_error() {
    assert(!ok());
    return std::move(*error_);
  }

 private:
  std::optional<Error> error_;
};

using Status = Result<void>;

// `error` with `code` where its origin left it Unspecified: for the boundary
// of a stage whose every failure is of one kind (the decoder's are Decode).
inline Error with_default_code(Error error, ErrorCode code) {
  if (error.code == ErrorCode::Unspecified) error.code = code;
  return error;
}
template <class T>
Result<T> with_default_code(Result<T> result, ErrorCode code) {
  if (result.ok()) return result;
  return with_default_code(result.take_error(), code);
}

}  // namespace wasmgpu

// Propagates an error from an expression yielding a Result<...>.
#define WASMGPU_TRY(expr)                                                   \
  do {                                                                      \
    auto wasmgpu_try_result_ = (expr);                                      \
    if (!wasmgpu_try_result_.ok()) return wasmgpu_try_result_.take_error(); \
  } while (0)

#define WASMGPU_CONCAT_INNER_(a, b) a##b
#define WASMGPU_CONCAT_(a, b) WASMGPU_CONCAT_INNER_(a, b)
// Declares `lhs` from the value of a Result, or returns its error.
#define WASMGPU_ASSIGN_OR_RETURN(lhs, expr)                                                                       \
  auto WASMGPU_CONCAT_(wasmgpu_tmp_, __LINE__) = (expr);                                                          \
  if (!WASMGPU_CONCAT_(wasmgpu_tmp_, __LINE__).ok()) return WASMGPU_CONCAT_(wasmgpu_tmp_, __LINE__).take_error(); \
  lhs = std::move(WASMGPU_CONCAT_(wasmgpu_tmp_, __LINE__)).value()
