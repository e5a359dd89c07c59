// ThreadgroupExecutor: fibers over ucontext, resumed round-robin between barriers.
#include "runtime/metal_shim/threadgroup_executor.h"

#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "support/error.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif

namespace kiln::runtime::metal_shim {
namespace {

// AddressSanitizer must be told of each switch between stacks, or it takes a fiber's frames
// for the scheduler's (false reports, and poisoned stack left behind). No-ops without it.
#if defined(__SANITIZE_ADDRESS__)
void StartSwitch(void** fake_stack, const void* bottom, size_t size) {
  __sanitizer_start_switch_fiber(fake_stack, bottom, size);
}
void FinishSwitch(void* fake_stack, const void** bottom_old, size_t* size_old) {
  __sanitizer_finish_switch_fiber(fake_stack, bottom_old, size_old);
}
#else
void StartSwitch(void**, const void*, size_t) {}
void FinishSwitch(void*, const void**, size_t*) {}
#endif

// The executor running on this OS thread, for Barrier().
thread_local ThreadgroupExecutor* current_executor = nullptr;

size_t PageSize() { return static_cast<size_t>(sysconf(_SC_PAGESIZE)); }

}  // namespace

struct ThreadgroupExecutor::Fiber {
  enum class State { kReady, kWaiting, kDone };
  ucontext_t context;
  void* mapping = nullptr;  // guard page + stack
  size_t mapping_bytes = 0;
  State state = State::kReady;
  ~Fiber() {
    if (mapping) munmap(mapping, mapping_bytes);
  }
};

struct ThreadgroupExecutor::Scheduler {
  ucontext_t context;
  // The scheduler's stack, as AddressSanitizer reports it on the first switch into a fiber.
  const void* stack_bottom = nullptr;
  size_t stack_size = 0;
};

ThreadgroupExecutor::ThreadgroupExecutor(size_t stack_bytes)
    : stack_bytes_(stack_bytes), scheduler_(std::make_unique<Scheduler>()) {}

ThreadgroupExecutor::~ThreadgroupExecutor() = default;

void ThreadgroupExecutor::Reserve(int threads) {
  size_t page = PageSize();
  size_t stack = (stack_bytes_ + page - 1) / page * page;
  while (static_cast<int>(fibers_.size()) < threads) {
    auto fiber = std::make_unique<Fiber>();
    fiber->mapping_bytes = stack + page;
    void* p = mmap(nullptr, fiber->mapping_bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    KILN_CHECK(p != MAP_FAILED, ErrorKind::kRuntime,
               "cannot map a " + std::to_string(fiber->mapping_bytes) +
                   "-byte stack for threadgroup thread " + std::to_string(fibers_.size()));
    fiber->mapping = p;
    // The lowest page guards against an overflowing stack (stacks grow down).
    KILN_CHECK(mprotect(p, page, PROT_NONE) == 0, ErrorKind::kRuntime,
               "cannot protect a threadgroup stack's guard page");
    fibers_.push_back(std::move(fiber));
  }
}

void ThreadgroupExecutor::Trampoline(unsigned int low, unsigned int high) {
  auto* self = reinterpret_cast<ThreadgroupExecutor*>((static_cast<uintptr_t>(high) << 32) |
                                                      static_cast<uintptr_t>(low));
  FinishSwitch(nullptr, &self->scheduler_->stack_bottom, &self->scheduler_->stack_size);
  int index = self->current_;
  (*self->body_)(index);
  self->fibers_[index]->state = Fiber::State::kDone;
  // Returning resumes uc_link, the scheduler; this fiber's stack is done with.
  StartSwitch(nullptr, self->scheduler_->stack_bottom, self->scheduler_->stack_size);
}

void ThreadgroupExecutor::Resume(int index) {
  current_ = index;
  Fiber& f = *fibers_[index];
  void* fake_stack = nullptr;
  size_t page = PageSize();
  StartSwitch(&fake_stack, static_cast<char*>(f.mapping) + page, f.mapping_bytes - page);
  swapcontext(&scheduler_->context, &f.context);
  FinishSwitch(fake_stack, nullptr, nullptr);
  current_ = -1;
}

int64_t ThreadgroupExecutor::Run(int threads, const std::function<void(int)>& body) {
  Reserve(threads);
  ThreadgroupExecutor* outer = current_executor;
  current_executor = this;
  body_ = &body;
  size_t page = PageSize();
  uintptr_t self = reinterpret_cast<uintptr_t>(this);
  for (int t = 0; t < threads; ++t) {
    Fiber& f = *fibers_[t];
    f.state = Fiber::State::kReady;
    getcontext(&f.context);
    f.context.uc_stack.ss_sp = static_cast<char*>(f.mapping) + page;
    f.context.uc_stack.ss_size = f.mapping_bytes - page;
    f.context.uc_link = &scheduler_->context;
    makecontext(&f.context, reinterpret_cast<void (*)()>(&Trampoline), 2,
                static_cast<unsigned int>(self & 0xffffffffu),
                static_cast<unsigned int>(self >> 32));
  }
  int64_t barriers = 0;
  int done = 0;
  while (done < threads) {
    // One pass: each ready thread runs to its next barrier or its end.
    for (int t = 0; t < threads; ++t) {
      if (fibers_[t]->state != Fiber::State::kReady) continue;
      Resume(t);
      if (fibers_[t]->state == Fiber::State::kDone) ++done;
    }
    if (done == threads) break;
    // Every thread still running waits at the barrier: release them all.
    ++barriers;
    for (int t = 0; t < threads; ++t) {
      if (fibers_[t]->state == Fiber::State::kWaiting) fibers_[t]->state = Fiber::State::kReady;
    }
  }
  body_ = nullptr;
  current_executor = outer;
  return barriers;
}

void ThreadgroupExecutor::Barrier() {
  ThreadgroupExecutor* self = current_executor;
  if (self == nullptr || self->current_ < 0) {
    std::fprintf(stderr,
                 "kiln metal shim: threadgroup_barrier reached outside a threadgroup's fibers "
                 "(a kernel that reached no barrier on its first launch reached one later)\n");
    std::_Exit(70);
  }
  Fiber& f = *self->fibers_[self->current_];
  f.state = Fiber::State::kWaiting;
  void* fake_stack = nullptr;
  StartSwitch(&fake_stack, self->scheduler_->stack_bottom, self->scheduler_->stack_size);
  swapcontext(&f.context, &self->scheduler_->context);
  FinishSwitch(fake_stack, &self->scheduler_->stack_bottom, &self->scheduler_->stack_size);
}

}  // namespace kiln::runtime::metal_shim
