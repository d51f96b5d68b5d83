// An AssemblyScript kernel module: buffers as addresses read and written with
// load<T>/store<T>, a generic function, a static table (a data segment read
// with bounds checks), loops, ids, a barrier and an atomic through
// assemblyscript/wasmgpu.ts.
// tests/e2e/languages_test.cpp checks it against a CPU reference at -O0 and
// -O2, and that a build without `--use abort=` is refused with that advice.
import { atomic_add, barrier, global_id, local_id, workgroup_id, workgroup_size } from "../../assemblyscript/wasmgpu";

// Coefficients of a cubic, highest first (Horner's scheme).
const COEFFS: StaticArray<f32> = [0.5, -1.25, 2.0, 3.0];

function clamp<T>(v: T, lo: T, hi: T): T {
  return v < lo ? lo : v > hi ? hi : v;
}

function horner(x: f32, degree: i32): f32 {
  let acc: f32 = 0;
  // COEFFS[k] is bounds-checked: an index past the table aborts.
  for (let k = 0; k <= degree; ++k) acc = acc * x + COEFFS[k];
  return acc;
}

/** y[i] = clamp(cubic(x[i]), -lo, lo); the integer count of x[i]'s ones in bits[i]. */
export function poly(i: i32, x: usize, y: usize, bits: usize, n: u32, lo: f32): void {
  if (<u32>i >= n) return;
  const offset = <usize>i << 2;
  const v = load<f32>(x + offset);
  store<f32>(y + offset, clamp<f32>(horner(v, 3), -lo, lo));
  store<i32>(bits + offset, clamp<i32>(<i32>popcnt<u32>(reinterpret<u32>(v)), 4, 28));
}

/** Counts the x[i] above threshold into counter[0]; global_id(0) must equal i. */
export function count_above(i: i32, x: usize, n: u32, threshold: f32, counter: usize): void {
  if (<u32>i >= n || global_id(0) != <u32>i) return;
  if (load<f32>(x + (<usize>i << 2)) > threshold) atomic_add(counter, 1);
}

/** out[i] = local id | workgroup id << 8 | workgroup size << 20, after a
 *  barrier that every invocation reaches (before the bounds check). */
export function ids(i: i32, out: usize, n: u32): void {
  barrier();
  if (<u32>i >= n) return;
  store<u32>(out + (<usize>i << 2), local_id(0) | (workgroup_id(0) << 8) | (workgroup_size(0) << 20));
}
