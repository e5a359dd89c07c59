// Dispatcher: the coordinator's AsyncMeasurer. The search submits candidates as to any
// measurer; the dispatcher keeps a registry of workers, hands batches to idle workers that
// match the target (and device key, when one is asked for), tracks every candidate in flight
// with a deadline, gives a lost worker's candidates to others, and answers each submitted id
// exactly once: a late answer from a worker the candidate was taken from is dropped. It owns
// no socket and no clock: the server loop (or a test) feeds it messages and the time, and
// sends the batches it returns, so every decision here is tested without a network.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "schemas/convert.h"
#include "schemas/messages.h"
#include "search/measure/async_measurer.h"

namespace kiln::coordinator {

struct DispatcherOptions {
  schemas::MeasureSettings settings;  // sent with every batch; settings.target picks workers
  std::string device;                 // a device key the workers must have; empty: any
  size_t max_batch = 8;               // candidates per batch at most
  double heartbeat_timeout_s = 10;    // silence after which a worker is lost
  double candidate_deadline_s = 300;  // per candidate in a batch, beyond which it is reassigned
  // Dispatches of one candidate before it is given up. Those lost to a message lost on the way,
  // or to every worker being cut off at once, do not count.
  int max_attempts = 3;
  uint32_t heartbeat_interval_ms = 1000;  // told to workers at registration
  // The largest message a worker decodes (schemas/convert.h): a batch is cut to fit, and a
  // candidate that alone would not fit (a sparse task's reference of inputs and expected
  // outputs past it) is given up at once, with that reason, instead of sent and dropped.
  size_t max_message_bytes = schemas::DecodeLimits{}.max_bytes;
};

// Called once per results message, with the requests answered and their responses (same
// order), before they can be collected: the coordinator stores them in one transaction.
using BatchSink = std::function<void(const schemas::RegisterMsg& worker,
                                     const std::vector<search::MeasureRequest>& requests,
                                     const std::vector<search::MeasureResponse>& responses)>;

// Thrown by Collect after Interrupt(): unwinds the tuning loop of a cancelled job.
struct Interrupted {};

class Dispatcher : public search::AsyncMeasurer {
 public:
  explicit Dispatcher(DispatcherOptions options, BatchSink sink = {});
  // Replaces the sink (each job stores its results with its own).
  void SetSink(BatchSink sink);
  // Makes the current or next Collect throw Interrupted; DropAll clears it.
  void Interrupt();

  // search::AsyncMeasurer
  void Submit(std::vector<search::MeasureRequest> requests) override;
  std::vector<search::MeasureResponse> Collect(double timeout_s) override;
  size_t Pending() const override;

  // From the server loop. `identity` is the worker's ZeroMQ routing id; `now` seconds on any
  // monotonic clock.
  schemas::RegisteredMsg OnRegister(const std::string& identity, const schemas::RegisterMsg& msg,
                                    double now);
  // False when the worker is not registered (it should register again). A worker that says
  // it holds no batch while candidates sent to it more than heartbeat_timeout_s ago are
  // unanswered lost a message (the batch, or its results): they go back in the queue, and that
  // dispatch does not count towards max_attempts.
  bool OnHeartbeat(const std::string& identity, const schemas::HeartbeatMsg& msg, double now);
  bool OnResults(const std::string& identity, const schemas::ResultsMsg& msg, double now);
  // Declares lost the workers silent too long and requeues candidates past their deadline,
  // then assigns queued candidates to idle matching workers heard from within half the
  // heartbeat timeout: the batches to send, by identity.
  std::vector<std::pair<std::string, schemas::MeasureBatchMsg>> TakeBatches(double now);

  // What the next batches measure on and with (a job's target, device key and settings).
  void Configure(const schemas::MeasureSettings& settings, const std::string& device);
  // Forgets every submitted candidate without answering it (the job was cancelled); late
  // answers from workers are dropped.
  void DropAll();

  std::vector<schemas::WorkerInfoMsg> Workers(double now) const;
  // The registrations of the live workers that can run `target` (with device key `device`,
  // unless empty): what a job's design space must fit.
  std::vector<schemas::RegisterMsg> MatchingWorkers(const std::string& target,
                                                    const std::string& device) const;
  // Candidates waiting for a worker / sent and not answered.
  size_t Queued() const;
  size_t InFlight() const;
  // Counters for the metrics endpoint.
  int64_t reassigned() const;
  int64_t duplicates_dropped() const;

 private:
  struct Entry {
    search::MeasureRequest request;
    schemas::CandidateMsg candidate;
    std::string worker;  // identity it is assigned to; empty when queued
    uint64_t batch = 0;  // the batch it went out in: only that batch's answer counts
    double sent = 0;     // when it went out
    double deadline = 0;
    int attempts = 0;
    std::string last_machinery_error;
  };
  struct Worker {
    schemas::RegisterMsg info;
    double last_seen = 0;
    std::set<uint64_t> in_flight;
    std::set<std::string> workloads_sent;
    bool lost = false;
  };
  bool Matches(const Worker& worker) const;
  void Requeue(uint64_t id, const std::string& why);  // with mutex_ held
  void Answer(std::vector<search::MeasureResponse> responses);

  DispatcherOptions options_;
  std::mutex sink_mutex_;  // held while the sink runs, so SetSink waits for it
  BatchSink sink_;
  bool interrupted_ = false;
  mutable std::mutex mutex_;
  std::condition_variable answered_;
  std::map<uint64_t, Entry> entries_;  // submitted, not answered
  std::deque<uint64_t> queue_;
  std::map<std::string, Worker> workers_;
  std::map<std::string, schemas::WorkloadText> workload_text_;
  std::vector<search::MeasureResponse> done_;
  // Batch ids start at a random point, so that a worker's answer to a batch of a coordinator
  // that was restarted is not taken for one of this coordinator's batches.
  uint64_t next_batch_;
  int64_t reassigned_ = 0;
  int64_t duplicates_dropped_ = 0;
};

// The wire form of a request: the scheduled function as TVMScript and the trace as JSON.
schemas::CandidateMsg ToCandidateMsg(const search::MeasureRequest& request,
                                     const std::string& workload_hash);

}  // namespace kiln::coordinator
