// Helpers of the TVMScript printer: names Python reserves, exact literals, free variables.
#include "ir/text/print_util.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "ir/functor.h"

namespace kiln::ir {

const std::vector<RenamedAttrKey>& RenamedAttrKeys() {
  static const std::vector<RenamedAttrKey> keys = {{"tir.noalias", "tirx.noalias"},
                                                   {"tir.is_scheduled", "tirx.is_scheduled"}};
  return keys;
}

const std::unordered_set<std::string>& ReservedNames() {
  static const std::unordered_set<std::string> names = {
      "T",      "and",   "as",     "assert", "break",  "class",   "continue", "def",
      "del",    "elif",  "else",   "except", "False",  "finally", "for",      "from",
      "global", "if",    "import", "in",     "is",     "lambda",  "None",     "nonlocal",
      "not",    "or",    "pass",   "raise",  "return", "True",    "try",      "while",
      "with",   "yield", "range",  "print",  "TypeVar"};
  return names;
}

std::string IdentifierFrom(const std::string& hint) {
  std::string name;
  for (char c : hint) {
    name += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  }
  if (name.empty()) name = "v";
  if (std::isdigit(static_cast<unsigned char>(name[0]))) name.insert(0, "v_");
  return name;
}

std::string QuoteString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

// The shortest decimal text that reads back as exactly `v`; inf and nan as quoted strings.
std::string FloatLiteral(double v) {
  if (std::isnan(v)) return std::signbit(v) ? "\"-nan\"" : "\"nan\"";
  if (std::isinf(v)) return v < 0 ? "\"-inf\"" : "\"inf\"";
  char buf[40];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  std::string text = buf;
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

// The variables a function uses without defining them (by a loop, a block, a let, or as a
// parameter or a buffer's data), in order of first use: symbolic shape variables declared
// with `n = T.int32()`. The printer declares them so that the text reads back.
std::vector<Var> FreeVars(const PrimFuncNode& f) {
  struct Collector : IRVisitor {
    std::vector<Var> uses;
    std::unordered_set<const VarNode*> seen, defined;
    void Use(const Var& v) {
      if (seen.insert(v.get()).second) uses.push_back(v);
    }
    void Define(const Buffer& b) {
      if (b.defined() && b->data.defined()) defined.insert(b->data.get());
    }
    void VisitExpr_(const VarNode* op) override { Use(GetRef<Var>(op)); }
    void VisitExpr_(const LetNode* op) override {
      defined.insert(op->var.get());
      IRVisitor::VisitExpr_(op);
    }
    void VisitStmt_(const ForNode* op) override {
      defined.insert(op->loop_var.get());
      IRVisitor::VisitStmt_(op);
    }
    void VisitStmt_(const LetStmtNode* op) override {
      defined.insert(op->var.get());
      IRVisitor::VisitStmt_(op);
    }
    void VisitStmt_(const BlockNode* op) override {
      for (const IterVar& iv : op->iter_vars) defined.insert(iv.var.get());
      for (const Buffer& b : op->alloc_buffers) Define(b);
      IRVisitor::VisitStmt_(op);
    }
    void VisitStmt_(const AllocateNode* op) override {
      Define(op->buffer);
      IRVisitor::VisitStmt_(op);
    }
    void VisitStmt_(const DeclBufferNode* op) override {
      Define(op->buffer);
      IRVisitor::VisitStmt_(op);
    }
    void VisitStmt_(const SparseIterationNode* op) override {
      for (const SpIterVar& iv : op->iter_vars) defined.insert(iv.var.get());
      IRVisitor::VisitStmt_(op);
    }
  } collector;
  for (const SparseBuffer& sb : f.sp_buffers) collector.Define(sb.buffer);
  for (const Var& p : f.params) collector.defined.insert(p.get());
  for (const auto& [param, buffer] : f.buffer_map) collector.Define(buffer);
  // The signature's shape variables first, in parameter order, as TVM declares them.
  for (const auto& [param, buffer] : f.buffer_map) {
    for (const Expr& e : buffer->shape) collector.VisitExpr(e);
    for (const Expr& e : buffer->strides) collector.VisitExpr(e);
    if (buffer->elem_offset.defined()) collector.VisitExpr(buffer->elem_offset);
  }
  for (const Axis& axis : f.sp_axes) {
    collector.VisitExpr(axis->length);
    if (axis->nnz.defined()) collector.VisitExpr(axis->nnz);
  }
  for (const auto& [key, value] : f.attrs) {
    if (value.defined()) collector.VisitExpr(value);
  }
  if (f.body.defined()) collector.VisitStmt(f.body);
  std::vector<Var> free;
  for (const Var& v : collector.uses) {
    if (!collector.defined.count(v.get())) free.push_back(v);
  }
  return free;
}

std::vector<Var> FreeVarsOf(const Expr& e) {
  struct Collector : IRVisitor {
    std::vector<Var> vars;
    void VisitExpr_(const VarNode* op) override { vars.push_back(GetRef<Var>(op)); }
  } collector;
  if (e.defined()) collector.VisitExpr(e);
  return collector.vars;
}

bool ContainsBlock(const Stmt& s) {
  struct Finder : IRVisitor {
    bool found = false;
    void VisitStmt_(const BlockNode*) override { found = true; }
  } finder;
  if (s.defined()) finder.VisitStmt(s);
  return finder.found;
}

}  // namespace kiln::ir
