// Validation reports as JSON and text.
#include "validate/report.h"

#include <cmath>
#include <set>
#include <sstream>

namespace kiln::validate {
namespace {

using json = nlohmann::json;

// JSON has no NaN or infinity: those become null.
json Number(double v) { return std::isfinite(v) ? json(v) : json(); }

// The call ran and its outputs were compared (its diff means something).
bool Compared(const KernelFinding& f) {
  return f.status == "ok" || f.status == "mismatch" || f.status == "non_finite";
}

json FindingToJson(const KernelFinding& f) {
  json j = {{"call", f.call},
            {"task", f.task},
            {"kernel", f.prim_func},
            {"function", f.function},
            {"binding", f.binding},
            {"bound", f.bound},
            {"status", f.status},
            {"schedule", f.schedule},
            {"device_seconds", f.device_seconds},
            {"reference_seconds", f.reference_seconds}};
  if (!f.message.empty()) j["message"] = f.message;
  if (Compared(f)) {
    j["output"] = f.worst_output;
    j["max_abs_error"] = Number(f.diff.max_abs_error);
    j["max_rel_error"] = Number(f.diff.max_rel_error);
    j["nmse"] = Number(f.diff.nmse);
    j["mismatches"] = f.diff.mismatches;
    j["elements"] = f.diff.elements;
    j["rtol"] = f.diff.rtol;
    j["atol"] = f.diff.atol;
    if (!f.diff.first_bad_index.empty()) j["first_bad_index"] = f.diff.first_bad_index;
  }
  return j;
}

int64_t DistinctKernels(const Carve& carve) {
  std::set<std::string> names;
  for (const CarvedCall& c : carve.calls) names.insert(c.prim_func);
  return static_cast<int64_t>(names.size());
}

json CarveToJson(const ValidationReport& r) {
  return {{"dir", r.carve_dir},
          {"reused", r.carve_reused},
          {"first_non_finite_call",
           r.carve.first_non_finite ? json(*r.carve.first_non_finite) : json()},
          {"stored_tensors", r.carve.stored_tensors},
          {"stored_bytes", r.carve.stored_bytes},
          {"referenced_bytes", r.carve.referenced_bytes},
          {"reference_seconds", r.carve.seconds}};
}

json OffloadToJson(const OffloadReport& o) {
  json runs = json::array();
  for (const OffloadRun& r : o.runs) {
    runs.push_back(
        {{"offloaded", r.offloaded},
         {"agrees", r.agrees},
         {"first_disagreeing_call", r.first_disagreeing ? json(*r.first_disagreeing) : json()},
         {"what", r.what},
         {"seconds", r.seconds}});
  }
  return {{"ok", o.ok},
          {"calls", o.calls},
          {"first_bad_call", o.first_bad_call ? json(*o.first_bad_call) : json()},
          {"first_bad_task", o.first_bad_call ? json(o.first_bad_task) : json()},
          {"first_bad_kernel", o.first_bad_call ? json(o.first_bad_prim_func) : json()},
          {"runs", o.runs.size()},
          {"steps", runs},
          {"seconds", o.seconds}};
}

}  // namespace

json ReportToJson(const ValidationReport& report) {
  json j = {{"ok", report.ok()},
            {"model", report.model},
            {"entry", report.entry},
            {"device", report.device},
            {"reference", report.reference},
            {"kernels", DistinctKernels(report.carve)},
            {"calls", report.carve.calls.size()},
            {"carve", CarveToJson(report)},
            {"seconds", report.seconds}};
  if (report.replay) {
    json calls = json::array();
    for (const KernelFinding& f : report.replay->calls) calls.push_back(FindingToJson(f));
    j["replay"] = {{"failed", report.replay->failed},
                   {"kernels_run", report.replay->kernels_run},
                   {"seconds", report.replay->seconds},
                   {"calls", calls}};
  }
  if (report.offload) j["offload"] = OffloadToJson(*report.offload);
  return j;
}

json SummaryJson(const ValidationReport& report) {
  json failed = json::array();
  if (report.replay) {
    std::set<std::string> seen;  // a kernel at one shape once
    for (const KernelFinding& f : report.replay->calls) {
      if (f.ok()) continue;
      std::string key = f.prim_func + json(f.bound).dump();
      if (!seen.insert(key).second) continue;
      failed.push_back({{"task", f.task},
                        {"kernel", f.prim_func},
                        {"call", f.call},
                        {"onnx_nodes", json::array()},
                        {"bound", f.bound},
                        {"status", f.status},
                        {"max_abs_error", Compared(f) ? Number(f.diff.max_abs_error) : json()},
                        {"nmse", Compared(f) ? Number(f.diff.nmse) : json()}});
    }
  }
  json offload;
  if (report.offload) {
    const OffloadReport& o = *report.offload;
    offload = {{"ok", o.ok},
               {"first_bad_task", o.first_bad_call ? json(o.first_bad_task) : json()},
               {"first_bad_call", o.first_bad_call ? json(*o.first_bad_call) : json()},
               {"runs", o.runs.size()}};
  }
  return {{"ok", report.ok()},
          {"model", report.model},
          {"device", report.device},
          {"kernels", DistinctKernels(report.carve)},
          {"calls", report.carve.calls.size()},
          {"failed", failed},
          {"offload", offload},
          {"carve",
           {{"stored_bytes", report.carve.stored_bytes},
            {"stored_tensors", report.carve.stored_tensors},
            {"reused", report.carve_reused}}},
          {"seconds", report.seconds}};
}

std::string SummaryText(const ValidationReport& report) {
  std::ostringstream os;
  os << report.model << " on " << report.device << " against the " << report.reference << ": "
     << report.carve.calls.size() << " kernel calls of " << DistinctKernels(report.carve)
     << " kernels\n";
  os << "carve: " << report.carve_dir << (report.carve_reused ? " (reused)" : "") << ", "
     << report.carve.stored_tensors << " tensors, " << report.carve.stored_bytes << " bytes";
  if (report.carve.first_non_finite) {
    os << "; the reference's first NaN or Inf: call " << *report.carve.first_non_finite << " ("
       << report.carve.calls[*report.carve.first_non_finite].task << ")";
  }
  os << "\n";
  if (report.replay) {
    os << "replay: " << report.replay->calls.size() - report.replay->failed << " of "
       << report.replay->calls.size() << " calls agree (" << report.replay->kernels_run
       << " run on the device)\n";
    for (const KernelFinding& f : report.replay->calls) {
      if (f.ok()) continue;
      os << "  call " << f.call << " " << f.task;
      if (f.prim_func != f.task) os << " (" << f.prim_func << ")";
      os << " [" << f.binding << "]: " << f.status << ": " << f.message << "\n";
    }
  }
  if (report.offload) {
    const OffloadReport& o = *report.offload;
    os << "offload: ";
    if (o.ok) {
      os << "the model agrees with every call on the device";
    } else if (o.first_bad_call) {
      os << "the first call whose offload makes the model disagree: call " << *o.first_bad_call
         << " " << o.first_bad_task;
      for (const OffloadRun& r : o.runs) {
        if (!r.agrees && r.first_disagreeing) {
          os << "\n  with " << r.offloaded << " calls offloaded: " << r.what;
          break;
        }
      }
    } else {
      os << "the model's outputs disagree";
    }
    os << " (" << o.runs.size() << " whole-model runs)\n";
  }
  os << (report.ok() ? "ok" : "FAILED") << " in " << report.seconds << " s\n";
  return os.str();
}

}  // namespace kiln::validate
