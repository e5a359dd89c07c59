// kiln.parse, kiln.load_onnx, kiln.load_model and kiln.extract_tasks: models read through the
// front ends `tune tasks` and `tune run` use (ir/model/model_file.h, the Relax and TensorIR
// parsers), tasks through the tuning pipeline and task extraction (ir/relax/transform/).
#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/variant.h>
#include <nanobind/stl/vector.h>

#include <filesystem>
#include <set>
#include <variant>

#include "ir/analysis/flop_count.h"
#include "ir/relax/text/printer.h"
#include "ir/relax/transform/extract_tasks.h"
#include "ir/relax/transform/pipeline.h"
#include "ir/structural.h"
#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "python/src/bindings.h"
#include "python/src/model.h"
#include "support/error.h"
#include "support/file.h"

namespace nb = nanobind;

namespace kiln::python {

void Model::RequireModel(const std::string& what) const {
  KILN_CHECK(is_model(), ErrorKind::kUnsupported,
             what + ": " + name +
                 " is TensorIR kernels, not a model; it takes an ONNX model or a Relax module");
}

namespace {

// `name` with `extension` unless it already ends so: the library picks the front end by it.
std::string WithExtension(const std::string& name, const std::string& extension) {
  return std::filesystem::path(name).extension() == extension ? name : name + extension;
}

bool DefinesRelaxFunction(const std::string& text) {
  return text.find("@R.function") != std::string::npos;
}

ir::TirPrintOptions TirOptions(const std::string& dialect) {
  ir::TirPrintOptions options;
  options.dialect = ir::ParseTirDialect(dialect);
  return options;
}

// A kernel: kiln.PrimFunc.
struct PyPrimFunc {
  ir::PrimFunc func;
  std::string Name() const { return func->name; }
  std::string Hash() const { return ir::StructuralHashHex(func); }
  std::string Script(const std::string& dialect) const {
    return ir::PrintPrimFunc(func, TirOptions(dialect));
  }
};

// One tuning task: kiln.Task.
struct PyTask {
  std::string name;
  int64_t weight = 1;
  std::variant<int64_t, std::string> flops;  // the count, or its symbolic text
  std::string hash;
  std::vector<std::string> params;
  PyPrimFunc func;
};

std::vector<PyTask> ExtractTasks(const Model& model,
                                 const std::optional<std::map<std::string, int64_t>>& dims) {
  std::vector<PyTask> out;
  if (!model.is_model()) {
    KILN_CHECK(!dims || dims->empty(), ErrorKind::kParse,
               "dims: " + model.name + " is TensorIR kernels; dims specialise a model");
    // Structurally equal functions are one task, called as often as they appear.
    for (const ir::PrimFunc& f : model.funcs) {
      std::string hash = ir::StructuralHashHex(f);
      bool seen = false;
      for (PyTask& t : out) {
        if (t.hash == hash) {
          t.weight += 1;
          seen = true;
        }
      }
      if (seen) continue;
      PyTask task{.name = f->name,
                  .weight = 1,
                  .flops = int64_t{0},
                  .hash = hash,
                  .params = {},
                  .func = {f}};
      ir::Expr flops = ir::EstimateFlops(f);
      if (auto value = ir::AsConstInt(flops)) {
        task.flops = *value;
      } else {
        task.flops = ir::PrintExpr(flops);
      }
      for (const ir::Var& param : f->params) {
        auto buffer = f->BufferOf(param);
        task.params.push_back(buffer ? (*buffer)->name : param.name());
      }
      out.push_back(std::move(task));
    }
    return out;
  }
  ir::model::ModelInput input =
      dims && !dims->empty()
          ? ir::model::LoadModelBytes(model.model_name, model.bytes, *dims, model.func)
          : *model.input;
  ir::relax::IRModule prepared = ir::relax::transform::PrepareModuleForTuning(input.module);
  for (const auto& t : ir::relax::transform::ExtractTasks(prepared, input.entry)) {
    PyTask task{.name = t.name,
                .weight = t.weight,
                .flops = int64_t{0},
                .hash = ir::StructuralHashHex(t.func),
                .params = {},
                .func = {t.func}};
    if (auto value = ir::AsConstInt(t.flops)) {
      task.flops = *value;
    } else {
      task.flops = t.FlopsString();
    }
    for (const auto& p : t.params) task.params.push_back(p.ToString());
    out.push_back(std::move(task));
  }
  return out;
}

std::string ModuleScript(const Model& model, const std::string& dialect, bool show_metadata) {
  if (model.is_model()) {
    ir::relax::PrintOptions options;
    options.dialect = ir::ParseTirDialect(dialect);
    options.show_metadata = show_metadata;
    return ir::relax::PrintModule(model.input->module, options);
  }
  std::string out;
  for (const ir::PrimFunc& f : model.funcs) {
    out += (out.empty() ? "" : "\n") + ir::PrintPrimFunc(f, TirOptions(dialect));
  }
  return out;
}

}  // namespace

ir::model::BucketSpec BucketSpecOf(const std::map<std::string, std::vector<int64_t>>& buckets) {
  std::vector<std::string> flags;
  for (const auto& [dim, values] : buckets) {
    std::string flag = dim + "=";
    for (size_t i = 0; i < values.size(); ++i) flag += (i ? "," : "") + std::to_string(values[i]);
    flags.push_back(flag);
  }
  return ir::model::ParseBucketFlags(flags, {}, {});
}

Model ParseModel(const std::string& text, const std::string& name, const std::string& func) {
  Model model;
  model.name = name;
  model.bytes = text;
  model.func = func;
  if (DefinesRelaxFunction(text)) {
    model.format = "relax";
    model.model_name = WithExtension(name, ".relax");
    model.input = ir::model::LoadModelBytes(model.model_name, text, {}, func);
  } else {
    KILN_CHECK(func.empty(), ErrorKind::kParse,
               "func: " + name + " defines no Relax function (it is read as TensorIR kernels)");
    model.format = "tir";
    model.model_name = name;
    model.funcs = ir::ParsePrimFuncs(text, name);
    KILN_CHECK(!model.funcs.empty(), ErrorKind::kParse, name + ": no function");
  }
  return model;
}

Model LoadModelFile(const std::string& path, const std::string& func) {
  std::string extension = std::filesystem::path(path).extension().string();
  if (extension == ".tir") return ParseModel(ReadFile(path), path, func);
  Model model;
  model.name = path;
  model.model_name = path;
  model.func = func;
  model.format = ir::model::ModelFormatOf(path);
  model.bytes = ReadFile(path);
  model.input = ir::model::LoadModelBytes(path, model.bytes, {}, func);
  return model;
}

void BindModels(nb::module_& m) {
  nb::class_<PyPrimFunc>(m, "PrimFunc",
                         "A TensorIR function (a kernel, or a tuning task's workload).")
      .def_prop_ro("name", &PyPrimFunc::Name, "The function's name.")
      .def_prop_ro("hash", &PyPrimFunc::Hash,
                   "The structural hash (16 hex digits) tuning records are keyed by.")
      .def("script", &PyPrimFunc::Script, nb::arg("dialect") = "tvm-0.24",
           "The function as TVMScript: dialect 'tvm-0.24' (TVM 0.24 and later) or 'tvm-0.23'.")
      .def("__repr__", [](const PyPrimFunc& f) { return "<kiln.PrimFunc " + f.func->name + ">"; });

  nb::class_<PyTask>(
      m, "Task", "A tuning task: one structurally distinct kernel of a model (kiln.extract_tasks).")
      .def_ro("name", &PyTask::name, "The kernel's name at its first call.")
      .def_ro("weight", &PyTask::weight, "Call sites in the model (how much the task counts).")
      .def_ro("flops", &PyTask::flops,
              "Operations of one call: an int, or its text when the model's shapes are symbolic "
              "('batch * 16640').")
      .def_ro("hash", &PyTask::hash, "The workload's structural hash (the database's key).")
      .def_ro("params", &PyTask::params, "The parameters: 'float32[batch, 64]', ...")
      .def_ro("func", &PyTask::func, "The workload, a kiln.PrimFunc.")
      .def("__repr__", [](const PyTask& t) {
        return "<kiln.Task " + t.name + " weight=" + std::to_string(t.weight) + ">";
      });

  nb::class_<Model>(m, "Module",
                    "A model (ONNX or Relax) or a set of TensorIR kernels, as Kiln read it "
                    "(kiln.parse, kiln.load_onnx, kiln.load_model).")
      .def_ro("name", &Model::name, "The file it was read from, or the name given to kiln.parse.")
      .def_ro("format", &Model::format, "'onnx', 'relax' or 'tir'.")
      .def_prop_ro(
          "entry",
          [](const Model& model) -> std::optional<std::string> {
            if (!model.is_model()) return std::nullopt;
            return model.input->entry;
          },
          "The Relax function that is the model; None for TensorIR kernels.")
      .def_prop_ro(
          "functions",
          [](const Model& model) {
            std::vector<std::string> names;
            if (model.is_model()) return model.input->module.names();
            for (const ir::PrimFunc& f : model.funcs) names.push_back(f->name);
            return names;
          },
          "The names of the module's functions (Relax and TensorIR).")
      .def("script", &ModuleScript, nb::arg("dialect") = "tvm-0.24",
           nb::arg("show_metadata") = true,
           "The module as TVMScript, as TVM prints it: dialect 'tvm-0.24' (TVM 0.24 and later) "
           "or 'tvm-0.23'. show_metadata=False leaves large constants out (that text does not "
           "parse back).")
      .def("__repr__", [](const Model& model) {
        return "<kiln.Module " + model.name + " (" + model.format + ")>";
      });

  m.def("_parse", &ParseModel, nb::arg("text"), nb::arg("name"), nb::arg("func"));
  m.def("_load_model", &LoadModelFile, nb::arg("path"), nb::arg("func"));
  m.def("_extract_tasks", &ExtractTasks, nb::arg("module"), nb::arg("dims").none());
}

}  // namespace kiln::python
