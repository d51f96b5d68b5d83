// The shape of a launch: how many invocations, in which workgroups.
//
//   kernel(n, ...)                                   // n invocations, 1-D, a size chosen for the device
//   kernel(Launch::invocations(n, 256), ...)         // workgroups of 256
//   kernel(Launch::grid({64, 64, 1}, {8, 8, 1}), ...) // 64x64 workgroups of 8x8
//
// A wasm kernel receives its invocation index as its first parameter: for a
// 1-D launch 0..n-1 (n need not be a multiple of the workgroup size), for a
// grid the linearised global id x + y * X + z * X * Y (X, Y: invocations per
// row and per plane). A SPIR-V kernel reads gl_GlobalInvocationID itself;
// invocations(n) launches ceil(n / workgroup size) workgroups of it.
#pragma once

#include <array>
#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>

#include "wasmgpu/error.hpp"

namespace wasmgpu {

struct Launch {
  // 1-D: invocations 0..n-1 (the kernel's own bounds check is not needed).
  uint32_t n = 0;
  // Invocations per workgroup; 0 in a dimension: the shader's own size there
  // (SPIR-V). A 1-D launch with 0 in x gets a size chosen for the device
  // (LaunchChoice below, docs/host-api.md "Launch shapes"); a grid with 0 in
  // x gets 64 there (less where the device allows less), 1 in y and z: its
  // invocation count depends on the size, so it is never chosen for it.
  std::array<uint32_t, 3> workgroup_size = {0, 0, 0};
  // Set for a grid: workgroups in x, y, z.
  std::optional<std::array<uint32_t, 3>> groups;

  // Implicit, so that kernel(n, args...) reads like a call.
  template <std::integral I>
    requires(!std::same_as<I, bool>)
  Launch(I invocations) : n(checked(invocations)) {}

  static Launch invocations(uint32_t n, uint32_t workgroup_size = 0) {
    Launch launch(n);
    launch.workgroup_size = {workgroup_size, 0, 0};
    return launch;
  }
  static Launch grid(std::array<uint32_t, 3> groups, std::array<uint32_t, 3> workgroup_size = {0, 0, 0}) {
    Launch launch(0u);
    launch.groups = groups;
    launch.workgroup_size = workgroup_size;
    return launch;
  }

 private:
  template <class I>
  static uint32_t checked(I value) {
    bool negative = false;
    if constexpr (std::is_signed_v<I>) negative = value < 0;
    if (negative || uint64_t(value) > 0xFFFF'FFFFull)
      throw Exception(ErrorKind::InvalidArgument,
                      "a launch of " + std::to_string(value) +
                          " invocations: the count must be between 0 and 4294967295");
    return uint32_t(value);
  }
};

// The workgroup size a 1-D launch gets, and why (Kernel::launch_shape).
struct LaunchChoice {
  enum class Source {
    User,       // the launch set it
    Kernel,     // the shader fixes it (SPIR-V LocalSize of constants)
    Heuristic,  // chosen from the device's vendor, type and limits
    Tuning,     // the autotuner times this size on this launch
    Tuned,      // the autotuner's winner for this kernel, device and size class
  };
  std::array<uint32_t, 3> workgroup_size = {0, 0, 0};
  Source source = Source::Heuristic;
  // Whether the kernel's results cannot depend on the workgroup size, so
  // that the autotuner may choose it; `reason` says why or why not.
  bool tunable = false;
  // One line: "256 (heuristic: discrete GPU of vendor 0x10de); not tuned:
  // calls wasmgpu.local_id".
  std::string reason;
};

// "user", "kernel", "heuristic", "tuning", "tuned"
const char* to_string(LaunchChoice::Source source);

}  // namespace wasmgpu
