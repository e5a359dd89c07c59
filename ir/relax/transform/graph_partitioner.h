// TVM's operator-fusion partitioner (relay/analysis/graph_partitioner.cc, shared by Relay and
// Relax FuseOps), over a plain forward dataflow graph. Nodes are in topological order; each has
// an op pattern, and an edge carries the pattern of the node it enters. The partitioner builds
// the post-dominator tree (a node whose value leaves the graph, extern_ref, has none), then
// fuses in three phases, always from a node into the group of its immediate post-dominator when
// every node on every path between them fits the rule:
//   phase 0: an out-elementwise-fusable node (matmul, conv) takes its elementwise post-dominator
//            when everything on the way is at most broadcast; elementwise and broadcast nodes
//            fuse into injective, reduction or anchored post-dominators;
//   phase 1: injective nodes fuse when everything on the way is injective at most;
//   phase 2: (tuple rules; Relax graphs have no tuple-pattern nodes, so nothing happens).
// A group takes an out-elementwise-fusable member as its anchor and its pattern. Fusion stops
// when a group would exceed `max_fuse_depth` nodes. Internal to ir/relax/transform.
#pragma once

#include <vector>

#include "ir/relax/op/registry.h"

namespace kiln::ir::relax::transform {

struct FusionGraph {
  struct Edge {
    int node;           // the consumer
    OpPattern pattern;  // the consumer's pattern
  };
  struct Node {
    OpPattern pattern = OpPattern::kOpaque;
    bool extern_ref = false;  // used outside the graph: no post-dominator
    std::vector<Edge> outputs;
  };
  std::vector<Node> nodes;  // producers before consumers

  int AddNode(OpPattern pattern, bool extern_ref);
  void AddEdge(int producer, int consumer, OpPattern pattern);
};

// For each node, the index of the root of its group (the group's last node in topological
// order, where it is emitted); nodes that fuse with nothing are their own root.
std::vector<int> PartitionGraph(const FusionGraph& graph, int max_fuse_depth);

}  // namespace kiln::ir::relax::transform
