#include "wasm/validator.h"
namespace wasmgpu::wasm {
Status validate(const Module&) { return {}; }
}
