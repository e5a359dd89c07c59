// JSON crossing into Python: the objects the `tune` command prints with --json become the
// same dicts and lists in Python (json.loads of the text), so both speak one schema.
#pragma once

#include <nanobind/nanobind.h>

#include <nlohmann/json.hpp>
#include <string>

namespace kiln::python {

inline nanobind::object JsonToPython(const std::string& text) {
  return nanobind::module_::import_("json").attr("loads")(text);
}

inline nanobind::object JsonToPython(const nlohmann::json& value) {
  return JsonToPython(value.dump());
}

}  // namespace kiln::python
