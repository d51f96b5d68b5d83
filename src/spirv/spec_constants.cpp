#include "spirv/spec_constants.h"

#include <algorithm>
#include <iterator>

#include "abi/launch_abi.h"
#include "abi/launch_proof.h"

namespace wasmgpu::spirv {

Id SpecConstants::workgroup_size() {
  if (workgroup_size_id_) return workgroup_size_id_;
  Id sizes[] = {b_.spec_const_u32(64, 0), b_.spec_const_u32(1, 1), b_.spec_const_u32(1, 2)};
  std::copy(std::begin(sizes), std::end(sizes), workgroup_size_components_);
  workgroup_size_id_ = b_.spec_const_composite(b_.vector_type(types_.u32, 3), sizes);
  b_.decorate(workgroup_size_id_, spv::Decoration::BuiltIn, {uint32_t(spv::BuiltIn::WorkgroupSize)});
  return workgroup_size_id_;
}

Id SpecConstants::workgroup_at_most(uint32_t invocations) {
  auto found = workgroup_at_most_ids_.find(invocations);
  if (found != workgroup_at_most_ids_.end()) return found->second;
  workgroup_size();
  const Id* s = workgroup_size_components_;
  const Operand xy_operands[] = {s[0], s[1]};
  const Id xy = b_.spec_const_op(types_.u32, spv::Op::OpIMul, xy_operands);
  const Operand xyz_operands[] = {xy, s[2]};
  const Id xyz = b_.spec_const_op(types_.u32, spv::Op::OpIMul, xyz_operands);
  const Operand compare[] = {xyz, b_.const_u32(invocations)};
  const Id id = b_.spec_const_op(types_.bool_type, spv::Op::OpULessThanEqual, compare);
  workgroup_at_most_ids_.emplace(invocations, id);
  return id;
}

Id SpecConstants::index_dims() {
  if (!index_dims_id_) {
    index_dims_id_ = b_.spec_const_u32(3, abi::kSpecIndexDims);
    b_.name(index_dims_id_, "index_dims");
  }
  return index_dims_id_;
}

Id SpecConstants::param_proven(uint32_t param) {
  auto found = param_proven_ids_.find(param);
  if (found != param_proven_ids_.end()) return found->second;
  if (!proven_params_id_) {
    proven_params_id_ = b_.spec_const_u32(0, abi::kSpecProvenParams);
    b_.name(proven_params_id_, "proven_params");
  }
  const Operand bit_operands[] = {proven_params_id_, b_.const_u32(param < 32 ? uint32_t(1) << param : 0)};
  const Id bit = b_.spec_const_op(types_.u32, spv::Op::OpBitwiseAnd, bit_operands);
  const Operand set_operands[] = {bit, b_.const_u32(0)};
  const Id id = b_.spec_const_op(types_.bool_type, spv::Op::OpINotEqual, set_operands);
  param_proven_ids_.emplace(param, id);
  return id;
}

}  // namespace wasmgpu::spirv
