// The sparse iteration: SparseTIR's stage-I statement `with T.sp_iter([I, J, K], "SRS", "name")
// as [i, j, k]:`. It runs its body once for every point of the listed axes, in coordinate
// space: `i`, `j`, `k` are coordinates, and the body indexes sparse buffers with them.
// Iterators marked reduce ('R') accumulate; `init` runs before the accumulation of each point
// of the spatial iterators. Consecutive iterators with the same fuse group were written
// T.fuse(I, J): one loop over their joint positions. T.attach(I_T, J) iterates I_T under the
// coordinate of J's iterator. LowerSparseIter (ir/sparse/transform/)
// turns it into loops and blocks.
#pragma once

#include <string>
#include <vector>

#include "ir/node.h"
#include "ir/sparse/axis.h"

namespace kiln::ir {

struct SpIterVar {
  Var var;
  Axis axis;
  bool is_reduction = false;
  int64_t fuse_group = -1;  // -1 unless written inside T.fuse(...); else the group's number
  // Written T.attach(axis, attach): axis's parent is a dense_fixed axis whose position is the
  // coordinate of the iterator over `attach` (SparseTIR's hyper_gnn: a transposed CSR hung under
  // the columns of another). Undefined otherwise.
  Axis attach;
};

struct SparseIterationNode : StmtNode {
  static constexpr NodeKind kKind = NodeKind::kSparseIteration;
  SparseIterationNode() : StmtNode(kKind) {}
  std::string name;  // part of the structure, as a block's name
  std::vector<SpIterVar> iter_vars;
  Stmt init;  // undefined when there is no T.init()
  Stmt body;
  KILN_FIELDS(name, iter_vars, init, body)
};

inline Stmt SparseIteration(std::shared_ptr<SparseIterationNode> node) {
  return Stmt(std::shared_ptr<const StmtNode>(std::move(node)));
}

}  // namespace kiln::ir
