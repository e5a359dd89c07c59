// Carving: the reference executor's call_tir hook records each call; the store writes each
// tensor once; carve.json is the index.
#include "validate/carve.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "ir/relax/exec/reference_executor.h"
#include "ir/relax/transform/annotate_op_pattern.h"
#include "ir/relax/transform/extract_tasks.h"
#include "ir/structural.h"
#include "runtime/file_util.h"
#include "runtime/measure_result.h"
#include "runtime/sandbox_protocol.h"
#include "support/error.h"
#include "support/stable_hash.h"
#include "validate/target_device.h"
#include "validate/tensor_diff.h"

namespace kiln::validate {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using ir::relax::exec::Value;

constexpr int kCarveFormatVersion = 1;

uint64_t WorkloadHash(const ir::PrimFunc& f) {
  if (f->attrs.count(ir::relax::transform::kOpPatternAttr) == 0) return ir::StructuralHash(f);
  ir::Annotations attrs = f->attrs;
  attrs.erase(ir::relax::transform::kOpPatternAttr);
  return ir::StructuralHash(
      ir::MakePrimFunc(f->name, f->params, f->buffer_map, f->body, std::move(attrs)));
}

json RefToJson(const TensorRef& r) {
  json j = {{"digest", r.digest}, {"dtype", r.dtype.ToString()}, {"shape", r.shape}};
  if (!r.stored) j["stored"] = false;
  return j;
}

TensorRef RefFromJson(const json& j, const std::string& where) {
  TensorRef r;
  try {
    r.digest = j.at("digest").get<std::string>();
    std::optional<ir::DataType> dtype = ir::DataType::Parse(j.at("dtype").get<std::string>());
    KILN_CHECK(dtype.has_value(), ErrorKind::kParse, "unknown dtype");
    r.dtype = *dtype;
    r.shape = j.at("shape").get<std::vector<int64_t>>();
    r.stored = j.value("stored", true);
  } catch (const json::exception& e) {
    throw Error(ErrorKind::kParse, where + ": " + e.what());
  } catch (const Error& e) {
    throw Error(ErrorKind::kParse, where + ": " + e.what());
  }
  KILN_CHECK(
      r.digest.size() == 16 && r.digest.find_first_not_of("0123456789abcdef") == std::string::npos,
      ErrorKind::kParse, where + ".digest: 16 hex digits expected");
  for (int64_t d : r.shape) {
    KILN_CHECK(d >= 0, ErrorKind::kParse, where + ".shape: a negative dim");
  }
  return r;
}

std::vector<ir::HostTensor> Flatten(const Value& v) {
  if (v.is_tensor()) return {v.tensor()};
  std::vector<ir::HostTensor> out;
  if (v.is_tuple()) {
    for (const Value& f : v.fields()) {
      std::vector<ir::HostTensor> sub = Flatten(f);
      out.insert(out.end(), sub.begin(), sub.end());
    }
  }
  return out;
}

// The elements of `tensor` at flat `indices`, as a 1-D tensor.
ir::HostTensor Gather(const ir::HostTensor& tensor, const std::vector<int64_t>& indices) {
  ir::HostTensor out(tensor.dtype(), {static_cast<int64_t>(indices.size())});
  for (size_t i = 0; i < indices.size(); ++i) {
    out.SetDouble(static_cast<int64_t>(i), tensor.GetDouble(indices[i]));
  }
  return out;
}

}  // namespace

Value RunOnReference(TargetDevice& reference, const ir::relax::IRModule& module,
                     const ir::relax::exec::CallTIRSite& site, const std::vector<Value>& args,
                     const std::vector<int64_t>& tir_vars, const ir::relax::exec::ShapeEnv& env) {
  TargetRun run = RunCallOnDevice(reference, module, site, args, tir_vars, env);
  KILN_CHECK(run.status == "ok", ErrorKind::kRuntime,
             "call " + std::to_string(site.index) + " (" + site.prim_func +
                 ") failed on the reference device: " + run.status + ": " + run.message);
  if (run.outputs.size() == 1) return Value::Tensor(std::move(run.outputs[0]));
  std::vector<Value> fields;
  for (ir::HostTensor& t : run.outputs) fields.push_back(Value::Tensor(std::move(t)));
  return Value::Tuple(std::move(fields));
}

TensorStore::TensorStore(std::string dir, uint64_t cap_bytes)
    : dir_(std::move(dir)), cap_bytes_(cap_bytes) {
  std::error_code ec;
  fs::create_directories(fs::path(dir_) / "tensors", ec);
  KILN_CHECK(!ec, ErrorKind::kIO, "cannot create " + dir_ + "/tensors: " + ec.message());
}

std::string TensorStore::Digest(const ir::HostTensor& tensor) {
  StableHasher h;
  h.String(tensor.dtype().ToString());
  h.Int(static_cast<int64_t>(tensor.shape().size()));
  for (int64_t d : tensor.shape()) h.Int(d);
  const auto* bytes = static_cast<const uint8_t*>(tensor.data());
  for (size_t i = 0; i < tensor.nbytes(); ++i) h.Byte(bytes[i]);
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h.value()));
  return hex;
}

std::string TensorStore::PathOf(const TensorRef& ref) const {
  return (fs::path(dir_) / "tensors" / (ref.digest + ".bin")).string();
}

std::string TensorStore::SamplePathOf(const TensorRef& ref) const {
  return (fs::path(dir_) / "tensors" / (ref.digest + ".sample.bin")).string();
}

std::vector<int64_t> TensorStore::SampleIndices(const TensorRef& ref) {
  int64_t numel = 1;
  for (int64_t d : ref.shape) numel *= d;
  std::vector<int64_t> indices;
  if (numel <= kCarveSampleElements) {
    for (int64_t i = 0; i < numel; ++i) indices.push_back(i);
    return indices;
  }
  std::mt19937_64 rng(std::stoull(ref.digest, nullptr, 16));
  std::uniform_int_distribution<int64_t> pick(0, numel - 1);
  std::set<int64_t> chosen;
  while (static_cast<int64_t>(chosen.size()) < kCarveSampleElements) chosen.insert(pick(rng));
  return {chosen.begin(), chosen.end()};
}

ir::HostTensor TensorStore::GetSample(const TensorRef& ref) const {
  std::string path = SamplePathOf(ref);
  std::error_code ec;
  KILN_CHECK(fs::exists(path, ec), ErrorKind::kIO, path + ": the carve's sample file is missing");
  return runtime::ReadTensorFile(path, ref.dtype,
                                 {static_cast<int64_t>(SampleIndices(ref).size())});
}

TensorRef TensorStore::Put(const ir::HostTensor& tensor) {
  TensorRef ref{Digest(tensor), tensor.dtype(), tensor.shape(), tensor.nbytes() <= cap_bytes_};
  std::string path = ref.stored ? PathOf(ref) : SamplePathOf(ref);
  std::error_code ec;
  if (fs::exists(path, ec)) return ref;
  if (ref.stored) {
    runtime::WriteTensorFile(tensor, path);
  } else {
    runtime::WriteTensorFile(Gather(tensor, SampleIndices(ref)), path);
  }
  return ref;
}

TensorDiff DiffWithCarved(const TensorStore& store, const TensorRef& expected,
                          const ir::HostTensor& actual, const Tolerances& tolerances) {
  if (expected.stored) {
    ir::HostTensor e = store.Get(expected);
    return Diff(e, actual, tolerances.For(e));
  }
  ir::HostTensor e = store.GetSample(expected);
  if (actual.shape() != expected.shape || actual.dtype() != expected.dtype) {
    return Diff(ir::HostTensor(expected.dtype, expected.shape), actual, tolerances.For(e));
  }
  std::vector<int64_t> indices = TensorStore::SampleIndices(expected);
  TensorDiff d = Diff(e, Gather(actual, indices), tolerances.For(e));
  if (d.first_bad_flat >= 0) {
    // The sample's position back to the tensor's index.
    d.first_bad_flat = indices.at(d.first_bad_flat);
    d.first_bad_index = runtime::ElementIndex(expected.shape, d.first_bad_flat) + " (sampled)";
  }
  return d;
}

ir::HostTensor TensorStore::Get(const TensorRef& ref) const {
  KILN_CHECK(ref.stored, ErrorKind::kIO,
             "tensor " + ref.digest +
                 " was beyond the carve's size cap: only its digest and a sample are kept");
  std::string path = PathOf(ref);
  std::error_code ec;
  KILN_CHECK(fs::exists(path, ec), ErrorKind::kIO, path + ": the carve's tensor file is missing");
  ir::HostTensor t = runtime::ReadTensorFile(path, ref.dtype, ref.shape);
  KILN_CHECK(Digest(t) == ref.digest, ErrorKind::kIO,
             path + ": its contents do not match its digest (the carve was changed)");
  return t;
}

std::map<std::string, std::string> TaskNamesOfPrimFuncs(const ir::relax::IRModule& module,
                                                        const std::string& entry) {
  std::map<uint64_t, std::string> task_of_hash;
  for (const ir::relax::transform::ExtractedTask& t :
       ir::relax::transform::ExtractTasks(module, entry)) {
    task_of_hash.emplace(t.workload_hash, t.name);
  }
  std::map<std::string, std::string> out;
  for (const std::string& name : module.names()) {
    const ir::PrimFunc* func = module.LookupPrimFunc(name);
    if (func == nullptr) continue;
    auto it = task_of_hash.find(WorkloadHash(*func));
    if (it != task_of_hash.end()) out[name] = it->second;
  }
  return out;
}

std::map<std::string, int64_t> BoundValues(const ir::PrimFunc& func,
                                           const std::vector<std::vector<int64_t>>& tensor_shapes,
                                           const std::vector<int64_t>& scalars) {
  std::map<std::string, int64_t> out;
  size_t tensor = 0;
  std::vector<const ir::Var*> scalar_params;
  for (const ir::Var& p : func->params) {
    std::optional<ir::Buffer> b = func->BufferOf(p);
    if (!b) {
      scalar_params.push_back(&p);
      continue;
    }
    if (tensor >= tensor_shapes.size()) break;
    const std::vector<int64_t>& shape = tensor_shapes[tensor++];
    for (size_t d = 0; d < (*b)->shape.size() && d < shape.size(); ++d) {
      if (const auto* v = (*b)->shape[d].as<ir::VarNode>()) out.emplace(v->name, shape[d]);
    }
  }
  // The trailing scalars (call_tir's tir_vars) are the last scalar parameters.
  size_t first = scalar_params.size() >= scalars.size() ? scalar_params.size() - scalars.size() : 0;
  for (size_t i = 0; i < scalars.size() && first + i < scalar_params.size(); ++i) {
    out[scalar_params[first + i]->name()] = scalars[i];
  }
  return out;
}

Carve CarveModel(const ir::relax::IRModule& module, const std::string& entry,
                 const std::string& model_name, const std::vector<ir::HostTensor>& inputs,
                 TensorStore& store, TargetDevice* reference) {
  Carve carve;
  carve.model = model_name;
  carve.entry = entry;
  carve.reference = reference ? reference->Describe() : "interpreter";
  std::map<std::string, std::string> task_of = TaskNamesOfPrimFuncs(module, entry);
  std::vector<Value> args;
  for (const ir::HostTensor& t : inputs) {
    carve.inputs.push_back(store.Put(t));
    args.push_back(Value::Tensor(t));
  }
  std::set<std::string> seen;
  auto count = [&](const TensorRef& r, const ir::HostTensor& t) {
    carve.referenced_bytes += t.nbytes();
    if (r.stored && seen.insert(r.digest).second) {
      ++carve.stored_tensors;
      carve.stored_bytes += t.nbytes();
    }
  };
  for (size_t i = 0; i < inputs.size(); ++i) count(carve.inputs[i], inputs[i]);
  auto hook = [&](const ir::relax::exec::CallTIRSite& site, const std::vector<Value>& call_inputs,
                  const std::vector<int64_t>& tir_vars, const ir::relax::exec::ShapeEnv& env,
                  const std::function<Value()>& run_reference) {
    CarvedCall call;
    call.index = site.index;
    call.prim_func = site.prim_func;
    auto task = task_of.find(site.prim_func);
    call.task = task != task_of.end() ? task->second : site.prim_func;
    call.function = site.function;
    call.binding = site.binding;
    call.tir_vars = tir_vars;
    std::vector<std::vector<int64_t>> shapes;
    for (const Value& v : call_inputs) {
      CallArg a;
      if (v.is_tensor()) {
        a.tensor = store.Put(v.tensor());
        count(a.tensor, v.tensor());
        shapes.push_back(v.tensor().shape());
      } else {
        const ir::relax::exec::PrimScalar& p = v.prim();
        a.is_tensor = false;
        a.dtype = p.dtype;
        a.int_value = p.int_value;
        a.float_value = p.float_value;
      }
      call.inputs.push_back(a);
    }
    auto start = std::chrono::steady_clock::now();
    Value result = reference ? RunOnReference(*reference, module, site, call_inputs, tir_vars, env)
                             : run_reference();
    call.reference_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (const ir::HostTensor& t : Flatten(result)) {
      call.outputs.push_back(store.Put(t));
      count(call.outputs.back(), t);
      shapes.push_back(t.shape());
      if (!carve.first_non_finite && !AllFinite(t)) carve.first_non_finite = call.index;
    }
    const ir::PrimFunc* f = module.LookupPrimFunc(site.prim_func);
    if (f != nullptr) call.bound = BoundValues(*f, shapes, tir_vars);
    carve.calls.push_back(std::move(call));
    return result;
  };
  auto start = std::chrono::steady_clock::now();
  Value result = ir::relax::exec::ReferenceExecutor(module).Run(entry, args, hook);
  carve.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (const ir::HostTensor& t : Flatten(result)) {
    carve.outputs.push_back(store.Put(t));
    count(carve.outputs.back(), t);
  }
  return carve;
}

void SaveCarve(const Carve& carve, const std::string& dir) {
  json calls = json::array();
  for (const CarvedCall& c : carve.calls) {
    json inputs = json::array();
    for (const CallArg& a : c.inputs) {
      if (a.is_tensor) {
        inputs.push_back(RefToJson(a.tensor));
      } else {
        inputs.push_back({{"scalar", a.dtype.ToString()},
                          {"value", a.dtype.is_float() ? json(a.float_value) : json(a.int_value)}});
      }
    }
    json outputs = json::array();
    for (const TensorRef& r : c.outputs) outputs.push_back(RefToJson(r));
    calls.push_back({{"index", c.index},
                     {"prim_func", c.prim_func},
                     {"task", c.task},
                     {"function", c.function},
                     {"binding", c.binding},
                     {"bound", c.bound},
                     {"inputs", inputs},
                     {"tir_vars", c.tir_vars},
                     {"outputs", outputs},
                     {"reference_seconds", c.reference_seconds}});
  }
  json model_inputs = json::array(), model_outputs = json::array();
  for (const TensorRef& r : carve.inputs) model_inputs.push_back(RefToJson(r));
  for (const TensorRef& r : carve.outputs) model_outputs.push_back(RefToJson(r));
  json j = {{"version", kCarveFormatVersion},
            {"model", carve.model},
            {"entry", carve.entry},
            {"reference", carve.reference},
            {"inputs", model_inputs},
            {"outputs", model_outputs},
            {"calls", calls},
            {"first_non_finite", carve.first_non_finite ? json(*carve.first_non_finite) : json()},
            {"seconds", carve.seconds},
            {"stored_tensors", carve.stored_tensors},
            {"stored_bytes", carve.stored_bytes},
            {"referenced_bytes", carve.referenced_bytes}};
  runtime::WriteFileAtomically((fs::path(dir) / "carve.json").string(), j.dump(1) + "\n");
}

Carve LoadCarve(const std::string& dir) {
  std::string path = (fs::path(dir) / "carve.json").string();
  return ParseCarve(runtime::ReadWholeFile(path), path);
}

Carve ParseCarve(const std::string& text, const std::string& path) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    throw Error(ErrorKind::kParse, path + ": not JSON: " + e.what());
  }
  Carve carve;
  std::string field = "version";
  try {
    KILN_CHECK(j.is_object(), ErrorKind::kParse, "an object expected");
    int version = j.at("version").get<int>();
    KILN_CHECK(version == kCarveFormatVersion, ErrorKind::kUnsupported,
               "carve format " + std::to_string(version) + "; this build reads " +
                   std::to_string(kCarveFormatVersion));
    field = "model";
    carve.model = j.at("model").get<std::string>();
    carve.entry = j.at("entry").get<std::string>();
    carve.reference = j.at("reference").get<std::string>();
    for (size_t i = 0; i < j.at("inputs").size(); ++i) {
      carve.inputs.push_back(RefFromJson(j["inputs"][i], "inputs[" + std::to_string(i) + "]"));
    }
    for (size_t i = 0; i < j.at("outputs").size(); ++i) {
      carve.outputs.push_back(RefFromJson(j["outputs"][i], "outputs[" + std::to_string(i) + "]"));
    }
    const json& calls = j.at("calls");
    KILN_CHECK(calls.is_array(), ErrorKind::kParse, "calls: an array expected");
    for (size_t i = 0; i < calls.size(); ++i) {
      field = "calls[" + std::to_string(i) + "]";
      const json& c = calls[i];
      CarvedCall call;
      call.index = c.at("index").get<int64_t>();
      KILN_CHECK(call.index == static_cast<int64_t>(i), ErrorKind::kParse,
                 field + ".index: " + std::to_string(i) + " expected");
      call.prim_func = c.at("prim_func").get<std::string>();
      call.task = c.at("task").get<std::string>();
      call.function = c.at("function").get<std::string>();
      call.binding = c.at("binding").get<std::string>();
      call.bound = c.at("bound").get<std::map<std::string, int64_t>>();
      call.tir_vars = c.at("tir_vars").get<std::vector<int64_t>>();
      call.reference_seconds = c.at("reference_seconds").get<double>();
      const json& ins = c.at("inputs");
      for (size_t k = 0; k < ins.size(); ++k) {
        CallArg a;
        if (ins[k].contains("scalar")) {
          std::optional<ir::DataType> dtype =
              ir::DataType::Parse(ins[k].at("scalar").get<std::string>());
          KILN_CHECK(dtype.has_value(), ErrorKind::kParse, "unknown scalar dtype");
          a.is_tensor = false;
          a.dtype = *dtype;
          if (dtype->is_float()) {
            a.float_value = ins[k].at("value").get<double>();
          } else {
            a.int_value = ins[k].at("value").get<int64_t>();
          }
        } else {
          a.tensor = RefFromJson(ins[k], field + ".inputs[" + std::to_string(k) + "]");
        }
        call.inputs.push_back(a);
      }
      const json& outs = c.at("outputs");
      for (size_t k = 0; k < outs.size(); ++k) {
        call.outputs.push_back(RefFromJson(outs[k], field + ".outputs[" + std::to_string(k) + "]"));
      }
      carve.calls.push_back(std::move(call));
    }
    field = "first_non_finite";
    if (!j.at("first_non_finite").is_null()) {
      carve.first_non_finite = j["first_non_finite"].get<int64_t>();
    }
    carve.seconds = j.value("seconds", 0.0);
    carve.stored_tensors = j.value("stored_tensors", int64_t{0});
    carve.stored_bytes = j.value("stored_bytes", uint64_t{0});
    carve.referenced_bytes = j.value("referenced_bytes", uint64_t{0});
  } catch (const json::exception& e) {
    throw Error(ErrorKind::kParse, path + ": " + field + ": " + e.what());
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::kUnsupported) throw Error(e.kind(), path + ": " + e.what());
    throw Error(ErrorKind::kParse, path + ": " + field + ": " + e.what());
  }
  return carve;
}

}  // namespace kiln::validate
