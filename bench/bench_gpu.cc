// bench_gpu: Kiln's GPU search on the GPU device kinds of this machine.
//
//   1. The CPU emulations (OpenCL on PoCL, Vulkan on lavapipe, WebGPU through wgpu-native on
//      lavapipe), where present: a small matmul, fused dense + bias + GELU and conv2d tuned
//      with the device's design space ("gpu"; "webgpu": WebGPU's portable limits), against the
//      same workload under the default GPU schedule (auto-bind) on the same device. Only the
//      tuned / untuned ratio is reported: these drivers run GPU code on the CPU and do not
//      rank it as a GPU would, so no library baseline is meaningful there.
//   2. CUDA, where a device exists (else "skipped: no CUDA device"): float32 matmul 4096^3
//      tuned with the "cuda" design space against cuBLAS's sgemm (libcublas loaded with
//      dlopen from /usr/local/cuda), and the fused dense + bias + GELU (512 x 3072 x 768)
//      against cuBLAS's GEMM plus a separate bias + GELU kernel (the epilogue under the default
//      GPU schedule, timed by the same measurer).
//
// Ratios are baseline time / Kiln time (above 1: Kiln is faster). --json prints one JSON
// object on the last line.
#include <CLI/CLI.hpp>
#include <condition_variable>
#include <deque>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "cost_model/xgb_cost_model.h"
#include "ir/analysis/flop_count.h"
#include "ir/text/parser.h"
#include "runtime/cuda/cuda_driver.h"
#include "runtime/cuda/dynamic_library.h"
#include "runtime/gpu/gpu_measurer.h"
#include "runtime/measurer.h"
#include "search/space/design_space.h"
#include "search/space/thread_binding.h"
#include "search/tuner.h"
#include "support/error.h"

namespace kiln::bench {
namespace {

using nlohmann::json;

// ---- Workloads ----

std::string MatmulText(int64_t m, int64_t n, int64_t k) {
  std::ostringstream s;
  s << "@T.prim_func\ndef matmul(A: T.Buffer((" << m << ", " << k << "), \"float32\"), B: "
    << "T.Buffer((" << k << ", " << n << "), \"float32\"), C: T.Buffer((" << m << ", " << n
    << "), \"float32\")):\n"
    << "    T.func_attr({\"tir.noalias\": True})\n"
    << "    for i, j, k in T.grid(" << m << ", " << n << ", " << k << "):\n"
    << "        with T.block(\"C\"):\n"
    << "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
    << "            with T.init():\n"
    << "                C[vi, vj] = T.float32(0)\n"
    << "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n";
  return s.str();
}

std::string GeluExpr(const std::string& x) {
  return "(" + x + ") * T.float32(0.5) * (T.float32(1) + T.erf((" + x +
         ") * T.float32(0.70710678118654757)))";
}

std::string DenseBiasGeluText(int64_t m, int64_t n, int64_t k) {
  std::ostringstream s;
  s << "@T.prim_func\ndef dense_bias_gelu(A: T.Buffer((" << m << ", " << k
    << "), \"float32\"), W: T.Buffer((" << k << ", " << n << "), \"float32\"), bias: T.Buffer(("
    << n << ",), \"float32\"), out: T.Buffer((" << m << ", " << n << "), \"float32\")):\n"
    << "    T.func_attr({\"tir.noalias\": True})\n"
    << "    C = T.alloc_buffer((" << m << ", " << n << "), \"float32\")\n"
    << "    for i, j, k in T.grid(" << m << ", " << n << ", " << k << "):\n"
    << "        with T.block(\"C\"):\n"
    << "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
    << "            with T.init():\n"
    << "                C[vi, vj] = T.float32(0)\n"
    << "            C[vi, vj] = C[vi, vj] + A[vi, vk] * W[vk, vj]\n"
    << "    for i, j in T.grid(" << m << ", " << n << "):\n"
    << "        with T.block(\"out\"):\n"
    << "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    << "            out[vi, vj] = " << GeluExpr("C[vi, vj] + bias[vj]") << "\n";
  return s.str();
}

// The epilogue alone: what a library GEMM leaves to a separate kernel.
std::string BiasGeluText(int64_t m, int64_t n) {
  std::ostringstream s;
  s << "@T.prim_func\ndef bias_gelu(C: T.Buffer((" << m << ", " << n
    << "), \"float32\"), bias: T.Buffer((" << n << ",), \"float32\"), out: T.Buffer((" << m << ", "
    << n << "), \"float32\")):\n"
    << "    T.func_attr({\"tir.noalias\": True})\n"
    << "    for i, j in T.grid(" << m << ", " << n << "):\n"
    << "        with T.block(\"out\"):\n"
    << "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    << "            out[vi, vj] = " << GeluExpr("C[vi, vj] + bias[vj]") << "\n";
  return s.str();
}

std::string Conv2dText(int64_t channels, int64_t size) {
  std::ostringstream s;
  int64_t padded = size + 2;
  s << "@T.prim_func\ndef conv2d(X: T.Buffer((1, " << channels << ", " << size << ", " << size
    << "), \"float32\"), W: T.Buffer((" << channels << ", " << channels
    << ", 3, 3), \"float32\"), Y: T.Buffer((1, " << channels << ", " << size << ", " << size
    << "), \"float32\")):\n"
    << "    T.func_attr({\"tir.noalias\": True})\n"
    << "    pad = T.alloc_buffer((1, " << channels << ", " << padded << ", " << padded
    << "), \"float32\")\n"
    << "    for n, c, h, w in T.grid(1, " << channels << ", " << padded << ", " << padded << "):\n"
    << "        with T.block(\"pad\"):\n"
    << "            vn, vc, vh, vw = T.axis.remap(\"SSSS\", [n, c, h, w])\n"
    << "            pad[vn, vc, vh, vw] = T.Select(1 <= vh and vh < " << size + 1
    << " and (1 <= vw and vw < " << size + 1 << "), X[vn, vc, T.max(T.min(vh - 1, " << size - 1
    << "), 0), T.max(T.min(vw - 1, " << size - 1 << "), 0)], T.float32(0))\n"
    << "    for n, f, y, x, c, r, s in T.grid(1, " << channels << ", " << size << ", " << size
    << ", " << channels << ", 3, 3):\n"
    << "        with T.block(\"conv\"):\n"
    << "            vn, vf, vy, vx, vc, vr, vs = T.axis.remap(\"SSSSRRR\", [n, f, y, x, c, r, s])\n"
    << "            with T.init():\n"
    << "                Y[vn, vf, vy, vx] = T.float32(0)\n"
    << "            Y[vn, vf, vy, vx] = Y[vn, vf, vy, vx] + pad[vn, vc, vy + vr, vx + vs] * "
       "W[vf, vc, vr, vs]\n";
  return s.str();
}

// ---- Measuring through one device's Measurer ----

// The search's AsyncMeasurer over one device measurer: a thread measures the queued requests
// one at a time (a GPU is timed alone; its measurer builds and runs in a child process).
class DeviceAsyncMeasurer : public search::AsyncMeasurer {
 public:
  explicit DeviceAsyncMeasurer(runtime::Measurer& measurer) : measurer_(measurer) {
    thread_ = std::thread([this] { Loop(); });
  }
  ~DeviceAsyncMeasurer() override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    changed_.notify_all();
    thread_.join();
  }
  void Submit(std::vector<search::MeasureRequest> requests) override {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& r : requests) queue_.push_back(std::move(r));
    pending_ += requests.size();
    changed_.notify_all();
  }
  std::vector<search::MeasureResponse> Collect(double timeout_s) override {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait_for(lock, std::chrono::duration<double>(timeout_s),
                      [&] { return !done_.empty(); });
    std::vector<search::MeasureResponse> out;
    out.swap(done_);
    pending_ -= out.size();
    return out;
  }
  size_t Pending() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return pending_;
  }

 private:
  void Loop() {
    while (true) {
      search::MeasureRequest request;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [&] { return stop_ || !queue_.empty(); });
        if (stop_) return;
        request = std::move(queue_.front());
        queue_.pop_front();
      }
      search::MeasureResponse response;
      response.id = request.id;
      response.worker = measurer_.DeviceKind();
      try {
        response.result = measurer_.Measure({request.workload, request.scheduled, request.dims});
      } catch (const std::exception& e) {
        response.machinery_error = e.what();
      }
      std::lock_guard<std::mutex> lock(mutex_);
      done_.push_back(std::move(response));
      changed_.notify_all();
    }
  }

  runtime::Measurer& measurer_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<search::MeasureRequest> queue_;
  std::vector<search::MeasureResponse> done_;
  size_t pending_ = 0;
  bool stop_ = false;
  std::thread thread_;
};

struct Options {
  int64_t trials = 64;
  int64_t cuda_trials = 256;
  std::vector<std::string> devices = {"opencl", "vulkan", "webgpu"};
  double min_repeat_ms = 20;
  int population = 256;
  uint64_t seed = 1;
  bool json = false;
};

runtime::MeasureOptions DeviceOptions(const std::string& device, const Options& opt) {
  runtime::MeasureOptions options;
  options.target = device;
  options.timing.min_repeat_ms = opt.min_repeat_ms;
  options.timing.repeat = 3;
  options.run_time_limit_s = 120;
  return options;
}

// The best time the search finds for `workload` on `measurer` with the design space named
// `preset`; 0 when no candidate was correct.
double TuneBest(runtime::Measurer& measurer, const std::string& preset, const std::string& name,
                const ir::PrimFunc& workload, int64_t trials, const Options& opt) {
  DeviceAsyncMeasurer async(measurer);
  search::TunerOptions options;
  options.max_trials_global = trials;
  options.target = preset;
  options.evolutionary.population_size = opt.population;
  options.seed = opt.seed;
  options.measure_untuned = false;
  cost_model::XgbOptions xgb;
  xgb.seed = opt.seed;
  std::unique_ptr<search::CostModel> model = cost_model::MakeXgbCostModel(xgb);
  search::Tuner tuner(
      {{.name = name, .workload = workload, .weight = 1, .flop = ir::EstimateFlops(workload, {})}},
      options, async,
      [preset](const search::TuneContext&) { return search::MakeDesignSpace(preset); },
      model.get());
  search::TuneReport report = tuner.Run([&](const search::TuneReport& r) {
    if (!r.finished) return;
    const auto& t = r.tasks[0];
    std::cerr << "  " << name << " on " << measurer.DeviceKind() << ": " << r.total_trials
              << " trials, best " << t.best_seconds * 1e6 << " us\n";
  });
  return report.tasks[0].best_seconds;
}

// The workload under the default GPU schedule on `measurer`: the untuned kernel.
double DefaultSeconds(runtime::Measurer& measurer, const ir::PrimFunc& workload, int64_t threads) {
  runtime::MeasureResult r =
      measurer.Measure({workload, search::DefaultGpuSchedule(workload, threads)});
  KILN_CHECK(r.ok(), ErrorKind::kRuntime,
             workload->name + " under the default GPU schedule on " + measurer.DeviceKind() + ": " +
                 r.message);
  return r.median_seconds;
}

// ---- cuBLAS through dlopen ----

struct Cublas {
  using Handle = void*;
  int (*Create)(Handle*) = nullptr;
  int (*Destroy)(Handle) = nullptr;
  int (*Sgemm)(Handle, int, int, int, int, int, const float*, const float*, int, const float*, int,
               const float*, float*, int) = nullptr;
};

Cublas LoadCublas() {
  std::string why;
  void* lib = runtime::cuda::LoadFirstLibrary(
      {"libcublas.so", "/usr/local/cuda/lib64/libcublas.so", "libcublas.so.13", "libcublas.so.12"},
      &why);
  KILN_CHECK(lib != nullptr, ErrorKind::kUnsupported, "no cuBLAS: " + why);
  Cublas c;
  KILN_CHECK(runtime::cuda::Resolve(lib, "cublasCreate_v2", c.Create) &&
                 runtime::cuda::Resolve(lib, "cublasDestroy_v2", c.Destroy) &&
                 runtime::cuda::Resolve(lib, "cublasSgemm_v2", c.Sgemm),
             ErrorKind::kUnsupported, "cuBLAS lacks cublasCreate_v2 / cublasSgemm_v2");
  return c;
}

// Seconds of one row-major C = A x B (m x k times k x n) by cuBLAS: the median of 5 repeats
// of `number` calls each, timed with CUDA events after a warm-up.
double CublasSgemmSeconds(int64_t m, int64_t n, int64_t k) {
  const runtime::cuda::CudaDriver& cu = runtime::cuda::GetCudaDriver();
  runtime::cuda::CUdevice device = 0;
  runtime::cuda::CUcontext context = nullptr;
  cu.Check(cu.DeviceGet(&device, 0), "cuDeviceGet");
  cu.Check(cu.DevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
  cu.Check(cu.CtxSetCurrent(context), "cuCtxSetCurrent");
  Cublas blas = LoadCublas();
  runtime::cuda::CUdeviceptr a = 0, b = 0, c = 0;
  cu.Check(cu.MemAlloc(&a, m * k * 4), "cuMemAlloc");
  cu.Check(cu.MemAlloc(&b, k * n * 4), "cuMemAlloc");
  cu.Check(cu.MemAlloc(&c, m * n * 4), "cuMemAlloc");
  cu.Check(cu.MemsetD8(a, 0x3c, m * k * 4), "cuMemsetD8");
  cu.Check(cu.MemsetD8(b, 0x3c, k * n * 4), "cuMemsetD8");
  Cublas::Handle handle = nullptr;
  KILN_CHECK(blas.Create(&handle) == 0, ErrorKind::kRuntime, "cublasCreate failed");
  const float alpha = 1, beta = 0;
  auto* pa = reinterpret_cast<const float*>(a);
  auto* pb = reinterpret_cast<const float*>(b);
  auto* pc = reinterpret_cast<float*>(c);
  // Column-major cuBLAS: C^T (n x m) = B^T (n x k) x A^T (k x m). CUBLAS_OP_N = 0.
  auto gemm = [&] {
    KILN_CHECK(blas.Sgemm(handle, 0, 0, static_cast<int>(n), static_cast<int>(m),
                          static_cast<int>(k), &alpha, pb, static_cast<int>(n), pa,
                          static_cast<int>(k), &beta, pc, static_cast<int>(n)) == 0,
               ErrorKind::kRuntime, "cublasSgemm failed");
  };
  runtime::cuda::CUevent start = nullptr, end = nullptr;
  cu.Check(cu.EventCreate(&start, 0), "cuEventCreate");
  cu.Check(cu.EventCreate(&end, 0), "cuEventCreate");
  for (int i = 0; i < 3; ++i) gemm();
  cu.Check(cu.CtxSynchronize(), "cuCtxSynchronize");
  std::vector<double> repeats;
  const int number = 20;
  for (int r = 0; r < 5; ++r) {
    cu.Check(cu.EventRecord(start, nullptr), "cuEventRecord");
    for (int i = 0; i < number; ++i) gemm();
    cu.Check(cu.EventRecord(end, nullptr), "cuEventRecord");
    cu.Check(cu.EventSynchronize(end), "cuEventSynchronize");
    float ms = 0;
    cu.Check(cu.EventElapsedTime(&ms, start, end), "cuEventElapsedTime");
    repeats.push_back(ms / 1e3 / number);
  }
  blas.Destroy(handle);
  cu.EventDestroy(start);
  cu.EventDestroy(end);
  cu.MemFree(a);
  cu.MemFree(b);
  cu.MemFree(c);
  std::sort(repeats.begin(), repeats.end());
  return repeats[repeats.size() / 2];
}

// ---- The parts ----

json EmulatedPart(const Options& opt) {
  json rows = json::array();
  json skipped = json::object();
  struct Workload {
    std::string name;
    std::string text;
  };
  // Small enough that the untuned kernels (one output per thread, no reuse) finish in well
  // under a second on a CPU driver.
  std::vector<Workload> workloads = {
      {"matmul_128", MatmulText(128, 128, 128)},
      {"dense_bias_gelu_64x256x256", DenseBiasGeluText(64, 256, 256)},
      {"conv2d_16x14x14", Conv2dText(16, 14)}};
  for (const std::string& device : opt.devices) {
    std::unique_ptr<runtime::Measurer> measurer;
    try {
      measurer = runtime::CreateMeasurer(device, DeviceOptions(device, opt));
    } catch (const Error& e) {
      std::cout << device << ": skipped: no " << device << " device (" << e.what() << ")\n";
      skipped[device] = e.what();
      continue;
    }
    int64_t threads = 256;
    std::string key = device;
    if (auto* gpu = dynamic_cast<runtime::gpu::GpuMeasurer*>(measurer.get())) {
      threads = std::min<int64_t>(threads, gpu->device().limits.max_threads_per_block);
      key = gpu->device().key;
    }
    for (const Workload& w : workloads) {
      ir::PrimFunc f = ir::ParsePrimFunc(w.text);
      double untuned = DefaultSeconds(*measurer, f, threads);
      double tuned = TuneBest(*measurer, device, w.name, f, opt.trials, opt);
      double ratio = tuned > 0 ? untuned / tuned : 0;
      std::cout << key << "  " << w.name << ": untuned " << untuned * 1e6 << " us, tuned "
                << tuned * 1e6 << " us, untuned / tuned " << ratio << "\n";
      rows.push_back({{"device", device},
                      {"device_key", key},
                      {"workload", w.name},
                      {"trials", opt.trials},
                      {"untuned_s", untuned},
                      {"tuned_s", tuned},
                      {"untuned_over_tuned", ratio}});
    }
  }
  return {{"results", rows},
          {"skipped", skipped},
          {"note",
           "PoCL and lavapipe (also under wgpu-native) run GPU code on the CPU: they do not rank "
           "GPU kernels as a GPU "
           "would, so only tuned / untuned ratios are shown, and no library baseline"}};
}

json CudaPart(const Options& opt) {
  std::unique_ptr<runtime::Measurer> measurer;
  try {
    measurer = runtime::CreateMeasurer("cuda", DeviceOptions("cuda", opt));
  } catch (const Error& e) {
    std::cout << "cuda: skipped: no CUDA device (" << e.what() << ")\n";
    return {{"skipped", std::string("no CUDA device: ") + e.what()}};
  }
  std::string key = "cuda";
  if (auto* gpu = dynamic_cast<runtime::gpu::GpuMeasurer*>(measurer.get())) {
    key = gpu->device().key;
  }
  json out = {{"device_key", key}, {"trials", opt.cuda_trials}};
  // matmul 4096^3 against cuBLAS.
  ir::PrimFunc matmul = ir::ParsePrimFunc(MatmulText(4096, 4096, 4096));
  double kiln_matmul = TuneBest(*measurer, "cuda", "matmul_4096", matmul, opt.cuda_trials, opt);
  double cublas_matmul = CublasSgemmSeconds(4096, 4096, 4096);
  double flop = 2.0 * 4096 * 4096 * 4096;
  out["matmul_4096"] = {{"kiln_s", kiln_matmul},
                        {"cublas_s", cublas_matmul},
                        {"kiln_tflops", kiln_matmul > 0 ? flop / kiln_matmul / 1e12 : 0},
                        {"cublas_tflops", flop / cublas_matmul / 1e12},
                        {"cublas_over_kiln", kiln_matmul > 0 ? cublas_matmul / kiln_matmul : 0}};
  std::cout << key << "  matmul 4096^3: Kiln " << kiln_matmul * 1e3 << " ms, cuBLAS "
            << cublas_matmul * 1e3 << " ms, cuBLAS / Kiln "
            << out["matmul_4096"]["cublas_over_kiln"] << "\n";
  // dense + bias + GELU against cuBLAS plus a separate epilogue.
  ir::PrimFunc dense = ir::ParsePrimFunc(DenseBiasGeluText(512, 3072, 768));
  double kiln_dense = TuneBest(*measurer, "cuda", "dense_bias_gelu", dense, opt.cuda_trials, opt);
  double cublas_dense = CublasSgemmSeconds(512, 3072, 768);
  double epilogue = DefaultSeconds(*measurer, ir::ParsePrimFunc(BiasGeluText(512, 3072)), 256);
  double baseline = cublas_dense + epilogue;
  out["dense_bias_gelu_512x3072x768"] = {
      {"kiln_s", kiln_dense},
      {"cublas_gemm_s", cublas_dense},
      {"epilogue_s", epilogue},
      {"baseline_over_kiln", kiln_dense > 0 ? baseline / kiln_dense : 0}};
  std::cout << key << "  dense+bias+GELU: Kiln " << kiln_dense * 1e6 << " us, cuBLAS + epilogue "
            << baseline * 1e6 << " us, ratio "
            << out["dense_bias_gelu_512x3072x768"]["baseline_over_kiln"] << "\n";
  return out;
}

}  // namespace
}  // namespace kiln::bench

int main(int argc, char** argv) {
  using namespace kiln::bench;
  Options opt;
  CLI::App app("bench_gpu: the GPU search on this machine's GPU device kinds");
  app.add_option("--trials", opt.trials, "trials per workload on the CPU emulations");
  app.add_option("--cuda-trials", opt.cuda_trials, "trials per workload on a CUDA device");
  app.add_option("--devices", opt.devices, "emulated device kinds to try (opencl, vulkan, webgpu)")
      ->delimiter(',');
  app.add_option("--min-repeat-ms", opt.min_repeat_ms, "timing: each repeat lasts at least this");
  app.add_option("--population", opt.population, "evolutionary search population");
  app.add_option("--seed", opt.seed, "seed of every random draw");
  app.add_flag("--json", opt.json, "one JSON object on the last line");
  CLI11_PARSE(app, argc, argv);
  try {
    json out = {{"emulated", EmulatedPart(opt)}, {"cuda", CudaPart(opt)}};
    if (opt.json) std::cout << out.dump() << "\n";
  } catch (const kiln::Error& e) {
    std::cerr << "bench_gpu: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
