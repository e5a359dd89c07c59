// `tune ir FILE.tir`: reads TensorIR functions written in TVMScript and, for each, prints its
// structural hash (the key its tuning records are stored under), checks that printing and
// parsing it again gives the same function (in the --dialect printed), and, unless --no-run,
// runs it in the reference interpreter on the seeded random inputs the measurement path uses.
// Symbolic dimensions take values from --dim NAME=VALUE.
#include <chrono>
#include <cmath>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "cli/commands/command_util.h"
#include "cli/commands/commands.h"
#include "ir/interpreter/interpreter.h"
#include "ir/interpreter/random_inputs.h"
#include "ir/structural.h"
#include "ir/text/parser.h"
#include "ir/text/printer.h"

namespace kiln::cli {
namespace {

struct IrOptions {
  std::string file;
  std::vector<std::string> dims;
  uint64_t seed = 1;
  bool print = false;
  bool json = false;
  bool no_run = false;
  std::string dialect;
};

nlohmann::json InspectFunction(const ir::PrimFunc& f, const IrOptions& options,
                               const std::map<std::string, int64_t>& dims) {
  nlohmann::json out;
  out["name"] = f->name;
  out["hash"] = ir::StructuralHashHex(f);
  ir::TirPrintOptions print_options = DialectPrintOptions(options.dialect);
  ir::PrimFunc reparsed =
      ir::ParsePrimFunc(ir::PrintPrimFunc(f, print_options), "<printed " + f->name + ">");
  out["round_trip"] = ir::StructuralEqual(f, reparsed);
  if (options.no_run) return out;

  nlohmann::json params = nlohmann::json::array();
  for (const ir::Var& param : f->params) {
    auto buffer = f->BufferOf(param);
    if (!buffer) {
      if (!dims.count(param->name)) {
        throw Error(ErrorKind::kParse, "scalar parameter '" + param->name +
                                           "': give it a value with --dim " + param->name +
                                           "=VALUE");
      }
      params.push_back({{"name", param->name}, {"dtype", param->dtype.ToString()}});
      continue;
    }
    std::vector<int64_t> shape = ConcreteShape(*buffer, dims);
    params.push_back(
        {{"name", (*buffer)->name}, {"dtype", (*buffer)->dtype.ToString()}, {"shape", shape}});
  }
  // The measurement path's inputs: index buffers (take, gather) are drawn in range.
  std::vector<ir::ArgValue> args = ir::MakeRandomArguments(f, dims, options.seed);
  auto start = std::chrono::steady_clock::now();
  ir::Interpret(f, args);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out["interpret_s"] = seconds;
  for (size_t i = 0; i < args.size(); ++i) {
    if (const auto* t = std::get_if<ir::HostTensor>(&args[i])) {
      double sum = 0;
      bool finite = true;
      for (int64_t k = 0; k < t->numel(); ++k) {
        double v = t->GetDouble(k);
        finite &= std::isfinite(v);
        sum += v;
      }
      params[i]["mean_after_run"] = t->numel() ? sum / static_cast<double>(t->numel()) : 0.0;
      params[i]["all_finite"] = finite;
    }
  }
  out["params"] = params;
  return out;
}

void PrintText(const nlohmann::json& f, std::ostream& os) {
  os << f["name"].get<std::string>() << "  hash " << f["hash"].get<std::string>() << "\n";
  os << "  round trip (print, parse): "
     << (f["round_trip"].get<bool>() ? "structurally equal" : "DIFFERENT") << "\n";
  if (!f.contains("interpret_s")) return;
  os << "  interpreter: ran on random inputs in " << f["interpret_s"].get<double>() << " s\n";
  for (const auto& p : f["params"]) {
    os << "    " << p["name"].get<std::string>() << ": " << p["dtype"].get<std::string>();
    if (p.contains("shape")) {
      os << ShapeText(p["shape"].get<std::vector<int64_t>>()) << "  mean after run "
         << p["mean_after_run"].get<double>()
         << (p["all_finite"].get<bool>() ? "" : "  (has non-finite values)");
    }
    os << "\n";
  }
}

}  // namespace

Command RegisterIrCommand(CLI::App& parent) {
  auto options = std::make_shared<IrOptions>();
  CLI::App* app = parent.add_subcommand(
      "ir", "Check TensorIR functions (TVMScript): hash, print/parse round trip, interpreter run");
  app->add_option("file", options->file, "a .tir file of one or more @T.prim_func")->required();
  app->add_option("--dim", options->dims, "value of a symbolic dimension or scalar, NAME=VALUE");
  app->add_option("--seed", options->seed, "seed of the random inputs");
  app->add_flag("--print", options->print, "print each function as TVMScript");
  app->add_flag("--no-run", options->no_run,
                "only hash, print and round-trip; no interpreter run (no --dim values needed)");
  AddDialectOption(app, &options->dialect);
  app->add_flag("--json", options->json, "print one JSON object on the last line");
  return {
      app, [options]() {
        std::vector<ir::PrimFunc> funcs =
            ir::ParsePrimFuncs(ReadFile(options->file), options->file);
        std::map<std::string, int64_t> dims = ParseDims(options->dims);
        nlohmann::json result = {{"file", options->file}, {"functions", nlohmann::json::array()}};
        bool all_round_trip = true;
        for (const ir::PrimFunc& f : funcs) {
          nlohmann::json info = InspectFunction(f, *options, dims);
          all_round_trip &= info["round_trip"].get<bool>();
          if (options->print) {
            std::cout << ir::PrintPrimFunc(f, DialectPrintOptions(options->dialect)) << "\n";
          }
          if (!options->json) PrintText(info, std::cout);
          result["functions"].push_back(info);
        }
        if (options->json) std::cout << result.dump() << "\n";
        return all_round_trip ? 0 : 1;
      }};
}

}  // namespace kiln::cli
