// Whether the ONNX importer turns a block-structured masked attention into the block-sparse
// attention kernels (convert_block_attention.h): auto (when the mask's block density is at most
// kSparseAttentionMaxDensity), always (every block-structured mask) or never. The mode is an
// import option that changes a model's tasks, so `tune run`, `tune compile` and `tune tasks`
// take it as --sparse-attention and a job carries it (ir/model/model_tasks.h sets it around
// each import). It is set per thread by ScopedSparseAttentionMode, so that two imports on
// different threads (the coordinator's jobs) do not see each other's; without one the mode is
// auto. Defined in convert_block_attention.cc.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kiln::ir::frontend::onnx {

enum class SparseAttentionMode { kAuto, kAlways, kNever };

// The largest fraction of b x b blocks attended for which auto converts. Measured on one core
// of the shared 2-core Zen 4 machine (docs/sparse.md, "Block-sparse attention from models"):
// with today's "sparse-cpu" kernels (the SDDMM at 13-25 GFLOP/s against about 100 for the dense
// batched MatMul) the sparse layer wins 1.5x at 18% of the blocks of 32, is 1.1x slower at
// 35% and 1.2x at 45%, and 2x or more from 60%; at 2 heads of 32 it wins 1.1x at 24%.
inline constexpr double kSparseAttentionMaxDensity = 0.30;

// "auto", "always" or "never"; nullopt for anything else.
std::optional<SparseAttentionMode> ParseSparseAttentionMode(std::string_view text);
std::string SparseAttentionModeName(SparseAttentionMode mode);

// The mode imports on this thread use now: the innermost live ScopedSparseAttentionMode's,
// else auto.
SparseAttentionMode CurrentSparseAttentionMode();

// Sets the mode for imports on this thread until it is destroyed (restoring the previous one).
class ScopedSparseAttentionMode {
 public:
  explicit ScopedSparseAttentionMode(SparseAttentionMode mode);
  ~ScopedSparseAttentionMode();
  ScopedSparseAttentionMode(const ScopedSparseAttentionMode&) = delete;
  ScopedSparseAttentionMode& operator=(const ScopedSparseAttentionMode&) = delete;

 private:
  SparseAttentionMode previous_;
};

}  // namespace kiln::ir::frontend::onnx
