// Schedule: random variable bookkeeping and trace recording around the primitives. Every
// method resolves its handles, runs the state-level primitive (which throws before changing
// anything when the call is invalid), then records the instruction.
#include "search/schedule/schedule.h"

#include "search/schedule/primitive/primitive.h"
#include "search/schedule/primitive/utils.h"

namespace kiln::search {

using namespace ir;
using nlohmann::json;

Schedule::Schedule(PrimFunc func, uint64_t seed) : state_(std::move(func)), rng_(seed) {}

std::string Schedule::RVName(const InstArg& arg) {
  switch (arg.kind) {
    case ArgKind::kBlock:
      return "b" + std::to_string(arg.value);
    case ArgKind::kLoop:
      return "l" + std::to_string(arg.value);
    case ArgKind::kExpr:
      return "v" + std::to_string(arg.value);
    default:
      return "<constant>";
  }
}

// ---- Random variables -----------------------------------------------------------------------

int Schedule::BlockIndex(BlockRV rv) const {
  auto it = blocks_.find(rv.id);
  KILN_CHECK(it != blocks_.end(), ErrorKind::kSchedule,
             "b" + std::to_string(rv.id) + " is not a block of this schedule");
  int index = state_.FindBlock(it->second);
  KILN_CHECK(index >= 0, ErrorKind::kSchedule,
             "block \"" + it->second + "\" (b" + std::to_string(rv.id) +
                 ") no longer exists in the function");
  return index;
}

int Schedule::LoopIndex(LoopRV rv) const {
  auto it = loops_.find(rv.id);
  KILN_CHECK(it != loops_.end(), ErrorKind::kSchedule,
             "l" + std::to_string(rv.id) + " is not a loop of this schedule");
  KILN_CHECK(!it->second.root, ErrorKind::kSchedule,
             "l" + std::to_string(rv.id) + " is the root location, not a loop");
  int index = state_.FindLoop(it->second.var.get());
  KILN_CHECK(index >= 0, ErrorKind::kSchedule,
             "loop " + it->second.var.name() + " (l" + std::to_string(rv.id) +
                 ") no longer exists in the function (it was split, fused or removed)");
  return index;
}

const BlockNode* Schedule::Get(BlockRV rv) const { return state_.entry(BlockIndex(rv)).block(); }

const BlockRealizeNode* Schedule::GetRealize(BlockRV rv) const {
  return state_.entry(BlockIndex(rv)).realize();
}

const ForNode* Schedule::Get(LoopRV rv) const { return state_.entry(LoopIndex(rv)).loop(); }

int64_t Schedule::Get(ExprRV rv) const {
  auto it = exprs_.find(rv.id);
  KILN_CHECK(it != exprs_.end(), ErrorKind::kSchedule,
             "v" + std::to_string(rv.id) + " is not a sampled value of this schedule");
  return it->second;
}

bool Schedule::IsRootMark(LoopRV rv) const {
  auto it = loops_.find(rv.id);
  return it != loops_.end() && it->second.root;
}

BlockRV Schedule::NewBlockRV(const std::string& name) {
  BlockRV rv{next_id_++};
  blocks_[rv.id] = name;
  return rv;
}

LoopRV Schedule::NewLoopRV(const Var& var) {
  LoopRV rv{next_id_++};
  loops_[rv.id] = LoopTarget{var, !var.defined()};
  return rv;
}

ExprRV Schedule::NewExprRV(int64_t value) {
  ExprRV rv{next_id_++};
  exprs_[rv.id] = value;
  return rv;
}

void Schedule::EnterPostproc() { Record(std::string(kEnterPostproc), {}, json::array(), {}); }

void Schedule::Record(std::string kind, std::vector<InstArg> inputs, json attrs,
                      std::vector<InstArg> outputs, std::optional<json> decision) {
  trace_.Append(
      Instruction{std::move(kind), std::move(inputs), std::move(attrs), std::move(outputs)},
      std::move(decision));
}

namespace {

template <typename RV>
std::vector<InstArg> Args(const std::vector<RV>& rvs) {
  std::vector<InstArg> args;
  for (const RV& rv : rvs) args.push_back(InstArg::Of(rv));
  return args;
}

}  // namespace

// ---- Get ------------------------------------------------------------------------------------

BlockRV Schedule::GetBlock(const std::string& name) {
  KILN_CHECK(state_.FindBlock(name) >= 0, ErrorKind::kSchedule,
             "get_block: no block named \"" + name + "\" in function " + func()->name);
  BlockRV rv = NewBlockRV(name);
  Record("GetBlock", {}, json::array({name, func()->name}), {InstArg::Of(rv)});
  return rv;
}

std::vector<LoopRV> Schedule::GetLoops(BlockRV block) {
  std::vector<LoopRV> loops;
  for (int index : state_.LoopsAbove(BlockIndex(block))) {
    loops.push_back(NewLoopRV(state_.entry(index).loop()->loop_var));
  }
  Record("GetLoops", {InstArg::Of(block)}, json::array(), Args(loops));
  return loops;
}

std::vector<BlockRV> Schedule::GetChildBlocks(BlockRV block) {
  std::vector<BlockRV> result;
  for (int index : state_.ChildBlocks(BlockIndex(block))) {
    result.push_back(NewBlockRV(state_.entry(index).block()->name));
  }
  Record("GetChildBlocks", {InstArg::Of(block)}, json::array(), Args(result));
  return result;
}

std::vector<BlockRV> Schedule::GetChildBlocks(LoopRV loop) {
  std::vector<BlockRV> result;
  for (int index : state_.ChildBlocks(LoopIndex(loop))) {
    result.push_back(NewBlockRV(state_.entry(index).block()->name));
  }
  Record("GetChildBlocks", {InstArg::Of(loop)}, json::array(), Args(result));
  return result;
}

std::vector<BlockRV> Schedule::ProducersOrConsumers(BlockRV block, bool producers) {
  int index = BlockIndex(block);
  std::vector<BlockRV> result;
  for (int other : producers ? ProducerBlocks(state_, index) : ConsumerBlocks(state_, index)) {
    result.push_back(NewBlockRV(state_.entry(other).block()->name));
  }
  Record(producers ? "GetProducers" : "GetConsumers", {InstArg::Of(block)}, json::array(),
         Args(result));
  return result;
}

std::vector<BlockRV> Schedule::GetProducers(BlockRV block) {
  return ProducersOrConsumers(block, true);
}

std::vector<BlockRV> Schedule::GetConsumers(BlockRV block) {
  return ProducersOrConsumers(block, false);
}

// ---- Loop transformations -----------------------------------------------------------------

std::vector<LoopRV> Schedule::Split(LoopRV loop, const std::vector<Factor>& factors,
                                    bool preserve_unit_iters) {
  int index = LoopIndex(loop);
  std::vector<int64_t> values;
  std::vector<InstArg> inputs{InstArg::Of(loop)};
  for (const Factor& f : factors) {
    switch (f.kind) {
      case Factor::kNone:
        values.push_back(-1);
        inputs.push_back(InstArg::None());
        break;
      case Factor::kInt:
        values.push_back(f.value);
        inputs.push_back(InstArg::Int(f.value));
        break;
      case Factor::kExpr:
        values.push_back(Get(ExprRV{f.value}));
        inputs.push_back(InstArg::Of(ExprRV{f.value}));
        break;
    }
  }
  // A sampled -1 would silently mean "infer": only an explicit None does.
  for (size_t i = 0; i < factors.size(); ++i) {
    KILN_CHECK(factors[i].kind == Factor::kNone || values[i] >= 1, ErrorKind::kSchedule,
               "split: factor " + std::to_string(values[i]) + " of " +
                   LoopLabel(state_.entry(index).loop()) + " is not positive");
  }
  std::vector<LoopRV> result;
  for (const Var& var : SplitLoop(state_, index, values, preserve_unit_iters)) {
    result.push_back(NewLoopRV(var));
  }
  Record("Split", std::move(inputs), json::array({preserve_unit_iters, false}), Args(result));
  return result;
}

LoopRV Schedule::Fuse(const std::vector<LoopRV>& loops, bool preserve_unit_iters) {
  std::vector<int> indices;
  for (LoopRV rv : loops) indices.push_back(LoopIndex(rv));
  LoopRV result = NewLoopRV(FuseLoops(state_, indices, preserve_unit_iters));
  Record("Fuse", Args(loops), json::array({preserve_unit_iters}), {InstArg::Of(result)});
  return result;
}

void Schedule::Reorder(const std::vector<LoopRV>& ordered_loops) {
  std::vector<int> indices;
  for (LoopRV rv : ordered_loops) indices.push_back(LoopIndex(rv));
  ReorderLoops(state_, indices);
  Record("Reorder", Args(ordered_loops), json::array(), {});
}

LoopRV Schedule::AddUnitLoop(BlockRV block) {
  int index = BlockIndex(block);
  KILN_CHECK(state_.ScopeOf(index) >= 0, ErrorKind::kSchedule,
             "add_unit_loop: " + BlockLabel(state_.entry(index).block()) + " is the root block");
  LoopRV result = NewLoopRV(AddUnitLoopAround(state_, index));
  Record("AddUnitLoop", {InstArg::Of(block)}, json::array(), {InstArg::Of(result)});
  return result;
}

LoopRV Schedule::AddUnitLoop(LoopRV loop) {
  LoopRV result = NewLoopRV(AddUnitLoopAround(state_, LoopIndex(loop)));
  Record("AddUnitLoop", {InstArg::Of(loop)}, json::array(), {InstArg::Of(result)});
  return result;
}

// ---- Parallelism --------------------------------------------------------------------------

void Schedule::Parallel(LoopRV loop) {
  SetLoopKind(state_, LoopIndex(loop), ForKind::kParallel, "");
  Record("Parallel", {InstArg::Of(loop)}, json::array(), {});
}

void Schedule::Vectorize(LoopRV loop) {
  SetLoopKind(state_, LoopIndex(loop), ForKind::kVectorized, "");
  Record("Vectorize", {InstArg::Of(loop)}, json::array(), {});
}

void Schedule::Unroll(LoopRV loop) {
  SetLoopKind(state_, LoopIndex(loop), ForKind::kUnrolled, "");
  Record("Unroll", {InstArg::Of(loop)}, json::array(), {});
}

void Schedule::Bind(LoopRV loop, const std::string& thread_axis) {
  SetLoopKind(state_, LoopIndex(loop), ForKind::kThreadBinding, thread_axis);
  Record("Bind", {InstArg::Of(loop)}, json::array({thread_axis}), {});
}

// ---- Annotations --------------------------------------------------------------------------

void Schedule::AnnotateImpl(InstArg target, const std::string& key, const AnnotationValue& value) {
  int index = target.kind == ArgKind::kLoop ? LoopIndex(target.loop()) : BlockIndex(target.block());
  Expr expr;
  InstArg input;
  if (const auto* i = std::get_if<int64_t>(&value)) {
    expr = IntImm(DataType::Int(32), *i);
    input = InstArg::Int(*i);
  } else if (const auto* f = std::get_if<double>(&value)) {
    expr = FloatImm(DataType::Float(32), *f);
    input = InstArg::Float(*f);
  } else if (const auto* s = std::get_if<std::string>(&value)) {
    expr = StringImm(*s);
    input = InstArg::String(*s);
  } else {
    ExprRV rv = std::get<ExprRV>(value);
    expr = IntImm(DataType::Int(32), Get(rv));
    input = InstArg::Of(rv);
  }
  SetAnnotation(state_, index, key, expr);
  Record("Annotate", {target, input}, json::array({key}), {});
}

void Schedule::Annotate(LoopRV loop, const std::string& key, const AnnotationValue& value) {
  AnnotateImpl(InstArg::Of(loop), key, value);
}

void Schedule::Annotate(BlockRV block, const std::string& key, const AnnotationValue& value) {
  AnnotateImpl(InstArg::Of(block), key, value);
}

void Schedule::UnannotateImpl(InstArg target, const std::string& key) {
  int index = target.kind == ArgKind::kLoop ? LoopIndex(target.loop()) : BlockIndex(target.block());
  RemoveAnnotation(state_, index, key);
  Record("Unannotate", {target}, json::array({key}), {});
}

void Schedule::Unannotate(LoopRV loop, const std::string& key) {
  UnannotateImpl(InstArg::Of(loop), key);
}

void Schedule::Unannotate(BlockRV block, const std::string& key) {
  UnannotateImpl(InstArg::Of(block), key);
}

// ---- Sampling -----------------------------------------------------------------------------

std::vector<ExprRV> Schedule::SamplePerfectTile(LoopRV loop, int n, int64_t max_innermost_factor,
                                                std::optional<std::vector<int64_t>> decision) {
  const ForNode* node = Get(loop);
  KILN_CHECK(n >= 1 && n <= kMaxTileFactors, ErrorKind::kSchedule,
             "sample_perfect_tile: n = " + std::to_string(n) + " for " + LoopLabel(node) +
                 " is not in [1, " + std::to_string(kMaxTileFactors) + "]");
  int64_t extent = ConstExtent(node, "sample_perfect_tile");
  std::vector<int64_t> factors;
  if (decision) {
    factors = *decision;
    std::string shown = json(factors).dump();
    KILN_CHECK(factors.size() == static_cast<size_t>(n), ErrorKind::kSchedule,
               "sample_perfect_tile: decision " + shown + " for " + LoopLabel(node) + " has " +
                   std::to_string(factors.size()) + " factors, expected " + std::to_string(n));
    int64_t product = 1;
    for (int64_t f : factors) {
      KILN_CHECK(f >= 1, ErrorKind::kSchedule,
                 "sample_perfect_tile: decision " + shown + " for " + LoopLabel(node) +
                     " has a factor below 1");
      // Saturated, so that a decision from outside cannot overflow the product.
      if (__builtin_mul_overflow(product, f, &product)) product = INT64_MAX;
    }
    KILN_CHECK(product == extent, ErrorKind::kSchedule,
               "sample_perfect_tile: decision " + shown + " for " + LoopLabel(node) +
                   " multiplies to " +
                   (product == INT64_MAX ? "more than 2^63" : std::to_string(product)) +
                   ", not the extent " + std::to_string(extent));
    KILN_CHECK(max_innermost_factor <= 0 || factors.back() <= max_innermost_factor,
               ErrorKind::kSchedule,
               "sample_perfect_tile: decision " + shown + " for " + LoopLabel(node) +
                   " has an innermost factor above " + std::to_string(max_innermost_factor));
  } else {
    factors = SamplePerfectTiling(rng_, extent, n, max_innermost_factor);
  }
  std::vector<ExprRV> result;
  for (int64_t f : factors) result.push_back(NewExprRV(f));
  Record("SamplePerfectTile", {InstArg::Of(loop)}, json::array({n, max_innermost_factor}),
         Args(result), json(factors));
  return result;
}

ExprRV Schedule::SampleCategorical(const std::vector<int64_t>& candidates,
                                   const std::vector<double>& probs,
                                   std::optional<int64_t> decision) {
  KILN_CHECK(!candidates.empty() && candidates.size() == probs.size(), ErrorKind::kSchedule,
             "sample_categorical: " + std::to_string(candidates.size()) + " candidates but " +
                 std::to_string(probs.size()) + " probabilities");
  int64_t choice;
  if (decision) {
    choice = *decision;
    KILN_CHECK(choice >= 0 && choice < static_cast<int64_t>(candidates.size()),
               ErrorKind::kSchedule,
               "sample_categorical: decision " + std::to_string(choice) + " is not an index into " +
                   std::to_string(candidates.size()) + " candidates");
  } else {
    choice = SampleWeighted(rng_, probs);
  }
  ExprRV result = NewExprRV(candidates[choice]);
  Record("SampleCategorical", {}, json::array({candidates, probs}), {InstArg::Of(result)},
         json(choice));
  return result;
}

LoopRV Schedule::SampleComputeLocation(BlockRV block, std::optional<int64_t> decision) {
  int index = BlockIndex(block);
  std::vector<int> candidates = ComputeLocationCandidates(index);
  int64_t choice;
  if (decision) {
    choice = *decision;
    KILN_CHECK(choice == kComputeLocationRoot ||
                   (choice >= 0 && choice < static_cast<int64_t>(candidates.size())),
               ErrorKind::kSchedule,
               "sample_compute_location: decision " + std::to_string(choice) + " for " +
                   BlockLabel(state_.entry(index).block()) +
                   " is neither -1 (root) nor one of its " + std::to_string(candidates.size()) +
                   " candidate loops");
  } else {
    choice = rng_.UniformInt(-1, static_cast<int64_t>(candidates.size()));
  }
  LoopRV result = NewLoopRV(choice < 0 ? Var() : state_.entry(candidates[choice]).loop()->loop_var);
  Record("SampleComputeLocation", {InstArg::Of(block)}, json::array(), {InstArg::Of(result)},
         json(choice));
  return result;
}

}  // namespace kiln::search
