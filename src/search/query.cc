// The query language: what a user types, checked and written again as an FTS5 expression
// in which every word and phrase is a quoted string. FTS5's own syntax (column filters,
// NEAR, ^, + and bare '*') is never passed through: typed, it is text to look for.

#include <fmt/format.h>

#include <vector>

#include "feeddiff/search.h"

namespace feeddiff {

namespace {

struct Token {
  enum class Kind { term, open, close, op_and, op_or, op_not };
  Kind kind = Kind::term;
  std::string text;     // a term's words, as typed (the tokenizer splits them later)
  bool prefix = false;  // a term followed by '*'
};

Error usage(std::string message) {
  return Error{Errc::usage, "search query: " + std::move(message)};
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

Result<std::vector<Token>> tokenize(std::string_view q) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < q.size()) {
    const char c = q[i];
    if (is_space(c)) {
      ++i;
    } else if (c == '(' || c == ')') {
      out.push_back({c == '(' ? Token::Kind::open : Token::Kind::close, "", false});
      ++i;
    } else if (c == '"') {
      const std::size_t end = q.find('"', i + 1);
      if (end == std::string_view::npos) return usage("a '\"' opens a phrase that never ends");
      Token t{Token::Kind::term, std::string(q.substr(i + 1, end - i - 1)), false};
      i = end + 1;
      if (i < q.size() && q[i] == '*') {
        t.prefix = true;
        ++i;
      }
      out.push_back(std::move(t));
    } else if (c == '*') {
      return usage("a '*' must end a word (pref*)");
    } else {
      std::size_t end = i;
      while (end < q.size() && !is_space(q[end]) && q[end] != '(' && q[end] != ')' && q[end] != '"')
        ++end;
      std::string_view word = q.substr(i, end - i);
      i = end;
      Token t{Token::Kind::term, std::string(word), false};
      if (word == "AND") t.kind = Token::Kind::op_and;
      if (word == "OR") t.kind = Token::Kind::op_or;
      if (word == "NOT") t.kind = Token::Kind::op_not;
      if (t.kind == Token::Kind::term && word.ends_with('*')) {
        while (!word.empty() && word.back() == '*') word.remove_suffix(1);
        if (word.empty() || word.find('*') != std::string_view::npos)
          return usage("a '*' must end a word (pref*)");
        t.text = std::string(word);
        t.prefix = true;
      }
      out.push_back(std::move(t));
    }
    if (out.size() > kMaxSearchQueryTerms)
      return usage(fmt::format("more than {} words and operators", kMaxSearchQueryTerms));
  }
  return out;
}

// or := and (OR and)* ; and := not ([AND] not)* ; not := primary (NOT primary)* ;
// primary := term | '(' or ')'. Each rule writes what it read as FTS5 text.
class Parser {
 public:
  explicit Parser(const std::vector<Token>& tokens) : tokens_(tokens) {}

  Result<std::string> parse() {
    auto e = parse_or();
    if (!e) return e;
    if (pos_ < tokens_.size()) {
      if (tokens_[pos_].kind == Token::Kind::close) return usage("a ')' closes nothing");
      return usage("unexpected " + describe(tokens_[pos_]));
    }
    return e;
  }

 private:
  static std::string describe(const Token& t) {
    switch (t.kind) {
      case Token::Kind::open:
        return "'('";
      case Token::Kind::close:
        return "')'";
      case Token::Kind::op_and:
        return "AND";
      case Token::Kind::op_or:
        return "OR";
      case Token::Kind::op_not:
        return "NOT";
      case Token::Kind::term:
        break;
    }
    return "word";
  }
  bool at(Token::Kind kind) const { return pos_ < tokens_.size() && tokens_[pos_].kind == kind; }
  bool at_primary() const { return at(Token::Kind::term) || at(Token::Kind::open); }

  Result<std::string> parse_or() {
    auto left = parse_and();
    if (!left) return left;
    std::string out = *left;
    while (at(Token::Kind::op_or)) {
      ++pos_;
      if (!at_primary()) return usage("OR needs something on both sides (a OR b)");
      auto right = parse_and();
      if (!right) return right;
      out += " OR " + *right;
    }
    return out;
  }

  Result<std::string> parse_and() {
    auto left = parse_not();
    if (!left) return left;
    std::string out = *left;
    for (;;) {
      if (at(Token::Kind::op_and)) {
        ++pos_;
        if (!at_primary()) return usage("AND needs something on both sides (a AND b)");
      } else if (!at_primary()) {
        break;
      }
      auto right = parse_not();
      if (!right) return right;
      out += " AND " + *right;
    }
    return out;
  }

  Result<std::string> parse_not() {
    auto left = parse_primary();
    if (!left) return left;
    std::string out = *left;
    while (at(Token::Kind::op_not)) {
      ++pos_;
      if (!at_primary()) return usage("NOT needs something on both sides (a NOT b)");
      auto right = parse_primary();
      if (!right) return right;
      out += " NOT " + *right;
    }
    return out;
  }

  Result<std::string> parse_primary() {
    if (pos_ >= tokens_.size()) return usage("it ends where a word was expected");
    const Token& t = tokens_[pos_];
    if (t.kind == Token::Kind::term) {
      ++pos_;
      std::string quoted = "\"";
      for (char c : t.text) {
        // Doubled, a quote is one quote inside an FTS5 string; control characters are no
        // word's part, and the snippet markers must never come from a query.
        if (c == '"')
          quoted += "\"\"";
        else if (static_cast<unsigned char>(c) < 0x20)
          quoted += ' ';
        else
          quoted += c;
      }
      quoted += '"';
      if (t.prefix) quoted += '*';
      return quoted;
    }
    if (t.kind == Token::Kind::open) {
      if (++depth_ > 16) return usage("parentheses nested more than 16 deep");
      ++pos_;
      if (at(Token::Kind::close)) return usage("'()' holds nothing");
      auto inner = parse_or();
      if (!inner) return inner;
      if (!at(Token::Kind::close)) return usage("a '(' is never closed");
      ++pos_;
      --depth_;
      return "(" + *inner + ")";
    }
    if (t.kind == Token::Kind::close) return usage("a ')' closes nothing");
    return usage(describe(t) + " needs something on both sides (a " + describe(t) + " b)");
  }

  const std::vector<Token>& tokens_;
  std::size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

Result<std::string> search_expression(std::string_view query) {
  if (query.size() > kMaxSearchQueryBytes)
    return usage(fmt::format("{} bytes; at most {}", query.size(), kMaxSearchQueryBytes));
  auto tokens = tokenize(query);
  if (!tokens) return tokens.error();
  if (tokens->empty()) return usage("it is empty");
  int depth = 0;
  for (const Token& t : *tokens) {
    if (t.kind == Token::Kind::open) ++depth;
    if (t.kind == Token::Kind::close && --depth < 0) return usage("a ')' closes nothing");
  }
  if (depth > 0) return usage("a '(' is never closed");
  return Parser(*tokens).parse();
}

}  // namespace feeddiff
