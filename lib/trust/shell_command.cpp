// The files a shell command runs or loads, found as /bin/sh will run it
// (trust/shell_command.hpp).
#include "trust/shell_command.hpp"

#include "support/files.hpp"
#include "support/search_path.hpp"
#include "support/shell_lexer.hpp"
#include "support/utf8.hpp"

#include <fmt/format.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>

namespace hookbus::detail {
namespace {

namespace fs = std::filesystem;

// Bounds that keep resolving a hostile command small: the kernel's own limits
// on the links one path may follow and on the '#!' interpreters one program
// goes through (BINPRM_MAX_RECURSION), how deeply `sh -c`, `$(...)`, `source`
// and compound commands may nest, how many ways through the command (each
// with its own working directory and variables) are followed apart, how much
// of a file `source` reads, how many commands are resolved in all (a file
// sourcing itself twice, loops in loops, would otherwise be resolved
// exponentially often), and how much of a construct a report quotes. How
// many tokens one text may have is the lexer's (shell::kMaxTokens).
constexpr int kMaxLinks = 40;
constexpr int kMaxInterpreters = 4;
constexpr int kMaxDepth = 32;
constexpr std::size_t kMaxStates = 8;
constexpr std::uintmax_t kMaxSourcedSize = 256 * 1024;
constexpr std::size_t kMaxSteps = 5'000;
constexpr std::size_t kMaxQuoted = 200;

// ---------------------------------------------------------------- paths

bool in_proc(const fs::path& path) {
  auto part = path.begin();
  return part != path.end() && ++part != path.end() && *part == "proc";
}

// Where the absolute `path` leads, each link followed where the kernel meets
// it (so a `..` after a link goes to the link target's parent); nullopt when
// nothing is there. Sets `per_process` when the walk enters /proc (/dev/fd
// and /dev/stdin are links into it): what such a path names depends on the
// process that opens it.
std::optional<fs::path> physical(const fs::path& path, bool& per_process) {
  std::vector<fs::path> pending;  // the components still to walk, the next one last
  const auto walk_later = [&](const fs::path& more) {
    const auto first = static_cast<std::ptrdiff_t>(pending.size());
    for (const auto& part : more.relative_path()) pending.push_back(part);
    std::reverse(pending.begin() + first, pending.end());
  };
  walk_later(path);
  fs::path current = "/";
  int links = 0;
  while (!pending.empty()) {
    const fs::path name = std::move(pending.back());
    pending.pop_back();
    if (name.empty() || name == ".") continue;
    if (name == "..") {
      current = current.parent_path();
      continue;
    }
    fs::path next = current / name;
    struct stat st {};
    if (::lstat(next.c_str(), &st) != 0) return std::nullopt;
    if (S_ISLNK(st.st_mode)) {
      std::error_code error;
      const fs::path target = fs::read_symlink(next, error);
      if (error || ++links > kMaxLinks) return std::nullopt;
      if (target.is_absolute()) current = "/";
      walk_later(target);
      continue;
    }
    if (!S_ISDIR(st.st_mode) && !pending.empty()) return std::nullopt;  // a file is no directory
    current = std::move(next);
    if (in_proc(current)) per_process = true;
  }
  return current;
}

// A file or directory a command names, as the kernel reaches it.
struct Reached {
  fs::path path;      // its directory resolved physically, its name as written
  fs::path resolved;  // every link followed
  bool directory = false;
  bool regular = false;
};

std::optional<Reached> reach(const fs::path& absolute, bool& per_process) {
  const auto resolved = physical(absolute, per_process);
  struct stat st {};
  if (!resolved || ::stat(resolved->c_str(), &st) != 0) return std::nullopt;
  Reached reached{*resolved, *resolved, S_ISDIR(st.st_mode), S_ISREG(st.st_mode)};
  const fs::path name = absolute.filename();
  if (!name.empty() && name != "." && name != "..")
    if (const auto directory = physical(absolute.parent_path(), per_process)) reached.path = *directory / name;
  return reached;
}

// What is reported is shown by hookctl and written to JSON: valid UTF-8
// (a command is any bytes), and a construct cut at a character.
std::string quoted_construct(std::string_view text) {
  if (text.size() <= kMaxQuoted) return valid_utf8(text);
  return valid_utf8(utf8_prefix(text, kMaxQuoted)) + "...";
}

// Variables that make programs load or run what they name (a library, a
// module path, a startup file): a command that sets them reaches files that
// are not resolved.
constexpr std::string_view kLoaderVariables[] = {
    "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT",  "PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME", "NODE_OPTIONS",
    "NODE_PATH",  "PERL5LIB",        "PERL5OPT",  "PERLLIB",    "RUBYLIB",       "RUBYOPT",    "BASH_ENV",
    "ENV",        "LUA_PATH",        "LUA_INIT",  "LUA_CPATH",  "DENO_DIR",      "GCONV_PATH", "ZDOTDIR"};

// What a command runs, gathered across its parts (and the commands nested in it).
class Resolution {
 public:
  explicit Resolution(const ShellStart& start) : start_(start) {}

  [[nodiscard]] const ShellStart& start() const noexcept { return start_; }

  // One more command (or pass of a loop) to resolve: false once there have
  // been too many, which is reported once; what is left is not resolved.
  bool step(std::string_view construct) {
    if (++steps_ <= kMaxSteps) return true;
    if (steps_ == kMaxSteps + 1)
      report(construct, fmt::format("more than {} commands to resolve (a file sourcing itself, loops in loops): the "
                                    "rest is not resolved",
                                    kMaxSteps));
    return false;
  }

  void report(std::string_view construct, std::string why) {
    UnresolvedConstruct item{quoted_construct(construct), valid_utf8(why)};
    if (std::find(found_.unresolved.begin(), found_.unresolved.end(), item) == found_.unresolved.end())
      found_.unresolved.push_back(std::move(item));
  }

  void glob(std::string_view construct) {
    report(construct, "a glob pattern: the files it matches are known only when the command runs");
  }

  // `NAME=value`, for the shell or a program: a variable that makes programs
  // load or run what it names reaches files that are not resolved; IFS
  // splits the words after it otherwise than they are read here.
  void assignment(const std::string& name, std::string_view construct) {
    if (std::find(std::begin(kLoaderVariables), std::end(kLoaderVariables), name) != std::end(kLoaderVariables))
      report(construct, fmt::format("{} makes programs load or run what it names, which is not resolved", name));
    if (name == "IFS")
      report(construct, "IFS changes where the words after it are split, so what they run is not resolved");
  }

  // Records the file at `absolute` in its role when it is a regular file;
  // what it reaches otherwise (a directory, nothing), for the caller to judge.
  std::optional<Reached> file(const fs::path& absolute, CommandFileRole role, std::string_view construct) {
    bool per_process = false;
    std::optional<Reached> reached = reach(absolute, per_process);
    if (per_process) {
      report(construct, "a per-process path (/proc, /dev/fd): what it names depends on the process that opens it");
      return std::nullopt;
    }
    if (!reached || !reached->regular) return reached;
    const auto known = std::find_if(found_.files.begin(), found_.files.end(),
                                    [&](const CommandFile& file) { return file.path == reached->path; });
    if (known == found_.files.end()) found_.files.push_back({reached->path, reached->resolved, role});
    else known->role = std::max(known->role, role);
    if (role != CommandFileRole::named) {
      directory(reached->path.parent_path());
      directory(reached->resolved.parent_path());
    }
    return reached;
  }

  void directory(const fs::path& directory) {
    if (std::find(found_.directories.begin(), found_.directories.end(), directory) == found_.directories.end())
      found_.directories.push_back(directory);
  }

  ShellCommandFiles take() && { return std::move(found_); }

 private:
  const ShellStart& start_;
  ShellCommandFiles found_;
  std::size_t steps_ = 0;
};

// ---------------------------------------------------------------- words

using shell::is_name;
using shell::kMaxTokens;
using shell::Part;
using shell::Token;
using shell::Word;

// ---------------------------------------------------------------- state

// A variable's value, when it is known before the command runs.
struct Value {
  std::optional<std::string> text{};  // nullopt: known only when the command runs
  bool exported = false;
  bool operator==(const Value&) const = default;
};

using Variables = std::map<std::string, Value, std::less<>>;

// One way through the command so far: where it is, and what it has set.
// Ways are copied at every step, so copies share their variables until one
// of them sets one.
class State {
 public:
  std::optional<fs::path> directory{};  // the working directory, as $PWD names it; nullopt: not known

  // A variable's value; nullptr when it is not known (neither set by the command nor known at its start).
  [[nodiscard]] const Value* find(std::string_view name) const {
    const auto found = variables_->find(name);
    return found == variables_->end() ? nullptr : &found->second;
  }
  [[nodiscard]] const Variables& variables() const noexcept { return *variables_; }
  void set(const std::string& name, Value value) { writable()[name] = std::move(value); }
  void forget(std::string_view name) {
    if (find(name) != nullptr) writable().erase(writable().find(name));
  }

  bool operator==(const State& other) const {
    return directory == other.directory && (variables_ == other.variables_ || *variables_ == *other.variables_);
  }

 private:
  Variables& writable() {
    if (variables_.use_count() > 1) variables_ = std::make_shared<Variables>(*variables_);
    return *variables_;
  }
  std::shared_ptr<Variables> variables_ = std::make_shared<Variables>();
};
using States = std::vector<State>;

// The special parameters, which never name a file, and the positional ones.
void set_parameters(State& state, const std::vector<std::string>& positional) {
  for (const char* special : {"?", "$", "!", "-", "#"}) state.set(special, {"0", false});
  state.set("0", {positional.empty() ? "sh" : positional[0], false});
  std::string all;
  for (std::size_t i = 1; i <= 9; ++i) {
    const std::string value = i < positional.size() ? positional[i] : "";
    state.set(std::to_string(i), {value, false});
    if (i < positional.size()) all += (all.empty() ? "" : " ") + value;
  }
  state.set("@", {all, false});
  state.set("*", {all, false});
}

struct Outcome {
  States success;
  States failure;
};

// A field of a command after expansion.
struct Field {
  std::string text{};
  std::vector<bool> unquoted{};  // per character: not quoted, so a glob character there is one
  bool known = true;              // false: its value is known only when the command runs (reported)
  std::string source{};           // the word as written

  // Text that is no pattern (an option's attached argument, which was expanded as part of the option).
  static Field quoted(std::string text, std::string source) {
    const std::size_t size = text.size();
    return {std::move(text), std::vector<bool>(size, false), true, std::move(source)};
  }

  [[nodiscard]] bool pattern() const {
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (!unquoted[i]) continue;
      if (text[i] == '*' || text[i] == '?') return true;
      if (text[i] == '[' && text.find(']', i + 2) != std::string::npos) return true;
    }
    return false;
  }
  [[nodiscard]] bool option() const { return text.size() > 1 && text[0] == '-'; }
  [[nodiscard]] bool plain() const { return known && !pattern(); }
};

std::string basename_of(std::string_view program) {
  const auto slash = program.rfind('/');
  return std::string(slash == std::string_view::npos ? program : program.substr(slash + 1));
}

// ---------------------------------------------------------------- programs

// How a program reads its options: those that take an argument (`-W arg`,
// `-Warg`, `--long arg`, `--long=arg`), and where its operands start.
struct OptionSyntax {
  std::string_view short_with_argument{};
  std::vector<std::string_view> long_with_argument{};
  bool plus_options = false;  // sh's `+o`, `+x`
};

struct ScannedOptions {
  std::size_t operand = std::string::npos;  // the first operand (a script, a program): npos when none
  std::string letters{};                    // every short option given without an argument
  std::vector<std::pair<std::string, Field>> arguments{};  // each option given with an argument
  std::vector<std::string> flags{};         // long options without an argument
  bool unknown = false;                     // a field in option position is not known: nothing after it is
};

ScannedOptions scan_options(const std::vector<Field>& fields, std::size_t from, const OptionSyntax& syntax) {
  ScannedOptions scanned;
  for (std::size_t i = from; i < fields.size(); ++i) {
    const Field& field = fields[i];
    if (!field.known) {
      scanned.unknown = true;
      return scanned;
    }
    const std::string& text = field.text;
    if (text == "--") {
      scanned.operand = i + 1 < fields.size() ? i + 1 : std::string::npos;
      return scanned;
    }
    if (text.starts_with("--")) {
      const auto equals = text.find('=');
      const std::string name = text.substr(0, equals);
      const bool takes = std::find(syntax.long_with_argument.begin(), syntax.long_with_argument.end(), name) !=
                         syntax.long_with_argument.end();
      if (equals != std::string::npos)
        scanned.arguments.push_back({name, Field::quoted(text.substr(equals + 1), field.source)});
      else if (takes && i + 1 < fields.size()) scanned.arguments.push_back({name, fields[++i]});
      else scanned.flags.push_back(name);
      continue;
    }
    if (text.size() > 1 && (text[0] == '-' || (syntax.plus_options && text[0] == '+'))) {
      for (std::size_t k = 1; k < text.size(); ++k) {
        const char letter = text[k];
        if (syntax.short_with_argument.find(letter) == std::string_view::npos) {
          scanned.letters += letter;
          continue;
        }
        const std::string name{'-', letter};
        if (k + 1 < text.size()) {
          scanned.arguments.push_back({name, Field::quoted(text.substr(k + 1), field.source)});
        } else if (i + 1 < fields.size()) {
          scanned.arguments.push_back({name, fields[++i]});
        }
        break;
      }
      continue;
    }
    scanned.operand = i;
    return scanned;
  }
  return scanned;
}

const Field* argument_of(const ScannedOptions& scanned, std::initializer_list<std::string_view> names) {
  for (const auto& [name, value] : scanned.arguments)
    if (std::find(names.begin(), names.end(), name) != names.end()) return &value;
  return nullptr;
}

bool has_flag(const ScannedOptions& scanned, std::string_view flag) {
  return std::find(scanned.flags.begin(), scanned.flags.end(), flag) != scanned.flags.end();
}

enum class Program {
  other, shell, python, node, deno, bun, ruby, perl, php, lua, tsx, ts_node, uv, make, package_runner, wrapper, eval,
};

Program program_kind(std::string_view name) {
  const auto one_of = [&](std::initializer_list<std::string_view> names) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  const auto versioned = [&](std::string_view stem) {  // python3, python3.12, lua5.4
    return name.starts_with(stem) &&
           std::all_of(name.begin() + static_cast<std::ptrdiff_t>(stem.size()), name.end(),
                       [](char c) { return (c >= '0' && c <= '9') || c == '.'; });
  };
  if (one_of({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash"})) return Program::shell;
  if (versioned("python") || versioned("pypy")) return Program::python;
  if (one_of({"node", "nodejs"})) return Program::node;
  if (name == "deno") return Program::deno;
  if (name == "bun") return Program::bun;
  if (name == "ruby") return Program::ruby;
  if (name == "perl") return Program::perl;
  if (name == "php") return Program::php;
  if (versioned("lua") || name == "luajit") return Program::lua;
  if (name == "tsx") return Program::tsx;
  if (name == "ts-node") return Program::ts_node;
  if (name == "uv") return Program::uv;
  if (one_of({"make", "gmake"})) return Program::make;
  if (one_of({"npx", "npm", "pnpm", "pnpx", "yarn", "bunx"})) return Program::package_runner;
  if (one_of({"env", "exec", "nice", "nohup", "time", "timeout", "command", "builtin", "setsid", "stdbuf", "xargs"}))
    return Program::wrapper;
  if (name == "eval") return Program::eval;
  return Program::other;
}

// Where the code a program reads from its standard input comes from.
struct Input {
  enum class Kind { inherited, file, pipe, text };
  Kind kind = Kind::inherited;
  fs::path file{};  // Kind::file: absolute
  std::string source{};
};

// One program to run, with what it is run with.
struct Run {
  std::vector<Field> fields;                 // the program, its arguments
  const State* shell = nullptr;              // the shell's state: the variables it exports
  std::map<std::string, Value> environment;  // what it gets on top: `A=b cmd`, env's
  std::optional<fs::path> directory;         // its working directory
  Input input;
  std::string source;  // the simple command as written
  // The '#!' lines followed on the way to this program; and whether it is the
  // interpreter of one, named by its absolute path: the system's, like a
  // program the engine's PATH finds, so not recorded.
  int interpreters = 0;
  bool system_interpreter = false;
};

States resolve_text(std::string_view text, const States& start, Resolution& out, int depth);

// The value a variable has for `run`'s program: its own environment, else the shell's.
std::optional<Value> variable_for(const Run& run, const std::string& name) {
  if (const auto found = run.environment.find(name); found != run.environment.end()) return found->second;
  if (run.shell == nullptr) return std::nullopt;
  if (const Value* value = run.shell->find(name)) return *value;
  return std::nullopt;
}

// What running a program reaches: its file, and by what it is (an
// interpreter, a wrapper, make) its script, module, makefile or the command
// it runs in turn.
class ProgramResolver {
 public:
  ProgramResolver(Resolution& out, int depth) : out_(out), depth_(depth) {}

  void resolve(Run run) {
    for (std::size_t i = 1; i < run.fields.size(); ++i) name(run, run.fields[i]);
    std::size_t at = 0;
    while (at < run.fields.size()) {
      const Field& program = run.fields[at];
      if (!program.known) return;  // reported where it was expanded
      if (program.pattern()) return out_.glob(program.source);
      const std::string name = basename_of(program.text);
      std::optional<Reached> reached;
      if (at == 0 && run.system_interpreter) {
        // the system's (above)
      } else if (program.text.find('/') != std::string::npos) {
        reached = path_to(run, program, CommandFileRole::program);
      } else if (const auto found = lookup(run, program.text)) {
        reached = out_.file(*found, CommandFileRole::program, program.source);
      }
      if (reached && reached->regular && run.interpreters < kMaxInterpreters)
        if (const auto line = interpreter_line(reached->resolved)) return resolve(interpreted(run, at, *line));
      const std::size_t next = dispatch(run, at, program_kind(name), name);
      if (next == std::string::npos) return;
      at = next;
    }
  }

 private:
  // The fields of `run` from `at` on are a program and its arguments: what it
  // runs is resolved; returns where the program it runs in turn is (a
  // wrapper's), or npos.
  std::size_t dispatch(Run& run, std::size_t at, Program kind, const std::string& name) {
    switch (kind) {
      case Program::wrapper: return wrapped(run, at, name);
      case Program::shell: shell(run, at, name); break;
      case Program::python: python(run, at); break;
      case Program::node:
      case Program::tsx:
      case Program::ts_node: node(run, at, name); break;
      case Program::deno: deno(run, at); break;
      case Program::bun: bun(run, at); break;
      case Program::ruby:
      case Program::perl:
      case Program::php:
      case Program::lua: scripting(run, at, kind, name); break;
      case Program::uv: return uv(run, at);
      case Program::make: make(run, at); break;
      case Program::package_runner:
        out_.report(run.source, fmt::format("{} runs the project's code through package.json (its scripts, or a "
                                            "package's program from node_modules), which is not resolved",
                                            name));
        break;
      case Program::eval:
        out_.report(run.source, "eval runs text put together when the command runs, which is not resolved");
        break;
      case Program::other: break;
    }
    return std::string::npos;
  }

  // What the kernel runs for a program with a '#!' line: its interpreter, the
  // line's argument (split as `env -S` splits it, so that it is reported),
  // then the program as named and its arguments. An interpreter named by a
  // relative path is found from the working directory, as the kernel finds
  // it, never through PATH: a file of the command's, which counts.
  static Run interpreted(const Run& run, std::size_t at, const InterpreterLine& line) {
    const std::string source = "#!" + line.interpreter + (line.argument.empty() ? "" : " " + line.argument);
    Run next = run;
    next.interpreters = run.interpreters + 1;
    next.system_interpreter = line.interpreter.starts_with('/');
    next.fields = {Field::quoted(line.interpreter.find('/') == std::string::npos ? "./" + line.interpreter
                                                                                 : line.interpreter,
                                 source)};
    std::string_view argument = line.argument;
    if (argument.starts_with("-S")) {
      next.fields.push_back(Field::quoted("-S", source));
      argument.remove_prefix(2);
      argument.remove_prefix(std::min(argument.find_first_not_of(" \t"), argument.size()));
    }
    if (!argument.empty()) next.fields.push_back(Field::quoted(std::string(argument), source));
    next.fields.insert(next.fields.end(), run.fields.begin() + static_cast<std::ptrdiff_t>(at), run.fields.end());
    return next;
  }

  // An argument that names an existing file is covered, whatever the program does with it.
  void name(const Run& run, const Field& field) {
    if (!field.plain() || field.text.empty() || field.option()) return;
    if (const auto absolute = absolute_path(run, field.text))
      out_.file(*absolute, CommandFileRole::named, field.source);
  }


  static std::optional<fs::path> absolute_path(const Run& run, const std::string& text) {
    if (!text.empty() && text[0] == '/') return fs::path(text);
    if (!run.directory) return std::nullopt;
    return *run.directory / text;
  }

  // A path a program runs or loads: recorded in `role`. A directory (a
  // Python or Node script that is a package) counts whole.
  std::optional<Reached> path_to(const Run& run, const Field& field, CommandFileRole role) {
    if (!field.plain()) {
      if (field.known) out_.glob(field.source);
      return std::nullopt;
    }
    const auto absolute = absolute_path(run, field.text);
    if (!absolute) {
      out_.report(field.source, "a path relative to a working directory that is not known (after a `cd` that was "
                                "not resolved)");
      return std::nullopt;
    }
    auto reached = out_.file(*absolute, role, field.source);
    if (reached && reached->directory) out_.directory(reached->resolved);
    return reached;
  }

  // A program named without a '/' that PATH finds in a directory the command
  // chose (PATH set by the command, or a relative entry of the engine's):
  // where it is. Programs of the engine's own PATH are not the command's.
  std::optional<fs::path> lookup(const Run& run, const std::string& program) {
    const auto path = variable_for(run, "PATH");
    if (!path) return std::nullopt;  // sh's own default: the system's programs
    if (!path->text) {
      out_.report(program, "a program found through a PATH whose value is known only when the command runs");
      return std::nullopt;
    }
    const auto engine = out_.start().variables.find("PATH");
    const bool chosen = engine == out_.start().variables.end() || *path->text != engine->second;
    for (const auto& [directory, relative] : search_path(*path->text, run.directory)) {
      const fs::path candidate = directory / program;
      if (is_executable_file(candidate))
        return chosen || relative ? std::optional(candidate) : std::nullopt;
    }
    return std::nullopt;
  }

  // The code a program reads from its standard input, when it is given no script.
  void from_input(const Run& run, std::string_view name) {
    switch (run.input.kind) {
      case Input::Kind::file: out_.file(run.input.file, CommandFileRole::script, run.input.source); break;
      case Input::Kind::pipe:
        out_.report(run.source, fmt::format("{} runs the code it reads from a pipe, which is not resolved", name));
        break;
      case Input::Kind::text:
        out_.report(run.source, fmt::format("{} runs the code of a here-document or here-string, which is not "
                                            "resolved",
                                            name));
        break;
      case Input::Kind::inherited: break;  // the hook's payload, which is the engine's
    }
  }

  void inline_code(const Run& run, std::string_view what) {
    out_.report(run.source, fmt::format("inline code ({}): the files it loads are not resolved", what));
  }

  // exec, env, nice, nohup, time, timeout, command, builtin, setsid, stdbuf,
  // xargs: the program they run, with what they change about it.
  std::size_t wrapped(Run& run, std::size_t at, const std::string& name) {
    const auto& fields = run.fields;
    if (name == "env") {
      std::size_t i = at + 1;
      for (; i < fields.size() && fields[i].known; ++i) {
        const std::string& text = fields[i].text;
        if (text == "--") return i + 1;
        if (text == "-i" || text == "--ignore-environment") {
          for (const auto& [variable, value] : run.shell->variables())
            if (value.exported) run.environment[variable] = {"", true};
        } else if (text == "-u" || text == "-C" || text == "-S") {
          if (++i >= fields.size() || !fields[i].known) return std::string::npos;
          if (text == "-u") run.environment[fields[i].text] = {"", true};
          if (text == "-C") run.directory = absolute_path(run, fields[i].text);
          if (text == "-S") {
            out_.report(run.source, "env -S splits a string into a command, which is not resolved");
            return std::string::npos;
          }
        } else if (const auto equals = text.find('='); equals != std::string::npos && is_name(text.substr(0, equals))) {
          out_.assignment(text.substr(0, equals), fields[i].source);
          run.environment[text.substr(0, equals)] = {text.substr(equals + 1), true};
        } else if (!text.starts_with('-')) {
          return i;
        }
      }
      return std::string::npos;
    }
    if (name == "command" || name == "builtin" || name == "exec" || name == "nohup" || name == "setsid") {
      const ScannedOptions options = scan_options(fields, at + 1, {name == "exec" ? "a" : ""});
      if (name == "command" && options.letters.find_first_of("vV") != std::string::npos) return std::string::npos;
      return options.operand;
    }
    if (name == "time") return scan_options(fields, at + 1, {"fo", {"--format", "--output"}}).operand;
    if (name == "nice") return scan_options(fields, at + 1, {"n", {"--adjustment"}}).operand;
    if (name == "stdbuf") return scan_options(fields, at + 1, {"ioe", {"--input", "--output", "--error"}}).operand;
    if (name == "timeout") {
      const ScannedOptions options = scan_options(fields, at + 1, {"sk", {"--signal", "--kill-after"}});
      return options.operand == std::string::npos || options.operand + 1 >= fields.size() ? std::string::npos
                                                                                         : options.operand + 1;
    }
    // xargs: its arguments come from its input, which is not known.
    const ScannedOptions options = scan_options(
        fields, at + 1, {"adEILnPs",
                         {"--arg-file", "--delimiter", "--eof", "--replace", "--max-lines",
                                                "--max-args", "--max-procs", "--max-chars", "--process-slot-var"}});
    return options.operand;
  }

  void shell(const Run& run, std::size_t at, std::string_view name) {
    const ScannedOptions options = scan_options(run.fields, at + 1, {"oO", {"--rcfile", "--init-file"}, true});
    if (options.unknown) return;
    for (const auto& [option, file] : options.arguments)
      if (option == "--rcfile" || option == "--init-file") path_to(run, file, CommandFileRole::script);
    if (options.letters.find('c') != std::string::npos) {
      if (options.operand == std::string::npos) return;
      const Field& command = run.fields[options.operand];
      if (!command.known) {
        out_.report(run.source, fmt::format("{} -c runs a command that is known only when it runs", name));
        return;
      }
      // The command runs in a new shell: the exported variables, this program's environment, its arguments.
      State nested;
      nested.directory = run.directory;
      if (run.shell != nullptr)
        for (const auto& [variable, value] : run.shell->variables())
          if (value.exported) nested.set(variable, value);
      for (const auto& [variable, value] : run.environment) nested.set(variable, value);
      std::vector<std::string> positional;
      for (std::size_t i = options.operand + 1; i < run.fields.size(); ++i)
        positional.push_back(run.fields[i].known ? run.fields[i].text : "");
      set_parameters(nested, positional);
      if (std::any_of(run.fields.begin() + static_cast<std::ptrdiff_t>(options.operand) + 1, run.fields.end(),
                      [](const Field& field) { return !field.known; }))
        for (const char* parameter : {"1", "2", "3", "4", "5", "6", "7", "8", "9", "@", "*"})
          nested.forget(parameter);
      resolve_text(command.text, {std::move(nested)}, out_, depth_ + 1);
      return;
    }
    if (options.operand != std::string::npos && options.letters.find('s') == std::string::npos)
      path_to(run, run.fields[options.operand], CommandFileRole::script);
    else
      from_input(run, name);
  }

  // A script operand of an interpreter: the file it runs; `-` is its input.
  void script_or_input(const Run& run, const ScannedOptions& options, std::string_view name) {
    if (options.unknown) return;
    if (options.operand == std::string::npos || run.fields[options.operand].text == "-") return from_input(run, name);
    path_to(run, run.fields[options.operand], CommandFileRole::script);
  }

  void python(const Run& run, std::size_t at) {
    const ScannedOptions options = scan_options(
        run.fields, at + 1, {"cmWX", {"--check-hash-based-pycs"}});
    if (argument_of(options, {"-c"}) != nullptr) return inline_code(run, "python -c");
    if (const Field* module = argument_of(options, {"-m"})) {
      // -I and -P leave the working directory out of the module search path.
      if (options.letters.find_first_of("IP") == std::string::npos) python_module(run, *module);
      return;
    }
    script_or_input(run, options, "python");
  }

  // `python3 -m a.b.c` runs a/b/c.py, or the package a/b/c, found first in
  // the working directory: its top package counts whole.
  void python_module(const Run& run, const Field& module) {
    if (!module.plain() || !is_name(module.text.substr(0, module.text.find('.')))) {
      if (module.known) out_.report(module.source, "a module name that is not resolved");
      return;
    }
    if (!run.directory) {
      out_.report(run.source, "python -m in a working directory that is not known");
      return;
    }
    std::string relative = module.text;
    std::replace(relative.begin(), relative.end(), '.', '/');
    const fs::path top = *run.directory / module.text.substr(0, module.text.find('.'));
    bool per_process = false;
    if (const auto package = reach(top, per_process); package && package->directory) {
      out_.directory(package->resolved);
      out_.file(*run.directory / (relative + ".py"), CommandFileRole::module, module.source);
      out_.file(*run.directory / relative / "__main__.py", CommandFileRole::module, module.source);
    } else {
      out_.file(*run.directory / (relative + ".py"), CommandFileRole::module, module.source);
    }
  }

  // node, tsx, ts-node: a script, inline code, and the modules --require and --import load.
  void node(const Run& run, std::size_t at, std::string_view name) {
    const ScannedOptions options = scan_options(
        run.fields, at + 1,
        {"eprCPO",
         {"--eval", "--print", "--require", "--import", "--loader", "--experimental-loader",
                                "--conditions", "--input-type", "--env-file", "--title", "--tsconfig", "--project",
                                "--compiler-options", "--compiler", "--transpiler"}});
    if (argument_of(options, {"-e", "-p", "--eval", "--print"}) != nullptr)
      return inline_code(run, fmt::format("{} -e", name));
    for (const auto& [option, module] : options.arguments) {
      if (option != "-r" && option != "--require" && option != "--import" && option != "--loader" &&
          option != "--experimental-loader")
        continue;
      if (module.plain() && (module.text.starts_with("/") || module.text.starts_with(".")))
        path_to(run, module, CommandFileRole::script);
      else
        out_.report(module.source, fmt::format("{} {} loads a package found through node_modules, which is not "
                                               "resolved",
                                               name, option));
    }
    script_or_input(run, options, name);
  }

  void deno(const Run& run, std::size_t at) {
    std::size_t from = at + 1;
    if (from < run.fields.size() && run.fields[from].known && !run.fields[from].option()) {
      const std::string& command = run.fields[from].text;
      if (command == "run") ++from;
      else if (command == "eval") return inline_code(run, "deno eval");
      else if (command.find('/') == std::string::npos && command.find('.') == std::string::npos) {
        out_.report(run.source, fmt::format("deno {} runs what the project's deno.json or its modules say, which is "
                                            "not resolved",
                                            command));
        return;
      }
    }
    script_or_input(run, scan_options(run.fields, from, {"c", {"--config", "--import-map"}}), "deno");
  }

  void bun(const Run& run, std::size_t at) {
    std::size_t from = at + 1;
    if (from < run.fields.size() && run.fields[from].known && run.fields[from].text == "run") ++from;
    const ScannedOptions options = scan_options(run.fields, from, {"e", {"--eval", "--print", "--cwd"}});
    if (argument_of(options, {"-e", "--eval", "--print"}) != nullptr) return inline_code(run, "bun -e");
    if (options.unknown || options.operand == std::string::npos) return;
    const Field& operand = run.fields[options.operand];
    const auto absolute = operand.plain() ? absolute_path(run, operand.text) : std::nullopt;
    bool per_process = false;
    if (absolute && reach(*absolute, per_process)) return (void)path_to(run, operand, CommandFileRole::script);
    out_.report(run.source, "bun runs a package.json script or a package's program from node_modules, which is not "
                            "resolved");
  }

  // ruby, perl, php and lua: a script, inline code, and what loads modules from elsewhere.
  void scripting(const Run& run, std::size_t at, Program kind, std::string_view name) {
    OptionSyntax syntax;
    std::string_view code;  // the options whose argument is code
    std::string_view elsewhere;  // the options that load modules from a path or a search
    switch (kind) {
      case Program::ruby: syntax = {"eCIr"}; code = "e"; elsewhere = "I"; break;
      case Program::perl: syntax = {"eEIMm"}; code = "eE"; elsewhere = "I"; break;
      case Program::php: syntax = {"rBREfFcdz"}; code = "rBRE"; elsewhere = "d"; break;
      default: syntax = {"el"}; code = "e"; elsewhere = "l"; break;
    }
    ScannedOptions options = scan_options(run.fields, at + 1, syntax);
    Run in_directory = run;
    for (const auto& [option, value] : options.arguments) {
      const char letter = option.size() == 2 ? option[1] : '\0';
      if (code.find(letter) != std::string_view::npos) return inline_code(run, fmt::format("{} {}", name, option));
      if (elsewhere.find(letter) != std::string_view::npos)
        out_.report(run.source,
                    fmt::format("{} {} makes it load code from elsewhere, which is not resolved", name, option));
      if (kind == Program::ruby && letter == 'C' && value.plain())
        in_directory.directory = absolute_path(run, value.text);
      // php's ini file may name code it prepends to every script.
      if (kind == Program::php && letter == 'c') path_to(run, value, CommandFileRole::script);
      if (kind == Program::php && (letter == 'f' || letter == 'F'))
        return (void)path_to(run, value, CommandFileRole::script);
    }
    script_or_input(in_directory, options, name);
  }

  // uv run: a Python script or module, or a program run in the project's environment.
  std::size_t uv(Run& run, std::size_t at) {
    if (at + 1 >= run.fields.size() || !run.fields[at + 1].known || run.fields[at + 1].text != "run")
      return std::string::npos;
    const ScannedOptions options = scan_options(
        run.fields, at + 2,
        {"mp",
         {"--with", "--with-editable", "--with-requirements", "--python", "--project",
                                "--directory", "--env-file", "--extra", "--group", "--package", "--index",
                                "--default-index", "--index-url", "--extra-index-url", "--find-links", "--config-file",
                                "--cache-dir", "--module"}});
    if (options.unknown) return std::string::npos;
    if (const Field* directory = argument_of(options, {"--directory"}); directory && directory->plain())
      run.directory = absolute_path(run, directory->text);
    if (!has_flag(options, "--no-project") && !has_flag(options, "--no-sync") && !has_flag(options, "--script"))
      out_.report(run.source, "uv run first installs the project's environment from its pyproject.toml and uv.lock: "
                              "what that builds and installs is not resolved");
    if (const Field* module = argument_of(options, {"-m", "--module"})) {
      python_module(run, *module);
      return std::string::npos;
    }
    if (options.operand == std::string::npos) return std::string::npos;
    const Field& operand = run.fields[options.operand];
    if (operand.plain() && (operand.text.ends_with(".py") || operand.text.find('/') != std::string::npos)) {
      path_to(run, operand, CommandFileRole::script);
      return std::string::npos;
    }
    return options.operand;  // a program, run in that environment
  }

  // make [-C DIR]... [-f FILE]: the makefile counts; what its rules run is not resolved.
  void make(const Run& run, std::size_t at) {
    const ScannedOptions options = scan_options(
        run.fields, at + 1,
        {"CfIoW",
         {"--directory", "--file", "--makefile", "--include-dir", "--old-file", "--what-if",
                                "--new-file", "--assume-old", "--assume-new"}});
    Run in_directory = run;
    const Field* makefile = nullptr;
    for (const auto& [option, value] : options.arguments) {
      if (option == "-C" || option == "--directory") {
        if (!value.plain()) return;
        in_directory.directory = absolute_path(in_directory, value.text);
      } else if (option == "-f" || option == "--file" || option == "--makefile") {
        makefile = &value;
      }
    }
    out_.report(run.source, "make runs what its makefile's rules say, which is not resolved");
    if (makefile != nullptr) {
      path_to(in_directory, *makefile, CommandFileRole::makefile);
      return;
    }
    if (!in_directory.directory) return;
    for (const char* name : {"GNUmakefile", "makefile", "Makefile"})
      if (const auto found = out_.file(*in_directory.directory / name, CommandFileRole::makefile, run.source);
          found && found->regular)
        return;
  }

  Resolution& out_;
  int depth_;
};

// ---------------------------------------------------------------- commands

// Reads and resolves the tokens of one command text, as sh runs it: each
// parse step takes the ways the command can be in when it gets there
// (States) and gives those it can be in after.
class Parser {
 public:
  Parser(std::vector<Token> tokens, Resolution& out, int depth)
      : tokens_(std::move(tokens)), out_(out), depth_(depth) {}

  States program(const States& start) {
    States states = start;
    while (at_ < tokens_.size()) {
      states = list(states, {});
      if (at_ < tokens_.size()) unexpected();
    }
    return states;
  }

 private:
  using Ends = std::initializer_list<std::string_view>;

  const Token* peek() const { return at_ < tokens_.size() ? &tokens_[at_] : nullptr; }
  bool at_op(std::string_view op) const {
    const Token* token = peek();
    return token != nullptr && token->kind == Token::Kind::op && token->op == op;
  }
  bool at_word(std::string_view word) const {
    const Token* token = peek();
    return token != nullptr && token->kind == Token::Kind::word && token->word.is(word);
  }
  bool at_newline() const {
    const Token* token = peek();
    return token != nullptr && token->kind == Token::Kind::newline;
  }
  bool at_end_of(Ends ends) const {
    return std::any_of(ends.begin(), ends.end(), [&](std::string_view end) { return at_op(end) || at_word(end); });
  }
  void skip_newlines() {
    while (at_newline()) ++at_;
  }
  bool expect(std::string_view word) {
    skip_newlines();
    if (at_word(word) || at_op(word)) {
      ++at_;
      return true;
    }
    out_.report(word, fmt::format("a command without its `{}`, which /bin/sh refuses", word));
    return false;
  }
  void unexpected() {
    const Token& token = tokens_[at_++];
    out_.report(token.kind == Token::Kind::op ? token.op : token.word.source,
                "a token out of place, which /bin/sh refuses");
  }

  void merge(States& into, const States& from) {
    for (const auto& state : from)
      if (std::find(into.begin(), into.end(), state) == into.end()) into.push_back(state);
    if (into.size() > kMaxStates) {
      out_.report(tokens_.empty() ? "" : tokens_.front().word.source,
                  "more ways through the command (working directories and variables) than are followed: what the "
                  "rest runs may not be resolved");
      into.resize(kMaxStates);
    }
  }
  States joined(const States& a, const States& b) {
    States all = a;
    merge(all, b);
    return all;
  }

  // A nesting of compound commands deeper than is followed: the rest is not resolved.
  bool too_deep() {
    if (depth_ + nesting_ <= kMaxDepth) return false;
    out_.report(tokens_[at_ < tokens_.size() ? at_ : 0].word.source, "nested too deeply to be resolved");
    at_ = tokens_.size();
    return true;
  }

  // and-or lists separated by `;`, `&` and newlines, up to one of `ends`.
  States list(const States& start, Ends ends) {
    States states = start;
    while (true) {
      skip_newlines();
      if (at_ >= tokens_.size() || at_end_of(ends)) return states;
      if (at_op(";") || at_op("&") || at_op(")") || at_op(";;")) {
        if (std::find(ends.begin(), ends.end(), tokens_[at_].op) != ends.end()) return states;
        unexpected();
        continue;
      }
      const States before = states;
      const Outcome outcome = and_or(states);
      states = joined(outcome.success, outcome.failure);
      if (at_op("&")) {  // in the background: this shell goes on where it was
        ++at_;
        states = before;
      } else if (at_op(";")) {
        ++at_;
      } else if (!at_newline() && at_ < tokens_.size() && !at_end_of(ends)) {
        unexpected();
      }
    }
  }

  Outcome and_or(const States& start) {
    Outcome outcome = pipeline(start);
    while (at_op("&&") || at_op("||")) {
      const bool both = at_op("&&");
      ++at_;
      skip_newlines();
      if (both) {
        const Outcome next = pipeline(outcome.success);
        outcome = {next.success, joined(outcome.failure, next.failure)};
      } else {
        const Outcome next = pipeline(outcome.failure);
        outcome = {joined(outcome.success, next.success), next.failure};
      }
    }
    return outcome;
  }

  Outcome pipeline(const States& start) {
    const bool negated = at_word("!");
    if (negated) ++at_;
    Outcome outcome = command(start, false);
    bool piped = false;
    while (at_op("|") || at_op("|&")) {
      ++at_;
      skip_newlines();
      piped = true;
      command(start, true);
    }
    if (piped) outcome = {start, start};  // each command of a pipeline runs in a subshell
    if (negated) std::swap(outcome.success, outcome.failure);
    return outcome;
  }

  Outcome command(const States& start, bool piped) {
    if (too_deep()) return {};
    ++nesting_;
    Outcome outcome = compound(start, piped);
    --nesting_;
    return outcome;
  }

  Outcome compound(const States& start, bool piped) {
    if (at_op("(")) {
      ++at_;
      list(start, {")"});
      expect(")");
      redirections(start);
      return {start, start};
    }
    if (at_word("{")) {
      ++at_;
      const States after = list(start, {"}"});
      expect("}");
      redirections(after);
      return {after, after};
    }
    if (at_word("if")) return if_command(start);
    if (at_word("while") || at_word("until")) return loop(start);
    if (at_word("for")) return for_loop(start);
    if (at_word("case")) return case_command(start);
    if (at_word("function")) {  // bash: function NAME [()] BODY
      ++at_;
      if (peek() != nullptr) ++at_;
      return function_body(start);
    }
    if (at_word("[[")) return test_command(start);
    return simple(start, piped);
  }

  // A function's body runs when it is called: resolved where it is defined.
  Outcome function_body(const States& start) {
    if (at_op("(")) {
      ++at_;
      expect(")");
    }
    skip_newlines();
    command(start, false);
    return {start, start};
  }

  Outcome if_command(const States& start) {
    ++at_;
    States condition = list(start, {"then"});
    expect("then");
    States after = list(condition, {"elif", "else", "fi"});
    while (at_word("elif")) {
      ++at_;
      condition = list(condition, {"then"});
      expect("then");
      merge(after, list(condition, {"elif", "else", "fi"}));
    }
    if (at_word("else")) {
      ++at_;
      merge(after, list(condition, {"fi"}));
    } else {
      merge(after, condition);
    }
    expect("fi");
    redirections(after);
    return {after, after};
  }

  // while and until, their body resolved as it runs a second time too (where the first left it).
  Outcome loop(const States& start) {
    ++at_;
    const std::size_t begin = at_;
    States entry = start;
    States after;
    for (int pass = 0; pass < 2 && out_.step("while"); ++pass) {
      at_ = begin;
      const States condition = list(entry, {"do"});
      expect("do");
      const States body = list(condition, {"done"});
      expect("done");
      after = joined(condition, body);
      entry = joined(start, body);
    }
    redirections(after);
    return {after, after};
  }

  Outcome for_loop(const States& start) {
    ++at_;
    const Token* name = peek();
    if (name == nullptr || name->kind != Token::Kind::word) {
      out_.report("for", "a for loop this resolver does not read");
      at_ = tokens_.size();
      return {start, start};
    }
    const std::string variable = name->word.source;
    ++at_;
    skip_newlines();
    if (at_word("in")) {
      ++at_;
      while (const Token* token = peek()) {
        if (token->kind != Token::Kind::word) break;
        for (const State& state : start)
          for (const Field& field : expand(token->word, state, true, true))
            if (field.known && field.pattern()) out_.glob(field.source);
        ++at_;
      }
    }
    if (at_op(";")) ++at_;
    States entry = start;
    for (State& state : entry) state.forget(variable);  // each pass's value is known only when it runs
    const std::size_t begin = at_;
    States after;
    for (int pass = 0; pass < 2 && out_.step("for"); ++pass) {
      at_ = begin;
      expect("do");
      const States body = list(entry, {"done"});
      expect("done");
      after = joined(entry, body);
      entry = after;
    }
    redirections(after);
    return {after, after};
  }

  Outcome case_command(const States& start) {
    ++at_;
    if (const Token* subject = peek(); subject != nullptr && subject->kind == Token::Kind::word) {
      for (const State& state : start) (void)expand(subject->word, state, false, true);
      ++at_;
    }
    expect("in");
    States after = start;  // no pattern matched
    while (true) {
      skip_newlines();
      if (at_ >= tokens_.size() || at_word("esac")) break;
      if (at_op("(")) ++at_;
      while (at_ < tokens_.size() && !at_op(")")) ++at_;  // the patterns
      if (!expect(")")) break;
      merge(after, list(start, {";;", "esac"}));
      if (at_op(";;")) ++at_;
    }
    expect("esac");
    redirections(after);
    return {after, after};
  }

  // bash's [[ ... ]]: a test, whose words may still substitute commands.
  Outcome test_command(const States& start) {
    ++at_;
    while (const Token* token = peek()) {
      ++at_;
      if (token->kind == Token::Kind::word) {
        if (token->word.is("]]")) break;
        for (const State& state : start) (void)expand(token->word, state, false, true);
      }
    }
    return {start, start};
  }

  struct Redirection {
    std::string op;
    int fd;
    Word target;
  };

  static bool is_redirection(std::string_view op) {
    for (const std::string_view known : {"<", ">", ">>", "<&", ">&", "<>", ">|", "&>", "&>>", "<<", "<<-", "<<<"})
      if (op == known) return true;
    return false;
  }

  // The redirections after a compound command: their words are expanded (a $(...) there runs).
  void redirections(const States& states) {
    while (const Token* token = peek()) {
      if (token->kind != Token::Kind::op || !is_redirection(token->op)) return;
      ++at_;
      if (const Token* target = peek(); target != nullptr && target->kind == Token::Kind::word) {
        for (const State& state : states) (void)expand(target->word, state, false, false);
        ++at_;
      }
    }
  }

  Outcome simple(const States& start, bool piped) {
    if (!out_.step(at_ < tokens_.size() ? tokens_[at_].word.source : "")) {
      at_ = tokens_.size();
      return {start, start};
    }
    std::vector<Word> assignments;
    std::vector<Word> words;
    std::vector<Redirection> redirections;
    while (const Token* token = peek()) {
      if (token->kind == Token::Kind::word) {
        if (words.empty() && assignment(token->word)) assignments.push_back(token->word);
        else words.push_back(token->word);
        ++at_;
      } else if (token->kind == Token::Kind::op && is_redirection(token->op)) {
        const Token& op = *token;
        ++at_;
        const Token* target = peek();
        if (target == nullptr || target->kind != Token::Kind::word) {
          out_.report(op.op, "a redirection without a file, which /bin/sh refuses");
          break;
        }
        redirections.push_back({op.op, op.fd, target->word});
        ++at_;
      } else if (token->kind == Token::Kind::op && token->op == "(" && words.size() == 1 && assignments.empty()) {
        return function_body(start);  // NAME () BODY
      } else {
        break;
      }
    }
    if (words.empty() && assignments.empty() && redirections.empty()) {
      if (const Token* token = peek(); token != nullptr && token->kind == Token::Kind::op) unexpected();
      return {start, start};
    }
    std::string source;
    for (const Word& word : words) source += (source.empty() ? "" : " ") + word.source;
    Outcome outcome;
    for (const State& state : start) {
      const Outcome one = simple_in(state, assignments, words, redirections, piped, source);
      merge(outcome.success, one.success);
      merge(outcome.failure, one.failure);
    }
    return outcome;
  }

  static std::optional<std::pair<std::string, Word>> split_assignment(const Word& word) {
    if (word.parts.empty() || word.parts[0].kind != Part::Kind::text || word.parts[0].quoted) return std::nullopt;
    const std::string& text = word.parts[0].text;
    const auto equals = text.find('=');
    if (equals == std::string::npos || !is_name(text.substr(0, equals))) return std::nullopt;
    Word value;
    value.source = word.source.substr(equals + 1);
    if (equals + 1 < text.size())
      value.parts.push_back({Part::Kind::text, text.substr(equals + 1), false, false, {}, {}});
    value.parts.insert(value.parts.end(), word.parts.begin() + 1, word.parts.end());
    return std::pair{text.substr(0, equals), std::move(value)};
  }
  static bool assignment(const Word& word) { return split_assignment(word).has_value(); }

  // `NAME=value`: its value, or nullopt when it is known only when the command runs.
  std::pair<std::string, Value> assigned(const Word& word, const State& state, bool exported) {
    auto [name, value] = *split_assignment(word);
    const std::vector<Field> fields = expand(value, state, false, true);
    const bool known = fields.size() == 1 && fields[0].known;
    out_.assignment(name, word.source);
    return {name, Value{known ? std::optional(fields[0].text) : std::nullopt, exported}};
  }

  Outcome simple_in(const State& state, const std::vector<Word>& assignments, const std::vector<Word>& words,
                    const std::vector<Redirection>& redirections, bool piped, const std::string& source) {
    State after = state;
    Run run{.fields = {}, .shell = &state, .environment = {}, .directory = state.directory,
            .input = {piped ? Input::Kind::pipe : Input::Kind::inherited, {}, {}}, .source = source};
    for (const Word& word : words) {
      std::vector<Field> fields = expand(word, state, true, true);
      run.fields.insert(run.fields.end(), fields.begin(), fields.end());
    }
    for (const Redirection& redirection : redirections) {
      const bool input = redirection.op == "<" || redirection.op == "<>";
      if (redirection.op == "<<" || redirection.op == "<<-" || redirection.op == "<<<") {
        out_.report(redirection.op + redirection.target.source,
                    redirection.op == "<<<" ? "a here-string: the text it gives a program is not resolved"
                                            : "a here-document: the text it gives a program is not resolved");
        if (redirection.op == "<<<") (void)expand(redirection.target, state, false, true);
        if (redirection.fd <= 0) run.input = {Input::Kind::text, {}, {}};
        continue;
      }
      // Where output goes decides nothing that runs: its variables are not reported, a $(...) in it is.
      const std::vector<Field> target = expand(redirection.target, state, false, input);
      if (!input || redirection.fd > 0 || target.size() != 1 || !target[0].plain()) continue;
      if (!target[0].text.starts_with('/') && !state.directory) continue;
      const fs::path file =
          target[0].text.starts_with('/') ? fs::path(target[0].text) : *state.directory / target[0].text;
      out_.file(file, CommandFileRole::named, target[0].source);
      run.input = {Input::Kind::file, file, target[0].source};
    }
    for (const Word& word : assignments) {
      auto [name, value] = assigned(word, state, false);
      if (run.fields.empty()) {
        const Value* old = after.find(name);
        value.exported = old != nullptr && old->exported;
        after.set(name, std::move(value));
      } else {
        value.exported = true;
        run.environment.insert_or_assign(name, std::move(value));
      }
    }
    // `command` and `builtin` before a builtin change nothing about it.
    std::size_t first = 0;
    while (first < run.fields.size() && run.fields[first].known &&
           (run.fields[first].text == "command" || run.fields[first].text == "builtin") &&
           !(first + 1 < run.fields.size() && run.fields[first + 1].text.starts_with('-')))
      ++first;
    const std::string builtin = first < run.fields.size() && run.fields[first].plain() ? run.fields[first].text : "";
    if (builtin == "cd") return cd(after, run, first);
    if (builtin == "." || builtin == "source") return sourced(after, run, first, source);
    if (builtin == "export" || builtin == "readonly" || builtin == "local" || builtin == "declare" ||
        builtin == "typeset") {
      for (std::size_t i = 1; i < words.size(); ++i) {
        if (assignment(words[i])) {
          auto [name, value] = assigned(words[i], state, true);
          const Value* old = after.find(name);
          value.exported = builtin == "export" || (old != nullptr && old->exported);
          after.set(name, std::move(value));
        } else if (builtin == "export" && is_name(words[i].source)) {
          Value exported = after.find(words[i].source) != nullptr ? *after.find(words[i].source) : Value{};
          exported.exported = true;
          after.set(words[i].source, std::move(exported));
        }
      }
      return {{after}, {after}};
    }
    if (builtin == "unset") {
      for (std::size_t i = first + 1; i < run.fields.size(); ++i)
        if (run.fields[i].plain() && is_name(run.fields[i].text)) after.set(run.fields[i].text, {"", false});
      return {{after}, {after}};
    }
    if (builtin == "exit") return {};
    if (builtin == "eval") {
      out_.report(source, "eval runs text put together when the command runs, which is not resolved");
      after.directory.reset();  // it may have changed directory
      return {{after}, {after}};
    }
    if (builtin == "trap") {
      if (first + 1 < run.fields.size() && run.fields[first + 1].known)
        resolve_text(run.fields[first + 1].text, {after}, out_, depth_ + 1);
      return {{after}, {after}};
    }
    if (builtin == "alias") {
      out_.report(source, "alias changes what later words run, which is not resolved");
      return {{after}, {after}};
    }
    if (run.fields.empty()) return {{after}, {after}};
    const bool replaces_shell = builtin == "exec" && first + 1 < run.fields.size();
    ProgramResolver(out_, depth_).resolve(std::move(run));
    if (replaces_shell) return {};
    return {{after}, {after}};
  }

  // cd [-L|-P] [DIR]: where the shell goes, as sh computes it (`..` taken
  // off the path as written, unless -P), if DIR is a directory; a DIR whose
  // first component is no `.` or `..` is looked for in each directory CDPATH
  // lists first (`CDPATH=vendor cd tools` goes to vendor/tools when it exists).
  Outcome cd(State state, const Run& run, std::size_t at) {
    bool physically = false;
    std::size_t i = at + 1;
    for (; i < run.fields.size() && run.fields[i].known && run.fields[i].option(); ++i)
      if (run.fields[i].text == "-P") physically = true;
    std::optional<std::string> target;
    const auto value_of = [&](std::string_view name) { return state.find(name) ? state.find(name)->text : std::nullopt; };
    if (i >= run.fields.size()) target = value_of("HOME");
    else if (run.fields[i].plain() && run.fields[i].text == "-") target = value_of("OLDPWD");
    else if (run.fields[i].plain()) target = run.fields[i].text;
    const std::optional<fs::path> old = state.directory;
    std::optional<fs::path> next;
    if (target && target->starts_with('/')) next = fs::path(*target);
    else if (target && old) next = *old / *target;
    const std::string first = target ? target->substr(0, target->find('/')) : "";
    const auto cdpath = variable_for(run, "CDPATH");
    if (next && !target->starts_with('/') && first != "." && first != ".." && cdpath) {
      if (!cdpath->text) {
        out_.report(run.source, "cd looks in the directories CDPATH lists, which are known only when the command "
                                "runs: the relative paths after it are not resolved");
        state.directory.reset();
        return {{state}, {state}};
      }
      for (const auto& [directory, relative] : search_path(*cdpath->text, old)) {
        struct stat st {};
        if (::stat((directory / *target).c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
          next = directory / *target;
          break;
        }
      }
    }
    if (!next) {
      out_.report(run.source, "cd to a directory that is not known before the command runs: the relative paths after "
                              "it are not resolved");
      state.directory.reset();
      return {{state}, {state}};
    }
    // sh goes to the path with each `..` taken off as written (cd -L), or as the kernel resolves it (cd -P).
    fs::path chosen = physically ? *next : next->lexically_normal();
    if (!chosen.has_filename() && chosen != chosen.root_path()) chosen = chosen.parent_path();  // "a/" is "a"
    bool per_process = false;
    const auto reached = physical(chosen, per_process);
    struct stat st {};
    if (!reached || ::stat(reached->c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return {{}, {state}};  // cd fails
    if (per_process) {
      out_.report(run.source, "cd into a per-process directory (/proc): what it names depends on the process");
      state.directory.reset();
      return {{state}, {state}};
    }
    state.directory = physically ? *reached : chosen;
    state.set("OLDPWD", {old ? std::optional(old->string()) : std::nullopt, true});
    state.set("PWD", {state.directory->string(), true});
    return {{state}, {}};
  }

  // `. FILE` and `source FILE`: the file is a script, read into this shell,
  // whose commands run here: resolved here, where they leave it.
  Outcome sourced(State state, Run& run, std::size_t at, const std::string& source) {
    if (at + 1 >= run.fields.size()) return {{state}, {state}};
    const Field& file = run.fields[at + 1];
    if (!file.plain()) {
      if (file.known) out_.glob(file.source);
      state.directory.reset();
      return {{state}, {state}};
    }
    std::optional<fs::path> path;
    if (file.text.find('/') != std::string::npos) {
      if (file.text.starts_with('/')) path = file.text;
      else if (state.directory) path = *state.directory / file.text;
    } else {
      // sh reads it from the first directory PATH lists that has it; bash, when none has, from the working directory.
      const auto listed = variable_for(run, "PATH");
      if (listed && !listed->text) {
        out_.report(source, "source of a file found through a PATH whose value is known only when the command runs");
        state.directory.reset();
        return {{state}, {state}};
      }
      if (listed)
        for (const auto& [directory, relative] : search_path(*listed->text, state.directory)) {
          struct stat st {};
          if (::stat((directory / file.text).c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
            path = directory / file.text;
            break;
          }
        }
      if (!path && state.directory) path = *state.directory / file.text;
    }
    if (!path) {
      out_.report(source, "source of a file relative to a working directory that is not known");
      state.directory.reset();
      return {{state}, {state}};
    }
    const auto reached = out_.file(*path, CommandFileRole::script, file.source);
    if (!reached || !reached->regular) return {{}, {state}};  // sh stops at a file it cannot read
    std::string text;
    try {
      text = read_regular_file(reached->resolved, kMaxSourcedSize);
    } catch (const FileReadError& error) {
      out_.report(file.source, fmt::format("a sourced file that could not be read ({}): what it runs is not resolved",
                                           error.what()));
      state.directory.reset();
      return {{state}, {state}};
    }
    const States after = resolve_text(text, {state}, out_, depth_ + 1);
    return {after, after};
  }

  // Expands a word as sh does for `state`: parameters, command
  // substitutions (whose commands are resolved too), tilde, quote removal,
  // field splitting (`split`). What is known only when the command runs is
  // reported (variables only when `variables` says they matter) and gives
  // an unknown field.
  std::vector<Field> expand(const Word& word, const State& state, bool split, bool variables) {
    std::vector<Field> fields;
    Field current = Field::quoted({}, word.source);
    bool started = false;  // the field has something, if only quotes
    const auto add = [&](std::string_view text, bool unquoted) {
      current.text += text;
      current.unquoted.insert(current.unquoted.end(), text.size(), unquoted);
      started = true;
    };
    const auto unknown = [&](std::string why) {
      out_.report(word.source, std::move(why));
      current.known = false;
      started = true;
    };
    for (std::size_t i = 0; i < word.parts.size(); ++i) {
      const Part& part = word.parts[i];
      switch (part.kind) {
        case Part::Kind::text: {
          std::string_view text = part.text;
          if (i == 0 && !part.quoted && text.starts_with('~')) {
            const std::size_t slash = std::min(text.find('/'), text.size());
            if (slash < text.size() || word.parts.size() == 1) {
              const std::string_view user = text.substr(1, slash - 1);
              const Value* home = state.find("HOME");
              if (!user.empty())
                unknown(fmt::format("~{} is another user's home directory, which is not resolved", user));
              else if (home == nullptr || !home->text)
                unknown("~: a home directory that is known only when the command runs");
              else add(*home->text, false);
              text.remove_prefix(slash);
            }
          }
          if (part.quoted) add(text, false);
          else add(text, true);
          break;
        }
        case Part::Kind::variable: {
          const Value* found = state.find(part.text);
          const bool known = found != nullptr && found->text && !(part.with_default && found->text->empty());
          if (!known) {
            if (variables)
              unknown(fmt::format("{} is a variable whose value is known only when the command runs", part.source));
            else {
              current.known = false;
              started = true;
            }
            break;
          }
          const std::string& value = *found->text;
          if (part.quoted || !split) {
            add(value, !part.quoted);
            break;
          }
          for (const char c : value) {
            if (c == ' ' || c == '\t' || c == '\n') {
              if (started) fields.push_back(std::exchange(current, Field::quoted({}, word.source)));
              started = false;
            } else {
              add(std::string_view(&c, 1), true);
            }
          }
          break;
        }
        case Part::Kind::substitution:
          resolve_text(part.text, {state}, out_, depth_ + 1);
          unknown(fmt::format("{} is a command substitution: its output is known only when the command runs",
                              part.source));
          break;
        case Part::Kind::unknown: unknown(fmt::format("{}: {}", part.source, part.why)); break;
      }
    }
    if (started || !current.text.empty()) fields.push_back(std::move(current));
    if (!split && fields.empty()) fields.push_back(Field::quoted({}, word.source));
    return fields;
  }

  std::vector<Token> tokens_;
  std::size_t at_ = 0;
  Resolution& out_;
  int depth_;
  int nesting_ = 0;
};

States resolve_text(std::string_view text, const States& start, Resolution& out, int depth) {
  if (depth > kMaxDepth) {
    out.report(text, "nested too deeply (sh -c, $(...), source) to be resolved");
    return start;
  }
  bool truncated = false;
  std::vector<Token> tokens = shell::tokens(text, truncated);
  if (truncated)
    out.report(text, fmt::format("more than {} words, operators and parts of words: the rest is not resolved",
                                 kMaxTokens));
  return Parser(std::move(tokens), out, depth).program(start);
}

}  // namespace

ShellCommandFiles resolve_shell_command(std::string_view command, const ShellStart& start) {
  Resolution out(start);
  State state;
  state.directory = start.working_directory;
  for (const auto& [name, value] : start.variables) {
    state.set(name, {value, true});
    // A variable of the hook's own environment (VS Code's "env") that makes
    // programs load what it names is said, as `NAME=value` before a command is.
    out.assignment(name, name + "=" + value);
  }
  state.set("PWD", {start.working_directory.string(), true});
  set_parameters(state, {});
  resolve_text(command, {std::move(state)}, out, 0);
  return std::move(out).take();
}

}  // namespace hookbus::detail
