// The exception types, created once at import, and the translator from kiln::Error.
#include "python/src/errors.h"

#include <nanobind/stl/string.h>

#include <array>
#include <exception>
#include <string>

namespace nb = nanobind;

namespace kiln::python {
namespace {

struct ErrorType {
  ErrorKind kind;
  const char* name;   // the Python name, kiln.NAME
  PyObject* builtin;  // the built-in exception it also derives from, or null
  const char* doc;
};

PyObject* g_base = nullptr;
std::array<PyObject*, 8> g_types = {};

size_t IndexOf(ErrorKind kind) { return static_cast<size_t>(kind); }

}  // namespace

void SetPythonError(const Error& error) {
  PyObject* type = g_types[IndexOf(error.kind())];
  if (type == nullptr) type = g_base;
  PyObject* instance = PyObject_CallOneArg(type, nb::str(error.what()).ptr());
  if (instance == nullptr) return;  // the call set its own error
  std::string kind(ErrorKindName(error.kind()));
  PyObject_SetAttrString(instance, "kind", nb::str(kind.c_str()).ptr());
  PyErr_SetObject(type, instance);
  Py_DECREF(instance);
}

void RegisterErrors(nb::module_& m) {
  g_base = PyErr_NewExceptionWithDoc(
      "kiln.Error",
      "The base of every error Kiln raises. str(e) is the message the `tune` command prints "
      "(it names the input and the place); e.kind names the kind (\"parse error\", ...).",
      PyExc_Exception, nullptr);
  m.attr("Error") = nb::handle(g_base);
  static const ErrorType types[] = {
      {ErrorKind::kParse, "ParseError", PyExc_ValueError,
       "Malformed text, file or argument: the message names the file, line and column or the "
       "argument."},
      {ErrorKind::kType, "ShapeError", PyExc_ValueError,
       "A dtype or shape that does not fit: an array handed to a model, or IR being built."},
      {ErrorKind::kInvalidIR, "InvalidIRError", PyExc_ValueError,
       "Structurally wrong IR (an undefined variable, a missing entry function, ...)."},
      {ErrorKind::kSchedule, "ScheduleError", nullptr,
       "A schedule primitive used where it is not valid."},
      {ErrorKind::kRuntime, "ExecutionError", PyExc_RuntimeError,
       "A failure while running a kernel, a model or the interpreter."},
      {ErrorKind::kUnsupported, "UnsupportedError", nullptr,
       "A valid request that Kiln does not handle (an ONNX operator, a target, ...)."},
      {ErrorKind::kIO, "IOError", PyExc_OSError,
       "Files, sockets and databases: a missing or unreadable file, a damaged database."},
      {ErrorKind::kInternal, "InternalError", nullptr,
       "A broken invariant inside Kiln: a bug, to be reported."},
  };
  for (const ErrorType& t : types) {
    PyObject* bases = t.builtin ? PyTuple_Pack(2, g_base, t.builtin) : PyTuple_Pack(1, g_base);
    std::string qualified = std::string("kiln.") + t.name;
    PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), t.doc, bases, nullptr);
    Py_DECREF(bases);
    if (type == nullptr) throw nb::python_error();
    g_types[IndexOf(t.kind)] = type;
    m.attr(t.name) = nb::handle(type);
  }
  // Raises the exception of a kind by the exception's name, for the tests of the translation
  // (every kind crosses as its class, with its message and kind).
  m.def("_raise_error", [](const std::string& name, const std::string& message) {
    for (const ErrorType& t : types) {
      if (name == t.name) throw Error(t.kind, message);
    }
    throw Error(ErrorKind::kParse, "name: no error type " + name);
  });
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const Error& e) {
      SetPythonError(e);
    }
  });
}

}  // namespace kiln::python
