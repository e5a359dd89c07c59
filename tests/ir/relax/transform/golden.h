// Golden text of Relax transformations: a module printed (ir/relax/text's TVMScript printer,
// PrimFuncs in full) compared byte for byte with tests/ir/relax/transform/testdata/NAME. Run the
// tests with KILN_UPDATE_GOLDEN=1 to rewrite the files after an intended change (that run fails,
// naming the files it rewrote).
#pragma once

#include <string>

#include "ir/relax/module.h"

namespace kiln::ir::relax::testing {

// "" when PrintModule(module) equals testdata/NAME (and the text parses back to a module that
// prints the same), else what differs, so a test can EXPECT_EQ(CheckGolden(...), "").
std::string CheckGolden(const std::string& name, const IRModule& module);
// The same for plain text (a task table).
std::string CheckGoldenText(const std::string& name, const std::string& text);

}  // namespace kiln::ir::relax::testing
