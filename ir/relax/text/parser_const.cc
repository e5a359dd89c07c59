// Constants of the Relax parser: R.const(literal, dtype) with a scalar or nested-list literal
// read straight into the tensor (a large constant never becomes a tree of values), and the
// metadata["ir.GenericConst"][i] (TVM 0.24+) or metadata["relax.expr.Constant"][i] references
// to the metadata section (metadata.h, or Kiln's older dict after the module).
#include <cstdlib>

#include "ir/relax/text/literal.h"
#include "ir/relax/text/parser_impl.h"
#include "ir/text/print_util.h"

namespace kiln::ir::relax::text {

namespace {

// One number of a literal, kept small: a weight tensor can hold millions of them.
struct Element {
  enum Kind : uint8_t { kInt, kFloat, kBool } kind = kInt;
  bool big_unsigned = false;  // an integer above INT64_MAX, held as its uint64 bits
  bool bool_value = false;
  int line = 0, column = 0;  // for messages
  union {
    int64_t int_value = 0;
    double float_value;
  };
  Token At() const { return Token{TokenKind::kInt, "", line, column}; }
};

struct Literal {
  std::vector<int64_t> shape;  // -1 while a list at that depth is still open
  int ndim = -1;               // known once the first number (or empty list) is read
  std::vector<Element> elements;
};

std::string ElementText(const Element& e) {
  switch (e.kind) {
    case Element::kInt:
      return e.big_unsigned ? std::to_string(static_cast<uint64_t>(e.int_value))
                            : std::to_string(e.int_value);
    case Element::kFloat:
      return FloatText(e.float_value);
    case Element::kBool:
      break;
  }
  return e.bool_value ? "True" : "False";
}

}  // namespace

namespace {

// Reads one element: [-]INT, [-]FLOAT, True, False or [-]float("nan"|"inf"|"-inf").
Element ReadElement(RelaxParser& p) {
  bool negate = p.AcceptOp("-");
  const Token& t = p.Next();
  Element e;
  e.line = t.line;
  e.column = t.column;
  if (t.kind == TokenKind::kInt) {
    std::optional<uint64_t> parsed = ParseIntLiteral(t.text);
    if (!parsed) p.Fail(t, "integer literal " + t.text + " is malformed or above 2^64");
    uint64_t v = *parsed;
    constexpr uint64_t kMinMagnitude = static_cast<uint64_t>(INT64_MAX) + 1;
    if (negate) {
      if (v > kMinMagnitude) p.Fail(t, "integer literal below -2^63");
      e.int_value = v == kMinMagnitude ? INT64_MIN : -static_cast<int64_t>(v);
    } else {
      e.int_value = static_cast<int64_t>(v);
      e.big_unsigned = v > static_cast<uint64_t>(INT64_MAX);
    }
  } else if (t.kind == TokenKind::kFloat) {
    e.kind = Element::kFloat;
    e.float_value = std::strtod(t.text.c_str(), nullptr);
    if (negate) e.float_value = -e.float_value;
  } else if ((t.IsName("True") || t.IsName("False")) && !negate) {
    e.kind = Element::kBool;
    e.bool_value = t.text == "True";
  } else if (t.IsName("float") && p.Peek().IsOp("(")) {
    p.Next();
    const Token& s = p.Peek();
    std::optional<double> special;
    if (s.kind == TokenKind::kString) special = SpecialFloat(s.text);
    if (!special) p.Expected("\"nan\", \"inf\" or \"-inf\" in float(...)");
    p.Next();
    p.ExpectOp(")");
    e.kind = Element::kFloat;
    e.float_value = negate ? -*special : *special;
  } else {
    p.Fail(t, "expected a number, True, False or float(\"nan\") in R.const, got " + t.Describe());
  }
  return e;
}

}  // namespace

RelaxParser::Value RelaxParser::ParseConst(const Token& at) {
  const Token& open = ExpectOp("(");
  NestingGuard guard(*this, open);
  Literal lit;
  // Nested lists are read iteratively, with the depth bounded like any other nesting.
  std::vector<int64_t> counts;  // elements read so far in each open list
  std::vector<Token> opens;
  auto read_item = [&](size_t depth) {
    if (Peek().IsOp("[")) {
      if (lit.ndim >= 0 && static_cast<int>(depth) >= lit.ndim) {
        Fail(Peek(), "R.const: a list where a number was expected (ragged nested list)");
      }
      if (depth >= static_cast<size_t>(kMaxNesting)) Fail(Peek(), "R.const: lists nested too deep");
      if (lit.shape.size() == depth) lit.shape.push_back(-1);
      opens.push_back(Next());
      counts.push_back(0);
      return;
    }
    if (lit.ndim < 0) lit.ndim = static_cast<int>(depth);
    if (lit.ndim != static_cast<int>(depth)) {
      Fail(Peek(), "R.const: a number where a list was expected (ragged nested list)");
    }
    lit.elements.push_back(ReadElement(*this));
  };
  read_item(0);
  while (!opens.empty()) {
    size_t depth = opens.size();
    if (Peek().IsOp("]")) {
      Next();
      int64_t n = counts.back();
      size_t dim = depth - 1;
      if (n == 0) {
        if (lit.ndim < 0) lit.ndim = static_cast<int>(depth);
        if (lit.ndim != static_cast<int>(depth)) Fail(opens.back(), "R.const: ragged nested list");
      }
      if (lit.shape[dim] < 0) {
        lit.shape[dim] = n;
      } else if (lit.shape[dim] != n) {
        Fail(opens.back(), "R.const: ragged nested list: " + std::to_string(n) +
                               " elements where the first list at this depth had " +
                               std::to_string(lit.shape[dim]));
      }
      opens.pop_back();
      counts.pop_back();
      if (!opens.empty()) {
        ++counts.back();
        if (!AcceptOp(",") && !Peek().IsOp("]")) Expected("',' or ']'");
      }
      continue;
    }
    read_item(depth);
    if (lit.ndim == static_cast<int>(depth)) {  // a number: the list goes on
      ++counts.back();
      if (!AcceptOp(",") && !Peek().IsOp("]")) Expected("',' or ']'");
    }
  }
  std::optional<DataType> dtype;
  std::optional<std::vector<int64_t>> shape;
  Token shape_at;
  while (AcceptOp(",")) {
    if (Peek().IsOp(")")) break;
    if (Peek().kind == TokenKind::kName && Peek(1).IsOp("=")) {
      const Token& key = Next();
      Next();
      Value v = ParseValue();
      if (key.text == "dtype" && !dtype) {
        dtype = AsDType(v, "the dtype of R.const");
      } else if (key.text == "shape" && !shape) {
        shape_at = key;
        if (v.kind != Value::kTuple && v.kind != Value::kList) Fail(v.at, "expected a shape tuple");
        shape.emplace();
        for (const Value& d : v.items) {
          if (d.kind != Value::kInt || d.int_value < 0 || d.int_value > INT32_MAX) {
            Fail(d.at, "R.const: a shape dim must be an integer in [0, 2^31)");
          }
          shape->push_back(d.int_value);
        }
      } else {
        Fail(key, "R.const takes a value, a dtype and (for an empty constant) shape=");
      }
    } else if (!dtype) {
      dtype = AsDType(ParseValue(), "the dtype of R.const");
    } else {
      Expected("')'");
    }
  }
  ExpectOp(")");

  bool any_float = false, all_bool = !lit.elements.empty();
  for (const Element& e : lit.elements) {
    any_float |= e.kind == Element::kFloat;
    all_bool &= e.kind == Element::kBool;
  }
  DataType dt = dtype       ? *dtype
                : any_float ? DataType::Float(32)
                : all_bool  ? DataType::Bool()
                            : DataType::Int(64);
  if (!dt.is_scalar() || dt.is_handle() || dt.is_void()) {
    Fail(at, "R.const: dtype " + dt.ToString() + " cannot hold data");
  }
  std::vector<int64_t> dims(lit.shape.begin(), lit.shape.begin() + std::max(lit.ndim, 0));
  if (shape) {
    int64_t numel = 1;
    for (int64_t d : *shape) {
      if (__builtin_mul_overflow(numel, d, &numel)) Fail(shape_at, "R.const: shape too large");
    }
    if (!lit.elements.empty() || numel != 0) {
      Fail(shape_at, "R.const: shape= is only for an empty constant, whose list cannot say it");
    }
    dims = *shape;
  }
  HostTensor tensor(dt, dims);
  for (size_t i = 0; i < lit.elements.size(); ++i) {
    const Element& e = lit.elements[i];
    auto index = static_cast<int64_t>(i);
    if (dt.is_float()) {
      double v = e.kind == Element::kFloat  ? e.float_value
                 : e.kind == Element::kBool ? (e.bool_value ? 1.0 : 0.0)
                 : e.big_unsigned ? static_cast<double>(static_cast<uint64_t>(e.int_value))
                                  : static_cast<double>(e.int_value);
      tensor.SetDouble(index, v);
      continue;
    }
    if (e.kind == Element::kFloat) {
      Fail(e.At(),
           "R.const: " + ElementText(e) + " is not an integer (dtype " + dt.ToString() + ")");
    }
    int64_t v = e.kind == Element::kBool ? (e.bool_value ? 1 : 0) : e.int_value;
    if (!IntFits(dt, v, e.kind == Element::kInt && e.big_unsigned)) {
      Fail(e.At(), "R.const: " + ElementText(e) + " is out of range for " + dt.ToString());
    }
    tensor.SetInt(index, v);
  }
  return ExprValue(at, Build(at, [&] { return Constant(tensor); }), 1);
}

RelaxParser::Value RelaxParser::ParseMetadataRef(const Token& at) {
  ExpectOp("[");
  const Token& kind = Peek();
  if (kind.kind != TokenKind::kString) {
    Expected("the kind of a metadata object, \"ir.GenericConst\" or \"relax.expr.Constant\"");
  }
  Next();
  ExpectOp("]");
  ExpectOp("[");
  const Token& index = Peek();
  if (index.kind != TokenKind::kInt) Expected("the index of a constant");
  Next();
  ExpectOp("]");
  if (!has_metadata_) {
    Fail(at,
         "metadata[...] refers to the metadata section, but the text has none (was it printed "
         "without show_meta=True, or with show_metadata=false?)");
  }
  auto it = metadata_.find(kind.text);
  if (it == metadata_.end()) {
    std::string kinds;
    for (const auto& [name, values] : metadata_)
      kinds += (kinds.empty() ? "\"" : ", \"") + name + "\"";
    Fail(kind, "the metadata section has no \"" + kind.text + "\" objects" +
                   (kinds.empty() ? std::string(" (it is empty)") : " (it has " + kinds + ")"));
  }
  std::optional<uint64_t> i = ParseIntLiteral(index.text);
  if (!i || *i >= it->second.size()) {
    Fail(index, "metadata index " + index.text + " is out of range: the section holds " +
                    std::to_string(it->second.size()) + " \"" + kind.text + "\" constants");
  }
  return ExprValue(at, it->second[*i], 1);
}

}  // namespace kiln::ir::relax::text
