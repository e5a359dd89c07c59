// A Python-style lexer for the TVMScript text formats (TensorIR here, Relax later): names,
// numbers, strings and operators with their line and column, NEWLINE at the end of each
// logical line, INDENT/DEDENT for indentation changes, comments and blank lines dropped, and
// no NEWLINE inside brackets. Errors are kiln::Error(kParse) "SOURCE:LINE:COL: ...".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::ir {

enum class TokenKind : uint8_t {
  kName,     // identifiers and keywords (def, for, in, and, ...)
  kInt,      // decimal or hexadecimal integer literal; text as written
  kFloat,    // float literal; text as written
  kString,   // text holds the value with escapes resolved
  kOp,       // punctuation and operators: ( ) [ ] { } , : . = + - * / // % == != < <= ...
  kNewline,  // end of a logical line
  kIndent,
  kDedent,
  kEnd,
};

const char* TokenKindName(TokenKind kind);

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string text;
  int line = 0;    // 1-based
  int column = 0;  // 1-based, in bytes
  bool Is(TokenKind k, std::string_view t) const { return kind == k && text == t; }
  bool IsOp(std::string_view t) const { return Is(TokenKind::kOp, t); }
  bool IsName(std::string_view t) const { return Is(TokenKind::kName, t); }
  // How the token reads in an error message: "'('", "name 'foo'", "end of line", ...
  std::string Describe() const;
};

// The source text and name a token stream came from, for error messages.
class SourceText {
 public:
  SourceText(std::string_view text, std::string_view name) : text_(text), name_(name) {}
  std::string_view text() const { return text_; }
  const std::string& name() const { return name_; }
  // "SOURCE:LINE:COL: MESSAGE" followed by the source line and a caret under the column.
  std::string Format(int line, int column, std::string_view message) const;
  // Throws kiln::Error(kParse) with the formatted message.
  [[noreturn]] void Fail(int line, int column, std::string_view message) const;
  [[noreturn]] void Fail(const Token& at, std::string_view message) const {
    Fail(at.line, at.column, message);
  }

 private:
  std::string text_;
  std::string name_;
};

// The whole token stream, ending with NEWLINE (if any tokens), the closing DEDENTs and kEnd.
std::vector<Token> Tokenize(const SourceText& source);

}  // namespace kiln::ir
