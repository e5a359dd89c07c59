// The Python-style lexer behind the TVMScript parsers.
#include "ir/text/lexer.h"

#include <cctype>

#include "support/error.h"

namespace kiln::ir {

const char* TokenKindName(TokenKind kind) {
  switch (kind) {
    case TokenKind::kName:
      return "name";
    case TokenKind::kInt:
      return "integer";
    case TokenKind::kFloat:
      return "float";
    case TokenKind::kString:
      return "string";
    case TokenKind::kOp:
      return "operator";
    case TokenKind::kNewline:
      return "end of line";
    case TokenKind::kIndent:
      return "indent";
    case TokenKind::kDedent:
      return "dedent";
    case TokenKind::kEnd:
      return "end of input";
  }
  return "?";
}

std::string Token::Describe() const {
  switch (kind) {
    case TokenKind::kName:
      return "name '" + text + "'";
    case TokenKind::kInt:
    case TokenKind::kFloat:
      return "number " + text;
    case TokenKind::kString:
      return "string";
    case TokenKind::kOp:
      return "'" + text + "'";
    case TokenKind::kNewline:
      return "end of line";
    case TokenKind::kIndent:
      return "an indented block";
    case TokenKind::kDedent:
      return "end of block";
    case TokenKind::kEnd:
      return "end of input";
  }
  return "?";
}

std::string SourceText::Format(int line, int column, std::string_view message) const {
  std::string out = name_ + ":" + std::to_string(line) + ":" + std::to_string(column) + ": ";
  out += message;
  // The offending line, so the reader needs no editor to see the place.
  size_t start = 0;
  for (int l = 1; l < line && start != std::string::npos; ++l) {
    start = text_.find('\n', start);
    if (start != std::string::npos) ++start;
  }
  if (start == std::string::npos || start > text_.size()) return out;
  size_t end = text_.find('\n', start);
  std::string excerpt = text_.substr(start, end == std::string::npos ? end : end - start);
  if (excerpt.size() > 200) return out;
  for (char& c : excerpt) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = ' ';
  }
  out += "\n    " + excerpt + "\n    ";
  int caret = std::max(1, std::min<int>(column, static_cast<int>(excerpt.size()) + 1));
  out += std::string(caret - 1, ' ') + "^";
  return out;
}

void SourceText::Fail(int line, int column, std::string_view message) const {
  throw Error(ErrorKind::kParse, Format(line, column, message));
}

namespace {

bool IsNameStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool IsDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

class Lexer {
 public:
  explicit Lexer(const SourceText& source) : source_(source), text_(source.text()) {}

  std::vector<Token> Run() {
    while (pos_ < text_.size()) {
      if (at_line_start_) {
        if (HandleLineStart()) continue;
      }
      LexToken();
    }
    if (!brackets_.empty()) {
      const Token& open = brackets_.back();
      source_.Fail(open, "'" + open.text + "' was never closed");
    }
    if (!tokens_.empty() && tokens_.back().kind != TokenKind::kNewline &&
        tokens_.back().kind != TokenKind::kDedent) {
      Push(TokenKind::kNewline, "", line_, Column());
    }
    while (indents_.size() > 1) {
      indents_.pop_back();
      Push(TokenKind::kDedent, "", line_, 1);
    }
    Push(TokenKind::kEnd, "", line_, Column());
    return std::move(tokens_);
  }

 private:
  int Column() const { return static_cast<int>(pos_ - line_start_) + 1; }

  void Push(TokenKind kind, std::string text, int line, int column) {
    tokens_.push_back(Token{kind, std::move(text), line, column});
  }

  void NewLine() {
    ++line_;
    line_start_ = pos_;
  }

  // Measures the indentation of a new line; returns true when the line was blank or a
  // comment (and so was consumed without tokens).
  bool HandleLineStart() {
    size_t p = pos_;
    int width = 0;
    while (p < text_.size() && (text_[p] == ' ' || text_[p] == '\t')) {
      if (text_[p] == '\t') {
        source_.Fail(line_, static_cast<int>(p - line_start_) + 1,
                     "tabs are not allowed in indentation");
      }
      ++width;
      ++p;
    }
    if (p >= text_.size()) {
      pos_ = p;
      return true;
    }
    if (text_[p] == '#' || text_[p] == '\n' || text_[p] == '\r') {
      while (p < text_.size() && text_[p] != '\n') ++p;
      pos_ = p;
      if (pos_ < text_.size()) {
        ++pos_;
        NewLine();
      }
      return true;
    }
    pos_ = p;
    at_line_start_ = false;
    if (width > indents_.back()) {
      indents_.push_back(width);
      Push(TokenKind::kIndent, "", line_, Column());
    } else {
      while (width < indents_.back()) {
        indents_.pop_back();
        Push(TokenKind::kDedent, "", line_, Column());
      }
      if (width != indents_.back()) {
        source_.Fail(line_, Column(), "unindent does not match any outer indentation level");
      }
    }
    return false;
  }

  void LexToken() {
    char c = text_[pos_];
    if (c == ' ' || c == '\t' || c == '\r') {
      ++pos_;
      return;
    }
    if (c == '#') {
      while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      return;
    }
    if (c == '\\') {
      // A line continuation: the backslash ends its line (before an optional '\r').
      size_t p = pos_ + 1;
      if (p < text_.size() && text_[p] == '\r') ++p;
      if (p >= text_.size() || text_[p] != '\n') {
        source_.Fail(line_, Column(), "unexpected character '\\'");
      }
      pos_ = p + 1;
      NewLine();
      return;
    }
    if (c == '\n') {
      if (brackets_.empty() && !tokens_.empty() && tokens_.back().kind != TokenKind::kNewline) {
        Push(TokenKind::kNewline, "", line_, Column());
      }
      ++pos_;
      NewLine();
      if (brackets_.empty()) at_line_start_ = true;
      return;
    }
    int column = Column();
    if (IsNameStart(c)) {
      size_t start = pos_;
      while (pos_ < text_.size() && IsNameChar(text_[pos_])) ++pos_;
      Push(TokenKind::kName, std::string(text_.substr(start, pos_ - start)), line_, column);
      return;
    }
    if (IsDigit(c) || (c == '.' && pos_ + 1 < text_.size() && IsDigit(text_[pos_ + 1]))) {
      LexNumber(column);
      return;
    }
    if (c == '"' || c == '\'') {
      LexString(column);
      return;
    }
    static constexpr std::string_view kTwoChar[] = {"//", "==", "!=", "<=", ">=", "->", "**",
                                                    "+=", "-=", "*=", "/=", "%=", "<<", ">>"};
    for (std::string_view op : kTwoChar) {
      if (text_.substr(pos_, 2) == op) {
        pos_ += 2;
        Push(TokenKind::kOp, std::string(op), line_, column);
        return;
      }
    }
    static constexpr std::string_view kOneChar = "()[]{},:.=+-*/%<>@&|^~";
    if (kOneChar.find(c) == std::string_view::npos) {
      std::string shown = std::isprint(static_cast<unsigned char>(c))
                              ? std::string("'") + c + "'"
                              : "byte " + std::to_string(static_cast<unsigned char>(c));
      source_.Fail(line_, column, "unexpected character " + shown);
    }
    ++pos_;
    Token token{TokenKind::kOp, std::string(1, c), line_, column};
    if (c == '(' || c == '[' || c == '{') {
      brackets_.push_back(token);
    } else if (c == ')' || c == ']' || c == '}') {
      if (brackets_.empty()) source_.Fail(token, "unmatched '" + token.text + "'");
      char open = brackets_.back().text[0];
      if ((c == ')' && open != '(') || (c == ']' && open != '[') || (c == '}' && open != '{')) {
        source_.Fail(token, "closing '" + token.text + "' does not match '" +
                                brackets_.back().text + "' at line " +
                                std::to_string(brackets_.back().line));
      }
      brackets_.pop_back();
    }
    tokens_.push_back(std::move(token));
  }

  void LexNumber(int column) {
    size_t start = pos_;
    bool is_float = false;
    if (text_[pos_] == '0' && pos_ + 1 < text_.size() &&
        (text_[pos_ + 1] == 'x' || text_[pos_ + 1] == 'X')) {
      pos_ += 2;
      while (pos_ < text_.size() && std::isxdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    } else {
      while (pos_ < text_.size() && IsDigit(text_[pos_])) ++pos_;
      if (pos_ < text_.size() && text_[pos_] == '.') {
        is_float = true;
        ++pos_;
        while (pos_ < text_.size() && IsDigit(text_[pos_])) ++pos_;
      }
      if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
        size_t p = pos_ + 1;
        if (p < text_.size() && (text_[p] == '+' || text_[p] == '-')) ++p;
        if (p < text_.size() && IsDigit(text_[p])) {
          is_float = true;
          pos_ = p;
          while (pos_ < text_.size() && IsDigit(text_[pos_])) ++pos_;
        }
      }
    }
    if (pos_ < text_.size() && IsNameChar(text_[pos_])) {
      source_.Fail(line_, Column(), "invalid number literal");
    }
    Push(is_float ? TokenKind::kFloat : TokenKind::kInt,
         std::string(text_.substr(start, pos_ - start)), line_, column);
  }

  void LexString(int column) {
    char quote = text_[pos_++];
    std::string value;
    while (true) {
      if (pos_ >= text_.size() || text_[pos_] == '\n') {
        source_.Fail(line_, column, "unterminated string");
      }
      char c = text_[pos_++];
      if (c == quote) break;
      if (c != '\\') {
        value += c;
        continue;
      }
      if (pos_ >= text_.size()) source_.Fail(line_, column, "unterminated string");
      char e = text_[pos_++];
      switch (e) {
        case 'n':
          value += '\n';
          break;
        case 't':
          value += '\t';
          break;
        case 'r':
          value += '\r';
          break;
        case '0':
          value += '\0';
          break;
        case '\\':
          value += '\\';
          break;
        case '\'':
          value += '\'';
          break;
        case '"':
          value += '"';
          break;
        case 'x': {
          auto hex = [&](size_t p) {
            return p < text_.size() && std::isxdigit(static_cast<unsigned char>(text_[p]));
          };
          if (!hex(pos_) || !hex(pos_ + 1)) {
            source_.Fail(line_, Column(), "invalid \\x escape in string");
          }
          value += static_cast<char>(std::stoi(std::string(text_.substr(pos_, 2)), nullptr, 16));
          pos_ += 2;
          break;
        }
        default:
          source_.Fail(line_, Column() - 1, std::string("unknown escape \\") + e);
      }
    }
    Push(TokenKind::kString, std::move(value), line_, column);
  }

  const SourceText& source_;
  std::string_view text_;
  size_t pos_ = 0;
  size_t line_start_ = 0;
  int line_ = 1;
  bool at_line_start_ = true;
  std::vector<int> indents_{0};
  std::vector<Token> brackets_;
  std::vector<Token> tokens_;
};

}  // namespace

std::vector<Token> Tokenize(const SourceText& source) { return Lexer(source).Run(); }

}  // namespace kiln::ir
