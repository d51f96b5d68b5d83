// The host CPU's feature flags, as text. Lavapipe generates machine code for
// the host CPU, so what it computes can change with the CPU while the device's
// name and driver version stay the same: results measured on a device
// (device_probe_cache.h) are keyed by this too.
#pragma once

#include <string>

namespace wasmgpu::runtime {

// The machine (uname) and the feature flags of the first processor in
// /proc/cpuinfo ("x86_64: fpu vme ... avx2"; the `Features` line on Arm),
// read once per process. "unknown" parts where they cannot be read.
const std::string& host_cpu_features();

}  // namespace wasmgpu::runtime
