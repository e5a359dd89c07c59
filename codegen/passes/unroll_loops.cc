// Loop unrolling: explicit replication of small constant loops, honoring the auto-unroll
// pragma annotations.
#include "codegen/passes/unroll_loops.h"

#include <limits>

#include "codegen/passes/ir_utils.h"
#include "codegen/passes/simd_fold.h"
#include "ir/functor.h"

namespace kiln::codegen {

using namespace ir;

namespace {

constexpr char kAutoUnrollMaxStep[] = "pragma_auto_unroll_max_step";
constexpr char kUnrollExplicit[] = "pragma_unroll_explicit";
constexpr int64_t kUnknownSteps = std::numeric_limits<int64_t>::max() / 4;

int64_t AnnotationInt(const Annotations& annotations, const char* key, int64_t fallback) {
  auto it = annotations.find(key);
  if (it == annotations.end()) return fallback;
  auto v = AsConstInt(it->second);
  KILN_CHECK(v.has_value(), ErrorKind::kInvalidIR,
             std::string("UnrollLoops: annotation ") + key + " must be an integer");
  return *v;
}

class Unroller : public IRMutator {
 public:
  explicit Unroller(const UnrollOptions& options) : options_(options) {}

  Stmt VisitStmt_(const ForNode* op) override {
    int64_t saved_max_step = auto_max_step_;
    bool saved_explicit = auto_explicit_;
    Annotations annotations = op->annotations;
    if (annotations.count(kAutoUnrollMaxStep)) {
      auto_max_step_ = AnnotationInt(annotations, kAutoUnrollMaxStep, 0);
      auto_explicit_ = AnnotationInt(annotations, kUnrollExplicit, 1) != 0;
      annotations.erase(kAutoUnrollMaxStep);
      annotations.erase(kUnrollExplicit);
    }
    steps_ = 0;
    Stmt body = VisitStmt(op->body);
    int64_t body_steps = std::max<int64_t>(steps_, 1);
    auto extent = AsConstInt(op->extent);
    steps_ = extent ? SaturatingMul(*extent, body_steps) : kUnknownSteps;
    ForKind kind = op->for_kind;
    // The annotated loop itself is in the pragma's scope, as in TVM.
    bool auto_unroll =
        extent && kind == ForKind::kSerial && auto_max_step_ > 0 && steps_ <= auto_max_step_;
    if (auto_unroll && options_.keep_vectorized_folds) {
      Stmt loop = For(op->loop_var, op->min, op->extent, kind, body, op->thread_tag, annotations);
      std::optional<SimdFold> fold = MatchSimdFold(loop.as<ForNode>());
      if (fold && (IsVectorTreeFold(loop.as<ForNode>(), *fold) ||
                   IsLongSimdFold(loop.as<ForNode>(), *fold))) {
        auto_unroll = false;
      }
    }
    bool explicit_unroll = auto_explicit_;
    auto_max_step_ = saved_max_step;
    auto_explicit_ = saved_explicit;
    bool replicate = false;
    if (auto_unroll) {
      if (explicit_unroll && *extent <= options_.max_explicit_extent) {
        replicate = true;
      } else {
        kind = ForKind::kUnrolled;
      }
    } else if (kind == ForKind::kUnrolled && extent && *extent <= options_.max_explicit_extent) {
      replicate = true;
    }
    if (replicate) return Replicate(op, body, *extent);
    if (body.same_as(op->body) && kind == op->for_kind &&
        annotations.size() == op->annotations.size()) {
      return GetRef<Stmt>(op);
    }
    return For(op->loop_var, op->min, op->extent, kind, body, op->thread_tag, annotations);
  }

  Stmt VisitStmt_(const SeqStmtNode* op) override {
    int64_t total = 0;
    std::vector<Stmt> seq;
    bool changed = false;
    for (const Stmt& s : op->seq) {
      steps_ = 0;
      Stmt n = VisitStmt(s);
      total = SaturatingAdd(total, std::max<int64_t>(steps_, 1));
      changed |= !n.same_as(s);
      seq.push_back(std::move(n));
    }
    steps_ = total;
    return changed ? SeqStmt(std::move(seq)) : GetRef<Stmt>(op);
  }

 private:
  static int64_t SaturatingMul(int64_t a, int64_t b) {
    if (a <= 0 || b <= 0) return 0;
    return a > kUnknownSteps / b ? kUnknownSteps : a * b;
  }
  static int64_t SaturatingAdd(int64_t a, int64_t b) {
    return a > kUnknownSteps - b ? kUnknownSteps : a + b;
  }

  Stmt Replicate(const ForNode* op, const Stmt& body, int64_t extent) {
    std::vector<Stmt> copies;
    copies.reserve(extent);
    for (int64_t i = 0; i < extent; ++i) {
      Expr value = FoldAdd(op->min, IntImm(op->loop_var.dtype(), i));
      copies.push_back(
          Substitute(body, {{op->loop_var.get(), CastTo(op->loop_var.dtype(), value)}}));
    }
    if (copies.empty()) return Evaluate(IntImm(DataType::Int(32), 0));
    return SeqStmt(std::move(copies));
  }

  const UnrollOptions& options_;
  int64_t auto_max_step_ = 0;
  bool auto_explicit_ = true;
  int64_t steps_ = 0;
};

}  // namespace

PrimFunc UnrollLoops(const PrimFunc& f, const UnrollOptions& options) {
  return f.WithBody(Unroller(options).VisitStmt(f->body));
}

}  // namespace kiln::codegen
