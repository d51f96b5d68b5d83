// Types of wasmgpu.mjs, the browser path of the package (docs/webgpu.md,
// "The runtime package"). WebGPU's own types come from @webgpu/types.
/// <reference types="@webgpu/types" />

/** The C++ API's ErrorKind names (to_string(ErrorKind)); WebGPU errors stand for Vulkan ones. */
export declare const ErrorKind: {
  readonly InvalidArgument: 'invalid argument';
  readonly BufferTooSmall: 'buffer too small';
  readonly WrongDevice: 'wrong device';
  readonly UseAfterMove: 'use after move';
  readonly NotFound: 'not found';
  readonly Unsupported: 'unsupported';
  readonly Compile: 'compile error';
  readonly Trap: 'trap';
  readonly DeviceLost: 'device lost';
  readonly WebGPU: 'WebGPU error';
};
export type ErrorKindName = (typeof ErrorKind)[keyof typeof ErrorKind];

export declare class WasmgpuError extends Error {
  readonly kind: ErrorKindName;
}

/** A kernel trapped; nothing passed as a typed array was written back. */
export declare class TrapError extends WasmgpuError {
  readonly kind: 'trap';
  readonly kernel: string;
  /** "out of bounds memory access", "integer divide by zero", ... */
  readonly trap: string;
  /** The lowest trapping invocation index. */
  readonly invocation: number;
  readonly trappedInvocations: number;
  /** The launch's position among its command buffer's launches (0 for a direct call). */
  readonly launchIndex: number;
}

export type Dimensions = [number, number, number] | [number, number] | [number];

/** The shape of a launch (include/wasmgpu/launch.hpp). A number n is Launch.invocations(n). */
export declare class Launch {
  readonly n: number;
  readonly workgroupSize: [number, number, number];
  readonly groups: [number, number, number] | null;
  /** n invocations, 1-D; workgroupSize 0: 64. */
  static invocations(n: number, workgroupSize?: number): Launch;
  /** groups workgroups of workgroupSize (0 in x: 64; y, z: 1). */
  static grid(groups: Dimensions, workgroupSize?: Dimensions): Launch;
}
export type LaunchShape = number | bigint | Launch;

export type HostArray =
  | Int8Array | Uint8Array | Uint8ClampedArray | Int16Array | Uint16Array | Int32Array | Uint32Array
  | Float32Array | Float64Array | BigInt64Array | BigUint64Array | DataView;
export type HostArrayType<T extends HostArray = HostArray> = { new (length: number): T; readonly BYTES_PER_ELEMENT: number };

declare class NamedArgument {
  readonly name: string;
  readonly value: Argument;
}
/** A kernel argument: numbers for i32/u32/f32/f64 (f32: rounded to nearest), bigint for i64/u64,
 * a Buffer or a typed array for a pointer (a typed array is uploaded, and written back unless the
 * launch traps). */
export type Argument = number | bigint | Buffer | HostArray;
/** A named argument, as wasmgpu::arg. */
export declare function arg(name: string, value: Argument): NamedArgument;

export declare class Buffer<T extends HostArray = HostArray> {
  readonly device: Device;
  /** Bytes. */
  readonly size: number;
  readonly elementSize: number;
  readonly count: number;
  /** The wasm address kernels see the buffer at. */
  readonly address: number;
  readonly destroyed: boolean;
  /** Every element as the buffer's own type. */
  read(): Promise<T>;
  /** As another type. */
  read<U extends HostArray>(type: HostArrayType<U>, first?: number): Promise<U>;
  /** Into `out`, from element `first` (of out's type) on. */
  read<U extends HostArray>(out: U, first?: number): Promise<U>;
  write(values: HostArray, first?: number): Promise<void>;
  /** Every 32-bit word. */
  fill(pattern: number): void;
  destroy(): void;
}

/** One parameter, as `wasmgpu reflect` prints it. */
export interface Param {
  name: string;
  kind: 'scalar' | 'bytes' | 'buffer' | 'uniform_buffer' | 'storage_image' | 'sampled_image' | 'sampler' | 'combined_image_sampler';
  scalar?: 'i32' | 'u32' | 'i64' | 'u64' | 'f32' | 'f64';
  element_type?: string;
  element_size?: number;
  size?: number;
  writable: boolean;
  index: number;
}
export interface KernelInterface {
  name: string;
  source: 'wasm';
  params: Param[];
}

/** A kernel: call it to launch and wait. */
export interface Kernel {
  (shape: LaunchShape, ...args: Argument[]): Promise<void>;
  (shape: LaunchShape, named: Record<string, Argument>): Promise<void>;
  (shape: LaunchShape, ...args: NamedArgument[]): Promise<void>;
  launch(shape: LaunchShape, args: Array<Argument | NamedArgument>): Promise<void>;
  readonly name: string;
  readonly interface: KernelInterface;
}

/** The JSON that `wasmgpu compile --target wgsl --bundle` writes (docs/webgpu.md). */
export interface Bundle {
  format: 'wasmgpu-wgsl-bundle';
  version: 1;
  module: string;
  max_storage_buffers: number;
  abi: {
    bindings: { launch: number; traps: number; memory: number; first_buffer: number };
    launch: { words: number; base_index: number; count: number; region_count: number; zero: number; args: number; arg_words: number; region_words: number };
    entry_point: string;
    workgroup_size_overrides: [string, string, string];
    trap_record: { words: number; count: number; lowest_index: number; no_trap: number; kinds: string[] };
    addresses: { buffer_base: number; end: number; alignment: number; guard: number };
  };
  memory: { bytes: number; data: { offset: number; hex: string }[] };
  kernels: { name: string; interface: KernelInterface; metadata: boolean; wasm_params: string[]; buffer_bindings: number; stack: { binding: number; slot_bytes: number } | null; workgroup_size: null; shared_bytes?: number; barriers?: boolean; features?: string[]; wgsl: string }[];
  refused: { kernel: string; reason: string }[];
}

export declare class Module {
  readonly device: Device;
  readonly name: string;
  /** The bundle's kernel names. */
  readonly kernels: string[];
  kernel(name: string): Kernel;
}

export declare class CommandBuffer {
  readonly device: Device;
  /** Checked now; returns the launch's index among the launches. */
  launch(kernel: Kernel, shape: LaunchShape, ...args: Array<Argument | NamedArgument | Record<string, Argument>>): number;
  copy(src: Buffer, dst: Buffer, bytes?: number, srcOffset?: number, dstOffset?: number): void;
  /** Runs the commands; rejects with a TrapError for the first launch that trapped. */
  submit(): Promise<void>;
}

export declare class Device {
  /** A GPU (navigator.gpu, or the npm package webgpu's create()), a GPUAdapter or a GPUDevice; default navigator.gpu. */
  static open(source?: GPU | GPUAdapter | GPUDevice): Promise<Device>;
  readonly gpu: GPUDevice;
  readonly serial: number;
  readonly description: string;
  readonly limits: GPUSupportedLimits;
  /** "Device #1 ('...')", as messages name it. */
  readonly label: string;
  /** A copy of `values`. */
  buffer<T extends HostArray>(values: T): Buffer<T>;
  /** `count` zero elements of `type`. */
  buffer<T extends HostArray>(type: HostArrayType<T>, count: number): Buffer<T>;
  bufferBytes(bytes: number): Buffer<Uint8Array>;
  /** A bundle: its parsed JSON, its text or its bytes. */
  load(bundle: Bundle | string | ArrayBuffer | ArrayBufferView): Promise<Module>;
  commandBuffer(): CommandBuffer;
  /** The same as commandBuffer(). */
  encoder(): CommandBuffer;
  destroy(): void;
}
