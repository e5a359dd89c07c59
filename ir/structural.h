// Structural equality and hashing of TensorIR, up to the renaming of variables and buffers.
// Both are defined over one canonical form: a prefix-free token stream in which a node is
// its kind name and its fields in declaration order, a Var is its dtype and the index of its
// first appearance, and a Buffer is the index of its first appearance (its fields follow the
// first time). Names of Vars, Buffers and the function are not part of it; block names and
// annotations are (traces find blocks by name).
// The hash is StableHasher over that stream: identical across machines and builds. Tuning
// records are keyed by it; tests/ir/structural_hash_pinned_test.cc pins its values.
#pragma once

#include <cstdint>
#include <string>

#include "ir/function.h"

namespace kiln::ir {

bool StructuralEqual(const PrimFunc& a, const PrimFunc& b);
bool StructuralEqual(const Stmt& a, const Stmt& b);
bool StructuralEqual(const Expr& a, const Expr& b);

uint64_t StructuralHash(const PrimFunc& f);
uint64_t StructuralHash(const Stmt& s);
uint64_t StructuralHash(const Expr& e);

// The hash as 16 lower-case hex digits, the form stored in databases and printed.
std::string StructuralHashHex(const PrimFunc& f);

// The canonical token stream, readable; for debugging a hash mismatch.
std::string CanonicalForm(const PrimFunc& f);

}  // namespace kiln::ir
