// Base of every TensorIR node, and the handles that hold them.
// Nodes are immutable plain structs shared by std::shared_ptr; a transformation builds new
// nodes and shares the unchanged subtrees. Each node struct lists its fields once with
// KILN_FIELDS(...), which the generic visitor, mutator and structural hash walk over.
// Identity (same_as) is pointer identity; Vars and Buffers are compared by identity in maps.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "ir/dtype.h"
#include "ir/node_list.h"
#include "support/error.h"

namespace kiln::ir {

enum class NodeKind : uint8_t {
#define KILN_NODE_KIND(name) k##name,
  KILN_EXPR_NODES(KILN_NODE_KIND) KILN_STMT_NODES(KILN_NODE_KIND)
#undef KILN_NODE_KIND
};

// "Add", "For", ...: the stable name of a node kind (used by hashing and printing).
const char* NodeKindName(NodeKind kind);

struct Node : std::enable_shared_from_this<Node> {
  explicit Node(NodeKind k) : kind(k) {}
  Node(const Node& other) : std::enable_shared_from_this<Node>(), kind(other.kind) {}
  Node& operator=(const Node&) = delete;
  virtual ~Node() = default;
  const NodeKind kind;
};

struct ExprNode : Node {
  ExprNode(NodeKind k, DataType t) : Node(k), dtype(t) {}
  DataType dtype;
};

struct StmtNode : Node {
  using Node::Node;
};

// Declares the node's fields, in a fixed order, as a tuple of references.
#define KILN_FIELDS(...)                                   \
  auto Fields() const { return std::tie(__VA_ARGS__); }    \
  auto Fields() { return std::tie(__VA_ARGS__); }

// A nullable shared handle to a node of base type `Base`.
template <typename Base>
class NodeHandle {
 public:
  NodeHandle() = default;
  explicit NodeHandle(std::shared_ptr<const Base> ptr) : ptr_(std::move(ptr)) {}

  bool defined() const { return ptr_ != nullptr; }
  const Base* get() const { return ptr_.get(); }
  const Base* operator->() const { return ptr_.get(); }
  const std::shared_ptr<const Base>& ptr() const { return ptr_; }
  bool same_as(const NodeHandle& other) const { return ptr_ == other.ptr_; }
  NodeKind kind() const { return ptr_->kind; }

  // The node as T, or nullptr when it is another kind (or undefined).
  template <typename T>
  const T* as() const {
    return ptr_ && ptr_->kind == T::kKind ? static_cast<const T*>(ptr_.get()) : nullptr;
  }

 protected:
  std::shared_ptr<const Base> ptr_;
};

class Expr : public NodeHandle<ExprNode> {
 public:
  using NodeHandle::NodeHandle;
  Expr() = default;
  // An int32 immediate, so that `i + 1` reads naturally.
  Expr(int value);  // NOLINT(google-explicit-constructor)
  DataType dtype() const { return ptr_->dtype; }
};

class Stmt : public NodeHandle<StmtNode> {
 public:
  using NodeHandle::NodeHandle;
};

// The handle that owns `node` (which must be held by a handle already).
template <typename Handle, typename NodeT>
Handle GetRef(const NodeT* node) {
  using Base = std::remove_cvref_t<decltype(*std::declval<Handle>().get())>;
  return Handle(std::static_pointer_cast<const Base>(node->shared_from_this()));
}

// Hash and equality by identity, for maps keyed by Var, Buffer or any handle.
struct HandleHash {
  template <typename H>
  size_t operator()(const H& h) const {
    return std::hash<const void*>()(h.get());
  }
};
struct HandleEqual {
  template <typename H>
  bool operator()(const H& a, const H& b) const {
    return a.same_as(b);
  }
};

// Annotations on loops, blocks and functions: values are IntImm, FloatImm or StringImm.
using Annotations = std::map<std::string, Expr>;

}  // namespace kiln::ir
