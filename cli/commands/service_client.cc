// `tune`'s coordinator client: request/reply with a deadline, and job formatting.
#include "cli/commands/service_client.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <zmq.hpp>

#include "cli/commands/task_table.h"
#include "schemas/convert.h"
#include "schemas/curve_keys.h"
#include "schemas/poll.h"
#include "support/error.h"

namespace kiln::cli {

std::string DefaultCoordinator() {
  const char* env = std::getenv("KILN_COORDINATOR");
  return env != nullptr && *env != '\0' ? env : "tcp://127.0.0.1:7070";
}

namespace {

double TimeoutFromEnv(double timeout_s) {
  if (timeout_s >= 0) return timeout_s;
  if (const char* env = std::getenv("KILN_TIMEOUT_S"); env != nullptr && *env != '\0') {
    double value = std::strtod(env, nullptr);
    if (value > 0 && value < 3600) return value;
  }
  return 10;
}

zmq::context_t& Context() {
  static zmq::context_t context(1);
  return context;
}

// A DEALER connected to `address`; with KILN_KEYS=DIR it speaks CurveZMQ (DIR/client.key,
// DIR/coordinator.pub).
zmq::socket_t Connect(const std::string& address) {
  zmq::socket_t socket(Context(), zmq::socket_type::dealer);
  socket.set(zmq::sockopt::linger, 0);
  if (const char* keys = std::getenv("KILN_KEYS"); keys != nullptr && *keys != '\0') {
    schemas::CurveKeyPair own = schemas::ReadCurveKeyFile(std::string(keys) + "/client.key");
    socket.set(zmq::sockopt::curve_serverkey,
               schemas::ReadCurveKeyFile(std::string(keys) + "/coordinator.pub").public_key);
    socket.set(zmq::sockopt::curve_publickey, own.public_key);
    socket.set(zmq::sockopt::curve_secretkey, own.secret_key);
  }
  try {
    socket.connect(address);
  } catch (const zmq::error_t& e) {
    throw Error(ErrorKind::kParse, address + ": not a coordinator address: " + e.what());
  }
  return socket;
}

// The next message within `timeout_s`, decoded; none when nothing came. The coordinator's
// ErrorMsg is rethrown with its kind.
std::optional<schemas::Message> Receive(zmq::socket_t& socket, const std::string& address,
                                        double timeout_s) {
  zmq::pollitem_t items[] = {{socket.handle(), 0, ZMQ_POLLIN, 0}};
  schemas::PollIgnoringSignals(items, 1,
                               std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000)));
  if (!(items[0].revents & ZMQ_POLLIN)) return std::nullopt;
  zmq::message_t frame;
  KILN_CHECK(socket.recv(frame, zmq::recv_flags::dontwait).has_value(), ErrorKind::kIO,
             address + ": the answer could not be read");
  schemas::Message reply = schemas::Decode(frame.data(), frame.size());
  if (const auto* error = std::get_if<schemas::ErrorMsg>(&reply)) {
    ErrorKind kind = ErrorKind::kRuntime;
    for (ErrorKind k :
         {ErrorKind::kParse, ErrorKind::kType, ErrorKind::kInvalidIR, ErrorKind::kSchedule,
          ErrorKind::kRuntime, ErrorKind::kUnsupported, ErrorKind::kIO, ErrorKind::kInternal}) {
      if (ErrorKindName(k) == error->kind) kind = k;
    }
    throw Error(kind, "coordinator " + address + ": " + error->message);
  }
  return reply;
}

Error NoAnswer(const std::string& address, double timeout_s) {
  return Error(ErrorKind::kIO, address + ": no answer from a coordinator within " +
                                   std::to_string(timeout_s).substr(0, 4) +
                                   " s (is kiln-coordinator running there?)");
}

}  // namespace

schemas::Message Request(const std::string& address, const schemas::Message& request,
                         double timeout_s) {
  timeout_s = TimeoutFromEnv(timeout_s);
  zmq::socket_t socket = Connect(address);
  std::string bytes = schemas::Encode(request);
  socket.send(zmq::buffer(bytes), zmq::send_flags::none);
  std::optional<schemas::Message> reply = Receive(socket, address, timeout_s);
  if (!reply) throw NoAnswer(address, timeout_s);
  return *reply;
}

std::string JobJson(const schemas::JobEventMsg& job) {
  nlohmann::json tasks = nlohmann::json::array();
  for (const auto& t : job.tasks) {
    tasks.push_back({{"index", t.index},
                     {"name", t.name},
                     {"trials_done", t.trials_done},
                     {"trials_total", t.trials_total},
                     {"best_latency_s", t.best_seconds > 0 ? nlohmann::json(t.best_seconds)
                                                           : nlohmann::json(nullptr)},
                     {"weight", t.weight},
                     {"flop", t.flop},
                     {"untuned_latency_s", t.untuned_seconds > 0 ? nlohmann::json(t.untuned_seconds)
                                                                 : nlohmann::json(nullptr)},
                     {"done", t.done}});
  }
  nlohmann::json out = {{"job", job.job_id},
                        {"state", job.state},
                        {"trials_done", job.trials_done},
                        {"trials_total", job.trials_total},
                        {"tasks", tasks},
                        {"model", job.model},
                        {"target", job.target},
                        {"message", job.message},
                        {"elapsed_s", job.elapsed_s},
                        {"client", job.client}};
  return out.dump();
}

std::string JobListJson(const schemas::JobListMsg& list) {
  nlohmann::json jobs = nlohmann::json::array();
  for (const auto& job : list.jobs) jobs.push_back(nlohmann::json::parse(JobJson(job)));
  return nlohmann::json{{"jobs", jobs}}.dump();
}

std::string WorkerListJson(const schemas::WorkerListMsg& list) {
  nlohmann::json workers = nlohmann::json::array();
  for (const auto& w : list.workers) {
    workers.push_back({{"id", w.worker_id},
                       {"device", w.device_key},
                       {"target", w.target},
                       {"state", w.state},
                       {"in_flight", w.in_flight},
                       {"last_seen_s", w.last_seen_s},
                       {"hardware", w.hardware}});
  }
  return nlohmann::json{{"workers", workers}}.dump();
}

std::string JobTable(const schemas::JobEventMsg& job) {
  std::ostringstream out;
  out << "job " << job.job_id << " " << job.state << ": " << job.model << " on " << job.target
      << ", " << job.trials_done << "/" << job.trials_total << " trials";
  if (!job.message.empty()) out << " (" << job.message << ")";
  out << "\n";
  out << std::left << std::setw(4) << "#" << std::setw(40) << "task" << std::setw(12) << "trials"
      << "best_us\n";
  for (const auto& t : job.tasks) {
    std::ostringstream trials;
    trials << t.trials_done << "/" << t.trials_total;
    std::ostringstream best;
    if (t.best_seconds > 0) {
      best << std::fixed << std::setprecision(2) << t.best_seconds * 1e6;
    } else {
      best << "-";
    }
    out << std::left << std::setw(4) << t.index << std::setw(40) << t.name << std::setw(12)
        << trials.str() << best.str() << "\n";
  }
  return out.str();
}

}  // namespace kiln::cli

namespace kiln::cli {

bool IsFinalState(const std::string& state) {
  return state == "done" || state == "failed" || state == "cancelled";
}

struct JobWatch::State {
  std::string address;
  uint64_t job_id;
  double keepalive_s;
  double timeout_s;
  zmq::socket_t socket;
  std::chrono::steady_clock::time_point last_heard;
  bool asked = false;  // a subscription is waiting for its answer

  void Subscribe() {
    std::string bytes = schemas::Encode(schemas::QueryMsg{schemas::QueryMsg::Kind::kWatch, job_id});
    socket.send(zmq::buffer(bytes), zmq::send_flags::dontwait);
    asked = true;
  }
};

JobWatch::JobWatch(const std::string& address, uint64_t job_id, double keepalive_s)
    : state_(new State{.address = address,
                       .job_id = job_id,
                       .keepalive_s = keepalive_s,
                       .timeout_s = TimeoutFromEnv(-1),
                       .socket = Connect(address),
                       .last_heard = std::chrono::steady_clock::now()}) {
  state_->Subscribe();
}

JobWatch::~JobWatch() = default;

std::optional<schemas::JobEventMsg> JobWatch::Next(double wait_s) {
  State& s = *state_;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(wait_s);
  while (true) {
    auto now = std::chrono::steady_clock::now();
    double left = std::chrono::duration<double>(deadline - now).count();
    // Polled in short slices so that the keepalive and the deadline are kept.
    std::optional<schemas::Message> message =
        Receive(s.socket, s.address, std::clamp(left, 0.0, 0.2));
    now = std::chrono::steady_clock::now();
    if (message) {
      const auto* event = std::get_if<schemas::JobEventMsg>(&*message);
      KILN_CHECK(event != nullptr, ErrorKind::kIO,
                 s.address + ": answered a watch with " + schemas::MessageName(*message));
      if (event->job_id == s.job_id) {
        s.last_heard = now;
        s.asked = false;
        return *event;
      }
    } else {
      double quiet = std::chrono::duration<double>(now - s.last_heard).count();
      if (s.asked && quiet > s.timeout_s) throw NoAnswer(s.address, s.timeout_s);
      if (!s.asked && quiet > s.keepalive_s) s.Subscribe();
    }
    if (now >= deadline) return std::nullopt;
  }
}

JobEventPrinter::JobEventPrinter(bool json, bool tty, std::ostream& out)
    : json_(json), out_(out), printer_(1, tty, out) {}

void JobEventPrinter::operator()(const schemas::JobEventMsg& event) {
  bool final = IsFinalState(event.state);
  if (json_) {
    std::string line = JobJson(event);
    if (line != last_json_ || final) out_ << line << std::endl;
    last_json_ = line;
    return;
  }
  printer_(ReportOfEvent(event));
  if (final) {
    for (const std::string& line : TaskTable(ReportOfEvent(event))) out_ << line << "\n";
    out_ << "job " << event.job_id << " " << event.state
         << (event.message.empty() ? "" : ": " + event.message) << std::endl;
  }
}

schemas::JobEventMsg WatchJob(const std::string& address, uint64_t job_id,
                              const WatchOptions& options) {
  JobWatch watch(address, job_id, options.keepalive_s);
  JobEventPrinter print(options.json, options.tty.value_or(isatty(1) != 0),
                        options.out != nullptr ? *options.out : std::cout);
  while (true) {
    std::optional<schemas::JobEventMsg> event = watch.Next(1);
    if (!event) continue;
    print(*event);
    if (IsFinalState(event->state)) return *event;
  }
}

}  // namespace kiln::cli
