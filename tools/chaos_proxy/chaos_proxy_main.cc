// kiln-chaos-proxy: a fault-injecting proxy on loopback between ZeroMQ peers, for soak tests
// of the service (workers connect to it instead of to the coordinator). It runs until SIGINT
// or SIGTERM and then prints what it injected, by kind; with --json one JSON object on the
// last line.
//   kiln-chaos-proxy --listen tcp://127.0.0.1:7071 --upstream tcp://127.0.0.1:7070 --seed 7
//                    --faults drop=0.01,delay=0.02,duplicate=0.01,reorder=0.01,truncate=0.002,
//                             corrupt=0.002,partition=0.0005 [--delay-ms 100] [--partition-s 2]
#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <csignal>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "support/error.h"
#include "tools/chaos_proxy/chaos_proxy.h"

namespace {
std::atomic<bool> g_stop{false};
void OnSignal(int) { g_stop = true; }
}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "kiln-chaos-proxy: forwards TCP on loopback and injects faults into ZeroMQ messages"};
  kiln::tools::ChaosProxyOptions options;
  std::string faults = "none";
  bool json = false;
  app.add_option("--listen", options.listen,
                 "where clients connect (tcp://127.0.0.1:PORT; port 0: any free port)");
  app.add_option("--upstream", options.upstream, "where each connection is forwarded")->required();
  app.add_option("--seed", options.seed, "seed of every fault draw (default 1)");
  app.add_option("--faults", faults,
                 "kind=probability per message, comma-separated: drop, delay, duplicate, "
                 "reorder, truncate, corrupt, partition (default none)");
  app.add_option("--delay-ms", options.faults.delay_ms,
                 "a delayed message waits between half this and this (default 100)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--partition-s", options.faults.partition_s,
                 "seconds a partition lasts (default 2)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--reorder-hold-ms", options.reorder_hold_ms,
                 "a reordered message goes out alone after this long without another (200)")
      ->check(CLI::NonNegativeNumber);
  app.add_flag("--json", json, "print the counts as one JSON object on the last line");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  try {
    kiln::tools::ParseFaultSpec(faults, options.faults);
    kiln::tools::ChaosProxy proxy(options);
    proxy.Start();
    std::cerr << "kiln-chaos-proxy: " << proxy.endpoint() << " -> " << options.upstream << ", seed "
              << options.seed << ", faults " << kiln::tools::FaultSpecText(options.faults)
              << std::endl;
    while (!g_stop) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    proxy.Stop();
    kiln::tools::ChaosProxyStats stats = proxy.Stats();
    nlohmann::json by_kind = nlohmann::json::object();
    for (int k = 1; k < kiln::tools::kFaultKinds; ++k) {
      auto kind = static_cast<kiln::tools::FaultKind>(k);
      by_kind[std::string(kiln::tools::FaultKindName(kind))] = stats.faults[k];
    }
    if (json) {
      std::cout << nlohmann::json{{"endpoint", proxy.endpoint()},
                                  {"seed", options.seed},
                                  {"messages", stats.messages},
                                  {"connections", stats.connections},
                                  {"refused", stats.refused},
                                  {"faults", by_kind}}
                       .dump()
                << std::endl;
    } else {
      std::cout << "messages " << stats.messages << ", connections " << stats.connections
                << ", refused " << stats.refused << ", faults " << by_kind.dump() << std::endl;
    }
  } catch (const kiln::Error& e) {
    std::cerr << "kiln-chaos-proxy: " << kiln::ErrorKindName(e.kind()) << ": " << e.what() << "\n";
    return 1;
  }
  return 0;
}
