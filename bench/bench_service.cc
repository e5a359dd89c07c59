// bench_service: the service's own throughput and overhead, on the device named "fake" (each
// candidate a fixed sleep; nothing is built), so that the figures are about the coordinator,
// the protocol and the workers' loop, not about kernels. A Server with a Dispatcher listens
// on loopback TCP; N WorkerClient threads (each its own socket, as separate processes would
// have) measure; the bench submits candidates as the search does and times until all are
// collected.
//
//   bench_service [--workers 1,2,4,8,16,64] [--fake-ms 20] [--per-worker 16] [--json]
//
// scaling[N] = throughput with N workers / throughput with 1 (ideal: N; goal >= 0.9 N).
// overhead_ms_per_candidate: wall time per candidate with a zero-time fake device and one
// worker, i.e. what the coordinator, the protocol and the worker loop add to each candidate
// (goal < 1 ms). With --json the last line of stdout is one JSON object.
#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "bench/matmul_manual.h"
#include "coordinator/dispatcher.h"
#include "coordinator/server.h"
#include "search/schedule/schedule.h"
#include "support/logging.h"
#include "worker/batch_runner.h"
#include "worker/fake_measurer.h"
#include "worker/worker_client.h"

namespace kiln::bench {
namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// N workers measure `count` candidates; returns the seconds until all were collected.
double Run(int workers, int count, double fake_seconds, const ir::PrimFunc& workload,
           const search::Trace& trace, const ir::PrimFunc& scheduled) {
  setenv("KILN_FAKE_SECONDS", std::to_string(fake_seconds).c_str(), 1);
  zmq::context_t context(2);
  coordinator::DispatcherOptions options;
  options.max_batch = 8;
  coordinator::Dispatcher dispatcher(options);
  coordinator::Server server(context, {.listen = "tcp://127.0.0.1:*", .poll_ms = 1}, dispatcher,
                             nullptr);
  std::string endpoint = server.endpoint();
  std::atomic<bool> stop{false};
  std::thread server_thread([&] { server.Run(stop); });
  std::vector<std::unique_ptr<worker::BatchRunner>> runners;
  std::vector<std::unique_ptr<worker::WorkerClient>> clients;
  std::vector<std::thread> threads;
  for (int i = 0; i < workers; ++i) {
    std::string id = "fake-" + std::to_string(i);
    runners.push_back(std::make_unique<worker::BatchRunner>(
        worker::BatchRunnerOptions{.device_kind = "fake", .worker_id = id}));
    worker::WorkerClientOptions o;
    o.coordinator = endpoint;
    o.info = {id, "fake", "llvm", true, true, 1, "fake", "bench"};
    clients.push_back(std::make_unique<worker::WorkerClient>(context, o, *runners.back()));
  }
  for (auto& client : clients) threads.emplace_back([&, c = client.get()] { c->Run(stop); });
  // Wait until every worker is registered, so that the timing is of measurement only.
  while (static_cast<int>(dispatcher.Workers(0).size()) < workers) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  std::vector<search::MeasureRequest> requests;
  for (int i = 0; i < count; ++i) {
    requests.push_back({static_cast<uint64_t>(i + 1), "matmul", workload, scheduled, trace, {}});
  }
  double start = Now();
  dispatcher.Submit(std::move(requests));
  size_t got = 0;
  while (got < static_cast<size_t>(count)) got += dispatcher.Collect(1).size();
  double seconds = Now() - start;
  stop = true;
  for (auto& t : threads) t.join();
  server_thread.join();
  return seconds;
}

}  // namespace
}  // namespace kiln::bench

int main(int argc, char** argv) {
  using namespace kiln;
  CLI::App app{"bench_service: the service's scaling and overhead on the fake device"};
  std::vector<int> workers = {1, 2, 4, 8, 16, 64};
  double fake_ms = 20;
  int per_worker = 16;
  int overhead_candidates = 2000;
  bool json = false;
  std::string log_level = "error";
  app.add_option("--log-level", log_level, "the service's log level (default error)");
  app.add_option("--workers", workers, "worker counts")->delimiter(',');
  app.add_option("--fake-ms", fake_ms, "milliseconds each fake measurement sleeps");
  app.add_option("--per-worker", per_worker, "candidates per worker in a scaling run");
  app.add_option("--overhead-candidates", overhead_candidates,
                 "candidates of the zero-time overhead run");
  app.add_flag("--json", json, "print one JSON object on the last line");
  CLI11_PARSE(app, argc, argv);
  SetLogLevel(log_level);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  worker::RegisterFakeMeasurer();

  // One small workload and one scheduled candidate, sent as every request: what travels
  // and is parsed per candidate is real TVMScript and a real trace.
  ir::PrimFunc workload = bench::MatmulWorkload(64, 64, 64);
  search::Schedule sch(workload, 1);
  auto loops = sch.GetLoops(sch.GetBlock("C"));
  auto tiles = sch.SamplePerfectTile(loops[0], 2, 16);
  sch.Split(loops[0], {tiles[0], tiles[1]});

  nlohmann::json scaling = nlohmann::json::object();
  double base_throughput = 0;
  std::cout << "workers  candidates  seconds  candidates/s  ratio_vs_1\n";
  for (int n : workers) {
    int count = n * per_worker;
    double seconds = bench::Run(n, count, fake_ms / 1000, workload, sch.trace(), sch.func());
    double throughput = count / seconds;
    if (base_throughput == 0) base_throughput = throughput;
    double ratio = throughput / base_throughput;
    scaling[std::to_string(n)] = ratio;
    std::printf("%7d  %10d  %7.3f  %12.1f  %10.2f\n", n, count, seconds, throughput, ratio);
  }
  double overhead_s = bench::Run(1, overhead_candidates, 0, workload, sch.trace(), sch.func()) /
                      overhead_candidates;
  std::printf("overhead per candidate (1 worker, zero-time device): %.3f ms\n", overhead_s * 1e3);
  if (json) {
    std::cout << nlohmann::json{{"scaling", scaling},
                                {"overhead_ms_per_candidate", overhead_s * 1e3},
                                {"fake_ms", fake_ms},
                                {"per_worker", per_worker}}
                     .dump()
              << "\n";
  }
  return 0;
}
