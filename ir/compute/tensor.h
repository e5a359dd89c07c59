// Tensors of a compute definition: placeholders (inputs) and compute stages, each stage an
// expression of its index variables over the tensors it loads, as in TVM's te.compute. A
// stage is a value, not yet a loop nest: CreatePrimFunc (create_prim_func.h) turns a graph
// of stages into a TensorIR function. Tensors are immutable, so a graph is acyclic by
// construction: a stage can only load tensors that existed before it.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ir/buffer.h"
#include "ir/expr.h"
#include "ir/stmt.h"

namespace kiln::ir::compute {

struct TensorNode;

// The kind of a reduction stage's combiner (see reduce.h).
enum class ReduceKind : uint8_t { kSum, kMax, kMin, kProd };

// A handle to a tensor of the graph. Calling it with indices loads one element.
class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<const TensorNode> ptr) : ptr_(std::move(ptr)) {}

  bool defined() const { return ptr_ != nullptr; }
  const TensorNode* get() const { return ptr_.get(); }
  const TensorNode* operator->() const { return ptr_.get(); }
  bool same_as(const Tensor& other) const { return ptr_ == other.ptr_; }

  const std::string& name() const;
  DataType dtype() const;
  const std::vector<Expr>& shape() const;
  size_t ndim() const;
  // The buffer that holds the tensor in the generated function.
  const Buffer& buffer() const;
  bool is_placeholder() const;

  // Element at `indices` (one integer expression per dimension).
  Expr operator()(const std::vector<Expr>& indices) const;
  Expr operator()(const std::vector<Var>& indices) const;
  template <typename... Indices>
  requires(std::is_convertible_v<Indices, Expr>&&...) Expr operator()(Indices&&... indices) const {
    return (*this)(std::vector<Expr>{Expr(std::forward<Indices>(indices))...});
  }

 private:
  std::shared_ptr<const TensorNode> ptr_;
};

// A reduction stage's value: combine `source` over every point of `axes` where `condition`
// holds (undefined condition: everywhere), starting from the combiner's identity.
struct Reduction {
  ReduceKind kind = ReduceKind::kSum;
  Expr source;
  Expr condition;
  std::vector<IterVar> axes;
};

struct TensorNode {
  std::string name;
  Buffer buffer;  // dtype, shape and name of the tensor
  bool is_placeholder = true;
  // The rest is set for compute stages only.
  std::vector<Var> axis;  // the index variables the stage's function was called with
  Expr body;              // value at `axis`; undefined for a reduction
  std::optional<Reduction> reduction;
  std::vector<Tensor> inputs;  // tensors the stage loads, in order of first load
};

// An input tensor of the given shape and dtype.
Tensor Placeholder(std::string name, std::vector<Expr> shape, DataType dtype);

using IndexFunction = std::function<Expr(const std::vector<Var>&)>;

// A stage of the given shape whose element at index variables `i` is `fn(i)`. `fn` may
// return a reducer (Sum, Max, Min, Prod of reduce.h) as its whole value. Index variables are
// named `axis_names` (default i0, i1, ...); the names carry over to the generated loops.
Tensor ComputeStage(std::vector<Expr> shape, const IndexFunction& fn, std::string name,
                    std::vector<std::string> axis_names = {});

namespace detail {
template <typename F, size_t... I>
constexpr bool InvocableWithVars(std::index_sequence<I...>) {
  return std::is_invocable_r_v<Expr, F&, decltype((void)I, std::declval<Var>())...>;
}
// The number of Var arguments `F` takes, 0 to 6; -1 when none fits.
template <typename F>
constexpr int VarArity() {
  if constexpr (InvocableWithVars<F>(std::make_index_sequence<1>())) return 1;
  if constexpr (InvocableWithVars<F>(std::make_index_sequence<2>())) return 2;
  if constexpr (InvocableWithVars<F>(std::make_index_sequence<3>())) return 3;
  if constexpr (InvocableWithVars<F>(std::make_index_sequence<4>())) return 4;
  if constexpr (InvocableWithVars<F>(std::make_index_sequence<5>())) return 5;
  if constexpr (InvocableWithVars<F>(std::make_index_sequence<6>())) return 6;
  if constexpr (InvocableWithVars<F>(std::make_index_sequence<0>())) return 0;
  return -1;
}
template <typename F, size_t... I>
IndexFunction SpreadIndices(F fn, std::index_sequence<I...>) {
  return [fn = std::move(fn)](const std::vector<Var>& i) mutable -> Expr { return fn(i[I]...); };
}
// Throws unless a function of `arity` indices suits a shape of `ndim` dimensions.
void CheckArity(const std::string& name, size_t arity, size_t ndim);
// True when `index` is an index variable of a stage being defined on this thread whose
// extent is `extent` (the same expression or the same constant): such an index is in range.
bool IsStageIndexOver(const Expr& index, const Expr& extent);
}  // namespace detail

// Compute(shape, fn, name): `fn` takes either the index vector (const std::vector<Var>&) or
// one Var per dimension (up to 6).
template <typename F>
Tensor Compute(std::vector<Expr> shape, F fn, std::string name = "compute",
               std::vector<std::string> axis_names = {}) {
  if constexpr (std::is_invocable_r_v<Expr, F&, const std::vector<Var>&>) {
    return ComputeStage(std::move(shape), IndexFunction(std::move(fn)), std::move(name),
                        std::move(axis_names));
  } else {
    constexpr int kArity = detail::VarArity<F>();
    static_assert(kArity >= 0,
                  "Compute: the function must take const std::vector<Var>& or 0 to 6 Vars and "
                  "return an Expr");
    detail::CheckArity(name, kArity, shape.size());
    return ComputeStage(std::move(shape),
                        detail::SpreadIndices(std::move(fn), std::make_index_sequence<kArity>()),
                        std::move(name), std::move(axis_names));
  }
}

}  // namespace kiln::ir::compute
