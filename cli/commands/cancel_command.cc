// `tune cancel JOB [--coordinator ADDR] [--json]`: stops a job; its stored records stay.
#include <iostream>
#include <memory>

#include "cli/commands/commands.h"
#include "cli/commands/service_client.h"
#include "support/error.h"

namespace kiln::cli {
namespace {

struct CancelOptions {
  int64_t job = 0;
  std::string coordinator;
  bool json = false;
};

}  // namespace

Command RegisterCancelCommand(CLI::App& parent) {
  auto options = std::make_shared<CancelOptions>();
  CLI::App* app = parent.add_subcommand("cancel", "Cancel a job");
  app->add_option("job", options->job, "the job id")->required();
  app->add_option("--coordinator", options->coordinator,
                  "the coordinator (default $KILN_COORDINATOR or tcp://127.0.0.1:7070)");
  app->add_flag("--json", options->json, "print one JSON object on the last line");
  return {app, [options]() {
            std::string address =
                options->coordinator.empty() ? DefaultCoordinator() : options->coordinator;
            auto job = RequestReply<schemas::JobEventMsg>(
                address, schemas::CancelMsg{static_cast<uint64_t>(options->job)}, "a cancel");
            std::cout << (options->json ? JobJson(job) + "\n" : JobTable(job));
            return 0;
          }};
}

}  // namespace kiln::cli
