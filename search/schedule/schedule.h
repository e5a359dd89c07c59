// Schedule: the user-facing scheduling API. It wraps a ScheduleState (the function being
// transformed), hands out random variables (BlockRV, LoopRV, ExprRV) that are resolved
// against the current function on every use, samples with a seeded random engine, and
// records every successful primitive call in its Trace. A call that fails throws
// kiln::Error(kSchedule) and leaves the function and the trace unchanged.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "ir/function.h"
#include "search/schedule/index_map.h"
#include "search/schedule/instruction.h"
#include "search/schedule/random.h"
#include "search/schedule/state.h"
#include "search/schedule/trace.h"

namespace kiln::search {

// A split factor: a constant, a sampled integer, or nullopt (inferred from the extent).
struct Factor {
  Factor(std::nullopt_t) {}                         // NOLINT(google-explicit-constructor)
  Factor(int v) : kind(kInt), value(v) {}           // NOLINT(google-explicit-constructor)
  Factor(int64_t v) : kind(kInt), value(v) {}       // NOLINT(google-explicit-constructor)
  Factor(ExprRV rv) : kind(kExpr), value(rv.id) {}  // NOLINT(google-explicit-constructor)
  enum Kind { kNone, kInt, kExpr } kind = kNone;
  int64_t value = 0;
};

// An annotation value: an integer, a float, a string or a sampled integer.
using AnnotationValue = std::variant<int64_t, double, std::string, ExprRV>;

// Which of a block's buffers a primitive means: the index-th it reads or writes.
enum class BufferIndexType : uint8_t { kRead = 0, kWrite = 1 };

// The most factors SamplePerfectTile draws (TVM's tiling rules use at most 5).
inline constexpr int kMaxTileFactors = 16;

// Where SampleComputeLocation may put a block besides a loop.
inline constexpr int64_t kComputeLocationRoot = -1;

class Schedule {
 public:
  explicit Schedule(ir::PrimFunc func, uint64_t seed = 1);

  const ir::PrimFunc& func() const { return state_.func(); }
  const ScheduleState& state() const { return state_; }
  const Trace& trace() const { return trace_; }
  RandomEngine& rng() { return rng_; }

  // Marks the end of the design space in the trace: what follows is the postprocessors'
  // (TVM's EnterPostproc; it changes nothing in the function).
  void EnterPostproc();

  // ---- Resolving random variables (kiln::Error(kSchedule) when one no longer exists) ----
  const ir::BlockNode* Get(BlockRV rv) const;
  const ir::BlockRealizeNode* GetRealize(BlockRV rv) const;
  const ir::ForNode* Get(LoopRV rv) const;
  int64_t Get(ExprRV rv) const;
  // True when `rv` is the root mark of SampleComputeLocation (no loop).
  bool IsRootMark(LoopRV rv) const;

  // ---- Getting blocks and loops ----
  BlockRV GetBlock(const std::string& name);
  std::vector<LoopRV> GetLoops(BlockRV block);
  std::vector<BlockRV> GetChildBlocks(BlockRV block);
  std::vector<BlockRV> GetChildBlocks(LoopRV loop);
  std::vector<BlockRV> GetProducers(BlockRV block);
  std::vector<BlockRV> GetConsumers(BlockRV block);

  // ---- Loop transformations ----
  // At most one factor may be inferred. When the product exceeds the extent, the blocks
  // under the loop get the predicate `fused index < extent`.
  std::vector<LoopRV> Split(LoopRV loop, const std::vector<Factor>& factors,
                            bool preserve_unit_iters = true);
  LoopRV Fuse(const std::vector<LoopRV>& loops, bool preserve_unit_iters = true);
  void Reorder(const std::vector<LoopRV>& ordered_loops);
  LoopRV AddUnitLoop(BlockRV block);
  LoopRV AddUnitLoop(LoopRV loop);

  // ---- Parallelism ----
  void Parallel(LoopRV loop);
  void Vectorize(LoopRV loop);
  void Unroll(LoopRV loop);
  void Bind(LoopRV loop, const std::string& thread_axis);

  // ---- Annotations ----
  void Annotate(LoopRV loop, const std::string& key, const AnnotationValue& value);
  void Annotate(BlockRV block, const std::string& key, const AnnotationValue& value);
  void Unannotate(LoopRV loop, const std::string& key);
  void Unannotate(BlockRV block, const std::string& key);

  // ---- Sampling ----
  std::vector<ExprRV> SamplePerfectTile(LoopRV loop, int n, int64_t max_innermost_factor,
                                        std::optional<std::vector<int64_t>> decision = {});
  ExprRV SampleCategorical(const std::vector<int64_t>& candidates, const std::vector<double>& probs,
                           std::optional<int64_t> decision = {});
  // A loop at which ComputeAt(block, loop) is valid, or the root mark (leave it in place).
  LoopRV SampleComputeLocation(BlockRV block, std::optional<int64_t> decision = {});
  // How many loops SampleComputeLocation(block) chooses from besides the root mark (its
  // decisions are -1 and 0 .. this - 1); recorded nothing.
  int64_t NumComputeLocations(BlockRV block) const;

  // ---- Compute location ----
  void ComputeAt(BlockRV block, LoopRV loop, bool preserve_unit_loops = false);
  void ReverseComputeAt(BlockRV block, LoopRV loop, bool preserve_unit_loops = false);
  void ComputeInline(BlockRV block);
  void ReverseComputeInline(BlockRV block);

  // ---- Cache and storage ----
  BlockRV CacheRead(BlockRV block, int read_buffer_index, const std::string& storage_scope);
  BlockRV CacheWrite(BlockRV block, int write_buffer_index, const std::string& storage_scope);
  void SetScope(BlockRV block, int write_buffer_index, const std::string& storage_scope);
  // Pads the buffer so that the stride of `axis` is factor * k + offset (TVM's storage_align).
  void StorageAlign(BlockRV block, int write_buffer_index, int axis, int factor, int offset);

  // ---- Layout ----
  // Rewrites an intermediate buffer into the layout `index_map` (a bijection onto its new
  // shape) and every access to it; a parameter buffer is rejected.
  void TransformLayout(BlockRV block, int buffer_index, BufferIndexType type,
                       const IndexMap& index_map);

  // ---- Reduction ----
  BlockRV DecomposeReduction(BlockRV block, LoopRV loop);
  // Factors the reduction under `loop` over it: returns the new rfactor block; handles to
  // the reduction block follow the write-back block, which keeps its name.
  BlockRV RFactor(LoopRV loop, int factor_axis = 0);

  // The name of a random variable as it is printed: "b3", "l4", "v5" (its id).
  static std::string RVName(const InstArg& arg);

 private:
  struct LoopTarget {
    ir::Var var;  // undefined for the root mark
    bool root = false;
  };
  int BlockIndex(BlockRV rv) const;
  int LoopIndex(LoopRV rv) const;
  BlockRV NewBlockRV(const std::string& name);
  LoopRV NewLoopRV(const ir::Var& var);
  ExprRV NewExprRV(int64_t value);
  void Record(std::string kind, std::vector<InstArg> inputs, nlohmann::json attrs,
              std::vector<InstArg> outputs, std::optional<nlohmann::json> decision = std::nullopt);
  void AnnotateImpl(InstArg target, const std::string& key, const AnnotationValue& value);
  void UnannotateImpl(InstArg target, const std::string& key);
  std::vector<BlockRV> ProducersOrConsumers(BlockRV block, bool producers);
  std::vector<int> ComputeLocationCandidates(int block_index) const;

  ScheduleState state_;
  Trace trace_;
  RandomEngine rng_;
  int64_t next_id_ = 0;
  std::unordered_map<int64_t, std::string> blocks_;
  std::unordered_map<int64_t, LoopTarget> loops_;
  std::unordered_map<int64_t, int64_t> exprs_;
};

}  // namespace kiln::search
