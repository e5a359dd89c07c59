// The subcommands of `tune`. Each Register function adds its subcommand to the app and
// returns the function that runs it once the command line has been parsed.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace kiln::cli {

struct Command {
  CLI::App* app;             // the subcommand; app->parsed() says whether it was chosen
  std::function<int()> run;  // returns the exit code
};

Command RegisterIrCommand(CLI::App& parent);
Command RegisterKernelCommand(CLI::App& parent);
Command RegisterTasksCommand(CLI::App& parent);
Command RegisterOnnxTestCommand(CLI::App& parent);
Command RegisterRunCommand(CLI::App& parent);
Command RegisterDbCommand(CLI::App& parent);
Command RegisterSubmitCommand(CLI::App& parent);
Command RegisterStatusCommand(CLI::App& parent);
Command RegisterWatchCommand(CLI::App& parent);
Command RegisterCancelCommand(CLI::App& parent);
Command RegisterWorkersCommand(CLI::App& parent);
Command RegisterKeysCommand(CLI::App& parent);
Command RegisterCompileCommand(CLI::App& parent);
Command RegisterBenchCommand(CLI::App& parent);
Command RegisterInferCommand(CLI::App& parent);
Command RegisterReportCommand(CLI::App& parent);
Command RegisterValidateCommand(CLI::App& parent);
Command RegisterSparseCommand(CLI::App& parent);

}  // namespace kiln::cli
