// The Matrix Market coordinate reader: banner, comments, size line, entries, then CSR.
#include "ir/sparse/matrix_market.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "support/error.h"
#include "support/file.h"

namespace kiln::ir::sparse {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The whitespace-separated words of `line`.
std::vector<std::string_view> Words(std::string_view line) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    size_t start = i;
    while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i > start) words.push_back(line.substr(start, i - start));
  }
  return words;
}

class Reader {
 public:
  Reader(std::string_view text, const std::string& name) : text_(text), name_(name) {}

  // The next line that is neither empty nor (after the banner) a comment; false at the end.
  bool NextLine(std::string_view* line, bool skip_comments = true) {
    while (pos_ < text_.size()) {
      size_t end = text_.find('\n', pos_);
      if (end == std::string_view::npos) end = text_.size();
      std::string_view l = text_.substr(pos_, end - pos_);
      if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
      pos_ = end + 1;
      ++line_number_;
      if (skip_comments && (Words(l).empty() || l.front() == '%')) continue;
      *line = l;
      return true;
    }
    return false;
  }

  [[noreturn]] void Fail(const std::string& what, ErrorKind kind = ErrorKind::kParse) const {
    throw Error(kind, name_ + ":" + std::to_string(line_number_) + ": " + what);
  }

  int64_t Integer(std::string_view word, const char* what) const {
    int64_t v = 0;
    auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), v);
    if (ec != std::errc() || end != word.data() + word.size()) {
      Fail(std::string(what) + ": '" + std::string(word) + "' is not an integer");
    }
    return v;
  }

  double Real(std::string_view word, const char* what) const {
    std::string s(word);
    char* end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size()) {
      Fail(std::string(what) + ": '" + s + "' is not a number");
    }
    if (!std::isfinite(v)) Fail(std::string(what) + ": '" + s + "' is not a finite number");
    return v;
  }

  int64_t line_number() const { return line_number_; }

 private:
  std::string_view text_;
  std::string name_;
  size_t pos_ = 0;
  int64_t line_number_ = 0;
};

}  // namespace

CsrMatrix ParseMatrixMarket(std::string_view text, const std::string& name,
                            MatrixMarketInfo* info) {
  Reader reader(text, name);
  std::string_view line;
  if (!reader.NextLine(&line, /*skip_comments=*/false)) reader.Fail("the file is empty");
  std::vector<std::string_view> banner = Words(line);
  if (banner.size() != 5 || Lower(banner[0]) != "%%matrixmarket") {
    reader.Fail(
        "expected the banner '%%MatrixMarket matrix coordinate <field> <symmetry>', found '" +
        std::string(line.substr(0, 80)) + "'");
  }
  std::string object = Lower(banner[1]), format = Lower(banner[2]);
  std::string field = Lower(banner[3]), symmetry = Lower(banner[4]);
  if (object != "matrix") reader.Fail("object '" + object + "': only 'matrix' is read");
  if (format == "array") {
    reader.Fail("the array (dense) format is not read; sparse matrices come in 'coordinate'",
                ErrorKind::kUnsupported);
  }
  if (format != "coordinate") reader.Fail("format '" + format + "': expected 'coordinate'");
  if (field == "complex") {
    reader.Fail("complex matrices are not read (fields: real, integer, pattern)",
                ErrorKind::kUnsupported);
  }
  if (field != "real" && field != "integer" && field != "pattern" && field != "double") {
    reader.Fail("field '" + field + "': expected real, integer or pattern");
  }
  if (field == "double") field = "real";
  if (symmetry == "hermitian") {
    reader.Fail("hermitian matrices are complex and not read", ErrorKind::kUnsupported);
  }
  if (symmetry != "general" && symmetry != "symmetric" && symmetry != "skew-symmetric") {
    reader.Fail("symmetry '" + symmetry + "': expected general, symmetric or skew-symmetric");
  }

  if (!reader.NextLine(&line)) reader.Fail("the size line 'rows cols entries' is missing");
  std::vector<std::string_view> size = Words(line);
  if (size.size() != 3) {
    reader.Fail("expected the size line 'rows cols entries', found '" +
                std::string(line.substr(0, 80)) + "'");
  }
  int64_t rows = reader.Integer(size[0], "rows");
  int64_t cols = reader.Integer(size[1], "columns");
  int64_t declared = reader.Integer(size[2], "entries");
  if (rows < 0 || cols < 0 || declared < 0) reader.Fail("the size line has a negative number");
  if (symmetry != "general" && rows != cols) {
    reader.Fail("a " + symmetry + " matrix must be square, this one is " + std::to_string(rows) +
                " x " + std::to_string(cols));
  }
  if (rows < (int64_t{1} << 31) && cols < (int64_t{1} << 31) && declared > rows * cols) {
    reader.Fail(std::to_string(declared) + " entries do not fit a " + std::to_string(rows) + " x " +
                std::to_string(cols) + " matrix");
  }

  bool pattern = field == "pattern";
  size_t per_line = pattern ? 2 : 3;
  std::vector<CooEntry> entries;
  entries.reserve(static_cast<size_t>(std::min<int64_t>(declared, int64_t{1} << 20)) *
                  (symmetry == "general" ? 1 : 2));
  int64_t read = 0;
  while (reader.NextLine(&line)) {
    if (read == declared) {
      reader.Fail("more entries than the " + std::to_string(declared) + " the size line declares");
    }
    std::vector<std::string_view> w = Words(line);
    if (w.size() != per_line) {
      reader.Fail("expected " + std::string(pattern ? "'row col'" : "'row col value'") +
                  ", found '" + std::string(line.substr(0, 80)) + "'");
    }
    int64_t i = reader.Integer(w[0], "row index");
    int64_t j = reader.Integer(w[1], "column index");
    if (i < 1 || i > rows) {
      reader.Fail("row index " + std::to_string(i) + " is out of range 1.." + std::to_string(rows));
    }
    if (j < 1 || j > cols) {
      reader.Fail("column index " + std::to_string(j) + " is out of range 1.." +
                  std::to_string(cols));
    }
    double v = 1.0;
    if (field == "integer") {
      v = static_cast<double>(reader.Integer(w[2], "value"));
    } else if (field == "real") {
      v = reader.Real(w[2], "value");
    }
    if (symmetry == "skew-symmetric" && i == j) {
      reader.Fail("a skew-symmetric matrix stores no diagonal entry (" + std::to_string(i) + ", " +
                  std::to_string(j) + ")");
    }
    entries.push_back({i - 1, j - 1, v});
    if (symmetry != "general" && i != j) {
      entries.push_back({j - 1, i - 1, symmetry == "skew-symmetric" ? -v : v});
    }
    ++read;
  }
  if (read != declared) {
    throw Error(ErrorKind::kParse, name + ": the size line declares " + std::to_string(declared) +
                                       " entries, the file ends after " + std::to_string(read) +
                                       " (line " + std::to_string(reader.line_number()) + ")");
  }
  int64_t duplicates = 0;
  CsrMatrix m;
  try {
    m = CsrFromEntries(rows, cols, std::move(entries), &duplicates);
  } catch (const Error& e) {
    throw Error(e.kind(), name + ": " + e.what());
  }
  if (info) {
    info->field = field;
    info->symmetry = symmetry;
    info->entries = read;
    info->duplicates = duplicates;
  }
  return m;
}

CsrMatrix ReadMatrixMarket(const std::string& path, MatrixMarketInfo* info) {
  return ParseMatrixMarket(ReadFile(path), path, info);
}

}  // namespace kiln::ir::sparse
