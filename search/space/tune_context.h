// TuneContext: what every design-space component is initialized with for one task: the
// workload (the task's unscheduled PrimFunc), the codegen target it is tuned for, the
// hardware facts that size the space (cores, vector width; on a GPU the device's limits), and
// the seed of its random draws.
// Rules, postprocessors, mutators and cost models read it; none of them keeps a pointer past
// Initialize except to fields they copy.
#pragma once

#include <cstdint>
#include <string>

#include "ir/function.h"

namespace kiln::search {

struct TuneContext {
  ir::PrimFunc workload;
  std::string task_name;        // for logs and tables ("fused_matmul_add_gelu")
  std::string target = "llvm";  // a codegen target name (codegen/target.h)
  int num_cores = 1;            // cores a parallel kernel may use
  int vector_bytes = 64;        // widest SIMD register (AVX-512: 64)
  // A GPU device's limits; 0 keeps the GPU preset's own (design_space.h). The GPU rules size
  // thread extents by them and verify_gpu_code rejects a candidate that exceeds them.
  int max_threads_per_block = 0;
  int64_t max_shared_memory_bytes = 0;
  int warp_size = 0;
  uint64_t seed = 1;
};

}  // namespace kiln::search
