// NVRTC through dlopen: the few entry points Kiln uses, declared here with NVRTC's C ABI so
// that no toolkit header is needed to build.
#include "runtime/cuda/nvrtc.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <mutex>

#include "runtime/cuda/dynamic_library.h"
#include "support/error.h"

namespace kiln::runtime::cuda {
namespace {

namespace fs = std::filesystem;

// nvrtc.h: nvrtcResult is an enum whose success value is 0; nvrtcProgram is an opaque pointer.
using NvrtcResult = int;
using NvrtcProgram = void*;
constexpr NvrtcResult kNvrtcSuccess = 0;
constexpr NvrtcResult kNvrtcCompilationError = 6;

struct Nvrtc {
  void* handle = nullptr;
  std::string error;  // why it could not be loaded
  std::string include_dir;
  const char* (*GetErrorString)(NvrtcResult) = nullptr;
  NvrtcResult (*Version)(int*, int*) = nullptr;
  NvrtcResult (*GetNumSupportedArchs)(int*) = nullptr;
  NvrtcResult (*GetSupportedArchs)(int*) = nullptr;
  NvrtcResult (*CreateProgram)(NvrtcProgram*, const char*, const char*, int, const char* const*,
                               const char* const*) = nullptr;
  NvrtcResult (*DestroyProgram)(NvrtcProgram*) = nullptr;
  NvrtcResult (*CompileProgram)(NvrtcProgram, int, const char* const*) = nullptr;
  NvrtcResult (*GetProgramLogSize)(NvrtcProgram, size_t*) = nullptr;
  NvrtcResult (*GetProgramLog)(NvrtcProgram, char*) = nullptr;
  NvrtcResult (*GetPTXSize)(NvrtcProgram, size_t*) = nullptr;
  NvrtcResult (*GetPTX)(NvrtcProgram, char*) = nullptr;
  NvrtcResult (*GetCUBINSize)(NvrtcProgram, size_t*) = nullptr;
  NvrtcResult (*GetCUBIN)(NvrtcProgram, char*) = nullptr;
};

std::string EnvOr(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value && *value ? value : fallback;
}

// The toolkit's include folder: beside the library's lib folder (lib or lib64, possibly under
// targets/<arch>/), else $CUDA_HOME/include, else /usr/local/cuda/include.
std::string FindIncludeDir(const std::string& library_path) {
  std::vector<fs::path> candidates;
  if (!library_path.empty()) {
    std::error_code ec;
    fs::path lib_dir = fs::canonical(library_path, ec).parent_path();
    if (!ec) {
      candidates.push_back(lib_dir.parent_path() / "include");
      candidates.push_back(lib_dir.parent_path().parent_path().parent_path() / "include");
    }
  }
  std::string home = EnvOr("CUDA_HOME", EnvOr("CUDA_PATH", ""));
  if (!home.empty()) candidates.push_back(fs::path(home) / "include");
  candidates.push_back("/usr/local/cuda/include");
  for (const fs::path& dir : candidates) {
    std::error_code ec;
    if (fs::exists(dir / "cuda_fp16.h", ec)) return dir.string();
  }
  return "";
}

Nvrtc LoadNvrtc() {
  Nvrtc n;
  std::string home = EnvOr("CUDA_HOME", "/usr/local/cuda");
  std::vector<std::string> candidates = {
      EnvOr("KILN_NVRTC", ""),     "libnvrtc.so.13",         "libnvrtc.so.12", "libnvrtc.so",
      home + "/lib64/libnvrtc.so", home + "/lib/libnvrtc.so"};
  std::string venv = EnvOr("KILN_VENV", "");
#ifdef KILN_PROJECT_VENV
  if (venv.empty()) venv = KILN_PROJECT_VENV;
#endif
  for (const std::string& path : NvrtcInVirtualEnv(venv)) candidates.push_back(path);
  n.handle = LoadFirstLibrary(candidates, &n.error);
  if (n.handle == nullptr) return n;
  bool all = Resolve(n.handle, "nvrtcGetErrorString", n.GetErrorString) &&
             Resolve(n.handle, "nvrtcVersion", n.Version) &&
             Resolve(n.handle, "nvrtcGetNumSupportedArchs", n.GetNumSupportedArchs) &&
             Resolve(n.handle, "nvrtcGetSupportedArchs", n.GetSupportedArchs) &&
             Resolve(n.handle, "nvrtcCreateProgram", n.CreateProgram) &&
             Resolve(n.handle, "nvrtcDestroyProgram", n.DestroyProgram) &&
             Resolve(n.handle, "nvrtcCompileProgram", n.CompileProgram) &&
             Resolve(n.handle, "nvrtcGetProgramLogSize", n.GetProgramLogSize) &&
             Resolve(n.handle, "nvrtcGetProgramLog", n.GetProgramLog) &&
             Resolve(n.handle, "nvrtcGetPTXSize", n.GetPTXSize) &&
             Resolve(n.handle, "nvrtcGetPTX", n.GetPTX) &&
             Resolve(n.handle, "nvrtcGetCUBINSize", n.GetCUBINSize) &&
             Resolve(n.handle, "nvrtcGetCUBIN", n.GetCUBIN);
  if (!all) {
    n.error = "the NVRTC library " + LibraryPath(n.handle, "nvrtcVersion") +
              " lacks an entry point Kiln needs (NVRTC 11.2 or newer is required)";
    n.handle = nullptr;
    return n;
  }
  n.include_dir = FindIncludeDir(LibraryPath(n.handle, "nvrtcVersion"));
  return n;
}

const Nvrtc& GetNvrtc() {
  static const Nvrtc* nvrtc = new Nvrtc(LoadNvrtc());
  return *nvrtc;
}

const Nvrtc& RequireNvrtc() {
  const Nvrtc& n = GetNvrtc();
  KILN_CHECK(n.handle != nullptr, ErrorKind::kUnsupported,
             "no CUDA toolkit: cannot load NVRTC (" + n.error + ")");
  return n;
}

// Frees the program whatever happens to the compile.
class Program {
 public:
  Program(const Nvrtc& n, NvrtcProgram p) : n_(n), p_(p) {}
  ~Program() { n_.DestroyProgram(&p_); }
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;
  NvrtcProgram get() const { return p_; }

 private:
  const Nvrtc& n_;
  NvrtcProgram p_;
};

}  // namespace

std::vector<std::string> NvrtcInVirtualEnv(const std::string& venv) {
  std::vector<std::string> found;
  std::error_code ec;
  if (venv.empty() || !fs::is_directory(fs::path(venv) / "lib", ec)) return found;
  for (const fs::directory_entry& python : fs::directory_iterator(fs::path(venv) / "lib", ec)) {
    if (python.path().filename().string().rfind("python3", 0) != 0) continue;
    fs::path nvidia = python.path() / "site-packages" / "nvidia";
    // CUDA 13's wheels (nvidia-cuda-nvrtc) and CUDA 12's (nvidia-cuda-nvrtc-cu12).
    for (const fs::path& lib : {nvidia / "cu13" / "lib" / "libnvrtc.so.13",
                                nvidia / "cuda_nvrtc" / "lib" / "libnvrtc.so.12"}) {
      if (fs::exists(lib, ec)) found.push_back(lib.string());
    }
  }
  std::sort(found.begin(), found.end());
  return found;
}

bool NvrtcAvailable(std::string* why) {
  const Nvrtc& n = GetNvrtc();
  if (n.handle == nullptr && why) *why = n.error;
  return n.handle != nullptr;
}

std::string NvrtcVersion() {
  const Nvrtc& n = RequireNvrtc();
  int major = 0, minor = 0;
  n.Version(&major, &minor);
  return std::to_string(major) + "." + std::to_string(minor);
}

std::vector<int> NvrtcSupportedArchs() {
  const Nvrtc& n = RequireNvrtc();
  int count = 0;
  if (n.GetNumSupportedArchs(&count) != kNvrtcSuccess || count <= 0) return {};
  std::vector<int> archs(static_cast<size_t>(count));
  if (n.GetSupportedArchs(archs.data()) != kNvrtcSuccess) return {};
  return archs;
}

std::string CudaIncludeDir() { return RequireNvrtc().include_dir; }

NvrtcOutput CompileWithNvrtc(const std::string& source, const std::string& name,
                             const NvrtcOptions& options) {
  const Nvrtc& n = RequireNvrtc();
  auto start = std::chrono::steady_clock::now();
  auto check = [&](NvrtcResult r, const char* what) {
    KILN_CHECK(r == kNvrtcSuccess, ErrorKind::kRuntime,
               std::string("NVRTC ") + what + " of " + name + " failed: " + n.GetErrorString(r));
  };
  NvrtcProgram raw = nullptr;
  check(n.CreateProgram(&raw, source.c_str(), name.c_str(), 0, nullptr, nullptr),
        "program creation");
  Program program(n, raw);

  std::vector<std::string> args = {"--gpu-architecture=" + options.arch, "--std=c++17"};
  if (!n.include_dir.empty()) args.push_back("--include-path=" + n.include_dir);
  args.insert(args.end(), options.extra_options.begin(), options.extra_options.end());
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  NvrtcResult compiled =
      n.CompileProgram(program.get(), static_cast<int>(argv.size()), argv.data());

  NvrtcOutput out;
  size_t log_size = 0;
  if (n.GetProgramLogSize(program.get(), &log_size) == kNvrtcSuccess && log_size > 1) {
    out.log.resize(log_size);
    if (n.GetProgramLog(program.get(), out.log.data()) != kNvrtcSuccess) out.log.clear();
    while (!out.log.empty() && (out.log.back() == '\0' || out.log.back() == '\n')) {
      out.log.pop_back();
    }
  }
  if (compiled == kNvrtcCompilationError) {
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
  }
  KILN_CHECK(compiled == kNvrtcSuccess, ErrorKind::kRuntime,
             "NVRTC compile of " + name + " failed: " + n.GetErrorString(compiled) +
                 (out.log.empty() ? "" : "\n" + out.log));

  size_t size = 0;
  check(n.GetPTXSize(program.get(), &size), "PTX size");
  out.ptx.resize(size);
  check(n.GetPTX(program.get(), out.ptx.data()), "PTX");
  while (!out.ptx.empty() && out.ptx.back() == '\0') out.ptx.pop_back();
  if (options.arch.rfind("sm_", 0) == 0) {
    size = 0;
    check(n.GetCUBINSize(program.get(), &size), "cubin size");
    out.cubin.resize(size);
    if (size > 0) check(n.GetCUBIN(program.get(), out.cubin.data()), "cubin");
  }
  out.ok = true;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace kiln::runtime::cuda
