// The command framework (cli.hpp): parsing, help, completion, exit codes and
// checked output. Nothing here knows a particular command except the ones it
// adds itself: help, completion and the hidden completion helper.

#include "cli.hpp"

#include <hookbus/config.hpp>
#include <hookbus/errors.hpp>
#include <hookbus/log.hpp>
#include <hookbus/names.hpp>
#include <hookbus/version.hpp>

#include <fmt/format.h>
#include <spdlog/cfg/env.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <ranges>
#include <span>
#include <system_error>

namespace hookctl {

Invocation::Invocation(const Command& command, std::vector<std::string_view> arguments,
                       std::map<std::string_view, std::string_view> options,
                       std::map<std::string_view, std::filesystem::path> paths, std::filesystem::path project_dir)
    : command_(&command), arguments_(std::move(arguments)), options_(std::move(options)), paths_(std::move(paths)),
      project_dir_(std::move(project_dir)) {}

std::optional<std::string_view> Invocation::argument(std::size_t index) const {
  return index < arguments_.size() ? std::optional(arguments_[index]) : std::nullopt;
}

std::optional<std::string_view> Invocation::value(std::string_view option) const {
  const auto found = options_.find(option);
  return found == options_.end() ? std::nullopt : std::optional(found->second);
}

std::optional<std::filesystem::path> Invocation::path(std::string_view option) const {
  const auto found = paths_.find(option);
  return found == paths_.end() ? std::nullopt : std::optional(found->second);
}

std::filesystem::path Invocation::argument_path(std::size_t index) const {
  std::filesystem::path path;
  for (const std::filesystem::path& step : std::filesystem::absolute(arguments_.at(index)))
    if (step != ".") path /= step;
  return path;
}

namespace {

namespace fs = std::filesystem;

constexpr std::string_view program = "hookctl";

// ------------------------------------------------------------ the table

// The options every command has, and those the row's flags add.
const Option help_option{"--help", Value::none, {}, "print this help"};
const Option quiet_option{"--quiet", Value::none, {}, "no log messages on stderr; errors are still printed"};
const Option project_option{"--project", Value::directory, "DIR",
                            "the project whose .hookbus/ to use (default: the current directory)"};

struct ShortOption {
  std::string_view short_name;
  std::string_view name;
};
constexpr ShortOption short_options[] = {{"-h", "--help"}, {"-q", "--quiet"}, {"-o", "--output"}};

// The rows the framework adds to the caller's table; they need the whole table.
const std::vector<Command>* current_table = nullptr;

// Why writing to stdout failed, when an exception said so (errno is gone by then).
std::string stdout_failure;

int help_command(const Invocation& invocation);
int completion_command(const Invocation& invocation);
int complete_command(const Invocation& invocation);

const std::vector<Command>& builtin_commands() {
  static const std::vector<Command> rows{
      {.name = "help",
       .summary = "print this overview, or a command's help",
       .arguments = {{"COMMAND", Value::command, true, "the command to explain"},
                     {"SUBCOMMAND", Value::text, true, "the second word of a group's command (help trace view)"}},
       .run = help_command},
      {.name = "completion",
       .summary = "print the shell completion script (installed for bash with the package)",
       .arguments = {{"SHELL", Value::text, false, "the shell: bash"}},
       .details = "To use it without installing: source <(hookctl completion bash)",
       .run = completion_command},
      {.name = "__complete",
       .summary = "the candidates for the last word of a command line (used by the completion script)",
       .arguments = {{"WORDS...", Value::text, true, "the words after hookctl, the last one being completed"}},
       .run = complete_command,
       .hidden = true},
  };
  return rows;
}

// Every command, the caller's first.
std::vector<const Command*> all_commands() {
  std::vector<const Command*> all;
  for (const auto* table : {current_table, &builtin_commands()})
    for (const Command& command : *table) all.push_back(&command);
  return all;
}

const Command* find_command(std::string_view name) {
  for (const Command* command : all_commands())
    if (command->name == name) return command;
  return nullptr;
}

// A command's name is one word, or two for a command of a group ("trace
// view"): the second words of `group`'s commands, none when it is no group.
std::vector<std::string_view> group_commands(std::string_view group) {
  std::vector<std::string_view> second_words;
  for (const Command* command : all_commands())
    if (command->name.size() > group.size() && command->name.starts_with(group) && command->name[group.size()] == ' ')
      second_words.push_back(command->name.substr(group.size() + 1));
  return second_words;
}

// The command `words` start with, and how many of the words its name takes.
std::pair<const Command*, std::size_t> find_command_in(std::span<const std::string_view> words) {
  if (words.empty()) return {nullptr, 0};
  if (const Command* command = find_command(words[0])) return {command, 1};
  if (words.size() > 1)
    if (const Command* command = find_command(fmt::format("{} {}", words[0], words[1]))) return {command, 2};
  return {nullptr, 0};
}

// "unknown command 'x'", or for a group without one of its commands "'trace'
// needs a command: trace view, trace summary".
std::string unknown_command(std::string_view name) {
  const std::vector<std::string_view> group = group_commands(name);
  if (group.empty()) return fmt::format("unknown command '{}'", printable(name));
  std::string names;
  for (std::string_view second : group) names += fmt::format("{}{} {}", names.empty() ? "" : ", ", name, second);
  return fmt::format("'{}' needs a command: {}", printable(name), names);
}

// The options `command` accepts, in the order its help lists them.
std::vector<Option> options_of(const Command& command) {
  std::vector<Option> options = command.options;
  if (command.project) options.push_back(project_option);
  if (!command.json.empty()) options.push_back({"--json", Value::none, {}, command.json});
  options.push_back(quiet_option);
  options.push_back(help_option);
  return options;
}

// Every option of the table, each once: those that may come before the
// command, where no command says yet what they take.
std::vector<Option> all_options() {
  std::vector<Option> all;
  for (const Command* command : all_commands())
    for (const Option& option : options_of(*command))
      if (std::ranges::none_of(all, [&](const Option& known) { return known.name == option.name; }))
        all.push_back(option);
  return all;
}

std::optional<Option> find_option(const std::vector<Option>& options, std::string_view name) {
  for (const ShortOption& alias : short_options)
    if (alias.short_name == name) name = alias.name;
  for (const Option& option : options)
    if (option.name == name) return option;
  return std::nullopt;
}

// The option a word before the command is, as the table knows it, when the
// next word is its value (`--workspace DIR`, not `--workspace=DIR`).
std::optional<Option> option_wanting_next_word(std::string_view word) {
  if (word.find('=') != std::string_view::npos) return std::nullopt;
  const std::optional<Option> option = find_option(all_options(), word);
  return option && option->value != Value::none ? option : std::nullopt;
}

// ------------------------------------------------------------ help

// "NAME [JSON]": the positional arguments as the synopsis shows them.
std::string arguments_synopsis(const Command& command) {
  std::string synopsis;
  for (const Argument& argument : command.arguments) {
    if (!synopsis.empty()) synopsis += ' ';
    synopsis += argument.optional ? fmt::format("[{}]", argument.name) : std::string(argument.name);
  }
  return synopsis;
}

std::string usage_line(const Command& command) {
  const std::string arguments = arguments_synopsis(command);
  return fmt::format("usage: {} {}{}{} [OPTIONS]", program, command.name, arguments.empty() ? "" : " ", arguments);
}

std::string option_label(const Option& option) {
  std::string label;
  for (const ShortOption& alias : short_options)
    if (alias.name == option.name) label = fmt::format("{}, ", alias.short_name);
  label += option.name;
  if (option.value != Value::none) label += fmt::format(" {}", option.value_name);
  return label;
}

void print_options(const std::vector<Option>& options) {
  fmt::print("\noptions:\n");
  for (const Option& option : options) fmt::print("  {:<16} {}\n", option_label(option), option.help);
}

void print_command_help(const Command& command) {
  std::string sentence(command.summary);
  if (!sentence.empty()) sentence[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(sentence[0])));
  fmt::print("{}\n\n{}.\n", usage_line(command), sentence);
  if (!command.arguments.empty()) {
    fmt::print("\narguments:\n");
    for (const Argument& argument : command.arguments) fmt::print("  {:<16} {}\n", argument.name, argument.help);
  }
  print_options(options_of(command));
  if (!command.details.empty()) fmt::print("\n{}\n", command.details);
}

// "hookctl trace --help": a group's commands, each with its synopsis.
void print_group_help(std::string_view group) {
  fmt::print("usage: {} {} COMMAND [ARGUMENTS] [OPTIONS]\n\ncommands:\n", program, group);
  for (std::string_view second : group_commands(group)) {
    const Command& command = *find_command(fmt::format("{} {}", group, second));
    fmt::print("  {:<28} {}\n", fmt::format("{} {}", command.name, arguments_synopsis(command)), command.summary);
  }
  print_options({quiet_option, help_option});
  fmt::print("\nRun '{} {} COMMAND --help' for a command's arguments and options.\n", program, group);
}

// README.md's table says the same (HookctlHelp.ReadmesExitCodesAreHookctlHelps).
constexpr std::string_view exit_codes_help =
    "exit codes:\n"
    "  0  done; for emit and run-hook, also when a hook refused the event, unless\n"
    "     --exit-code\n"
    "  1  a hook refused the event (denied, cancelled, rejected) and --exit-code was\n"
    "     given; replay: a decision differs from the recording\n"
    "  2  usage or input error: unknown command or option, a missing or extra argument,\n"
    "     invalid event JSON, a path that does not exist or is of the wrong kind, a trace\n"
    "     file that does not read\n"
    "  3  config error: .hookbus/config.json, or a built-in's settings in it (list checks\n"
    "     them as emit does)\n"
    "  4  failure: the hook failed (run-hook), stdout could not be written (a full disk,\n"
    "     a closed stdout), a message or log line could not be written to stderr (when\n"
    "     the command would otherwise exit 0), any other error\n";

constexpr std::string_view environment_help =
    "environment:\n"
    "  SPDLOG_LEVEL     log level of the hookbus logger: trace, debug, info (default), warn,\n"
    "                   error, critical, off; or per logger, as SPDLOG_LEVEL=hookbus=debug;\n"
    "                   a level it does not know is a warning, and ignored\n"
    "  NO_COLOR         set and not empty: no colour (colour is only used on a terminal)\n"
    "  XDG_CONFIG_HOME  the user's hook directory is $XDG_CONFIG_HOME/hookbus/hooks\n";

void print_overview() {
  fmt::print("usage: {} [OPTIONS] COMMAND [ARGUMENTS] [OPTIONS]\n\n"
             "The hookbus event catalogue, and a project's external hooks, from the command line.\n\n"
             "commands:\n",
             program);
  std::vector<std::pair<std::string, std::string_view>> rows;  // "emit NAME [JSON]", summary
  std::size_t width = 0;
  for (const Command* command : all_commands()) {
    if (command->hidden) continue;
    rows.emplace_back(fmt::format("{} {}", command->name, arguments_synopsis(*command)), command->summary);
    width = std::max(width, rows.back().first.size());
  }
  for (const auto& [synopsis, summary] : rows) fmt::print("  {:<{}}  {}\n", synopsis, width, summary);
  fmt::print("\nEvery command takes -h/--help (its arguments, options and output) and -q/--quiet;\n"
             "those that print data take --json (one JSON document on stdout), those that\n"
             "read a project take --project DIR. Options may also come before the command.\n"
             "hookctl --version prints the version of hookbus it was built with.\n\n"
             "{}\n{}",
             exit_codes_help, environment_help);
}

int help_command(const Invocation& invocation) {
  const auto name = invocation.argument(0);
  if (!name) {
    print_overview();
    return exit_ok;
  }
  const auto [command, taken] = find_command_in(invocation.arguments());
  if (command == nullptr && invocation.arguments().size() == 1 && !group_commands(*name).empty()) {
    print_group_help(*name);
    return exit_ok;
  }
  if (command == nullptr) throw UsageError(unknown_command(*name));
  if (taken < invocation.arguments().size())
    throw UsageError(fmt::format("unexpected argument '{}'", printable(invocation.arguments()[taken])));
  print_command_help(*command);
  return exit_ok;
}

// ------------------------------------------------------------ completion

constexpr std::string_view bash_completion = R"(# bash completion for hookctl (generated by `hookctl completion bash`).
# The candidates come from hookctl itself (`hookctl __complete WORDS...`), so
# they always match its commands, options and event catalogue.
_hookctl() {
  local typed=${COMP_LINE:0:COMP_POINT} line
  local -a words
  read -ra words <<< "$typed"
  [[ -z $typed || $typed =~ [[:space:]]$ ]] && words+=("")
  local cur=${words[${#words[@]}-1]}
  COMPREPLY=()
  while IFS= read -r line; do
    case $line in
      @file) compopt -o default 2>/dev/null ;;
      @directory) compopt -o dirnames 2>/dev/null ;;
      *) COMPREPLY+=("$line") ;;
    esac
  done < <("${words[0]}" __complete -- "${words[@]:1}" 2>/dev/null)
  # bash replaces only what follows the last ':' (message:receive)
  if [[ $cur == *:* && $COMP_WORDBREAKS == *:* ]]; then
    COMPREPLY=("${COMPREPLY[@]#"${cur%:*}:"}")
  fi
}
complete -F _hookctl hookctl
)";

int completion_command(const Invocation& invocation) {
  if (invocation.argument(0) != "bash")
    throw UsageError(fmt::format("no completion for '{}'; available: bash", printable(*invocation.argument(0))));
  fmt::print("{}", bash_completion);
  return exit_ok;
}

// The candidates for a word holding a `value`, or the @file / @directory
// directive that makes the script complete paths.
std::vector<std::string> candidates_for(Value value) {
  std::vector<std::string> candidates;
  switch (value) {
    case Value::event:
      for (std::string_view name : hookbus::event_names()) candidates.emplace_back(name);
      for (const hookbus::EventAlias& alias : hookbus::event_aliases()) candidates.emplace_back(alias.alias);
      break;
    case Value::command:  // a group's name once, not each of its commands
      for (const Command* command : all_commands()) {
        const std::string first_word(command->name.substr(0, command->name.find(' ')));
        if (!command->hidden && std::ranges::find(candidates, first_word) == candidates.end())
          candidates.push_back(first_word);
      }
      break;
    case Value::file:
    case Value::new_file: candidates.emplace_back("@file"); break;
    case Value::directory: candidates.emplace_back("@directory"); break;
    case Value::none:
    case Value::text:
    case Value::json: break;
  }
  return candidates;
}

bool is_option(std::string_view word) { return word.size() > 1 && word.front() == '-'; }

// The words before the one being completed, as the parser would read them:
// the command, the positional arguments, and whether the last word is an
// option that still wants its value.
struct CompletedSoFar {
  const Command* command = nullptr;
  std::string_view group{};  // a group's name, its command not yet given
  std::size_t positionals = 0;
  std::optional<Option> wants_value;
};

CompletedSoFar read_words(std::span<const std::string_view> words) {
  CompletedSoFar so_far;
  bool options_ended = false;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string_view word = words[i];
    so_far.wants_value.reset();
    if (!options_ended && word == "--") {
      options_ended = true;
    } else if (!options_ended && is_option(word)) {
      const std::optional<Option> option =
          so_far.command ? find_option(options_of(*so_far.command), word) : option_wanting_next_word(word);
      if (option && option->value != Value::none) {
        if (i + 1 == words.size()) so_far.wants_value = option;
        else ++i;
      }
    } else if (so_far.command == nullptr && so_far.group.empty() && !group_commands(word).empty()) {
      so_far.group = word;
    } else if (so_far.command == nullptr) {
      so_far.command = so_far.group.empty() ? find_command(word) : find_command(fmt::format("{} {}", so_far.group, word));
      if (so_far.command == nullptr) return so_far;
    } else {
      ++so_far.positionals;
    }
  }
  return so_far;
}

int complete_command(const Invocation& invocation) {
  const std::vector<std::string_view>& words = invocation.arguments();
  const std::string_view current = words.empty() ? std::string_view() : words.back();
  const CompletedSoFar so_far = read_words(std::span(words).first(words.empty() ? 0 : words.size() - 1));

  std::vector<std::string> candidates;
  if (so_far.wants_value) {
    candidates = candidates_for(so_far.wants_value->value);
  } else if (is_option(current) || current == "-") {
    const std::vector<Option> options = so_far.command ? options_of(*so_far.command) : all_options();
    for (const Option& option : options) candidates.emplace_back(option.name);
  } else if (so_far.command == nullptr && !so_far.group.empty()) {
    for (std::string_view second : group_commands(so_far.group)) candidates.emplace_back(second);
  } else if (so_far.command == nullptr) {
    candidates = candidates_for(Value::command);
  } else if (so_far.positionals < so_far.command->arguments.size()) {
    candidates = candidates_for(so_far.command->arguments[so_far.positionals].value);
  }
  for (const std::string& candidate : candidates)
    if (candidate.starts_with('@') || candidate.starts_with(current)) fmt::print("{}\n", candidate);
  return exit_ok;
}

// ------------------------------------------------------------ parsing

// A path argument that must exist (but a new_file) and be of its kind: a usage error otherwise.
fs::path checked_path(std::string_view what, std::string_view text, Value kind) {
  const std::string shown = printable(text);
  if (text.empty()) throw UsageError(fmt::format("{}: the path is empty", what));
  std::error_code error;
  const fs::path path = fs::absolute(fs::path(text), error);
  if (error) throw UsageError(fmt::format("{} '{}': {}", what, shown, error.message()));
  const fs::file_status status = fs::status(path, error);
  if (kind != Value::new_file && !fs::exists(status)) {
    if (fs::is_symlink(fs::symlink_status(path, error)))
      throw UsageError(fmt::format("{} '{}': a symlink to '{}', which does not exist", what, shown,
                                   printable(fs::read_symlink(path, error).string())));
    throw UsageError(fmt::format("{} '{}': no such file or directory", what, shown));
  }
  if (kind == Value::directory && !fs::is_directory(status))
    throw UsageError(fmt::format("{} '{}': not a directory", what, shown));
  if (kind != Value::directory && fs::is_directory(status))
    throw UsageError(fmt::format("{} '{}': a directory, not a file", what, shown));
  return path;
}

bool is_path(Value kind) { return kind == Value::file || kind == Value::new_file || kind == Value::directory; }

fs::path current_directory() {
  std::error_code error;
  fs::path path = fs::current_path(error);
  if (error)
    throw UsageError(fmt::format("the current directory cannot be used as the project ({}): give --project DIR",
                                 error.message()));
  return path;
}

// The command line after the command's name, checked against its row.
Invocation parse(const Command& command, std::span<const std::string_view> words) {
  std::vector<std::string_view> arguments;
  std::map<std::string_view, std::string_view> options;
  bool options_ended = false;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string_view word = words[i];
    if (options_ended || !is_option(word)) {
      arguments.push_back(word);
      continue;
    }
    if (word == "--") {
      options_ended = true;
      continue;
    }
    const std::size_t equals = word.starts_with("--") ? word.find('=') : std::string_view::npos;
    const std::string_view name = word.substr(0, equals);
    const std::optional<Option> option = find_option(options_of(command), name);
    if (!option) throw UsageError(fmt::format("unknown option '{}'", printable(name)));
    if (option->value == Value::none) {
      if (equals != std::string_view::npos) throw UsageError(fmt::format("option '{}' takes no value", option->name));
      options[option->name] = {};
    } else if (equals != std::string_view::npos) {
      options[option->name] = word.substr(equals + 1);
    } else {
      if (i + 1 == words.size()) throw UsageError(fmt::format("option '{}' needs {}", option->name, option->value_name));
      options[option->name] = words[++i];
    }
  }
  if (options.contains("--help")) return Invocation(command, std::move(arguments), std::move(options), {}, {});

  const auto required = std::ranges::count_if(command.arguments, [](const Argument& a) { return !a.optional; });
  // A last argument named "WORDS..." takes all the words left.
  const bool variadic = !command.arguments.empty() && command.arguments.back().name.ends_with("...");
  if (arguments.size() < static_cast<std::size_t>(required)) {
    const Argument& missing = command.arguments[arguments.size()];
    throw UsageError(fmt::format("missing {}: {}", missing.name, missing.help));
  }
  if (!variadic && arguments.size() > command.arguments.size())
    throw UsageError(fmt::format("unexpected argument '{}'", printable(arguments[command.arguments.size()])));
  for (std::size_t i = 0; i < arguments.size() && !variadic; ++i) {
    const Argument& argument = command.arguments[i];
    if (is_path(argument.value)) checked_path(argument.name, arguments[i], argument.value);
  }
  std::map<std::string_view, fs::path> paths;
  for (const auto& [name, text] : options)
    if (const Value kind = find_option(options_of(command), name)->value; is_path(kind))
      paths.emplace(name, checked_path(name, text, kind));
  fs::path project_dir;
  if (command.project) {
    const auto given = paths.find("--project");
    project_dir = given == paths.end() ? current_directory() : given->second;
  }
  return Invocation(command, std::move(arguments), std::move(options), std::move(paths), std::move(project_dir));
}

// `hookctl -q --workspace DIR emit ...` is `hookctl emit ... -q --workspace DIR`:
// options before the command move after it. Returns the index of the command;
// past the end when the last option still wants its value.
std::size_t command_position(const std::vector<std::string_view>& args) {
  std::size_t i = 0;
  while (i < args.size() && is_option(args[i]) && args[i] != "--") i += option_wanting_next_word(args[i]) ? 2 : 1;
  return i;
}

// ------------------------------------------------------------ running

// stdin, stdout and stderr are open before anything else is: a descriptor
// opened later (a hook's pipe) must never become one of them by accident.
// A closed stdout is an error (nothing could be printed); a closed stdin or
// stderr becomes /dev/null.
bool standard_streams_usable() {
  for (int fd : {STDIN_FILENO, STDERR_FILENO, STDOUT_FILENO}) {
    if (::fcntl(fd, F_GETFD) != -1) continue;
    if (fd == STDOUT_FILENO) {
      print_to_stderr("{}: standard output is closed\n", program);
      return false;
    }
    if (::open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY) != fd) return false;
  }
  return true;
}

// What spdlog's cfg helpers would silently skip in SPDLOG_LEVEL ("LEVEL" or
// "LEVEL,LOGGER=LEVEL,..."): each level they do not know, or the whole value
// when it is longer than they read; one warning each, naming the valid levels.
std::vector<std::string> spdlog_level_warnings(std::string_view value) {
  constexpr std::size_t longest_read = 512;  // spdlog::cfg::helpers::load_levels ignores a longer value
  constexpr std::string_view valid = "trace, debug, info, warning (warn), error (err), critical, off";
  if (value.size() > longest_read)
    return {fmt::format("SPDLOG_LEVEL is longer than {} characters and is ignored; it holds a level (one of: {}) "
                        "or LOGGER=LEVEL pairs separated by commas",
                        longest_read, valid)};
  std::vector<std::string> warnings;
  const auto trimmed = [](std::string_view text) {
    const auto first = text.find_first_not_of(" \n\r\t");
    return first == std::string_view::npos ? std::string_view() : text.substr(first, text.find_last_not_of(" \n\r\t") - first + 1);
  };
  for (const auto part : std::views::split(value, ',')) {
    const std::string_view setting(part.begin(), part.end());
    if (setting.empty()) continue;
    const auto equals = setting.find('=');
    std::string level(trimmed(equals == std::string_view::npos ? setting : setting.substr(equals + 1)));
    std::ranges::transform(level, level.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (spdlog::level::from_str(level) != spdlog::level::off || level == "off") continue;
    const std::string logger =
        equals == std::string_view::npos ? "" : fmt::format(" for logger '{}'", printable(trimmed(setting.substr(0, equals))));
    warnings.push_back(fmt::format("SPDLOG_LEVEL: unknown level '{}'{}, ignored; valid levels are: {}", printable(level),
                                   logger, valid));
  }
  return warnings;
}

// The hookbus logger for a command-line tool: on stderr, "hookbus: warning: ...",
// coloured only on a terminal and never with NO_COLOR, at the level SPDLOG_LEVEL
// gives (spdlog's cfg helpers; a level they do not know is a warning), off with -q.
void set_up_logging(bool quiet) {
  if (const char* levels = std::getenv("SPDLOG_LEVEL"); levels != nullptr && !quiet)
    for (const std::string& warning : spdlog_level_warnings(levels)) print_to_stderr("{}: warning: {}\n", program, warning);
  const char* no_color = std::getenv("NO_COLOR");
  const auto mode = no_color != nullptr && *no_color != '\0' ? spdlog::color_mode::never : spdlog::color_mode::automatic;
  auto logger = std::make_shared<spdlog::logger>("hookbus", std::make_shared<spdlog::sinks::stderr_color_sink_mt>(mode));
  spdlog::cfg::load_env_levels();
  spdlog::initialize_logger(logger);  // applies SPDLOG_LEVEL's level for "hookbus", or its global one
  logger->set_pattern("%n: %^%l%$: %v");
  if (quiet) logger->set_level(spdlog::level::off);
  hookbus::set_logger(std::move(logger));
}

// Any other error: exit_failure, said on stderr as `who: what`; unless writing
// to stdout failed (fmt::print throws then), which checked_output reports.
int failure(const std::exception& error, std::string_view who) {
  if (std::ferror(stdout)) {
    if (const auto* system = dynamic_cast<const std::system_error*>(&error)) stdout_failure = system->code().message();
    return exit_failure;
  }
  print_to_stderr("{}: {}\n", who, printable(error.what()));
  return exit_failure;
}

int report_usage_error(const Command& command, std::string_view message) {
  print_to_stderr("{} {}: {}\n{}\nRun '{} {} --help' for more.\n", program, command.name, message,
             usage_line(command), program, command.name);
  return exit_usage;
}

// Runs the command and maps what it throws to an exit code and a message.
int run_command(const Command& command, std::span<const std::string_view> words) {
  try {
    const Invocation invocation = parse(command, words);
    if (invocation.has("--help")) {
      print_command_help(command);
      return exit_ok;
    }
    set_up_logging(invocation.quiet());
    return command.run(invocation);
  } catch (const UsageError& error) {  // hookctl's own message: what came from outside is escaped already
    return report_usage_error(command, error.what());
  } catch (const hookbus::UnknownEventError& error) {  // the library's messages quote input as it is
    return report_usage_error(command, printable(error.what()));
  } catch (const hookbus::ConfigError& error) {
    print_to_stderr("{} {}: {}\n", program, command.name, printable(error.what()));
    return exit_config;
  } catch (const std::exception& error) {
    return failure(error, fmt::format("{} {}", program, command.name));
  }
}

// Whatever the command returned, output that did not reach stdout is a
// failure (exit_failure, said on stderr); a message that did not reach stderr
// is one too (the exit code then says it, if the command's did not already).
int checked_output(int exit_code) {
  errno = 0;
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    if (errno != 0) stdout_failure = std::strerror(errno);
    print_to_stderr("{}: cannot write to standard output: {}\n", program,
                    stdout_failure.empty() ? "write error" : stdout_failure);
    exit_code = exit_failure;
  }
  if (std::fflush(stderr) != 0 || std::ferror(stderr)) return exit_code == exit_ok ? exit_failure : exit_code;
  return exit_code;
}

int run(const std::vector<Command>& commands, std::vector<std::string_view> args) {
  current_table = &commands;
  const std::size_t position = command_position(args);
  const bool wants_help = std::ranges::any_of(args, [](std::string_view a) { return a == "--help" || a == "-h"; });
  if (position > args.size()) {
    const Option option = *option_wanting_next_word(args.back());
    print_to_stderr("{}: option '{}' needs {}\nRun '{} help' for the commands.\n", program, option.name,
                    option.value_name, program);
    return exit_usage;
  }
  if (position == args.size()) {
    if (wants_help) {
      print_overview();
      return exit_ok;
    }
    if (std::ranges::find(args, "--version") != args.end()) {
      fmt::print("{} {}\n", program, hookbus::version().string);
      return exit_ok;
    }
    print_to_stderr("{}: missing command\nRun '{} help' for the commands.\n", program, program);
    return exit_usage;
  }
  const auto [command, taken] = find_command_in(std::span(args).subspan(position));
  if (command == nullptr && wants_help && !group_commands(args[position]).empty()) {
    print_group_help(args[position]);
    return exit_ok;
  }
  if (command == nullptr) {
    print_to_stderr("{}: {}\nRun '{} help' for the commands.\n", program, unknown_command(args[position]), program);
    return exit_usage;
  }
  // The options that came before the command, then the words after it.
  std::vector<std::string_view> words(args.begin(), args.begin() + static_cast<std::ptrdiff_t>(position));
  words.insert(words.end(), args.begin() + static_cast<std::ptrdiff_t>(position + taken), args.end());
  return run_command(*command, words);
}

}  // namespace

int run_hookctl(const std::vector<Command>& commands, std::vector<std::string_view> args) {
  if (!standard_streams_usable()) return exit_failure;
  int exit_code = exit_failure;
  try {
    exit_code = run(commands, std::move(args));
  } catch (const std::exception& error) {  // the overview or --version could not be printed
    exit_code = failure(error, program);
  }
  return checked_output(exit_code);
}

}  // namespace hookctl
