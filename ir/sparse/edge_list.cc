// The edge-list reader: names numbered on first sight, last weight wins, then CSR.
#include "ir/sparse/edge_list.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <unordered_map>
#include <utility>

#include "support/error.h"
#include "support/file.h"

namespace kiln::ir::sparse {

CsrMatrix ParseEdgeList(std::string_view text, const std::string& name, bool undirected,
                        EdgeListInfo* info) {
  std::unordered_map<std::string, int64_t> ids;
  std::vector<std::string> names;
  auto id_of = [&](std::string_view word) {
    auto [it, inserted] = ids.emplace(std::string(word), static_cast<int64_t>(names.size()));
    if (inserted) names.emplace_back(word);
    return it->second;
  };
  struct Edge {
    int64_t row, col;
    double value;
  };
  std::vector<Edge> edges;
  int64_t edge_lines = 0;
  size_t pos = 0;
  int64_t line_number = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_number;
    size_t hash = line.find('#');
    if (hash != std::string_view::npos) line = line.substr(0, hash);
    std::vector<std::string_view> words;
    for (size_t i = 0; i < line.size();) {
      while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
      size_t start = i;
      while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
      if (i > start) words.push_back(line.substr(start, i - start));
    }
    if (words.empty()) continue;
    auto fail = [&](const std::string& what) {
      throw Error(ErrorKind::kParse, name + ":" + std::to_string(line_number) + ": " + what);
    };
    if (words.size() > 3 || words.size() < 2) {
      fail("expected 'source target [weight]', found " + std::to_string(words.size()) +
           (words.size() == 1 ? " word" : " words"));
    }
    double value = 1.0;
    if (words.size() == 3) {
      std::string s(words[2]);
      char* stop = nullptr;
      value = std::strtod(s.c_str(), &stop);
      if (stop != s.c_str() + s.size() || !std::isfinite(value)) {
        fail("weight: '" + s.substr(0, 40) + "' is not a finite number");
      }
    }
    int64_t u = id_of(words[0]);
    int64_t v = id_of(words[1]);
    edges.push_back({u, v, value});
    if (undirected && u != v) edges.push_back({v, u, value});
    ++edge_lines;
  }
  // The last weight given for an edge wins: stable order, keep the last of each run.
  std::stable_sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) {
    return a.row != b.row ? a.row < b.row : a.col < b.col;
  });
  std::vector<CooEntry> entries;
  entries.reserve(edges.size());
  int64_t repeated_entries = 0;
  for (size_t k = 0; k < edges.size(); ++k) {
    if (k + 1 < edges.size() && edges[k + 1].row == edges[k].row &&
        edges[k + 1].col == edges[k].col) {
      ++repeated_entries;
      continue;
    }
    entries.push_back({edges[k].row, edges[k].col, edges[k].value});
  }
  const int64_t n = static_cast<int64_t>(names.size());
  CsrMatrix m;
  try {
    m = CsrFromEntries(n, n, std::move(entries));
  } catch (const Error& e) {
    throw Error(e.kind(), name + ": " + e.what());
  }
  if (info) {
    info->names = std::move(names);
    info->edge_lines = edge_lines;
    info->repeated = repeated_entries;
  }
  return m;
}

CsrMatrix ReadEdgeList(const std::string& path, bool undirected, EdgeListInfo* info) {
  return ParseEdgeList(ReadFile(path), path, undirected, info);
}

}  // namespace kiln::ir::sparse
