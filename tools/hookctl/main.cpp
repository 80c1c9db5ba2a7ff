// hookctl: the hookbus catalogue from the command line. This file is the
// dispatch table and the usage text; the commands live in *_commands.cpp.

#include "commands.hpp"

#include <hookbus/errors.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <string_view>
#include <vector>

namespace hookctl {
namespace {

struct Command {
  std::string_view name;
  std::string_view arguments;  // the synopsis after the name
  std::string_view summary;
  int (*run)(Arguments);
};

// One row per command, in the order `help` lists them.
constexpr Command commands[] = {
    {"events", "[--json]", "list every event: its result type, reduction, and fields with their C++ types",
     events_command},
    {"schema", "NAME", "print an example of an event (name or alias) and of its result, as JSON", schema_command},
    {"list", "[--project DIR]", "list discovered external hooks, and the files skipped or shadowed and why", list_command},
    {"emit", "NAME [JSON|-] [--project DIR]", "emit an event through the configured built-ins and hooks; print the outcome", emit_command},
    {"run-hook", "PATH NAME [JSON] [--force] [--project DIR]",
     "run one hook file once: stdout, stderr, status, duration, result", run_hook_command},
    {"trust", "[--dry-run|--revoke|--list] [--project DIR]",
     "trust the project's hooks and config as they are now (prints what it records)", trust_command},
    {"config", "[--project DIR]", "print the merged configuration of every layer, each value with its file",
     config_command},
};

void print_usage(std::FILE* out) {
  fmt::print(out, "usage: hookctl [--project DIR] COMMAND [ARGUMENTS]\n\ncommands:\n");
  for (const Command& command : commands)
    fmt::print(out, "  {:<8} {:<10} {}\n", command.name, command.arguments, command.summary);
  fmt::print(out, "  {:<8} {:<10} {}\n", "help", "", "print this message");
}

const Command* find_command(std::string_view name) {
  const auto* found = std::ranges::find(commands, name, &Command::name);
  return found == std::ranges::end(commands) ? nullptr : found;
}

int usage_error(const Command& command, const char* message) {
  fmt::print(stderr, "hookctl {}: {}\nusage: hookctl {} {}\n", command.name, message, command.name, command.arguments);
  return exit_usage;
}

int run(const Command& command, Arguments args) {
  try {
    return command.run(args);
  } catch (const UsageError& error) {
    return usage_error(command, error.what());
  } catch (const hookbus::UnknownEventError& error) {
    return usage_error(command, error.what());
  } catch (const std::exception& error) {
    fmt::print(stderr, "hookctl {}: {}\n", command.name, error.what());
    return exit_failure;
  }
}

}  // namespace
}  // namespace hookctl

int main(int argc, char** argv) {
  using namespace hookctl;
  std::vector<std::string_view> args(argv + 1, argv + argc);
  // `hookctl --project DIR COMMAND ...` is `hookctl COMMAND ... --project DIR`:
  // the option belongs to the commands that read hooks, which check it.
  if (!args.empty() && args[0] == "--project") {
    if (args.size() < 3) {
      fmt::print(stderr, "hookctl: --project needs a directory and then a command\n\n");
      print_usage(stderr);
      return exit_usage;
    }
    std::rotate(args.begin(), args.begin() + 2, args.end());
  }
  if (args.empty()) {
    print_usage(stderr);
    return exit_usage;
  }
  if (args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
    print_usage(stdout);
    return exit_ok;
  }
  const Command* command = find_command(args[0]);
  if (command == nullptr) {
    fmt::print(stderr, "hookctl: unknown command '{}'\n\n", args[0]);
    print_usage(stderr);
    return exit_usage;
  }
  return run(*command, Arguments(args).subspan(1));
}
