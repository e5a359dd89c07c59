// kiln-coordinator: serves workers and clients on one address, runs submitted jobs and keeps
// everything in the tuning database; on start it resumes the jobs a previous run left
// unfinished. All the logic is in the library (Dispatcher, JobService, Server).
//   kiln-coordinator --listen tcp://127.0.0.1:7070 --db FILE
#include <CLI/CLI.hpp>
#include <atomic>
#include <csignal>
#include <iostream>

#include "coordinator/dispatcher.h"
#include "coordinator/job_service.h"
#include "coordinator/server.h"
#include "coordinator/zap_authenticator.h"
#include "database/sqlite_database.h"
#include "schemas/curve_keys.h"
#include "support/error.h"
#include "support/log_format.h"
#include "support/logging.h"

namespace {

std::atomic<bool> g_stop{false};
void OnSignal(int) { g_stop = true; }

// Loopback, inproc and ipc addresses reach only this machine.
bool IsLocalAddress(const std::string& address) {
  return address.rfind("inproc://", 0) == 0 || address.rfind("ipc://", 0) == 0 ||
         address.rfind("tcp://127.", 0) == 0 || address.rfind("tcp://localhost:", 0) == 0 ||
         address.rfind("tcp://[::1]:", 0) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kiln-coordinator: runs tuning jobs over Kiln workers"};
  std::string listen = "tcp://127.0.0.1:7070";
  std::string db_path;
  std::string log_level;
  std::string keys;
  std::string metrics;
  double heartbeat_timeout_s = 10;
  int trials_per_round = 0;
  std::string strategy = "evolutionary";
  int population = 512;
  std::string cost_model = "xgb";
  app.add_option("--listen", listen, "the address workers and clients connect to");
  app.add_option("--db", db_path, "the tuning database (default ~/.cache/kiln/tuning.db)");
  app.add_option("--keys", keys,
                 "CurveZMQ keys: DIR/coordinator.key, and DIR/authorized/*.pub may connect");
  app.add_option("--metrics", metrics,
                 "serve Prometheus metrics over HTTP here (tcp://127.0.0.1:9100)");
  app.add_option("--heartbeat-timeout", heartbeat_timeout_s,
                 "seconds of silence after which a worker is lost (default 10)");
  app.add_option("--trials-per-round", trials_per_round,
                 "candidates per search round (default 0: chosen from each job's budget, so that "
                 "every task gets a round)");
  app.add_option("--strategy", strategy, "search strategy: evolutionary (default) or random");
  app.add_option("--population", population, "the evolutionary search's population (512)");
  app.add_option("--cost-model", cost_model,
                 "xgb (default, kept per target in the database) or none")
      ->check(CLI::IsMember({"xgb", "none"}));
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error or off");
  std::string log_format = "text";
  app.add_option("--log-format", log_format, "text, or json: one JSON object per log line")
      ->check(CLI::IsMember({"text", "json"}));
  // What one submission may ask (coordinator/submit_limits.h).
  kiln::coordinator::SubmitLimits limits;
  int64_t max_model_mb = limits.max_model_bytes >> 20;
  app.add_option("--max-model-mb", max_model_mb, "the largest model a client may submit (512)")
      ->check(CLI::PositiveNumber);
  app.add_option("--max-trials", limits.max_trials, "the largest budget of a job (1000000)")
      ->check(CLI::PositiveNumber);
  app.add_option("--max-tasks", limits.max_tasks, "the most kernels of a job (20000)")
      ->check(CLI::PositiveNumber);
  app.add_option("--max-dim", limits.max_dim, "the largest bound dim or bucket value (1048576)")
      ->check(CLI::PositiveNumber);
  app.add_option("--max-population", limits.max_population,
                 "the largest population a job may ask for (16384)")
      ->check(CLI::PositiveNumber);
  app.add_option("--max-jobs", limits.max_unfinished_jobs,
                 "the most jobs queued or running at once, of every client together (64)")
      ->check(CLI::PositiveNumber);
  app.add_option("--max-jobs-per-client", limits.max_unfinished_jobs_per_client,
                 "the most jobs one client (one CurveZMQ key; without --keys, every client "
                 "together) may have queued or running at once (16)")
      ->check(CLI::PositiveNumber);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  kiln::SetLogLevel(log_level.empty() ? "info" : log_level);
  kiln::SetLogComponent("coordinator");
  kiln::SetLogFormat(log_format);
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  try {
    zmq::context_t context(1);
    std::unique_ptr<kiln::coordinator::ZapAuthenticator> zap;
    kiln::coordinator::ServerOptions server_options{.listen = listen, .metrics = metrics};
    if (keys.empty()) {
      KILN_CHECK(IsLocalAddress(listen), kiln::ErrorKind::kUnsupported,
                 "--listen " + listen +
                     ": without --keys the coordinator listens only on loopback "
                     "(tcp://127.0.0.1:PORT)");
      KILN_LOG_WARN(
          "kiln-coordinator: listening on loopback {} without keys: only this "
          "machine can connect",
          listen);
    } else {
      kiln::schemas::CurveKeyPair own = kiln::schemas::ReadCurveKeyFile(keys + "/coordinator.key");
      KILN_CHECK(!own.secret_key.empty(), kiln::ErrorKind::kParse,
                 keys + "/coordinator.key: no secret key");
      std::vector<std::string> allowed = kiln::schemas::ReadAuthorizedKeys(keys);
      KILN_CHECK(!allowed.empty(), kiln::ErrorKind::kParse,
                 keys + "/authorized/: no .pub files: nobody could connect");
      zap = std::make_unique<kiln::coordinator::ZapAuthenticator>(
          context, std::set<std::string>(allowed.begin(), allowed.end()));
      server_options.curve = {own.public_key, own.secret_key};
      KILN_LOG_INFO("kiln-coordinator: CurveZMQ on, {} keys allowed", allowed.size());
    }
    kiln::database::SqliteDatabase db(db_path.empty() ? kiln::database::DefaultDatabasePath()
                                                      : db_path);
    kiln::coordinator::DispatcherOptions dispatch;
    dispatch.heartbeat_timeout_s = heartbeat_timeout_s;
    // Four beats per timeout: one late or lost beat does not make a worker lost.
    dispatch.heartbeat_interval_ms = static_cast<uint32_t>(heartbeat_timeout_s * 1000 / 4);
    kiln::coordinator::Dispatcher dispatcher(dispatch);
    kiln::coordinator::JobServiceOptions job_options;
    KILN_CHECK(trials_per_round >= 0 && population > 0, kiln::ErrorKind::kParse,
               "--trials-per-round must not be negative and --population must be positive");
    job_options.tuner.trials_per_round = trials_per_round;
    job_options.tuner.strategy = strategy;
    job_options.tuner.evolutionary.population_size = population;
    job_options.cost_model = cost_model;
    job_options.limits = limits;
    job_options.limits.max_model_bytes = max_model_mb << 20;
    kiln::coordinator::JobService jobs(db, dispatcher, job_options);
    kiln::coordinator::Server server(context, server_options, dispatcher, &jobs);
    // Job events go out to the clients watching (tune watch, tune submit --wait).
    jobs.SetEventSink([&server](const kiln::schemas::JobEventMsg& e) { server.Publish(e); });
    // Jobs and stored results come from the database; trials/s from the change between scrapes.
    double last_time = kiln::coordinator::MonotonicSeconds();
    int64_t last_trials = db.CountRecords();
    server.SetMetricsSource([&](kiln::coordinator::MetricsSnapshot& m) {
      for (const auto& job : db.ListJobs()) {
        ++m.jobs_by_state[std::string(kiln::database::JobStateName(job.state))];
        kiln::database::JobStatistics stats = db.GetJobStatistics(job.id);
        m.results_by_kind["ok"] += stats.ok;
        for (const auto& [kind, count] : stats.errors_by_kind) m.results_by_kind[kind] += count;
      }
      m.trials_total = db.CountRecords();
      double now = kiln::coordinator::MonotonicSeconds();
      if (now > last_time) {
        m.trials_per_second = static_cast<double>(m.trials_total - last_trials) / (now - last_time);
      }
      last_time = now;
      last_trials = m.trials_total;
    });
    int64_t resumed = db.CountUnfinishedJobs();
    KILN_LOG_INFO("kiln-coordinator: serving on {}, database {}, {} unfinished jobs to run",
                  server.endpoint(), db.path(), resumed);
    jobs.Start();
    server.Run(g_stop);
    jobs.Stop();
  } catch (const kiln::Error& e) {
    std::cerr << "kiln-coordinator: " << kiln::ErrorKindName(e.kind()) << ": " << e.what() << "\n";
    return 1;
  } catch (const zmq::error_t& e) {
    std::cerr << "kiln-coordinator: io: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
