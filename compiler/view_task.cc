// Name and signature first, then the interpreter where the shapes allow.
#include "compiler/view_task.h"

#include <cctype>

#include "ir/interpreter/interpreter.h"
#include "support/error.h"

namespace kiln::compiler {
namespace {

// Elements above which the interpreter check is skipped (it runs at compile time).
constexpr int64_t kMaxCheckedElements = 1 << 18;

bool IsViewOpName(std::string name) {
  while (!name.empty() && std::isdigit(static_cast<unsigned char>(name.back()))) name.pop_back();
  return name == "reshape" || name == "squeeze" || name == "expand_dims" || name == "flatten";
}

std::optional<std::vector<int64_t>> StaticShape(const std::vector<ir::relax::PrimExpr>& shape) {
  std::vector<int64_t> dims;
  for (const ir::relax::PrimExpr& d : shape) {
    const auto* i = d.as<ir::IntImmNode>();
    if (i == nullptr) return std::nullopt;
    dims.push_back(i->value);
  }
  return dims;
}

int64_t Numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

}  // namespace

bool IsViewTask(const ir::relax::transform::ExtractedTask& task) {
  if (!IsViewOpName(task.name) || task.params.size() != 2) return false;
  const auto& in = task.params[0];
  const auto& out = task.params[1];
  if (!in.is_buffer || !out.is_buffer || in.dtype != out.dtype) return false;
  std::optional<std::vector<int64_t>> in_shape = StaticShape(in.shape);
  std::optional<std::vector<int64_t>> out_shape = StaticShape(out.shape);
  if (!in_shape || !out_shape) return true;  // symbolic: the executor checks the element counts
  int64_t n = Numel(*in_shape);
  if (n != Numel(*out_shape)) return false;
  if (n > kMaxCheckedElements) return true;
  ir::HostTensor input(in.dtype, *in_shape);
  ir::HostTensor output(out.dtype, *out_shape);
  // Small integers are exact in every dtype that a reshape of a model meets.
  for (int64_t i = 0; i < n; ++i) input.SetDouble(i, static_cast<double>(i % 251));
  try {
    ir::Interpret(task.func, {input, output});
  } catch (const Error&) {
    return false;
  }
  for (int64_t i = 0; i < n; ++i) {
    if (output.GetDouble(i) != input.GetDouble(i)) return false;
  }
  return true;
}

}  // namespace kiln::compiler
