// SparseFormat's spelling: the parser, the printer and the range checks they share.
#include "compiler/sparse/formats/sparse_format.h"

#include <charconv>
#include <vector>

#include "support/error.h"

namespace kiln::compiler::sparse {

namespace {

constexpr const char* kExpected = "expected csr, bsr:R:C, ell:W or hyb:P:B";

[[noreturn]] void Fail(const std::string& text, const std::string& what) {
  throw Error(ErrorKind::kParse, "sparse format '" + text + "': " + what);
}

void CheckRange(const std::string& text, const char* field, int64_t value, int64_t low,
                int64_t high) {
  if (value < low) Fail(text, std::string(field) + " must be >= " + std::to_string(low));
  if (value > high) Fail(text, std::string(field) + " must be <= " + std::to_string(high));
}

int64_t Field(const std::string& text, const std::string& field, const char* name) {
  int64_t value = 0;
  const char* end = field.data() + field.size();
  auto [ptr, ec] = std::from_chars(field.data(), end, value);
  if (field.empty() || ec != std::errc() || ptr != end) {
    Fail(text, std::string(name) + " '" + field + "' is not an integer");
  }
  return value;
}

std::vector<std::string> SplitColons(const std::string& text) {
  std::vector<std::string> parts(1);
  for (char ch : text) {
    if (ch == ':') {
      parts.emplace_back();
    } else {
      parts.back() += ch;
    }
  }
  return parts;
}

SparseFormat Checked(const SparseFormat& f, const std::string& text) {
  switch (f.kind) {
    case FormatKind::kCsr:
      break;
    case FormatKind::kBsr:
      CheckRange(text, "block rows", f.block_rows, 1, 256);
      CheckRange(text, "block cols", f.block_cols, 1, 256);
      break;
    case FormatKind::kEll:
      CheckRange(text, "ELL width", f.width, 1, 65536);
      break;
    case FormatKind::kHyb:
      CheckRange(text, "column partitions", f.partitions, 1, 1024);
      CheckRange(text, "buckets", f.buckets, 1, 16);
      break;
  }
  return f;
}

}  // namespace

const char* FormatKindName(FormatKind kind) {
  switch (kind) {
    case FormatKind::kCsr:
      return "csr";
    case FormatKind::kBsr:
      return "bsr";
    case FormatKind::kEll:
      return "ell";
    case FormatKind::kHyb:
      return "hyb";
  }
  return "?";
}

std::string FormatSpelling(const SparseFormat& f) {
  std::string name = FormatKindName(f.kind);
  switch (f.kind) {
    case FormatKind::kCsr:
      return name;
    case FormatKind::kBsr:
      return name + ":" + std::to_string(f.block_rows) + ":" + std::to_string(f.block_cols);
    case FormatKind::kEll:
      return name + ":" + std::to_string(f.width);
    case FormatKind::kHyb:
      return name + ":" + std::to_string(f.partitions) + ":" + std::to_string(f.buckets);
  }
  return name;
}

SparseFormat BsrFormat(int64_t block_rows, int64_t block_cols) {
  SparseFormat f;
  f.kind = FormatKind::kBsr;
  f.block_rows = block_rows;
  f.block_cols = block_cols;
  return Checked(f, FormatSpelling(f));
}

SparseFormat EllFormat(int64_t width) {
  SparseFormat f;
  f.kind = FormatKind::kEll;
  f.width = width;
  return Checked(f, FormatSpelling(f));
}

SparseFormat HybFormat(int64_t partitions, int64_t buckets) {
  SparseFormat f;
  f.kind = FormatKind::kHyb;
  f.partitions = partitions;
  f.buckets = buckets;
  return Checked(f, FormatSpelling(f));
}

SparseFormat ParseSparseFormat(const std::string& text) {
  std::vector<std::string> parts = SplitColons(text);
  const std::string& name = parts[0];
  auto arity = [&](size_t fields, const char* spelling) {
    if (parts.size() != fields + 1) {
      Fail(text, "expected " + std::string(spelling) + " (" + std::to_string(fields) +
                     (fields == 1 ? " field" : " fields") + " after '" + name + "')");
    }
  };
  SparseFormat f;
  if (name == "csr") {
    arity(0, "csr");
  } else if (name == "bsr") {
    arity(2, "bsr:R:C");
    f.kind = FormatKind::kBsr;
    f.block_rows = Field(text, parts[1], "block rows");
    f.block_cols = Field(text, parts[2], "block cols");
  } else if (name == "ell") {
    arity(1, "ell:W");
    f.kind = FormatKind::kEll;
    f.width = Field(text, parts[1], "ELL width");
  } else if (name == "hyb") {
    arity(2, "hyb:P:B");
    f.kind = FormatKind::kHyb;
    f.partitions = Field(text, parts[1], "column partitions");
    f.buckets = Field(text, parts[2], "buckets");
  } else {
    Fail(text, std::string("unknown format (") + kExpected + ")");
  }
  return Checked(f, text);
}

}  // namespace kiln::compiler::sparse
