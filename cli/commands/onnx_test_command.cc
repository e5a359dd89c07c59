// `tune onnx-test DIR...`: runs ONNX backend test directories (model.onnx and
// test_data_set_N/{input,output}_*.pb) through import, the tuning pipeline and the reference
// executor, and prints pass / fail (with the largest error and why) / unsupported (with the
// op and the reason) per directory, then a summary. It is how a user learns whether Kiln
// handles the ops of a model.
#include <iomanip>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands/commands.h"
#include "cli/commands/onnx_backend_test.h"

namespace kiln::cli {
namespace {

struct OnnxTestCommandOptions {
  std::vector<std::string> dirs;
  OnnxTestOptions test;
  bool no_fuse = false;
  bool json = false;
};

}  // namespace

Command RegisterOnnxTestCommand(CLI::App& parent) {
  auto options = std::make_shared<OnnxTestCommandOptions>();
  CLI::App* app = parent.add_subcommand(
      "onnx-test", "Check ONNX backend test directories against Kiln's reference executor");
  app->add_option("dirs", options->dirs, "directories holding model.onnx and test_data_set_N/")
      ->required();
  app->add_option("--rtol", options->test.rtol, "relative tolerance (default 1e-3)");
  app->add_option("--atol", options->test.atol, "absolute tolerance (default 1e-7)");
  app->add_flag("--no-fuse", options->no_fuse, "legalize only: skip constant folding and fusion");
  app->add_flag("--json", options->json, "print one JSON object on the last line");
  return {app, [options]() {
            options->test.fuse = !options->no_fuse;
            nlohmann::json results = nlohmann::json::array();
            int passed = 0, failed = 0, unsupported = 0;
            for (const std::string& dir : options->dirs) {
              OnnxTestResult result = RunOnnxBackendTest(dir, options->test);
              passed += result.status == "pass";
              failed += result.status == "fail";
              unsupported += result.status == "unsupported";
              if (options->json) {
                results.push_back(ToJson(result));
                continue;
              }
              std::cout << std::left << std::setw(12) << result.status << dir;
              if (result.status == "pass") {
                std::cout << "  (max abs error " << result.max_abs_error << ")";
              } else {
                std::cout << "\n            " << result.reason;
              }
              std::cout << "\n";
            }
            if (options->json) {
              std::cout << nlohmann::json{{"results", results},
                                          {"passed", passed},
                                          {"failed", failed},
                                          {"unsupported", unsupported}}
                               .dump()
                        << "\n";
            } else {
              std::cout << passed << " passed, " << failed << " failed, " << unsupported
                        << " unsupported\n";
            }
            return failed == 0 ? 0 : 1;
          }};
}

}  // namespace kiln::cli
