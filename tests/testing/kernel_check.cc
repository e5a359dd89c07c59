// BuildRunAndCompare: build, load, run both ways, compare.
#include "tests/testing/kernel_check.h"

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <variant>
#include <vector>

#include "ir/host_tensor.h"
#include "ir/interpreter/interpreter.h"
#include "runtime/cpu_module.h"
#include "runtime/kernel_args.h"
#include "runtime/measure_result.h"
#include "tests/ir/zoo/zoo.h"

namespace kiln::testing {

ScratchBuild::ScratchBuild(const std::string& prefix) {
  std::string path = (std::filesystem::temp_directory_path() / (prefix + "_XXXXXX")).string();
  if (mkdtemp(path.data()) == nullptr) throw std::runtime_error("mkdtemp failed for " + path);
  options_.cache_dir = path;
}

ScratchBuild::~ScratchBuild() {
  std::error_code ec;
  std::filesystem::remove_all(options_.cache_dir, ec);
}

std::string BuildRunAndCompare(const ir::PrimFunc& workload, const codegen::EmittedSource& source,
                               const runtime::BuildOptions& build, const KernelInputs& inputs) {
  runtime::BuildResult built = runtime::BuildCSource(source.code, build);
  if (!built.ok) return "build failed: " + built.error;
  runtime::CpuModule module = runtime::CpuModule::Load(built.library_path, /*keep_loaded=*/true);
  std::vector<ir::ArgValue> expected, actual;
  for (size_t i = 0; i < workload->params.size(); ++i) {
    auto buffer = workload->BufferOf(workload->params[i]);
    if (!buffer) return "parameter " + std::to_string(i) + " is a scalar: not drawn by this check";
    ir::HostTensor t = ir::HostTensor::Random((*buffer)->dtype, ir::zoo::ConcreteShape(*buffer, {}),
                                              inputs.seed + i, inputs.low, inputs.high);
    expected.push_back(t.Clone());
    actual.push_back(t.Clone());
  }
  ir::Interpret(workload, expected);
  std::vector<codegen::PackedValue> packed = runtime::PackArguments(source.signature, actual);
  runtime::CallKernel(module.GetKernel(source.signature.symbol), source.signature, packed);
  for (size_t i = 0; i < expected.size(); ++i) {
    const ir::HostTensor& e = std::get<ir::HostTensor>(expected[i]);
    ir::Tolerance tol = runtime::OutputTolerance(e);
    ir::TensorComparison cmp =
        ir::CompareTensors(e, std::get<ir::HostTensor>(actual[i]), tol.rtol, tol.atol);
    if (!cmp.ok) return "parameter " + std::to_string(i) + ": " + cmp.message;
  }
  return "";
}

}  // namespace kiln::testing
