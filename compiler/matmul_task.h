// Which tasks a matmul library call can compute: a task whose TensorIR holds a (batched)
// matmul or dense block (either operand transposed, batch dims broadcast as attention's
// matmuls have them) reading two of the function's tensor parameters, in float32, possibly
// followed by other blocks (the fused epilogue: bias, residual add, divide, GELU, ...) that
// read its product. Matched on blocks and buffers, never on names: the block must be
//   C[b..., i, j] = C[b..., i, j] + A[..., i, k] * B[..., k, j]   (init C = 0)
// with A's last two indices (i, k) or (k, i), B's (k, j) or (j, k), each leading index of A
// and B the batch index of C it aligns with (right-aligned) or 0 over a dim of extent 1, in
// a perfect loop nest of its own at the top of the function. The library variant of such a
// task is the library call writing C, then the rest of the function (epilogue.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/function.h"

namespace kiln::compiler {

// Where one dim of the product's extent is found among the task's parameters: dim `dim` of
// parameter `param`'s buffer, or the constant `value` when `param` is -1.
struct ProductDim {
  int param = -1;
  int dim = -1;
  int64_t value = 1;
};

struct MatmulTask {
  std::string block;  // the matmul block's name
  int a_param = -1;   // A and B: indices into the function's parameters
  int b_param = -1;
  bool trans_a = false;
  bool trans_b = false;
  // The product C: an intermediate buffer of the function (the epilogue reads it), or the
  // parameter `output_param` when the matmul is the whole task.
  ir::Buffer product;
  int output_param = -1;
  std::vector<ProductDim> product_dims;  // one per dim of C
  size_t nest_index = 0;                 // which top-level statement of the root block
  std::vector<int> written_params;       // the task's outputs: parameters some block writes
};

// The match, or nullopt (with `why`, when given, saying what did not fit).
std::optional<MatmulTask> MatchMatmulTask(const ir::PrimFunc& func, std::string* why = nullptr);

}  // namespace kiln::compiler
