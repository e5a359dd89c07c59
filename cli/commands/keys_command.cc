// `tune keys generate DIR [--name NAME] [--json]`: CurveZMQ key pairs for the service. Without
// --name it makes a ready set: coordinator, worker and client pairs, with the worker's and
// client's public keys copied into DIR/authorized/ (the coordinator's allow-list). Copy
// worker.key and coordinator.pub to each worker's --keys folder, client.key and
// coordinator.pub to a client's KILN_KEYS folder.
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands/commands.h"
#include "schemas/curve_keys.h"
#include "support/error.h"

namespace kiln::cli {
namespace {

struct KeysOptions {
  std::string dir;
  std::string name;
  bool json = false;
};

}  // namespace

Command RegisterKeysCommand(CLI::App& parent) {
  auto options = std::make_shared<KeysOptions>();
  CLI::App* app = parent.add_subcommand("keys", "CurveZMQ keys for the coordinator and workers");
  app->require_subcommand(1);
  CLI::App* generate = app->add_subcommand("generate", "Make key pairs in a folder");
  generate->add_option("dir", options->dir, "the folder to write them to")->required();
  generate->add_option("--name", options->name, "one pair of this name only");
  generate->add_flag("--json", options->json, "print one JSON object on the last line");
  return {app, [options]() {
            std::vector<std::string> names = {options->name};
            if (options->name.empty()) names = {"coordinator", "worker", "client"};
            nlohmann::json made = nlohmann::json::object();
            for (const std::string& name : names) {
              schemas::CurveKeyPair pair = schemas::GenerateCurveKeyPair();
              schemas::WriteCurveKeyPair(options->dir, name, pair);
              made[name] = pair.public_key;
              if (options->name.empty() && name != "coordinator") {
                std::filesystem::path authorized =
                    std::filesystem::path(options->dir) / "authorized";
                std::filesystem::create_directories(authorized);
                std::filesystem::copy_file(std::filesystem::path(options->dir) / (name + ".pub"),
                                           authorized / (name + ".pub"),
                                           std::filesystem::copy_options::overwrite_existing);
              }
              if (!options->json) std::cout << name << ": public key " << pair.public_key << "\n";
            }
            if (options->json) std::cout << nlohmann::json{{"keys", made}}.dump() << "\n";
            return 0;
          }};
}

}  // namespace kiln::cli
