// The wasmgpu host API: everything in one include.
//
//   #include <wasmgpu/wasmgpu.hpp>
//
//   wasmgpu::Device device = wasmgpu::Device::open();
//   wasmgpu::Module module = device.load_file("saxpy.wasm");
//   wasmgpu::Kernel saxpy = module.kernel("saxpy");
//   auto x = device.upload(std::span<const float>(xs));
//   auto y = device.upload(std::span<const float>(ys));
//   saxpy(n, 2.0f, x, y);
//   std::vector<float> result = y.read();
//
// docs/host-api.md walks through devices, buffers, launches and command
// buffers, each next to the Vulkan code it replaces.
#pragma once

#include "wasmgpu/argument.hpp"
#include "wasmgpu/buffer.hpp"
#include "wasmgpu/call.hpp"
#include "wasmgpu/command_buffer.hpp"
#include "wasmgpu/device.hpp"
#include "wasmgpu/error.hpp"
#include "wasmgpu/image.hpp"
#include "wasmgpu/interface.hpp"
#include "wasmgpu/launch.hpp"
#include "wasmgpu/module.hpp"
#include "wasmgpu/selftest.hpp"
