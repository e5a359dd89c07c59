// The METIS graph reader: header (n, m, fmt, ncon), n vertex lines, then CSR.
#include "ir/sparse/metis_graph.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <utility>

#include "support/error.h"
#include "support/file.h"

namespace kiln::ir::sparse {
namespace {

// Lines of the text with their 1-based numbers; '\r' before '\n' is dropped.
class Lines {
 public:
  Lines(std::string_view text, const std::string& name) : text_(text), name_(name) {}

  // The next line (comments included); false at the end. A final '\n' ends the last line
  // and starts none.
  bool Next(std::string_view* line) {
    if (pos_ >= text_.size()) return false;
    size_t end = text_.find('\n', pos_);
    if (end == std::string_view::npos) end = text_.size();
    std::string_view l = text_.substr(pos_, end - pos_);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    pos_ = end + 1;
    ++number_;
    *line = l;
    return true;
  }

  [[noreturn]] void Fail(const std::string& what) const {
    throw Error(ErrorKind::kParse, name_ + ":" + std::to_string(number_) + ": " + what);
  }

  int64_t number() const { return number_; }

 private:
  std::string_view text_;
  const std::string& name_;
  size_t pos_ = 0;
  int64_t number_ = 0;
};

bool IsComment(std::string_view line) { return !line.empty() && line.front() == '%'; }

bool IsBlank(std::string_view line) {
  for (char c : line) {
    if (!std::isspace(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// The whitespace-separated words of a line, one at a time.
class Words {
 public:
  explicit Words(std::string_view line) : line_(line) {}
  bool Next(std::string_view* word) {
    while (pos_ < line_.size() && std::isspace(static_cast<unsigned char>(line_[pos_]))) ++pos_;
    if (pos_ == line_.size()) return false;
    size_t start = pos_;
    while (pos_ < line_.size() && !std::isspace(static_cast<unsigned char>(line_[pos_]))) ++pos_;
    *word = line_.substr(start, pos_ - start);
    return true;
  }

 private:
  std::string_view line_;
  size_t pos_ = 0;
};

int64_t Integer(const Lines& lines, std::string_view word, const std::string& what) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), v);
  if (ec != std::errc() || end != word.data() + word.size()) {
    lines.Fail(what + ": '" + std::string(word.substr(0, 40)) + "' is not an integer");
  }
  return v;
}

std::string Clip(std::string_view line) { return std::string(line.substr(0, 80)); }

}  // namespace

CsrMatrix ParseMetisGraph(std::string_view text, const std::string& name, MetisGraphInfo* info) {
  Lines lines(text, name);
  std::string_view line;
  // The header: the first line that is neither a comment nor blank.
  bool found = false;
  while (lines.Next(&line)) {
    if (!IsComment(line) && !IsBlank(line)) {
      found = true;
      break;
    }
  }
  if (!found) lines.Fail("the header line 'n m [fmt [ncon]]' is missing");
  std::vector<std::string_view> header;
  {
    Words words(line);
    std::string_view w;
    while (words.Next(&w)) header.push_back(w);
  }
  if (header.size() < 2 || header.size() > 4) {
    lines.Fail("expected the header 'n m [fmt [ncon]]', found '" + Clip(line) + "'");
  }
  const int64_t n = Integer(lines, header[0], "vertex count n");
  const int64_t m = Integer(lines, header[1], "edge count m");
  if (n < 0 || m < 0) lines.Fail("the header has a negative count");
  constexpr int64_t kMaxEdges = int64_t{1} << 30;  // 2m neighbour entries within 32 bits
  if (m > kMaxEdges) {
    lines.Fail(std::to_string(m) + " edges: at most " + std::to_string(kMaxEdges) + " are read");
  }
  bool vertex_sizes = false, vertex_weights = false, edge_weights = false;
  if (header.size() >= 3) {
    std::string_view fmt = header[2];
    bool digits = !fmt.empty() && fmt.size() <= 3;
    for (char c : fmt) digits = digits && (c == '0' || c == '1');
    if (!digits) {
      lines.Fail("fmt '" + std::string(fmt.substr(0, 20)) +
                 "': expected up to three digits, each 0 or 1 (vertex sizes, vertex weights, "
                 "edge weights)");
    }
    std::string padded = std::string(3 - fmt.size(), '0') + std::string(fmt);
    vertex_sizes = padded[0] == '1';
    vertex_weights = padded[1] == '1';
    edge_weights = padded[2] == '1';
  }
  int64_t ncon = vertex_weights ? 1 : 0;
  if (header.size() == 4) {
    ncon = Integer(lines, header[3], "ncon");
    if (!vertex_weights) {
      lines.Fail("ncon " + std::to_string(ncon) + " is given but fmt '" + std::string(header[2]) +
                 "' declares no vertex weights");
    }
    if (ncon < 1 || ncon > 1024) {
      lines.Fail("ncon " + std::to_string(ncon) + ": expected 1..1024 vertex weights per vertex");
    }
  }

  const int64_t declared_entries = 2 * m;
  std::vector<CooEntry> entries;
  entries.reserve(static_cast<size_t>(std::min<int64_t>(declared_entries, int64_t{1} << 22)));
  std::vector<int64_t> weights;
  int64_t vertex = 0;  // vertex lines read so far
  while (vertex < n && lines.Next(&line)) {
    if (IsComment(line)) continue;
    const int64_t v = vertex + 1;  // 1-based, as the file and its errors count
    const std::string of = "vertex " + std::to_string(v);
    Words words(line);
    std::string_view w;
    if (vertex_sizes) {
      if (!words.Next(&w)) lines.Fail(of + ": the vertex size is missing");
      if (Integer(lines, w, of + ": vertex size") < 0) {
        lines.Fail(of + ": the vertex size is negative");
      }
    }
    for (int64_t c = 0; vertex_weights && c < ncon; ++c) {
      if (!words.Next(&w)) {
        lines.Fail(of + ": expected " + std::to_string(ncon) + " vertex weights, found " +
                   std::to_string(c));
      }
      int64_t weight = Integer(lines, w, of + ": vertex weight");
      if (weight < 0) lines.Fail(of + ": vertex weight " + std::to_string(weight) + " is negative");
      weights.push_back(weight);
    }
    while (words.Next(&w)) {
      int64_t u = Integer(lines, w, of + ": neighbour");
      if (u < 1 || u > n) {
        lines.Fail(of + ": neighbour " + std::to_string(u) + " is out of range 1.." +
                   std::to_string(n));
      }
      if (u == v) {
        lines.Fail(of + " lists itself as a neighbour: METIS graphs have no self-loops");
      }
      double value = 1.0;
      if (edge_weights) {
        if (!words.Next(&w)) {
          lines.Fail(of + ": neighbour " + std::to_string(u) + " has no edge weight (fmt " +
                     std::string(header[2]) + " declares edge weights)");
        }
        int64_t weight = Integer(lines, w, of + ": edge weight");
        if (weight <= 0) {
          lines.Fail(of + ": edge weight " + std::to_string(weight) + " to neighbour " +
                     std::to_string(u) + " is not positive");
        }
        value = static_cast<double>(weight);
      }
      if (static_cast<int64_t>(entries.size()) == declared_entries) {
        lines.Fail("more neighbour entries than the 2m = " + std::to_string(declared_entries) +
                   " that the header's m = " + std::to_string(m) + " edges make");
      }
      entries.push_back({vertex, u - 1, value});
    }
    ++vertex;
  }
  if (vertex < n) {
    throw Error(ErrorKind::kParse, name + ": the header declares " + std::to_string(n) +
                                       " vertices, the file ends after " + std::to_string(vertex) +
                                       " vertex lines (line " + std::to_string(lines.number()) +
                                       ")");
  }
  while (lines.Next(&line)) {
    if (!IsComment(line) && !IsBlank(line)) {
      lines.Fail("a line after the " + std::to_string(n) + " vertex lines the header declares: '" +
                 Clip(line) + "'");
    }
  }
  if (static_cast<int64_t>(entries.size()) != declared_entries) {
    throw Error(ErrorKind::kParse, name + ": the header declares m = " + std::to_string(m) +
                                       " edges (2m = " + std::to_string(declared_entries) +
                                       " neighbour entries), the vertex lines list " +
                                       std::to_string(entries.size()) + " (line " +
                                       std::to_string(lines.number()) + ")");
  }
  int64_t duplicates = 0;
  CsrMatrix matrix;
  try {
    matrix = CsrFromEntries(n, n, std::move(entries), &duplicates);
  } catch (const Error& e) {
    throw Error(e.kind(), name + ": " + e.what());
  }
  if (info) {
    info->vertices = n;
    info->edges = m;
    info->vertex_sizes = vertex_sizes;
    info->vertex_weights = vertex_weights;
    info->edge_weights = edge_weights;
    info->ncon = vertex_weights ? ncon : 0;
    info->vertex_weight_values = std::move(weights);
    info->duplicates = duplicates;
  }
  return matrix;
}

CsrMatrix ReadMetisGraph(const std::string& path, MetisGraphInfo* info) {
  return ParseMetisGraph(ReadFile(path), path, info);
}

}  // namespace kiln::ir::sparse
