// The post-dominator tree and the three fusion phases, as in TVM's GraphPartitioner.
#include "ir/relax/transform/graph_partitioner.h"

#include <algorithm>
#include <functional>
#include <unordered_set>

#include "support/error.h"

namespace kiln::ir::relax::transform {

int FusionGraph::AddNode(OpPattern pattern, bool extern_ref) {
  nodes.push_back(Node{pattern, extern_ref, {}});
  return static_cast<int>(nodes.size()) - 1;
}

void FusionGraph::AddEdge(int producer, int consumer, OpPattern pattern) {
  KILN_CHECK(producer < consumer, ErrorKind::kInternal,
             "FusionGraph: an edge must go from a producer to a later consumer");
  nodes[producer].outputs.push_back(Edge{consumer, pattern});
}

namespace {

OpPattern Combine(OpPattern a, OpPattern b) { return std::max(a, b); }

// A node of the post-dominator tree.
struct DomNode {
  int parent = -1;  // immediate post-dominator; -1 for none
  int depth = 1;
  OpPattern pattern = OpPattern::kOpaque;  // the combined pattern of the paths to the parent
};

class Partitioner {
 public:
  Partitioner(const FusionGraph& graph, int max_fuse_depth)
      : graph_(graph), max_fuse_depth_(max_fuse_depth) {}

  std::vector<int> Run() {
    size_t n = graph_.nodes.size();
    groups_.resize(n);
    for (size_t i = 0; i < n; ++i) {
      Group& g = groups_[i];
      g.pattern = graph_.nodes[i].pattern;
      g.anchored = g.pattern == OpPattern::kOutEWiseFusable;
    }
    BuildPostDominators();
    for (int phase = 0; phase < 3; ++phase) RunPhase(phase);
    std::vector<int> roots(n);
    for (size_t i = 0; i < n; ++i) roots[i] = FindRoot(static_cast<int>(i));
    return roots;
  }

 private:
  struct Group {
    int parent = -1;  // union-find parent; -1 at a root
    OpPattern pattern = OpPattern::kOpaque;
    bool anchored = false;  // holds an out-elementwise-fusable node
    int num_nodes = 1;
  };

  int FindRoot(int g) {
    int root = g;
    while (groups_[root].parent >= 0) root = groups_[root].parent;
    while (groups_[g].parent >= 0) {
      int next = groups_[g].parent;
      groups_[g].parent = root;
      g = next;
    }
    return root;
  }

  // ---- Post-dominator tree ----------------------------------------------------------------

  int LeastCommonAncestor(int a, int b, OpPattern* pattern) {
    while (a != b) {
      if (a < 0 || b < 0) return -1;
      if (dom_[a].depth < dom_[b].depth) {
        *pattern = Combine(*pattern, dom_[b].pattern);
        b = dom_[b].parent;
      } else if (dom_[b].depth < dom_[a].depth) {
        *pattern = Combine(*pattern, dom_[a].pattern);
        a = dom_[a].parent;
      } else {
        *pattern = Combine(*pattern, dom_[a].pattern);
        *pattern = Combine(*pattern, dom_[b].pattern);
        a = dom_[a].parent;
        b = dom_[b].parent;
      }
    }
    return a;
  }

  void BuildPostDominators() {
    dom_.resize(graph_.nodes.size());
    for (size_t i = graph_.nodes.size(); i-- > 0;) {
      const FusionGraph::Node& node = graph_.nodes[i];
      DomNode& d = dom_[i];
      if (node.extern_ref || node.outputs.empty()) {
        d = DomNode{-1, 1, OpPattern::kOpaque};
        continue;
      }
      OpPattern pattern = OpPattern::kElemWise;
      int parent = node.outputs[0].node;
      pattern = Combine(pattern, node.outputs[0].pattern);
      for (size_t e = 1; e < node.outputs.size(); ++e) {
        parent = LeastCommonAncestor(parent, node.outputs[e].node, &pattern);
        pattern = Combine(pattern, node.outputs[e].pattern);
      }
      d.parent = parent;
      d.depth = parent >= 0 ? dom_[parent].depth + 1 : 1;
      d.pattern = pattern;
    }
  }

  // ---- Paths between a node and its post-dominator ------------------------------------------

  using Condition = std::function<bool(OpPattern, bool is_sink)>;

  bool CheckPathFrom(int node, int sink, const Condition& fcond) {
    if (!visited_.insert(node).second) return true;
    if (!fcond(groups_[FindRoot(node)].pattern, node == sink)) return false;
    if (node == sink) return true;
    for (const FusionGraph::Edge& e : graph_.nodes[node].outputs) {
      if (!CheckPathFrom(e.node, sink, fcond)) return false;
    }
    return true;
  }

  // Every node on every path from `src` (excluded) to `sink` satisfies `fcond`.
  bool CheckPath(int src, int sink, const Condition& fcond) {
    visited_.clear();
    for (const FusionGraph::Edge& e : graph_.nodes[src].outputs) {
      if (!CheckPathFrom(e.node, sink, fcond)) return false;
    }
    return true;
  }

  void MergeFromTo(int child, int parent) {
    child = FindRoot(child);
    parent = FindRoot(parent);
    if (child == parent) return;
    Group& c = groups_[child];
    Group& p = groups_[parent];
    p.num_nodes += c.num_nodes;
    c.parent = parent;
    if (c.anchored) {
      KILN_CHECK(!p.anchored, ErrorKind::kInternal, "FuseOps: a group would get two anchors");
      p.anchored = true;
      p.pattern = Combine(c.pattern, p.pattern);
    }
  }

  void CommitFuseFrom(int node, int sink, int target) {
    if (node == sink || !visited_.insert(node).second) return;
    MergeFromTo(node, target);
    for (const FusionGraph::Edge& e : graph_.nodes[node].outputs) {
      CommitFuseFrom(e.node, sink, target);
    }
  }

  // Merges every group on the paths from `src` to `sink` into the sink's group.
  void CommitFuse(int src, int sink) {
    int target = FindRoot(sink);
    visited_.clear();
    CommitFuseFrom(src, sink, target);
  }

  int CountNodesUpToSink(int node, int sink) {
    if (node == sink || !visited_.insert(node).second) return 0;
    int sum = groups_[FindRoot(node)].num_nodes;
    for (const FusionGraph::Edge& e : graph_.nodes[node].outputs) {
      sum += CountNodesUpToSink(e.node, sink);
    }
    return sum;
  }

  // The size of the sink's group after fusing `child` (and its paths) into it.
  int CountFusedNodesWithNewChild(int child, int dom_parent) {
    visited_.clear();
    return groups_[FindRoot(dom_parent)].num_nodes + CountNodesUpToSink(child, dom_parent);
  }

  void RunPhase(int phase) {
    for (size_t i = 0; i < graph_.nodes.size(); ++i) {
      int nid = static_cast<int>(i);
      // As TVM: the node's own group record (a root's pattern is the group's).
      OpPattern pattern = groups_[nid].pattern;
      const DomNode& dom = dom_[nid];
      if (pattern == OpPattern::kOpaque || dom.parent < 0) continue;
      int parent = dom.parent;
      if (CountFusedNodesWithNewChild(nid, parent) > max_fuse_depth_) continue;
      if (phase == 2) continue;  // tuple-pattern rules: no such nodes in Relax graphs
      if (FindRoot(nid) == FindRoot(parent)) continue;
      if (pattern == OpPattern::kOutEWiseFusable) {
        if (phase != 0 || dom.pattern != OpPattern::kElemWise) continue;
        auto fcond = [](OpPattern k, bool) { return k <= OpPattern::kBroadcast; };
        if (CheckPath(nid, parent, fcond)) CommitFuse(nid, parent);
      } else if (pattern <= OpPattern::kBroadcast) {
        if (dom.pattern > OpPattern::kInjective && dom.pattern != OpPattern::kCommReduce) continue;
        auto fcond = [](OpPattern k, bool is_sink) {
          // Injective ops on parallel branches may join an elementwise group; the sink may
          // also be a reduction or an anchored group.
          if (!is_sink) return k <= OpPattern::kInjective;
          return k <= OpPattern::kInjective || k == OpPattern::kCommReduce ||
                 k == OpPattern::kOutEWiseFusable;
        };
        if (CheckPath(nid, parent, fcond)) CommitFuse(nid, parent);
      } else if (pattern == OpPattern::kInjective) {
        // Deferred to phase 1, so that anchored groups finish fusing first.
        if (phase != 1) continue;
        auto fcond = [](OpPattern k, bool) { return k <= OpPattern::kInjective; };
        if (CheckPath(nid, parent, fcond)) CommitFuse(nid, parent);
      }
      // A reduction takes no post-dominator by itself.
    }
  }

  const FusionGraph& graph_;
  int max_fuse_depth_;
  std::vector<Group> groups_;
  std::vector<DomNode> dom_;
  std::unordered_set<int> visited_;
};

}  // namespace

std::vector<int> PartitionGraph(const FusionGraph& graph, int max_fuse_depth) {
  return Partitioner(graph, max_fuse_depth).Run();
}

}  // namespace kiln::ir::relax::transform
