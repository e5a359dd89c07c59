// Objects through the build cache (compiled with -c), one link.
#include "compiler/kernel_library.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "codegen/target.h"
#include "runtime/cpu_builder.h"
#include "runtime/kernel_source.h"
#include "runtime/model/artifact.h"
#include "runtime/subprocess.h"
#include "support/error.h"

namespace kiln::compiler {
namespace {

// The build cache's flags with -c instead of -shared: the cache keys on the flags, so these
// objects never collide with the measurer's libraries.
runtime::BuildOptions ObjectBuildOptions(const KernelLibraryOptions& options) {
  runtime::BuildOptions build;
  build.compiler = options.compiler;
  build.flags.clear();
  for (const std::string& flag : runtime::DefaultCFlags()) {
    build.flags.push_back(flag == "-shared" ? "-c" : flag);
  }
  build.time_limit_s = options.time_limit_s;
  build.cache_dir = options.cache_dir;
  return build;
}

std::string ThreadSetterSource() {
  return std::string(
             "#include <stdint.h>\n#include <omp.h>\n"
             "typedef union {\n  void* ptr;\n  int64_t i;\n  double f;\n} kiln_value_t;\n"
             "int32_t ") +
         runtime::model::kSetThreadsSymbol +
         "(const kiln_value_t* args, int32_t num_args);\n"
         "int32_t " +
         runtime::model::kSetThreadsSymbol +
         "(const kiln_value_t* args, int32_t num_args) {\n"
         "  if (num_args < 1 || args[0].i < 1) return 1;\n"
         "  omp_set_num_threads((int)args[0].i);\n"
         "  return 0;\n"
         "}\n";
}

}  // namespace

std::vector<KernelObject> CompileKernelObjects(const std::vector<ir::PrimFunc>& funcs,
                                               const std::vector<std::string>& symbols,
                                               const KernelLibraryOptions& options) {
  KILN_CHECK(funcs.size() == symbols.size(), ErrorKind::kInternal,
             "CompileKernelObjects: one symbol per function expected");
  std::vector<KernelObject> results(funcs.size());
  runtime::BuildOptions build = ObjectBuildOptions(options);
  // Generation is not thread-safe across a shared target object: one target per worker.
  std::atomic<size_t> next{0};
  std::mutex error_mutex;
  std::optional<Error> fatal;
  auto work = [&] {
    std::unique_ptr<codegen::CodegenTarget> target = codegen::CreateTarget(options.target);
    for (size_t i = next++; i < funcs.size(); i = next++) {
      KernelObject& r = results[i];
      try {
        runtime::GeneratedKernel kernel = runtime::GenerateKernel(funcs[i], *target, symbols[i]);
        r.signature = kernel.source.signature;
        runtime::BuildResult built = runtime::BuildCSource(kernel.source.code, build);
        r.ok = built.ok;
        r.object_path = built.library_path;
        r.error = built.error;
      } catch (const Error& e) {
        if (e.kind() == ErrorKind::kIO) {
          std::lock_guard<std::mutex> lock(error_mutex);
          if (!fatal) fatal = e;
          return;
        }
        r.ok = false;
        r.error = e.what();
      }
    }
  };
  int jobs = options.jobs > 0 ? options.jobs
                              : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  jobs = std::min<int>(jobs, std::max<size_t>(1, funcs.size()));
  std::vector<std::thread> threads;
  for (int j = 1; j < jobs; ++j) threads.emplace_back(work);
  work();
  for (std::thread& t : threads) t.join();
  if (fatal) throw *fatal;
  return results;
}

void LinkKernelLibrary(const std::vector<std::string>& objects, const std::string& output_path,
                       const KernelLibraryOptions& options) {
  runtime::BuildResult setter =
      runtime::BuildCSource(ThreadSetterSource(), ObjectBuildOptions(options));
  KILN_CHECK(setter.ok, ErrorKind::kIO, "the thread setter does not compile: " + setter.error);
  runtime::ProcessOptions run;
  run.argv = {options.compiler, "-shared", "-fPIC", "-fopenmp", "-o", output_path};
  run.argv.insert(run.argv.end(), objects.begin(), objects.end());
  run.argv.push_back(setter.library_path);
  run.capture_output = true;
  run.time_limit_s = options.time_limit_s;
  runtime::ProcessResult linked = runtime::RunProcess(run);
  KILN_CHECK(linked.ok(), ErrorKind::kIO,
             "linking the kernels into " + output_path + ": the linker " + linked.Describe() +
                 ": " + linked.output.substr(0, 4000));
}

}  // namespace kiln::compiler
