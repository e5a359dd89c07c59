// `tune submit MODEL --target T --trials N [--coordinator ADDR] [--wait] [--json]`: sends the
// model to a coordinator as a tuning job and prints its id (`--json`: {"job": ID} last);
// `--wait` shows the job's live task table (that of `tune run`, on stderr) until it ends.
// The search options of `tune run` (--strategy, --seed, --population, ...) travel with the
// job in the submit message's options; those not given keep the coordinator's defaults. So do
// --dim, --default-dim and --bucket: the coordinator specialises the model as `tune run` does.
#include <unistd.h>

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
  // Per-job search options: only those given are sent.
  std::string strategy;
  uint64_t seed = 0;
  int population = 0;
  int trials_per_round = 0;
  int64_t trials_per_task = 0;
  std::string task_scheduler;
  std::string cost_model;
  double min_repeat_ms = 0;
  int threads = 0;
  double family_share = 0;
  bool no_untuned = false;
  // How a model with symbolic dims is specialised, as `tune run` does.
  std::vector<std::string> dims;
  int64_t default_dim = 0;
  BucketFlags buckets;
  std::string winograd = "off";  // AddImportOptions
  std::string sparse_attention = "auto";
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
  app->add_flag("--wait", options->wait, "show the live task table until the job ends");
  app->add_flag("--json", options->json, "print one JSON object on the last line");
  // Each option below is sent only when given, under its name in coordinator/job_options.h.
  std::vector<std::pair<CLI::Option*, std::function<void(nlohmann::json&)>>> job_options = {
      {app->add_option("--strategy", options->strategy, "evolutionary or random (replay-trace)")
           ->check(CLI::IsMember({"evolutionary", "random"})),
       [options](nlohmann::json& j) { j["strategy"] = options->strategy; }},
      {app->add_option("--seed", options->seed, "seed of every random draw of the job"),
       [options](nlohmann::json& j) { j["seed"] = options->seed; }},
      {app->add_option("--population", options->population, "evolutionary search population")
           ->check(CLI::PositiveNumber),
       [options](nlohmann::json& j) { j["population"] = options->population; }},
      {app->add_option("--trials-per-round", options->trials_per_round,
                       "candidates per measurement round (0: chosen from the budget)")
           ->check(CLI::NonNegativeNumber),
       [options](nlohmann::json& j) { j["trials_per_round"] = options->trials_per_round; }},
      {app->add_option("--trials-per-task", options->trials_per_task, "a budget per task")
           ->check(CLI::NonNegativeNumber),
       [options](nlohmann::json& j) { j["trials_per_task"] = options->trials_per_task; }},
      {app->add_option("--task-scheduler", options->task_scheduler, "gradient or round-robin")
           ->check(CLI::IsMember({"gradient", "round-robin"})),
       [options](nlohmann::json& j) { j["task_scheduler"] = options->task_scheduler; }},
      {app->add_option("--cost-model", options->cost_model, "xgb, random or none")
           ->check(CLI::IsMember({"xgb", "random", "none"})),
       [options](nlohmann::json& j) { j["cost_model"] = options->cost_model; }},
      {app->add_option("--min-repeat-ms", options->min_repeat_ms,
                       "time a candidate for at least this long")
           ->check(CLI::NonNegativeNumber),
       [options](nlohmann::json& j) { j["min_repeat_ms"] = options->min_repeat_ms; }},
      {app->add_option("--threads", options->threads, "threads of a kernel (0: every core)")
           ->check(CLI::NonNegativeNumber),
       [options](nlohmann::json& j) { j["num_threads"] = options->threads; }},
      {app->add_option("--family-share", options->family_share,
                       "with buckets: each bucket's budget for an operator as a share of the "
                       "median bucket's, which is tuned first (0: all at once; default 0.15)")
           ->check(CLI::Range(0.0, 1.0)),
       [options](nlohmann::json& j) { j["family_share"] = options->family_share; }},
      {app->add_flag("--no-untuned", options->no_untuned,
                     "do not time each kernel as written for comparison"),
       [options](nlohmann::json& j) { j["measure_untuned"] = !options->no_untuned; }},
      {app->add_option("--dim", options->dims,
                       "bind a named dimension of the ONNX inputs, NAME=VALUE (repeatable)"),
       [options](nlohmann::json& j) { j["dims"] = ParseDims(options->dims); }},
      {app->add_option("--default-dim", options->default_dim,
                       "value of the symbolic dims neither bound nor bucketed (default 128)")
           ->check(CLI::PositiveNumber),
       [options](nlohmann::json& j) { j["default_dim"] = options->default_dim; }},
  };
  AddImportOptions(app, &options->winograd, &options->sparse_attention);
  AddBucketFlags(app, &options->buckets,
                 "tune the model at each of these values of a symbolic dim, NAME=V1,V2,... "
                 "(repeatable; a bare NAME takes powers of two up to --max-dim)",
                 "how much a bucket counts in the task scheduler, NAME=V:W (1 by default)");
  return {app, [app, options, job_options]() {
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
            nlohmann::json sent = nlohmann::json::object();
            for (const auto& [option, put] : job_options) {
              if (option->count() > 0) put(sent);
            }
            // Checked here as `tune run` checks them: a --max-dim or --bucket-weight of a dim
            // that is not bucketed is an error, not dropped.
            ir::model::BucketSpec buckets = options->buckets.Parse();
            if (!buckets.empty()) sent["buckets"] = ir::model::BucketSpecToJson(buckets);
            // Sent when given: the coordinator's defaults are the command's.
            if (app->get_option("--winograd")->count() > 0) sent["winograd"] = options->winograd;
            if (app->get_option("--sparse-attention")->count() > 0) {
              sent["sparse_attention"] = options->sparse_attention;
            }
            submit.options = sent.dump();
            auto submitted = RequestReply<schemas::SubmittedMsg>(address, submit, "a submit", 60);
            nlohmann::json out = {{"job", submitted.job_id}};
            if (!options->json) std::cout << "job " << submitted.job_id << std::endl;
            int code = 0;
            if (options->wait) {
              schemas::JobEventMsg last =
                  WatchJob(address, submitted.job_id, {.tty = isatty(2) != 0, .out = &std::cerr});
              out["state"] = last.state;
              code = last.state == "done" ? 0 : 1;
            }
            if (options->json) std::cout << out.dump() << "\n";
            return code;
          }};
}

}  // namespace kiln::cli
