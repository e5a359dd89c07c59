// JobService without sockets: a job runs over the Dispatcher while the test plays a worker
// (it takes the batches the dispatcher assigns, reads each candidate's scheduled function
// and answers). The design space fits the registered worker's vector width, a job's options
// (strategy, seed, population, untuned timing) are honoured, a second job of the same
// workload starts from the best stored record, and progress goes out as events.
#include "coordinator/job_service.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <thread>

#include "coordinator/job_options.h"
#include "database/sqlite_database.h"
#include "ir/structural.h"
#include "ir/text/parser.h"
#include "support/file.h"
#include "tests/search/test_funcs.h"

namespace kiln::coordinator {
namespace {

struct Played {
  std::vector<std::string> scheduled;  // every candidate's text, in dispatch order
  int widest_vector = 0;               // widest T.vectorized extent seen
  int untuned = 0;                     // candidates whose trace is empty (the untuned kernel)
};

// Runs `job` on a thread while answering its batches as a worker registered with
// `vector_bytes` would: each candidate "takes" a time drawn from its text, so that runs
// agree on which is best; with `wrong`, every candidate computes the wrong result.
Played PlayWorker(JobService& jobs, Dispatcher& dispatcher, int64_t job, uint32_t vector_bytes,
                  bool wrong = false) {
  Played played;
  schemas::RegisterMsg info{"w", "cpu-test", "llvm", true,         true,
                            2,   "test",     "host", vector_bytes, 2};
  double now = MonotonicSeconds();
  dispatcher.OnRegister("w-identity", info, now);
  std::atomic<bool> finished{false};
  std::thread runner([&] {
    jobs.RunJob(job);
    finished = true;
  });
  std::regex vectorized(R"(T\.vectorized\((\d+)\))");
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (!finished && std::chrono::steady_clock::now() < deadline) {
    now = MonotonicSeconds();
    dispatcher.OnHeartbeat("w-identity", {"w", 0}, now);
    for (auto& [identity, batch] : dispatcher.TakeBatches(now)) {
      schemas::ResultsMsg results;
      results.batch_id = batch.batch_id;
      results.worker_id = "w";
      for (const schemas::CandidateMsg& c : batch.candidates) {
        played.scheduled.push_back(c.scheduled);
        if (c.trace == "[]" || c.trace.empty() || c.trace.find("GetSBlock") == std::string::npos) {
          ++played.untuned;
        }
        for (std::sregex_iterator it(c.scheduled.begin(), c.scheduled.end(), vectorized), end;
             it != end; ++it) {
          played.widest_vector = std::max(played.widest_vector, std::stoi((*it)[1]));
        }
        schemas::CandidateResultMsg r;
        r.id = c.id;
        r.result.median_seconds =
            1e-4 * static_cast<double>(1 + std::hash<std::string>{}(c.scheduled) % 1000);
        r.result.repeat_seconds = {r.result.median_seconds};
        r.result.correctness_checked = true;
        if (wrong) {
          r.result.error_kind = runtime::MeasureErrorKind::kWrongResult;
          r.result.message = "output 0 differs at [3, 1]";
        }
        results.results.push_back(std::move(r));
      }
      dispatcher.OnResults(identity, results, now);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  runner.join();
  return played;
}

class JobServiceTest : public ::testing::Test {
 protected:
  JobServiceTest() : db_(":memory:"), dispatcher_(DispatcherOptions{}) {
    options_.cost_model = "none";
    options_.tuner.trials_per_round = 8;
  }
  int64_t Submit(int64_t trials, nlohmann::json options) {
    JobSpec spec;
    spec.model = "matmul";
    spec.trials = trials;
    spec.options = std::move(options);
    spec.tasks.push_back({"matmul", search::testing::MakeMatmul(64, 64, 64), 1});
    return jobs_->SubmitJob(spec);
  }
  void SetUp() override { jobs_ = std::make_unique<JobService>(db_, dispatcher_, options_); }

  database::SqliteDatabase db_;
  Dispatcher dispatcher_;
  JobServiceOptions options_;
  std::unique_ptr<JobService> jobs_;
};

TEST_F(JobServiceTest, TheDesignSpaceFitsTheRegisteredVectorWidth) {
  int64_t narrow = Submit(24, {{"strategy", "random"}, {"measure_untuned", false}});
  Played sse = PlayWorker(*jobs_, dispatcher_, narrow, 16);
  ASSERT_EQ(db_.GetJob(narrow)->state, database::JobState::kDone) << db_.GetJob(narrow)->error;
  ASSERT_EQ(sse.scheduled.size(), 24u);
  // 16 bytes hold 4 float32: no vectorized loop is wider.
  EXPECT_GT(sse.widest_vector, 0);
  EXPECT_LE(sse.widest_vector, 4);

  int64_t wide = Submit(24, {{"strategy", "random"}, {"measure_untuned", false}, {"seed", 2}});
  Played avx512 = PlayWorker(*jobs_, dispatcher_, wide, 64);
  ASSERT_EQ(db_.GetJob(wide)->state, database::JobState::kDone) << db_.GetJob(wide)->error;
  EXPECT_GT(avx512.widest_vector, 4);
  EXPECT_LE(avx512.widest_vector, 16);
}

TEST_F(JobServiceTest, OptionsAreHonouredAndBadOnesRefusedAtSubmit) {
  // The same seed draws the same candidates; another seed others.
  nlohmann::json options = {{"strategy", "random"}, {"seed", 5}, {"measure_untuned", false}};
  Played first = PlayWorker(*jobs_, dispatcher_, Submit(8, options), 64);
  Played again = PlayWorker(*jobs_, dispatcher_, Submit(8, options), 64);
  options["seed"] = 6;
  Played other = PlayWorker(*jobs_, dispatcher_, Submit(8, options), 64);
  ASSERT_EQ(first.scheduled.size(), 8u);
  EXPECT_EQ(first.scheduled, again.scheduled);
  EXPECT_NE(first.scheduled, other.scheduled);
  // Untuned timing is one extra measurement per task, never stored as a record.
  int64_t job = Submit(8, {{"strategy", "random"}, {"measure_untuned", true}, {"seed", 9}});
  Played timed = PlayWorker(*jobs_, dispatcher_, job, 64);
  EXPECT_EQ(timed.scheduled.size(), 9u);
  EXPECT_EQ(timed.untuned, 1);
  EXPECT_EQ(db_.History({.job_id = job, .limit = 100}).size(), 8u);

  for (const nlohmann::json& bad :
       {nlohmann::json{{"strategy", "annealing"}}, nlohmann::json{{"population", 0}},
        nlohmann::json{{"seed", -1}}, nlohmann::json{{"colour", "red"}}}) {
    try {
      Submit(8, bad);
      ADD_FAILURE() << "accepted " << bad.dump();
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kParse);
      EXPECT_THAT(e.what(), ::testing::HasSubstr(bad.begin().key())) << bad.dump();
    }
  }
}

TEST_F(JobServiceTest, ASecondJobStartsFromTheBestStoredRecord) {
  nlohmann::json options = {
      {"strategy", "evolutionary"}, {"population", 32}, {"measure_untuned", false}};
  std::vector<search::TuneReport> reports;
  std::vector<schemas::JobEventMsg> events;
  jobs_->SetReportObserver([&](int64_t, const search::TuneReport& r) { reports.push_back(r); });
  jobs_->SetEventSink([&](const schemas::JobEventMsg& e) { events.push_back(e); });
  int64_t first = Submit(16, options);
  PlayWorker(*jobs_, dispatcher_, first, 64);
  ASSERT_FALSE(reports.empty());
  ASSERT_TRUE(reports.back().finished);
  double first_best = reports.back().tasks[0].best_seconds;
  ASSERT_GT(first_best, 0);
  EXPECT_EQ(reports.back().tasks[0].seeded_seconds, 0);
  // Events: the job ran, then ended done, with the task's progress.
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back().state, "done");
  EXPECT_EQ(events.back().trials_done, 16u);
  EXPECT_GT(events.back().tasks[0].flop, 0);
  EXPECT_TRUE(events.back().tasks[0].done);

  // The seeds of the next job: the best fifth of its population (6 of the 16 records).
  std::set<std::string> seeds;
  for (const auto& r : db_.TopK(ir::StructuralHashHex(search::testing::MakeMatmul(64, 64, 64)),
                                "llvm", "cpu-test", 6)) {
    seeds.insert(r.trace_json);
  }
  ASSERT_EQ(seeds.size(), 6u);

  reports.clear();
  int64_t second = Submit(8, options);
  PlayWorker(*jobs_, dispatcher_, second, 64);
  ASSERT_FALSE(reports.empty());
  const search::TaskReport& task = reports.back().tasks[0];
  EXPECT_DOUBLE_EQ(task.seeded_seconds, first_best);
  EXPECT_LE(task.best_seconds, first_best);
  ASSERT_TRUE(task.best_trace.has_value());
  for (const auto& r : db_.History({.job_id = second, .limit = 100})) {
    EXPECT_FALSE(seeds.count(r.trace_json)) << "a seed was measured again";  // never twice
  }
}

TEST_F(JobServiceTest, AJobWhoseEveryTaskFailedEndsFailedWithTheReasons) {
  int64_t job = Submit(8, {{"strategy", "random"}, {"measure_untuned", false}});
  PlayWorker(*jobs_, dispatcher_, job, 64, /*wrong=*/true);
  std::optional<database::Job> stored = db_.GetJob(job);
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(stored->state, database::JobState::kFailed);
  EXPECT_THAT(stored->error,
              ::testing::HasSubstr("every task failed: matmul: 8 candidates failed"));
  EXPECT_THAT(stored->error, ::testing::HasSubstr("wrong_result: output 0 differs at [3, 1]"));
  // What was measured is stored all the same.
  EXPECT_EQ(db_.History({.job_id = job, .limit = 100}).size(), 8u);
}

// A submitted ONNX model with a symbolic batch: the coordinator binds it (dims, default_dim)
// or specialises it per bucket, a task shared by buckets once; names carry the buckets.
TEST_F(JobServiceTest, ASubmittedModelIsSpecialisedByItsDimsAndBuckets) {
  schemas::SubmitMsg submit;
  submit.model = "mlp.onnx";
  submit.model_bytes = ReadFile(std::string(KILN_SOURCE_DIR) + "/examples/models/mlp/model.onnx");
  submit.target = "llvm";
  submit.trials = 8;
  submit.options = R"({"strategy": "random"})";
  int64_t plain = jobs_->SubmitJob(submit);
  std::optional<database::Job> job = db_.GetJob(plain);
  ASSERT_TRUE(job.has_value());
  EXPECT_EQ(nlohmann::json::parse(job->options_json)["dims"], (nlohmann::json{{"batch", 128}}));
  ASSERT_FALSE(job->tasks.empty());

  submit.options = R"({"buckets": [{"name": "batch", "values": [1, 8]}]})";
  std::optional<database::Job> bucketed = db_.GetJob(jobs_->SubmitJob(submit));
  ASSERT_TRUE(bucketed.has_value());
  std::set<std::string> labels;
  std::map<std::string, int> family_sizes;  // an operator's tasks over the buckets
  for (const database::JobTask& t : bucketed->tasks) {
    labels.insert(t.name.substr(t.name.find(" (")));
    ++family_sizes[ir::model::TaskFamily(t.name)];
  }
  for (const auto& [family, size] : family_sizes) EXPECT_EQ(size, 2) << family;
  EXPECT_TRUE(labels.count(" (batch=1)")) << ::testing::PrintToString(labels);
  EXPECT_TRUE(labels.count(" (batch=8)")) << ::testing::PrintToString(labels);

  for (const char* bad : {R"({"dims": {"seq": 4}})", R"({"dims": {"batch": 0}})",
                          R"({"buckets": [{"name": "batch", "values": [0]}]})"}) {
    submit.options = bad;
    EXPECT_THROW(jobs_->SubmitJob(submit), Error) << bad;
  }
}

// A submission past one of the coordinator's limits is refused before anything is stored,
// naming the limit, its flag and the value; within the limits the same model is taken.
TEST_F(JobServiceTest, ASubmissionPastALimitIsRefusedAndLeavesNothing) {
  options_.limits.max_model_bytes = 1 << 20;
  options_.limits.max_trials = 100;
  options_.limits.max_tasks = 3;
  options_.limits.max_dim = 512;
  options_.limits.max_population = 1024;
  options_.limits.max_unfinished_jobs = 2;
  jobs_ = std::make_unique<JobService>(db_, dispatcher_, options_);
  schemas::SubmitMsg submit;
  submit.model = "mlp.onnx";
  submit.model_bytes = ReadFile(std::string(KILN_SOURCE_DIR) + "/examples/models/mlp/model.onnx");
  submit.target = "llvm";
  submit.trials = 8;
  auto refused = [&](const std::string& options, int64_t trials, const std::string& expected) {
    submit.options = options;
    submit.trials = static_cast<uint64_t>(trials);
    try {
      jobs_->SubmitJob(submit);
      ADD_FAILURE() << "taken: " << options << ", " << trials << " trials";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kParse);
      EXPECT_THAT(e.what(), ::testing::HasSubstr(expected)) << e.what();
    }
    EXPECT_TRUE(db_.ListJobs().empty()) << options;
  };
  refused("{}", 101, "trials is 101, past this coordinator's limit of 100 (--max-trials)");
  refused(R"({"population": 4096})", 8, "population is 4096, past");
  refused(R"({"dims": {"batch": 100000}})", 8, "dim batch is 100000, past");
  refused(R"({"buckets": [{"name": "batch", "values": [1, 4096]}]})", 8,
          "bucket value batch is 4096, past");
  // The MLP's 3 kernels at one shape are within 3; at two buckets they are 6.
  refused(R"({"buckets": [{"name": "batch", "values": [1, 8]}]})", 8,
          "kernels to tune is 6, past this coordinator's limit of 3 (--max-tasks)");
  std::string large = submit.model_bytes;
  submit.model_bytes = std::string((1 << 20) + 1, 'x');
  refused("{}", 8, "the model's size in bytes is 1048577, past");
  submit.model_bytes = large;

  submit.options = "{}";
  submit.trials = 8;
  jobs_->SubmitJob(submit);
  jobs_->SubmitJob(submit);
  EXPECT_EQ(db_.ListJobs().size(), 2u);
  // Two jobs queued: a third waits for one of them to finish.
  submit.options = "{}";
  try {
    jobs_->SubmitJob(submit);
    ADD_FAILURE() << "a third queued job was taken";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr(
                              "queued or running jobs of every client with this one from client "
                              "'anonymous' is 3, past this coordinator's limit of 2 (--max-jobs)"));
  }
  EXPECT_EQ(db_.ListJobs().size(), 2u);
}

// Jobs queued or running are bounded per client (its CurveZMQ public key) and over every client:
// a client at its own limit is refused, naming the limit and the client, while another client
// is still served; a refused submission stores nothing, and a finished job frees its place.
TEST_F(JobServiceTest, EachClientIsHeldToItsOwnJobLimit) {
  options_.limits.max_unfinished_jobs_per_client = 2;
  options_.limits.max_unfinished_jobs = 4;
  jobs_ = std::make_unique<JobService>(db_, dispatcher_, options_);
  schemas::SubmitMsg submit;
  submit.model = "mlp.onnx";
  submit.model_bytes = ReadFile(std::string(KILN_SOURCE_DIR) + "/examples/models/mlp/model.onnx");
  submit.target = "llvm";
  submit.trials = 8;
  submit.options = "{}";
  const ClientContext a{"rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7"};
  const ClientContext b{"Yne@$w-vo<fVvi]a<NY6T1ed:M$fCG*[IaLV{hID"};
  const ClientContext anonymous;
  auto submitted = [&](const ClientContext& client) {
    schemas::Message reply = jobs_->Handle(submit, client);
    const auto* taken = std::get_if<schemas::SubmittedMsg>(&reply);
    EXPECT_NE(taken, nullptr) << schemas::MessageName(reply);
    return taken != nullptr ? static_cast<int64_t>(taken->job_id) : int64_t{0};
  };
  auto refused = [&](const ClientContext& client, const std::string& expected) {
    size_t stored = db_.ListJobs().size();
    try {
      jobs_->Handle(submit, client);
      ADD_FAILURE() << "taken from " << client.client;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kParse);
      EXPECT_THAT(e.what(), ::testing::HasSubstr(expected)) << e.what();
    }
    EXPECT_EQ(db_.ListJobs().size(), stored);
  };
  int64_t first = submitted(a);
  submitted(a);
  refused(a,
          "submit refused: queued or running jobs of client 'rq:rM>}U...' with this one is 3, "
          "past this coordinator's limit of 2 (--max-jobs-per-client)");
  // The other client is served while the first is at its limit.
  int64_t other = submitted(b);
  EXPECT_EQ(db_.GetJob(other)->client, b.client);
  EXPECT_EQ(db_.GetJob(first)->client, a.client);
  submitted(anonymous);
  EXPECT_EQ(db_.CountUnfinishedJobs(), 4);
  EXPECT_EQ(db_.CountUnfinishedJobs(a.client), 2);
  EXPECT_EQ(db_.CountUnfinishedJobs(b.client), 1);
  EXPECT_EQ(db_.CountUnfinishedJobs(kAnonymousClient), 1);
  // Within its own limit, b meets the limit of every client together.
  refused(b,
          "queued or running jobs of every client with this one from client 'Yne@$w-v...' is 5, "
          "past this coordinator's limit of 4 (--max-jobs)");
  // A finished job frees its client's place.
  ASSERT_TRUE(jobs_->Cancel(first, "cancelled by the test"));
  submitted(a);
  refused(a, "(--max-jobs-per-client)");
  // Listings show each job's client, a key by its first characters.
  schemas::Message list =
      jobs_->Handle(schemas::QueryMsg{schemas::QueryMsg::Kind::kListJobs, 0}, anonymous);
  std::multiset<std::string> clients;
  for (const schemas::JobEventMsg& job : std::get<schemas::JobListMsg>(list).jobs) {
    clients.insert(job.client);
  }
  EXPECT_EQ(clients, (std::multiset<std::string>{"rq:rM>}U...", "rq:rM>}U...", "rq:rM>}U...",
                                                 "Yne@$w-v...", "anonymous"}));
}

}  // namespace
}  // namespace kiln::coordinator
