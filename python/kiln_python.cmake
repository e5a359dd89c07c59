# Whether the tree builds the Python package `kiln` (python/): the nanobind extension kiln._kiln
# over the same libraries as the `tune` command, written to build/python/kiln/ beside the
# package's Python files, so that PYTHONPATH=build/python imports what this build made.
# ON by default when a Python interpreter with nanobind is found: the one scikit-build-core
# runs (pip install .), else the project's .venv (deploy/install-deps.sh), else the system's.
# OFF under the sanitizers and the fuzzers: an interpreter does not load their runtimes.
# Included by the top-level CMakeLists.txt before the layers, since the libraries the
# extension links are built as position-independent code (python/CMakeLists.txt).
set(kiln_python_default OFF)
set(KILN_NANOBIND_DIR "")
if(NOT KILN_SANITIZE AND NOT KILN_FUZZ)
  if(NOT Python_EXECUTABLE AND EXISTS "${PROJECT_SOURCE_DIR}/.venv/bin/python")
    set(Python_EXECUTABLE "${PROJECT_SOURCE_DIR}/.venv/bin/python")
  endif()
  find_package(Python 3.8 COMPONENTS Interpreter Development.Module QUIET)
  if(Python_FOUND)
    execute_process(
      COMMAND "${Python_EXECUTABLE}" -m nanobind --cmake_dir
      OUTPUT_VARIABLE kiln_nanobind_dir
      OUTPUT_STRIP_TRAILING_WHITESPACE
      RESULT_VARIABLE kiln_nanobind_status
      ERROR_QUIET)
    if(kiln_nanobind_status EQUAL 0 AND EXISTS "${kiln_nanobind_dir}")
      set(kiln_python_default ON)
      set(KILN_NANOBIND_DIR "${kiln_nanobind_dir}")
    endif()
  endif()
endif()
option(KILN_PYTHON "Build the Python package kiln (nanobind) into build/python"
       ${kiln_python_default})
if(KILN_PYTHON AND KILN_NANOBIND_DIR STREQUAL "")
  message(WARNING "KILN_PYTHON is ON but no Python with nanobind was found (looked for "
                  "${Python_EXECUTABLE}); the Python package is not built. Run "
                  "deploy/install-deps.sh, or configure with -DPython_EXECUTABLE=...")
  set(KILN_PYTHON OFF)
endif()
