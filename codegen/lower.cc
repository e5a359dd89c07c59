// The lowering pipeline.
#include "codegen/lower.h"

#include "codegen/gpu/check_schedule.h"
#include "codegen/passes/compact_buffers.h"
#include "codegen/passes/flatten_buffers.h"
#include "codegen/passes/hoist_index_loads.h"
#include "codegen/passes/lower_blocks.h"
#include "codegen/passes/partition_loops.h"
#include "codegen/passes/place_allocations.h"
#include "codegen/passes/simplify.h"
#include "ir/text/printer.h"
#include "support/logging.h"

namespace kiln::codegen {

using ir::PrimFunc;

PrimFunc Lower(const PrimFunc& f, const LowerOptions& options) {
  auto step = [&](std::string_view pass, PrimFunc result) {
    if (Logger().should_log(spdlog::level::debug)) {
      // A log line must never fail the lowering it describes.
      std::string text;
      try {
        text = ir::PrintPrimFunc(result);
      } catch (const Error& e) {
        text = std::string("(not printable: ") + e.what() + ")";
      }
      KILN_LOG_DEBUG("lower {}: after {}:\n{}", f->name, pass, text);
    }
    if (options.after_pass) options.after_pass(pass, result);
    return result;
  };
  if (options.gpu) gpu::CheckThreadBoundReductions(f);
  PrimFunc g = step("PlaceAllocations", PlaceAllocations(f));
  g = step("LowerBlocks", LowerBlocks(g));
  g = step("CompactBuffers", CompactBuffers(g));
  g = step("FlattenBuffers", FlattenBuffers(g));
  g = step("Simplify", Simplify(g));
  g = step("PartitionLoops", PartitionLoops(g));
  g = step("UnrollLoops", UnrollLoops(g, options.unroll));
  g = step("VectorizeLoops", VectorizeLoops(g, options.vectorize));
  g = step("Simplify", Simplify(g));
  g = step("HoistIndexLoads", HoistIndexLoads(g));
  if (options.plan_storage) g = step("PlanStorage", PlanStorage(g, options.storage));
  return g;
}

}  // namespace kiln::codegen
