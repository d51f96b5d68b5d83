//! A Zig kernel module (wasm32-freestanding): many-item pointers over
//! buffers, ranges, comptime generics, a struct with methods, checked
//! arithmetic, an atomic and parameter records through zig/wasmgpu.zig.
//! tests/e2e/languages_test.cpp checks it against a CPU reference in Debug
//! (safety checks on) and ReleaseSmall. It indexes many-item pointers, not slices: in Debug a slice's
//! bounds check formats its panic message with std.fmt (recursive), which made
//! `window` 875,448 SPIR-V words with 1 MB of call stack per invocation
//! (docs/kernel-guide.md, "Zig kernels"); overflow and cast checks stay.
const gpu = @import("wasmgpu");
pub const panic = gpu.panic;

fn Vec2(comptime T: type) type {
    return struct {
        x: T,
        y: T,
        const Self = @This();
        fn add(a: Self, b: Self) Self {
            return .{ .x = a.x + b.x, .y = a.y + b.y };
        }
        fn dot(a: Self, b: Self) T {
            return a.x * b.x + a.y * b.y;
        }
    };
}

comptime {
    asm (gpu.kernelRecord("window", &.{ gpu.value(i32, "i"), gpu.constPtr(i32, "x"), gpu.ptr(i32, "out"), gpu.value(u32, "n"), gpu.value(u32, "width") }));
}

/// out[i] = a weighted sum of x[i .. i + width] (clipped at n; weights 1, 2, 3 ...,
/// wrapping) plus a dot product of small vectors built from x[i].
export fn window(i: i32, x: [*]const i32, out: [*]i32, n: u32, width: u32) void {
    const k: u32 = @bitCast(i);
    if (k >= n) return;
    const end = @min(n, k + width);
    var sum: i32 = 0;
    for (k..end, 1..) |j, w| sum +%= x[j] *% @as(i32, @intCast(w));
    const s = x[k] & 0xff;
    const V = Vec2(i32);
    const p = V.add(.{ .x = s, .y = 3 }, .{ .x = 2, .y = s });
    out[k] = sum +% p.dot(.{ .x = 3, .y = -2 });
}

comptime {
    asm (gpu.kernelRecord("axpy", &.{ gpu.value(i32, "i"), gpu.value(f32, "a"), gpu.constPtr(f32, "x"), gpu.ptr(f32, "y"), gpu.value(u32, "n"), gpu.ptr(i32, "positives") }));
}

/// y = a * x + y over f32; counts the positive results into positives[0].
/// global_id(0) must equal i.
export fn axpy(i: i32, a: f32, x: [*]const f32, y: [*]f32, n: u32, positives: *i32) void {
    const k: u32 = @bitCast(i);
    if (k >= n or gpu.global_id(0) != k) return;
    y[k] = a * x[k] + y[k];
    if (y[k] > 0) _ = gpu.atomic_add_i32(positives, 1);
}

/// out[i] = x[i] * 3 with Zig's checked multiplication: in Debug an overflow
/// calls the panic handler, which traps (ReleaseSmall does not check).
export fn triple(i: i32, x: [*]const i32, out: [*]i32, n: u32) void {
    const k: u32 = @bitCast(i);
    if (k >= n) return;
    out[k] = x[k] * 3;
}
