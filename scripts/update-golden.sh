#!/usr/bin/env bash
# Rewrites the golden SPIR-V in tests/golden from the current compiler: run
# it after an intended change to code generation and commit the diff with
# the change (the `golden.spirv` test fails until then).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${WASMGPU_BUILD_DIR:-$root/build}"
bash "$root/scripts/build.sh" golden_inputs
python3 "$root/tests/golden/golden.py" update --wasmgpu "$build/src/cli/wasmgpu" --golden "$root/tests/golden" \
  "$build/examples" "$build/bench" "$@"
git -C "$root" status --short -- tests/golden | head -n 40
