// The contract for images and samplers between compiled kernels (spirv/) and
// the runtime (runtime/): the bindless descriptor set that kernels using the
// wasmgpu image imports declare, and the handle table that lets them check a
// handle before touching a descriptor. docs/memory-model.md ("Images") says why.
#pragma once

#include <cstdint>

namespace wasmgpu::abi {

// Descriptor set 0 of every kernel that uses an image import (kernels without
// them keep a pipeline layout with push constants only). Each image binding is
// an array of kHandleCapacity descriptors (a runtime array in SPIR-V) indexed
// by handle; slots not in use hold no descriptor (PARTIALLY_BOUND), and the
// arrays are updated while command buffers that bind them are recorded or
// pending (UPDATE_AFTER_BIND, UPDATE_UNUSED_WHILE_PENDING).
inline constexpr uint32_t kImageSet = 0;
inline constexpr uint32_t kBindingStorageImage2D = 0;  // STORAGE_IMAGE, format Unknown
inline constexpr uint32_t kBindingStorageImage3D = 1;
inline constexpr uint32_t kBindingSampledImage2D = 2;  // SAMPLED_IMAGE
inline constexpr uint32_t kBindingSampledImage3D = 3;
inline constexpr uint32_t kBindingSampler = 4;      // SAMPLER
inline constexpr uint32_t kBindingHandleTable = 5;  // STORAGE_BUFFER, read-only
inline constexpr uint32_t kImageBindingCount = 6;

// Handles are slots 1 .. kHandleCapacity - 1 shared by images and samplers (a
// handle names one or the other, never both); slot 0 is never used, so a
// zero handle (an argument left unset) traps.
inline constexpr uint32_t kHandleCapacity = 1024;

// The handle table: kHandleCapacity entries of 16 bytes, written by the host
// when an image or sampler is created or destroyed:
//   u32 width, u32 height, u32 depth (texels; 1 for 2D), u32 flags
// flags == 0: the slot is free. A kernel checks the entry before each access:
// the handle below the table's length, the flags right for the access, and
// integer coordinates below the size; otherwise it traps (InvalidHandle,
// ImageOutOfBounds) without touching the descriptor.
inline constexpr uint32_t kHandleEntrySize = 16;
inline constexpr uint32_t kHandleWidth = 0;
inline constexpr uint32_t kHandleHeight = 4;
inline constexpr uint32_t kHandleDepth = 8;
inline constexpr uint32_t kHandleFlags = 12;
inline constexpr uint32_t kHandleStorage = 1;  // in the storage image array of its dimension
inline constexpr uint32_t kHandleSampled = 2;  // in the sampled image array of its dimension
inline constexpr uint32_t kHandle3D = 4;       // a 3D image (else 2D)
inline constexpr uint32_t kHandleSampler = 8;  // a sampler

}  // namespace wasmgpu::abi
