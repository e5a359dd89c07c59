// The embedded mode of `tune run`: the coordinator (Dispatcher, JobService, Server) and one
// worker of the target's device (BatchRunner, WorkerClient: the CPU, or this machine's GPU of
// the target's kind) in this process, talking over ZeroMQ's inproc transport exactly as the
// daemons talk over TCP, with the tuning database in a local file.
// The server and the worker run on their own threads; the caller submits a job and runs it
// on its own thread (JobService::RunJob), so unrelated unfinished jobs of the same database
// are left for a coordinator to resume.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <zmq.hpp>

#include "coordinator/dispatcher.h"
#include "coordinator/job_service.h"
#include "coordinator/server.h"
#include "database/sqlite_database.h"
#include "worker/batch_runner.h"
#include "worker/worker_client.h"

namespace kiln::cli {

struct EmbeddedOptions {
  std::string db_path;         // the tuning database (created with its directory)
  int build_jobs = 0;          // candidates built at once; 0: every hardware thread
  std::string cache_dir = {};  // builds and references; empty: the runtime's default
  std::string target = "llvm";
  coordinator::JobServiceOptions jobs = {};
};

// The database path `tune run` uses: `flag` when given, else $KILN_DB, else the default
// (~/.cache/kiln/tuning.db, or $KILN_CACHE_DIR/tuning.db).
std::string EmbeddedDatabasePath(const std::string& flag);

class EmbeddedService {
 public:
  explicit EmbeddedService(EmbeddedOptions options);
  ~EmbeddedService();
  EmbeddedService(const EmbeddedService&) = delete;
  EmbeddedService& operator=(const EmbeddedService&) = delete;

  coordinator::JobService& jobs() { return *jobs_; }
  database::SqliteDatabase& db() { return db_; }
  const std::string& address() const { return address_; }

 private:
  EmbeddedOptions options_;
  zmq::context_t context_;
  database::SqliteDatabase db_;
  coordinator::Dispatcher dispatcher_;
  std::unique_ptr<coordinator::JobService> jobs_;
  std::unique_ptr<coordinator::Server> server_;
  std::unique_ptr<worker::BatchRunner> runner_;
  std::unique_ptr<worker::WorkerClient> worker_;
  std::string address_;
  std::atomic<bool> stop_{false};
  std::thread server_thread_;
  std::thread worker_thread_;
};

}  // namespace kiln::cli
