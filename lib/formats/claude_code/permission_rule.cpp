// Claude Code's permission rules for a handler's `if` (formats/claude_code/permission_rule.hpp).
#include "formats/claude_code/permission_rule.hpp"

#include <hookbus/tool_matcher.hpp>

#include "support/shell_lexer.hpp"
#include "support/text.hpp"
#include "support/utf8.hpp"

#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <system_error>
#include <utility>
#include <vector>

namespace hookbus::detail {
namespace {

namespace fs = std::filesystem;

// ---------------------------------------------------------------- tools

template <typename Names>
bool contains(const Names& names, std::string_view name) {
  return std::find(std::begin(names), std::end(names), name) != std::end(names);
}

// The tools an Edit rule names (Claude Code: every built-in tool that edits
// files), and a Read rule: the file readers, and the searches, which read the
// files under a directory (a Read rule matches them when that directory and
// what the rule names overlap).
constexpr std::string_view kEditTools[] = {"Edit", "Write", "MultiEdit", "NotebookEdit"};
constexpr std::string_view kReadTools[] = {"Read", "NotebookRead"};
constexpr std::string_view kSearchTools[] = {"Grep", "Glob"};

// The field a tool's primary content is in, which a parameter rule may not name (Claude Code ignores
// such a rule: `Bash(command:rm *)` would be bypassed by a compound command).
std::string_view primary_field(std::string_view tool) {
  if (tool == "Bash" || tool == "PowerShell") return "command";
  if (tool == "Read" || tool == "Edit" || tool == "Write" || tool == "MultiEdit") return "file_path";
  if (tool == "Grep" || tool == "Glob") return "path";
  if (tool == "NotebookEdit" || tool == "NotebookRead") return "notebook_path";
  if (tool == "WebFetch") return "url";
  return {};
}

// The parameters of the tools whose specifier has a syntax of its own, which
// `Tool(name:value)` names instead: `Bash(timeout:*)` is a parameter rule,
// `Bash(git:*)` a command pattern.
bool is_parameter_of(std::string_view tool, std::string_view name) {
  using Names = std::initializer_list<std::string_view>;
  if (tool == "Bash")
    return contains(Names{"timeout", "description", "run_in_background", "dangerouslyDisableSandbox"}, name);
  if (tool == "Read") return contains(Names{"offset", "limit", "pages"}, name);
  if (tool == "Edit") return contains(Names{"old_string", "new_string", "replace_all"}, name);
  if (tool == "WebFetch") return contains(Names{"prompt"}, name);
  if (tool == "Agent")
    return contains(Names{"description", "prompt", "subagent_type", "model", "isolation", "run_in_background", "name",
                          "team_name", "mode"},
                    name);
  if (tool == "Skill") return contains(Names{"args"}, name);
  return false;
}

bool is_tool_name_char(char c) {
  return shell::is_name_char(c) || c == '-' || c == '.' || c == '*' || c == '?';
}

// ---------------------------------------------------------------- patterns

// Whether `text` is all of `pattern`, in which `*` is any text and every
// other byte itself. Each piece between stars is taken at its first place:
// with stars only, that never misses a match.
bool star_match(std::string_view pattern, std::string_view text) {
  const std::size_t first = pattern.find('*');
  if (first == std::string_view::npos) return pattern == text;
  const std::size_t last = pattern.rfind('*');
  const std::string_view head = pattern.substr(0, first);
  const std::string_view tail = pattern.substr(last + 1);
  if (text.size() < head.size() + tail.size() || !text.starts_with(head) || !text.ends_with(tail)) return false;
  std::string_view middle = text.substr(head.size(), text.size() - head.size() - tail.size());
  std::string_view pieces = pattern.substr(first + 1, last - first);  // each piece ends at a star
  while (!pieces.empty()) {
    const std::size_t star = pieces.find('*');
    if (const std::string_view piece = pieces.substr(0, star); !piece.empty()) {
      const std::size_t at = middle.find(piece);
      if (at == std::string_view::npos) return false;
      middle.remove_prefix(at + piece.size());
    }
    pieces.remove_prefix(star + 1);
  }
  return true;
}

// Whether the byte `c` is the one gitignore's pattern names at `at` (`?`, a
// `[...]` class, `\x`, a byte); `at` moves past it.
bool byte_matches(std::string_view pattern, std::size_t& at, char c) {
  const char p = pattern[at];
  if (p == '?') {
    ++at;
    return true;
  }
  if (p == '\\' && at + 1 < pattern.size()) {
    at += 2;
    return pattern[at - 1] == c;
  }
  if (p == '[') {
    std::size_t i = at + 1;
    const bool negated = i < pattern.size() && (pattern[i] == '!' || pattern[i] == '^');
    if (negated) ++i;
    const std::size_t first = i;
    bool found = false;
    for (; i < pattern.size() && (pattern[i] != ']' || i == first); ++i) {
      char low = pattern[i];
      if (low == '\\' && i + 1 < pattern.size()) low = pattern[++i];
      char high = low;
      if (i + 2 < pattern.size() && pattern[i + 1] == '-' && pattern[i + 2] != ']') {
        high = pattern[i + 2];
        if (high == '\\' && i + 3 < pattern.size()) high = pattern[++i + 2];
        i += 2;
      }
      if (low <= c && c <= high) found = true;
    }
    if (i < pattern.size()) {  // a class: without its `]`, the `[` is itself
      at = i + 1;
      return found != negated;
    }
  }
  ++at;
  return p == c;
}

// Whether one path segment is all of one gitignore pattern segment: `*` any
// run of bytes, `?` one, `[...]` one of a class, `\` the next byte itself.
// The last star backtracks, so this stays linear in practice.
bool segment_matches(std::string_view pattern, std::string_view text) {
  std::size_t p = 0, t = 0;
  std::size_t star = std::string_view::npos, resume = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = ++p;
      resume = t;
      continue;
    }
    if (p < pattern.size()) {
      std::size_t next = p;
      if (byte_matches(pattern, next, text[t])) {
        p = next;
        ++t;
        continue;
      }
    }
    if (star == std::string_view::npos) return false;
    p = star;
    t = ++resume;
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::vector<std::string_view> split_segments(std::string_view path) {
  std::vector<std::string_view> segments;
  while (!path.empty()) {
    const std::size_t slash = std::min(path.find('/'), path.size());
    if (slash > 0) segments.push_back(path.substr(0, slash));
    path.remove_prefix(std::min(slash + 1, path.size()));
  }
  return segments;
}

// Whether the components are all of the pattern's segments, a `**` segment
// standing for any number of components, none too.
bool segments_match(const std::vector<std::string_view>& pattern, const std::vector<std::string>& components) {
  // reachable[j]: the pattern's segments so far can end just before component j.
  std::vector<bool> reachable(components.size() + 1, false);
  reachable[0] = true;
  for (const std::string_view segment : pattern) {
    std::vector<bool> next(components.size() + 1, false);
    for (std::size_t j = 0; j <= components.size(); ++j) {
      if (!reachable[j]) continue;
      if (segment == "**") {
        for (std::size_t k = j; k <= components.size(); ++k) next[k] = true;
        break;
      }
      if (j < components.size() && segment_matches(segment, components[j])) next[j + 1] = true;
    }
    reachable = std::move(next);
  }
  return reachable[components.size()];
}

bool has_glob(std::string_view segment) { return segment.find_first_of("*?[\\") != std::string_view::npos; }

// ---------------------------------------------------------------- paths

// The components of `path` below `directory`; nullopt when it is not there.
std::optional<std::vector<std::string>> below(const fs::path& path, const fs::path& directory) {
  auto inside = path.begin();
  for (const auto& part : directory) {
    if (part.empty()) continue;  // a trailing separator
    if (inside == path.end() || *inside != part) return std::nullopt;
    ++inside;
  }
  std::vector<std::string> components;
  for (; inside != path.end(); ++inside)
    if (!inside->empty()) components.push_back(inside->string());
  return components;
}

// The path as written, `..` resolved as text, and as the kernel resolves it
// (the links of what exists followed): a rule matches when either does.
std::vector<fs::path> spellings(const fs::path& path) {
  std::vector<fs::path> both{path.lexically_normal()};
  std::error_code error;
  const fs::path physical = fs::weakly_canonical(both[0], error);
  if (!error && physical != both[0]) both.push_back(physical);
  return both;
}

// The directory a path rule starts at; nullopt when the context does not have it.
std::optional<fs::path> anchor_directory(const PermissionRule& rule, const RuleContext& context) {
  fs::path base;
  switch (rule.anchor) {
    case PermissionRule::Anchor::filesystem_root: base = "/"; break;
    case PermissionRule::Anchor::home: base = context.home; break;
    case PermissionRule::Anchor::settings_root: base = context.settings_root; break;
    case PermissionRule::Anchor::working_directory: base = context.working_directory; break;
  }
  if (!base.is_absolute()) return std::nullopt;
  for (std::size_t i = 0; i < rule.parents; ++i) base /= "..";
  return base.lexically_normal();
}

// Whether the file at `components` below the anchor, or a directory it is in, is what the pattern names (gitignore:
// a directory that matches takes what is in it along).
bool path_pattern_matches(const PermissionRule& rule, const std::vector<std::string>& components) {
  std::string_view pattern = rule.pattern;
  const bool directories_only = pattern.ends_with('/');
  if (directories_only) pattern.remove_suffix(1);
  if (pattern.empty()) return true;  // the anchor itself: everything below it
  const auto segments = split_segments(pattern);
  const std::size_t last = directories_only ? components.size() - std::min<std::size_t>(components.size(), 1)
                                            : components.size();
  for (std::size_t k = 1; k <= last; ++k) {
    if (rule.anchored) {
      if (segments_match(segments, {components.begin(), components.begin() + static_cast<std::ptrdiff_t>(k)}))
        return true;
    } else if (segment_matches(pattern, components[k - 1])) {
      return true;
    }
  }
  return false;
}

bool file_matches(const PermissionRule& rule, const fs::path& file, const RuleContext& context) {
  const auto anchor = anchor_directory(rule, context);
  if (!anchor || (file.is_relative() && !context.working_directory.is_absolute())) return true;  // cannot tell
  for (const auto& spelling : spellings(file.is_absolute() ? file : context.working_directory / file))
    for (const auto& directory : spellings(*anchor))
      if (const auto components = below(spelling, directory); components && path_pattern_matches(rule, *components))
        return true;
  return false;
}

// A search (Grep, Glob) reads the files under `directory`: it matches a Read
// rule when the directory and the part of the rule that names no pattern yet
// (the anchor and its literal directories) are one inside the other.
bool directory_matches(const PermissionRule& rule, const fs::path& directory, const RuleContext& context) {
  const auto anchor = anchor_directory(rule, context);
  if (!anchor || (directory.is_relative() && !context.working_directory.is_absolute())) return true;
  fs::path literal = *anchor;
  if (rule.anchored)
    for (const std::string_view segment : split_segments(rule.pattern)) {
      if (has_glob(segment)) break;
      literal /= std::string(segment);
    }
  for (const auto& searched : spellings(directory.is_absolute() ? directory : context.working_directory / directory))
    for (const auto& named : spellings(literal))
      if (below(searched, named) || below(named, searched)) return true;
  return false;
}

// ---------------------------------------------------------------- hosts

// The host of a URL as a browser reads it (tabs and newlines dropped, `\`
// ending the authority, user info and port left out, percent escapes
// decoded), lower case, without a trailing dot; nullopt when it has none, or
// one hookbus would have to guess at (non-ASCII, which IDNA maps).
std::optional<std::string> url_host(std::string_view url) {
  std::string text;
  for (const char c : url)
    if (c != '\t' && c != '\n' && c != '\r') text += c;
  const std::string_view trimmed = trim(text);
  const std::size_t scheme = trimmed.find("://");
  if (scheme == std::string_view::npos) return std::nullopt;
  std::string_view authority = trimmed.substr(scheme + 3);
  authority = authority.substr(0, authority.find_first_of("/\\?#"));
  if (const std::size_t at = authority.rfind('@'); at != std::string_view::npos) authority.remove_prefix(at + 1);
  if (authority.starts_with('[')) {
    const std::size_t end = authority.find(']');
    if (end == std::string_view::npos) return std::nullopt;
    authority = authority.substr(0, end + 1);
  } else {
    authority = authority.substr(0, authority.find(':'));
  }
  std::string host;
  for (std::size_t i = 0; i < authority.size(); ++i) {
    char c = authority[i];
    if (c == '%' && i + 2 < authority.size() && std::isxdigit(static_cast<unsigned char>(authority[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(authority[i + 2]))) {
      c = static_cast<char>(std::stoi(std::string(authority.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    }
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x80 || !(std::isalnum(byte) || c == '.' || c == '-' || c == '_' || c == '[' || c == ']' || c == ':'))
      return std::nullopt;
    host += static_cast<char>(std::tolower(byte));
  }
  while (host.ends_with('.')) host.pop_back();
  if (host.empty()) return std::nullopt;
  return host;
}

// `*` is every host, a leading `*.` any subdomain at any depth (not the
// domain itself), and a `*` elsewhere the text of one label.
bool host_matches(std::string_view pattern, std::string_view host) {
  if (pattern == "*") return true;
  const auto labels = [](std::string_view name) {
    std::vector<std::string_view> parts;
    while (true) {
      const std::size_t dot = name.find('.');
      parts.push_back(name.substr(0, dot));
      if (dot == std::string_view::npos) return parts;
      name.remove_prefix(dot + 1);
    }
  };
  const bool any_subdomain = pattern.starts_with("*.");
  const auto wanted = labels(any_subdomain ? pattern.substr(2) : pattern);
  const auto have = labels(host);
  if (any_subdomain ? have.size() <= wanted.size() : have.size() != wanted.size()) return false;
  const std::size_t skip = have.size() - wanted.size();
  for (std::size_t i = 0; i < wanted.size(); ++i)
    if (!star_match(wanted[i], have[skip + i])) return false;
  return true;
}

// ---------------------------------------------------------------- Bash

// Claude Code's own limit of what its analysis of a command parses; a longer
// command is one it cannot tell about. How deeply `$(...)`, `sh -c` and eval
// are followed, from how many words of one command on (after a wrapper) a
// rule is tried, and how many bytes are read and put together in all (a
// command of nested evals would otherwise be read again at every level).
// Beyond them, hookbus cannot tell what the command runs.
constexpr std::size_t kMaxCommandSize = 10'000;
constexpr int kMaxNesting = 16;
constexpr std::size_t kMaxStarts = 256;
constexpr std::size_t kMaxWork = 1'000'000;

// Programs that run the command given in their arguments: Claude Code strips
// the first nine before matching (bare xargs only); hookbus also tries a rule
// on what follows the others, and on xargs with options, for the safe side.
constexpr std::string_view kWrappers[] = {"timeout", "time",   "nice",    "nohup",   "stdbuf", "command",
                                          "builtin", "noglob", "xargs",   "exec",    "env",    "sudo",
                                          "doas",    "setsid", "ionice",  "chrt",    "taskset", "flock",
                                          "watch",   "find",   "nsenter", "unshare"};
constexpr std::string_view kShells[] = {"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash"};
constexpr std::string_view kReservedWords[] = {"!",  "{",  "}",    "if",    "then",  "else", "elif",
                                               "fi", "do", "done", "while", "until", "esac"};
// Reserved words after which the rest of the simple command names nothing that runs.
constexpr std::string_view kNoCommandAfter[] = {"case", "for", "select", "function"};
// The operators that end a simple command; the others are redirections.
constexpr std::string_view kSeparators[] = {";", "&", "&&", "||", "|", "|&", ";;", "(", ")"};

std::string_view basename_of(std::string_view program) {
  const std::size_t slash = program.rfind('/');
  return slash == std::string_view::npos ? program : program.substr(slash + 1);
}

// A word of a simple command: its text once the shell has removed the quotes
// (nullopt when it holds an expansion), and as written.
struct CommandWord {
  std::optional<std::string> literal;
  std::string written;
  bool glob = false;  // an unquoted `*`, `?` or `[`: what it names is known only when it runs
};

// The text a rule is tried on: one simple command from one of its words on,
// in three spellings (quotes removed, as written, the program's path cut to
// its name).
struct CommandText {
  std::string literal;
  std::string written;
  std::optional<std::string> by_name;
};

// What a Bash input runs, as far as hookbus can tell before it runs.
class BashCommands {
 public:
  explicit BashCommands(std::string_view command) {
    if (command.size() > kMaxCommandSize) undetermined_ = true;
    else read(command, 0);
  }

  // Whether some command it runs may be what `pattern` names.
  [[nodiscard]] bool match(std::string_view pattern) const {
    if (undetermined_) return true;
    // Claude Code: a pattern that names more than a program runs the hook on
    // any `$(...)`, backticks or `$VAR`, whose values it cannot know.
    if (expansions_ && names_more_than_a_program(pattern)) return true;
    const bool bare_too = pattern.ends_with(" *") && pattern.find('*') == pattern.size() - 1;
    const std::string_view bare = pattern.substr(0, pattern.size() - 2);
    const auto matched = [&](std::string_view text) {
      return star_match(pattern, text) || (bare_too && text == bare);
    };
    return std::any_of(texts_.begin(), texts_.end(), [&](const CommandText& text) {
      return matched(text.literal) || matched(text.written) || (text.by_name && matched(*text.by_name));
    });
  }

 private:
  static bool names_more_than_a_program(std::string_view pattern) {
    std::string_view program = pattern;
    if (program.ends_with(" *")) program.remove_suffix(2);
    return program.find_first_of(" *") != std::string_view::npos;
  }

  // Counts `bytes` of work; false, and the command undetermined, once there was too much.
  bool work(std::size_t bytes) {
    work_ += bytes;
    if (work_ > kMaxWork) undetermined_ = true;
    return !undetermined_;
  }

  void read(std::string_view text, int depth) {
    if (depth > kMaxNesting) undetermined_ = true;
    if (!work(text.size())) return;  // once undetermined, it matches whatever else it runs
    bool truncated = false;
    const auto tokens = shell::tokens(text, truncated, shell::Dialect::bash);
    if (truncated) undetermined_ = true;
    std::vector<const shell::Word*> words;
    bool redirection_target = false;
    for (const auto& token : tokens) {
      if (token.kind == shell::Token::Kind::word) {
        nested(token.word, depth);
        if (!std::exchange(redirection_target, false)) words.push_back(&token.word);
        continue;
      }
      if (token.kind == shell::Token::Kind::op && !contains(kSeparators, token.op)) {
        redirection_target = true;  // a redirection: the word after it is its file
        continue;
      }
      simple(words, depth);
      words.clear();
    }
    simple(words, depth);
  }

  // The commands inside a word: `$(...)`, backticks, `<(...)`; and whether it has expansions at all.
  void nested(const shell::Word& word, int depth) {
    for (const auto& part : word.parts) {
      if (part.kind == shell::Part::Kind::text) continue;
      expansions_ = true;
      if (part.kind == shell::Part::Kind::substitution) read(part.text, depth + 1);
      const bool process_substitution = (part.source.starts_with("<(") || part.source.starts_with(">(")) &&
                                        part.source.ends_with(')');
      if (part.kind == shell::Part::Kind::unknown && process_substitution)
        read(std::string_view(part.source).substr(2, part.source.size() - 3), depth + 1);
    }
  }

  static CommandWord command_word(const shell::Word& word) {
    CommandWord read{std::string(), word.source, false};
    for (const auto& part : word.parts) {
      if (part.kind != shell::Part::Kind::text) {
        read.literal.reset();
        return read;
      }
      if (!part.quoted && part.text.find_first_of("*?[") != std::string::npos) read.glob = true;
      *read.literal += part.text;
    }
    return read;
  }

  static bool is_assignment(const shell::Word& word) {
    if (word.parts.empty() || word.parts[0].kind != shell::Part::Kind::text || word.parts[0].quoted) return false;
    const std::string& text = word.parts[0].text;
    const std::size_t equals = text.find('=');
    return equals != std::string::npos && shell::is_name(std::string_view(text).substr(0, equals));
  }

  void simple(const std::vector<const shell::Word*>& all, int depth) {
    if (undetermined_) return;
    std::size_t first = 0;
    while (first < all.size() && contains(kReservedWords, all[first]->source) && all[first]->is(all[first]->source))
      ++first;
    if (first < all.size() && contains(kNoCommandAfter, all[first]->source)) return;
    while (first < all.size() && is_assignment(*all[first])) ++first;  // `A=b cmd`: the command is cmd
    if (first == all.size()) return;
    std::vector<CommandWord> words;
    for (std::size_t i = first; i < all.size(); ++i) words.push_back(command_word(*all[i]));
    if (!words[0].literal || words[0].glob) {
      undetermined_ = true;  // its program is known only when it runs
      return;
    }
    const bool wrapped = contains(kWrappers, basename_of(*words[0].literal)) &&
                         !(*words[0].literal == "command" && words.size() > 1 && words[1].literal &&
                           (*words[1].literal == "-v" || *words[1].literal == "-V"));
    const std::size_t starts = wrapped ? words.size() : 1;
    if (starts > kMaxStarts) undetermined_ = true;
    for (std::size_t start = 0; start < starts && !undetermined_; ++start) {
      add_texts(words, start);
      run_elsewhere(words, start, depth);
    }
  }

  void add_texts(const std::vector<CommandWord>& words, std::size_t start) {
    CommandText text;
    for (std::size_t i = start; i < words.size(); ++i) {
      const char* space = i == start ? "" : " ";
      text.literal += space + (words[i].literal ? *words[i].literal : words[i].written);
      text.written += space + words[i].written;
    }
    if (const auto& program = words[start].literal; program && program->find('/') != std::string::npos)
      text.by_name = std::string(basename_of(*program)) + text.literal.substr(program->size());
    if (work(text.literal.size() + text.written.size())) texts_.push_back(std::move(text));
  }

  // `sh -c 'cmd'` and `eval cmd`: the command they run is read too.
  void run_elsewhere(const std::vector<CommandWord>& words, std::size_t start, int depth) {
    if (!words[start].literal) return;
    const std::string_view program = basename_of(*words[start].literal);
    if (program == "eval") {
      std::string joined;
      for (std::size_t i = start + 1; i < words.size(); ++i) {
        if (!words[i].literal) {
          undetermined_ = true;
          return;
        }
        joined += (i == start + 1 ? "" : " ") + *words[i].literal;
      }
      read(joined, depth + 1);
      return;
    }
    if (!contains(kShells, program)) return;
    bool command_option = false;
    for (std::size_t i = start + 1; i < words.size(); ++i) {
      if (!words[i].literal) {
        undetermined_ = true;
        return;
      }
      const std::string& word = *words[i].literal;
      if (word == "--") continue;
      if (word.size() > 1 && (word[0] == '-' || word[0] == '+')) {
        if (!word.starts_with("--") && word[0] == '-' && word.find('c') != std::string::npos) command_option = true;
        if (word == "-o" || word == "+o") ++i;  // -o takes an option's name
        continue;
      }
      if (command_option) read(word, depth + 1);
      return;
    }
  }

  std::vector<CommandText> texts_;
  bool undetermined_ = false;
  bool expansions_ = false;
  std::size_t work_ = 0;
};

// ---------------------------------------------------------------- reading rules

// The rule comes from a settings file: its bytes are made valid UTF-8 for the message.
[[noreturn]] void refuse(std::string_view rule, std::string_view what) {
  throw PermissionRuleError(valid_utf8(fmt::format("the rule '{}' {}", rule, what)));
}

// Whether the parenthesis opened at `open` closes before the rule's end, as in
// `Bash(rm *) && Read(.env)`: quotes and backslashes are skipped, so that
// `Bash(echo ")")` and `Bash(echo $(date))` are one rule each.
bool closes_early(std::string_view text, std::size_t open) {
  int depth = 0;
  for (std::size_t i = open; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\') ++i;
    else if (c == '\'' || c == '"') i = std::min(text.find(c, i + 1), text.size());
    else if (c == '(') ++depth;
    else if (c == ')' && --depth == 0) return i + 1 < text.size();
  }
  return false;
}

// `name:value` (blanks around the colon allowed) when the specifier is one.
std::optional<std::pair<std::string, std::string>> parameter_form(std::string_view specifier) {
  const std::size_t colon = specifier.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  const std::string_view name = trim(specifier.substr(0, colon));
  if (!shell::is_name(name)) return std::nullopt;
  return std::pair{std::string(name), std::string(trim(specifier.substr(colon + 1)))};
}

PermissionRule parameter_rule(PermissionRule rule, std::string name, std::string value) {
  if (name == primary_field(rule.tool))
    refuse(rule.text, fmt::format("names {}'s {}, which Claude Code ignores in a rule (a compound command or another "
                                  "spelling would pass it by); write the tool's own form, as {}",
                                  rule.tool, name,
                                  rule.tool == "Bash"       ? "Bash(rm *)"
                                  : rule.tool == "WebFetch" ? "WebFetch(domain:example.com)"
                                  : rule.tool == "Edit"     ? "Edit(src/**)"
                                                            : "Read(./path)"));
  if (value.empty())
    refuse(rule.text, fmt::format("gives the parameter {} no value; write {}({}:VALUE), `*` for any value",
                                  name, rule.tool, name));
  rule.kind = PermissionRule::Kind::parameter;
  rule.parameter = std::move(name);
  rule.pattern = std::move(value);
  return rule;
}

PermissionRule path_rule(PermissionRule rule, std::string_view specifier) {
  std::string_view rest = specifier;
  if (rest.starts_with("//")) {
    rule.anchor = PermissionRule::Anchor::filesystem_root;
    rest.remove_prefix(2);
  } else if (rest == "~" || rest.starts_with("~/")) {
    rule.anchor = PermissionRule::Anchor::home;
    rest.remove_prefix(std::min<std::size_t>(2, rest.size()));
  } else if (rest.starts_with('~')) {
    refuse(rule.text, "names another user's home directory, which hookbus does not look up; write ~/path for "
                      "yours, or //path for an absolute path");
  } else if (rest.starts_with('/')) {
    rule.anchor = PermissionRule::Anchor::settings_root;
    rest.remove_prefix(1);
  } else {
    rule.anchor = PermissionRule::Anchor::working_directory;
  }
  rule.anchored = rule.anchor != PermissionRule::Anchor::working_directory;
  while (rest.starts_with("./") || rest.starts_with("../") || rest == "." || rest == "..") {
    rule.anchored = true;
    if (rest.starts_with("..")) ++rule.parents;
    const std::size_t slash = rest.find('/');
    rest.remove_prefix(slash == std::string_view::npos ? rest.size() : slash + 1);
    while (rest.starts_with('/')) rest.remove_prefix(1);
  }
  if (rest.starts_with('!'))
    refuse(rule.text, "negates its pattern, which one rule cannot do (gitignore's `!` only re-includes what an "
                      "earlier pattern excluded); write the path to match, with \\! for a name that starts with !");
  if (rest.starts_with('#'))
    refuse(rule.text, "starts its pattern with #, which gitignore reads as a comment; write \\# for a name that "
                      "starts with #");
  for (const std::string_view segment : split_segments(rest))
    if (segment == "." || segment == "..")
      refuse(rule.text, "has . or .. inside its path, which gitignore patterns do not resolve; write the path "
                        "without them (../ may only lead it)");
  std::string_view core = rest;
  if (core.ends_with('/')) core.remove_suffix(1);
  if (core.find('/') != std::string_view::npos) rule.anchored = true;  // gitignore: a slash anchors the pattern
  rule.kind = PermissionRule::Kind::path;
  rule.pattern = std::string(rest);
  return rule;
}

PermissionRule specified_rule(PermissionRule rule, std::string_view specifier) {
  const std::string& tool = rule.tool;
  const auto parameter = parameter_form(specifier);
  const bool own_parameter = parameter && (parameter->first == primary_field(tool) ||
                                           is_parameter_of(tool, parameter->first));
  if (own_parameter) return parameter_rule(std::move(rule), parameter->first, parameter->second);
  if (tool == "Bash") {
    rule.kind = PermissionRule::Kind::command;
    rule.pattern = std::string(specifier);
    if (rule.pattern.ends_with(":*")) rule.pattern.replace(rule.pattern.size() - 2, 2, " *");
    return rule;
  }
  if (tool == "PowerShell")
    refuse(rule.text, "is a PowerShell command pattern, which hookbus cannot evaluate as Claude Code does (cmdlet "
                      "aliases, case, PowerShell's grammar); leave the if out, so the handler sees every PowerShell "
                      "call, or write PowerShell alone");
  if (tool == "Read" || tool == "Edit") return path_rule(std::move(rule), specifier);
  if (tool == "Write" || tool == "MultiEdit" || tool == "NotebookEdit" || tool == "Glob")
    if (!parameter)
      refuse(rule.text, fmt::format("is a path rule of {}, which Claude Code never consults; write {}({}) instead",
                                    tool, tool == "Glob" ? "Read" : "Edit", specifier));
  if (tool == "WebFetch") {
    if (!specifier.starts_with("domain:"))
      refuse(rule.text, "is no WebFetch rule: WebFetch rules name a domain, as WebFetch(domain:example.com) or "
                        "WebFetch(domain:*.example.com)");
    std::string host(trim(specifier.substr(7)));
    std::transform(host.begin(), host.end(), host.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    while (host.ends_with('.')) host.pop_back();
    if (host.empty()) refuse(rule.text, "names no domain; write WebFetch(domain:example.com), or WebFetch alone");
    rule.kind = PermissionRule::Kind::domain;
    rule.pattern = std::move(host);
    return rule;
  }
  if (tool == "Agent" || tool == "Skill") {
    rule.kind = PermissionRule::Kind::name;
    rule.pattern = std::string(specifier);
    return rule;
  }
  if (tool == "Cd")
    refuse(rule.text, "is a rule of /cd, which the user runs and no tool call is: an if never sees it");
  if (parameter) return parameter_rule(std::move(rule), parameter->first, parameter->second);
  refuse(rule.text, fmt::format("gives {} a specifier hookbus does not know the meaning of: Claude Code documents "
                                "specifiers for Bash, Read, Edit, WebFetch, Agent and Skill, and parameter rules "
                                "Tool(parameter:value) for the others; write {} alone to match every call",
                                tool, tool));
}

// ---------------------------------------------------------------- matching

// Whether a rule's tool, or its glob of tools, names `tool_name`.
bool names_tool(const PermissionRule& rule, std::string_view tool_name) {
  const std::string& tool = rule.tool;
  if (tool.find_first_of("*?") != std::string::npos) return glob_match(tool, tool_name);
  if (tool == tool_name) return true;
  if (tool.starts_with("mcp__") && tool.find("__", 5) == std::string::npos)  // a server: each of its tools
    return tool_name.starts_with(tool + "__");
  if (tool == "Agent") return tool_name == "Task";
  if (tool == "Edit") return contains(kEditTools, tool_name);
  if (tool == "Read") return contains(kReadTools, tool_name) || contains(kSearchTools, tool_name);
  return false;
}

const boost::json::value* input_field(const boost::json::value& input, std::string_view name) {
  const auto* object = input.if_object();
  return object == nullptr ? nullptr : object->if_contains(name);
}

// A scalar's text as the rule compares it; nullopt for null, objects and arrays.
std::optional<std::string> scalar_text(const boost::json::value& value) {
  if (const auto* string = value.if_string()) return std::string(*string);
  if (value.is_bool() || value.is_number()) return boost::json::serialize(value);
  return std::nullopt;
}

bool path_matches(const PermissionRule& rule, std::string_view tool_name, const boost::json::value& input,
                  const RuleContext& context) {
  if (contains(kSearchTools, tool_name)) {
    const auto* path = input_field(input, "path");
    if (path == nullptr || path->is_null()) return directory_matches(rule, context.working_directory, context);
    if (!path->is_string()) return true;  // cannot tell
    return directory_matches(rule, std::string(path->get_string()), context);
  }
  const auto* path = input_field(input, primary_field(tool_name));
  if (path == nullptr || !path->is_string()) return true;  // cannot tell
  return file_matches(rule, std::string(path->get_string()), context);
}

}  // namespace

PermissionRule parse_permission_rule(std::string_view text) {
  PermissionRule rule;
  rule.text = std::string(trim(text));
  if (rule.text.empty())
    throw PermissionRuleError("the rule is empty; write a tool's name, as Bash, or Tool(specifier), as "
                              "Bash(git push *)");
  const std::size_t open = rule.text.find('(');
  const std::string_view tool = std::string_view(rule.text).substr(0, open);
  if (tool.empty()) refuse(rule.text, "names no tool; write Tool(specifier), as Bash(git push *)");
  if (tool.find_first_of(" \t,&|;") != std::string_view::npos)
    refuse(rule.text, "is not one rule: an if holds one rule, Tool or Tool(specifier), with no &&, || or list; "
                      "write a handler for each rule");
  if (!std::all_of(tool.begin(), tool.end(), is_tool_name_char))
    refuse(rule.text, "names no tool: a tool's name has letters, digits, _, - and ., or * and ? in a glob of "
                      "names");
  rule.tool = tool == "Task" ? "Agent" : std::string(tool);
  if (open == std::string::npos) return rule;
  if (!rule.text.ends_with(')'))
    refuse(rule.text, "has no closing parenthesis at its end; write Tool(specifier)");
  if (closes_early(rule.text, open))
    refuse(rule.text, "is not one rule: an if holds one rule, Tool or Tool(specifier), with no &&, || or list; "
                      "write a handler for each rule");
  const std::string_view specifier = std::string_view(rule.text).substr(open + 1, rule.text.size() - open - 2);
  if (rule.tool.starts_with("mcp__"))
    refuse(rule.text, "gives an MCP tool a specifier, which Claude Code skips when it loads a settings file; write "
                      "mcp__server, mcp__server__tool or mcp__server__*");
  if (rule.tool.find_first_of("*?") != std::string::npos)
    refuse(rule.text, "gives a glob of tool names a specifier; write the tool's name, as Bash(git push *)");
  if (trim(specifier).empty())
    refuse(rule.text, fmt::format("has empty parentheses; write {} to match every call, or {}(specifier)", rule.tool,
                                  rule.tool));
  if (specifier == "*") return rule;  // `Bash(*)` is `Bash`
  return specified_rule(std::move(rule), specifier);
}

bool matches(const PermissionRule& rule, std::string_view tool_name, const boost::json::value& tool_input,
             const RuleContext& context) {
  if (!names_tool(rule, tool_name)) return false;
  switch (rule.kind) {
    case PermissionRule::Kind::tool: return true;
    case PermissionRule::Kind::command: {
      const auto* command = input_field(tool_input, "command");
      if (command == nullptr || !command->is_string()) return true;  // cannot tell what runs
      return BashCommands(std::string_view(command->get_string())).match(rule.pattern);
    }
    case PermissionRule::Kind::path: return path_matches(rule, tool_name, tool_input, context);
    case PermissionRule::Kind::domain: {
      const auto* url = input_field(tool_input, "url");
      if (url == nullptr || !url->is_string()) return true;
      const auto host = url_host(std::string_view(url->get_string()));
      return !host || host_matches(rule.pattern, *host);
    }
    case PermissionRule::Kind::name: {
      const auto* name = input_field(tool_input, rule.tool == "Skill" ? "skill" : "subagent_type");
      if (name == nullptr || !name->is_string()) return true;
      return star_match(rule.pattern, std::string_view(name->get_string()));
    }
    case PermissionRule::Kind::parameter: {
      if (!tool_input.is_object()) return true;
      const auto* value = input_field(tool_input, rule.parameter);
      if (value == nullptr) return false;  // a parameter the call leaves out is never matched
      const auto text = scalar_text(*value);
      return text && star_match(rule.pattern, *text);
    }
  }
  return true;
}

}  // namespace hookbus::detail
