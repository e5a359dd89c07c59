// The single list of IR node kinds. Every piece of code that must handle each node kind
// (the NodeKind enum, visitor and mutator dispatch, structural hashing) is generated from
// these two X-macros, so adding a node is: add it here, define its struct with KILN_FIELDS.
#pragma once

#define KILN_EXPR_NODES(X) \
  X(Var)                   \
  X(IntImm)                \
  X(FloatImm)              \
  X(StringImm)             \
  X(Add)                   \
  X(Sub)                   \
  X(Mul)                   \
  X(Div)                   \
  X(Mod)                   \
  X(FloorDiv)              \
  X(FloorMod)              \
  X(Min)                   \
  X(Max)                   \
  X(EQ)                    \
  X(NE)                    \
  X(LT)                    \
  X(LE)                    \
  X(GT)                    \
  X(GE)                    \
  X(And)                   \
  X(Or)                    \
  X(Not)                   \
  X(Select)                \
  X(Cast)                  \
  X(Call)                  \
  X(BufferLoad)            \
  X(Ramp)                  \
  X(Broadcast)             \
  X(Let)

#define KILN_STMT_NODES(X) KILN_TENSOR_STMT_NODES(X) KILN_SPARSE_STMT_NODES(X)

// Statements of TensorIR proper, which every pass and emitter meets.
#define KILN_TENSOR_STMT_NODES(X) \
  X(BufferStore)                  \
  X(For)                          \
  X(Block)                        \
  X(BlockRealize)                 \
  X(SeqStmt)                      \
  X(IfThenElse)                   \
  X(LetStmt)                      \
  X(Allocate)                     \
  X(DeclBuffer)                   \
  X(Evaluate)

// SparseTIR's stage-I statement (ir/sparse/sparse_iteration.h); lowered by ir/sparse/transform/
// before anything that emits or analyses TensorIR sees the function.
#define KILN_SPARSE_STMT_NODES(X) X(SparseIteration)

// Binary arithmetic and comparison nodes share one struct layout (a, b).
#define KILN_BINARY_NODES(X) \
  X(Add)                     \
  X(Sub)                     \
  X(Mul)                     \
  X(Div)                     \
  X(Mod)                     \
  X(FloorDiv)                \
  X(FloorMod)                \
  X(Min)                     \
  X(Max)                     \
  X(EQ)                      \
  X(NE)                      \
  X(LT)                      \
  X(LE)                      \
  X(GT)                      \
  X(GE)                      \
  X(And)                     \
  X(Or)
