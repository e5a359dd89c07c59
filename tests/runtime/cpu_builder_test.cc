// BuildCSource: compiles, caches by content (hit without running the compiler, miss on a
// different flag), reports compiler errors and kills a compiler past its time limit.
#include "runtime/cpu_builder.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>

#include "runtime/cpu_module.h"
#include "runtime/file_util.h"
#include "runtime_test_util.h"

namespace kiln::runtime {
namespace {

using testing::ScratchDir;

// A compiler that logs each compile to `log` and then runs gcc: counts compiler runs.
std::string CountingCompiler(const ScratchDir& dir, const std::string& log) {
  std::string path = dir.Sub("counting-cc");
  std::ofstream(path) << "#!/bin/sh\n"
                         "case \"$1\" in --version) exec gcc --version;; esac\n"
                         "echo compile >> '"
                      << log
                      << "'\n"
                         "exec gcc \"$@\"\n";
  chmod(path.c_str(), 0755);
  return path;
}

int Lines(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) ++n;
  return n;
}

TEST(CpuBuilderTest, BuildsLoadableLibrary) {
  ScratchDir dir;
  BuildResult r = BuildCSource(testing::VectorAddSource(), {.cache_dir = dir.Sub("cache")});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_FALSE(r.cache_hit);
  EXPECT_GT(r.compile_seconds, 0);
  EXPECT_TRUE(std::filesystem::exists(r.library_path));
  EXPECT_EQ(ReadWholeFile(r.source_path), testing::VectorAddSource());
  CpuModule module = CpuModule::Load(r.library_path);
  EXPECT_NE(module.GetKernel("vadd"), nullptr);
}

TEST(CpuBuilderTest, SameSourceIsACacheHitAndAnotherFlagAMiss) {
  ScratchDir dir;
  std::string log = dir.Sub("compiles.log");
  BuildOptions options{.compiler = CountingCompiler(dir, log), .cache_dir = dir.Sub("cache")};
  BuildResult first = BuildCSource(testing::VectorAddSource(), options);
  ASSERT_TRUE(first.ok) << first.error;
  EXPECT_EQ(Lines(log), 1);

  BuildResult second = BuildCSource(testing::VectorAddSource(), options);
  ASSERT_TRUE(second.ok);
  EXPECT_TRUE(second.cache_hit);
  EXPECT_EQ(second.compile_seconds, 0);
  EXPECT_EQ(second.library_path, first.library_path);
  EXPECT_EQ(second.key, first.key);
  EXPECT_EQ(Lines(log), 1) << "the compiler ran for a cached source";

  BuildOptions other = options;
  other.flags.push_back("-DKILN_TEST_FLAG=1");
  BuildResult third = BuildCSource(testing::VectorAddSource(), other);
  ASSERT_TRUE(third.ok) << third.error;
  EXPECT_FALSE(third.cache_hit);
  EXPECT_NE(third.key, first.key);
  EXPECT_NE(third.library_path, first.library_path);
  EXPECT_EQ(Lines(log), 2);

  // Another source: another key.
  EXPECT_NE(BuildKey(testing::VectorAddSource("vadd2"), options), first.key);
}

TEST(CpuBuilderTest, ConcurrentBuildsOfOneKeyAllSucceed) {
  ScratchDir dir;
  BuildOptions options{.flags = {"-O1", "-shared", "-fPIC", "-std=c11"},
                       .cache_dir = dir.Sub("cache")};
  std::vector<BuildResult> results(3);
  std::vector<std::thread> threads;
  for (auto& r : results) {
    threads.emplace_back([&r, &options] { r = BuildCSource(testing::MatmulSource(), options); });
  }
  for (auto& t : threads) t.join();
  for (const BuildResult& r : results) {
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.library_path, results[0].library_path);
  }
  CpuModule module = CpuModule::Load(results[0].library_path);
  EXPECT_NE(module.GetKernel("matmul"), nullptr);
  // No temporary files are left behind.
  for (const auto& entry : std::filesystem::directory_iterator(dir.Sub("cache"))) {
    EXPECT_EQ(entry.path().string().find(".tmp-"), std::string::npos) << entry.path();
  }
}

TEST(CpuBuilderTest, CompilerErrorIsReturnedWithItsMessage) {
  ScratchDir dir;
  BuildResult r = BuildCSource("int broken(void) { return undefined_name; }\n",
                               {.cache_dir = dir.Sub("cache")});
  EXPECT_FALSE(r.ok);
  EXPECT_FALSE(r.timed_out);
  EXPECT_NE(r.error.find("undefined_name"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("error"), std::string::npos) << r.error;
  EXPECT_NE(r.error.back(), '\n');  // trimmed
  EXPECT_TRUE(r.library_path.empty());
  for (const auto& entry : std::filesystem::directory_iterator(dir.Sub("cache"))) {
    EXPECT_NE(entry.path().extension(), ".so") << entry.path();
    EXPECT_EQ(entry.path().string().find(".tmp-"), std::string::npos) << entry.path();
  }
}

TEST(CpuBuilderTest, CompilerPastItsTimeLimitIsKilled) {
  ScratchDir dir;
  std::string path = dir.Sub("slow-cc");
  std::ofstream(path) << "#!/bin/sh\n"
                         "case \"$1\" in --version) echo slow-cc 1.0; exit 0;; esac\n"
                         "sleep 30\n";
  chmod(path.c_str(), 0755);
  auto start = std::chrono::steady_clock::now();
  BuildResult r = BuildCSource(testing::VectorAddSource(),
                               {.compiler = path, .time_limit_s = 0.5, .cache_dir = dir.Sub("c")});
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.timed_out);
  EXPECT_NE(r.error.find("timed out"), std::string::npos) << r.error;
  EXPECT_LT(elapsed, 10);
}

TEST(CpuBuilderTest, CompilerIdentityIsTheFirstVersionLine) {
  std::string id = CompilerIdentity("gcc");
  EXPECT_FALSE(id.empty());
  EXPECT_EQ(id.find('\n'), std::string::npos);
  EXPECT_THROW(CompilerIdentity("/nonexistent/kiln-cc"), Error);
}

TEST(CpuBuilderTest, DefaultCacheDirFollowsTheEnvironment) {
  // Restores the caller's variables afterwards.
  struct Saved {
    const char* name;
    std::optional<std::string> value;
    explicit Saved(const char* n) : name(n) {
      if (const char* v = std::getenv(n)) value = v;
    }
    ~Saved() { value ? setenv(name, value->c_str(), 1) : unsetenv(name); }
  } saved_kiln("KILN_CACHE_DIR"), saved_xdg("XDG_CACHE_HOME");
  setenv("KILN_CACHE_DIR", "/tmp/kiln-cache-test-dir", 1);
  EXPECT_EQ(DefaultCacheDir(), "/tmp/kiln-cache-test-dir");
  unsetenv("KILN_CACHE_DIR");
  setenv("XDG_CACHE_HOME", "/tmp/kiln-xdg", 1);
  EXPECT_EQ(DefaultCacheDir(), "/tmp/kiln-xdg/kiln");
  unsetenv("XDG_CACHE_HOME");
  EXPECT_NE(DefaultCacheDir().find(".cache/kiln"), std::string::npos);
}

}  // namespace
}  // namespace kiln::runtime
