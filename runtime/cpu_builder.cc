// BuildCSource: cache lookup, compile under a private name, atomic rename into place.
#include "runtime/cpu_builder.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>

#include "runtime/file_util.h"
#include "runtime/subprocess.h"
#include "support/error.h"
#include "support/logging.h"
#include "support/stable_hash.h"

namespace kiln::runtime {
namespace {

namespace fs = std::filesystem;

// Bump when the layout of the key or of the cache changes.
constexpr std::string_view kCacheVersion = "kiln-cpu-build-v1";
// Compiler messages can be long (template-like cascades); the first part says what matters.
constexpr size_t kMaxMessageBytes = 8000;

std::string Hex(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string Trim(std::string text) {
  size_t end = text.find_last_not_of(" \t\r\n");
  text.erase(end == std::string::npos ? 0 : end + 1);
  size_t begin = text.find_first_not_of(" \t\r\n");
  text.erase(0, begin == std::string::npos ? text.size() : begin);
  if (text.size() > kMaxMessageBytes) {
    text.resize(kMaxMessageBytes);
    text += "\n... (message truncated)";
  }
  return text;
}

// -march=native makes the object specific to this CPU; a cache directory shared between
// machines must not hand it to another.
const std::string& HostCpuIdentity() {
  static const std::string identity = [] {
    std::ifstream in("/proc/cpuinfo");
    std::string line, model, flags;
    while (std::getline(in, line)) {
      if (model.empty() && line.rfind("model name", 0) == 0) model = line;
      if (flags.empty() && line.rfind("flags", 0) == 0) flags = line;
      if (!model.empty() && !flags.empty()) break;
    }
    return model + "\n" + flags;
  }();
  return identity;
}

}  // namespace

std::vector<std::string> DefaultCFlags() {
  return {"-O3", "-march=native", "-fno-math-errno", "-fopenmp", "-shared", "-fPIC", "-std=c11"};
}

std::string DefaultCacheDir() {
  if (const char* dir = std::getenv("KILN_CACHE_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    return (fs::path(xdg) / "kiln").string();
  }
  const char* home = std::getenv("HOME");
  KILN_CHECK(home && *home, ErrorKind::kIO,
             "no cache directory: set KILN_CACHE_DIR, XDG_CACHE_HOME or HOME");
  return (fs::path(home) / ".cache" / "kiln").string();
}

std::string CompilerIdentity(const std::string& compiler) {
  static std::mutex mutex;
  static std::map<std::string, std::string> identities;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = identities.find(compiler); it != identities.end()) return it->second;
  }
  ProcessOptions options;
  options.argv = {compiler, "--version"};
  options.capture_output = true;
  options.time_limit_s = 30;
  ProcessResult run = RunProcess(options);
  KILN_CHECK(run.ok(), ErrorKind::kIO,
             "'" + compiler + " --version' " + run.Describe() + ": " + Trim(run.output));
  std::string identity = run.output.substr(0, run.output.find('\n'));
  std::lock_guard<std::mutex> lock(mutex);
  identities[compiler] = identity;
  return identity;
}

uint64_t BuildKey(const std::string& source, const BuildOptions& options) {
  StableHasher h;
  h.String(kCacheVersion);
  h.String(CompilerIdentity(options.compiler));
  h.String(HostCpuIdentity());
  h.Int(static_cast<int64_t>(options.flags.size()));
  for (const std::string& flag : options.flags) h.String(flag);
  h.String(source);
  return h.value();
}

BuildResult BuildCSource(const std::string& source, const BuildOptions& options) {
  BuildResult result;
  result.key = BuildKey(source, options);
  fs::path dir = options.cache_dir.empty() ? DefaultCacheDir() : options.cache_dir;
  std::error_code ec;
  fs::create_directories(dir, ec);
  KILN_CHECK(!ec, ErrorKind::kIO,
             "cannot create cache directory " + dir.string() + ": " + ec.message());
  std::string stem = Hex(result.key);
  fs::path library = dir / (stem + ".so");
  fs::path source_file = dir / (stem + ".c");
  result.source_path = source_file.string();
  if (fs::exists(library, ec)) {
    result.ok = true;
    result.cache_hit = true;
    result.library_path = library.string();
    return result;
  }

  WriteFileAtomically(source_file.string(), source);
  fs::path tmp_library = dir / (stem + ".so.tmp-" + UniqueSuffix());
  ProcessOptions run;
  run.argv.push_back(options.compiler);
  run.argv.insert(run.argv.end(), options.flags.begin(), options.flags.end());
  run.argv.insert(run.argv.end(), {"-o", tmp_library.string(), source_file.string()});
  run.capture_output = true;
  run.time_limit_s = options.time_limit_s;
  ProcessResult compiled = RunProcess(run);
  result.compile_seconds = compiled.wall_seconds;
  if (!compiled.ok() || !fs::exists(tmp_library, ec)) {
    fs::remove(tmp_library, ec);
    result.timed_out = compiled.timed_out;
    std::string message = Trim(compiled.output);
    if (compiled.timed_out) {
      result.error = "compiler " + compiled.Describe() + " (limit " +
                     std::to_string(options.time_limit_s) + " s) on " + source_file.string();
    } else {
      result.error = "compiler " + compiled.Describe() + " on " + source_file.string();
    }
    if (!message.empty()) result.error += ":\n" + message;
    return result;
  }
  fs::rename(tmp_library, library, ec);
  if (ec) {
    std::string reason = ec.message();
    fs::remove(tmp_library, ec);
    throw Error(ErrorKind::kIO,
                "cannot move the built library into " + library.string() + ": " + reason);
  }
  KILN_LOG_DEBUG("built {} in {:.3f} s", library.string(), result.compile_seconds);
  result.ok = true;
  result.library_path = library.string();
  return result;
}

}  // namespace kiln::runtime
