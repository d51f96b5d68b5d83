// The interface of a kernel: its parameters (scalars, buffers, images,
// samplers, raw bytes), workgroup size, specialization constants and
// push-constant block, as Module::kernels() and Kernel::interface() report
// them (KernelInterface, Param, ScalarType, ParamKind, ...).
//
// The types are defined by the interface library below the public API
// (the stages that reflect and launch kernels use them too), installed beside
// this header; this header is what applications include.
#pragma once

#include "interface/kernel_interface.h"
