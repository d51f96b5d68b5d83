//! A Rust kernel module (no_std cdylib for wasm32-unknown-unknown): buffer
//! parameters as slices from raw parts, iterators, generics and traits, and
//! the kernel metadata record. tests/e2e/languages_test.cpp checks it against
//! a CPU reference at opt-level 0 and 2.
#![no_std]

#[macro_use]
#[path = "../../rust/wasmgpu.rs"]
mod wasmgpu;
use core::ops::{Add, Mul};
use wasmgpu::*;

/// a * x + y for any type with + and *.
fn mul_add<T: Copy + Add<Output = T> + Mul<Output = T>>(a: T, x: T, y: T) -> T {
    a * x + y
}

trait Shape {
    fn area(&self) -> i32;
}
struct Rect {
    w: i32,
    h: i32,
}
struct Square(i32);
impl Shape for Rect {
    fn area(&self) -> i32 {
        self.w * self.h
    }
}
impl Shape for Square {
    fn area(&self) -> i32 {
        self.0 * self.0
    }
}
fn total_area<S: Shape>(shapes: &[S]) -> i32 {
    shapes.iter().map(Shape::area).sum()
}

wasmgpu_kernel_record!(WINDOW_RECORD, "window", value::<i32>("i"), const_ptr::<i32>("x"), ptr::<i32>("out"),
                       value::<u32>("n"), value::<u32>("width"));

/// out[i] = weighted sum of x[i .. i + width] (clipped at n), the weights
/// 1, 2, 3, ...; plus the area of shapes built from x[i] (generic over Shape).
#[no_mangle]
pub unsafe extern "C" fn window(i: i32, x: *const i32, out: *mut i32, n: u32, width: u32) {
    let i = i as usize;
    let n = n as usize;
    if i >= n {
        return;
    }
    let x = slice_of(x, n);
    let out = slice_of_mut(out, n);
    let end = core::cmp::min(n, i + width as usize);
    let weighted: i32 = x[i..end]
        .iter()
        .zip(1..)
        .map(|(&v, w)| v.wrapping_mul(w))
        .fold(0i32, |acc, v| acc.wrapping_add(v));
    let s = (x[i] & 0xff) as i32;
    let rects = [Rect { w: s, h: 3 }, Rect { w: 2, h: s }];
    let squares = [Square(s), Square(s + 1)];
    out[i] = weighted.wrapping_add(total_area(&rects)).wrapping_add(total_area(&squares));
}

wasmgpu_kernel_record!(AXPY_RECORD, "axpy", value::<i32>("i"), value::<f32>("a"), const_ptr::<f32>("x"),
                       ptr::<f32>("y"), value::<u32>("n"), ptr::<i32>("positives"));

/// y = a * x + y over f32 (the generic mul_add); global_id(0) must be the
/// index. Counts the positive results with an atomic add into `positives`.
#[no_mangle]
pub unsafe extern "C" fn axpy(i: i32, a: f32, x: *const f32, y: *mut f32, n: u32, positives: *mut i32) {
    let i = i as usize;
    if i >= n as usize || global_id(0) as usize != i {
        return;
    }
    let x = slice_of(x, n as usize);
    let y = slice_of_mut(y, n as usize);
    y[i] = mul_add(a, x[i], y[i]);
    if y[i] > 0.0 {
        atomic_add(&mut *positives, 1);
    }
}
