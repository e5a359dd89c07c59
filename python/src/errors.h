// Python exceptions for kiln::Error: kiln.Error, and one subclass per ErrorKind
// (support/error.h), each also a subclass of the built-in exception a Python user would catch
// for it (ValueError for malformed input, OSError for files, ...). A kiln::Error escaping a
// binding becomes the exception of its kind carrying the C++ message unchanged (the text the
// `tune` command prints after "tune: KIND: ") and the kind's name in its `kind` attribute.
#pragma once

#include <nanobind/nanobind.h>

#include "support/error.h"

namespace kiln::python {

// Creates the exception types as attributes of `m` and registers the translator.
void RegisterErrors(nanobind::module_& m);

// Sets the Python error of `error`'s kind (the translator's work, for code that catches a
// kiln::Error itself and must return to Python with it set).
void SetPythonError(const Error& error);

}  // namespace kiln::python
