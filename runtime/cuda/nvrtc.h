// NVRTC, CUDA's run-time compiler, loaded with dlopen so that Kiln builds and starts on a
// machine without the CUDA toolkit: CUDA C++ source to PTX and, for a real architecture
// ("sm_90"), a cubin the driver loads as is. Machines without the library get a clear
// kiln::Error (kUnsupported, "no CUDA toolkit") and every caller can ask first.
//
// The library is looked up as $KILN_NVRTC (a path), then libnvrtc.so.13, .so.12 and .so on
// the loader's path, then under $CUDA_HOME and /usr/local/cuda, then in the project's Python
// virtual environment ($KILN_VENV, else the .venv of the source tree Kiln was built from),
// where PyPI's nvidia-cuda-nvrtc and nvidia-cuda-runtime wheels put NVRTC and its headers on
// machines without the toolkit. Headers the source includes (cuda_fp16.h) come from the
// include folder beside the library.
#pragma once

#include <string>
#include <vector>

namespace kiln::runtime::cuda {

struct NvrtcOptions {
  // A real architecture ("sm_90") gives PTX and a cubin; a virtual one ("compute_90") PTX only.
  std::string arch = "sm_90";
  std::vector<std::string> extra_options = {};
};

struct NvrtcOutput {
  bool ok = false;
  std::string log;    // the compiler's messages (errors name the line of the source)
  std::string ptx;    // empty unless ok
  std::string cubin;  // empty unless ok and arch is a real architecture
  double seconds = 0;
};

// The NVRTC libraries that PyPI's wheels installed in the virtual environment `venv`
// (lib/python3*/site-packages/nvidia/cu13/lib/libnvrtc.so.13, or cuda_nvrtc/lib/ for CUDA 12).
std::vector<std::string> NvrtcInVirtualEnv(const std::string& venv);

// Whether NVRTC can be loaded here; `why` gets the reason when it cannot.
bool NvrtcAvailable(std::string* why = nullptr);

// "13.0"; kiln::Error(kUnsupported) without NVRTC.
std::string NvrtcVersion();

// The architectures this NVRTC compiles for, as numbers (75, 80, ..., 90, 100).
std::vector<int> NvrtcSupportedArchs();

// The toolkit's include folder NVRTC is given ("" when none was found).
std::string CudaIncludeDir();

// Compiles `source` (named `name` in messages). A compile error is an output with ok false
// and the log; a missing library or an NVRTC failure other than a compile error (out of
// memory, an option it does not know) throws kiln::Error (kUnsupported or kRuntime).
NvrtcOutput CompileWithNvrtc(const std::string& source, const std::string& name,
                             const NvrtcOptions& options = {});

}  // namespace kiln::runtime::cuda
