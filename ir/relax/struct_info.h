// Struct info: what Relax knows statically about a value. A tensor's dtype and shape, where
// dims are TensorIR integer expressions (768, n, n * 12) or the shape is unknown with a known
// or unknown rank; a tuple of such; a shape value; a scalar; an opaque object; a function.
// Every Relax expression carries one, inferred as the expression is built, and symbolic dims
// are what let one compiled model serve many input sizes.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/dtype.h"
#include "ir/relax/dim.h"

namespace kiln::ir::relax {

enum class StructInfoKind : uint8_t { kObject, kPrim, kShape, kTensor, kTuple, kFunc };

// The rank of a tensor or shape whose rank is not known statically.
inline constexpr int kUnknownNDim = -1;

struct StructInfoNode {
  explicit StructInfoNode(StructInfoKind k) : kind(k) {}
  virtual ~StructInfoNode() = default;
  const StructInfoKind kind;
};

class StructInfo {
 public:
  StructInfo() = default;
  explicit StructInfo(std::shared_ptr<const StructInfoNode> ptr) : ptr_(std::move(ptr)) {}
  bool defined() const { return ptr_ != nullptr; }
  const StructInfoNode* get() const { return ptr_.get(); }
  StructInfoKind kind() const { return ptr_->kind; }
  bool same_as(const StructInfo& other) const { return ptr_ == other.ptr_; }
  template <typename T>
  const T* as() const {
    return ptr_ && ptr_->kind == T::kKind ? static_cast<const T*>(ptr_.get()) : nullptr;
  }
  // TVMScript annotation: R.Tensor((n, 768), "float32"), R.Tuple(...), R.Shape([n, 4]).
  std::string ToString() const;

 private:
  std::shared_ptr<const StructInfoNode> ptr_;
};

struct ObjectStructInfoNode : StructInfoNode {
  static constexpr StructInfoKind kKind = StructInfoKind::kObject;
  ObjectStructInfoNode() : StructInfoNode(kKind) {}
};

// A scalar; `value` is the known value of an integer scalar (a dim), else undefined.
struct PrimStructInfoNode : StructInfoNode {
  static constexpr StructInfoKind kKind = StructInfoKind::kPrim;
  PrimStructInfoNode() : StructInfoNode(kKind) {}
  DataType dtype;
  PrimExpr value;
};

// A shape value (what shape_of returns and reshape takes).
struct ShapeStructInfoNode : StructInfoNode {
  static constexpr StructInfoKind kKind = StructInfoKind::kShape;
  ShapeStructInfoNode() : StructInfoNode(kKind) {}
  std::optional<std::vector<PrimExpr>> values;
  int ndim = kUnknownNDim;  // values->size() when values are known
};

struct TensorStructInfoNode : StructInfoNode {
  static constexpr StructInfoKind kKind = StructInfoKind::kTensor;
  TensorStructInfoNode() : StructInfoNode(kKind) {}
  DataType dtype = DataType::Void();  // Void: unknown dtype
  std::optional<std::vector<PrimExpr>> shape;
  int ndim = kUnknownNDim;  // shape->size() when the shape is known
  bool unknown_dtype() const { return dtype.is_void(); }
  bool unknown_ndim() const { return ndim == kUnknownNDim; }
};

struct TupleStructInfoNode : StructInfoNode {
  static constexpr StructInfoKind kKind = StructInfoKind::kTuple;
  TupleStructInfoNode() : StructInfoNode(kKind) {}
  std::vector<StructInfo> fields;
};

struct FuncStructInfoNode : StructInfoNode {
  static constexpr StructInfoKind kKind = StructInfoKind::kFunc;
  FuncStructInfoNode() : StructInfoNode(kKind) {}
  std::vector<StructInfo> params;
  StructInfo ret;
};

// ---- Builders (dims are converted to int64 and simplified) ----------------------------------

StructInfo ObjectStructInfo();
StructInfo PrimStructInfo(DataType dtype);
// An int64 scalar whose value is the dim `value`.
StructInfo PrimStructInfo(const PrimExpr& value);
StructInfo ShapeStructInfo(std::vector<PrimExpr> values);
StructInfo ShapeStructInfo(int ndim);
StructInfo TensorStructInfo(std::vector<PrimExpr> shape, DataType dtype);
// dtype by name ("float32"); throws kType for an unknown name.
StructInfo TensorStructInfo(std::vector<PrimExpr> shape, std::string_view dtype);
// A tensor whose shape is unknown (rank `ndim`, or kUnknownNDim).
StructInfo TensorStructInfo(DataType dtype, int ndim);
StructInfo TupleStructInfo(std::vector<StructInfo> fields);
StructInfo FuncStructInfo(std::vector<StructInfo> params, StructInfo ret);

// ---- Comparison -------------------------------------------------------------------------------

// Same kind, dtype and rank, and dims provably equal (shape variables compared by identity).
bool StructInfoEqual(const StructInfo& a, const StructInfo& b);
// Equal up to a consistent renaming of shape variables: (n, n) matches (m, m) but not (m, k).
bool StructInfoStructuralEqual(const StructInfo& a, const StructInfo& b);
// A hash consistent with StructInfoStructuralEqual, stable across machines and builds.
uint64_t StructInfoStructuralHash(const StructInfo& s);

// False when a value of struct info `value` can never match `pattern` (another kind, dtype
// or rank, or constant dims that differ); MatchCast checks this statically.
bool CanMatch(const StructInfo& pattern, const StructInfo& value);

// The shape variables in `s`, in order of first appearance.
std::vector<PrimVar> SymbolicVars(const StructInfo& s);

}  // namespace kiln::ir::relax
