// wasmgpu.ts: the kernel-side module for AssemblyScript kernels, the
// counterpart of include/wasmgpu.h and rust/wasmgpu.rs. A kernel imports it:
//
//   import { global_id } from "./wasmgpu";   // the path to this file
//
//   export function scale(i: i32, a: f32, y: usize, n: u32): void {
//     if (<u32>i >= n) return;
//     const p = y + (<usize>i << 2);
//     store<f32>(p, a * load<f32>(p));
//   }
//
// and is built by the AssemblyScript compiler (tests/kernels-lang/node_modules,
// scripts/install-deps.sh) with no runtime and no host abort:
//
//   asc kernel.ts -O2 --runtime stub --use abort= -o kernel.wasm
//
// A kernel is an exported function whose first parameter is the invocation
// index (i32) and which returns void. Buffer parameters arrive as `usize`
// addresses (32-bit); read and write them with AssemblyScript's load<T> and
// store<T> builtins (one wasm load or store each). Everything below is an
// import from the wasm module "wasmgpu" with the signature wasmgpu.h gives
// it; docs/kernel-guide.md describes each one. Dimensions are 0 (x), 1 (y)
// and 2 (z).

// ---- Ids and sizes ----
// @ts-ignore: decorator
@external("wasmgpu", "global_id") export declare function global_id(dimension: u32): u32;
// @ts-ignore: decorator
@external("wasmgpu", "local_id") export declare function local_id(dimension: u32): u32;
// @ts-ignore: decorator
@external("wasmgpu", "workgroup_id") export declare function workgroup_id(dimension: u32): u32;
// @ts-ignore: decorator
@external("wasmgpu", "workgroup_size") export declare function workgroup_size(dimension: u32): u32;
// @ts-ignore: decorator
@external("wasmgpu", "workgroup_count") export declare function workgroup_count(dimension: u32): u32;
/** local_id linearised: x + y * size_x + z * size_x * size_y. */
// @ts-ignore: decorator
@external("wasmgpu", "local_index") export declare function local_index(): u32;

// ---- Barriers: every invocation of the workgroup must reach barrier() ----
// @ts-ignore: decorator
@external("wasmgpu", "barrier") export declare function barrier(): void;
// @ts-ignore: decorator
@external("wasmgpu", "memory_barrier") export declare function memory_barrier(): void;
// @ts-ignore: decorator
@external("wasmgpu", "workgroup_memory_barrier") export declare function workgroup_memory_barrier(): void;

// ---- Subgroups ----
// @ts-ignore: decorator
@external("wasmgpu", "subgroup_size") export declare function subgroup_size(): u32;
// @ts-ignore: decorator
@external("wasmgpu", "subgroup_invocation_id") export declare function subgroup_invocation_id(): u32;
// @ts-ignore: decorator
@external("wasmgpu", "subgroup_add_i32") export declare function subgroup_add_i32(value: i32): i32;
// @ts-ignore: decorator
@external("wasmgpu", "subgroup_add_f32") export declare function subgroup_add_f32(value: f32): f32;

// ---- Atomics on 4-byte aligned words (addresses); each returns the old value ----
// @ts-ignore: decorator
@external("wasmgpu", "atomic_add_i32") export declare function atomic_add(p: usize, v: i32): i32;
// @ts-ignore: decorator
@external("wasmgpu", "atomic_min_i32") export declare function atomic_min(p: usize, v: i32): i32;
// @ts-ignore: decorator
@external("wasmgpu", "atomic_max_i32") export declare function atomic_max(p: usize, v: i32): i32;
// @ts-ignore: decorator
@external("wasmgpu", "atomic_and_i32") export declare function atomic_and(p: usize, v: i32): i32;
// @ts-ignore: decorator
@external("wasmgpu", "atomic_or_i32") export declare function atomic_or(p: usize, v: i32): i32;
// @ts-ignore: decorator
@external("wasmgpu", "atomic_exchange_i32") export declare function atomic_exchange(p: usize, v: i32): i32;
// @ts-ignore: decorator
@external("wasmgpu", "atomic_compare_exchange_i32")
export declare function atomic_compare_exchange(p: usize, expected: i32, desired: i32): i32;
// @ts-ignore: decorator
@external("wasmgpu", "atomic_add_f32") export declare function atomic_add_f32(p: usize, v: f32): f32;
