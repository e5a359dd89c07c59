// Helpers shared by the Relax text tests: the corpus folder, file reading, and a round trip
// check that says which function differs.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ir/relax/structural.h"
#include "ir/relax/text/parser.h"
#include "ir/relax/text/printer.h"
#include "ir/structural.h"

namespace kiln::ir::relax::testing {

inline std::filesystem::path CorpusDir() {
  return std::filesystem::path(KILN_SOURCE_DIR) / "tests" / "ir" / "relax" / "testdata";
}

inline std::string ReadText(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The names of the functions that are not structurally equal in `a` and `b`.
inline std::string Differences(const IRModule& a, const IRModule& b) {
  std::string out;
  for (const std::string& name : a.names()) {
    const Function* fa = a.LookupFunction(name);
    const Function* fb = b.LookupFunction(name);
    if (fa != nullptr && fb != nullptr) {
      if (!StructuralEqual(*fa, *fb)) {
        out += name + ":\n  " + CanonicalForm(*fa) + "\n  " + CanonicalForm(*fb) + "\n";
      }
    } else if (a.LookupPrimFunc(name) && b.LookupPrimFunc(name)) {
      if (!ir::StructuralEqual(*a.LookupPrimFunc(name), *b.LookupPrimFunc(name))) {
        out += name + " (PrimFunc)\n";
      }
    } else {
      out += name + " is missing or of another kind\n";
    }
  }
  return out;
}

// A function of `params` that binds `value` to a variable y and returns it: the A-normal form
// of returning `value` directly (what the parser makes of `return value`).
inline Function ReturnThroughBinding(std::vector<Var> params, const Expr& value) {
  Var y("y", value.struct_info());
  BindingBlock block{{VarBinding(y, value)}, false};
  return MakeFunction(std::move(params), SeqExpr({block}, y));
}

// The value of the first binding of `f` (built by ReturnThroughBinding).
inline const Expr& FirstBoundValue(const Function& f) {
  return f->body.as<SeqExprNode>()->blocks.at(0).bindings.at(0).value;
}

// Prints `module`, parses the text back, and checks that the result is structurally equal,
// has the same functions in the same order, and prints to the same text. Returns the text.
// The other dialect (TVM up to 0.23 against 0.24+) is checked the same way.
inline std::string ExpectRoundTripInDialect(const IRModule& module, const PrintOptions& options);
inline std::string ExpectRoundTrip(const IRModule& module, const PrintOptions& options = {}) {
  PrintOptions other = options;
  other.dialect = options.dialect == ir::TirDialect::kTvm024 ? ir::TirDialect::kTvm023
                                                             : ir::TirDialect::kTvm024;
  {
    SCOPED_TRACE(std::string("dialect ") + std::string(ir::TirDialectName(other.dialect)));
    ExpectRoundTripInDialect(module, other);
  }
  return ExpectRoundTripInDialect(module, options);
}

inline std::string ExpectRoundTripInDialect(const IRModule& module, const PrintOptions& options) {
  std::string printed = PrintModule(module, options);
  IRModule parsed;
  try {
    parsed = ParseModule(printed, "<printed>");
  } catch (const Error& e) {
    ADD_FAILURE() << e.what() << "\n--- printed ---\n" << printed;
    return printed;
  }
  EXPECT_TRUE(StructuralEqual(module, parsed)) << Differences(module, parsed) << printed;
  EXPECT_EQ(parsed.names(), module.names());
  for (const std::string& name : module.names()) {
    if (const Function* f = module.LookupFunction(name)) {
      EXPECT_EQ(StructuralHash(*f), StructuralHash(*parsed.LookupFunction(name))) << name;
    }
  }
  EXPECT_EQ(PrintModule(parsed, options), printed);
  return printed;
}

}  // namespace kiln::ir::relax::testing
