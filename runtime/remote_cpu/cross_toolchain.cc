// Choosing the cross compiler of a triple and the flags of a kernel for a device.
#include "runtime/remote_cpu/cross_toolchain.h"

#include <unistd.h>

#include <cstdlib>
#include <sstream>

#include "support/error.h"

namespace kiln::runtime::remote_cpu {
namespace {

bool OnPath(const std::string& name) { return !FindProgram(name).empty(); }

bool HasFeature(const std::string& features, const std::string& name) {
  return (" " + features + " ").find(" " + name + " ") != std::string::npos;
}

// The API level at the end of an Android triple ("aarch64-linux-android29"), or 29.
std::string ApiLevel(const std::string& triple) {
  size_t end = triple.size();
  size_t begin = end;
  while (begin > 0 && triple[begin - 1] >= '0' && triple[begin - 1] <= '9') --begin;
  return begin < end ? triple.substr(begin) : "29";
}

}  // namespace

std::string FindProgram(const std::string& name) {
  if (name.find('/') != std::string::npos) return access(name.c_str(), X_OK) == 0 ? name : "";
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (!dir.empty() && access((dir + "/" + name).c_str(), X_OK) == 0) return dir + "/" + name;
  }
  return {};
}

std::string HostTriple() {
#if defined(__aarch64__)
  return "aarch64-linux-gnu";
#elif defined(__x86_64__)
  return "x86_64-linux-gnu";
#else
  return "unknown";
#endif
}

namespace {

CrossToolchain ChooseCompiler(const std::string& triple) {
  CrossToolchain t;
  t.triple = triple;
  if (const char* cc = std::getenv("KILN_CROSS_CC"); cc && *cc) {
    std::istringstream words(cc);
    for (std::string w; words >> w;) {
      if (t.compiler.empty()) {
        t.compiler = w;
      } else {
        t.flags.push_back(w);
      }
    }
    return t;
  }
  if (TriplesMatch(triple, HostTriple())) {
    t.compiler = "gcc";
    return t;
  }
  if (triple.find("-android") != std::string::npos) {
    std::string base = triple;
    while (!base.empty() && base.back() >= '0' && base.back() <= '9') base.pop_back();
    std::string api = ApiLevel(triple);
    for (const char* var : {"ANDROID_NDK_ROOT", "ANDROID_NDK", "ANDROID_NDK_HOME"}) {
      const char* ndk = std::getenv(var);
      if (ndk == nullptr || *ndk == '\0') continue;
      std::string clang =
          std::string(ndk) + "/toolchains/llvm/prebuilt/linux-x86_64/bin/" + base + api + "-clang";
      if (OnPath(clang)) {
        t.compiler = clang;
        return t;
      }
    }
    // No NDK: clang and lld alone. A kernel needs a handful of C declarations (memcpy,
    // expf, ...), which the aarch64 glibc headers give with the same ABI, and no library at
    // link time (-nostdlib: the runner's C library and libm resolve them when it loads). It
    // builds an Android aarch64 shared object; the NDK remains the supported path.
    t.compiler = "clang";
    t.flags = {"--target=" + base + api, "-fuse-ld=lld"};
    std::string glibc_headers = "/usr/" + base.substr(0, base.find('-')) + "-linux-gnu/include";
    if (access(glibc_headers.c_str(), R_OK) == 0) {
      t.flags.insert(t.flags.end(), {"-nostdlib", "-isystem", glibc_headers});
    }
    return t;
  }
  if (triple.find("-linux-gnu") != std::string::npos) {
    if (OnPath(triple + "-gcc")) {
      t.compiler = triple + "-gcc";
      return t;
    }
    if (OnPath("clang")) {
      t.compiler = "clang";
      t.flags = {"--target=" + triple, "-fuse-ld=lld"};
      return t;
    }
    throw Error(ErrorKind::kUnsupported, "no compiler for " + triple + ": install " +
                                             triple.substr(0, triple.find('-')) +
                                             " cross compilers (Debian: g++-" + triple +
                                             ", or clang and lld), or set KILN_CROSS_CC");
  }
  throw Error(ErrorKind::kUnsupported,
              "no known compiler for triple '" + triple + "' (set KILN_CROSS_CC)");
}

}  // namespace

CrossToolchain FindCrossToolchain(const std::string& triple) {
  CrossToolchain t = ChooseCompiler(triple);
  bool clang = t.compiler.find("clang") != std::string::npos;
  if (clang && triple.find("-android") != std::string::npos) {
    t.openmp_flags = {"-fopenmp", "-static-openmp"};
  } else if (clang && !TriplesMatch(triple, HostTriple())) {
    t.openmp_flags = {"-fopenmp=libgomp"};
  }
  return t;
}

std::vector<std::string> KernelFlags(const RunnerFacts& facts, const CrossToolchain& toolchain,
                                     bool uses_openmp) {
  std::vector<std::string> flags = {"-O3", "-fno-math-errno", "-shared", "-fPIC", "-std=c11"};
  if (facts.triple.rfind("aarch64", 0) == 0) {
    bool fp16 = HasFeature(facts.features, "asimdhp") && HasFeature(facts.features, "fphp");
    bool dotprod = HasFeature(facts.features, "asimddp");
    flags.push_back(fp16 && dotprod ? "-march=armv8.2-a+fp16+dotprod" : "-march=armv8-a");
  }
  if (uses_openmp) {
    flags.insert(flags.end(), toolchain.openmp_flags.begin(), toolchain.openmp_flags.end());
  }
  return flags;
}

std::string TripleOfTarget(const std::string& target) {
  std::istringstream words(target);
  for (std::string w; words >> w;) {
    if (w.rfind("-mtriple=", 0) == 0) return w.substr(9);
  }
  return {};
}

}  // namespace kiln::runtime::remote_cpu
