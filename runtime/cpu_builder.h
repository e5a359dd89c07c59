// Building generated C into a shared object with the system compiler, through a
// content-addressed cache: the key is a StableHasher hash of the source, the flags, the
// compiler's identity and the host CPU, so the same source and flags are never compiled
// twice. Objects are compiled under a private name and renamed into place, which makes
// concurrent builds of one key (threads or processes) safe: each gets a complete file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::runtime {

// gcc -O3 -march=native -fno-math-errno -fopenmp -shared -fPIC -std=c11. A kernel never reads
// errno, and without -fno-math-errno every sqrtf keeps a branch to the library call for a
// negative argument, so a loop computing one per element is not vectorized.
std::vector<std::string> DefaultCFlags();

struct BuildOptions {
  std::string compiler = "gcc";  // a path, or a name on PATH
  std::vector<std::string> flags = DefaultCFlags();
  double time_limit_s = 60;    // the compiler's process group is killed past it; 0: no limit
  std::string cache_dir = {};  // empty: DefaultCacheDir()
};

struct BuildResult {
  bool ok = false;
  std::string library_path;  // the shared object, when ok
  std::string source_path;   // the source as the compiler saw it (kept for inspection)
  uint64_t key = 0;
  bool cache_hit = false;
  bool timed_out = false;
  double compile_seconds = 0;  // the compiler's wall time; 0 on a cache hit
  std::string error;           // the compiler's message (trimmed) when not ok
};

// KILN_CACHE_DIR, else $XDG_CACHE_HOME/kiln, else ~/.cache/kiln.
std::string DefaultCacheDir();

// The first line of `compiler --version`, computed once per compiler per process. Throws
// kiln::Error(kIO) when the compiler cannot be run.
std::string CompilerIdentity(const std::string& compiler);

// The cache key of `source` built with `options`.
uint64_t BuildKey(const std::string& source, const BuildOptions& options);

// Compiles `source` (or finds it in the cache). A compiler error or timeout is a result with
// ok == false and the message; only an unusable environment (no compiler, unwritable cache)
// throws kiln::Error(kIO).
BuildResult BuildCSource(const std::string& source, const BuildOptions& options = {});

}  // namespace kiln::runtime
