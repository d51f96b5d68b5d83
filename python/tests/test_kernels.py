import re
from pathlib import Path

import numpy as np
import pytest

import wasmgpu


def test_saxpy_matches_numpy_and_writes_back(saxpy):
    n = 1000
    x = np.linspace(-3.0, 7.0, n, dtype=np.float32)
    y = np.arange(n, dtype=np.float32) * np.float32(0.25)
    want = np.float32(2.0) * x + y
    saxpy(n, 2.0, x, y)
    np.testing.assert_array_equal(y, want)  # wasm's float rounding is NumPy's, bit for bit


def test_const_arrays_are_not_written_back(saxpy):
    x = np.ones(16, dtype=np.float32)
    x_before = x.copy()
    x.flags.writeable = False  # x is a const pointer: a read-only array is fine
    y = np.zeros(16, dtype=np.float32)
    saxpy(16, 3.0, x, y)
    np.testing.assert_array_equal(x, x_before)
    np.testing.assert_array_equal(y, np.full(16, 3.0, dtype=np.float32))


def test_named_arguments_and_explicit_buffers(device, saxpy):
    x = device.upload(np.arange(8, dtype=np.float32))
    y = device.buffer(8, np.float32)
    assert len(y) == 8 and y.nbytes == 32 and y.dtype == np.float32
    saxpy(8, a=0.5, x=x, y=y)
    np.testing.assert_array_equal(y.read(), np.arange(8, dtype=np.float32) * np.float32(0.5))
    y.write(np.full(4, 10.0, dtype=np.float32), first=4)
    np.testing.assert_array_equal(np.asarray(y)[4:], np.full(4, 10.0, dtype=np.float32))


def test_modules_load_from_bytes(device, kernel_dir):
    module = device.load((kernel_dir / "saxpy.wasm").read_bytes())
    assert module.kernel_names == ["saxpy"]
    params = module["saxpy"].params
    assert [p["name"] for p in params] == ["a", "x", "y"]
    assert params[1]["element_type"] == "float" and not params[1]["writable"] and params[2]["writable"]


def test_glsl_kernel_from_spirv(device, kernel_dir):
    path = kernel_dir / "glsl_saxpy.spv"
    if not path.exists():
        pytest.skip("no glslangValidator to compile the GLSL kernel")
    saxpy = device.load(path).kernel("main")
    assert [(p["name"], p["kind"], p["writable"]) for p in saxpy.params] == [
        ("xs", "buffer", False), ("ys", "buffer", True), ("n", "scalar", False), ("a", "scalar", False)]
    x = np.arange(300, dtype=np.float32)
    y = np.full(300, 0.5, dtype=np.float32)
    saxpy(300, x, y, 300, 4.0)  # bindings, then push constants
    np.testing.assert_array_equal(y, np.float32(4.0) * x + np.float32(0.5))  # exact: small integers and halves


def test_float_mode_is_checked(device, kernel_dir):
    fast = device.load(kernel_dir / "saxpy.wasm", float_mode="fast").kernel("saxpy")
    x = np.arange(16, dtype=np.float32)
    y = np.zeros(16, dtype=np.float32)
    fast(16, 2.0, x, y)  # 2 * x + 0 is exact in any float mode
    np.testing.assert_array_equal(y, 2 * x)
    with pytest.raises(ValueError, match="float_mode"):
        device.load(kernel_dir / "saxpy.wasm", float_mode="approximate")


def test_histogram_example_matches_numpy(device, kernel_dir):
    histogram = device.load(kernel_dir / "histogram.wasm").kernel("histogram")
    data = ((np.arange(10_000, dtype=np.uint32) * 2654435761) >> 24).astype(np.uint8)
    bins = np.zeros(256, dtype=np.int32)
    # Every invocation reaches the kernel's barriers: a grid of whole workgroups.
    histogram(wasmgpu.Launch.grid((8, 1, 1), (64, 1, 1)), data, len(data), bins)
    np.testing.assert_array_equal(bins, np.bincount(data, minlength=256))


def test_trap_is_a_python_exception_with_the_trap(device, kernel_dir):
    divide = device.load(kernel_dir / "checked_divide.wasm").kernel("checked_divide")
    a = np.arange(64, dtype=np.int32)
    b = np.ones(64, dtype=np.int32)
    b[37] = 0
    out = np.zeros(64, dtype=np.int32)
    with pytest.raises(wasmgpu.TrapError) as error:
        divide(64, a, b, out)
    trap = error.value
    assert isinstance(trap, wasmgpu.Error) and trap.kind == "trap"
    assert trap.kernel == "checked_divide" and trap.trap == "integer divide by zero"
    assert trap.invocation == 37 and trap.trapped_invocations == 1
    assert "kernel 'checked_divide'" in str(trap) and "integer divide by zero at invocation 37" in str(trap)
    b[37] = 1
    divide(64, a, b, out)  # the device works on after a trap
    np.testing.assert_array_equal(out, a)


def test_trap_sites_name_the_function_and_offset(device, kernel_dir):
    path = kernel_dir / "checked_divide.wasm"
    divide = device.load(path, trap_sites=True).kernel("checked_divide")
    a = np.arange(8, dtype=np.int32)
    b = np.ones(8, dtype=np.int32)
    b[5] = 0
    with pytest.raises(wasmgpu.TrapError) as error:
        divide(8, a, b, np.zeros(8, dtype=np.int32))
    message = str(error.value)
    assert re.search(r"; invocation 5 trapped in function 'checked_divide' \(function \d+\) at module offset 0x[0-9a-f]+$",
                     message), message
    with pytest.raises(wasmgpu.TrapError) as error:  # without the option: no site
        device.load(path).kernel("checked_divide")(8, a, b, np.zeros(8, dtype=np.int32))
    assert "trapped in function" not in str(error.value)


def test_heap_bytes_sizes_the_device_heap(device, kernel_dir):
    path = kernel_dir / "keep_block.wasm"
    out = np.zeros(64, dtype=np.int32)
    device.load(path).kernel("keep_block")(64, 1024, out)  # the default 8 MiB holds 64 KiB
    assert out.tolist() == [1] * 64
    out[:] = 0
    device.load(path, heap_bytes=8192).kernel("keep_block")(64, 1024, out)  # 8 KiB holds at most 8
    assert 0 < int(out.sum()) <= 8, out
    with pytest.raises(wasmgpu.Error) as error:
        device.load(path, heap_bytes=100).kernel("keep_block")(1, 16, out)
    assert "8 KiB to 1 GiB" in str(error.value)


def test_printf_reaches_stdout_and_assert_the_trap(device, kernel_dir, capfd):
    kernel = device.load(kernel_dir / "print_assert.wasm").kernel("print_assert")
    x = np.array([0.5, 1.25, -2.0, 3.0], dtype=np.float32)
    with pytest.raises(wasmgpu.TrapError) as error:
        kernel(4, x)
    lines = sorted(capfd.readouterr().out.splitlines())
    assert lines == ["x[0] = 0.50", "x[1] = 1.25", "x[2] = -2.00", "x[3] = 3.00"]
    trap = error.value
    assert trap.trap == "unreachable executed" and trap.invocation == 2
    assert trap.reason.startswith("assertion failed: x[i] >= 0.0f (")
    assert trap.reason.endswith("print_assert.c:9, in function 'print_assert') at invocation 2")
    assert str(trap).endswith(trap.reason)


def test_a_rust_panic_raises_a_trap_error_with_its_location(device, kernel_dir):
    path = kernel_dir / "rust_panic.wasm"
    if not path.is_file():
        pytest.fail(f"{path} was not built: Rust kernels need Debian's rustc (apt-get install rustc libstd-rust-dev-wasm32)")
    source = Path(__file__).resolve().parents[2] / "tests" / "kernels-lang" / "rust_panic.rs"
    line, column = next((n, text.index("panic!(") + 1) for n, text in enumerate(source.read_text().splitlines(), 1)
                        if "panic!(" in text)
    kernel = device.load(path).kernel("checked_double")
    x = np.array([1, 2, 7, 4, 7], dtype=np.int32)
    y = np.zeros(5, dtype=np.int32)
    with pytest.raises(wasmgpu.TrapError) as error:
        kernel(5, x, y, 5, 7)
    trap = error.value
    assert trap.trap == "unreachable executed" and trap.invocation == 2
    # Either panicking invocation (2 or 4) may claim the text.
    where = re.escape(f"tests/kernels-lang/rust_panic.rs:{line}:{column} ")
    assert re.match(f"panicked at (.*/)?{where}", trap.reason), trap.reason
    assert trap.reason.endswith((" at invocation 2", " at invocation 4")), trap.reason
    assert str(trap).endswith(trap.reason)


def test_wrong_argument_count_has_the_cpp_message(saxpy):
    x = np.zeros(4, dtype=np.float32)
    y = np.ones(4, dtype=np.float32)
    with pytest.raises(wasmgpu.Error) as error:
        saxpy(4, 2.0, x)
    assert error.value.kind == "invalid argument"
    assert str(error.value) == (
        "kernel 'saxpy' takes 3 argument(s) after the launch shape (a: f32 (float), x: a Buffer (read-only) of "
        "float (4-byte elements), y: a Buffer of float (4-byte elements)), but 2 were given: no argument for 'y'"
    )
    with pytest.raises(wasmgpu.Error, match="but 4 were given: argument 4 matches no parameter"):
        saxpy(4, 2.0, x, y, y)
    np.testing.assert_array_equal(y, np.ones(4, dtype=np.float32))  # nothing ran


def test_wrong_argument_types_have_the_cpp_messages(saxpy):
    x = np.zeros(4, dtype=np.float32)
    with pytest.raises(wasmgpu.Error) as error:
        saxpy(4, np.float64(2.0), x, x.copy())  # a double for a float parameter: no silent narrowing
    assert str(error.value) == "kernel 'saxpy', parameter 'a' (argument 1 of 3): expected f32 (float), but double 2 was given"
    with pytest.raises(wasmgpu.Error) as error:
        saxpy(4, 2, x, x.copy())  # an int for a float parameter, as in C++
    assert str(error.value).endswith("expected f32 (float), but int64 2 was given")
    with pytest.raises(wasmgpu.Error) as error:
        saxpy(4, 2.0, np.zeros(4, dtype=np.float64), x)  # 8-byte elements for a float pointer
    assert str(error.value) == (
        "kernel 'saxpy', parameter 'x' (argument 2 of 3): expected a Buffer (read-only) of float (4-byte elements), "
        "but a Buffer of 4 8-byte elements was given (element sizes differ)"
    )
    with pytest.raises(TypeError, match="bool"):
        saxpy(4, True, x, x.copy())
    with pytest.raises(TypeError, match="cannot pass a str"):
        saxpy(4, "2.0", x, x.copy())
    with pytest.raises(TypeError, match="all by position or all by name"):
        saxpy(4, 2.0, x=x, y=x.copy())
