// TVM's metadata section in Relax text: `metadata = tvm.ir.load_json("""{...}""")` above (or
// below) the module, holding the module's large constants as a JSON object graph (ir/tvm_json):
// a map from a kind to a list of constants, "ir.GenericConst" in TVM 0.24+ and
// "relax.expr.Constant" before, referenced in the module as metadata["ir.GenericConst"][i].
//
// The statement holds a Python string (triple-quoted as TVM prints it, with \" escapes), which
// the token-level parser does not read: ExtractMetadata finds the statement in the raw text,
// decodes the string and the graph, and blanks the statement (newlines kept, so every other
// token keeps its line and column). Kiln's own older form, `metadata = {"relax.expr.Constant":
// [R.const(...), ...]}`, is plain tokens and stays for the parser.
//
// WriteMetadata is the inverse, for the printer: the statement TVM would print for the given
// constants, in the 0.24+ graph shape (kind "ir.GenericConst") or the legacy one (kind
// "relax.expr.Constant"), which the matching TVM version loads back.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/host_tensor.h"
#include "ir/text/lexer.h"

namespace kiln::ir::relax::text {

inline constexpr char kGenericConstKind[] = "ir.GenericConst";
inline constexpr char kLegacyConstKind[] = "relax.expr.Constant";

struct MetadataSection {
  // Constants by kind, in index order.
  std::map<std::string, std::vector<HostTensor>> constants;
  int line = 0, column = 0;  // of the `metadata` name
  std::string tvm_version;
};

// Finds a top-level `metadata = tvm.ir.load_json(STRING)` statement; nullopt when there is none.
// `text` is blanked over the statement. Throws kiln::Error (kParse) at the statement's place for
// a malformed string or graph, naming the graph's node and field (kUnsupported for a tensor dtype
// Kiln cannot hold).
std::optional<MetadataSection> ExtractMetadata(const SourceText& source, std::string* text);

// The statement, with a newline at its end. `legacy` writes TVM's shape up to 0.23.
std::string WriteMetadata(const std::vector<const HostTensor*>& constants, bool legacy);

}  // namespace kiln::ir::relax::text
