// A fixture for tests that run the built `tune` binary as a user runs it: a private temporary
// folder (also the build and reference cache), files written into it, `tune SUBCOMMAND ...`
// run with stdout and stderr captured, and the --json last line parsed.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runtime/measurer.h"
#include "runtime/subprocess.h"
#include "support/error.h"

namespace kiln::cli::testing {

class TuneProcessTest : public ::testing::Test {
 protected:
  TuneProcessTest() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/kiln-cli-test-XXXXXX";
    KILN_CHECK(mkdtemp(pattern.data()) != nullptr, ErrorKind::kIO, "mkdtemp " + pattern);
    dir_ = pattern;
  }
  ~TuneProcessTest() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  std::string Write(const std::string& name, const std::string& text) {
    std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }

  // Runs `tune SUBCOMMAND ARGS...` with this test's cache; stdout and stderr together.
  runtime::ProcessResult RunTune(const std::string& subcommand, std::vector<std::string> args,
                                 std::vector<std::string> extra_env, double time_limit_s) {
    runtime::ProcessOptions options;
    options.argv = {TUNE_PATH, subcommand};
    options.argv.insert(options.argv.end(), args.begin(), args.end());
    options.extra_env = {"KILN_CACHE_DIR=" + (dir_ / "cache").string()};
    options.extra_env.insert(options.extra_env.end(), extra_env.begin(), extra_env.end());
    options.capture_output = true;
    options.time_limit_s = time_limit_s;
    return runtime::RunProcess(options);
  }

  // Why this machine has no Vulkan device to measure on (a test then says so and skips its
  // device half); empty when it has one (lavapipe here).
  static std::string VulkanUnavailable() {
    try {
      runtime::MeasureOptions options;
      options.target = "vulkan";
      runtime::CreateMeasurer("vulkan", options);
      return "";
    } catch (const Error& e) {
      return e.what();
    }
  }

  // The last line of the output, parsed (a test failure and {} when it is not JSON).
  static nlohmann::json LastJson(const runtime::ProcessResult& run) {
    std::string text = run.output;
    while (!text.empty() && text.back() == '\n') text.pop_back();
    size_t newline = text.rfind('\n');
    std::string last = text.substr(newline == std::string::npos ? 0 : newline + 1);
    try {
      return nlohmann::json::parse(last);
    } catch (const nlohmann::json::exception&) {
      ADD_FAILURE() << "last line is not JSON: " << last << "\nfull output:\n" << run.output;
      return nlohmann::json::object();
    }
  }

  std::filesystem::path dir_;
};

}  // namespace kiln::cli::testing
