// A kernel ready to launch on one device: a compiled wasm export or a
// foreign SPIR-V entry point.
#pragma once

#include <memory>
#include <span>

#include "device/backend_recorded_launch.h"
#include "device/launch_args.h"
#include "support/result.h"

namespace wasmgpu::device {

class BackendCommandList;

class BackendKernel {
 public:
  virtual ~BackendKernel() = default;
  // The device's checks of a launch (shape limits, compiling the pipeline)
  // without recording it.
  virtual Status check(const LaunchShape& shape, std::span<const BackendArg> args) = 0;
  // Records the launch into `list` (of the same device, between begin() and
  // end()); the arguments' objects must outlive its execution.
  virtual Result<std::unique_ptr<BackendRecordedLaunch>> record(BackendCommandList& list, const LaunchShape& shape,
                                                                std::span<const BackendArg> args) = 0;
  // Whether launches read or write the module's own state (its linear
  // memory, mutable globals): launches of one module then depend on each
  // other.
  virtual bool uses_module_state() const = 0;
};

}  // namespace wasmgpu::device
