//! A Rust kernel that allocates: a Vec per invocation through the device
//! heap's global allocator (rust/wasmgpu.rs, built with --cfg wasmgpu_heap
//! and RUSTC_BOOTSTRAP=1). tests/e2e/heap_test.cpp checks it against a CPU
//! reference over thousands of invocations.
#![no_std]
#![cfg_attr(wasmgpu_heap, feature(alloc_error_handler))]

extern crate alloc;
#[macro_use]
#[path = "../../rust/wasmgpu.rs"]
mod wasmgpu;
use alloc::vec::Vec;
use wasmgpu::*;

wasmgpu_kernel_record!(VEC_RECORD, "vec_sums", value::<i32>("i"), const_ptr::<u32>("seeds"), ptr::<u32>("out"),
    value::<u32>("n"));

/// Pushes 3 to 40 values (the Vec grows, so it reallocates), then keeps
/// the odd ones and writes their count and a weighted sum.
#[no_mangle]
pub unsafe extern "C" fn vec_sums(i: i32, seeds: *const u32, out: *mut u32, n: u32) {
    let i = i as u32;
    if i >= n {
        return;
    }
    let seed = *seeds.add(i as usize);
    let mut values: Vec<u32> = Vec::new();
    let mut x = seed;
    for _ in 0..3 + seed % 38 {
        x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        values.push(x >> 8);
    }
    values.retain(|v| v & 1 == 1);
    let sum = values.iter().enumerate().fold(0u32, |s, (k, v)| s.wrapping_add(v.wrapping_mul(k as u32 + 1)));
    *out.add(2 * i as usize) = values.len() as u32;
    *out.add(2 * i as usize + 1) = sum;
}
