#include "cpu/workgroup_fibers.h"

#include <sys/mman.h>

#include <cstdlib>

namespace wasmgpu::cpu {

namespace {

// The scheduler running fibers on this thread, for a fiber starting
// (makecontext passes no pointers portably) or reaching a barrier.
thread_local WorkgroupFibers* scheduler_on_thread = nullptr;

}  // namespace

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
  ++used_;
}

void WorkgroupFibers::start() {
  WorkgroupFibers* self = scheduler_on_thread;
  Fiber* fiber = self->running_;
  self->entry_(&fiber->state, fiber->invocation, fiber->invocation + 1);
  fiber->done = true;
  // Returning resumes uc_link: the scheduler.
}

void WorkgroupFibers::run(KernelEntry entry) {
  entry_ = entry;
  for (uint32_t i = 0; i < used_; ++i) {
    Fiber& fiber = fibers_[i];
    getcontext(&fiber.context);
    fiber.context.uc_stack.ss_sp = stacks_ + size_t(i) * kFiberStackBytes;
    fiber.context.uc_stack.ss_size = kFiberStackBytes;
    fiber.context.uc_link = &scheduler_;
    makecontext(&fiber.context, &WorkgroupFibers::start, 0);
  }
  for (uint32_t live = used_; live > 0;) {
    live = 0;
    for (uint32_t i = 0; i < used_; ++i) {
      Fiber& fiber = fibers_[i];
      if (fiber.done) continue;
      running_ = &fiber;
      scheduler_on_thread = this;
      swapcontext(&scheduler_, &fiber.context);
      ++switches_;
      if (!fiber.done) ++live;
    }
  }
  running_ = nullptr;
  used_ = 0;
}

void WorkgroupFibers::barrier(InvocationState* state) {
  auto* fiber = static_cast<Fiber*>(state->fiber);
  WorkgroupFibers* self = scheduler_on_thread;  // the scheduler running on this thread
  ++self->switches_;
  swapcontext(&fiber->context, &self->scheduler_);
}

}  // namespace wasmgpu::cpu
