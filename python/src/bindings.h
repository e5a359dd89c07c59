// The parts of the extension kiln._kiln, one registration function per file, called in this
// order by module.cc (a later part may name an earlier part's types in its signatures).
#pragma once

#include <nanobind/nanobind.h>

namespace kiln::python {

void BindModels(nanobind::module_& m);     // model_bindings.cc: Module, PrimFunc, Task, parse
void BindDatabase(nanobind::module_& m);   // database_bindings.cc: Database
void BindTune(nanobind::module_& m);       // tune_bindings.cc: tune
void BindArtifacts(nanobind::module_& m);  // artifact_bindings.cc: compile, load, Artifact
void BindClient(nanobind::module_& m);     // client_bindings.cc: a coordinator's jobs

}  // namespace kiln::python
