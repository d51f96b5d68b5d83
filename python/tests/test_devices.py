import numpy as np
import pytest

import wasmgpu


def test_devices_lists_the_default_device(device):
    listed = wasmgpu.devices()
    assert listed, "no Vulkan device listed"
    assert [d.index for d in listed] == list(range(len(listed)))
    if device.info.name != "cpu":
        assert device.info.name in [d.name for d in listed]


def test_device_by_index_and_by_name(device):
    first = wasmgpu.devices()[0]
    if not first.usable:
        pytest.skip(f"device 0 cannot run kernels: {first.unusable_reason}")
    assert wasmgpu.Device(0).info.name == first.name
    assert wasmgpu.Device(first.name[:6]).info.name.startswith(first.name[:6])


def test_unknown_device_name_is_an_error():
    with pytest.raises(wasmgpu.Error) as error:
        wasmgpu.Device("no such device anywhere")
    assert error.value.kind == "not found"
    assert "no such device anywhere" in str(error.value)


def test_cpu_device_runs_the_same_kernel(kernel_dir):
    try:
        cpu = wasmgpu.Device("cpu")
    except wasmgpu.Error as error:
        pytest.skip(f"no cpu device in this build: {error}")
    assert cpu.info.name == "cpu"
    saxpy = cpu.load(kernel_dir / "saxpy.wasm").kernel("saxpy")
    x = np.arange(100, dtype=np.float32) / np.float32(3)
    y = np.ones(100, dtype=np.float32)
    want = np.float32(2.5) * x + y
    saxpy(100, 2.5, x, y)
    np.testing.assert_array_equal(y, want)


def test_launch_shapes():
    grid = wasmgpu.Launch.grid((4, 2, 1), (64, 1, 1))
    assert grid.groups == [4, 2, 1] and grid.workgroup_size == [64, 1, 1]
    assert wasmgpu.Launch.invocations(100, 32).n == 100
