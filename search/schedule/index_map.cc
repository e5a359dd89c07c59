// IndexMap: lambda text in both directions (through ir/text's parser and printer).
#include "search/schedule/index_map.h"

#include <cctype>
#include <unordered_set>

#include "ir/text/parser.h"
#include "ir/text/print_util.h"
#include "ir/text/printer.h"
#include "search/schedule/primitive/utils.h"

namespace kiln::search {

using namespace ir;

namespace {

bool IsIdentifier(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return !ReservedNames().count(name);
}

}  // namespace

IndexMap IndexMap::Parse(std::string_view text, DataType dtype) {
  IndexLambda lambda = ParseIndexLambda(text, dtype);
  return IndexMap{std::move(lambda.params), std::move(lambda.results)};
}

IndexMap IndexMap::FromFunction(size_t ndim,
                                const std::function<std::vector<Expr>(const std::vector<Var>&)>& fn,
                                DataType dtype) {
  IndexMap map;
  for (size_t i = 0; i < ndim; ++i) map.params.emplace_back("i" + std::to_string(i), dtype);
  map.results = fn(map.params);
  std::unordered_set<const VarNode*> own;
  for (const Var& p : map.params) own.insert(p.get());
  for (const Expr& e : map.results) {
    KILN_CHECK(e.defined() && e.dtype().is_int() && e.dtype().lanes() == 1, ErrorKind::kSchedule,
               "index map: every result must be a scalar integer expression");
    for (const Var& v : FreeVarsOf(e)) {
      KILN_CHECK(own.count(v.get()) > 0, ErrorKind::kSchedule,
                 "index map: result uses " + v.name() + ", which is not one of its parameters");
    }
  }
  return map;
}

std::string IndexMap::ToText() const {
  // Printed names must be distinct identifiers so that the text reads back to this map.
  std::unordered_set<std::string> taken;
  VarMap rename;
  std::string text = "lambda ";
  for (size_t i = 0; i < params.size(); ++i) {
    std::string name = params[i].name();
    if (!IsIdentifier(name) || taken.count(name)) name = "i" + std::to_string(i);
    for (int k = 1; taken.count(name); ++k)
      name = "i" + std::to_string(i) + "_" + std::to_string(k);
    taken.insert(name);
    if (name != params[i].name()) rename[params[i].get()] = Var(name, params[i].dtype());
    text += (i ? ", " : "") + name;
  }
  text += ": (";
  for (size_t i = 0; i < results.size(); ++i) {
    text += (i ? ", " : "") + PrintExpr(Substitute(results[i], rename));
  }
  return text + (results.size() == 1 ? ",)" : ")");
}

std::vector<Expr> IndexMap::Apply(const std::vector<Expr>& indices) const {
  KILN_CHECK(indices.size() == params.size(), ErrorKind::kSchedule,
             "index map " + ToText() + " takes " + std::to_string(params.size()) +
                 " indices, got " + std::to_string(indices.size()));
  VarMap map;
  for (size_t i = 0; i < params.size(); ++i) map[params[i].get()] = indices[i];
  std::vector<Expr> out;
  for (const Expr& e : results) out.push_back(Substitute(e, map));
  return out;
}

}  // namespace kiln::search
