// kiln::Error: the one exception type Kiln throws. It carries a kind, so callers can react
// (a parse error is reported to the user, an internal error is a bug), and a message that
// names the input and the place ("model.tir:3:14: expected ')'").
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace kiln {

enum class ErrorKind {
  kParse,        // malformed text or file: message names file, line and column
  kType,         // dtype or shape mismatch in IR construction
  kInvalidIR,    // structurally wrong IR (undefined variable, bad region)
  kSchedule,     // a schedule primitive used where it is not valid
  kRuntime,      // failure while executing a kernel or the interpreter
  kUnsupported,  // a valid request that Kiln does not handle (yet)
  kIO,           // files, sockets, databases
  kInternal,     // a broken invariant: a bug in Kiln
};

std::string_view ErrorKindName(ErrorKind kind);

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message);
  ErrorKind kind() const { return kind_; }

 private:
  ErrorKind kind_;
};

}  // namespace kiln

// Throws kiln::Error(kind, message) when `condition` is false. The message expression is
// evaluated only then: the search rejects thousands of draws a minute, and a passing check
// must not pay for formatting its message.
#define KILN_CHECK(condition, kind, ...)                     \
  do {                                                       \
    if (!(condition)) [[unlikely]] {                         \
      throw ::kiln::Error((kind), std::string(__VA_ARGS__)); \
    }                                                        \
  } while (false)
