// Per-store feature extraction: a walk over the lowered function that keeps the loops and
// allocations in scope and writes one row at each store.
#include "cost_model/features/per_store_features.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "codegen/passes/compact_buffers.h"
#include "codegen/passes/lower_blocks.h"
#include "codegen/passes/place_allocations.h"
#include "cost_model/features/arith_counts.h"
#include "cost_model/features/loop_nest.h"
#include "ir/functor.h"
#include "ir/typed_functor.h"

namespace kiln::cost_model {

using namespace ir;

namespace {

constexpr int kMaxBuffers = 5;
constexpr int kCurveSamples = 10;
constexpr int kForKindFeatures = 11;  // num, prod, len, 8 positions
constexpr int kBufferFeatures = 18;
constexpr int kGroup1 = static_cast<int>(kNumArithKinds) + 3 * kForKindFeatures + 8;
constexpr int kGroup2 = kMaxBuffers * kBufferFeatures;
constexpr int kGpuFeatures = 8;
static_assert(kGroup1 == 57 &&
              kGroup1 + kGroup2 + kCurveSamples + 4 + 3 + kGpuFeatures == kNumStoreFeatures);

// Where the loops of one kind sit in the nest, as seen from the store.
enum LoopPos {
  kPosNone,
  kPosInnerSpatial,
  kPosMiddleSpatial,
  kPosOuterSpatial,
  kPosInnerReduce,
  kPosMiddleReduce,
  kPosOuterReduce,
  kPosMixed,
};

struct Allocation {
  double bytes = 0;
  size_t depth = 0;  // loops of the nest outside the allocation
};

// All accesses of one buffer in one store.
struct BufferAccess {
  Buffer buffer;
  bool read = false, write = false;
  std::vector<const std::vector<Expr>*> indices;
};

class LoadCollector : public IRVisitor {
 public:
  std::vector<const BufferLoadNode*> loads;
  void VisitExpr_(const BufferLoadNode* op) override {
    loads.push_back(op);
    IRVisitor::VisitExpr_(op);
  }
};

double ElemBytes(const Buffer& b) { return b->dtype.bytes() * std::max(1, b->dtype.lanes()); }

class Extractor : public StmtFunctor<void(const Stmt&)> {
 public:
  Extractor(const StoreFeatureOptions& options, int64_t data_dependent_extent)
      : options_(options), nest_(data_dependent_extent) {}
  std::vector<FeatureRow> rows;

  void VisitStmt_(const BufferStoreNode* op) override { rows.push_back(Row(op)); }
  void VisitStmt_(const ForNode* op) override {
    int64_t unroll = 0;
    auto it = op->annotations.find("pragma_auto_unroll_max_step");
    if (it != op->annotations.end()) unroll = AsConstInt(it->second).value_or(0);
    unroll_steps_.push_back(unroll);
    // A loop of one iteration changes nothing the features describe.
    bool counted = AsConstInt(op->extent).value_or(2) != 1;
    if (counted) nest_.Push(op);
    VisitStmt(op->body);
    if (counted) nest_.Pop();
    unroll_steps_.pop_back();
  }
  void VisitStmt_(const BlockNode* op) override {
    if (op->init.defined()) VisitStmt(op->init);
    VisitStmt(op->body);
  }
  void VisitStmt_(const BlockRealizeNode* op) override { VisitStmt(op->block); }
  void VisitStmt_(const SeqStmtNode* op) override {
    for (const Stmt& s : op->seq) VisitStmt(s);
  }
  void VisitStmt_(const IfThenElseNode* op) override {
    VisitStmt(op->then_case);
    if (op->else_case.defined()) VisitStmt(op->else_case);
  }
  void VisitStmt_(const LetStmtNode* op) override { VisitStmt(op->body); }
  void VisitStmt_(const AllocateNode* op) override {
    double elems = 1;
    for (const Expr& e : op->buffer->shape) elems *= static_cast<double>(AsConstInt(e).value_or(1));
    const VarNode* data = op->buffer->data.get();
    auto saved = allocations_.find(data) == allocations_.end()
                     ? std::nullopt
                     : std::optional<Allocation>(allocations_[data]);
    allocations_[data] = Allocation{elems * ElemBytes(op->buffer), nest_.size()};
    scoped_.emplace_back(op->buffer->scope, elems * ElemBytes(op->buffer));
    VisitStmt(op->body);
    scoped_.pop_back();
    if (saved) {
      allocations_[data] = *saved;
    } else {
      allocations_.erase(data);
    }
  }
  void VisitStmt_(const DeclBufferNode* op) override { VisitStmt(op->body); }
  void VisitStmt_(const EvaluateNode*) override {}

 private:
  FeatureRow Row(const BufferStoreNode* store);
  void ForKindFeatures(const BufferStoreNode* store, ForKind kind, float* out) const;

  const StoreFeatureOptions& options_;
  LoopNest nest_;
  std::vector<int64_t> unroll_steps_;
  std::unordered_map<const VarNode*, Allocation> allocations_;
  std::vector<std::pair<std::string, double>> scoped_;  // (scope, bytes) of enclosing Allocates
};

void Extractor::ForKindFeatures(const BufferStoreNode* store, ForKind kind, float* out) const {
  size_t n = nest_.size();
  double num = 0, prod = 1, len = 0;
  int pos = kPosNone;
  for (size_t i = 0; i < n; ++i) {
    if (nest_[i].node->for_kind != kind) continue;
    num += 1;
    prod *= static_cast<double>(nest_[i].extent);
    len = static_cast<double>(nest_[i].extent);
    // A loop the stored element does not depend on is a reduction loop for this store.
    bool spatial = AccessStride(store->indices, store->buffer, nest_, i) != 0;
    int level = i + 1 == n ? 0 : (i == 0 ? 2 : 1);
    int p = (spatial ? kPosInnerSpatial : kPosInnerReduce) + level;
    pos = pos == kPosNone || pos == p ? p : kPosMixed;
  }
  out[0] = static_cast<float>(num);
  out[1] = static_cast<float>(num > 0 ? prod : 0);
  out[2] = static_cast<float>(len);
  out[3 + pos] = 1;
}

FeatureRow Extractor::Row(const BufferStoreNode* store) {
  FeatureRow row{};
  const size_t n = nest_.size();
  const double outer_prod = nest_.ExtentProduct(0);
  const double line = options_.cache_line_bytes;

  // ---- Group 1: arithmetic, loop kinds, thread bindings ----
  ArithCounts counts = CountArith(store);
  for (size_t k = 0; k < kNumArithKinds; ++k)
    row[k] = static_cast<float>(counts.counts[k] * outer_prod);
  float* g1 = row.data() + kNumArithKinds;
  ForKindFeatures(store, ForKind::kVectorized, g1);
  ForKindFeatures(store, ForKind::kUnrolled, g1 + kForKindFeatures);
  ForKindFeatures(store, ForKind::kParallel, g1 + 2 * kForKindFeatures);
  float* gpu = g1 + 3 * kForKindFeatures;
  static const char* kTags[] = {"blockIdx.x",  "blockIdx.y",  "blockIdx.z", "threadIdx.x",
                                "threadIdx.y", "threadIdx.z", "vthread"};
  for (size_t i = 0; i < n; ++i) {
    if (nest_[i].node->for_kind != ForKind::kThreadBinding) continue;
    gpu[0] = 1;
    for (int t = 0; t < 7; ++t) {
      if (nest_[i].node->thread_tag == kTags[t]) {
        gpu[1 + t] = static_cast<float>(std::max<double>(gpu[1 + t], 1) * nest_[i].extent);
      }
    }
  }

  // ---- Group 2: buffer accesses ----
  std::vector<BufferAccess> buffers;
  auto entry = [&](const Buffer& b) -> BufferAccess& {
    for (BufferAccess& a : buffers) {
      if (a.buffer->data.same_as(b->data)) return a;
    }
    BufferAccess fresh;
    fresh.buffer = b;
    buffers.push_back(std::move(fresh));
    return buffers.back();
  };
  {
    BufferAccess& w = entry(store->buffer);
    w.write = true;
    w.indices.push_back(&store->indices);
  }
  LoadCollector loads;
  loads.VisitExpr(store->value);
  for (const BufferLoadNode* load : loads.loads) {
    BufferAccess& r = entry(load->buffer);
    r.read = true;
    r.indices.push_back(&load->indices);
  }
  // touched[b][l]: distinct elements of buffer b while loops [l, n) vary.
  std::vector<std::vector<double>> touched(buffers.size(), std::vector<double>(n + 1));
  for (size_t b = 0; b < buffers.size(); ++b) {
    for (size_t l = 0; l <= n; ++l) {
      touched[b][l] = TouchedElements(buffers[b].indices, buffers[b].buffer, nest_, l);
    }
  }
  auto bytes_at = [&](size_t l) {
    double total = 0;
    for (size_t b = 0; b < buffers.size(); ++b)
      total += touched[b][l] * ElemBytes(buffers[b].buffer);
    return total;
  };
  struct BufferFeature {
    std::array<float, kBufferFeatures> values{};
    double lines = 0, unique_bytes = 0;
  };
  std::vector<BufferFeature> features;
  for (size_t b = 0; b < buffers.size(); ++b) {
    const BufferAccess& a = buffers[b];
    const double eb = ElemBytes(a.buffer);
    BufferFeature f;
    float* v = f.values.data();
    v[a.read && a.write ? 2 : (a.write ? 1 : 0)] = 1;
    double bytes = outer_prod * static_cast<double>(a.indices.size()) * eb;
    double unique_bytes = touched[b][0] * eb;
    // The innermost loop that moves the access; the loops inside it only repeat it.
    int64_t stride = 0;
    double reduce_ratio = 1;
    for (size_t l = n; l-- > 0;) {
      int64_t s = 0;
      for (const std::vector<Expr>* idx : a.indices) {
        int64_t t = std::abs(AccessStride(*idx, a.buffer, nest_, l));
        if (t != 0) s = s == 0 ? t : std::min(s, t);
      }
      if (s != 0) {
        stride = s;
        break;
      }
      reduce_ratio *= static_cast<double>(nest_[l].extent);
    }
    double lines = 1, unique_lines = 1;
    if (stride != 0) {
      lines = outer_prod / reduce_ratio * std::min(1.0, static_cast<double>(stride) * eb / line);
      // Neighbouring elements share a line only when the access moves by less than a line.
      unique_lines =
          std::max(1.0, touched[b][0] * std::min(1.0, static_cast<double>(stride) * eb / line));
    }
    // Reuse: the innermost loop that touches nothing new repeats what its body touched.
    int reuse_type = 2;  // no reuse
    double reuse_iter = 0, reuse_bytes = 0, reuse_ct = 0;
    for (size_t l = n; l-- > 0;) {
      if (nest_[l].extent > 1 && touched[b][l] == touched[b][l + 1]) {
        reuse_type = 0;
        reuse_ct = static_cast<double>(nest_[l].extent);
        reuse_iter = nest_.ExtentProduct(l + 1);
        reuse_bytes = bytes_at(l + 1);
        break;
      }
    }
    if (reuse_type == 2 && a.indices.size() > 1) {
      reuse_type = 1;  // read and written (or read twice) by the same statement
      reuse_ct = static_cast<double>(a.indices.size() - 1);
      reuse_iter = 1;
      reuse_bytes = bytes_at(n);
    }
    double per_reuse = reuse_ct > 0 ? reuse_ct : 1;
    v[3] = static_cast<float>(bytes);
    v[4] = static_cast<float>(unique_bytes);
    v[5] = static_cast<float>(lines);
    v[6] = static_cast<float>(unique_lines);
    v[7 + reuse_type] = 1;
    v[10] = static_cast<float>(reuse_iter);
    v[11] = static_cast<float>(reuse_bytes);
    v[12] = static_cast<float>(reuse_ct);
    v[13] = static_cast<float>(bytes / per_reuse);
    v[14] = static_cast<float>(unique_bytes / per_reuse);
    v[15] = static_cast<float>(lines / per_reuse);
    v[16] = static_cast<float>(unique_lines / per_reuse);
    v[17] = static_cast<float>(stride);
    f.lines = lines;
    f.unique_bytes = unique_bytes;
    features.push_back(f);
  }
  std::stable_sort(
      features.begin(), features.end(), [](const BufferFeature& x, const BufferFeature& y) {
        return x.lines != y.lines ? x.lines > y.lines : x.unique_bytes > y.unique_bytes;
      });
  float* g2 = row.data() + kGroup1;
  for (size_t b = 0; b < features.size() && b < kMaxBuffers; ++b) {
    std::copy(features[b].values.begin(), features[b].values.end(), g2 + b * kBufferFeatures);
  }

  // ---- Group 3: arithmetic intensity curve, from the innermost loop out ----
  float* g3 = g2 + kGroup2;
  double flops = counts.FloatOps();
  if (flops > 0) {
    std::vector<double> xs, ys;
    for (size_t l = n + 1; l-- > 0;) {
      if (l == n && n > 0) continue;  // a point per loop level
      double ops = flops * nest_.ExtentProduct(l);
      double bytes = std::max(1.0, bytes_at(l));
      xs.push_back(std::log2(ops + 1));
      ys.push_back(ops / bytes);
    }
    double x_max = xs.back();
    for (int i = 0; i < kCurveSamples; ++i) {
      double x = x_max * (i + 1) / kCurveSamples;
      size_t k = 0;
      while (k + 1 < xs.size() && xs[k + 1] < x) ++k;
      double y = ys[k];
      if (x > xs[k] && k + 1 < xs.size() && xs[k + 1] > xs[k]) {
        y = ys[k] + (ys[k + 1] - ys[k]) * (x - xs[k]) / (xs[k + 1] - xs[k]);
      }
      g3[i] = static_cast<float>(y);
    }
  }

  // ---- Group 4: allocation of the stored buffer ----
  float* g4 = g3 + kCurveSamples;
  auto alloc = allocations_.find(store->buffer->data.get());
  if (alloc != allocations_.end()) {
    double outer = 1;
    for (size_t i = 0; i < alloc->second.depth && i < n; ++i)
      outer *= static_cast<double>(nest_[i].extent);
    g4[0] = static_cast<float>(alloc->second.bytes);
    g4[1] = static_cast<float>(alloc->second.bytes * outer);
    g4[2] = static_cast<float>(outer);
    g4[3] = static_cast<float>(outer_prod / outer);
  }

  // ---- Group 5: outer loops ----
  float* g5 = g4 + 4;
  g5[0] = static_cast<float>(outer_prod);
  g5[1] = static_cast<float>(n);
  int64_t unroll = 0;
  for (int64_t s : unroll_steps_) unroll = std::max(unroll, s);
  g5[2] = static_cast<float>(unroll);

  // ---- Group 6: the GPU kernel ----
  float* g6 = g5 + 3;
  for (const auto& [scope, bytes] : scoped_) {
    if (scope.rfind("shared", 0) == 0) g6[0] += static_cast<float>(bytes);
    if (scope.rfind("local", 0) == 0) g6[1] += static_cast<float>(bytes);
  }
  // Per axis the largest extent: a cooperative fetch's loop shares its axis with the compute's.
  std::map<std::string, double> axes;
  for (size_t i = 0; i < n; ++i) {
    const ForNode* loop = nest_[i].node;
    if (loop->for_kind != ForKind::kThreadBinding) continue;
    double& extent = axes[loop->thread_tag];
    extent = std::max<double>(extent, static_cast<double>(nest_[i].extent));
  }
  double threads = 1, blocks = 1;
  bool bound = false;
  for (const auto& [tag, extent] : axes) {
    bound = true;
    if (tag.rfind("threadIdx", 0) == 0) threads *= extent;
    if (tag.rfind("blockIdx", 0) == 0) blocks *= extent;
  }
  if (bound) {
    g6[2] = static_cast<float>(threads);
    g6[3] = static_cast<float>(blocks);
    g6[4] = static_cast<float>(std::ceil(threads / 32));
    const std::string& scope = store->buffer->scope;
    g6[scope.rfind("shared", 0) == 0 ? 6 : scope.rfind("local", 0) == 0 ? 7 : 5] = 1;
  }

  for (float& x : row) x = std::log2(x + 1.0f);
  return row;
}

std::vector<std::string> MakeNames() {
  std::vector<std::string> names = {
      "float_mad",     "float_addsub",    "float_mul",        "float_divmod",
      "float_cmp",     "float_math_func", "float_other_func", "int_mad",
      "int_addsub",    "int_mul",         "int_divmod",       "int_cmp",
      "int_math_func", "int_other_func",  "bool_op",          "select_op"};
  static const char* kPos[] = {"none",         "inner_spatial", "middle_spatial", "outer_spatial",
                               "inner_reduce", "middle_reduce", "outer_reduce",   "mixed"};
  for (const char* kind : {"vec", "unroll", "parallel"}) {
    names.push_back(std::string(kind) + "_num");
    names.push_back(std::string(kind) + "_prod");
    names.push_back(std::string(kind) + "_len");
    for (const char* p : kPos) names.push_back(std::string(kind) + "_type." + p);
  }
  for (const char* g : {"is_gpu", "blockIdx_x_len", "blockIdx_y_len", "blockIdx_z_len",
                        "threadIdx_x_len", "threadIdx_y_len", "threadIdx_z_len", "vthread_len"}) {
    names.push_back(g);
  }
  static const char* kBuffer[] = {"acc_type.read",
                                  "acc_type.write",
                                  "acc_type.readwrite",
                                  "bytes",
                                  "unique_bytes",
                                  "lines",
                                  "unique_lines",
                                  "reuse_type.loop_multiple_read",
                                  "reuse_type.serial_multiple_read_write",
                                  "reuse_type.no_reuse",
                                  "reuse_dis_iter",
                                  "reuse_dis_bytes",
                                  "reuse_ct",
                                  "bytes_d_reuse_ct",
                                  "unique_bytes_d_reuse_ct",
                                  "lines_d_reuse_ct",
                                  "unique_lines_d_reuse_ct",
                                  "stride"};
  for (int b = 0; b < kMaxBuffers; ++b) {
    for (const char* f : kBuffer) names.push_back("B" + std::to_string(b) + "." + f);
  }
  for (int i = 0; i < kCurveSamples; ++i)
    names.push_back("arith_intensity_curve_" + std::to_string(i));
  for (const char* a : {"alloc_size", "alloc_prod", "alloc_outer_prod", "alloc_inner_prod",
                        "outer_prod", "num_loops", "auto_unroll_max_step"}) {
    names.push_back(a);
  }
  for (const char* g : {"gpu.shared_bytes", "gpu.local_bytes", "gpu.threads_per_block",
                        "gpu.blocks", "gpu.warps_per_block", "gpu.store_scope.global",
                        "gpu.store_scope.shared", "gpu.store_scope.local"}) {
    names.push_back(g);
  }
  return names;
}

}  // namespace

int64_t DataDependentExtent(const PrimFunc& func) {
  auto attr = [&](const char* key) -> int64_t {
    auto it = func->attrs.find(key);
    return it == func->attrs.end() ? 0 : AsConstInt(it->second).value_or(0);
  };
  const int64_t rows = attr("kiln.sparse_rows"), nnz = attr("kiln.sparse_nnz");
  if (rows <= 0 || nnz <= 0) return 1;
  return std::max<int64_t>(1, (nnz + rows / 2) / rows);
}

PrimFunc LowerForFeatures(const PrimFunc& scheduled) {
  return codegen::CompactBuffers(codegen::LowerBlocks(codegen::PlaceAllocations(scheduled)));
}

std::vector<FeatureRow> ExtractStoreFeatures(const PrimFunc& lowered,
                                             const StoreFeatureOptions& options) {
  Extractor extractor(options, DataDependentExtent(lowered));
  extractor.VisitStmt(lowered->body);
  return std::move(extractor.rows);
}

std::vector<FeatureRow> PerStoreFeatures(const PrimFunc& scheduled,
                                         const StoreFeatureOptions& options) {
  return ExtractStoreFeatures(LowerForFeatures(scheduled), options);
}

const std::vector<std::string>& StoreFeatureNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n = MakeNames();
    if (n.size() != static_cast<size_t>(kNumStoreFeatures)) {
      throw Error(ErrorKind::kInternal, "StoreFeatureNames: " + std::to_string(n.size()) +
                                            " names for " + std::to_string(kNumStoreFeatures) +
                                            " features");
    }
    return n;
  }();
  return names;
}

}  // namespace kiln::cost_model
