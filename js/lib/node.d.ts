// Types of node.mjs: the browser path's, and a Device on Dawn.
export * from './wasmgpu.js';
import type { Bundle, Device } from './wasmgpu.js';

/** A Device on Dawn (the npm package webgpu); `flags` as its create() takes them. */
export declare function openNodeDevice(flags?: string[]): Promise<Device>;
/** A bundle file's JSON. */
export declare function loadBundleFile(path: string): Promise<Bundle>;
