// `tune workers [--coordinator ADDR] [--json]`: the workers a coordinator knows, with their
// device keys, state (idle, busy, lost) and candidates in flight. `--json`: {"workers": [...]}.
#include <iomanip>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands/commands.h"
#include "cli/commands/service_client.h"
#include "support/error.h"

namespace kiln::cli {
namespace {

struct WorkersOptions {
  std::string coordinator;
  bool json = false;
};

}  // namespace

Command RegisterWorkersCommand(CLI::App& parent) {
  auto options = std::make_shared<WorkersOptions>();
  CLI::App* app = parent.add_subcommand("workers", "List the workers of a coordinator");
  app->add_option("--coordinator", options->coordinator,
                  "the coordinator (default $KILN_COORDINATOR or tcp://127.0.0.1:7070)");
  app->add_flag("--json", options->json, "print one JSON object on the last line");
  return {app, [options]() {
            std::string address =
                options->coordinator.empty() ? DefaultCoordinator() : options->coordinator;
            auto list = RequestReply<schemas::WorkerListMsg>(
                address, schemas::QueryMsg{schemas::QueryMsg::Kind::kListWorkers, 0},
                "a workers query");
            if (options->json) {
              std::cout << WorkerListJson(list) << "\n";
              return 0;
            }
            std::cout << std::left << std::setw(28) << "worker" << std::setw(20) << "device"
                      << std::setw(8) << "target" << std::setw(7) << "state" << std::setw(10)
                      << "in_flight"
                      << "hardware\n";
            for (const auto& w : list.workers) {
              std::cout << std::left << std::setw(28) << w.worker_id << std::setw(20)
                        << w.device_key << std::setw(8) << w.target << std::setw(7) << w.state
                        << std::setw(10) << w.in_flight << w.hardware << "\n";
            }
            return 0;
          }};
}

}  // namespace kiln::cli
