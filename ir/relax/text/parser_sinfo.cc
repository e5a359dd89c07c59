// Struct info annotations of the Relax parser (R.Tensor, R.Shape, R.Prim, R.Tuple, R.Object,
// R.Callable, in the forms TVM prints and the ones TVM users write), dims written as strings
// ("n", "n * 2", as TVM prints them in signatures), and the check that an annotation agrees
// with the struct info inferred for a binding's value.
#include "ir/relax/text/parser_impl.h"
#include "ir/relax/text/printer.h"
#include "ir/text/print_util.h"

namespace kiln::ir::relax::text {

namespace {

bool DimsEqual(const std::vector<PrimExpr>& a, const std::vector<PrimExpr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!ProveDimEqual(a[i], b[i])) return false;
  }
  return true;
}

}  // namespace

bool IsBaseOf(const StructInfo& annotation, const StructInfo& inferred) {
  if (!annotation.defined() || annotation.kind() == StructInfoKind::kObject) return true;
  if (!inferred.defined() || annotation.kind() != inferred.kind()) return false;
  switch (annotation.kind()) {
    case StructInfoKind::kPrim: {
      const auto *a = annotation.as<PrimStructInfoNode>(), *b = inferred.as<PrimStructInfoNode>();
      if (a->dtype != b->dtype) return false;
      return !a->value.defined() || (b->value.defined() && ProveDimEqual(a->value, b->value));
    }
    case StructInfoKind::kShape: {
      const auto *a = annotation.as<ShapeStructInfoNode>(), *b = inferred.as<ShapeStructInfoNode>();
      if (a->ndim != kUnknownNDim && a->ndim != b->ndim) return false;
      return !a->values || (b->values && DimsEqual(*a->values, *b->values));
    }
    case StructInfoKind::kTensor: {
      const auto *a = annotation.as<TensorStructInfoNode>(),
                 *b = inferred.as<TensorStructInfoNode>();
      if (!a->unknown_dtype() && a->dtype != b->dtype) return false;
      if (!a->unknown_ndim() && a->ndim != b->ndim) return false;
      return !a->shape || (b->shape && DimsEqual(*a->shape, *b->shape));
    }
    case StructInfoKind::kTuple: {
      const auto *a = annotation.as<TupleStructInfoNode>(), *b = inferred.as<TupleStructInfoNode>();
      if (a->fields.size() != b->fields.size()) return false;
      for (size_t i = 0; i < a->fields.size(); ++i) {
        if (!IsBaseOf(a->fields[i], b->fields[i])) return false;
      }
      return true;
    }
    case StructInfoKind::kFunc: {
      // A function's shape variables are its own: (p, q) -> (p, q) is the same signature
      // whatever variables spell it.
      if (StructInfoStructuralEqual(annotation, inferred)) return true;
      const auto *a = annotation.as<FuncStructInfoNode>(), *b = inferred.as<FuncStructInfoNode>();
      if (a->params.size() != b->params.size()) return false;
      for (size_t i = 0; i < a->params.size(); ++i) {
        if (!StructInfoEqual(a->params[i], b->params[i])) return false;
      }
      return IsBaseOf(a->ret, b->ret);
    }
    case StructInfoKind::kObject:
      break;
  }
  return true;
}

void RelaxParser::CheckAnnotation(const Token& at, const std::string& var,
                                  const StructInfo& annotation, const StructInfo& inferred) const {
  if (IsBaseOf(annotation, inferred)) return;
  Fail(at,
       "the annotation of '" + var + "' is " + PrintStructInfo(annotation) + ", but its value is " +
           PrintStructInfo(inferred) +
           " (an annotation may be less specific than the value, not different; "
           "R.match_cast narrows)",
       ErrorKind::kType);
}

StructInfo RelaxParser::ParseAnnotation(bool define) {
  if (!Peek().IsName("R") || !Peek(1).IsOp(".")) {
    Expected("a struct info annotation such as R.Tensor((n, 4), \"float32\")");
  }
  static const std::set<std::string> kKinds = {"Tensor", "Tuple",  "Shape",
                                               "Prim",   "Object", "Callable"};
  if (Peek(2).kind == TokenKind::kName && kKinds.count(Peek(2).text) == 0) {
    Fail(Peek(2), "unknown struct info 'R." + Peek(2).text +
                      "' (R.Tensor, R.Tuple, R.Shape, R.Prim, R.Object or R.Callable)");
  }
  bool saved = define_dims_;
  define_dims_ = define;
  Value v = ParseValue();
  define_dims_ = saved;
  return AsSInfo(v);
}

RelaxParser::Value RelaxParser::ParseSInfo(const Token& at, const std::string& kind) {
  Args args;
  bool has_args = Peek().IsOp("(");
  if (has_args) args = ParseArgs();
  auto allow = [&](size_t max_positional, std::initializer_list<std::string_view> keys) {
    if (args.positional.size() > max_positional) {
      Fail(args.positional[max_positional].at, "R." + kind + " takes at most " +
                                                   std::to_string(max_positional) +
                                                   " positional arguments");
    }
    for (const auto& [key, value] : args.keywords) {
      bool ok = false;
      std::string names;
      for (std::string_view k : keys) {
        ok |= key.text == k;
        names += (names.empty() ? "" : ", ") + std::string(k);
      }
      if (!ok) {
        Fail(key, "R." + kind + " has no argument '" + key.text + "'" +
                      (names.empty() ? "" : " (it takes " + names + ")"));
      }
    }
  };
  auto dims_of = [&](const Value& v) {
    if (v.kind != Value::kTuple && v.kind != Value::kList) {
      Fail(v.at, "expected the dims of R." + kind + " as a tuple or list, such as (n, 4)");
    }
    std::vector<PrimExpr> dims;
    for (const Value& d : v.items) dims.push_back(AsDim(d));
    return dims;
  };
  auto ndim_of = [&](const Value& v) {
    if (v.kind != Value::kInt || v.int_value < kUnknownNDim || v.int_value > (1 << 20)) {
      Fail(v.at, "ndim must be an integer >= -1");
    }
    return static_cast<int>(v.int_value);
  };
  auto at_positional = [&](size_t i, const char* key) -> const Value* {
    const Value* v = i < args.positional.size() ? &args.positional[i] : nullptr;
    const Value* k = args.Keyword(key);
    if (v != nullptr && k != nullptr) Fail(at, "R." + kind + ": '" + key + "' given twice");
    return v != nullptr ? v : k;
  };

  StructInfo sinfo;
  if (kind == "Object") {
    allow(0, {});
    sinfo = ObjectStructInfo();
  } else if (kind == "Tensor") {
    allow(2, {"shape", "dtype", "ndim"});
    const Value* shape = at_positional(0, "shape");
    const Value* dtype = at_positional(1, "dtype");
    const Value* ndim = args.Keyword("ndim");
    if (shape != nullptr && shape->kind == Value::kString && dtype == nullptr) {
      std::swap(shape, dtype);  // R.Tensor("float32", ndim=2)
    }
    DataType dt = DataType::Void();
    if (dtype != nullptr && dtype->kind != Value::kNone) {
      dt = AsDType(*dtype, "the dtype of R.Tensor");
      if (dt.is_handle()) Fail(dtype->at, "a tensor cannot hold handles");
    }
    int nd = ndim != nullptr ? ndim_of(*ndim) : kUnknownNDim;
    if (shape != nullptr && shape->kind != Value::kNone) {
      std::vector<PrimExpr> dims = dims_of(*shape);
      if (ndim != nullptr && nd != static_cast<int>(dims.size())) {
        Fail(ndim->at, "ndim=" + std::to_string(nd) + " does not match a shape of " +
                           std::to_string(dims.size()) + " dims");
      }
      sinfo = Build(at, [&] { return TensorStructInfo(dims, dt); });
    } else {
      sinfo = Build(at, [&] { return TensorStructInfo(dt, nd); });
    }
  } else if (kind == "Shape") {
    allow(1, {"values", "ndim"});
    const Value* values = at_positional(0, "values");
    const Value* ndim = args.Keyword("ndim");
    if (values != nullptr && values->kind != Value::kNone) {
      std::vector<PrimExpr> dims = dims_of(*values);
      if (ndim != nullptr && ndim_of(*ndim) != static_cast<int>(dims.size())) {
        Fail(ndim->at, "ndim does not match the number of values");
      }
      sinfo = Build(at, [&] { return ShapeStructInfo(dims); });
    } else {
      int nd = ndim != nullptr ? ndim_of(*ndim) : kUnknownNDim;
      sinfo = Build(at, [&] { return ShapeStructInfo(nd); });
    }
  } else if (kind == "Prim") {
    allow(1, {"dtype", "value"});
    const Value* dtype = at_positional(0, "dtype");
    const Value* value = args.Keyword("value");
    if (value != nullptr) {
      PrimExpr v = AsDim(*value);
      if (dtype != nullptr && AsDType(*dtype, "the dtype of R.Prim") != DataType::Int(64)) {
        Fail(dtype->at, "R.Prim with a value is an int64 scalar");
      }
      sinfo = Build(at, [&] { return PrimStructInfo(v); });
    } else if (dtype != nullptr) {
      sinfo = PrimStructInfo(AsDType(*dtype, "the dtype of R.Prim"));
    } else {
      Fail(at, "R.Prim needs a dtype or a value: R.Prim(\"float32\"), R.Prim(value=n)");
    }
  } else if (kind == "Tuple") {
    allow(static_cast<size_t>(-1), {});
    std::vector<const Value*> items;
    if (args.positional.size() == 1 &&
        (args.positional[0].kind == Value::kList || args.positional[0].kind == Value::kTuple)) {
      for (const Value& v : args.positional[0].items) items.push_back(&v);
    } else {
      for (const Value& v : args.positional) items.push_back(&v);
    }
    std::vector<StructInfo> fields;
    for (const Value* v : items) fields.push_back(AsSInfo(*v));
    sinfo = TupleStructInfo(std::move(fields));
  } else {  // Callable
    allow(2, {"purity"});
    if (args.positional.size() != 2) {
      Fail(at, "R.Callable takes the parameters and the result: R.Callable((R.Tensor,), R.Tensor)");
    }
    const Value& params = args.positional[0];
    if (params.kind != Value::kList && params.kind != Value::kTuple) {
      Fail(params.at, "expected the parameters of R.Callable as a tuple or list");
    }
    std::vector<StructInfo> param_infos;
    for (const Value& p : params.items) param_infos.push_back(AsSInfo(p));
    sinfo = FuncStructInfo(std::move(param_infos), AsSInfo(args.positional[1]));
  }
  Value v;
  v.kind = Value::kSInfo;
  v.at = at;
  v.sinfo = std::move(sinfo);
  return v;
}

// A dim written as a string ("n", "n * 2 + 1"): its text is read as a dim expression, with
// error places inside the string literal.
PrimExpr RelaxParser::ParseDimString(const Value& v) {
  size_t begin = v.str.find_first_not_of(' ');
  size_t end = v.str.find_last_not_of(' ');
  std::string text = begin == std::string::npos ? "" : v.str.substr(begin, end - begin + 1);
  if (text.empty()) Fail(v.at, "empty dim string");
  SourceText inner(text, source_.name());
  std::vector<Token> tokens;
  try {
    tokens = Tokenize(inner);
  } catch (const Error&) {
    Fail(v.at, "bad dim string " + ir::QuoteString(v.str) +
                   ": expected an integer expression such as \"n * 2\"");
  }
  for (Token& t : tokens) {
    t.line = v.at.line;
    t.column += v.at.column + static_cast<int>(begin);
  }
  // Reads the string's tokens in place of the file's, and restores them whatever happens.
  struct Swap {
    RelaxParser& p;
    const std::vector<Token>* tokens;
    size_t pos;
    ~Swap() {
      p.tokens_ = tokens;
      p.pos_ = pos;
    }
  } swap{*this, tokens_, pos_};
  tokens_ = &tokens;
  pos_ = 0;
  Value d = ParseValue();
  if (Peek().kind != TokenKind::kNewline && Peek().kind != TokenKind::kEnd) {
    Expected("the end of the dim string");
  }
  if (d.kind != Value::kInt && d.kind != Value::kDim) {
    Fail(v.at, "expected an integer dim in the string " + ir::QuoteString(v.str));
  }
  return AsDim(d);
}

}  // namespace kiln::ir::relax::text
