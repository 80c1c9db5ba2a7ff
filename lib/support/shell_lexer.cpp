// A shell command's words and operators (support/shell_lexer.hpp).
#include "support/shell_lexer.hpp"

#include "support/utf8.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <utility>

namespace hookbus::detail::shell {

bool is_name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_'; }
bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }
bool is_name(std::string_view text) {
  return !text.empty() && is_name_start(text[0]) && std::all_of(text.begin(), text.end(), is_name_char);
}

namespace {

// The operators of sh, and bash's that change how the rest reads, longest first.
constexpr std::string_view kOperators[] = {"&>>", "<<<", "<<-", "&&", "||", ";;", "&>", "<<", ">>", "<&", ">&",
                                           "<>",  ">|",  "|&",  ";",  "&",  "|",  "(",  ")",  "<",  ">"};

// Splits a command into tokens as sh's lexer does. What it cannot read (an
// unterminated quote) becomes an unknown part, reported where it is used.
class Lexer {
 public:
  Lexer(std::string_view text, Dialect dialect) : text_(text), dialect_(dialect) {}

  std::vector<Token> tokens(bool& truncated) {
    std::vector<Token> tokens;
    int fd = -1;
    bool delimiter_next = false;  // the word after << is a here-document's delimiter
    while (true) {
      skip_blanks();
      if (at_ >= text_.size()) break;
      if (pieces_ >= kMaxTokens) {
        truncated = true;
        break;
      }
      const char c = text_[at_];
      const std::size_t offset = at_;
      if (c == '#') {
        while (at_ < text_.size() && text_[at_] != '\n') ++at_;
        continue;
      }
      if (c == '\n') {
        ++at_;
        tokens.push_back({Token::Kind::newline, {}, {}, -1, offset});
        ++pieces_;
        skip_here_documents();
        continue;
      }
      if (const std::string_view op = operator_here(); !op.empty()) {
        at_ += op.size();
        tokens.push_back({Token::Kind::op, std::string(op), {}, std::exchange(fd, -1), offset});
        ++pieces_;
        if (op == "<<" || op == "<<-") {
          here_documents_.push_back({"", op == "<<-"});
          delimiter_next = true;
        }
        continue;
      }
      Word word = read_word();
      if (full_) {  // a word cut short is not the word: it is left out, and the text said to go on
        truncated = true;
        break;
      }
      const bool digits = !word.source.empty() && word.source.size() < 4 &&
                          std::all_of(word.source.begin(), word.source.end(), ::isdigit);
      if (digits && at_ < text_.size() && (text_[at_] == '<' || text_[at_] == '>')) {
        fd = std::stoi(word.source);  // `2>`: the redirection's descriptor
        continue;
      }
      if (delimiter_next) {
        for (const auto& part : word.parts)
          here_documents_.back().delimiter += part.kind == Part::Kind::text ? part.text : part.source;
        delimiter_next = false;
      }
      tokens.push_back({Token::Kind::word, {}, std::move(word), -1, offset});
      ++pieces_;
    }
    return tokens;
  }

 private:
  struct HereDocument {
    std::string delimiter;
    bool strip_tabs;
  };

  void skip_blanks() {
    while (at_ < text_.size()) {
      if (text_[at_] == ' ' || text_[at_] == '\t') ++at_;
      else if (text_.substr(at_, 2) == "\\\n") at_ += 2;
      else break;
    }
  }

  // The here-documents begun on the line just ended: their bodies are text, not commands.
  void skip_here_documents() {
    for (const auto& document : std::exchange(here_documents_, {})) {
      while (at_ < text_.size()) {
        const std::size_t end = std::min(text_.find('\n', at_), text_.size());
        std::string_view line = text_.substr(at_, end - at_);
        at_ = std::min(end + 1, text_.size());
        if (document.strip_tabs) line.remove_prefix(std::min(line.find_first_not_of('\t'), line.size()));
        if (line == document.delimiter) break;
      }
    }
  }

  std::string_view operator_here() const {
    const std::string_view rest = text_.substr(at_);
    if (rest.starts_with("<(") || rest.starts_with(">(")) return {};  // bash's process substitution: a word
    for (const std::string_view op : kOperators)
      if (rest.starts_with(op)) return op;
    return {};
  }

  // What a backslash escapes inside double quotes; before anything else it is itself.
  static bool escapable_in_quotes(char c) { return std::string_view("$`\"\\\n").find(c) != std::string_view::npos; }

  static bool ends_word(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '|' || c == '&' || c == ';' || c == '<' || c == '>' ||
           c == '(' || c == ')';
  }

  // Every part of every word counts against kMaxTokens with the tokens: a
  // word of 500 000 `$$` would otherwise make as many parts, seconds of work
  // for a settings file read at every start. Past the budget nothing is added
  // and the lexer stops at the end of the word.
  void add_part(Word& word, Part part) {
    if (pieces_ >= kMaxTokens) {
      full_ = true;
      return;
    }
    ++pieces_;
    word.parts.push_back(std::move(part));
  }
  void add_text(Word& word, std::string_view text, bool quoted) {
    if (!word.parts.empty() && word.parts.back().kind == Part::Kind::text && word.parts.back().quoted == quoted)
      word.parts.back().text += text;
    else
      add_part(word, {Part::Kind::text, std::string(text), quoted, false, {}, {}});
  }
  void add_unknown(Word& word, std::string_view source, std::string why) {
    add_part(word, {Part::Kind::unknown, {}, false, false, std::string(source), std::move(why)});
  }

  // Where the bracket opened just before `from` closes, quotes and escapes
  // skipped; npos when it does not.
  std::size_t closing(std::size_t from, char open, char close) const {
    int depth = 1;
    for (std::size_t i = from; i < text_.size(); ++i) {
      const char c = text_[i];
      if (c == '\\') ++i;
      else if (c == '\'') i = std::min(text_.find('\'', i + 1), text_.size());
      else if (c == '"' || c == '`') {
        for (++i; i < text_.size() && text_[i] != c; ++i)
          if (text_[i] == '\\') ++i;
      } else if (c == open) ++depth;
      else if (c == close && --depth == 0) return i;
    }
    return std::string_view::npos;
  }

  Word read_word() {
    Word word;
    const std::size_t start = at_;
    while (at_ < text_.size() && !full_) {
      const char c = text_[at_];
      if ((c == '<' || c == '>') && text_.substr(at_ + 1, 1) == "(") {
        const std::size_t end = closing(at_ + 2, '(', ')');
        const std::size_t after = end == std::string_view::npos ? text_.size() : end + 1;
        add_unknown(word, text_.substr(at_, after - at_),
                    "a process substitution: it runs a command whose output is read as a file");
        at_ = after;
        continue;
      }
      if (ends_word(c)) break;
      if (c == '\\') {
        if (text_.substr(at_ + 1, 1) == "\n") at_ += 2;  // a line continued
        else {
          add_text(word, text_.substr(std::min(at_ + 1, text_.size() - 1), 1), true);
          at_ += 2;
        }
      } else if (c == '\'') {
        const std::size_t end = text_.find('\'', at_ + 1);
        if (end == std::string_view::npos) return unterminated(word, start);
        add_text(word, text_.substr(at_ + 1, end - at_ - 1), true);
        at_ = end + 1;
      } else if (c == '"') {
        if (!double_quoted(word)) return unterminated(word, start);
      } else if (c == '$') {
        dollar(word, false);
      } else if (c == '`') {
        if (!backquoted(word, false)) return unterminated(word, start);
      } else {
        add_text(word, text_.substr(at_, 1), false);
        ++at_;
      }
    }
    word.source = std::string(text_.substr(start, at_ - start));
    return word;
  }

  Word unterminated(Word& word, std::size_t start) {
    at_ = text_.size();
    word.source = std::string(text_.substr(start));
    add_unknown(word, word.source, "an unterminated quote, which /bin/sh refuses");
    return std::move(word);
  }

  bool double_quoted(Word& word) {
    add_text(word, "", true);  // "" is an empty word, not none
    for (++at_; at_ < text_.size() && text_[at_] != '"' && !full_;) {
      const char c = text_[at_];
      if (c == '\\' && at_ + 1 < text_.size() && escapable_in_quotes(text_[at_ + 1])) {
        if (text_[at_ + 1] != '\n') add_text(word, text_.substr(at_ + 1, 1), true);
        at_ += 2;
      } else if (c == '$') {
        dollar(word, true);
      } else if (c == '`') {
        if (!backquoted(word, true)) return false;
      } else {
        add_text(word, text_.substr(at_, 1), true);
        ++at_;
      }
    }
    if (full_) return true;  // the word is left out
    if (at_ >= text_.size()) return false;
    ++at_;
    return true;
  }

  bool backquoted(Word& word, bool quoted) {
    std::string command;
    std::size_t i = at_ + 1;
    for (; i < text_.size() && text_[i] != '`'; ++i) {
      const bool escaped = text_[i] == '\\' && i + 1 < text_.size() &&
                           (text_[i + 1] == '$' || text_[i + 1] == '`' || text_[i + 1] == '\\');
      if (escaped) ++i;
      command += text_[i];
    }
    if (i >= text_.size()) return false;
    add_part(word, {Part::Kind::substitution, std::move(command), quoted, false,
                    std::string(text_.substr(at_, i + 1 - at_)), {}});
    at_ = i + 1;
    return true;
  }

  // A `$` and what follows it.
  void dollar(Word& word, bool quoted) {
    const std::size_t start = at_++;
    const char c = at_ < text_.size() ? text_[at_] : '\0';
    const auto variable = [&](std::string name, bool with_default) {
      add_part(word, {Part::Kind::variable, std::move(name), quoted, with_default,
                      std::string(text_.substr(start, at_ - start)), {}});
    };
    if (c == '{') {
      const std::size_t end = closing(at_ + 1, '{', '}');
      if (end == std::string_view::npos) {
        at_ = text_.size();
        return add_unknown(word, text_.substr(start), "an unterminated ${, which /bin/sh refuses");
      }
      const std::string_view inside = text_.substr(at_ + 1, end - at_ - 1);
      at_ = end + 1;
      std::size_t name_end = 0;
      while (name_end < inside.size() && is_name_char(inside[name_end])) ++name_end;
      const std::string_view name = inside.substr(0, name_end);
      const std::string_view rest = inside.substr(name_end);
      const bool parameter = is_name(name) || (!name.empty() && std::all_of(name.begin(), name.end(), ::isdigit));
      if (parameter && rest.empty()) return variable(std::string(name), false);
      if (parameter && (rest.starts_with(":-") || rest.starts_with("-"))) return variable(std::string(name), true);
      if (name.empty() && inside.size() == 1 && std::string_view("@*#?-$!").find(inside[0]) != std::string_view::npos)
        return variable(std::string(inside), false);
      return add_unknown(word, text_.substr(start, at_ - start),
                         "a parameter expansion with an operator: its value is known only when the command runs");
    }
    if (c == '(') {
      const bool arithmetic = text_.substr(at_ + 1, 1) == "(";
      const std::size_t end = closing(at_ + 1, '(', ')');
      if (end == std::string_view::npos) {
        at_ = text_.size();
        return add_unknown(word, text_.substr(start), "an unterminated $(, which /bin/sh refuses");
      }
      at_ = end + 1;
      if (arithmetic)
        return add_unknown(word, text_.substr(start, at_ - start),
                           "an arithmetic expansion: its value is known only when the command runs");
      add_part(word, {Part::Kind::substitution, std::string(text_.substr(start + 2, end - start - 2)), quoted, false,
                      std::string(text_.substr(start, at_ - start)), {}});
      return;
    }
    if (c == '\'' || c == '"') {  // bash's $'...' and $"..."; dash reads a plain $ there
      if (dialect_ == Dialect::sh)
        return add_unknown(word, text_.substr(start, 2), "$' or $\" quoting, which /bin/sh and bash read differently");
      if (quoted) return add_text(word, "$", true);  // in "...", bash reads them as they are
      if (c == '\'') ansi_c_quoted(word);
      return;  // $"...", a string for translation, reads as "...", which follows
    }
    if (is_name_start(c)) {
      while (at_ < text_.size() && is_name_char(text_[at_])) ++at_;
      return variable(std::string(text_.substr(start + 1, at_ - start - 1)), false);
    }
    if ((c >= '0' && c <= '9') || (c != '\0' && std::string_view("@*#?-$!").find(c) != std::string_view::npos)) {
      ++at_;
      return variable(std::string(1, c), false);
    }
    add_text(word, "$", quoted);
  }

  // Up to `most` digits in `base` from text_[i] on: their value, and how
  // many there were; `i` moves past them.
  std::pair<std::uint32_t, std::size_t> digits(std::size_t& i, std::uint32_t base, std::size_t most) const {
    std::uint32_t value = 0;
    std::size_t count = 0;
    for (; count < most && i < text_.size(); ++count, ++i) {
      const auto c = static_cast<unsigned char>(std::tolower(static_cast<unsigned char>(text_[i])));
      const std::uint32_t digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'z' ? c - 'a' + 10 : base;
      if (digit >= base) break;
      value = value * base + digit;
    }
    return {value, count};
  }

  // bash's $'...', from its quote on: the string its C escapes make.
  void ansi_c_quoted(Word& word) {
    const std::size_t start = at_ - 1;
    constexpr std::string_view kEscapes = "abeEfnrtv\\'\"?";
    constexpr std::string_view kMeanings = "\a\b\x1b\x1b\f\n\r\t\v\\'\"?";
    std::string value;
    bool ended = false;  // a NUL ends the string bash makes: the rest of it is dropped
    const auto add = [&](std::string_view bytes) {
      if (!ended) value += bytes;
    };
    const auto add_code = [&](std::uint32_t code, bool unicode) {
      if (code == 0) ended = true;
      else if (unicode) add(utf8_encoded(code));
      else add(std::string(1, static_cast<char>(code & 0xff)));
    };
    std::size_t i = at_ + 1;
    while (i < text_.size() && text_[i] != '\'') {
      if (text_[i] != '\\' || i + 1 >= text_.size()) {
        add(text_.substr(i++, 1));
        continue;
      }
      const std::size_t escape = i++;
      const char e = text_[i];
      if (const auto known = kEscapes.find(e); known != std::string_view::npos) {
        add(kMeanings.substr(known, 1));
        ++i;
      } else if (e >= '0' && e <= '7') {
        add_code(digits(i, 8, 3).first, false);
      } else if (e == 'x' || e == 'u' || e == 'U') {
        ++i;
        const auto [code, count] = digits(i, 16, e == 'x' ? 2 : e == 'u' ? 4 : 8);
        if (count == 0) add(text_.substr(escape, 2));  // no digits: bash keeps it as written
        else add_code(code, e != 'x');
      } else if (e == 'c' && i + 1 < text_.size()) {
        add_code(static_cast<std::uint32_t>(text_[i + 1] & 0x1f), false);
        i += 2;
      } else {
        add(text_.substr(escape, 2));  // an escape bash does not know stays as written
        ++i;
      }
    }
    if (i >= text_.size()) {
      add_unknown(word, text_.substr(start), "an unterminated $', which bash refuses");
      at_ = text_.size();
      return;
    }
    add_text(word, value, true);
    at_ = i + 1;
  }

  std::string_view text_;
  Dialect dialect_;
  std::size_t at_ = 0;
  std::size_t pieces_ = 0;  // tokens and parts of words so far
  bool full_ = false;       // a part past kMaxTokens was left out
  std::vector<HereDocument> here_documents_;
};

}  // namespace

std::vector<Token> tokens(std::string_view text, bool& truncated, Dialect dialect) {
  return Lexer(text, dialect).tokens(truncated);
}

}  // namespace hookbus::detail::shell
