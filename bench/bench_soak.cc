// bench_soak: the service under faults for a while, then checked. A real kiln-coordinator with
// a fresh SQLite file, the chaos proxy (tools/chaos_proxy/) on loopback between it and 8
// kiln-worker processes on the fake device (each candidate a fixed sleep: the soak is about the
// service, not about kernels), and 4 jobs queued or running at all times, submitted with
// `tune submit`. Workers are killed with SIGKILL at seeded random times and started again, and
// so is the coordinator (on the same database: its jobs resume). After --seconds the kills and
// submissions stop, the jobs run to their end (the proxy's faults go on), and then:
//   - every job is done, or failed with a reason;
//   - every candidate is recorded once: `lost` counts candidates a job counted as measured with
//     no record (trials_done past its records), `duplicated` records of a (job, candidate)
//     beyond the first plus records past a job's budget; both must be 0;
//   - `short` counts, for jobs done, budget left unspent (a small space may run out);
//   - SQLite's integrity check says ok;
//   - no process is left: every daemon's process group is empty and no child remains;
//   - the coordinator's peak resident memory (VmHWM, over all its runs) is under --max-rss-mb,
//     and the last one lists each worker once (`tune workers`), however often it reconnected.
//
//   bench_soak --seconds 600 --seed 1 [--workers 8] [--jobs 4] [--trials 256] [--json]
//
// Exit status 0 when every check holds, 1 when one does not, 2 for bad flags. With --json the
// last line of stdout is one JSON object: candidates, lost, duplicated, faults (by kind), kills,
// integrity, orphans, coordinator_peak_rss_mb, workers_listed, jobs, and what the checks found.
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "database/sqlite_database.h"
#include "support/error.h"
#include "tools/chaos_proxy/chaos_proxy.h"

extern char** environ;

namespace kiln::bench {
namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void SleepFor(double seconds) {
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

// The soak's own draws (kill times, whom to kill): SplitMix64, fixed by the seed.
class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed ^ 0x5eed5eed5eed5eedULL) {}
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
  double Between(double lo, double hi) { return lo + (hi - lo) * Uniform(); }
  size_t Index(size_t n) { return static_cast<size_t>(Uniform() * static_cast<double>(n)); }

 private:
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  uint64_t state_;
};

// A daemon in its own process group, output appended to a log file. Kill takes the whole group,
// so that nothing it started outlives it.
class Daemon {
 public:
  Daemon(std::vector<std::string> argv, std::string log, std::vector<std::string> env = {})
      : argv_(std::move(argv)), log_(std::move(log)), env_(std::move(env)) {}
  ~Daemon() { Kill(SIGKILL); }

  void Start() {
    std::vector<char*> args;
    for (std::string& a : argv_) args.push_back(a.data());
    args.push_back(nullptr);
    std::vector<std::string> env_strings;
    for (char** e = environ; *e != nullptr; ++e) env_strings.push_back(*e);
    env_strings.insert(env_strings.end(), env_.begin(), env_.end());
    std::vector<char*> env;
    for (std::string& e : env_strings) env.push_back(e.data());
    env.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, log_.c_str(), O_WRONLY | O_CREAT | O_APPEND,
                                     0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
    int rc = posix_spawn(&pid_, args[0], &actions, &attr, args.data(), env.data());
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&actions);
    KILN_CHECK(rc == 0, ErrorKind::kIO, "bench_soak: cannot start " + argv_[0]);
    groups_.insert(pid_);
  }
  // Sends `signal` to its process group and reaps it, waiting at most `grace_s` before SIGKILL.
  void Kill(int signal, double grace_s = 5) {
    if (pid_ <= 0) return;
    kill(-pid_, signal);
    double deadline = Now() + grace_s;
    int status = 0;
    while (waitpid(pid_, &status, WNOHANG) == 0) {
      if (Now() > deadline) {
        kill(-pid_, SIGKILL);
        waitpid(pid_, &status, 0);
        break;
      }
      SleepFor(0.01);
    }
    pid_ = -1;
  }
  // Waits for it to end; its wait status.
  int Wait() {
    int status = 0;
    if (pid_ > 0) waitpid(pid_, &status, 0);
    pid_ = -1;
    return status;
  }
  // True while it runs; a daemon that exited by itself is reaped.
  bool Running() {
    if (pid_ <= 0) return false;
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      ++exits_;
      return false;
    }
    return true;
  }
  pid_t pid() const { return pid_; }
  int exits() const { return exits_; }  // ended without being killed
  const std::set<pid_t>& groups() const { return groups_; }

 private:
  std::vector<std::string> argv_;
  std::string log_;
  std::vector<std::string> env_;
  pid_t pid_ = -1;
  int exits_ = 0;
  std::set<pid_t> groups_;  // every process group it had
};

// A field of /proc/PID/status in kB (VmHWM, VmRSS); 0 when the process is gone.
int64_t StatusKb(pid_t pid, const std::string& field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(field + ":", 0) == 0)
      return std::strtoll(line.c_str() + field.size() + 1, nullptr, 10);
  }
  return 0;
}

// Processes, other than this one, whose parent is this process or whose group is in `groups`.
std::vector<pid_t> Leftovers(const std::set<pid_t>& groups) {
  std::vector<pid_t> out;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "stat");
    std::string stat;
    std::getline(in, stat);
    size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream fields(stat.substr(close + 2));
    char state = 0;
    pid_t ppid = 0, pgid = 0;
    fields >> state >> ppid >> pgid;
    pid_t pid = std::stoi(name);
    if (pid == getpid()) continue;
    if (ppid == getpid() || groups.count(pgid)) out.push_back(pid);
  }
  return out;
}

int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  int port = ntohs(addr.sin_port);
  close(fd);
  return port;
}

// Runs `tune` to its end; its exit code (-1 when it did not exit normally).
int RunTune(const std::vector<std::string>& args, const std::string& log) {
  Daemon tune(args, log, {"KILN_TIMEOUT_S=3"});
  tune.Start();
  int status = tune.Wait();
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Runs `tune` to its end and returns the last JSON line it printed (null when none).
nlohmann::json TuneJson(const std::vector<std::string>& args, const std::string& out) {
  std::filesystem::remove(out);
  if (RunTune(args, out) != 0) return nullptr;
  std::ifstream in(out);
  std::string last;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] == '{') last = line;
  }
  return nlohmann::json::parse(last, nullptr, false);
}

int64_t CountLines(const std::string& path, const std::string& needle) {
  std::ifstream in(path);
  int64_t n = 0;
  for (std::string line; std::getline(in, line);) n += line.find(needle) != std::string::npos;
  return n;
}

struct SoakOptions {
  double seconds = 60;
  uint64_t seed = 1;
  int workers = 8;
  int jobs = 4;
  int trials = 256;
  double fake_ms = 20;
  std::string faults =
      "drop=0.01,delay=0.02,duplicate=0.01,reorder=0.01,truncate=0.002,corrupt=0.002,"
      "partition=0.0005";
  double delay_ms = 100;
  double partition_s = 2;
  double worker_kill_every_s = 4;
  double coordinator_kill_every_s = 30;
  double drain_s = 240;
  double max_rss_mb = 256;
  std::string work_dir;
  bool keep = false;
  bool json = false;
};

}  // namespace

int Soak(const SoakOptions& o) {
  tools::ChaosProxyOptions proxy_options;
  proxy_options.seed = o.seed;
  tools::ParseFaultSpec(o.faults, proxy_options.faults);  // a bad spec fails before anything runs
  proxy_options.faults.delay_ms = o.delay_ms;
  proxy_options.faults.partition_s = o.partition_s;

  std::filesystem::path dir = o.work_dir;
  if (dir.empty()) {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/kiln-soak-XXXXXX";
    KILN_CHECK(mkdtemp(pattern.data()) != nullptr, ErrorKind::kIO, "mkdtemp " + pattern);
    dir = pattern;
  } else {
    std::filesystem::create_directories(dir);
  }
  std::string db_path = (dir / "tuning.db").string();
  std::filesystem::remove(db_path);
  std::filesystem::remove(db_path + "-wal");
  std::filesystem::remove(db_path + "-shm");
  std::cout << "bench_soak: " << o.seconds << " s, seed " << o.seed << ", " << o.workers
            << " workers, " << o.jobs << " jobs at a time, faults " << o.faults << ", in " << dir
            << std::endl;

  // Whatever a daemon leaves behind when it is killed is handed to this process, so that the
  // check for orphans sees it.
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  std::string coordinator_address = "tcp://127.0.0.1:" + std::to_string(FreePort());
  proxy_options.upstream = coordinator_address;
  tools::ChaosProxy proxy(proxy_options);
  proxy.Start();

  Daemon coordinator({COORDINATOR_PATH, "--listen", coordinator_address, "--db", db_path,
                      "--heartbeat-timeout", "1", "--trials-per-round", "8", "--strategy", "random",
                      "--cost-model", "none", "--log-level", "info"},
                     (dir / "coordinator.log").string());
  std::vector<std::unique_ptr<Daemon>> workers;
  for (int i = 0; i < o.workers; ++i) {
    std::string id = "w" + std::to_string(i);
    workers.push_back(std::make_unique<Daemon>(
        std::vector<std::string>{WORKER_PATH, "--coordinator", proxy.endpoint(), "--device", "fake",
                                 "--id", id, "--build-jobs", "1", "--log-level", "info"},
        (dir / (id + ".log")).string(),
        std::vector<std::string>{"KILN_FAKE_SECONDS=" + std::to_string(o.fake_ms / 1000)}));
  }
  coordinator.Start();
  for (auto& w : workers) w->Start();

  // The service tests' model (a matmul with its ReLU, then a softmax), each job its own seed.
  const std::string model =
      std::string(KILN_SOURCE_DIR) + "/tests/integration/testdata/two_tasks.relax";
  Random random(o.seed);
  int64_t peak_rss_kb = 0;
  int worker_kills = 0, coordinator_kills = 0, submitted = 0, submit_failures = 0;
  double start = Now();
  double end = start + o.seconds;
  double next_worker_kill = start + random.Between(0.5, 1.5) * o.worker_kill_every_s;
  double next_coordinator_kill = start + random.Between(0.5, 1.5) * o.coordinator_kill_every_s;
  std::vector<double> worker_restart(workers.size(), 0);
  double coordinator_restart = 0;
  double coordinator_started = start;
  double longest_run_s = 0;  // the longest a coordinator ran between kills
  int crashes_seen = 0;
  double next_report = start + 10;
  std::unique_ptr<database::SqliteDatabase> db;
  auto open_db = [&]() -> database::SqliteDatabase* {
    if (!db && std::filesystem::exists(db_path)) {
      try {
        db = std::make_unique<database::SqliteDatabase>(db_path);
      } catch (const Error&) {
        // Not created yet by the coordinator: the next tick.
      }
    }
    return db.get();
  };
  auto sample_rss = [&] {
    if (coordinator.pid() > 0) {
      peak_rss_kb = std::max(peak_rss_kb, StatusKb(coordinator.pid(), "VmHWM"));
    }
  };

  // The soak: jobs kept queued, kills at seeded times, restarts after a pause.
  int64_t registry = -1;         // workers the last coordinator lists at the end
  int64_t registry_repeats = 0;  // entries past the first of one worker id
  bool draining = false;
  double drain_end = 0;
  int64_t unfinished = 0;
  while (true) {
    double now = Now();
    if (!draining && now >= end) {
      draining = true;
      drain_end = now + o.drain_s;
      std::cout << "bench_soak: " << o.seconds << " s over; waiting for the jobs to end"
                << std::endl;
    }
    sample_rss();
    // Restarts that are due, and daemons that ended by themselves (a crash is a finding).
    if (!coordinator.Running() && now >= coordinator_restart) {
      if (coordinator.exits() > crashes_seen) {
        crashes_seen = coordinator.exits();
        std::cout << "bench_soak: the coordinator exited by itself; starting it again" << std::endl;
      }
      coordinator.Start();
      coordinator_started = now;
    }
    longest_run_s = std::max(longest_run_s, now - coordinator_started);
    for (size_t i = 0; i < workers.size(); ++i) {
      if (!workers[i]->Running() && now >= worker_restart[i]) workers[i]->Start();
    }
    if (!draining && now >= next_worker_kill) {
      size_t i = random.Index(workers.size());
      if (workers[i]->pid() > 0) {
        workers[i]->Kill(SIGKILL);
        ++worker_kills;
        worker_restart[i] = now + random.Between(0, 2);
      }
      next_worker_kill = now + random.Between(0.5, 1.5) * o.worker_kill_every_s;
    }
    if (!draining && now >= next_coordinator_kill) {
      if (coordinator.pid() > 0) {
        sample_rss();
        coordinator.Kill(SIGKILL);
        ++coordinator_kills;
        coordinator_restart = now + random.Between(0.5, 3);
      }
      next_coordinator_kill = now + random.Between(0.5, 1.5) * o.coordinator_kill_every_s;
    }
    // Keep o.jobs jobs queued or running.
    if (database::SqliteDatabase* d = open_db()) {
      try {
        unfinished = static_cast<int64_t>(d->ListJobs(true).size());
      } catch (const Error& e) {
        std::cout << "bench_soak: reading the jobs: " << e.what() << std::endl;
      }
    }
    if (!draining && coordinator.pid() > 0 && unfinished < o.jobs) {
      std::vector<std::string> args = {TUNE_PATH, "submit", model};
      args.insert(args.end(), {"--trials", std::to_string(o.trials), "--seed",
                               std::to_string(o.seed * 1000 + static_cast<uint64_t>(submitted)),
                               "--coordinator", coordinator_address, "--json"});
      // A submit the coordinator stored but did not answer (killed meanwhile) is in the
      // database all the same: the checks read the jobs from there.
      if (RunTune(args, (dir / "submit.log").string()) == 0) {
        ++submitted;
        continue;
      }
      ++submit_failures;
    }
    if (draining && (unfinished == 0 || now >= drain_end)) {
      // The registry of the last coordinator: one entry per worker, however often each
      // reconnected.
      nlohmann::json list =
          TuneJson({TUNE_PATH, "workers", "--coordinator", coordinator_address, "--json"},
                   (dir / "workers.json").string());
      if (list.is_object() && list["workers"].is_array()) {
        registry = static_cast<int64_t>(list["workers"].size());
        std::map<std::string, int> entries;
        for (const nlohmann::json& w : list["workers"]) ++entries[w.value("id", "")];
        registry_repeats = 0;
        for (const auto& [id, n] : entries) registry_repeats += n - 1;
      }
      break;
    }
    if (now >= next_report) {
      tools::ChaosProxyStats stats = proxy.Stats();
      std::cout << "bench_soak: " << static_cast<int>(now - start) << " s: " << submitted
                << " jobs submitted, " << unfinished << " unfinished, " << stats.Faults()
                << " faults over " << stats.messages << " messages, kills: " << worker_kills
                << " workers, " << coordinator_kills << " coordinator" << std::endl;
      next_report = now + 10;
    }
    SleepFor(0.25);
  }
  double soak_s = Now() - start;
  sample_rss();

  // Stop everything, then look for what was left.
  for (auto& w : workers) w->Kill(SIGTERM);
  coordinator.Kill(SIGTERM);
  proxy.Stop();
  std::set<pid_t> groups = coordinator.groups();
  for (auto& w : workers) groups.insert(w->groups().begin(), w->groups().end());
  std::vector<pid_t> leftovers = Leftovers(groups);
  for (pid_t pid : leftovers) kill(pid, SIGKILL);
  while (waitpid(-1, nullptr, WNOHANG) > 0) {
  }

  // The database, as the last coordinator left it.
  db.reset();
  database::SqliteDatabase final_db(db_path);
  std::string integrity = final_db.IntegrityCheck();
  int64_t candidates = 0, lost = 0, duplicated = 0, short_budget = 0;
  std::map<std::string, int64_t> states;
  std::vector<std::string> problems;
  for (const database::Job& job : final_db.ListJobs()) {
    std::string state(database::JobStateName(job.state));
    ++states[state];
    std::vector<database::TuningRecord> records =
        final_db.History({.job_id = job.id, .limit = 1 << 30});
    std::set<int64_t> ids;
    for (const database::TuningRecord& r : records) ids.insert(r.candidate_id);
    auto n = static_cast<int64_t>(records.size());
    candidates += n;
    duplicated += n - static_cast<int64_t>(ids.size()) + std::max<int64_t>(0, n - job.trials_total);
    lost += std::max<int64_t>(0, job.trials_done - n);
    if (state == "done") short_budget += std::max<int64_t>(0, job.trials_total - n);
    if (state == "failed" && job.error.empty()) {
      problems.push_back("job " + std::to_string(job.id) + " failed without a reason");
    }
    if (state != "done" && state != "failed") {
      problems.push_back("job " + std::to_string(job.id) + " is " + state);
    }
    if (job.trials_done != n) {
      problems.push_back("job " + std::to_string(job.id) + " (" + state + ") counts " +
                         std::to_string(job.trials_done) + " trials and has " + std::to_string(n) +
                         " records");
    }
  }
  if (lost > 0) problems.push_back(std::to_string(lost) + " candidates lost");
  if (duplicated > 0) problems.push_back(std::to_string(duplicated) + " candidates duplicated");
  if (integrity != "ok") problems.push_back("integrity check: " + integrity);
  if (!leftovers.empty()) {
    problems.push_back(std::to_string(leftovers.size()) + " processes left behind");
  }
  double peak_rss_mb = static_cast<double>(peak_rss_kb) / 1024;
  if (peak_rss_mb > o.max_rss_mb) {
    problems.push_back("the coordinator's peak RSS " + std::to_string(peak_rss_mb) +
                       " MB is over " + std::to_string(o.max_rss_mb) + " MB");
  }
  if (peak_rss_kb == 0) problems.push_back("the coordinator's memory was never sampled");
  if (registry < 0) problems.push_back("the last coordinator did not list its workers");
  // (A registration whose worker id a corrupt fault changed is one more entry, not a repeat.)
  if (registry_repeats > 0) {
    problems.push_back("the last coordinator lists " + std::to_string(registry_repeats) +
                       " entries of workers already listed");
  }
  if (states["done"] == 0) problems.push_back("no job finished");

  tools::ChaosProxyStats stats = proxy.Stats();
  nlohmann::json faults = nlohmann::json::object();
  for (int k = 1; k < tools::kFaultKinds; ++k) {
    faults[std::string(tools::FaultKindName(static_cast<tools::FaultKind>(k)))] = stats.faults[k];
  }
  std::string coordinator_log = (dir / "coordinator.log").string();
  nlohmann::json out = {
      {"seconds", o.seconds},
      {"soak_s", soak_s},
      {"seed", o.seed},
      {"workers", o.workers},
      {"jobs",
       {{"submitted", submitted}, {"submit_failures", submit_failures}, {"by_state", states}}},
      {"candidates", candidates},
      {"lost", lost},
      {"duplicated", duplicated},
      {"short", short_budget},
      {"faults", faults},
      {"faults_total", stats.Faults()},
      {"messages", stats.messages},
      {"connections", stats.connections},
      {"refused", stats.refused},
      {"kills", {{"worker", worker_kills}, {"coordinator", coordinator_kills}}},
      {"crashes", {{"coordinator", coordinator.exits()}}},
      {"requeued", CountLines(coordinator_log, "back in the queue")},
      {"given_up", CountLines(coordinator_log, "given up after")},
      {"frames_dropped", CountLines(coordinator_log, "dropped a frame")},
      {"integrity", integrity},
      {"orphans", leftovers.size()},
      {"coordinator_peak_rss_mb", peak_rss_mb},
      {"coordinator_longest_run_s", longest_run_s},
      {"workers_listed", registry},
      {"workers_listed_twice", registry_repeats},
      {"max_rss_mb", o.max_rss_mb},
      {"problems", problems},
      {"ok", problems.empty()},
      {"dir", dir.string()}};
  int worker_crashes = 0;
  for (auto& w : workers) worker_crashes += w->exits();
  out["crashes"]["worker"] = worker_crashes;
  std::cout << "bench_soak: " << candidates << " candidates in " << final_db.ListJobs().size()
            << " jobs; lost " << lost << ", duplicated " << duplicated << "; " << stats.Faults()
            << " faults injected " << faults.dump() << "; kills: " << worker_kills << " workers, "
            << coordinator_kills << " coordinator; integrity " << integrity << "; orphans "
            << leftovers.size() << "; coordinator peak RSS " << peak_rss_mb << " MB" << std::endl;
  for (const std::string& p : problems) std::cout << "bench_soak: problem: " << p << std::endl;
  if (o.json) std::cout << out.dump() << std::endl;
  if (problems.empty() && !o.keep && o.work_dir.empty()) std::filesystem::remove_all(dir);
  return problems.empty() ? 0 : 1;
}

}  // namespace kiln::bench

int main(int argc, char** argv) {
  kiln::bench::SoakOptions o;
  CLI::App app{
      "bench_soak: the service with workers and its coordinator killed, through a "
      "fault-injecting proxy, on the fake device"};
  app.add_option("--seconds", o.seconds, "how long kills and new jobs go on (60)")
      ->check(CLI::PositiveNumber);
  app.add_option("--seed", o.seed, "seed of the faults, the kills and the jobs (1)");
  app.add_option("--workers", o.workers, "kiln-worker processes (8)")->check(CLI::Range(1, 256));
  app.add_option("--jobs", o.jobs, "jobs queued or running at all times (4)")
      ->check(CLI::Range(1, 64));
  app.add_option("--trials", o.trials, "each job's budget (256)")->check(CLI::Range(1, 100000));
  app.add_option("--fake-ms", o.fake_ms, "milliseconds each fake measurement sleeps (20)")
      ->check(CLI::Range(0.0, 10000.0));
  app.add_option("--faults", o.faults, "the proxy's faults, kind=probability per message");
  app.add_option("--delay-ms", o.delay_ms, "a delayed message waits up to this (100)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--partition-s", o.partition_s, "seconds a partition lasts (2)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--worker-kill-every", o.worker_kill_every_s,
                 "mean seconds between kills of a worker (4)")
      ->check(CLI::PositiveNumber);
  app.add_option("--coordinator-kill-every", o.coordinator_kill_every_s,
                 "mean seconds between kills of the coordinator (30)")
      ->check(CLI::PositiveNumber);
  app.add_option("--drain-seconds", o.drain_s,
                 "at most this long for the jobs to end after --seconds (240)")
      ->check(CLI::PositiveNumber);
  app.add_option("--max-rss-mb", o.max_rss_mb, "the coordinator's peak RSS allowed (256)")
      ->check(CLI::PositiveNumber);
  app.add_option("--work-dir", o.work_dir,
                 "database and logs here (default: a fresh folder under TMPDIR, removed when "
                 "every check holds)");
  app.add_flag("--keep", o.keep, "keep the default folder even when every check holds");
  app.add_flag("--json", o.json, "print one JSON object on the last line");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  try {
    return kiln::bench::Soak(o);
  } catch (const kiln::Error& e) {
    std::cerr << "bench_soak: " << kiln::ErrorKindName(e.kind()) << ": " << e.what() << "\n";
    return 2;
  }
}
