// A build without the cpu device (WASMGPU_CPU off, no LLVM 19): "cpu" names
// no device.
#include "device/device_platform.h"

namespace wasmgpu::device {

DevicePlatform* cpu_platform() { return nullptr; }

}  // namespace wasmgpu::device
