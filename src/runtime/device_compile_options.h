// The compile options a kernel gets on a device: what the caller asked for,
// less what the device cannot do or was found doing wrong, and with the code
// shapes its driver was measured to run faster (docs/performance.md).
#pragma once

#include "runtime/device_info.h"
#include "runtime/device_probe_cache.h"
#include "spirv/compiler.h"

namespace wasmgpu::runtime {

// - subgroup_vote: cleared where the device has no subgroup votes.
// - loop_exit_breaks: cleared for NVIDIA's proprietary driver, which ran a
//   loop left early through a break with one register copy more per trip
//   than through the `pending` variable (mandelbrot 0.90 of its GLSL twin
//   against 0.95 on the H200); Mesa's llvmpipe ran it at 1.14 against 0.70.
// - f64_subnormals_native: kept only where the device promises f64
//   subnormals (shaderDenormPreserveFloat64) or `probe` (the device probe's
//   cached results, device_probe_cache.h) saw them kept. Without either, f64
//   + - * take the checked path (docs/float-modes.md): correct whatever the
//   device does, at the cost of a compare per operation. A probe is never
//   run here; `wasmgpu selftest` writes the cache.
spirv::CompileOptions device_compile_options(const DeviceInfo& device, spirv::CompileOptions requested,
                                             const ProbeResults* probe = nullptr);

}  // namespace wasmgpu::runtime
