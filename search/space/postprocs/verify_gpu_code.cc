// Verify-GPU-code (MetaSchedule's VerifyGPUCode): the last GPU postprocessor. It lowers the
// candidate as a GPU target would (codegen/gpu/lower_gpu.h) and rejects it when the kernels
// do not fit the device (threads per block, extent per axis, shared memory per block: the
// lowering's own check) or when the lowering refuses it. Two checks of its own: a reduction
// iteration bound to threads (threads would race on one accumulator: the lowering has no
// block-wide reduction; cross_thread_reduction factors such reductions instead), and a
// thread's "local" memory beyond what registers and a small stack hold.
#include "codegen/gpu/lower_gpu.h"
#include "ir/functor.h"
#include "search/schedule/primitive/utils.h"
#include "search/space/postprocs/postprocs.h"

namespace kiln::search {

namespace {

// Sums the bytes of the "local" allocations of a lowered function.
class LocalBytes : public ir::IRVisitor {
 public:
  int64_t bytes = 0;
  bool symbolic = false;
  void VisitStmt_(const ir::AllocateNode* op) override {
    if (op->buffer->scope.rfind("local", 0) == 0) {
      int64_t size = std::max(1, op->buffer->dtype.bits() / 8);
      for (const ir::Expr& d : op->buffer->shape) {
        auto extent = ir::AsConstInt(d);
        if (!extent) {
          symbolic = true;
          break;
        }
        size *= *extent;
      }
      bytes += size;
    }
    ir::IRVisitor::VisitStmt_(op);
  }
};

class VerifyGpuCode : public Postproc {
 public:
  explicit VerifyGpuCode(codegen::gpu::GpuLimits limits) : preset_(limits), limits_(limits) {}
  std::string Name() const override { return "verify_gpu_code"; }
  void Initialize(const TuneContext& context) override {
    limits_ = preset_;
    if (context.max_threads_per_block > 0) {
      limits_.max_threads_per_block = context.max_threads_per_block;
      // A device that reports its threads per block allows them along x and y.
      limits_.max_block_extent[0] = context.max_threads_per_block;
      limits_.max_block_extent[1] = context.max_threads_per_block;
    }
    if (context.max_shared_memory_bytes > 0) {
      limits_.max_shared_bytes = context.max_shared_memory_bytes;
    }
  }
  std::unique_ptr<Postproc> Clone() const override {
    return std::make_unique<VerifyGpuCode>(*this);
  }

  bool Apply(Schedule& sch) override {
    if (ReducesAcrossThreads(sch.state())) return false;
    try {
      ir::PrimFunc lowered = codegen::Lower(sch.func(), codegen::gpu::GpuLowerOptions());
      LocalBytes local;
      local.VisitStmt(lowered->body);
      if (local.symbolic || local.bytes > kMaxLocalBytes) return false;
      codegen::gpu::LowerToKernels(lowered, "verify", limits_);
    } catch (const Error&) {
      return false;
    }
    return true;
  }

 private:
  // A thread's registers and a little stack: beyond this a register tile spills badly (and
  // the CPU emulations compile it slowly).
  static constexpr int64_t kMaxLocalBytes = 16 << 10;

  static bool ReducesAcrossThreads(const ScheduleState& state) {
    for (int i = 0; i < static_cast<int>(state.size()); ++i) {
      const ir::ForNode* loop = state.entry(i).loop();
      if (!loop || loop->for_kind != ir::ForKind::kThreadBinding ||
          loop->thread_tag.rfind("blockIdx", 0) == 0) {
        continue;
      }
      for (const LoopUse& use : BlocksUsingLoop(state, i)) {
        if (!use.use.only_spatial()) return true;
      }
    }
    return false;
  }

  codegen::gpu::GpuLimits preset_;
  codegen::gpu::GpuLimits limits_;
};

}  // namespace

std::unique_ptr<Postproc> MakeVerifyGpuCode(const codegen::gpu::GpuLimits& limits) {
  return std::make_unique<VerifyGpuCode>(limits);
}

}  // namespace kiln::search
