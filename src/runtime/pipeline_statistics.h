// What the driver reports about a compute pipeline it compiled (registers,
// instructions, spills: whatever VK_KHR_pipeline_executable_properties gives
// on that driver). A diagnostic for comparing a wasm kernel's code with a
// hand-written twin's on the same device: with WASMGPU_PIPELINE_STATISTICS=1
// in the environment, devices whose driver offers the extension enable it,
// and every compute pipeline the runtime (and `wasmgpu bench`) creates prints
// its statistics to stderr. Off by default: capturing costs compile time.
// WASMGPU_PIPELINE_IR=DIR also writes the driver's internal representations
// of each pipeline as text files into DIR, named after the pipeline and the
// representation, where the driver gives any (NVIDIA's 580 driver, measured
// on the H200, reports none).
#pragma once

#include <string>
#include <string_view>

#include "runtime/device_state.h"

namespace wasmgpu::runtime {

// Whether WASMGPU_PIPELINE_STATISTICS (or WASMGPU_PIPELINE_IR) asks for statistics.
bool pipeline_statistics_requested();

// The pipeline-creation flag to pass when `device` captures statistics (0 otherwise).
VkPipelineCreateFlags pipeline_statistics_flags(const DeviceState& device);

// Prints "pipeline statistics (label): name=value, ..." for every executable
// of `pipeline` to stderr, when `device` captures statistics.
void print_pipeline_statistics(const DeviceState& device, VkPipeline pipeline, std::string_view label);

}  // namespace wasmgpu::runtime
