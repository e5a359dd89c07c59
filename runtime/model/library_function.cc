// The registry: a map under a mutex, filled with the built-in functions once.
#include "runtime/model/library_function.h"

#include <memory>
#include <mutex>

#include "runtime/model/library_matmul.h"

namespace kiln::runtime::model {
namespace {

struct Registry {
  std::mutex mutex;
  // Entries are never removed, so a pointer handed out stays valid.
  std::map<std::string, std::unique_ptr<LibraryFunction>> functions;
};

Registry& TheRegistry() {
  static Registry registry;
  return registry;
}

void EnsureBuiltins() {
  static std::once_flag once;
  std::call_once(once, [] { RegisterMatmulLibraryFunctions(); });
}

}  // namespace

void RegisterLibraryFunction(LibraryFunction function) {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto& slot = r.functions[function.name];
  if (slot) {
    *slot = std::move(function);
  } else {
    slot = std::make_unique<LibraryFunction>(std::move(function));
  }
}

const LibraryFunction* FindLibraryFunction(const std::string& name) {
  EnsureBuiltins();
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.functions.find(name);
  return it == r.functions.end() ? nullptr : it->second.get();
}

std::vector<std::string> LibraryFunctionNames() {
  EnsureBuiltins();
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::string> names;
  for (const auto& [name, f] : r.functions) names.push_back(name);
  return names;
}

}  // namespace kiln::runtime::model
