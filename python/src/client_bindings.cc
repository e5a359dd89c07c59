// The coordinator client under kiln.Client (python/kiln/client.py): submit, status, cancel,
// the job and worker lists, and a job's event stream, each the request `tune submit`, `tune
// status`, `tune cancel`, `tune workers` and `tune watch` send (cli/commands/service_client.h),
// answered with the object those commands print with --json. Every call waits without the GIL.
#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>
#include <unistd.h>

#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands/service_client.h"
#include "python/src/bindings.h"
#include "python/src/json_value.h"
#include "python/src/model.h"
#include "support/error.h"

namespace nb = nanobind;

namespace kiln::python {
namespace {

// The job's options as JSON text (kiln/client.py builds them under coordinator/job_options.h's
// names); buckets are checked here as the --bucket flags are.
int64_t Submit(const std::string& address, const Model& model, const std::string& target,
               const std::string& device, int64_t trials, const std::string& options_json,
               const std::optional<std::map<std::string, std::vector<int64_t>>>& buckets) {
  model.RequireModel("Client.submit");
  KILN_CHECK(trials > 0, ErrorKind::kParse,
             "trials: must be positive, not " + std::to_string(trials));
  nlohmann::json options = nlohmann::json::parse(options_json);
  if (buckets && !buckets->empty()) {
    options["buckets"] = ir::model::BucketSpecToJson(BucketSpecOf(*buckets));
  }
  schemas::SubmitMsg submit;
  submit.model = model.model_name;
  submit.model_bytes = model.bytes;
  submit.target = target;
  submit.device = device;
  submit.trials = static_cast<uint64_t>(trials);
  submit.options = options.dump();
  nb::gil_scoped_release release;
  return static_cast<int64_t>(
      cli::RequestReply<schemas::SubmittedMsg>(address, submit, "a submit", 60).job_id);
}

// A request answered with JSON text, made without the GIL.
template <typename Reply, typename Format>
nb::object Ask(const std::string& address, const schemas::Message& request, const std::string& what,
               Format format) {
  std::string text;
  {
    nb::gil_scoped_release release;
    text = format(cli::RequestReply<Reply>(address, request, what));
  }
  return JsonToPython(text);
}

uint64_t JobId(int64_t job) {
  KILN_CHECK(job > 0, ErrorKind::kParse, "job: a job id is positive, not " + std::to_string(job));
  return static_cast<uint64_t>(job);
}

// A job's event stream; with `draw` each event is also printed on stderr as `tune watch`
// prints it (the task table, redrawn in place on a terminal).
struct PyJobWatch {
  std::unique_ptr<cli::JobWatch> watch;
  std::unique_ptr<cli::JobEventPrinter> print;
};

}  // namespace

void BindClient(nb::module_& m) {
  m.def("_submit", &Submit, nb::arg("address"), nb::arg("module"), nb::arg("target"),
        nb::arg("device"), nb::arg("trials"), nb::arg("options"), nb::arg("buckets").none());
  m.def(
      "_job_status",
      [](const std::string& address, int64_t job) {
        return Ask<schemas::JobEventMsg>(
            address, schemas::QueryMsg{schemas::QueryMsg::Kind::kJobStatus, JobId(job)},
            "a status query", [](const schemas::JobEventMsg& e) { return cli::JobJson(e); });
      },
      nb::arg("address"), nb::arg("job"));
  m.def(
      "_cancel",
      [](const std::string& address, int64_t job) {
        return Ask<schemas::JobEventMsg>(
            address, schemas::CancelMsg{JobId(job)}, "a cancel",
            [](const schemas::JobEventMsg& e) { return cli::JobJson(e); });
      },
      nb::arg("address"), nb::arg("job"));
  m.def(
      "_list_jobs",
      [](const std::string& address) {
        return Ask<schemas::JobListMsg>(
            address, schemas::QueryMsg{schemas::QueryMsg::Kind::kListJobs, 0}, "a job list query",
            [](const schemas::JobListMsg& l) { return cli::JobListJson(l); });
      },
      nb::arg("address"));
  m.def(
      "_list_workers",
      [](const std::string& address) {
        return Ask<schemas::WorkerListMsg>(
            address, schemas::QueryMsg{schemas::QueryMsg::Kind::kListWorkers, 0}, "a workers query",
            [](const schemas::WorkerListMsg& l) { return cli::WorkerListJson(l); });
      },
      nb::arg("address"));
  m.def("_default_coordinator", &cli::DefaultCoordinator);

  nb::class_<PyJobWatch>(m, "_JobWatch")
      .def(
          "__init__",
          [](PyJobWatch* self, const std::string& address, int64_t job, double keepalive_s,
             bool draw) {
            KILN_CHECK(keepalive_s > 0, ErrorKind::kParse, "keepalive_s: must be positive");
            new (self) PyJobWatch{
                std::make_unique<cli::JobWatch>(address, JobId(job), keepalive_s),
                draw ? std::make_unique<cli::JobEventPrinter>(false, isatty(2) != 0, std::cerr)
                     : nullptr};
          },
          nb::arg("address"), nb::arg("job"), nb::arg("keepalive_s") = 2.0, nb::arg("draw") = false)
      .def(
          "next",
          [](PyJobWatch& self, double wait_s) -> nb::object {
            std::optional<schemas::JobEventMsg> event;
            {
              nb::gil_scoped_release release;
              event = self.watch->Next(wait_s);
              if (event && self.print) (*self.print)(*event);
            }
            return event ? JsonToPython(cli::JobJson(*event)) : nb::none();
          },
          nb::arg("wait_s"),
          "The job's next event (the dict `tune watch --json` prints), or None after wait_s "
          "seconds without one.");
}

}  // namespace kiln::python
