// The workloads of the committed cost-model datasets (tests/data/cost_model/): a float32
// matmul and a conv2d, as TVMScript in the form TVM's te.create_prim_func writes them, so the
// dataset tool and the tests parse the same text.
#pragma once

#include <string>

namespace kiln::cost_model::tools {

// C[i, j] = sum_k A[i, k] * B[k, j], all three sizes `n`.
std::string MatmulScript(int n);
// NCHW conv2d, batch 1, `channels` in and out, 3x3 filters, stride 1, no padding: a
// (size + 2)^2 image gives a `size` x `size` output.
std::string Conv2dScript(int channels, int size);

}  // namespace kiln::cost_model::tools
