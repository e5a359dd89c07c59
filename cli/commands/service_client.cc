// `tune`'s coordinator client: request/reply with a deadline, and job formatting.
#include "cli/commands/service_client.h"

#include <chrono>
#include <cstdlib>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>
#include <zmq.hpp>

#include "schemas/convert.h"
#include "schemas/curve_keys.h"
#include "support/error.h"

namespace kiln::cli {

std::string DefaultCoordinator() {
  const char* env = std::getenv("KILN_COORDINATOR");
  return env != nullptr && *env != '\0' ? env : "tcp://127.0.0.1:7070";
}

schemas::Message Request(const std::string& address, const schemas::Message& request,
                         double timeout_s) {
  if (timeout_s < 0) {
    timeout_s = 10;
    if (const char* env = std::getenv("KILN_TIMEOUT_S"); env != nullptr && *env != '\0') {
      double value = std::strtod(env, nullptr);
      if (value > 0 && value < 3600) timeout_s = value;
    }
  }
  static zmq::context_t context(1);
  zmq::socket_t socket(context, zmq::socket_type::dealer);
  socket.set(zmq::sockopt::linger, 0);
  // With KILN_KEYS=DIR the client speaks CurveZMQ: DIR/client.key, DIR/coordinator.pub.
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
  std::string bytes = schemas::Encode(request);
  socket.send(zmq::buffer(bytes), zmq::send_flags::none);
  zmq::pollitem_t items[] = {{socket.handle(), 0, ZMQ_POLLIN, 0}};
  zmq::poll(items, 1, std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000)));
  KILN_CHECK(items[0].revents & ZMQ_POLLIN, ErrorKind::kIO,
             address + ": no answer from a coordinator within " +
                 std::to_string(timeout_s).substr(0, 4) +
                 " s (is kiln-coordinator running there?)");
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

std::string JobJson(const schemas::JobEventMsg& job) {
  nlohmann::json tasks = nlohmann::json::array();
  for (const auto& t : job.tasks) {
    tasks.push_back({{"index", t.index},
                     {"name", t.name},
                     {"trials_done", t.trials_done},
                     {"trials_total", t.trials_total},
                     {"best_latency_s", t.best_seconds > 0 ? nlohmann::json(t.best_seconds)
                                                           : nlohmann::json(nullptr)}});
  }
  nlohmann::json out = {{"job", job.job_id},
                        {"state", job.state},
                        {"trials_done", job.trials_done},
                        {"trials_total", job.trials_total},
                        {"tasks", tasks},
                        {"model", job.model},
                        {"target", job.target},
                        {"message", job.message}};
  return out.dump();
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

#include <iostream>
#include <thread>

namespace kiln::cli {

schemas::JobEventMsg WatchJob(const std::string& address, uint64_t job_id, bool json,
                              double interval_s) {
  std::string last;
  while (true) {
    schemas::Message reply =
        Request(address, schemas::QueryMsg{schemas::QueryMsg::Kind::kWatch, job_id});
    const auto* job = std::get_if<schemas::JobEventMsg>(&reply);
    KILN_CHECK(job != nullptr, ErrorKind::kIO,
               address + ": answered a status query with " + schemas::MessageName(reply));
    std::string text = json ? JobJson(*job) : JobTable(*job);
    if (text != last) {
      std::cout << text << (json ? "\n" : "") << std::flush;
      last = text;
    }
    if (job->state == "done" || job->state == "failed" || job->state == "cancelled") return *job;
    std::this_thread::sleep_for(std::chrono::duration<double>(interval_s));
  }
}

}  // namespace kiln::cli
