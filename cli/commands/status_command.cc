// `tune status [JOB] [--coordinator ADDR] [--json]`: one job's state and task table, or every
// job. `--json`: {"job", "state", "trials_done", "trials_total", "tasks": [...]} for a job,
// {"jobs": [...]} for the list.
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands/commands.h"
#include "cli/commands/service_client.h"
#include "support/error.h"

namespace kiln::cli {
namespace {

struct StatusOptions {
  int64_t job = 0;
  std::string coordinator;
  bool json = false;
};

}  // namespace

Command RegisterStatusCommand(CLI::App& parent) {
  auto options = std::make_shared<StatusOptions>();
  CLI::App* app = parent.add_subcommand("status", "Show a job's progress, or every job");
  app->add_option("job", options->job, "the job id");
  app->add_option("--coordinator", options->coordinator,
                  "the coordinator (default $KILN_COORDINATOR or tcp://127.0.0.1:7070)");
  app->add_flag("--json", options->json, "print one JSON object on the last line");
  return {app, [options]() {
            std::string address =
                options->coordinator.empty() ? DefaultCoordinator() : options->coordinator;
            if (options->job > 0) {
              auto job = RequestReply<schemas::JobEventMsg>(
                  address,
                  schemas::QueryMsg{schemas::QueryMsg::Kind::kJobStatus,
                                    static_cast<uint64_t>(options->job)},
                  "a status query");
              std::cout << (options->json ? JobJson(job) + "\n" : JobTable(job));
              return 0;
            }
            auto list = RequestReply<schemas::JobListMsg>(
                address, schemas::QueryMsg{schemas::QueryMsg::Kind::kListJobs, 0},
                "a job list query");
            if (options->json) {
              std::cout << JobListJson(list) << "\n";
            } else {
              for (const auto& job : list.jobs) {
                std::cout << job.job_id << "\t" << job.state << "\t" << job.trials_done << "/"
                          << job.trials_total << "\t" << job.model << "\t" << job.target << "\n";
              }
            }
            return 0;
          }};
}

}  // namespace kiln::cli
