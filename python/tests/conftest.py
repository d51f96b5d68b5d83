"""Fixtures: a device, and the test kernels as wasm files.

Under CTest (python.pytest), WASMGPU_PYTHON_TEST_KERNELS names the directory where the build
compiled them; otherwise they are compiled here with `wasmgpu cc` (WASMGPU_CLI, else `wasmgpu`
on the PATH, else the source tree's build/src/cli/wasmgpu)."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

import wasmgpu

ROOT = Path(__file__).resolve().parents[2]
SOURCES = {
    "saxpy": ROOT / "examples" / "saxpy" / "saxpy.c",
    "histogram": ROOT / "examples" / "histogram" / "histogram.c",
    "checked_divide": Path(__file__).resolve().parent / "kernels" / "checked_divide.c",
    "print_assert": Path(__file__).resolve().parent / "kernels" / "print_assert.c",
    "keep_block": Path(__file__).resolve().parent / "kernels" / "keep_block.c",
}


def wasmgpu_cli():
    for candidate in (os.environ.get("WASMGPU_CLI"), shutil.which("wasmgpu"), ROOT / "build" / "src" / "cli" / "wasmgpu"):
        if candidate and Path(candidate).is_file():
            return str(candidate)
    pytest.fail("no wasmgpu CLI to compile the test kernels: set WASMGPU_CLI or WASMGPU_PYTHON_TEST_KERNELS")


@pytest.fixture(scope="session")
def kernel_dir(tmp_path_factory):
    built = os.environ.get("WASMGPU_PYTHON_TEST_KERNELS")
    if built:
        return Path(built)
    out = tmp_path_factory.mktemp("kernels")
    cli = wasmgpu_cli()
    for name, source in SOURCES.items():
        subprocess.run([cli, "cc", str(source), "-O2", "-o", str(out / f"{name}.wasm")], check=True)
    rustc = Path("/usr/bin/rustc")  # Debian's, as the CMake build's Rust kernels (cmake/WasmKernels.cmake)
    if rustc.is_file():
        subprocess.run([str(rustc), "--crate-type", "cdylib", "--target", "wasm32-unknown-unknown", "-C", "opt-level=2",
                        "-C", "panic=abort", str(ROOT / "tests" / "kernels-lang" / "rust_panic.rs"), "-o",
                        str(out / "rust_panic.wasm")], check=True)
    glslang = shutil.which("glslangValidator")
    if glslang:  # Debian's glslang-tools, which the main build needs too
        subprocess.run([glslang, "--quiet", "-V", "--target-env", "vulkan1.2", "-o", str(out / "glsl_saxpy.spv"),
                        str(ROOT / "src" / "reflect" / "fixtures" / "saxpy.comp")], check=True)
    return out


@pytest.fixture(scope="session")
def device():
    return wasmgpu.Device()


@pytest.fixture(scope="session")
def saxpy(device, kernel_dir):
    return device.load(kernel_dir / "saxpy.wasm").kernel("saxpy")
