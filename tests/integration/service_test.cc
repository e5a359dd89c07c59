// The service with real processes on loopback: a kiln-coordinator, kiln-worker processes on
// the fake device (a fixed sleep, so that the tests are about the service, not the kernels),
// and `tune` as a user runs it. A 2-task model is tuned by 3 workers and every candidate is
// stored exactly once; a worker killed with SIGKILL mid-batch loses nothing; a coordinator
// killed with SIGKILL mid-job resumes it on restart with every committed record intact; the
// coordinator survives garbage on its port. Job events are pushed to `tune watch` and
// `tune submit --wait` as the job runs; per-job search options travel with the submit and are
// honoured; `--log-format json` makes every log line of both daemons one JSON object.
#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <zmq.hpp>

#include "database/sqlite_database.h"
#include "schemas/convert.h"
#include "tests/integration/process_util.h"
#include "tests/runtime/runtime_test_util.h"

namespace kiln {
namespace {

using testing::Process;
using testing::WaitFor;

const std::string kModel =
    std::string(KILN_SOURCE_DIR) + "/tests/integration/testdata/two_tasks.relax";

class ServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Queries on loopback answer in milliseconds: a missing coordinator fails fast.
    setenv("KILN_TIMEOUT_S", "3", 1);
    address_ = "tcp://127.0.0.1:" + std::to_string(testing::FreePort());
    db_path_ = dir_.Sub("tuning.db");
  }

  std::unique_ptr<Process> StartCoordinator(std::vector<std::string> extra = {}) {
    std::vector<std::string> argv = {COORDINATOR_PATH,
                                     "--listen",
                                     address_,
                                     "--db",
                                     db_path_,
                                     "--heartbeat-timeout",
                                     "1",
                                     "--trials-per-round",
                                     "8",
                                     "--strategy",
                                     "random",
                                     "--log-level",
                                     "info"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return std::make_unique<Process>(argv, dir_.Sub("coordinator.log"));
  }
  std::unique_ptr<Process> StartWorker(int i, double fake_seconds = 0.005,
                                       std::vector<std::string> extra = {}) {
    std::vector<std::string> argv = {
        WORKER_PATH, "--coordinator",         address_,      "--device", "fake",
        "--id",      "w" + std::to_string(i), "--log-level", "info"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return std::make_unique<Process>(
        argv, dir_.Sub("worker" + std::to_string(i) + ".log"),
        std::vector<std::string>{"KILN_FAKE_SECONDS=" + std::to_string(fake_seconds)});
  }
  std::pair<int, std::string> Tune(std::vector<std::string> args) {
    args.insert(args.begin(), TUNE_PATH);
    args.push_back("--coordinator");
    args.push_back(address_);
    return testing::RunCommand(args, dir_.Sub("tune.out"));
  }
  nlohmann::json Status(int64_t job) {
    auto [code, out] = Tune({"status", std::to_string(job), "--json"});
    if (code != 0) return nullptr;
    return nlohmann::json::parse(testing::LastJsonLine(out), nullptr, false);
  }
  int64_t Submit(int trials) {
    auto [code, out] = Tune({"submit", kModel, "--trials", std::to_string(trials), "--json"});
    EXPECT_EQ(code, 0) << out << testing::ReadText(dir_.Sub("coordinator.log"));
    nlohmann::json j = nlohmann::json::parse(testing::LastJsonLine(out), nullptr, false);
    return j.is_object() ? j.value("job", int64_t{0}) : 0;
  }
  bool WaitForState(int64_t job, const std::string& state, double seconds) {
    return WaitFor(
        [&] {
          nlohmann::json s = Status(job);
          return s.is_object() && s["state"] == state;
        },
        seconds);
  }
  // Every candidate the search sent is stored once: as many records as trials done, each
  // (job, candidate) once, within the budget. (A small space may run out before it.)
  void ExpectEachCandidateOnce(int64_t job, int64_t trials) {
    database::SqliteDatabase db(db_path_);
    EXPECT_EQ(db.IntegrityCheck(), "ok");
    std::vector<database::TuningRecord> records = db.History({.job_id = job, .limit = 100000});
    nlohmann::json status = Status(job);
    ASSERT_TRUE(status.is_object());
    EXPECT_EQ(static_cast<int64_t>(records.size()), status["trials_done"].get<int64_t>());
    EXPECT_LE(static_cast<int64_t>(records.size()), trials);
    EXPECT_GE(static_cast<int64_t>(records.size()), trials / 2);
    std::set<int64_t> candidates;
    std::set<std::string> workloads;
    for (const auto& r : records) {
      candidates.insert(r.candidate_id);
      workloads.insert(r.workload_hash);
      EXPECT_TRUE(r.result.ok()) << r.result.message;
      EXPECT_EQ(r.device, "fake");
    }
    EXPECT_EQ(candidates.size(), records.size());
    EXPECT_EQ(workloads.size(), 2u);  // both tasks were tuned
    EXPECT_EQ(status["tasks"].size(), 2u);
  }

  runtime::testing::ScratchDir dir_;
  std::string address_;
  std::string db_path_;
};

TEST_F(ServiceTest, ThreeWorkersTuneATwoTaskModelEachCandidateStoredOnce) {
  auto coordinator = StartCoordinator();
  std::vector<std::unique_ptr<Process>> workers;
  for (int i = 0; i < 3; ++i) workers.push_back(StartWorker(i));
  ASSERT_TRUE(WaitFor(
      [&] {
        auto [code, out] = Tune({"workers", "--json"});
        nlohmann::json j = nlohmann::json::parse(testing::LastJsonLine(out), nullptr, false);
        return code == 0 && j.is_object() && j["workers"].size() == 3;
      },
      20))
      << testing::ReadText(dir_.Sub("coordinator.log"));
  int64_t job = Submit(32);
  ASSERT_GT(job, 0);
  ASSERT_TRUE(WaitForState(job, "done", 60)) << testing::ReadText(dir_.Sub("coordinator.log"));
  ExpectEachCandidateOnce(job, 32);
  // Every worker took part.
  database::SqliteDatabase db(db_path_);
  std::set<std::string> measured_by;
  for (const auto& r : db.History({.job_id = job, .limit = 1000})) measured_by.insert(r.worker);
  EXPECT_EQ(measured_by.size(), 3u);
  // The job's cost model is kept for the next job of the target.
  EXPECT_TRUE(db.LoadCostModel("llvm").has_value());
  auto [code, out] = testing::RunCommand({TUNE_PATH, "db", "list", "--db", db_path_, "--json"},
                                         dir_.Sub("db.out"));
  EXPECT_EQ(code, 0) << out;
  nlohmann::json list = nlohmann::json::parse(testing::LastJsonLine(out), nullptr, false);
  ASSERT_TRUE(list.is_object());
  EXPECT_EQ(list["workloads"].size(), 2u);
}

TEST_F(ServiceTest, AWorkerKilledMidBatchLosesNothing) {
  auto coordinator = StartCoordinator();
  auto steady = StartWorker(0, 0.01);
  // So slow that a batch it takes is in flight until it dies, however long the kill takes to
  // come (a busy or sanitized machine): the job can end only through its candidates' requeue.
  auto doomed = StartWorker(1, 30);
  int64_t job = Submit(24);
  ASSERT_GT(job, 0);
  ASSERT_TRUE(WaitFor(
      [&] {
        return testing::ReadText(dir_.Sub("worker1.log")).find("registered") != std::string::npos;
      },
      20));
  // Kill it while it holds candidates.
  ASSERT_TRUE(WaitFor(
      [&] {
        auto [code, out] = Tune({"workers", "--json"});
        nlohmann::json j = nlohmann::json::parse(testing::LastJsonLine(out), nullptr, false);
        if (code != 0 || !j.is_object()) return false;
        for (const auto& w : j["workers"]) {
          if (w["id"] == "w1" && w["in_flight"].get<int>() > 0) return true;
        }
        return false;
      },
      30));
  doomed->Kill(SIGKILL);
  ASSERT_TRUE(WaitForState(job, "done", 60)) << testing::ReadText(dir_.Sub("coordinator.log"));
  ExpectEachCandidateOnce(job, 24);
  std::string log = testing::ReadText(dir_.Sub("coordinator.log"));
  EXPECT_THAT(log, ::testing::HasSubstr("worker w1 lost"));
  EXPECT_THAT(log, ::testing::HasSubstr("back in the queue: worker w1 lost"));
}

TEST_F(ServiceTest, ACoordinatorKilledMidJobResumesOnRestart) {
  auto coordinator = StartCoordinator();
  auto worker = StartWorker(0, 0.05);
  int64_t job = Submit(40);
  ASSERT_GT(job, 0);
  ASSERT_TRUE(WaitFor(
      [&] {
        nlohmann::json s = Status(job);
        return s.is_object() && s["trials_done"].get<int64_t>() >= 8;
      },
      30));
  coordinator->Kill(SIGKILL);
  int64_t committed = 0;
  {
    database::SqliteDatabase db(db_path_);
    EXPECT_EQ(db.IntegrityCheck(), "ok");
    committed = static_cast<int64_t>(db.History({.job_id = job, .limit = 1000}).size());
    EXPECT_GE(committed, 8);
    EXPECT_LT(committed, 40);
  }
  coordinator = StartCoordinator();  // the worker reconnects by itself
  ASSERT_TRUE(WaitForState(job, "done", 60)) << testing::ReadText(dir_.Sub("coordinator.log"));
  ExpectEachCandidateOnce(job, 40);
}

TEST_F(ServiceTest, GarbageOnThePortIsDroppedAndServingGoesOn) {
  auto coordinator = StartCoordinator();
  zmq::context_t context(1);
  zmq::socket_t socket(context, zmq::socket_type::dealer);
  socket.set(zmq::sockopt::linger, 0);
  socket.connect(address_);
  std::string good = schemas::Encode(schemas::QueryMsg{schemas::QueryMsg::Kind::kListJobs, 0});
  std::vector<std::string> garbage = {"", "x", std::string(64, '\xff'),
                                      good.substr(0, good.size() / 2),
                                      schemas::Encode(schemas::QueryMsg{}, 99)};
  for (const std::string& g : garbage) socket.send(zmq::buffer(g), zmq::send_flags::none);
  // The wrong version is answered with an error; the rest are dropped; a good query works.
  socket.send(zmq::buffer(good), zmq::send_flags::none);
  bool answered = WaitFor(
      [&] {
        zmq::message_t frame;
        while (socket.recv(frame, zmq::recv_flags::dontwait)) {
          if (std::holds_alternative<schemas::JobListMsg>(
                  schemas::Decode(frame.data(), frame.size()))) {
            return true;
          }
        }
        return false;
      },
      10);
  EXPECT_TRUE(answered);
  EXPECT_TRUE(coordinator->Running());
  // Plain TCP garbage (not even ZMTP) too.
  auto [code, out] = Tune({"workers", "--json"});
  EXPECT_EQ(code, 0) << out;
}

TEST_F(ServiceTest, OnlyWorkersOnTheAllowListMayConnect) {
  std::string keys = dir_.Sub("keys");
  auto [made, out] =
      testing::RunCommand({TUNE_PATH, "keys", "generate", keys, "--json"}, dir_.Sub("keys.out"));
  ASSERT_EQ(made, 0) << out;
  // A stranger: its own pair, and the coordinator's public key, but not on the allow-list.
  std::string stranger = dir_.Sub("stranger");
  ASSERT_EQ(testing::RunCommand({TUNE_PATH, "keys", "generate", stranger, "--name", "worker"},
                                dir_.Sub("keys.out"))
                .first,
            0);
  std::filesystem::copy_file(keys + "/coordinator.pub", stranger + "/coordinator.pub");
  Process coordinator({COORDINATOR_PATH, "--listen", address_, "--db", db_path_, "--keys", keys},
                      dir_.Sub("coordinator.log"));
  Process allowed({WORKER_PATH, "--coordinator", address_, "--device", "fake", "--id", "allowed",
                   "--keys", keys},
                  dir_.Sub("allowed.log"));
  Process refused({WORKER_PATH, "--coordinator", address_, "--device", "fake", "--id", "refused",
                   "--keys", stranger},
                  dir_.Sub("refused.log"));
  setenv("KILN_KEYS", keys.c_str(), 1);
  bool listed = WaitFor(
      [&] {
        auto [code, text] = Tune({"workers", "--json"});
        nlohmann::json j = nlohmann::json::parse(testing::LastJsonLine(text), nullptr, false);
        return code == 0 && j.is_object() && j["workers"].size() == 1 &&
               j["workers"][0]["id"] == "allowed";
      },
      20);
  EXPECT_TRUE(listed) << testing::ReadText(dir_.Sub("coordinator.log"));
  EXPECT_TRUE(WaitFor(
      [&] {
        return testing::ReadText(dir_.Sub("coordinator.log")).find("not on the allow-list") !=
               std::string::npos;
      },
      20));
  unsetenv("KILN_KEYS");
  // A client without keys gets no answer from a coordinator that requires them.
  auto [code, text] = Tune({"workers"});
  EXPECT_EQ(code, 1);
}

// With CurveZMQ each client's public key is its own limit of unfinished jobs: allowed one each
// (no worker, so none ends), the first client's second submission is refused naming the limit
// and its key and stores nothing, while a second client with its own key is still served;
// `tune status --json` shows whose each job is.
TEST_F(ServiceTest, TwoClientsWithTheirOwnKeysAreLimitedApart) {
  std::string keys = dir_.Sub("keys");
  auto [made, out] =
      testing::RunCommand({TUNE_PATH, "keys", "generate", keys, "--json"}, dir_.Sub("keys.out"));
  ASSERT_EQ(made, 0) << out;
  std::string key_a = nlohmann::json::parse(testing::LastJsonLine(out))["keys"]["client"];
  // The second client: its own pair, allowed by the coordinator.
  std::string other = dir_.Sub("other");
  auto [made_b, out_b] = testing::RunCommand(
      {TUNE_PATH, "keys", "generate", other, "--name", "client", "--json"}, dir_.Sub("keys.out"));
  ASSERT_EQ(made_b, 0) << out_b;
  std::string key_b = nlohmann::json::parse(testing::LastJsonLine(out_b))["keys"]["client"];
  ASSERT_NE(key_a, key_b);
  std::filesystem::copy_file(other + "/client.pub", keys + "/authorized/other-client.pub");
  std::filesystem::copy_file(keys + "/coordinator.pub", other + "/coordinator.pub");
  auto coordinator = StartCoordinator({"--keys", keys, "--max-jobs-per-client", "1"});
  struct UnsetKeys {
    ~UnsetKeys() { unsetenv("KILN_KEYS"); }
  } unset_keys;

  setenv("KILN_KEYS", keys.c_str(), 1);
  int64_t first = Submit(8);
  ASSERT_GT(first, 0);
  auto [code, text] = Tune({"submit", kModel, "--trials", "8", "--json"});
  EXPECT_NE(code, 0) << text;
  EXPECT_THAT(text, ::testing::HasSubstr("queued or running jobs of client '" + key_a.substr(0, 8) +
                                         "...' with this one is 2, past this coordinator's "
                                         "limit of 1 (--max-jobs-per-client)"));

  setenv("KILN_KEYS", other.c_str(), 1);
  int64_t second = Submit(8);
  ASSERT_GT(second, 0) << testing::ReadText(dir_.Sub("coordinator.log"));
  EXPECT_EQ(Status(first)["client"], key_a.substr(0, 8) + "...");
  EXPECT_EQ(Status(second)["client"], key_b.substr(0, 8) + "...");

  database::SqliteDatabase db(db_path_);
  std::vector<database::Job> jobs = db.ListJobs();
  ASSERT_EQ(jobs.size(), 2u);  // the refused submission left nothing
  EXPECT_EQ(jobs[0].client, key_b);
  EXPECT_EQ(jobs[1].client, key_a);
}

TEST_F(ServiceTest, WatchPrintsPushedEventsUntilTheJobEnds) {
  auto coordinator = StartCoordinator();
  auto worker = StartWorker(0, 0.03);
  int64_t job = Submit(48);
  ASSERT_GT(job, 0);
  // The keep-alive is far longer than the job: every line but the first was pushed.
  auto [code, out] = testing::RunCommand({TUNE_PATH, "watch", std::to_string(job), "--json",
                                          "--interval", "60", "--coordinator", address_},
                                         dir_.Sub("watch.out"));
  ASSERT_EQ(code, 0) << out << testing::ReadText(dir_.Sub("coordinator.log"));
  std::vector<nlohmann::json> events;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    ASSERT_TRUE(j.is_object()) << "not a JSON line: " << line;
    events.push_back(j);
  }
  ASSERT_GE(events.size(), 3u) << out;
  int64_t trials = 0;
  for (const nlohmann::json& e : events) {
    EXPECT_EQ(e["job"], job);
    EXPECT_GE(e["trials_done"].get<int64_t>(), trials);
    trials = e["trials_done"].get<int64_t>();
    ASSERT_EQ(e["tasks"].size(), 2u);
  }
  EXPECT_EQ(events.back()["state"], "done");
  EXPECT_TRUE(events.back()["tasks"][0]["done"].get<bool>());
  ExpectEachCandidateOnce(job, 48);
  // Watching a finished job prints its final state at once.
  auto [again, final_out] = testing::RunCommand(
      {TUNE_PATH, "watch", std::to_string(job), "--json", "--coordinator", address_},
      dir_.Sub("watch2.out"));
  EXPECT_EQ(again, 0);
  EXPECT_EQ(nlohmann::json::parse(testing::LastJsonLine(final_out))["state"], "done");
}

TEST_F(ServiceTest, SubmitOptionsAreHonouredAndLogsAreJsonLines) {
  auto coordinator = StartCoordinator({"--log-format", "json"});
  auto worker = StartWorker(0, 0.01, {"--log-format", "json"});
  auto [code, out] =
      testing::RunCommand({TUNE_PATH, "submit", kModel, "--trials", "24", "--wait", "--json",
                           "--strategy", "evolutionary", "--seed", "3", "--population", "16",
                           "--cost-model", "none", "--coordinator", address_},
                          dir_.Sub("submit.out"));
  ASSERT_EQ(code, 0) << out << testing::ReadText(dir_.Sub("coordinator.log"));
  nlohmann::json last = nlohmann::json::parse(testing::LastJsonLine(out));
  EXPECT_EQ(last["state"], "done");
  int64_t job = last["job"].get<int64_t>();
  // --wait drew the task table of `tune run`.
  EXPECT_THAT(out, ::testing::HasSubstr("Total trials:"));
  EXPECT_THAT(out, ::testing::HasSubstr("GFLOP/s"));
  {
    database::SqliteDatabase db(db_path_);
    nlohmann::json stored = nlohmann::json::parse(db.GetJob(job)->options_json);
    EXPECT_EQ(stored, (nlohmann::json{{"strategy", "evolutionary"},
                                      {"seed", 3},
                                      {"population", 16},
                                      {"cost_model", "none"}}));
  }
  coordinator->Kill(SIGTERM);
  coordinator->Wait();
  // Every line of both daemons is one JSON object with the five keys.
  bool searched = false;
  for (const auto& [log, component] : {std::pair{dir_.Sub("coordinator.log"), "coordinator"},
                                       std::pair{dir_.Sub("worker0.log"), "worker"}}) {
    std::istringstream lines(testing::ReadText(log));
    int count = 0;
    for (std::string line; std::getline(lines, line);) {
      nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
      ASSERT_TRUE(j.is_object()) << log << ": not a JSON line: " << line;
      for (const char* key : {"time", "level", "component", "message", "fields"}) {
        EXPECT_TRUE(j.contains(key)) << key << " missing in " << line;
      }
      EXPECT_EQ(j["component"], component) << line;
      EXPECT_TRUE(j["fields"].is_object()) << line;
      ++count;
      // The job ran with the options it was submitted with, not the daemon's defaults.
      if (j["message"].get<std::string>().rfind("job " + std::to_string(job) + " searching", 0) ==
          0) {
        searched = true;
        EXPECT_EQ(j["fields"]["strategy"], "evolutionary") << line;
        EXPECT_EQ(j["fields"]["seed"], 3) << line;
        EXPECT_EQ(j["fields"]["population"], 16) << line;
      }
    }
    EXPECT_GT(count, 0) << log;
  }
  EXPECT_TRUE(searched) << testing::ReadText(dir_.Sub("coordinator.log"));
}

// An HTTP GET of `path` on 127.0.0.1:`port`: the whole response, or "" when none came.
std::string HttpGet(int port, const std::string& path) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string response;
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) {
    std::string request = "GET " + path + " HTTP/1.1\r\nHost: localhost\r\n\r\n";
    if (write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size())) {
      timeval timeout{5, 0};
      setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
      char buf[4096];
      for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) response.append(buf, buf + n);
    }
  }
  close(fd);
  return response;
}

TEST_F(ServiceTest, CancelStopsAJobWatchersSeeItAndMetricsCountIt) {
  int metrics_port = testing::FreePort();
  auto coordinator =
      StartCoordinator({"--metrics", "tcp://127.0.0.1:" + std::to_string(metrics_port)});
  auto worker = StartWorker(0, 0.05);
  int64_t job = Submit(400);
  ASSERT_GT(job, 0);
  ASSERT_TRUE(WaitFor(
      [&] {
        nlohmann::json s = Status(job);
        return s.is_object() && s["trials_done"].get<int64_t>() >= 8;
      },
      30));
  Process watch({TUNE_PATH, "watch", std::to_string(job), "--json", "--coordinator", address_},
                dir_.Sub("watch.out"));
  // The watcher is subscribed once it has printed its first event.
  ASSERT_TRUE(WaitFor([&] { return !testing::ReadText(dir_.Sub("watch.out")).empty(); }, 20));
  auto [code, out] = Tune({"cancel", std::to_string(job), "--json"});
  ASSERT_EQ(code, 0) << out;
  EXPECT_EQ(nlohmann::json::parse(testing::LastJsonLine(out))["state"], "cancelled");
  int status = watch.Wait();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1);  // the job did not finish
  std::string watched = testing::ReadText(dir_.Sub("watch.out"));
  EXPECT_EQ(nlohmann::json::parse(testing::LastJsonLine(watched))["state"], "cancelled") << watched;
  // The coordinator goes on with the next job; the cancelled one stays cancelled.
  int64_t next = Submit(16);
  ASSERT_TRUE(WaitForState(next, "done", 60)) << testing::ReadText(dir_.Sub("coordinator.log"));
  EXPECT_EQ(Status(job)["state"], "cancelled");
  int64_t stored = 0;
  {
    database::SqliteDatabase db(db_path_);
    stored = db.CountRecords();
    EXPECT_LT(static_cast<int64_t>(db.History({.job_id = job, .limit = 1000}).size()), 400);
  }
  std::string metrics = HttpGet(metrics_port, "/metrics");
  EXPECT_THAT(metrics, ::testing::HasSubstr("200 OK"));
  EXPECT_THAT(metrics, ::testing::HasSubstr("kiln_jobs{state=\"cancelled\"} 1"));
  EXPECT_THAT(metrics, ::testing::HasSubstr("kiln_jobs{state=\"done\"} 1"));
  EXPECT_THAT(metrics, ::testing::HasSubstr("kiln_trials_total " + std::to_string(stored)));
  EXPECT_THAT(metrics, ::testing::HasSubstr("kiln_workers{state=\"idle\"} 1"));
}

TEST_F(ServiceTest, TuneCommandsWithoutACoordinatorFailClearly) {
  auto [code, out] = Tune({"status", "1"});
  EXPECT_EQ(code, 1);
  // Without keys, the coordinator listens on loopback only.
  auto [refused, text] =
      testing::RunCommand({COORDINATOR_PATH, "--listen", "tcp://0.0.0.0:7999", "--db", db_path_},
                          dir_.Sub("refused.out"));
  EXPECT_EQ(refused, 1);
  EXPECT_THAT(text, ::testing::HasSubstr("only on loopback"));
  EXPECT_THAT(out, ::testing::HasSubstr("no answer from a coordinator"));
}

}  // namespace
}  // namespace kiln
