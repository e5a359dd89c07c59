// Golden TVMScript tests of schedule primitives: the function before and after a primitive,
// printed by ir/text, compared byte for byte with tests/search/testdata/NAME.tir. Run the
// tests with KILN_UPDATE_GOLDEN=1 to rewrite the files after an intended change (that run fails
// and names the files it rewrote; tests/testing/golden.h).
#pragma once

#include <string>

#include "ir/function.h"

namespace kiln::search::testing {

// The printed `before` and `after` (separated by a blank line) must equal NAME.tir, and the
// file must parse back to two functions structurally equal to them. Returns "" when all
// holds, else what differs (so a test can EXPECT_EQ(..., "")).
std::string CheckGolden(const std::string& name, const ir::PrimFunc& before,
                        const ir::PrimFunc& after);

// The text of tests/search/testdata/NAME.
std::string ReadTestData(const std::string& name);

}  // namespace kiln::search::testing
