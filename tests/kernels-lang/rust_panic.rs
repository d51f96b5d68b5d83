//! A Rust kernel that panics: `checked_double` doubles x[i] into y[i] and
//! panics on the value `bad` (with its index in the message); `get` reads
//! x[k], a bounds-checked index. Built twice (tests/CMakeLists.txt and the
//! api and Python tests' rules): as is, the trap says where it panicked; with
//! `--cfg wasmgpu_panic_message`, also the message (rust/wasmgpu.rs).
#![no_std]

#[macro_use]
#[path = "../../rust/wasmgpu.rs"]
mod wasmgpu;
use wasmgpu::*;

wasmgpu_kernel_record!(CHECKED_DOUBLE_RECORD, "checked_double", value::<i32>("i"), const_ptr::<i32>("x"),
                       ptr::<i32>("y"), value::<u32>("n"), value::<i32>("bad"));

#[no_mangle]
pub unsafe extern "C" fn checked_double(i: i32, x: *const i32, y: *mut i32, n: u32, bad: i32) {
    let x = slice_of(x, n as usize);
    let y = slice_of_mut(y, n as usize);
    let v = x[i as usize];
    if v == bad {
        panic!("value {} at index {} is not allowed", v, i);
    }
    y[i as usize] = 2 * v;
}
