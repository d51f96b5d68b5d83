#include "cpu/workgroup_fibers.h"

#include <sys/mman.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <cstring>

#include "cpu/kernel_support.h"

namespace wasmgpu::cpu {

namespace {

// The scheduler running fibers on this thread, for a fiber reaching a
// barrier or a subgroup operation.
thread_local WorkgroupFibers* scheduler_on_thread = nullptr;

}  // namespace

// Boost.Context's stack allocator concept over memory the scheduler owns:
// the stack grows down from the slice's end; nothing is freed per fiber.
class WorkgroupFibers::StackSlice {
 public:
  StackSlice(uint8_t* base, size_t bytes) : base_(base), bytes_(bytes) {}
  boost::context::stack_context allocate() {
    boost::context::stack_context stack;
    stack.size = bytes_;
    stack.sp = base_ + bytes_;
    return stack;
  }
  void deallocate(boost::context::stack_context&) noexcept {}

 private:
  uint8_t* base_;
  size_t bytes_;
};

WorkgroupFibers::WorkgroupFibers(uint32_t max_invocations, uint32_t stack_slot_bytes)
    : fibers_(max_invocations),
      stack_slots_(size_t(max_invocations) * (stack_slot_bytes + 16)),
      stack_slot_bytes_(stack_slot_bytes + 16) {
  stacks_bytes_ = size_t(max_invocations) * kFiberStackBytes;
  void* reserved =
      mmap(nullptr, stacks_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (reserved == MAP_FAILED) std::abort();  // address space for the stacks: nothing to go on with
  stacks_ = static_cast<uint8_t*>(reserved);
}

WorkgroupFibers::~WorkgroupFibers() { munmap(stacks_, stacks_bytes_); }

void WorkgroupFibers::add(const InvocationState& row, uint32_t invocation) {
  Fiber& fiber = fibers_[used_];
  fiber.state = row;
  fiber.state.stack_slot = stack_slots_.data() + size_t(used_) * stack_slot_bytes_;
  fiber.state.fiber = &fiber;
  fiber.invocation = invocation;
  fiber.done = false;
  fiber.slots[0] = fiber.slots[1] = Slot{};
  ++used_;
}

void WorkgroupFibers::run(KernelEntry entry) {
  entry_ = entry;
  scheduler_on_thread = this;
  for (uint32_t i = 0; i < used_; ++i) {
    Fiber& fiber = fibers_[i];
    fiber.context =
        boost::context::fiber(std::allocator_arg, StackSlice(stacks_ + size_t(i) * kFiberStackBytes, kFiberStackBytes),
                              [this, &fiber](boost::context::fiber&& scheduler) {
                                fiber.scheduler = std::move(scheduler);
                                run_compiled(entry_, &fiber.state, fiber.invocation, fiber.invocation + 1);
                                fiber.done = true;
                                return std::move(fiber.scheduler);
                              });
  }
  round_ = 0;
  for (uint32_t live = used_; live > 0; ++round_) {
    live = 0;
    for (uint32_t i = 0; i < used_; ++i) {
      Fiber& fiber = fibers_[i];
      if (fiber.done) continue;
      fiber.context = std::move(fiber.context).resume();
      ++switches_;
      if (!fiber.done) ++live;
    }
  }
  used_ = 0;
}

void WorkgroupFibers::barrier(InvocationState* state) {
  auto* fiber = static_cast<Fiber*>(state->fiber);
  ++scheduler_on_thread->switches_;
  fiber->scheduler = std::move(fiber->scheduler).resume();
}

uint64_t WorkgroupFibers::subgroup(InvocationState* state, uint32_t op, uint64_t value, uint32_t lane_argument) {
  auto* fiber = static_cast<Fiber*>(state->fiber);
  WorkgroupFibers* self = scheduler_on_thread;
  const uint64_t round = self->round_;
  fiber->slots[round & 1] = Slot{value, round};
  ++self->switches_;
  fiber->scheduler = std::move(fiber->scheduler).resume();
  // Every live invocation has had its turn in `round` now.
  const uint32_t index = uint32_t(fiber - self->fibers_.data());
  const uint32_t first = index / kSubgroupSize * kSubgroupSize;
  const uint32_t end = std::min(first + kSubgroupSize, self->used_);
  const uint32_t own = index - first;
  uint32_t words[kSubgroupSize] = {};
  bool active[kSubgroupSize] = {};
  for (uint32_t j = first; j < end; ++j) {
    const Slot& slot = self->fibers_[j].slots[round & 1];
    active[j - first] = slot.round == round;
    words[j - first] = uint32_t(slot.value);
  }
  auto as_float = [](uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  };
  auto bits_of = [](float f) {
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    return uint64_t(bits);
  };
  // Folds the active lanes in [0, last) in lane order; `none` when there are none.
  auto fold_int = [&](uint32_t last, uint32_t none, auto combine) {
    std::optional<uint32_t> acc;
    for (uint32_t j = 0; j < last; ++j)
      if (active[j]) acc = acc ? combine(*acc, words[j]) : words[j];
    return uint64_t(acc.value_or(none));
  };
  auto fold_float = [&](uint32_t last, auto combine) {
    std::optional<float> acc;
    for (uint32_t j = 0; j < last; ++j)
      if (active[j]) acc = acc ? combine(*acc, as_float(words[j])) : as_float(words[j]);
    return bits_of(acc.value_or(0.0f));
  };
  auto add = [](uint32_t a, uint32_t b) { return a + b; };
  auto fadd = [](float a, float b) { return a + b; };
  switch (CpuIntrinsic(op)) {
    case CpuIntrinsic::SubgroupBroadcast:
      return lane_argument < kSubgroupSize && active[lane_argument] ? words[lane_argument] : 0;
    case CpuIntrinsic::SubgroupBallot: {
      uint64_t mask = 0;
      for (uint32_t j = 0; j < kSubgroupSize; ++j)
        if (active[j] && words[j] != 0) mask |= uint64_t(1) << j;
      return mask;
    }
    case CpuIntrinsic::SubgroupAll:
    case CpuIntrinsic::SubgroupAny: {
      bool all = true, any = false;
      for (uint32_t j = 0; j < kSubgroupSize; ++j)
        if (active[j]) all &= words[j] != 0, any |= words[j] != 0;
      return CpuIntrinsic(op) == CpuIntrinsic::SubgroupAll ? all : any;
    }
    case CpuIntrinsic::SubgroupAddI32: return fold_int(kSubgroupSize, 0, add);
    case CpuIntrinsic::SubgroupAddF32: return fold_float(kSubgroupSize, fadd);
    case CpuIntrinsic::SubgroupMinS:
      return fold_int(kSubgroupSize, 0, [](uint32_t a, uint32_t b) { return int32_t(a) < int32_t(b) ? a : b; });
    case CpuIntrinsic::SubgroupMaxS:
      return fold_int(kSubgroupSize, 0, [](uint32_t a, uint32_t b) { return int32_t(a) > int32_t(b) ? a : b; });
    case CpuIntrinsic::SubgroupMinU:
      return fold_int(kSubgroupSize, 0, [](uint32_t a, uint32_t b) { return std::min(a, b); });
    case CpuIntrinsic::SubgroupMaxU:
      return fold_int(kSubgroupSize, 0, [](uint32_t a, uint32_t b) { return std::max(a, b); });
    case CpuIntrinsic::SubgroupMinF: return fold_float(kSubgroupSize, [](float a, float b) { return std::fmin(a, b); });
    case CpuIntrinsic::SubgroupMaxF: return fold_float(kSubgroupSize, [](float a, float b) { return std::fmax(a, b); });
    case CpuIntrinsic::SubgroupInclusiveAddI32: return fold_int(own + 1, 0, add);
    case CpuIntrinsic::SubgroupInclusiveAddF32: return fold_float(own + 1, fadd);
    case CpuIntrinsic::SubgroupExclusiveAddI32: return fold_int(own, 0, add);
    case CpuIntrinsic::SubgroupExclusiveAddF32: return fold_float(own, fadd);
    default: return 0;
  }
}

}  // namespace wasmgpu::cpu
