#!/usr/bin/env bash
# Installs what wasmgpu needs, builds the demo, and runs it: a Mandelbrot
# kernel written in C, compiled to wasm and run on the default Vulkan device.
# Builds only the `mandelbrot` example and what it needs (the runtime, the
# compiler, the kernel's wasm), not the tests: scripts/test.sh builds those.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/install-deps.sh"
bash "$root/scripts/build.sh" mandelbrot
build="${WASMGPU_BUILD_DIR:-$root/build}"
"$build/examples/mandelbrot" "$@"
