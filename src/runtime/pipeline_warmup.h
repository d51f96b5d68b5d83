// Internal: pipeline warm-ups, so that a launch's timeout counts the kernel's
// execution and not the driver's compile of its pipeline.
//
// Some drivers compile a compute pipeline's shader to machine code at its
// first dispatch rather than in vkCreateComputePipelines: lavapipe (llvmpipe)
// runs LLVM when the first vkCmdDispatch with the pipeline bound executes on
// its queue thread, also for a dispatch of zero workgroups. A launch that
// waited on its fence with the launch timeout then counted that compile, which
// takes seconds to minutes for a large kernel, and much longer on a loaded
// machine. So the first time a pipeline is used, a warm-up goes first: its own
// small submission binds the pipeline (with the descriptor sets and push
// constants the real dispatch uses, which the driver may compile for) and
// dispatches zero workgroups, so nothing runs, and it waits up to the compile
// timeout. A pipeline is warmed up once: the kernels keep their pipelines.
//
// Per driver: NVIDIA's driver compiles in vkCreateComputePipelines, so there
// a warm-up would only add an empty submission and is skipped. Other drivers
// get it: it costs one empty submission per pipeline, next to the milliseconds
// or more that creating the pipeline takes. WASMGPU_PIPELINE_WARMUP=1 or 0
// turns it on or off for every driver.
#pragma once

#include <volk.h>

#include <chrono>
#include <functional>
#include <string>
#include <string_view>

#include "runtime/device_info.h"
#include "support/result.h"

namespace wasmgpu::runtime {

struct DeviceState;

// How long a warm-up waits for the driver's compile: WASMGPU_COMPILE_TIMEOUT
// (seconds) when set to a positive number, else 1800 s. Read at every
// warm-up, which is rare next to the compile it bounds.
std::chrono::nanoseconds default_compile_timeout();
inline constexpr std::chrono::seconds kDefaultCompileTimeout{1800};

// Whether pipelines on this device are warmed up: WASMGPU_PIPELINE_WARMUP=1
// or 0, else every driver but NVIDIA's (read when the device is created).
bool pipeline_warmup_wanted(const DeviceInfo& info);

// "0.5 s", "20 s", "0.000001 s": a timeout as the error messages give it.
std::string format_seconds(std::chrono::nanoseconds duration);

// Warms `pipeline` up when the device warms pipelines up; a no-op otherwise.
// `bind` records what the real dispatch binds besides the pipeline (descriptor
// sets, push constants). Barriers before and after order the warm-up against
// other work, as a dispatch would be. When the compile timeout runs out, the
// warm-up stays pending on the device (DeviceState::ready refuses new work
// until it finishes, Device::wait waits for it) and the error says
// "compiling the pipeline took longer than N s". `kernel` names it: "kernel 'k'".
Status warm_up_pipeline(DeviceState& device, std::string_view kernel, VkPipeline pipeline,
                        const std::function<void(VkCommandBuffer)>& bind);

}  // namespace wasmgpu::runtime
