# Typed stubs of the wasmgpu extension (wasmgpu._core), for editors and type checkers.
import os
from typing import Any, Sequence

import numpy as np
import numpy.typing as npt

class Error(RuntimeError):
    """Every failure of the C++ API (wasmgpu::Exception), with the same message."""

    kind: str  # "invalid argument", "buffer too small", "not found", "trap", ...

class TrapError(Error):
    """A kernel trapped (wasmgpu::TrapError)."""

    kernel: str
    trap: str  # "unreachable", "out of bounds memory access", "integer divide by zero", ...
    invocation: int  # the lowest trapping invocation index
    trapped_invocations: int
    launch_index: int
    reason: str  # a failed C assert's or abort()'s text ("assertion failed: ... at invocation 3"), else ""

class DeviceInfo:
    index: int
    name: str
    type: str  # "discrete GPU", "integrated GPU", "virtual GPU", "CPU", "other"
    driver: str
    api_version: str
    float64: bool
    int64: bool
    subgroup_size: int
    max_workgroup_invocations: int
    max_buffer_bytes: int
    unusable_reason: str
    @property
    def usable(self) -> bool: ...

def devices() -> list[DeviceInfo]:
    """The Vulkan devices, in enumeration order (usable or not)."""

class Launch:
    """A launch shape other than a plain invocation count."""

    n: int
    workgroup_size: list[int]  # 3 sizes; 0: the device's or the shader's choice
    groups: list[int] | None  # workgroups in x, y, z for a grid
    @staticmethod
    def invocations(n: int, workgroup_size: int = 0) -> Launch: ...
    @staticmethod
    def grid(groups: Sequence[int], workgroup_size: Sequence[int] = (0, 0, 0)) -> Launch: ...

class Buffer:
    """A device buffer of len(buffer) elements of dtype."""

    dtype: np.dtype[Any]
    @property
    def nbytes(self) -> int: ...
    def __len__(self) -> int: ...
    def read(self) -> npt.NDArray[Any]:
        """A new 1-D array holding the buffer's elements."""
    def write(self, data: Any, first: int = 0) -> None:
        """Writes an object with the buffer protocol (a NumPy array, bytes) at element `first`."""
    def __array__(self, dtype: Any = None, copy: Any = None) -> npt.NDArray[Any]: ...

class Kernel:
    @property
    def name(self) -> str: ...
    @property
    def params(self) -> list[dict[str, Any]]:
        """The parameters after the invocation index: name, kind, scalar, element_type, element_size, writable."""
    def __call__(self, launch: int | Launch, *args: Any, **kwargs: Any) -> None:
        """Runs the kernel over `launch` and waits. Arguments by position or all by name:
        int and float (converted to the parameter's width), NumPy scalars (their own type),
        NumPy arrays (uploaded; written back after the call unless the parameter is const),
        Buffers. Raises Error with the C++ API's message on a wrong count or type, TrapError on a trap."""

class Module:
    @property
    def kernel_names(self) -> list[str]: ...
    def kernel(self, name: str) -> Kernel: ...
    def __getitem__(self, name: str) -> Kernel: ...

class Device:
    def __init__(self, which: int | str | None = None) -> None:
        """None: WASMGPU_DEVICE, else the preferred device; an index of devices(); or part of a name ("cpu": the cpu device)."""
    @property
    def info(self) -> DeviceInfo: ...
    def load(
        self,
        source: str | os.PathLike[str] | bytes | bytearray | memoryview,
        float_mode: str = "exact",
        trap_sites: bool = False,
        heap_bytes: int | None = None,
    ) -> Module:
        """A wasm or SPIR-V module from a file path or from its bytes. float_mode: "exact" (wasm's
        bits on every device) or "fast" (the device's own float instructions; docs/float-modes.md).
        trap_sites: a trap names the function, module offset and access where it happened (as
        --trap-sites). heap_bytes: the device heap of a module whose kernels allocate (8 KiB to
        1 GiB; default WASMGPU_HEAP, else 8 MiB)."""
    def buffer(self, count: int, dtype: Any = np.float32) -> Buffer:
        """A zero-filled buffer of `count` elements."""
    def upload(self, data: Any) -> Buffer:
        """A buffer holding a copy of an array (or any object with the buffer protocol)."""
    def wait_idle(self) -> None: ...
