// Offload: the reference executor's call_tir hook sends the first k calls to the device.
#include "validate/offload.h"

#include <chrono>

#include "ir/relax/exec/reference_executor.h"
#include "support/error.h"

namespace kiln::validate {
namespace {

using ir::relax::exec::Value;

Value Pack(std::vector<ir::HostTensor> tensors) {
  if (tensors.size() == 1) return Value::Tensor(std::move(tensors[0]));
  std::vector<Value> fields;
  for (ir::HostTensor& t : tensors) fields.push_back(Value::Tensor(std::move(t)));
  return Value::Tuple(std::move(fields));
}

std::vector<ir::HostTensor> Unpack(const Value& v) {
  if (v.is_tensor()) return {v.tensor()};
  std::vector<ir::HostTensor> out;
  for (const Value& f : v.fields()) {
    std::vector<ir::HostTensor> sub = Unpack(f);
    out.insert(out.end(), sub.begin(), sub.end());
  }
  return out;
}

class OffloadRunner {
 public:
  OffloadRunner(const ir::relax::IRModule& module, const Carve& carve, const TensorStore& store,
                const std::vector<ir::HostTensor>& inputs, TargetDevice& device,
                TargetDevice* reference, const Tolerances& tolerances)
      : module_(module),
        carve_(carve),
        store_(store),
        inputs_(inputs),
        device_(device),
        reference_(reference),
        tolerances_(tolerances) {}

  OffloadRun Run(int64_t offloaded) {
    OffloadRun run;
    run.offloaded = offloaded;
    auto start = std::chrono::steady_clock::now();
    auto disagree = [&](int64_t call, const std::string& what) {
      if (run.first_disagreeing) return;
      run.agrees = false;
      run.first_disagreeing = call;
      run.what = what;
    };
    auto hook = [&](const ir::relax::exec::CallTIRSite& site, const std::vector<Value>& args,
                    const std::vector<int64_t>& tir_vars, const ir::relax::exec::ShapeEnv& env,
                    const std::function<Value()>& run_reference) -> Value {
      KILN_CHECK(site.index < static_cast<int64_t>(carve_.calls.size()) &&
                     carve_.calls[site.index].prim_func == site.prim_func,
                 ErrorKind::kRuntime,
                 "call " + std::to_string(site.index) + " (" + site.prim_func +
                     ") is not the carve's: the carve is of another model or other inputs");
      const CarvedCall& carved = carve_.calls[site.index];
      auto reference = [&] {
        return Unpack(reference_ ? RunOnReference(*reference_, module_, site, args, tir_vars, env)
                                 : run_reference());
      };
      std::vector<ir::HostTensor> outputs;
      if (site.index < run.offloaded) {
        TargetRun r = RunCallOnDevice(device_, module_, site, args, tir_vars, env);
        if (r.status != "ok") {
          // It failed there: the run goes on with the reference's outputs.
          disagree(site.index, carved.task + " (call " + std::to_string(site.index) +
                                   ", on the device): " + r.status + ": " + r.message);
          return Pack(reference());
        }
        outputs = std::move(r.outputs);
      } else if (SameInputsAsCarved(carved, args)) {
        std::vector<ir::HostTensor> carved_outputs;
        for (const TensorRef& r : carved.outputs) carved_outputs.push_back(store_.Get(r));
        return Pack(std::move(carved_outputs));
      } else {
        outputs = reference();
      }
      for (size_t i = 0; i < carved.outputs.size() && i < outputs.size(); ++i) {
        TensorDiff d = DiffWithCarved(store_, carved.outputs[i], outputs[i], tolerances_);
        if (!d.ok) {
          disagree(site.index,
                   carved.task + " (call " + std::to_string(site.index) +
                       (site.index < run.offloaded ? ", on the device" : ", reference") +
                       ") output " + std::to_string(i) + ": " + d.Summary());
        }
      }
      return Pack(std::move(outputs));
    };
    std::vector<Value> args;
    for (const ir::HostTensor& t : inputs_) args.push_back(Value::Tensor(t));
    Value result = ir::relax::exec::ReferenceExecutor(module_).Run(carve_.entry, args, hook);
    std::vector<ir::HostTensor> outputs = Unpack(result);
    for (size_t i = 0; i < outputs.size() && i < carve_.outputs.size(); ++i) {
      TensorDiff d = DiffWithCarved(store_, carve_.outputs[i], outputs[i], tolerances_);
      if (!d.ok) disagree(-1, "the model's output " + std::to_string(i) + ": " + d.Summary());
    }
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return run;
  }

 private:
  bool SameInputsAsCarved(const CarvedCall& carved, const std::vector<Value>& args) const {
    if (args.size() != carved.inputs.size()) return false;
    for (size_t i = 0; i < args.size(); ++i) {
      const CallArg& c = carved.inputs[i];
      if (args[i].is_tensor() != c.is_tensor) return false;
      if (!c.is_tensor) {
        if (args[i].prim().int_value != c.int_value ||
            args[i].prim().float_value != c.float_value) {
          return false;
        }
        continue;
      }
      if (!c.tensor.stored || TensorStore::Digest(args[i].tensor()) != c.tensor.digest) {
        return false;
      }
    }
    for (const TensorRef& r : carved.outputs) {
      if (!r.stored) return false;
    }
    return true;
  }

  const ir::relax::IRModule& module_;
  const Carve& carve_;
  const TensorStore& store_;
  const std::vector<ir::HostTensor>& inputs_;
  TargetDevice& device_;
  TargetDevice* reference_;
  const Tolerances& tolerances_;
};

}  // namespace

OffloadReport Offload(const ir::relax::IRModule& module, const Carve& carve,
                      const TensorStore& store, const std::vector<ir::HostTensor>& inputs,
                      TargetDevice& device, const Tolerances& tolerances, TargetDevice* reference) {
  OffloadReport report;
  report.calls = static_cast<int64_t>(carve.calls.size());
  auto start = std::chrono::steady_clock::now();
  OffloadRunner runner(module, carve, store, inputs, device, reference, tolerances);
  // The bound from a disagreeing run: offloading up to its first disagreeing call disagrees.
  auto bound = [](const OffloadRun& r) {
    int64_t hi = r.offloaded;
    if (r.first_disagreeing && *r.first_disagreeing >= 0 && *r.first_disagreeing < r.offloaded) {
      hi = *r.first_disagreeing + 1;
    }
    return hi;
  };
  report.runs.push_back(runner.Run(report.calls));
  if (!report.runs.back().agrees && report.calls == 0) {
    report.ok = false;  // no kernel to blame: the model's outputs differ by themselves
  } else if (!report.runs.back().agrees) {
    int64_t lo = 0, hi = bound(report.runs.back());
    while (hi - lo > 1) {
      int64_t mid = lo + (hi - lo) / 2;
      report.runs.push_back(runner.Run(mid));
      if (report.runs.back().agrees) {
        lo = mid;
      } else {
        hi = std::min(mid, bound(report.runs.back()));
      }
    }
    report.ok = false;
    report.first_bad_call = hi - 1;
    const CarvedCall& bad = carve.calls.at(hi - 1);
    report.first_bad_task = bad.task;
    report.first_bad_prim_func = bad.prim_func;
  }
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace kiln::validate
