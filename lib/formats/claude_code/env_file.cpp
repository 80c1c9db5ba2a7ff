// The lines of a CLAUDE_ENV_FILE, read as bash evaluates them (formats/claude_code/env_file.hpp).
#include "formats/claude_code/env_file.hpp"

#include "support/file_descriptor.hpp"
#include "support/files.hpp"
#include "support/shell_lexer.hpp"
#include "support/utf8.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <optional>
#include <utility>

namespace hookbus::detail {
namespace {

// How much of a statement a warning quotes.
constexpr std::size_t kMaxQuoted = 200;

// Why a statement is skipped: thrown while it is read, caught for its warning.
struct Skipped {
  std::string why;
};

// Text of the file as a warning quotes it: its start.
std::string shown(std::string_view source) {
  const std::string_view start = utf8_prefix(source, kMaxQuoted);
  return std::string(start) + (start.size() < source.size() ? "..." : "");
}

class EnvFileReader {
 public:
  EnvFileReader(std::string_view text, const std::map<std::string, std::string>& environment)
      : text_(text), environment_(environment) {
    for (std::size_t at = text.find('\n'); at != std::string_view::npos; at = text.find('\n', at + 1))
      line_ends_.push_back(at);
  }

  EnvFile read() && {
    bool truncated = false;
    const auto tokens = shell::tokens(text_, truncated, shell::Dialect::bash);
    std::vector<const shell::Token*> statement;
    for (const auto& token : tokens) {
      const bool ends = token.kind == shell::Token::Kind::newline ||
                        (token.kind == shell::Token::Kind::op && token.op == ";");
      if (!ends) {
        statement.push_back(&token);
        continue;
      }
      run(statement);
      statement.clear();
    }
    run(statement);
    if (truncated && !tokens.empty())
      warn(tokens.back().offset, fmt::format("more than {} words and parts of words: the rest of the file is not read",
                                             shell::kMaxTokens));
    EnvFile file;
    for (const auto& name : order_) {
      const Variable& variable = variables_.at(name);
      if (variable.exported && variable.value) file.variables.push_back({name, *variable.value});
      else if (variable.value)
        warn(variable.set_at, fmt::format("{} is set but never exported, so the commands run later would not see "
                                          "it: write export {}=...",
                                          name, name));
    }
    std::stable_sort(warnings_.begin(), warnings_.end(),
                     [](const EnvFileWarning& a, const EnvFileWarning& b) { return a.line < b.line; });
    file.warnings = std::move(warnings_);
    return file;
  }

 private:
  struct Variable {
    std::optional<std::string> value;  // nullopt: exported before it was set here
    bool exported = false;
    std::size_t set_at = 0;  // the offset of the statement that first set it
  };

  void warn(std::size_t offset, const std::string& message) {
    const auto before = std::lower_bound(line_ends_.begin(), line_ends_.end(), offset) - line_ends_.begin();
    warnings_.push_back({static_cast<std::size_t>(before) + 1, valid_utf8(message)});
  }

  std::string quoted(const std::vector<const shell::Token*>& statement) const {
    const shell::Token& last = *statement.back();
    const std::size_t end = last.offset + (last.kind == shell::Token::Kind::word ? last.word.source.size()
                                                                                 : last.op.size());
    return shown(text_.substr(statement.front()->offset, end - statement.front()->offset));
  }

  // One statement: applied whole once it is read whole, or skipped with a warning.
  void run(const std::vector<const shell::Token*>& statement) {
    if (statement.empty()) return;
    pending_.clear();
    try {
      apply(statement);
    } catch (const Skipped& skipped) {
      warn(statement.front()->offset, fmt::format("`{}`: {}; the statement is skipped", quoted(statement),
                                                   skipped.why));
      return;
    }
    for (auto& [name, change] : pending_) {
      auto [variable, added] = variables_.try_emplace(name);
      if (added) order_.push_back(name);
      if (change.value && !variable->second.value) variable->second.set_at = statement.front()->offset;
      if (change.value) variable->second.value = std::move(change.value);
      variable->second.exported = variable->second.exported || change.exported;
    }
  }

  void apply(const std::vector<const shell::Token*>& statement) {
    std::vector<const shell::Word*> words;
    for (const auto* token : statement) {
      if (token->kind != shell::Token::Kind::word)
        throw Skipped{fmt::format("`{}` makes it more than assignments, which is all hookbus reads (export "
                                  "NAME=value)",
                                  token->op)};
      words.push_back(&token->word);
    }
    const shell::Word& first = *words.front();
    if (first.is("export")) return declare(words, 1, true);
    if (first.is("declare") || first.is("typeset")) {
      std::size_t at = 1;
      bool exported = false;
      for (; at < words.size() && words[at]->source.starts_with('-'); ++at) {
        const std::string& flags = words[at]->source;
        if (flags.find_first_not_of("-xrg") != std::string::npos || flags == "-")
          throw Skipped{fmt::format("{} {} gives a variable more than a value to export, which hookbus does not "
                                    "read; write export NAME=value",
                                    first.source, flags)};
        exported = exported || flags.find('x') != std::string::npos;
      }
      return declare(words, at, exported);
    }
    if (first.is("unset"))
      throw Skipped{"unset is not applied: hookbus passes on variables the file sets, and removes none"};
    for (std::size_t i = 0; i < words.size(); ++i)
      if (!assignment(*words[i]))
        throw Skipped{fmt::format("`{}` is a command, which hookbus never runs: it reads assignments only (export "
                                  "NAME=value)",
                                  shown(words[i]->source))};
    for (const auto* word : words) assign(*word, value_of(*word), false);  // one after the other
  }

  // export's and declare's arguments from `at` on: NAME=value, or NAME. As
  // for any command, bash expands every argument before the builtin runs, so
  // `export A=1 B=$A` gives B the A from before.
  void declare(const std::vector<const shell::Word*>& words, std::size_t at, bool exported) {
    if (at < words.size() && words[at]->is("--")) ++at;
    std::vector<std::string> values;
    for (std::size_t i = at; i < words.size(); ++i) {
      const shell::Word& word = *words[i];
      const bool name = word.parts.size() == 1 && word.parts[0].kind == shell::Part::Kind::text &&
                        shell::is_name(word.parts[0].text);
      if (!assignment(word) && !name) throw Skipped{fmt::format("`{}` is not a variable's name", shown(word.source))};
      values.push_back(name ? std::string() : value_of(word));
    }
    for (std::size_t i = at; i < words.size(); ++i) {
      if (assignment(*words[i])) assign(*words[i], std::move(values[i - at]), exported);
      else if (exported) variable(words[i]->parts[0].text).exported = true;
    }
  }

  static std::optional<std::string> assignment(const shell::Word& word) {
    if (word.parts.empty() || word.parts[0].kind != shell::Part::Kind::text || word.parts[0].quoted)
      return std::nullopt;
    const std::string& text = word.parts[0].text;
    const std::size_t equals = text.find('=');
    if (equals == std::string::npos || !shell::is_name(std::string_view(text).substr(0, equals))) return std::nullopt;
    return text.substr(0, equals);
  }

  // A variable as the statement read so far changes it; new ones are
  // exported when the environment has them (as bash exports them).
  Variable& variable(const std::string& name) {
    const auto found = std::find_if(pending_.begin(), pending_.end(), [&](const auto& change) {
      return change.first == name;
    });
    if (found != pending_.end()) return found->second;
    return pending_.emplace_back(name, Variable{std::nullopt, environment_.contains(name)}).second;
  }

  // A variable's value: as this statement set it, as the file did before, as the environment has it.
  std::optional<std::string> lookup(const std::string& name) const {
    for (auto change = pending_.rbegin(); change != pending_.rend(); ++change)
      if (change->first == name && change->second.value) return change->second.value;
    if (const auto found = variables_.find(name); found != variables_.end() && found->second.value)
      return found->second.value;
    if (const auto found = environment_.find(name); found != environment_.end()) return found->second;
    return std::nullopt;
  }

  void assign(const shell::Word& word, std::string value, bool exported) {
    Variable& set = variable(*assignment(word));
    set.value = std::move(value);
    set.exported = set.exported || exported;
  }

  // NAME=value: the value, as bash expands an assignment's word.
  std::string value_of(const shell::Word& word) const {
    const std::string name = *assignment(word);
    std::string value;
    for (std::size_t i = 0; i < word.parts.size(); ++i) {
      const shell::Part& part = word.parts[i];
      switch (part.kind) {
        case shell::Part::Kind::text: {
          std::string_view text = part.text;
          if (i == 0) text.remove_prefix(name.size() + 1);
          value += part.quoted ? std::string(text) : with_tildes(text, i == 0);
          break;
        }
        case shell::Part::Kind::variable: value += expanded(part); break;
        case shell::Part::Kind::substitution:
          throw Skipped{fmt::format("{} runs a command, which hookbus never does", shown(part.source))};
        case shell::Part::Kind::unknown: throw Skipped{fmt::format("{}: {}", shown(part.source), part.why)};
      }
    }
    if (value.find('\0') != std::string::npos) throw Skipped{"the value holds a NUL byte, which no variable can"};
    return value;
  }

  std::string expanded(const shell::Part& variable) const {
    if (variable.with_default || !shell::is_name(variable.text))
      throw Skipped{fmt::format("{} is an expansion hookbus does not evaluate; write $NAME or ${{NAME}}",
                                shown(variable.source))};
    return lookup(variable.text).value_or("");
  }

  // bash's tilde expansion in an assignment: `~` at the value's start or after a `:`, before a `/`, a `:` or the end.
  std::string with_tildes(std::string_view text, bool at_start) const {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
      const bool starts = (i == 0 && at_start) || (i > 0 && text[i - 1] == ':');
      if (text[i] != '~' || !starts) {
        out += text[i];
        continue;
      }
      const std::size_t end = std::min(text.find_first_of("/:", i), text.size());
      if (end != i + 1)
        throw Skipped{fmt::format("{} names a user's home directory, which hookbus does not look up; write $HOME",
                                  shown(text.substr(i, end - i)))};
      out += lookup("HOME").value_or("~");
    }
    return out;
  }

  std::string_view text_;
  const std::map<std::string, std::string>& environment_;
  std::vector<std::size_t> line_ends_;         // the offset of each newline
  std::map<std::string, Variable> variables_;  // what the file set and exported, statement by statement
  std::vector<std::string> order_;             // the names of variables_, in the order first set
  std::vector<std::pair<std::string, Variable>> pending_;  // what the statement being read sets, in order
  std::vector<EnvFileWarning> warnings_;
};

}  // namespace

EnvFileForRun::EnvFileForRun() {
  std::error_code error;
  std::string pattern = (std::filesystem::temp_directory_path(error) / "hookbus-env-XXXXXX").string();
  if (error || ::mkdtemp(pattern.data()) == nullptr)  // mode 0700
    throw Error(fmt::format("cannot create a private directory for CLAUDE_ENV_FILE in {}: {}",
                            std::filesystem::temp_directory_path(error).string(), error_text(errno)));
  directory_ = pattern;
  file_ = directory_ / "env";
  const FileDescriptor created(::open(file_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!created.is_open()) {
    const int why = errno;
    std::filesystem::remove_all(directory_, error);
    throw Error(fmt::format("cannot create {}: {}", file_.string(), error_text(why)));
  }
}

EnvFileForRun::~EnvFileForRun() {
  std::error_code ignored;  // links inside are removed, never followed
  std::filesystem::remove_all(directory_, ignored);
}

std::string EnvFileForRun::read() const {
  const FileDescriptor fd(::open(file_.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!fd.is_open())
    throw FileReadError(errno == ELOOP ? "is a link, which hookbus does not follow" : error_text(errno));
  struct stat status {};
  if (::fstat(fd.get(), &status) != 0) throw FileReadError(error_text(errno));
  if (!S_ISREG(status.st_mode)) throw FileReadError("is not a regular file");
  if (static_cast<std::uintmax_t>(status.st_size) > kMaxEnvFileSize)
    throw FileReadError(fmt::format("is {} bytes, over the limit of {}", status.st_size, kMaxEnvFileSize));
  std::string text(kMaxEnvFileSize + 1, '\0');
  std::size_t size = 0;
  for (ssize_t got = 0; size < text.size(); size += static_cast<std::size_t>(got)) {
    got = ::read(fd.get(), text.data() + size, text.size() - size);
    if (got < 0 && errno == EINTR) got = 0;
    else if (got < 0) throw FileReadError(error_text(errno));
    else if (got == 0) break;
  }
  if (size > kMaxEnvFileSize) throw FileReadError(fmt::format("is over the limit of {} bytes", kMaxEnvFileSize));
  text.resize(size);
  return text;
}

EnvFile parse_env_file(std::string_view text, const std::map<std::string, std::string>& environment) {
  return EnvFileReader(text, environment).read();
}

}  // namespace hookbus::detail
