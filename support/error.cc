// kiln::Error implementation.
#include "support/error.h"

namespace kiln {

std::string_view ErrorKindName(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kParse: return "parse error";
    case ErrorKind::kType: return "type error";
    case ErrorKind::kInvalidIR: return "invalid IR";
    case ErrorKind::kSchedule: return "schedule error";
    case ErrorKind::kRuntime: return "runtime error";
    case ErrorKind::kUnsupported: return "unsupported";
    case ErrorKind::kIO: return "I/O error";
    case ErrorKind::kInternal: return "internal error";
  }
  return "error";
}

Error::Error(ErrorKind kind, const std::string& message)
    : std::runtime_error(message), kind_(kind) {}

}  // namespace kiln
