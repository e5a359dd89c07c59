// `tune watch JOB [--coordinator ADDR] [--json]`: subscribes to a job's events and prints
// them as the coordinator pushes them until the job ends: the task table of `tune run`
// (redrawn in place on a terminal, a progress line per event otherwise), or with --json one
// JSON object per event line, the last line the final state. Exit code 0 when the job is
// done.
#include <memory>

#include "cli/commands/commands.h"
#include "cli/commands/service_client.h"
#include "support/error.h"

namespace kiln::cli {
namespace {

struct WatchCommandOptions {
  int64_t job = 0;
  std::string coordinator;
  bool json = false;
  double interval = 2;
};

}  // namespace

Command RegisterWatchCommand(CLI::App& parent) {
  auto options = std::make_shared<WatchCommandOptions>();
  CLI::App* app = parent.add_subcommand("watch", "Follow a job until it ends");
  app->add_option("job", options->job, "the job id")->required();
  app->add_option("--coordinator", options->coordinator,
                  "the coordinator (default $KILN_COORDINATOR or tcp://127.0.0.1:7070)");
  app->add_option("--interval", options->interval,
                  "seconds without an event after which the coordinator is asked again "
                  "(default 2)");
  app->add_flag("--json", options->json, "print one JSON object per event line");
  return {app, [options]() {
            KILN_CHECK(options->interval > 0 && options->interval < 3600, ErrorKind::kParse,
                       "tune watch: --interval must be in (0, 3600) s");
            std::string address =
                options->coordinator.empty() ? DefaultCoordinator() : options->coordinator;
            schemas::JobEventMsg last =
                WatchJob(address, static_cast<uint64_t>(options->job),
                         {.json = options->json, .keepalive_s = options->interval});
            return last.state == "done" ? 0 : 1;
          }};
}

}  // namespace kiln::cli
