// GpuRunnerMain: request -> build -> buffers -> run once and dump -> time -> result.
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <filesystem>
#include <functional>

#include "ir/host_tensor.h"
#include "runtime/cpu_wait.h"
#include "runtime/file_util.h"
#include "runtime/gpu/gpu_backend.h"
#include "runtime/sandbox_lockdown.h"
#include "runtime/sandbox_protocol.h"
#include "support/error.h"

namespace kiln::runtime::gpu {
namespace {

// The largest file the locked-down runner writes: its result (outputs are dumped before).
constexpr int64_t kResultFileBytes = int64_t{16} << 20;

SandboxResult RunRequest(const GpuRunRequest& request, GpuBackend& backend,
                         const std::function<void()>& lock_down) {
  SandboxResult result;
  std::string source = ReadWholeFile(request.source_path);
  auto start = std::chrono::steady_clock::now();
  std::string build_error = backend.Build(source, request.kernels);
  result.build_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!build_error.empty()) {
    result.error_kind = MeasureErrorKind::kBuildError;
    result.message = build_error;
    return result;
  }

  std::vector<ir::HostTensor> host;
  std::vector<int> handles;
  for (const GpuBufferSpec& b : request.buffers) {
    ir::HostTensor t = b.input_path.empty() ? ir::HostTensor(b.dtype, b.shape)
                                            : ReadTensorFile(b.input_path, b.dtype, b.shape);
    // A zero-sized allocation is not portable; every buffer gets at least one element.
    size_t bytes = std::max<size_t>(t.nbytes(), 16);
    int handle = backend.Allocate(bytes);
    if (t.nbytes() > 0) backend.Upload(handle, t.data(), t.nbytes());
    handles.push_back(handle);
    host.push_back(std::move(t));
  }
  std::vector<GpuArg> args;
  for (const GpuArgSpec& a : request.args) {
    GpuArg arg;
    arg.kind = a.kind;
    arg.buffer = a.kind == GpuArgSpec::Kind::kBuffer ? handles.at(a.buffer) : 0;
    arg.dtype = a.dtype;
    arg.int_value = a.int_value;
    arg.float_value = a.float_value;
    args.push_back(arg);
  }

  try {
    // The first run's outputs are the ones compared; it also pays the driver's lazy compile.
    backend.Run(args, 1);
    if (request.dump_outputs) {
      for (size_t i = 0; i < request.buffers.size(); ++i) {
        const GpuBufferSpec& b = request.buffers[i];
        if (b.param_index < 0) continue;
        if (host[i].nbytes() > 0) backend.Download(handles[i], host[i].data(), host[i].nbytes());
        TensorFileRef out;
        out.param_index = b.param_index;
        out.dtype = b.dtype;
        out.shape = b.shape;
        out.path = (std::filesystem::path(request.output_dir) /
                    ("param" + std::to_string(b.param_index) + ".bin"))
                       .string();
        WriteTensorFile(host[i], out.path);
        result.outputs.push_back(std::move(out));
      }
    }
    // The device, the kernels and the first run's lazy work are set up: the timing runs
    // locked down (the driver may need files and processes until the first run is done).
    lock_down();
    if (request.time) {
      TimingConfig timing = request.timing;
      if (timing.warmup > 0) --timing.warmup;  // the run above was one
      TimingResult t = TimeKernel([&](int n) { return backend.Run(args, n); }, timing, [] {});
      result.repeat_seconds = t.seconds_per_run;
      result.median_seconds = t.median_seconds;
      result.number = t.number;
      result.contention = t.contention;
    }
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::kRuntime) throw;
    result.error_kind = MeasureErrorKind::kRuntimeError;
    result.message = e.what();
  }
  return result;
}

}  // namespace

int GpuRunnerMain(int argc, char** argv, const GpuBackendFactory& open_device,
                  bool filter_system_calls) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s REQUEST.json RESULT.json | %s describe RESULT.json\n", argv[0],
                 argv[0]);
    return kSandboxFaultExitStatus;
  }
  rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  int null_fd = open("/dev/null", O_WRONLY);
  if (null_fd >= 0) {
    dup2(null_fd, STDOUT_FILENO);
    close(null_fd);
  }
  std::unique_ptr<GpuBackend> backend;
  try {
    backend = open_device();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return kNoDeviceExitStatus;
  }
  try {
    if (std::string(argv[1]) == "describe") {
      WriteFileAtomically(argv[2], DeviceToJson(backend->Describe()));
      return 0;
    }
    GpuRunRequest request = GpuRequestFromJson(ReadWholeFile(argv[1]), argv[1]);
    // Opened now: the locked-down runner opens no files (filled after the run; the client
    // reads it only after a normal exit).
    PreopenedFile result_file(argv[2]);
    SandboxResult result = RunRequest(request, *backend, [&] {
      PinThreadWaitFiles();  // the timing's contention, read without opening files
      LockdownLimits limits;
      limits.process_name = argv[0];
      limits.cpu_seconds = request.cpu_limit_s;
      limits.file_bytes = kResultFileBytes;
      limits.filter_system_calls = filter_system_calls;
      limits.refuse_file_calls = true;  // the driver's cache writes fail quietly
      LockDownProcess(limits);
    });
    std::string text = ResultToJson(result);
    result_file.Write(text.data(), text.size());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
    return kSandboxFaultExitStatus;
  }
  return 0;
}

}  // namespace kiln::runtime::gpu
