"""wasmgpu: run WebAssembly kernels on Vulkan devices from Python.

    import numpy as np, wasmgpu
    device = wasmgpu.Device()                  # WASMGPU_DEVICE, else a discrete GPU first
    saxpy = device.load("saxpy.wasm").kernel("saxpy")
    x = np.arange(1024, dtype=np.float32)
    y = np.ones(1024, dtype=np.float32)
    saxpy(1024, 2.0, x, y)                     # y is written back: y == 2 * x + 1

See python/README.md; the C++ API it binds is docs/host-api.md.
"""

from ._core import Buffer, Device, DeviceInfo, Error, Kernel, Launch, Module, TrapError, devices

__all__ = ["Buffer", "Device", "DeviceInfo", "Error", "Kernel", "Launch", "Module", "TrapError", "devices"]
