// Finding, decoding and writing TVM's `metadata = tvm.ir.load_json("""...""")` statement.
#include "ir/relax/text/metadata.h"

#include <cctype>
#include <map>

#include "ir/tvm_json/graph.h"
#include "ir/tvm_json/writer.h"
#include "support/error.h"

namespace kiln::ir::relax::text {
namespace {

using tvm_json::Graph;
using tvm_json::GraphFormat;
using tvm_json::GraphWriter;
using tvm_json::WriterField;

// A cursor over the raw text that tracks line and column for messages.
class Scanner {
 public:
  Scanner(const SourceText& source, std::string_view text, size_t pos, int line)
      : source_(source), text_(text), pos_(pos), line_(line), line_start_(pos) {}

  [[noreturn]] void Fail(const std::string& message) const {
    source_.Fail(line_, static_cast<int>(pos_ - line_start_) + 1, message);
  }
  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek(size_t k = 0) const { return pos_ + k < text_.size() ? text_[pos_ + k] : '\0'; }
  char Take() {
    char c = text_[pos_++];
    if (c == '\n') {
      ++line_;
      line_start_ = pos_;
    }
    return c;
  }
  // Spaces and tabs; with `newlines`, also line breaks and comments (inside the parentheses).
  void SkipSpace(bool newlines) {
    while (!AtEnd()) {
      char c = Peek();
      if (c == ' ' || c == '\t' || c == '\r' || (newlines && c == '\n')) {
        Take();
      } else if (newlines && c == '#') {
        while (!AtEnd() && Peek() != '\n') Take();
      } else {
        return;
      }
    }
  }
  bool Accept(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    for (size_t i = 0; i < word.size(); ++i) Take();
    return true;
  }
  void Expect(std::string_view word, const std::string& what) {
    if (!Accept(word)) Fail("metadata section: expected " + what);
  }
  size_t pos() const { return pos_; }
  int line() const { return line_; }
  int column() const { return static_cast<int>(pos_ - line_start_) + 1; }

  // A Python string literal (optionally r-prefixed; single, double or triple quotes) and its
  // value with escapes resolved as Python resolves them.
  std::string StringLiteral() {
    bool raw = false;
    if (Peek() == 'r' || Peek() == 'R') {
      raw = true;
      Take();
    }
    char quote = Peek();
    if (quote != '"' && quote != '\'') {
      Fail("metadata section: expected the JSON text as a string in tvm.ir.load_json(...)");
    }
    int start_line = line_, start_column = column();
    bool triple = Peek(1) == quote && Peek(2) == quote;
    for (int i = 0; i < (triple ? 3 : 1); ++i) Take();
    std::string value;
    while (true) {
      if (AtEnd() || (!triple && Peek() == '\n')) {
        source_.Fail(start_line, start_column, "metadata section: unterminated string");
      }
      char c = Take();
      if (c == quote && (!triple || (Peek() == quote && Peek(1) == quote))) {
        if (triple) {
          Take();
          Take();
        }
        return value;
      }
      if (c != '\\' || raw) {
        value += c;
        if (c == '\\' && !AtEnd()) value += Take();  // a raw string keeps \" as both chars
        continue;
      }
      if (AtEnd()) continue;
      char e = Take();
      switch (e) {
        case '\n':
          break;  // line continuation
        case 'n':
          value += '\n';
          break;
        case 't':
          value += '\t';
          break;
        case 'r':
          value += '\r';
          break;
        case 'b':
          value += '\b';
          break;
        case 'f':
          value += '\f';
          break;
        case 'v':
          value += '\v';
          break;
        case 'a':
          value += '\a';
          break;
        case '\\':
        case '\'':
        case '"':
          value += e;
          break;
        case 'x': {
          std::string hex;
          while (hex.size() < 2 && std::isxdigit(static_cast<unsigned char>(Peek()))) hex += Take();
          if (hex.size() != 2) Fail("metadata section: invalid \\x escape");
          value += static_cast<char>(std::stoi(hex, nullptr, 16));
          break;
        }
        default:
          if (e >= '0' && e <= '7') {
            int v = e - '0';
            for (int i = 0; i < 2 && Peek() >= '0' && Peek() <= '7'; ++i)
              v = v * 8 + (Take() - '0');
            value += static_cast<char>(v & 0xff);
          } else {
            // Python keeps an unknown escape as written (JSON's \/ printed as \\/ is handled
            // by the '\\' case; a lone \/ reaches here).
            value += '\\';
            value += e;
          }
      }
    }
  }

 private:
  const SourceText& source_;
  std::string_view text_;
  size_t pos_;
  int line_;
  size_t line_start_;
};

bool IsNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Whether `text` at `pos` (a line start) begins `metadata = tvm.ir.load_json(`.
bool AtStatement(std::string_view text, size_t pos) {
  std::string_view rest = text.substr(pos);
  if (rest.substr(0, 8) != "metadata" || (rest.size() > 8 && IsNameChar(rest[8]))) return false;
  size_t i = 8;
  auto skip = [&] {
    while (i < rest.size() && (rest[i] == ' ' || rest[i] == '\t')) ++i;
  };
  skip();
  if (i >= rest.size() || rest[i] != '=') return false;
  ++i;
  skip();
  return rest.substr(i, 8) == "tvm.ir.l" || rest.substr(i, 7) == "tvm.ir ";
}

// The constants of the graph's root map, by kind.
// Errors are thrown without a place; the caller adds the statement's.
MetadataSection Decode(const Graph& g) {
  MetadataSection section;
  section.tvm_version = g.tvm_version();
  auto fail = [&](const std::string& message) { throw Error(ErrorKind::kParse, message); };
  if (g.node(g.root()).kind != tvm_json::NodeKind::kMap) {
    fail("metadata section: the graph's root is " + g.Where(g.root()) +
         ", expected a map from kind to list of constants");
  }
  for (auto [key, list] : g.Entries(g.root())) {
    if (g.node(key).kind != tvm_json::NodeKind::kString) {
      fail("metadata section: a key of the root map is " + g.Where(key) + ", expected a string");
    }
    const std::string& kind = g.StringValue(key);
    std::vector<HostTensor>& out = section.constants[kind];
    if (g.node(list).kind != tvm_json::NodeKind::kArray) {
      fail("metadata section: \"" + kind + "\" maps to " + g.Where(list) + ", expected a list");
    }
    for (int64_t c : g.Elements(list)) {
      // ir.GenericConst (0.27) keeps its tensor in "value", relax.expr.Constant in "data".
      const char* field = g.HasField(c, "data") ? "data" : "value";
      if (g.node(c).kind != tvm_json::NodeKind::kObject || !g.HasField(c, field)) {
        fail("metadata section: \"" + kind + "\"[" + std::to_string(out.size()) + "] is " +
             g.Where(c) + ", not a constant (Kiln reads constants only)");
      }
      out.push_back(g.TensorValue(g.TensorRef(c, field)));
    }
  }
  return section;
}

}  // namespace

std::optional<MetadataSection> ExtractMetadata(const SourceText& source, std::string* text) {
  std::optional<MetadataSection> found;
  size_t pos = 0;
  int line = 1;
  while (pos < text->size()) {
    size_t end = text->find('\n', pos);
    if (end == std::string::npos) end = text->size();
    if (!AtStatement(*text, pos)) {
      pos = end + 1;
      ++line;
      continue;
    }
    if (found) source.Fail(line, 1, "a second metadata section");
    Scanner s(source, *text, pos, line);
    s.Expect("metadata", "'metadata'");
    s.SkipSpace(false);
    s.Expect("=", "'='");
    s.SkipSpace(false);
    s.Expect("tvm.ir.load_json", "tvm.ir.load_json(...)");
    s.SkipSpace(false);
    s.Expect("(", "'(' after tvm.ir.load_json");
    s.SkipSpace(true);
    int json_line = s.line(), json_column = s.column();
    std::string json = s.StringLiteral();
    s.SkipSpace(true);
    s.Accept(",");
    s.SkipSpace(true);
    s.Expect(")", "')' closing tvm.ir.load_json(");
    s.SkipSpace(false);
    if (s.Peek() == '#') {
      while (!s.AtEnd() && s.Peek() != '\n') s.Take();
    }
    if (!s.AtEnd() && s.Peek() != '\n') s.Fail("metadata section: expected end of line");
    try {
      found = Decode(Graph::Parse(json, "metadata"));
    } catch (const Error& e) {
      throw Error(e.kind(), source.Format(json_line, json_column, e.what()));
    }
    found->line = line;
    found->column = 1;
    // Blank the statement, keeping its line breaks.
    for (size_t i = pos; i < s.pos(); ++i) {
      if ((*text)[i] != '\n') (*text)[i] = ' ';
    }
    pos = s.pos();
    line = s.line();
  }
  return found;
}

std::string WriteMetadata(const std::vector<const HostTensor*>& constants, bool legacy) {
  GraphWriter w;
  int64_t null = w.AddNull();
  std::map<std::string, int64_t> prim_types;  // dtype -> ir.PrimType node (0.24+)
  auto prim_type = [&](const std::string& dtype) {
    auto it = prim_types.find(dtype);
    if (it != prim_types.end()) return it->second;
    int64_t n = w.AddObject("ir.PrimType",
                            {WriterField::Ref("span", null), WriterField::String("dtype", dtype)});
    prim_types[dtype] = n;
    return n;
  };
  std::vector<int64_t> nodes;
  for (const HostTensor* t : constants) {
    auto ndim = static_cast<int64_t>(t->shape().size());
    std::string dtype = t->dtype().ToString();
    std::vector<int64_t> dims;
    for (int64_t d : t->shape()) {
      if (legacy) {
        dims.push_back(w.AddObject(
            "IntImm", {WriterField::String("dtype", "int64"), WriterField::Ref("span", null),
                       WriterField::BoxedInt("value", d)}));
      } else {
        dims.push_back(w.AddObject("ir.IntImm", {WriterField::Ref("span", null),
                                                 WriterField::Ref("ty", prim_type("int64")),
                                                 WriterField::BoxedInt("value", d)}));
      }
    }
    int64_t values = w.AddArray(dims);
    int64_t tensor = w.AddTensor(*t);
    if (legacy) {
      int64_t shape_type = w.AddObject(
          "relax.ShapeType", {WriterField::Int("ndim", ndim), WriterField::Ref("span", null)});
      int64_t shape_sinfo = w.AddObject(
          "relax.ShapeStructInfo", {WriterField::Int("ndim", ndim), WriterField::Ref("span", null),
                                    WriterField::Ref("values", values)});
      int64_t shape = w.AddObject(
          "relax.expr.ShapeExpr",
          {WriterField::Ref("_checked_type_", shape_type), WriterField::Ref("span", null),
           WriterField::Ref("struct_info_", shape_sinfo), WriterField::Ref("values", values)});
      int64_t sinfo =
          w.AddObject("relax.TensorStructInfo",
                      {WriterField::String("dtype", dtype), WriterField::Int("ndim", ndim),
                       WriterField::Ref("shape", shape), WriterField::Ref("span", null),
                       WriterField::Ref("vdevice", null)});
      int64_t type = w.AddObject("relax.DynTensorType",
                                 {WriterField::String("dtype", dtype),
                                  WriterField::Int("ndim", ndim), WriterField::Ref("span", null)});
      nodes.push_back(w.AddObject(
          "relax.expr.Constant",
          {WriterField::Ref("_checked_type_", type), WriterField::Tensor("data", tensor),
           WriterField::Ref("span", null), WriterField::Ref("struct_info_", sinfo)}));
    } else {
      int64_t shape_type = w.AddObject(
          "relax.ShapeType", {WriterField::Ref("span", null), WriterField::Ref("values", values),
                              WriterField::Int("ndim", ndim)});
      int64_t shape = w.AddObject("relax.expr.ShapeExpr", {WriterField::Ref("span", null),
                                                           WriterField::Ref("ty", shape_type),
                                                           WriterField::Ref("values", values)});
      int64_t type = w.AddObject(
          "relax.TensorType", {WriterField::Ref("span", null), WriterField::Ref("shape", shape),
                               WriterField::Ref("dtype", prim_type(dtype)),
                               WriterField::Ref("vdevice", null), WriterField::Int("ndim", ndim)});
      nodes.push_back(w.AddObject("ir.GenericConst",
                                  {WriterField::Ref("span", null), WriterField::Ref("ty", type),
                                   WriterField::Tensor("value", tensor)}));
    }
  }
  int64_t list = w.AddArray(nodes);
  int64_t key = w.AddString(legacy ? kLegacyConstKind : kGenericConstKind);
  int64_t root = w.AddMap({{key, list}});
  std::string json = w.Write(root, legacy ? GraphFormat::kLegacy : GraphFormat::kFfi,
                             legacy ? "0.23.0" : "0.27.0", 2);
  // As a Python string literal: the JSON's own backslashes and quotes escaped.
  std::string out = "metadata = tvm.ir.load_json(\"\"\"";
  for (char c : json) {
    if (c == '\\' || c == '"') out += '\\';
    out += c;
  }
  return out + "\"\"\")\n";
}

}  // namespace kiln::ir::relax::text
