// Structural equality and hash over the canonical token stream (see structural.h).
#include "ir/structural.h"

#include <cstdio>
#include <unordered_map>

#include "ir/functor.h"
#include "support/stable_hash.h"

namespace kiln::ir {
namespace {

// Receives the canonical stream. Equality compares two recorded streams; hashing feeds a
// StableHasher; the readable form appends text.
struct TokenSink {
  virtual ~TokenSink() = default;
  virtual void Tag(const char* tag) = 0;  // a node kind or structural marker
  virtual void Int(int64_t v) = 0;
  virtual void Double(double v) = 0;
  virtual void String(const std::string& s) = 0;
};

struct HashSink : TokenSink {
  StableHasher hasher;
  void Tag(const char* tag) override { hasher.String(tag); }
  void Int(int64_t v) override { hasher.Int(v); }
  void Double(double v) override { hasher.Double(v); }
  void String(const std::string& s) override { hasher.String(s); }
};

// Records tokens as strings; two streams are equal when their token lists are.
struct RecordSink : TokenSink {
  std::vector<std::string> tokens;
  void Tag(const char* tag) override { tokens.emplace_back(tag); }
  void Int(int64_t v) override { tokens.push_back("i" + std::to_string(v)); }
  void Double(double v) override {
    char buf[40];
    std::snprintf(buf, sizeof buf, "f%a", v);
    tokens.emplace_back(buf);
  }
  void String(const std::string& s) override { tokens.push_back("s" + s); }
};

// Walks IR in a fixed order and writes its canonical form to a sink.
class CanonicalWriter {
 public:
  explicit CanonicalWriter(TokenSink& sink) : sink_(sink) {}

  void Write(const PrimFunc& f) {
    sink_.Tag("PrimFunc");
    sink_.Int(static_cast<int64_t>(f->params.size()));
    for (const Var& p : f->params) {
      WriteVar(p);
      auto buffer = f->BufferOf(p);
      sink_.Int(buffer.has_value());
      if (buffer) Write(*buffer);
    }
    // SparseTIR's declarations; absent from the stream of a TensorIR function, so that its
    // hash (pinned by tests) does not depend on them.
    if (!f->sp_axes.empty() || !f->sp_buffers.empty()) {
      sink_.Tag("SparseDecls");
      Write(f->sp_axes);
      sink_.Int(static_cast<int64_t>(f->sp_buffers.size()));
      for (const SparseBuffer& sb : f->sp_buffers) {
        Write(sb.buffer);
        Write(sb.axes);
        sink_.Int(sb.param.defined());
        if (sb.param.defined()) WriteVar(sb.param);
        Write(sb.extra_storage);
      }
    }
    Annotations attrs = f->attrs;
    attrs.erase("global_symbol");  // the symbol name, like the function name, is not structure
    Write(attrs);
    Write(f->body);
  }

  void Write(const Expr& e) {
    if (!e.defined()) return sink_.Tag("null");
    if (e.as<VarNode>()) return WriteVar(Var(e.ptr()));
    sink_.Tag(NodeKindName(e.kind()));
    Write(e.dtype());
    switch (e.kind()) {
#define KILN_WRITE_FIELDS(name) \
  case NodeKind::k##name:       \
    return WriteFields(static_cast<const name##Node*>(e.get())->Fields());
      KILN_EXPR_NODES(KILN_WRITE_FIELDS)
#undef KILN_WRITE_FIELDS
      default:
        break;
    }
  }

  void Write(const Stmt& s) {
    if (!s.defined()) return sink_.Tag("null");
    sink_.Tag(NodeKindName(s.kind()));
    switch (s.kind()) {
#define KILN_WRITE_FIELDS(name) \
  case NodeKind::k##name:       \
    return WriteFields(static_cast<const name##Node*>(s.get())->Fields());
      KILN_STMT_NODES(KILN_WRITE_FIELDS)
#undef KILN_WRITE_FIELDS
      default:
        break;
    }
  }

 private:
  template <typename Tuple>
  void WriteFields(const Tuple& fields) {
    std::apply([&](const auto&... field) { (Write(field), ...); }, fields);
  }

  void WriteVar(const Var& v) {
    auto [it, inserted] = var_index_.emplace(v.get(), static_cast<int64_t>(var_index_.size()));
    sink_.Tag(inserted ? "VarDef" : "VarRef");
    sink_.Int(it->second);
    if (inserted) Write(v.dtype());
  }
  void Write(const Var& v) { WriteVar(v); }

  void Write(const Buffer& b) {
    if (!b.defined()) return sink_.Tag("null");
    auto [it, inserted] =
        buffer_index_.emplace(b.get(), static_cast<int64_t>(buffer_index_.size()));
    sink_.Tag(inserted ? "BufferDef" : "BufferRef");
    sink_.Int(it->second);
    if (!inserted) return;
    Write(b->dtype);
    Write(b->shape);
    Write(b->strides);
    Write(b->elem_offset);
    Write(b->scope);
    Write(b->align);
    WriteVar(b->data);
  }

  // An axis, like a buffer, is the index of its first appearance; its fields follow then.
  void Write(const Axis& a) {
    if (!a.defined()) return sink_.Tag("null");
    auto [it, inserted] = axis_index_.emplace(a.get(), static_cast<int64_t>(axis_index_.size()));
    sink_.Tag(inserted ? "AxisDef" : "AxisRef");
    sink_.Int(it->second);
    if (!inserted) return;
    sink_.String(AxisKindName(a->kind));
    Write(a.parent());
    Write(a->length);
    Write(a->nnz);
    Write(a->indptr);
    Write(a->indices);
    Write(a->idtype);
    sink_.Int(a->sorted ? 1 : 0);
  }
  void Write(const SpIterVar& iv) {
    WriteVar(iv.var);
    Write(iv.axis);
    sink_.Int(iv.is_reduction ? 1 : 0);
    sink_.Int(iv.fuse_group);
    Write(iv.attach);
  }
  void Write(const DataType& t) { sink_.String(t.ToString()); }
  void Write(const std::string& s) { sink_.String(s); }
  void Write(int64_t v) { sink_.Int(v); }
  void Write(double v) { sink_.Double(v); }
  void Write(ForKind k) { sink_.String(ForKindName(k)); }
  void Write(IterKind k) { sink_.String(IterKindName(k)); }
  void Write(const Range& r) { WriteFields(r.Fields()); }
  void Write(const IterVar& iv) { WriteFields(iv.Fields()); }
  void Write(const BufferRegion& br) { WriteFields(br.Fields()); }
  void Write(const Annotations& a) {
    sink_.Tag("Annotations");
    sink_.Int(static_cast<int64_t>(a.size()));
    for (const auto& [key, value] : a) {
      sink_.String(key);
      Write(value);
    }
  }
  template <typename T>
  void Write(const std::vector<T>& v) {
    sink_.Int(static_cast<int64_t>(v.size()));
    for (const T& x : v) Write(x);
  }

  TokenSink& sink_;
  std::unordered_map<const void*, int64_t> var_index_;
  std::unordered_map<const void*, int64_t> buffer_index_;
  std::unordered_map<const void*, int64_t> axis_index_;
};

template <typename T>
std::vector<std::string> Record(const T& x) {
  RecordSink sink;
  CanonicalWriter(sink).Write(x);
  return std::move(sink.tokens);
}

template <typename T>
uint64_t Hash(const T& x) {
  HashSink sink;
  CanonicalWriter(sink).Write(x);
  return sink.hasher.value();
}

}  // namespace

bool StructuralEqual(const PrimFunc& a, const PrimFunc& b) { return Record(a) == Record(b); }
bool StructuralEqual(const Stmt& a, const Stmt& b) { return Record(a) == Record(b); }
bool StructuralEqual(const Expr& a, const Expr& b) { return Record(a) == Record(b); }

uint64_t StructuralHash(const PrimFunc& f) { return Hash(f); }
uint64_t StructuralHash(const Stmt& s) { return Hash(s); }
uint64_t StructuralHash(const Expr& e) { return Hash(e); }

std::string StructuralHashHex(const PrimFunc& f) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(Hash(f)));
  return buf;
}

std::string CanonicalForm(const PrimFunc& f) {
  std::string out;
  for (const std::string& token : Record(f)) {
    out += token;
    out += ' ';
  }
  return out;
}

}  // namespace kiln::ir
