// `tune`: Kiln's command line. Subcommands live in cli/commands/, one per file.
// Exit codes: 0 success, 1 the command failed (a kiln::Error, reported on stderr), 2 usage.
#include <iostream>
#include <vector>

#include "cli/commands/commands.h"
#include "support/error.h"
#include "support/log_format.h"
#include "support/logging.h"

int main(int argc, char** argv) {
  CLI::App app{"tune: Kiln, a distributed autotuner for tensor programs"};
  app.require_subcommand(1);
  std::string log_level;
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error or off");
  std::string log_format = "text";
  app.add_option("--log-format", log_format, "text, or json: one JSON object per log line")
      ->check(CLI::IsMember({"text", "json"}));

  std::vector<kiln::cli::Command> commands = {
      kiln::cli::RegisterIrCommand(app),       kiln::cli::RegisterKernelCommand(app),
      kiln::cli::RegisterTasksCommand(app),    kiln::cli::RegisterOnnxTestCommand(app),
      kiln::cli::RegisterRunCommand(app),      kiln::cli::RegisterDbCommand(app),
      kiln::cli::RegisterSubmitCommand(app),   kiln::cli::RegisterStatusCommand(app),
      kiln::cli::RegisterWatchCommand(app),    kiln::cli::RegisterCancelCommand(app),
      kiln::cli::RegisterWorkersCommand(app),  kiln::cli::RegisterKeysCommand(app),
      kiln::cli::RegisterCompileCommand(app),  kiln::cli::RegisterBenchCommand(app),
      kiln::cli::RegisterInferCommand(app),    kiln::cli::RegisterReportCommand(app),
      kiln::cli::RegisterValidateCommand(app), kiln::cli::RegisterSparseCommand(app),
  };

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (!log_level.empty()) kiln::SetLogLevel(log_level);
  kiln::SetLogComponent("tune");
  kiln::SetLogFormat(log_format);
  try {
    for (const kiln::cli::Command& command : commands) {
      if (command.app->parsed()) return command.run();
    }
  } catch (const kiln::Error& e) {
    std::cerr << "tune: " << kiln::ErrorKindName(e.kind()) << ": " << e.what() << "\n";
    return 1;
  }
  return 2;
}
