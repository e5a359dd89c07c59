// Removing the nest, then inline / fuse / parallel / vectorize through the schedule API.
#include "compiler/epilogue.h"

#include <memory>

#include "search/schedule/schedule.h"
#include "search/space/block_info.h"
#include "support/error.h"

namespace kiln::compiler {

// Below this many elements an epilogue block runs serially.
constexpr int64_t kParallelElements = 1 << 15;

ir::PrimFunc MakeEpilogue(const ir::PrimFunc& func, const MatmulTask& matmul) {
  KILN_CHECK(matmul.output_param < 0, ErrorKind::kInternal,
             "epilogue of " + func->name + ": the matmul is the whole task");
  const auto* realize = func->body.as<ir::BlockRealizeNode>();
  KILN_CHECK(realize != nullptr, ErrorKind::kInternal, "epilogue: no root block");
  const ir::BlockNode* root = realize->block_node();
  std::vector<ir::Stmt> nests;
  if (const auto* seq = root->body.as<ir::SeqStmtNode>()) {
    nests = seq->seq;
  } else {
    nests = {root->body};
  }
  KILN_CHECK(matmul.nest_index < nests.size() && nests.size() >= 2, ErrorKind::kInternal,
             "epilogue of " + func->name + ": no statement after the matmul");
  nests.erase(nests.begin() + static_cast<std::ptrdiff_t>(matmul.nest_index));
  auto block = std::make_shared<ir::BlockNode>(*root);
  block->body = ir::SeqStmt(std::move(nests));
  block->alloc_buffers.clear();
  for (const ir::Buffer& b : root->alloc_buffers) {
    if (!b.same_as(matmul.product)) block->alloc_buffers.push_back(b);
  }
  auto new_realize = std::make_shared<ir::BlockRealizeNode>(*realize);
  new_realize->block = ir::Block(block);
  std::vector<ir::Var> params = func->params;
  std::vector<std::pair<ir::Var, ir::Buffer>> buffer_map = func->buffer_map;
  ir::Var product(matmul.product->name, ir::DataType::Handle());
  params.push_back(product);
  buffer_map.emplace_back(product, matmul.product);
  return ir::MakePrimFunc(func->name + "_epilogue", std::move(params), std::move(buffer_map),
                          ir::Stmt(new_realize), func->attrs);
}

ir::PrimFunc ScheduleEpilogue(const ir::PrimFunc& func) {
  search::Schedule s(func);
  for (const std::string& name : search::BlocksInPostOrder(s.state())) {
    int index = s.state().FindBlock(name);
    if (index < 0 || search::IsRootBlock(s.state(), index) ||
        search::IsOutputBlock(s.state(), index)) {
      continue;
    }
    try {
      search::BlockRV b = s.GetBlock(name);
      const ir::BlockNode* node = s.Get(b);
      if (!search::IsSpatialBlock(node)) continue;
      if (search::CallsExpensiveIntrinsic(node) && s.GetConsumers(b).size() > 1) continue;
      s.ComputeInline(b);
    } catch (const Error&) {
      // Stays a block of its own.
    }
  }
  for (const std::string& name : search::BlocksInPostOrder(s.state())) {
    int index = s.state().FindBlock(name);
    if (index < 0 || search::IsRootBlock(s.state(), index)) continue;
    try {
      search::BlockRV b = s.GetBlock(name);
      std::vector<search::LoopRV> loops = s.GetLoops(b);
      if (loops.empty()) continue;
      if (!search::IsSpatialBlock(s.Get(b))) {
        s.Parallel(loops[0]);
        continue;
      }
      // The innermost axis is split by the vector lanes and the rest fused into one loop over
      // rows: vector lanes then index a broadcast operand (a bias over the last axis)
      // contiguously, where splitting one loop fused over every axis would leave a modulo
      // inside the lanes and the code generator would fall back to scalar code.
      std::optional<int64_t> inner = ir::AsConstInt(s.Get(loops.back())->extent);
      std::optional<int64_t> elements = 1;
      for (const search::LoopRV& l : loops) {
        std::optional<int64_t> e = ir::AsConstInt(s.Get(l)->extent);
        elements = e && elements ? std::optional<int64_t>(*elements * *e) : std::nullopt;
      }
      int64_t vector = 0;
      for (int64_t v : {16, 8, 4}) {
        if (inner && *inner % v == 0) {
          vector = v;
          break;
        }
      }
      // A small epilogue stays on the calling thread: waking the pool costs more than it saves.
      bool parallel = !elements || *elements >= kParallelElements;
      if (vector == 0) {
        search::LoopRV fused = loops.size() == 1 ? loops[0] : s.Fuse(loops);
        if (parallel) s.Parallel(fused);
        continue;
      }
      std::vector<search::LoopRV> parts = s.Split(loops.back(), {std::nullopt, vector});
      std::vector<search::LoopRV> outer(loops.begin(), loops.end() - 1);
      outer.push_back(parts[0]);
      search::LoopRV rows = outer.size() == 1 ? outer[0] : s.Fuse(outer);
      if (parallel) s.Parallel(rows);
      s.Vectorize(parts[1]);
    } catch (const Error&) {
      // Left as it is: still a correct kernel.
    }
  }
  return s.func();
}

}  // namespace kiln::compiler
