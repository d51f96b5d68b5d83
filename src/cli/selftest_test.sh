#!/usr/bin/env bash
# CTest: `wasmgpu selftest` on the test device, with the test hook forcing
# raw results wrong. Usage: selftest_test.sh WASMGPU [FORCE]
# Without FORCE: exits 0 and reports every property. With FORCE (e.g.
# f64_trunc,f64_subnormals): the forced lines show the raw result wrong and
# wasmgpu's right, the exit status is still 0, and the results are cached in
# a fresh cache directory under probe/.
set -euo pipefail
wasmgpu=$1
force=${2:-}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export WASMGPU_CACHE_DIR="$dir/cache"
status=0
WASMGPU_PROBE_FORCE="$force" "$wasmgpu" selftest -q >"$dir/out" || status=$?
cat "$dir/out"
fail() { echo "selftest_test: $*" >&2; exit 1; }
[ "$status" = 0 ] || fail "wasmgpu selftest exited with $status"
grep -q '^selftest passed' "$dir/out" || fail "no 'selftest passed' line"
for property in f32_arith f64_trunc i32_shift i64_rem_s atomic_add workgroup_barrier; do
  grep -qE "^$property " "$dir/out" || fail "no line for $property"
done
if grep -qE ' WRONG ' "$dir/out"; then fail "a line is marked WRONG"; fi
ls "$WASMGPU_CACHE_DIR"/probe/*.bin >/dev/null 2>&1 || fail "no probe entry under $WASMGPU_CACHE_DIR/probe"
if [ -n "$force" ]; then
  if grep -qE '^f64_[a-z]+ +absent' "$dir/out"; then
    echo "selftest_test: the device has no f64; forced f64 lines are absent"
    exit 0
  fi
  for property in ${force//,/ }; do
    line=$(grep -E "^$property " "$dir/out") || fail "no line for $property"
    echo "$line" | grep -qE "^$property +(wrong|flushed) +(routed|refused) +right " ||
      fail "forced $property: expected the raw result wrong and wasmgpu's right: $line"
    echo "$line" | grep -q "raw forced by WASMGPU_PROBE_FORCE" || fail "forced $property not marked forced: $line"
  done
fi
echo "selftest_test: ok"
