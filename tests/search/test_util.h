// Assertion helpers shared by the schedule tests.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "support/error.h"

namespace kiln::search::testing {

// Runs `body` and expects a kiln::Error of `kind` whose message contains `phrase`.
template <typename F>
void ExpectError(F body, ErrorKind kind, const std::string& phrase) {
  try {
    body();
    ADD_FAILURE() << "expected an error containing \"" << phrase << "\"";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    EXPECT_NE(std::string(e.what()).find(phrase), std::string::npos) << e.what();
  }
}

}  // namespace kiln::search::testing
