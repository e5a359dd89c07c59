// kiln._kiln: the extension module of the Python package `kiln` (python/kiln/__init__.py
// re-exports its public names with their Python-side wrappers).
#include <nanobind/nanobind.h>

#include "python/src/bindings.h"
#include "python/src/errors.h"
#include "runtime/model/artifact.h"

namespace nb = nanobind;

NB_MODULE(_kiln, m) {
  m.doc() = "Kiln's C++ libraries: models, tasks, the tuning database, tuning and compiled models.";
  m.attr("__version__") = kiln::runtime::model::kKilnVersion;
  kiln::python::RegisterErrors(m);
  kiln::python::BindModels(m);
  kiln::python::BindDatabase(m);
  kiln::python::BindTune(m);
  kiln::python::BindArtifacts(m);
  kiln::python::BindClient(m);
}
