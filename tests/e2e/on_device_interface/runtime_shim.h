// The e2e suite over the device interface (src/device/) instead of the
// Vulkan runtime, for e2e_device_tests: the few runtime types the tests use
// (Instance, Device, Module, Kernel, Buffer, Arg, Grid, WorkgroupSize), with
// the same calls and the same trap messages, on the device WASMGPU_DEVICE
// names ("cpu": the cpu device; otherwise the default Vulkan device through
// its device-interface backend). The tests themselves are not changed.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "device/device_backend.h"
#include "device/device_platform.h"
#include "runtime/grid.h"
#include "spirv/compiler.h"
#include "support/result.h"
#include "wasm/kernel_metadata.h"

// In wasmgpu::e2e, where the tests are, `runtime::` names these, not the
// Vulkan runtime's types (linked into the same binary for the Vulkan device).
namespace wasmgpu::e2e::runtime {

using wasmgpu::runtime::Grid;
using wasmgpu::runtime::WorkgroupSize;

class Instance {
 public:
  static Result<Instance> create() { return Instance(); }
  // The device interface's devices report no validation messages here.
  std::vector<std::string> validation_messages() const { return {}; }
};

class Buffer {
 public:
  explicit Buffer(std::unique_ptr<device::BackendBuffer> buffer) : buffer_(std::move(buffer)) {}
  uint64_t size() const { return buffer_->size(); }
  std::optional<uint32_t> wasm_address() const;
  Status write(const void* data, uint64_t size, uint64_t offset = 0) { return buffer_->write(data, size, offset); }
  template <class T>
  Status write(std::span<const T> values, uint64_t offset = 0) {
    return write(values.data(), values.size_bytes(), offset);
  }
  template <class T>
  Status write(const std::vector<T>& values, uint64_t offset = 0) {
    return write(std::span<const T>(values), offset);
  }
  Status fill(uint32_t pattern) { return buffer_->fill(pattern); }
  template <class T>
  Result<std::vector<T>> read_as(size_t count, uint64_t offset = 0) const {
    std::vector<T> out(count);
    WASMGPU_TRY(buffer_->read(out.data(), count * sizeof(T), offset));
    return out;
  }
  device::BackendBuffer* backend() const { return buffer_.get(); }

 private:
  std::unique_ptr<device::BackendBuffer> buffer_;
};

class Arg {
 public:
  template <std::integral T>
    requires(!std::same_as<T, bool>)
  Arg(T value) {
    arg_.scalar = sizeof(T) <= 4 ? ScalarType::I32 : ScalarType::I64;
    arg_.bits = sizeof(T) <= 4 ? uint64_t(uint32_t(value)) : uint64_t(value);
  }
  Arg(float value) {
    uint32_t bits;
    std::memcpy(&bits, &value, 4);
    arg_.scalar = ScalarType::F32;
    arg_.bits = bits;
  }
  Arg(double value) {
    arg_.scalar = ScalarType::F64;
    std::memcpy(&arg_.bits, &value, 8);
  }
  Arg(const Buffer& buffer) {
    arg_.kind = device::BackendArg::Kind::Buffer;
    arg_.buffer = buffer.backend();
  }
  const device::BackendArg& backend() const { return arg_; }

 private:
  device::BackendArg arg_;
};

class Kernel {
 public:
  Kernel(device::DeviceBackend& device, device::BackendKernel& kernel, std::string name)
      : device_(device), kernel_(kernel), name_(std::move(name)) {}
  Status launch(uint32_t n, uint32_t workgroup_size, std::span<const Arg> args);
  Status launch(uint32_t n, uint32_t workgroup_size, std::initializer_list<Arg> args) {
    return launch(n, workgroup_size, std::span<const Arg>(args.begin(), args.size()));
  }
  Status launch(Grid grid, WorkgroupSize workgroup_size, std::span<const Arg> args);
  Status launch(Grid grid, WorkgroupSize workgroup_size, std::initializer_list<Arg> args) {
    return launch(grid, workgroup_size, std::span<const Arg>(args.begin(), args.size()));
  }

 private:
  Status run(const device::LaunchShape& shape, std::span<const Arg> args);
  device::DeviceBackend& device_;
  device::BackendKernel& kernel_;
  std::string name_;
};

class Device {
 public:
  // The device WASMGPU_DEVICE names.
  static Result<Device> create(Instance& instance);
  Result<Buffer> create_buffer(uint64_t size) {
    WASMGPU_ASSIGN_OR_RETURN(std::unique_ptr<device::BackendBuffer> buffer, backend_->create_buffer(size));
    return Buffer(std::move(buffer));
  }
  device::DeviceBackend& backend() { return *backend_; }

 private:
  explicit Device(std::unique_ptr<device::DeviceBackend> backend) : backend_(std::move(backend)) {}
  std::unique_ptr<device::DeviceBackend> backend_;
};

class Module {
 public:
  static Result<Module> load(Device& device, std::span<const uint8_t> bytes, const spirv::CompileOptions& options = {});
  Result<Kernel*> kernel(std::string_view name);
  std::span<const wasm::KernelMetadata> kernel_metadata() const { return module_->kernel_metadata(); }

 private:
  Module(Device& device, std::unique_ptr<device::BackendModule> module)
      : device_(&device), module_(std::move(module)) {}
  Device* device_;
  std::unique_ptr<device::BackendModule> module_;
  std::map<std::string, std::unique_ptr<Kernel>, std::less<>> kernels_;
};

}  // namespace wasmgpu::e2e::runtime
