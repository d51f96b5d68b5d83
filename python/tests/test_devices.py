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
