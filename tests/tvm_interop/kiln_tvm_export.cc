// kiln_tvm_export: what Kiln prints and writes of TVM's corpus, for tests/tvm_interop/
// check_in_tvm.py to load in TVM. Not a test by itself (CI has no TVM); each mode prints to
// stdout and exits non-zero with the kiln::Error message on stderr when Kiln cannot read the
// input:
//   tir FILE [DIALECT]      every PrimFunc of FILE as Kiln prints it
//   relax FILE [DIALECT]    the Relax module of FILE as Kiln prints it (metadata section on)
//   trace WORKLOAD TRACE    replays TRACE (trace JSON, or a JSONDatabase record line) on the
//                           PrimFunc in WORKLOAD and prints one JSON object: the trace Kiln
//                           recorded while replaying ("trace"), as Kiln writes traces, and the
//                           scheduled function as Kiln prints it ("scheduled")
// DIALECT is tvm-0.24 (the default) or tvm-0.23.
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "ir/relax/text/parser.h"
#include "ir/relax/text/printer.h"
#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "search/schedule/schedule.h"
#include "support/error.h"

namespace {

using nlohmann::json;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  KILN_CHECK(in.good(), kiln::ErrorKind::kIO, "cannot read " + path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

int Run(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  if ((mode == "tir" || mode == "relax") && (argc == 3 || argc == 4)) {
    kiln::ir::TirDialect dialect =
        argc == 4 ? kiln::ir::ParseTirDialect(argv[3]) : kiln::ir::TirDialect::kTvm024;
    std::string text = ReadFile(argv[2]);
    if (mode == "tir") {
      for (const kiln::ir::PrimFunc& f : kiln::ir::ParsePrimFuncs(text, argv[2])) {
        std::cout << kiln::ir::PrintPrimFunc(f, {dialect}) << "\n";
      }
    } else {
      kiln::ir::relax::PrintOptions options;
      options.dialect = dialect;
      std::cout << kiln::ir::relax::PrintModule(kiln::ir::relax::ParseModule(text, argv[2]),
                                                options);
    }
    return 0;
  }
  if (mode == "trace" && argc == 4) {
    kiln::ir::PrimFunc workload = kiln::ir::ParsePrimFunc(ReadFile(argv[2]), argv[2]);
    json j = json::parse(ReadFile(argv[3]));
    // A record line: [workload index, [trace, run_secs, target, args_info]].
    if (j.is_array() && j.size() == 2 && j[0].is_number_integer()) j = j[1].at(0);
    kiln::search::Schedule sch(workload);
    kiln::search::Trace::FromJSON(j).ApplyTo(sch);
    json out = {{"trace", sch.trace().ToJSON()},
                {"scheduled", kiln::ir::PrintPrimFunc(sch.func())}};
    std::cout << out.dump() << "\n";
    return 0;
  }
  std::cerr << "usage: kiln_tvm_export tir|relax FILE [tvm-0.24|tvm-0.23]\n"
               "       kiln_tvm_export trace WORKLOAD.tir TRACE.json\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "kiln_tvm_export: " << e.what() << "\n";
    return 1;
  }
}
