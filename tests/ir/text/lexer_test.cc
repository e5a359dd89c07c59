// The Python-style lexer: token kinds and positions, indentation, comments, brackets.
#include "ir/text/lexer.h"

#include <gtest/gtest.h>

#include "support/error.h"

namespace kiln::ir {
namespace {

std::vector<Token> Lex(std::string_view text) { return Tokenize(SourceText(text, "lex.tir")); }

std::string Kinds(const std::vector<Token>& tokens) {
  std::string out;
  for (const Token& t : tokens) {
    switch (t.kind) {
      case TokenKind::kNewline:
        out += "NL ";
        break;
      case TokenKind::kIndent:
        out += "IN ";
        break;
      case TokenKind::kDedent:
        out += "DE ";
        break;
      case TokenKind::kEnd:
        out += "END";
        break;
      default:
        out += t.text + " ";
    }
  }
  return out;
}

TEST(Lexer, IndentationCommentsAndBrackets) {
  auto tokens =
      Lex("a = (1,\n  2)  # comment\n\n# only a comment\nif x:\n    y\n        # deeper comment\n  "
          "  z\nw\n");
  EXPECT_EQ(Kinds(tokens), "a = ( 1 , 2 ) NL if x : NL IN y NL z NL DE w NL END");
  const Token& two = tokens[5];
  EXPECT_EQ(two.text, "2");
  EXPECT_EQ(two.line, 2);
  EXPECT_EQ(two.column, 3);
  EXPECT_EQ(tokens[8].line, 5);  // "if"
}

TEST(Lexer, ClosesOpenBlocksAtEnd) {
  EXPECT_EQ(Kinds(Lex("def f():\n    for i:\n        x")),
            "def f ( ) : NL IN for i : NL IN x NL DE DE END");
}

TEST(Lexer, NumbersStringsAndOperators) {
  auto tokens = Lex("1e-05 0x1F 3.5 .5 'a\\tb\\\"' \"q\" // ** != -> <= x.y");
  ASSERT_GE(tokens.size(), 13u);
  EXPECT_EQ(tokens[0].kind, TokenKind::kFloat);
  EXPECT_EQ(tokens[0].text, "1e-05");
  EXPECT_EQ(tokens[1].kind, TokenKind::kInt);
  EXPECT_EQ(tokens[2].kind, TokenKind::kFloat);
  EXPECT_EQ(tokens[3].kind, TokenKind::kFloat);
  EXPECT_EQ(tokens[4].kind, TokenKind::kString);
  EXPECT_EQ(tokens[4].text, "a\tb\"");
  EXPECT_EQ(tokens[5].text, "q");
  EXPECT_TRUE(tokens[6].IsOp("//"));
  EXPECT_TRUE(tokens[7].IsOp("**"));
  EXPECT_TRUE(tokens[8].IsOp("!="));
  EXPECT_TRUE(tokens[9].IsOp("->"));
  EXPECT_TRUE(tokens[10].IsOp("<="));
  EXPECT_TRUE(tokens[12].IsOp("."));
}

TEST(Lexer, LineContinuation) {
  EXPECT_EQ(Kinds(Lex("a = 1 + \\\n    2\nb\n")), "a = 1 + 2 NL b NL END");
}

TEST(Lexer, ErrorsNamePlace) {
  try {
    Lex("x = 1\ny = 12ab\n");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kParse);
    EXPECT_EQ(std::string(e.what()).substr(0, 36), "lex.tir:2:7: invalid number literal\n");
    EXPECT_NE(std::string(e.what()).find("\n    y = 12ab\n          ^"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(Lex("a = ]"), Error);
  EXPECT_THROW(Lex("s = 'abc\n'"), Error);
  EXPECT_THROW(Lex("s = '\\q'"), Error);
  EXPECT_THROW(Lex("a = 1 \\\r"), Error);  // a continuation that ends nothing
  EXPECT_THROW(Lex("a = 1 \\ b"), Error);
}

}  // namespace
}  // namespace kiln::ir
