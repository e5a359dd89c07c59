// PlanOutputWindow: collect the blocks of the workload with their loops, choose a window
// loop for each output, propagate the restriction backwards from consumers to producers
// (interval analysis of the consumers' reads), and size the window to the budget.
#include "runtime/output_window.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <random>
#include <unordered_map>
#include <unordered_set>

#include "ir/arith/analyzer.h"
#include "ir/arith/int_set.h"
#include "ir/functor.h"
#include "runtime/interpreter_cost.h"
#include "support/error.h"

namespace kiln::runtime {
namespace {

using ir::arith::Analyzer;

// A loop's constant range; `extent` may shrink to 0 when nothing of it is needed.
struct LoopDom {
  int64_t min = 0;
  int64_t extent = 0;
};
using DomMap = std::unordered_map<const ir::ForNode*, LoopDom>;

// One block of the workload with its enclosing loops and memory accesses.
struct Site {
  const ir::BlockRealizeNode* realize = nullptr;
  const ir::BlockNode* block = nullptr;
  std::vector<const ir::ForNode*> loops;  // outermost first
  std::vector<const ir::BufferStoreNode*> stores;
  std::vector<const ir::BufferLoadNode*> loads;
};

class AccessCollector : public ir::IRVisitor {
 public:
  explicit AccessCollector(Site& site) : site_(site) {}
  void VisitStmt_(const ir::BufferStoreNode* op) override {
    site_.stores.push_back(op);
    IRVisitor::VisitStmt_(op);
  }
  void VisitExpr_(const ir::BufferLoadNode* op) override {
    site_.loads.push_back(op);
    IRVisitor::VisitExpr_(op);
  }
  void VisitStmt_(const ir::BlockRealizeNode*) override { nested = true; }
  bool nested = false;

 private:
  Site& site_;
};

// The blocks of `f` in program order. `ok` is false when the function has a shape this
// analysis does not handle (nested blocks).
class SiteCollector : public ir::IRVisitor {
 public:
  void VisitStmt_(const ir::ForNode* op) override {
    loops_.push_back(op);
    all_loops.push_back(op);
    VisitStmt(op->body);
    loops_.pop_back();
  }
  void VisitStmt_(const ir::BlockRealizeNode* op) override {
    const ir::BlockNode* block = op->block_node();
    if (block->iter_vars.empty() && loops_.empty() && block->name == "root") {
      VisitStmt(block->body);
      return;
    }
    Site site;
    site.realize = op;
    site.block = block;
    site.loops = loops_;
    AccessCollector accesses(site);
    if (block->init.defined()) accesses.VisitStmt(block->init);
    accesses.VisitStmt(block->body);
    ok &= !accesses.nested;
    sites.push_back(std::move(site));
  }
  std::vector<Site> sites;
  std::vector<const ir::ForNode*> all_loops;
  bool ok = true;

 private:
  std::vector<const ir::ForNode*> loops_;
};

// An output and the loop chosen to window it.
struct WindowChoice {
  size_t site = 0;
  const ir::ForNode* loop = nullptr;
  int64_t full_extent = 0;
  int64_t full_min = 0;
  int64_t width = 1;
  int64_t offset = 0;  // from the loop's min
};

class Planner {
 public:
  Planner(const ir::PrimFunc& f, const std::map<std::string, int64_t>& dims) : f_(f) {
    BindDims(f, dims, analyzer_);
    SiteCollector collector;
    collector.VisitStmt(f->body);
    ok_ = collector.ok;
    sites_ = std::move(collector.sites);
    for (const ir::ForNode* loop : collector.all_loops) {
      auto min = ir::AsConstInt(analyzer_.Simplify(loop->min));
      auto extent = ir::AsConstInt(analyzer_.Simplify(loop->extent));
      if (!min || !extent) {
        ok_ = false;
        continue;
      }
      full_[loop] = {*min, std::max<int64_t>(*extent, 0)};
    }
    for (size_t p = 0; p < f->params.size(); ++p) {
      if (auto buffer = f->BufferOf(f->params[p])) param_of_[buffer->get()] = static_cast<int>(p);
    }
  }

  bool ok() const { return ok_; }

  // For every output buffer written by exactly one block and read by no other block, the
  // loops of that block that index one of its dimensions directly.
  std::vector<std::vector<WindowChoice>> Candidates() const {
    std::vector<std::vector<WindowChoice>> result;
    // In parameter order, so that the window (and its description) is the same every run.
    for (const ir::Var& param : f_->params) {
      std::optional<ir::Buffer> param_buffer = f_->BufferOf(param);
      if (!param_buffer) continue;
      const ir::BufferNode* buffer = param_buffer->get();
      std::vector<size_t> writers = WritersOf(buffer);
      if (writers.size() != 1 || ReadByOthers(buffer, writers[0])) continue;
      const Site& site = sites_[writers[0]];
      std::vector<WindowChoice> options;
      for (const ir::ForNode* loop : site.loops) {
        const LoopDom& dom = full_.at(loop);
        if (dom.extent < 2) continue;
        if (!DimIndexedBy(site, buffer, loop)) continue;
        WindowChoice c;
        c.site = writers[0];
        c.loop = loop;
        c.full_min = dom.min;
        c.full_extent = dom.extent;
        options.push_back(c);
      }
      if (!options.empty()) result.push_back(std::move(options));
    }
    return result;
  }

  // Loop ranges for `choices`: the window loops restricted, every producer restricted to
  // what its (already restricted) consumers read.
  DomMap Propagate(const std::vector<WindowChoice>& choices) {
    DomMap dom = full_;
    std::unordered_set<const ir::ForNode*> fixed;
    for (const WindowChoice& c : choices) {
      dom[c.loop] = {c.full_min + c.offset, c.width};
      fixed.insert(c.loop);
    }
    for (size_t s = sites_.size(); s-- > 0;) {
      const Site& site = sites_[s];
      for (const ir::ForNode* loop : site.loops) {
        if (fixed.count(loop)) continue;
        if (auto needed = NeededRange(s, loop, dom)) {
          const LoopDom& full = full_.at(loop);
          int64_t begin = std::max(full.min, needed->begin);
          int64_t end = std::min(full.min + full.extent, needed->end);
          dom[loop] = {begin, std::max<int64_t>(end - begin, 0)};
        }
      }
    }
    return dom;
  }

  ir::PrimFunc Apply(const DomMap& dom) const {
    class Restrict : public ir::IRMutator {
     public:
      Restrict(const DomMap& dom, const DomMap& full) : dom_(dom), full_(full) {}
      ir::Stmt VisitStmt_(const ir::ForNode* op) override {
        ir::Stmt s = IRMutator::VisitStmt_(op);
        auto it = dom_.find(op);
        const LoopDom& full = full_.at(op);
        if (it == dom_.end() || (it->second.min == full.min && it->second.extent == full.extent)) {
          return s;
        }
        auto copy = std::make_shared<ir::ForNode>(*s.as<ir::ForNode>());
        ir::DataType t = op->loop_var.dtype();
        copy->min = ir::IntImm(t, it->second.min);
        copy->extent = ir::IntImm(t, it->second.extent);
        return ir::Stmt(std::move(copy));
      }

     private:
      const DomMap& dom_;
      const DomMap& full_;
    } restrict(dom, full_);
    return f_.WithBody(restrict.VisitStmt(f_->body));
  }

  // What the run under `dom` computes of each parameter the workload writes.
  std::vector<ParamRegion> Regions(const DomMap& dom) {
    std::vector<ParamRegion> regions;
    for (size_t p = 0; p < f_->params.size(); ++p) {
      auto buffer = f_->BufferOf(f_->params[p]);
      if (!buffer) continue;
      std::vector<size_t> writers = WritersOf(buffer->get());
      if (writers.empty()) continue;
      ParamRegion region;
      region.param_index = static_cast<int>(p);
      region.name = (*buffer)->name;
      std::vector<std::optional<IndexRange>> hull(buffer->ndim());
      std::vector<bool> unknown(hull.size(), false);
      for (size_t w : writers) {
        for (const ir::BufferStoreNode* store : sites_[w].stores) {
          if (!store->buffer.same_as(*buffer)) continue;
          for (size_t d = 0; d < hull.size(); ++d) {
            auto range = Interval(sites_[w], store->indices[d], dom);
            if (!range) {
              unknown[d] = true;
            } else if (range->end <= range->begin) {
              continue;  // this store does not run in the window
            } else if (!hull[d]) {
              hull[d] = range;
            } else {
              hull[d] = IndexRange{std::min(hull[d]->begin, range->begin),
                                   std::max(hull[d]->end, range->end)};
            }
          }
        }
      }
      for (size_t d = 0; d < hull.size(); ++d) {
        auto extent = ir::AsConstInt(analyzer_.Simplify((*buffer)->shape[d]));
        int64_t size = extent ? *extent : 0;
        IndexRange r = unknown[d] || !hull[d] ? IndexRange{0, size} : *hull[d];
        r.begin = std::clamp<int64_t>(r.begin, 0, size);
        r.end = std::clamp<int64_t>(r.end, r.begin, size);
        region.ranges.push_back(r);
      }
      regions.push_back(std::move(region));
    }
    return regions;
  }

 private:
  std::vector<size_t> WritersOf(const ir::BufferNode* buffer) const {
    std::vector<size_t> writers;
    for (size_t s = 0; s < sites_.size(); ++s) {
      for (const ir::BufferStoreNode* store : sites_[s].stores) {
        if (store->buffer.get() == buffer) {
          writers.push_back(s);
          break;
        }
      }
    }
    return writers;
  }

  bool ReadByOthers(const ir::BufferNode* buffer, size_t writer) const {
    for (size_t s = 0; s < sites_.size(); ++s) {
      if (s == writer) continue;
      for (const ir::BufferLoadNode* load : sites_[s].loads) {
        if (load->buffer.get() == buffer) return true;
      }
    }
    return false;
  }

  // The spatial iter var of `site` bound directly to `loop`, if any.
  const ir::VarNode* IterVarOf(const Site& site, const ir::ForNode* loop) const {
    for (size_t k = 0; k < site.block->iter_vars.size(); ++k) {
      const ir::IterVar& iv = site.block->iter_vars[k];
      if (iv.kind != ir::IterKind::kSpatial) continue;
      const auto* bound = site.realize->iter_values[k].as<ir::VarNode>();
      if (bound == loop->loop_var.get()) return iv.var.get();
    }
    return nullptr;
  }

  // True when every store of `site` to `buffer` has, on one fixed dimension, exactly the
  // iter var bound to `loop`: restricting the loop then restricts that dimension only.
  bool DimIndexedBy(const Site& site, const ir::BufferNode* buffer, const ir::ForNode* loop) const {
    return DimOf(site, buffer, loop).has_value();
  }

  std::optional<size_t> DimOf(const Site& site, const ir::BufferNode* buffer,
                              const ir::ForNode* loop) const {
    const ir::VarNode* iv = IterVarOf(site, loop);
    if (iv == nullptr) return std::nullopt;
    std::optional<size_t> dim;
    bool any = false;
    for (const ir::BufferStoreNode* store : site.stores) {
      if (store->buffer.get() != buffer) continue;
      any = true;
      std::optional<size_t> here;
      for (size_t d = 0; d < store->indices.size(); ++d) {
        if (store->indices[d].as<ir::VarNode>() == iv) here = d;
      }
      if (!here || (dim && *dim != *here)) return std::nullopt;
      dim = here;
    }
    return any ? dim : std::nullopt;
  }

  // The range of `loop` (a loop of site `s`) that the later blocks need, or nullopt when
  // they need all of it (or the analysis cannot tell).
  std::optional<IndexRange> NeededRange(size_t s, const ir::ForNode* loop, const DomMap& dom) {
    const Site& site = sites_[s];
    std::unordered_set<const ir::BufferNode*> written;
    for (const ir::BufferStoreNode* store : site.stores) written.insert(store->buffer.get());
    std::optional<IndexRange> needed;
    for (const ir::BufferNode* buffer : written) {
      // An output is compared: it is needed wherever this block writes it.
      if (param_of_.count(buffer)) return std::nullopt;
      std::optional<size_t> dim = DimOf(site, buffer, loop);
      if (!dim) return std::nullopt;
      bool consumed = false;
      for (size_t c = s + 1; c < sites_.size(); ++c) {
        for (const ir::BufferLoadNode* load : sites_[c].loads) {
          if (load->buffer.get() != buffer) continue;
          consumed = true;
          auto range = Interval(sites_[c], load->indices[*dim], dom);
          if (!range) return std::nullopt;
          needed = needed ? IndexRange{std::min(needed->begin, range->begin),
                                       std::max(needed->end, range->end)}
                          : *range;
        }
      }
      if (!consumed) return std::nullopt;
    }
    return needed;
  }

  // The constant [begin, end) of `index` (over `site`'s iter vars) under the loop ranges
  // `dom`; nullopt when it is not constant-bounded.
  std::optional<IndexRange> Interval(const Site& site, const ir::Expr& index, const DomMap& dom) {
    ir::arith::VarIntervals loops;
    for (const ir::ForNode* loop : site.loops) {
      const LoopDom& d = dom.at(loop);
      if (d.extent <= 0) return IndexRange{0, 0};
      ir::DataType t = loop->loop_var.dtype();
      loops[loop->loop_var.get()] = {ir::IntImm(t, d.min), ir::IntImm(t, d.min + d.extent - 1)};
    }
    ir::arith::VarIntervals iters = loops;
    for (size_t k = 0; k < site.block->iter_vars.size(); ++k) {
      iters[site.block->iter_vars[k].var.get()] =
          ir::arith::EvalSet(site.realize->iter_values[k], loops, analyzer_);
    }
    ir::arith::IntervalSet set = ir::arith::EvalSet(index, iters, analyzer_);
    if (!set.min.defined() || !set.max.defined()) return std::nullopt;
    auto lo = ir::AsConstInt(analyzer_.Simplify(set.min));
    auto hi = ir::AsConstInt(analyzer_.Simplify(set.max));
    if (!lo || !hi) return std::nullopt;
    return IndexRange{*lo, *hi + 1};
  }

  ir::PrimFunc f_;
  Analyzer analyzer_;
  std::vector<Site> sites_;
  DomMap full_;
  std::unordered_map<const ir::BufferNode*, int> param_of_;
  bool ok_ = true;
};

int64_t CostOf(const ir::PrimFunc& f, const std::map<std::string, int64_t>& dims) {
  return EstimateInterpreterCost(f, dims).value_or(std::numeric_limits<int64_t>::max());
}

}  // namespace

std::string DescribeRegion(const ParamRegion& region) {
  std::string text = region.name + "[";
  for (size_t d = 0; d < region.ranges.size(); ++d) {
    text += (d ? ", " : "") + std::to_string(region.ranges[d].begin) + ":" +
            std::to_string(region.ranges[d].end);
  }
  return text + "]";
}

ir::HostTensor ExtractRegion(const ir::HostTensor& tensor, const std::vector<IndexRange>& ranges) {
  const std::vector<int64_t>& shape = tensor.shape();
  KILN_CHECK(ranges.size() == shape.size(), ErrorKind::kInternal,
             "region of rank " + std::to_string(ranges.size()) + " for a " + tensor.Describe());
  std::vector<int64_t> sub_shape;
  for (size_t d = 0; d < shape.size(); ++d) {
    KILN_CHECK(
        0 <= ranges[d].begin && ranges[d].begin <= ranges[d].end && ranges[d].end <= shape[d],
        ErrorKind::kInternal,
        "region dimension " + std::to_string(d) + " is outside " + tensor.Describe());
    sub_shape.push_back(ranges[d].end - ranges[d].begin);
  }
  ir::HostTensor out(tensor.dtype(), sub_shape);
  if (out.numel() == 0) return out;
  size_t element = tensor.nbytes() / static_cast<size_t>(std::max<int64_t>(tensor.numel(), 1));
  const auto* src = static_cast<const uint8_t*>(tensor.data());
  auto* dst = static_cast<uint8_t*>(out.data());
  std::vector<int64_t> index(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) index[d] = ranges[d].begin;
  for (int64_t n = 0; n < out.numel(); ++n) {
    int64_t flat = 0;
    for (size_t d = 0; d < shape.size(); ++d) flat = flat * shape[d] + index[d];
    std::memcpy(dst + n * element, src + flat * element, element);
    for (size_t d = shape.size(); d-- > 0;) {
      if (++index[d] < ranges[d].end) break;
      index[d] = ranges[d].begin;
    }
  }
  return out;
}

std::optional<OutputWindow> PlanOutputWindow(const ir::PrimFunc& f,
                                             const std::map<std::string, int64_t>& dims,
                                             int64_t budget, uint64_t seed) {
  Planner planner(f, dims);
  if (!planner.ok()) return std::nullopt;
  std::vector<std::vector<WindowChoice>> candidates = planner.Candidates();
  if (candidates.empty()) return std::nullopt;

  // For each output, the loop whose one-wide window costs least on its own.
  std::vector<WindowChoice> choices;
  for (const std::vector<WindowChoice>& options : candidates) {
    const WindowChoice* best = nullptr;
    int64_t best_cost = 0;
    for (const WindowChoice& option : options) {
      int64_t cost = CostOf(planner.Apply(planner.Propagate({option})), dims);
      if (!best || cost < best_cost) {
        best = &option;
        best_cost = cost;
      }
    }
    choices.push_back(*best);
  }

  // The widest common fraction of the outputs whose window fits the budget (binary search:
  // the cost grows with the width).
  constexpr int64_t kSteps = 1024;
  auto with_scale = [&](int64_t scale) {
    std::vector<WindowChoice> scaled = choices;
    for (WindowChoice& c : scaled) {
      c.width = std::clamp<int64_t>(c.full_extent * scale / kSteps, 1, c.full_extent);
    }
    return scaled;
  };
  auto cost_at = [&](int64_t scale) {
    return CostOf(planner.Apply(planner.Propagate(with_scale(scale))), dims);
  };
  int64_t lo = 0, hi = kSteps - 1;  // never the whole output: that is not a window
  if (cost_at(lo) <= budget) {
    while (lo < hi) {
      int64_t mid = (lo + hi + 1) / 2;
      if (cost_at(mid) <= budget) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
  }
  choices = with_scale(lo);
  std::mt19937_64 rng(seed ^ 0x5bd1e9955bd1e995ULL);
  for (WindowChoice& c : choices) {
    uint64_t positions = static_cast<uint64_t>(c.full_extent - c.width + 1);
    c.offset = static_cast<int64_t>(rng() % positions);
  }

  DomMap dom = planner.Propagate(choices);
  OutputWindow window;
  window.windowed = planner.Apply(dom);
  window.regions = planner.Regions(dom);
  window.cost = CostOf(window.windowed, dims);
  for (const ParamRegion& region : window.regions) {
    window.description += (window.description.empty() ? "" : ", ") + DescribeRegion(region);
  }
  return window;
}

}  // namespace kiln::runtime
