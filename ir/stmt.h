// TensorIR statements: node structs and builders. The block is the unit of scheduling: it
// declares its iteration variables (spatial or reduction, each with a domain), the regions
// it reads and writes, an optional init statement for reductions, and buffers it allocates.
// A BlockRealize binds a block's iteration variables to values of the surrounding loops.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/buffer.h"
#include "ir/expr.h"

namespace kiln::ir {

struct BufferLoadNode : ExprNode {
  static constexpr NodeKind kKind = NodeKind::kBufferLoad;
  BufferLoadNode(DataType t, Buffer b, std::vector<Expr> i)
      : ExprNode(kKind, t), buffer(std::move(b)), indices(std::move(i)) {}
  Buffer buffer;
  std::vector<Expr> indices;
  KILN_FIELDS(buffer, indices)
};

struct BufferStoreNode : StmtNode {
  static constexpr NodeKind kKind = NodeKind::kBufferStore;
  BufferStoreNode(Buffer b, Expr v, std::vector<Expr> i)
      : StmtNode(kKind), buffer(std::move(b)), value(std::move(v)), indices(std::move(i)) {}
  Buffer buffer;
  Expr value;
  std::vector<Expr> indices;
  KILN_FIELDS(buffer, value, indices)
};

enum class ForKind : uint8_t { kSerial, kParallel, kVectorized, kUnrolled, kThreadBinding };
const char* ForKindName(ForKind kind);  // "serial", "parallel", ... as in TVMScript

struct ForNode : StmtNode {
  static constexpr NodeKind kKind = NodeKind::kFor;
  ForNode() : StmtNode(kKind) {}
  Var loop_var;
  Expr min, extent;
  ForKind for_kind = ForKind::kSerial;
  std::string thread_tag;  // "blockIdx.x", "threadIdx.y", ... for kThreadBinding
  Stmt body;
  Annotations annotations;
  KILN_FIELDS(loop_var, min, extent, for_kind, thread_tag, body, annotations)
};

enum class IterKind : uint8_t { kSpatial, kReduce, kOpaque };
const char* IterKindName(IterKind kind);  // "spatial", "reduce", "opaque"

struct IterVar {
  Var var;
  Range dom;
  IterKind kind = IterKind::kSpatial;
  KILN_FIELDS(var, dom, kind)
};

struct BlockNode : StmtNode {
  static constexpr NodeKind kKind = NodeKind::kBlock;
  BlockNode() : StmtNode(kKind) {}
  std::string name;  // part of the structure: traces find blocks by name
  std::vector<IterVar> iter_vars;
  std::vector<BufferRegion> reads, writes;
  std::vector<Buffer> alloc_buffers;
  Stmt init;  // undefined when the block has no init
  Stmt body;
  Annotations annotations;
  KILN_FIELDS(name, iter_vars, reads, writes, alloc_buffers, init, body, annotations)
};

struct BlockRealizeNode : StmtNode {
  static constexpr NodeKind kKind = NodeKind::kBlockRealize;
  BlockRealizeNode() : StmtNode(kKind) {}
  std::vector<Expr> iter_values;  // one per block iter var
  Expr predicate;                 // bool; true unless a split was not divisible
  Stmt block;                     // a Block
  KILN_FIELDS(iter_values, predicate, block)
  const BlockNode* block_node() const { return block.as<BlockNode>(); }
};

struct SeqStmtNode : StmtNode {
  static constexpr NodeKind kKind = NodeKind::kSeqStmt;
  explicit SeqStmtNode(std::vector<Stmt> s) : StmtNode(kKind), seq(std::move(s)) {}
  std::vector<Stmt> seq;
  KILN_FIELDS(seq)
};

struct IfThenElseNode : StmtNode {
  static constexpr NodeKind kKind = NodeKind::kIfThenElse;
  IfThenElseNode(Expr c, Stmt t, Stmt e)
      : StmtNode(kKind),
        condition(std::move(c)),
        then_case(std::move(t)),
        else_case(std::move(e)) {}
  Expr condition;
  Stmt then_case;
  Stmt else_case;  // may be undefined
  KILN_FIELDS(condition, then_case, else_case)
};

struct LetStmtNode : StmtNode {
  static constexpr NodeKind kKind = NodeKind::kLetStmt;
  LetStmtNode(Var v, Expr val, Stmt b)
      : StmtNode(kKind), var(std::move(v)), value(std::move(val)), body(std::move(b)) {}
  Var var;
  Expr value;
  Stmt body;
  KILN_FIELDS(var, value, body)
};

// Allocates storage for `buffer` (its shape, dtype and scope) for the extent of `body`.
struct AllocateNode : StmtNode {
  static constexpr NodeKind kKind = NodeKind::kAllocate;
  AllocateNode(Buffer b, Stmt s) : StmtNode(kKind), buffer(std::move(b)), body(std::move(s)) {}
  Buffer buffer;
  Stmt body;
  KILN_FIELDS(buffer, body)
};

// Declares `buffer` as a view of storage already defined (its data Var) for `body`.
struct DeclBufferNode : StmtNode {
  static constexpr NodeKind kKind = NodeKind::kDeclBuffer;
  DeclBufferNode(Buffer b, Stmt s) : StmtNode(kKind), buffer(std::move(b)), body(std::move(s)) {}
  Buffer buffer;
  Stmt body;
  KILN_FIELDS(buffer, body)
};

struct EvaluateNode : StmtNode {
  static constexpr NodeKind kKind = NodeKind::kEvaluate;
  explicit EvaluateNode(Expr v) : StmtNode(kKind), value(std::move(v)) {}
  Expr value;
  KILN_FIELDS(value)
};

// ---- Builders -----------------------------------------------------------------------------

Expr BufferLoad(Buffer buffer, std::vector<Expr> indices);
Stmt BufferStore(Buffer buffer, Expr value, std::vector<Expr> indices);
Stmt For(Var loop_var, Expr min, Expr extent, ForKind kind, Stmt body, std::string thread_tag = "",
         Annotations annotations = {});
// One statement for a list: the single element itself, or a SeqStmt (nested ones flattened).
Stmt SeqStmt(std::vector<Stmt> seq);
Stmt IfThenElse(Expr condition, Stmt then_case, Stmt else_case = Stmt());
Stmt LetStmt(Var var, Expr value, Stmt body);
Stmt Allocate(Buffer buffer, Stmt body);
Stmt DeclBufferStmt(Buffer buffer, Stmt body);
Stmt Evaluate(Expr value);
Stmt Block(std::shared_ptr<BlockNode> node);
Stmt BlockRealize(std::vector<Expr> iter_values, Expr predicate, Stmt block);

}  // namespace kiln::ir

// SparseTIR's stage-I statement is in the node list too.
#include "ir/sparse/sparse_iteration.h"  // IWYU pragma: export
