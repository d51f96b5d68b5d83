#include "device/fake/fake_device.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <functional>
#include <map>

#include "wasm/decoder.h"

namespace wasmgpu::device::fake {

FakeLog& fake_log() {
  static FakeLog log;
  return log;
}

namespace {

class FakeBuffer : public BackendBuffer {
 public:
  explicit FakeBuffer(uint64_t bytes) : bytes_(bytes) {}
  uint64_t size() const override { return bytes_.size(); }
  Status read(void* out, uint64_t bytes, uint64_t offset) const override {
    std::memcpy(out, bytes_.data() + offset, bytes);
    return {};
  }
  Status write(const void* data, uint64_t bytes, uint64_t offset) override {
    std::memcpy(bytes_.data() + offset, data, bytes);
    return {};
  }
  Status fill(uint32_t pattern) override {
    for (size_t i = 0; i + 4 <= bytes_.size(); i += 4) std::memcpy(bytes_.data() + i, &pattern, 4);
    return {};
  }
  std::vector<uint8_t>& bytes() { return bytes_; }

 private:
  std::vector<uint8_t> bytes_;
};

class FakeImage : public BackendImage {
 public:
  explicit FakeImage(const ImageDesc& desc) : desc_(desc), texels_(size_bytes()) {}
  const ImageDesc& desc() const override { return desc_; }
  uint32_t handle() const override { return 1; }
  Status write(const void* data, uint64_t bytes) override {
    std::memcpy(texels_.data(), data, bytes);
    return {};
  }
  Status read(void* out, uint64_t bytes) const override {
    std::memcpy(out, texels_.data(), bytes);
    return {};
  }

 private:
  ImageDesc desc_;
  std::vector<uint8_t> texels_;
};

class FakeSampler : public BackendSampler {
 public:
  uint32_t handle() const override { return 1; }
};

class FakeCommandList;

class FakeRecordedLaunch : public BackendRecordedLaunch {
 public:
  explicit FakeRecordedLaunch(FakeLaunch launch) : launch_(std::move(launch)) {}
  std::optional<TrapReport> trap() const override { return std::nullopt; }
  Result<bool> rebind(std::span<const BackendArg> args) override {
    for (size_t i = 0; i < args.size(); ++i) launch_.bits[i] = args[i].bits;
    return true;
  }
  const FakeLaunch& launch() const { return launch_; }

 private:
  FakeLaunch launch_;
};

// Copies and fills kept in order, done at submit; launches logged.
class FakeCommandList : public BackendCommandList {
 public:
  Status begin() override {
    steps_.clear();
    return {};
  }
  void barrier() override {}
  void copy(BackendBuffer& src, BackendBuffer& dst, uint64_t src_offset, uint64_t dst_offset, uint64_t bytes) override {
    steps_.push_back([&src, &dst, src_offset, dst_offset, bytes] {
      auto& from = static_cast<FakeBuffer&>(src).bytes();
      auto& to = static_cast<FakeBuffer&>(dst).bytes();
      std::memmove(to.data() + dst_offset, from.data() + src_offset, bytes);
    });
  }
  void fill(BackendBuffer& dst, uint32_t pattern) override {
    steps_.push_back([&dst, pattern] { (void)dst.fill(pattern); });
  }
  void launch(const FakeRecordedLaunch* recorded) {
    steps_.push_back([recorded] { fake_log().launches.push_back(recorded->launch()); });
  }
  Status end() override { return {}; }
  Status submit() override {
    ++fake_log().submits;
    for (const auto& step : steps_) step();
    return {};
  }
  Result<bool> wait(std::chrono::nanoseconds, std::string_view) override { return true; }

 private:
  std::vector<std::function<void()>> steps_;
};

class FakeKernel : public BackendKernel {
 public:
  explicit FakeKernel(std::string name) : name_(std::move(name)) {}
  Status check(const LaunchShape&, std::span<const BackendArg>) override { return {}; }
  Result<std::unique_ptr<BackendRecordedLaunch>> record(BackendCommandList& list, const LaunchShape& shape,
                                                        std::span<const BackendArg> args) override {
    FakeLaunch launch{name_, shape, {}, {}};
    for (const BackendArg& arg : args) {
      launch.kinds.push_back(arg.kind);
      launch.bits.push_back(arg.kind == BackendArg::Kind::Scalar ? arg.bits : 0);
    }
    auto recorded = std::make_unique<FakeRecordedLaunch>(std::move(launch));
    static_cast<FakeCommandList&>(list).launch(recorded.get());
    return std::unique_ptr<BackendRecordedLaunch>(std::move(recorded));
  }
  bool uses_module_state() const override { return false; }

 private:
  std::string name_;
};

class FakeModule : public BackendModule {
 public:
  FakeModule(wasm::Module module, std::vector<wasm::KernelMetadata> metadata)
      : module_(std::move(module)), metadata_(std::move(metadata)) {}
  const wasm::Module& wasm() const override { return module_; }
  std::span<const wasm::KernelMetadata> kernel_metadata() const override { return metadata_; }
  Result<BackendKernel*> kernel(std::string_view name) override {
    auto it = kernels_.find(name);
    if (it == kernels_.end())
      it = kernels_.emplace(std::string(name), std::make_unique<FakeKernel>(std::string(name))).first;
    return it->second.get();
  }

 private:
  wasm::Module module_;
  std::vector<wasm::KernelMetadata> metadata_;
  std::map<std::string, std::unique_ptr<FakeKernel>, std::less<>> kernels_;
};

DeviceDescription description(uint32_t index, std::string name, std::string unusable_reason) {
  DeviceDescription d;
  d.index = index;
  d.name = std::move(name);
  d.type = "other";
  d.driver = "fake";
  d.api_version = "0.0.0";
  d.max_buffer_bytes = 1 << 20;
  d.max_workgroup_invocations = 256;
  d.max_workgroup_size_x = 256;
  d.unusable_reason = std::move(unusable_reason);
  d.summary = std::to_string(index) + " " + d.name + " (fake)";
  return d;
}

}  // namespace

Result<std::unique_ptr<BackendBuffer>> FakeDevice::create_buffer(uint64_t bytes) {
  if (bytes > description_.max_buffer_bytes)
    return make_error(ErrorCode::Unsupported,
                      "a buffer of " + std::to_string(bytes) + " bytes is larger than the fake device allows");
  ++fake_log().buffers_created;
  return std::unique_ptr<BackendBuffer>(std::make_unique<FakeBuffer>(bytes));
}

Result<std::unique_ptr<BackendImage>> FakeDevice::create_image(const ImageDesc& desc) {
  if (desc.width == 0 || desc.height == 0 || desc.depth == 0)
    return make_error(ErrorCode::InvalidArgument, "sizes must be at least 1");
  return std::unique_ptr<BackendImage>(std::make_unique<FakeImage>(desc));
}

Result<std::unique_ptr<BackendSampler>> FakeDevice::create_sampler(const SamplerDesc&) {
  return std::unique_ptr<BackendSampler>(std::make_unique<FakeSampler>());
}

Result<std::unique_ptr<BackendModule>> FakeDevice::load_wasm(std::span<const uint8_t> bytes,
                                                             const spirv::CompileOptions&) {
  WASMGPU_ASSIGN_OR_RETURN(wasm::Module module, wasm::decode_and_validate(bytes));
  WASMGPU_ASSIGN_OR_RETURN(std::vector<wasm::KernelMetadata> metadata, wasm::read_kernel_metadata(module));
  return std::unique_ptr<BackendModule>(std::make_unique<FakeModule>(std::move(module), std::move(metadata)));
}

Result<std::unique_ptr<BackendKernel>> FakeDevice::create_spirv_kernel(std::span<const uint32_t>,
                                                                       const KernelInterface& interface) {
  return std::unique_ptr<BackendKernel>(std::make_unique<FakeKernel>(interface.name));
}

std::optional<std::vector<uint8_t>> FakeDevice::read_cached(std::string_view folder, const Sha256Digest& key) {
  auto it = fake_log().cache.find({std::string(folder), key});
  if (it == fake_log().cache.end()) return std::nullopt;
  return it->second;
}

void FakeDevice::write_cached(std::string_view folder, const Sha256Digest& key, std::span<const uint8_t> payload) {
  fake_log().cache[{std::string(folder), key}] = std::vector<uint8_t>(payload.begin(), payload.end());
}

Result<std::unique_ptr<BackendCommandList>> FakeDevice::create_command_list() {
  return std::unique_ptr<BackendCommandList>(std::make_unique<FakeCommandList>());
}

FakePlatform::FakePlatform() {
  devices_.push_back(description(0, "Fake GPU", ""));
  devices_.push_back(description(1, "Fake Display", "it only shows pictures"));
}

Result<uint32_t> FakePlatform::choose(const std::optional<std::string>& spec) {
  if (!spec) return 0u;
  auto lower = [](std::string text) {
    for (char& c : text) c = char(std::tolower(static_cast<unsigned char>(c)));
    return text;
  };
  for (const DeviceDescription& d : devices_)
    if (*spec == std::to_string(d.index) || lower(d.name).find(lower(*spec)) != std::string::npos) {
      if (!d.usable())
        return make_error(ErrorCode::Unsupported, "device " + d.summary + " is unusable: " + d.unusable_reason);
      return d.index;
    }
  return make_error(ErrorCode::NotFound, "no device matches '" + *spec + "'; " + describe_devices());
}

std::string FakePlatform::describe_devices() {
  std::string text = "devices:";
  for (const DeviceDescription& d : devices_) text += " " + d.summary + ";";
  return text;
}

Result<std::unique_ptr<DeviceBackend>> FakePlatform::open(const OpenOptions& options) {
  return std::unique_ptr<DeviceBackend>(std::make_unique<FakeDevice>(devices_.at(options.index)));
}

}  // namespace wasmgpu::device::fake

namespace wasmgpu::device {

DevicePlatform& default_platform() {
  static fake::FakePlatform platform;
  return platform;
}

DevicePlatform* cpu_platform() { return nullptr; }

}  // namespace wasmgpu::device
