#pragma once
// Built-in hooks, enabled by name from configuration (config.hpp, installed
// with install_builtins: install_builtins.hpp, which this includes) or
// installed directly, and the registry that maps names to them
// (builtin_registry.hpp, which this includes):
//
//   audit        every tool call, result and failure as one JSON line in a file
//   tool_policy  allow/deny rules on tool names and arguments; blocks tool_call
//   redact       replaces secrets in what history stores (tool_result_persist)
//   tool_stats   calls, successes, failures and total duration per tool
//   swap_context after a turn, the conversation becomes the agent's response (kodelet's)
//   stt          speech to text: audio parts of message:receive become text (PocketSphinx)
//   tts          text to speech: a WAV part for message:send's response (eSpeak NG)
//
// `stt` and `tts` are plugins of hookbus's own (plugin.hpp, docs/voice.md),
// loaded from builtin_plugin_directories() when configuration enables them.
//
// docs/configuration.md describes their settings. Each built-in is a provider
// (`hooks.add(builtin)`) built from its settings, which it checks strictly
// (ConfigError with the path). Handlers share the built-in's state, so a
// built-in object may be dropped once installed; its copies share it too.
//
//   hookbus::ToolStats stats(hookbus::ConfigObject(boost::json::object{{"log_every", 100}}));
//   auto installed = hooks.add(stats);
//   auto per_tool = stats.snapshot();

#include <hookbus/builtin_registry.hpp>
#include <hookbus/config.hpp>
#include <hookbus/connection.hpp>
#include <hookbus/hooks.hpp>
#include <hookbus/install_builtins.hpp>  // a config's built-ins and tracer, installed on a bus
#include <hookbus/types.hpp>

#include <boost/json/object.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace hookbus {

// Where built-ins run among other handlers (lower runs first).
namespace builtin_priority {
inline constexpr int observe_first = -1000;  // audit and tool_stats see every call, also those a policy blocks
inline constexpr int policy = -100;          // tool_policy decides before ordinary handlers run
inline constexpr int transcribe = -100;      // stt: ordinary message:receive handlers read its transcript
inline constexpr int redact_last = 1000;     // redact sees what earlier persist handlers produced
inline constexpr int swap_last = 1000;       // swap_context runs after the other turn_end hooks, as in kodelet
}  // namespace builtin_priority

// ---------------------------------------------------------------- registry

// A registry holding audit, tool_policy, redact, tool_stats, swap_context, stt and tts.
// Making `stt` or `tts` loads its plugin, `stt.so` from the first of
// builtin_plugin_directories() that has it; a plugin that is in none of them
// (saying where it looked), or was not built (its Debian packages were
// missing: naming them), is a ConfigError.
BuiltinRegistry default_builtins();

// A directory default_builtins() looks in for hookbus's own plugins of
// built-ins (stt.so, tts.so), and why it looks there.
struct BuiltinPluginDirectory {
  std::filesystem::path path{};
  std::string why{};
};

// Where hookbus's own plugins of built-ins are looked for, in order:
// $HOOKBUS_BUILTIN_PLUGIN_DIR when set (a build tree's `plugins/`), and then
// only there; else `<prefix>/<libdir>/hookbus/plugins` of the prefix hookbus
// itself was loaded from (a shared libhookbus's directory, or the executable's
// `<prefix>/bin`), so an installed prefix works wherever it was installed or
// moved; the package the engine was built against (recorded in the engine by
// hookbus_enable_plugins()); the install prefix hookbus was configured with.
std::vector<BuiltinPluginDirectory> builtin_plugin_directories();

// --------------------------------------------------------------- built-ins

// `audit`: appends one JSON line per tool_call, tool_execution_end and
// tool_execution_failure to a file (setting `file`). Each line is written with
// a single write() under a mutex, so lines never interleave and nothing sits in
// a buffer. The file is opened (created 0600, append, close-on-exec, never
// through a link at the file, never waiting on a FIFO) when the built-in is
// made, so an unwritable file is a ConfigError then. Settings of a project
// layer's config (ConfigLocation::layer) may name only a regular file inside
// the project, outside version-control metadata, reached through real
// directories (docs/security.md, "Files a project names"); what is wrong on
// disk with it is a warning when the built-in is made, and a failure of each
// record until the file can be opened.
class AuditLog {
 public:
  explicit AuditLog(const ConfigObject& settings);
  void register_hooks(Registrar& registrar) const;

 private:
  struct Sink;
  std::shared_ptr<Sink> sink_;
};

// `tool_policy`: denies tool_call by `deny` and `allow` rules on the tool name
// (a glob, as HandlerOptions::tools) and optionally one argument matching a
// regular expression. Deny wins over allow; with an `allow` list, a call no
// allow rule matches is denied. The reason names the rule. Runs at
// builtin_priority::policy and fails closed.
class ToolPolicy {
 public:
  explicit ToolPolicy(const ConfigObject& settings);
  void register_hooks(Registrar& registrar) const;

 private:
  struct Rules;
  std::shared_ptr<const Rules> rules_;
};

// `redact`: on tool_result_persist, replaces every match of the secret
// patterns in text parts with "[REDACTED]", and returns a replacement only when
// something changed. Runs at builtin_priority::redact_last.
class Redactor {
 public:
  explicit Redactor(const ConfigObject& settings);
  void register_hooks(Registrar& registrar) const;

 private:
  struct Patterns;
  std::shared_ptr<const Patterns> patterns_;
};

struct ToolUsage {
  std::uint64_t calls = 0;      // tool_call events, including calls a policy then denied
  std::uint64_t successes = 0;  // tool_execution_end without is_error
  std::uint64_t failures = 0;   // tool_execution_end with is_error, and tool_execution_failure
  Duration total_duration{};    // summed over tool_execution_end
  bool operator==(const ToolUsage&) const = default;
};

// `tool_stats`: counts per tool, thread-safe; logs a tool's line through the
// `hookbus` logger every `log_every` calls of that tool (0: never).
class ToolStats {
 public:
  explicit ToolStats(const ConfigObject& settings);
  void register_hooks(Registrar& registrar) const;
  [[nodiscard]] std::map<std::string, ToolUsage> snapshot() const;

 private:
  struct Counters;
  std::shared_ptr<Counters> counters_;
};

// `swap_context` (kodelet's built-in of that name): on turn_end, asks the
// engine to replace the conversation with the turn's response (the text of
// its message) as the summary to go on from: TurnEndResult::swap_context,
// which the engine applies with apply_context_swap (context_swap.hpp). A
// response without text asks for nothing; with `once`, only the first turn
// (turn_index 0) does. Runs at builtin_priority::swap_last, so its summary
// wins over other turn_end hooks'.
class ContextSwap {
 public:
  explicit ContextSwap(const ConfigObject& settings);
  void register_hooks(Registrar& registrar) const;

 private:
  bool once_ = false;
};

}  // namespace hookbus
