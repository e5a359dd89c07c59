// `tune submit MODEL --target T --trials N [--coordinator ADDR] [--wait] [--json]`: sends the
// model to a coordinator as a tuning job and prints its id (`--json`: {"job": ID} last);
// `--wait` follows the job's task table until it ends.
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands/command_util.h"
#include "cli/commands/commands.h"
#include "cli/commands/service_client.h"
#include "support/error.h"

namespace kiln::cli {
namespace {

struct SubmitOptions {
  std::string model;
  std::string target = "llvm";
  std::string device;
  int64_t trials = 0;
  std::string coordinator;
  bool wait = false;
  bool json = false;
};

}  // namespace

Command RegisterSubmitCommand(CLI::App& parent) {
  auto options = std::make_shared<SubmitOptions>();
  CLI::App* app = parent.add_subcommand("submit", "Submit a model to a coordinator for tuning");
  app->add_option("model", options->model, "an ONNX file or a Relax TVMScript module")->required();
  app->add_option("--target", options->target, "the codegen target (default llvm)");
  app->add_option("--device", options->device, "only workers with this device key");
  app->add_option("--trials", options->trials, "candidates to measure over all tasks")->required();
  app->add_option("--coordinator", options->coordinator,
                  "the coordinator (default $KILN_COORDINATOR or tcp://127.0.0.1:7070)");
  app->add_flag("--wait", options->wait, "follow the job until it ends");
  app->add_flag("--json", options->json, "print one JSON object on the last line");
  return {app, [options]() {
            KILN_CHECK(options->trials > 0, ErrorKind::kParse,
                       "tune submit: --trials must be positive");
            std::string address =
                options->coordinator.empty() ? DefaultCoordinator() : options->coordinator;
            schemas::SubmitMsg submit;
            submit.model = options->model;
            submit.model_bytes = ReadFile(options->model);
            submit.target = options->target;
            submit.device = options->device;
            submit.trials = static_cast<uint64_t>(options->trials);
            schemas::Message reply = Request(address, submit, 60);
            const auto* submitted = std::get_if<schemas::SubmittedMsg>(&reply);
            KILN_CHECK(submitted != nullptr, ErrorKind::kIO,
                       address + ": answered a submit with " + schemas::MessageName(reply));
            nlohmann::json out = {{"job", submitted->job_id}};
            if (!options->json) std::cout << "job " << submitted->job_id << "\n";
            int code = 0;
            if (options->wait) {
              schemas::JobEventMsg last = WatchJob(address, submitted->job_id, false);
              out["state"] = last.state;
              code = last.state == "done" ? 0 : 1;
            }
            if (options->json) std::cout << out.dump() << "\n";
            return code;
          }};
}

}  // namespace kiln::cli
