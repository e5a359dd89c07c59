// Workgroup storage of a WGSL entry point (workgroup_storage.h).
#include "runtime/webgpu/workgroup_storage.h"

#include <cctype>
#include <optional>
#include <regex>
#include <set>

namespace kiln::runtime::webgpu {
namespace {

struct Layout {
  int64_t size = 0;
  int64_t align = 0;
};

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  size_t e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// WGSL's size and alignment of `type` (scalars, vectors, fixed-size arrays of them).
std::optional<Layout> LayoutOf(const std::string& text) {
  std::string type = Trim(text);
  if (type == "f32" || type == "i32" || type == "u32" || type == "atomic<i32>" ||
      type == "atomic<u32>") {
    return Layout{4, 4};
  }
  if (type == "f16") return Layout{2, 2};
  std::smatch m;
  static const std::regex vec(R"(^vec([234])(?:<\s*(\w+)\s*>|([fhiu]))$)");
  if (std::regex_match(type, m, vec)) {
    int lanes = m[1].str()[0] - '0';
    std::string element = m[2].matched ? m[2].str() : m[3].str();
    int64_t scalar = element == "f16" || element == "h" ? 2 : 4;
    int64_t align = scalar * (lanes == 3 ? 4 : lanes);
    return Layout{scalar * lanes, align};
  }
  static const std::regex array(R"(^array\s*<(.*),\s*(\d+)[iu]?\s*>$)");
  if (std::regex_match(type, m, array)) {
    std::optional<Layout> element = LayoutOf(m[1].str());
    if (!element) return std::nullopt;
    int64_t stride = (element->size + element->align - 1) / element->align * element->align;
    return Layout{stride * std::stoll(m[2].str()), element->align};
  }
  return std::nullopt;
}

bool IsIdentifierChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The body of `fn name(...) ... { ... }`, or nullopt.
std::optional<std::string> BodyOf(const std::string& wgsl, const std::string& name) {
  std::regex header("\\bfn\\s+" + name + "\\s*\\(");
  std::smatch m;
  if (!std::regex_search(wgsl, m, header)) return std::nullopt;
  size_t open = wgsl.find('{', m.position(0) + m.length(0));
  if (open == std::string::npos) return std::nullopt;
  int depth = 0;
  for (size_t i = open; i < wgsl.size(); ++i) {
    if (wgsl[i] == '{') ++depth;
    if (wgsl[i] == '}' && --depth == 0) return wgsl.substr(open, i - open + 1);
  }
  return std::nullopt;
}

bool Names(const std::string& text, const std::string& name) {
  for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
    bool starts = at == 0 || !IsIdentifierChar(text[at - 1]);
    size_t end = at + name.size();
    bool ends = end >= text.size() || !IsIdentifierChar(text[end]);
    if (starts && ends) return true;
  }
  return false;
}

}  // namespace

WorkgroupStorage WorkgroupStorageOf(const std::string& wgsl, const std::string& entry_point) {
  WorkgroupStorage storage;
  std::optional<std::string> body = BodyOf(wgsl, entry_point);
  static const std::regex declaration(R"(var\s*<\s*workgroup\s*>\s*(\w+)\s*:\s*([^;]+);)");
  for (std::sregex_iterator it(wgsl.begin(), wgsl.end(), declaration), end; it != end; ++it) {
    std::string name = (*it)[1].str();
    if (body && !Names(*body, name)) continue;
    std::optional<Layout> layout = LayoutOf((*it)[2].str());
    if (!layout) {
      if (storage.unknown.empty()) storage.unknown = name;
      continue;
    }
    storage.bytes += (layout->size + 15) / 16 * 16;
  }
  return storage;
}

}  // namespace kiln::runtime::webgpu
