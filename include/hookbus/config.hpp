#pragma once
// Configuration: one JSON file (`<project>/.hookbus/config.json`, optional)
// that enables built-in hooks with their settings, adds hook directories, and
// sets the default hook timeout and per-hook overrides. docs/configuration.md
// describes the format.
//
// Reading is strict: an unknown key, a duplicate key or a value of the wrong
// type is an error, because a typo in a security setting must never pass
// silently. Every error is a ConfigError naming the file, the JSON path in it
// and what was expected:
//   .hookbus/config.json: builtins.tool_policy.deny[1].pattern: expected string, got number
// Nothing is ever half-applied: load_config returns a whole Config or throws.
//
// A Config is data: the built-ins it enables, the tracer's settings among
// them, are installed by install_builtins (builtins.hpp), which builds every
// built-in before installing any.

#include <hookbus/enum_names.hpp>
#include <hookbus/errors.hpp>
#include <hookbus/handler_policy.hpp>
#include <hookbus/install_builtins.hpp>  // 0.2 declared it here; builtins.hpp is its home
#include <hookbus/layers.hpp>
#include <hookbus/network.hpp>
#include <hookbus/trace_options.hpp>
#include <hookbus/types.hpp>

#include <boost/describe/enum.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

namespace hookbus {

// Where a value sits: the config file, the JSON path inside it, the
// directory that relative paths in it are relative to, and the file's layer.
struct ConfigLocation {
  std::filesystem::path file{};         // empty for settings given in code
  std::filesystem::path project_dir{};  // empty: relative paths stay relative (to the working directory)
  std::string path{};                   // "builtins.tool_policy.deny[1].pattern"; empty for the whole document
  // The layer of the config file (load_config), which decides what its
  // settings may do: a project layer's files for hookbus to write stay
  // inside the project (docs/security.md). nullopt for settings given in code.
  std::optional<Layer> layer{};

  // The member `name` of the object here. Names that are not plain identifiers
  // are quoted: hooks["org/repo/guard"].
  [[nodiscard]] ConfigLocation key(std::string_view name) const;
  // Element `index` of the array here: deny[1].
  [[nodiscard]] ConfigLocation element(std::size_t index) const;

  bool operator==(const ConfigLocation&) const = default;
};

// "<file>: <path>: <what>", leaving out the parts that are empty.
class ConfigError : public Error {
 public:
  ConfigError(const ConfigLocation& where, const std::string& what);
  [[nodiscard]] const std::filesystem::path& file() const noexcept { return file_; }
  [[nodiscard]] const std::string& path() const noexcept { return path_; }

 private:
  std::filesystem::path file_{};
  std::string path_{};
};

class ConfigObject;

// One JSON value of a config with its location, read strictly: each accessor
// checks the type and otherwise throws ConfigError "expected <type>, got <type>".
// A view: the JSON must outlive it.
class ConfigValue {
 public:
  ConfigValue(const boost::json::value& value, ConfigLocation where) noexcept
      : value_(&value), where_(std::move(where)) {}

  [[nodiscard]] const boost::json::value& json() const noexcept { return *value_; }
  [[nodiscard]] const ConfigLocation& location() const noexcept { return where_; }

  [[nodiscard]] bool as_bool() const;
  [[nodiscard]] std::string as_string() const;
  [[nodiscard]] std::string as_nonempty_string() const;
  [[nodiscard]] std::int64_t as_integer(std::int64_t min, std::int64_t max) const;
  // A non-empty string naming a file or directory; relative to the project dir.
  [[nodiscard]] std::filesystem::path as_path() const;
  [[nodiscard]] ConfigObject as_object() const;
  [[nodiscard]] std::vector<ConfigValue> as_array() const;
  // A string naming an enumerator of E by its wire name (enum_names.hpp), one
  // of `only` when given; otherwise ConfigError "expected "spawn" or
  // "persistent", got "daemon"".
  template <reflect::DescribedEnum E>
  [[nodiscard]] E as_enum(std::initializer_list<E> only = {}) const {
    std::vector<E> values;
    std::vector<std::string_view> names;
    boost::mp11::mp_for_each<boost::describe::describe_enumerators<E>>([&](auto d) {
      if (only.size() != 0 && std::find(only.begin(), only.end(), d.value) == only.end()) return;
      values.push_back(d.value);
      names.push_back(reflect::wire_name(d.name));
    });
    return values[as_one_of(names)];
  }

  // Throws ConfigError "expected <expected>, got <this value's type>".
  [[noreturn]] void fail_expected(std::string_view expected) const;

 private:
  // The index of this string in `names`; otherwise ConfigError naming them.
  [[nodiscard]] std::size_t as_one_of(const std::vector<std::string_view>& names) const;

  const boost::json::value* value_{};
  ConfigLocation where_{};
};

// One JSON object of a config, read strictly. A view: the JSON must outlive it.
class ConfigObject {
 public:
  explicit ConfigObject(const boost::json::object& object, ConfigLocation where = {}) noexcept
      : object_(&object), where_(std::move(where)) {}

  [[nodiscard]] const boost::json::object& json() const noexcept { return *object_; }
  [[nodiscard]] const ConfigLocation& location() const noexcept { return where_; }

  // Throws ConfigError for the first key not in `known`, listing the known ones.
  void allow_only(std::initializer_list<std::string_view> known) const;
  void allow_only(std::span<const std::string_view> known) const;
  [[nodiscard]] std::optional<ConfigValue> find(std::string_view key) const;
  // Throws ConfigError "required key is missing; expected <expected>" when absent.
  [[nodiscard]] ConfigValue required(std::string_view key, std::string_view expected) const;
  // Every member, in document order.
  [[nodiscard]] std::vector<std::pair<std::string, ConfigValue>> members() const;

 private:
  const boost::json::object* object_{};
  ConfigLocation where_{};
};

// ------------------------------------------------------------------ Config

// How an external hook talks to hookbus (docs/external-hooks.md, docs/claude-code.md).
enum class HookProtocol {
  hookbus,      // `HOOK hook` / `HOOK run`, JSON on stdin and stdout
  claude_code,  // Claude Code's command hooks: its payload, exit codes and JSON answer
  kodelet,      // a hook written for kodelet: its protocol is hookbus's, run alike, named as declared
  codex,        // OpenAI Codex's command hooks: Claude Code's shape, answered as Codex reads answers
  qwen_code,    // Qwen Code's command hooks: Claude Code's, with timeouts in milliseconds and Qwen's tool names
  gemini_cli,   // Gemini CLI's command hooks: its event and tool names, its payload and answer (decision "deny")
  cursor,       // Cursor's hooks.json: a flat list of commands per event, Cursor's payload and flat answer
  vscode,       // VS Code's agent hooks: flat lists of Claude Code's handlers, per-OS commands, matchers ignored
  copilot,      // GitHub Copilot CLI's hooks files ("version": 1): camelCase events, bash commands, a flat answer
  cline,        // Cline's hooks: one executable per event, named by its file; Cline's payload and {cancel} answer
};
BOOST_DESCRIBE_ENUM(HookProtocol, hookbus, claude_code, kodelet, codex, qwen_code, gemini_cli, cursor, vscode, copilot,
                    cline)

// "hookbus", "claude_code", "kodelet", "codex", "qwen_code", "gemini_cli", "cursor", "vscode", "copilot", "cline":
// config's names (its wire names), also in traces and listings.
std::string_view hook_protocol_name(HookProtocol protocol) noexcept;
// Whether hooks of the protocol are declared as Claude Code declares them
// (events by its agent's names, a matcher, a command run once per event):
// claude_code, codex, qwen_code, gemini_cli, cursor, vscode, copilot (docs/agent-formats.md).
bool declared_like_claude_code(HookProtocol protocol) noexcept;
// The agents whose hook files config's `agent_hooks` may ask for, by
// protocol, in HookProtocol's order: every protocol but hookbus's and
// kodelet's, which hookbus finds in its own hook directories. A new format's
// enumerator is its key there.
std::span<const HookProtocol> agents_with_hook_files() noexcept;

// Which projects' layers run (trust.hpp). Ordered from the most permissive:
// where several sources set it, the strictest wins.
enum class ProjectTrustPolicy {
  trust_all,  // every project is trusted: for a sandbox that already isolates the agent
  require,    // the default: a project's hooks and config run once the user trusted it
  ignore,     // the project and local layers never run
};
BOOST_DESCRIBE_ENUM(ProjectTrustPolicy, trust_all, require, ignore)

// "trust_all", "require", "ignore": as config writes it.
std::string_view project_trust_name(ProjectTrustPolicy policy) noexcept;

// What becomes of the processes an external hook leaves running, fully
// detached (`notify-send done &` with its output elsewhere), once it exits on
// its own (process.hpp, ProcessSpec::detached_may_outlive). Ordered from the
// most permissive: where several sources set it, the strictest wins.
enum class DetachedProcesses {
  allow,  // they go on after the run (the default, as in Claude Code)
  kill,   // they are killed with the run, as everything it started is on a timeout
};
BOOST_DESCRIBE_ENUM(DetachedProcesses, allow, kill)

// "allow", "kill": as config writes it.
std::string_view detached_processes_name(DetachedProcesses detached) noexcept;

// How a hookbus-protocol hook runs (docs/external-hooks.md).
enum class HookMode {
  spawn,       // `HOOK run`: a process per event (the default)
  persistent,  // `HOOK serve`: processes that stay up and answer one JSON line per event
};
BOOST_DESCRIBE_ENUM(HookMode, spawn, persistent)

// When a persistent hook's processes start.
enum class HookStart {
  lazy,   // on the first event it handles (the default)
  eager,  // when it is installed
};
BOOST_DESCRIBE_ENUM(HookStart, lazy, eager)

// What one config file says about the hook (or hooks) of one name: settings,
// and optionally a declaration of its protocol and events, which spares the
// `HOOK hook` query. Unset members leave the decision to other layers.
struct HookSettings {
  std::optional<Duration> timeout{};       // replaces the default timeout for this hook
  std::optional<FailurePolicy> failure{};  // absent everywhere: fail_open
  std::optional<bool> disabled{};          // true: the hook is not run
  std::optional<HookProtocol> protocol{};  // absent: hookbus
  std::vector<std::string> events{};       // declared events (wire names or aliases; Claude Code's names for claude_code)
  std::string matcher{};                   // claude_code: Claude Code's matcher
  std::string tools{};                     // hookbus protocol: the tools it sees (HandlerOptions::tools syntax)
  std::optional<HookMode> mode{};          // hookbus protocol; absent: spawn
  std::optional<int> instances{};          // persistent: processes serving it at once; absent: 1
  std::optional<HookStart> start{};        // persistent; absent: lazy
  std::optional<bool> async{};             // true: runs in the background, the emit does not wait; absent: false
  // true: runs at its turn only, after the hooks before it answered, and not
  // at all once one refused; false: may start at once with the emit's other
  // hooks; absent: its protocol's default (docs/semantics.md §16)
  std::optional<bool> sequential{};
  // An HTTP hook (docs/fleet.md): a service, not a file. The hookbus
  // protocol's payload of each of its `events` (which it must declare) is
  // POSTed to `url`, and the response's body is its answer, as a hook
  // file's stdout. It is the hook of the file that declares it: no other
  // layer's entry changes where it sends. It sends only to an origin the
  // user's or the managed config allows (NetworkAllowance). `headers` may
  // name `$VAR` from `allowed_env_vars`; their values are never logged.
  std::string url{};
  std::vector<std::pair<std::string, std::string>> headers{};
  std::vector<std::string> allowed_env_vars{};
  ConfigLocation location{};               // where it was written: hooks["guard"] of a file

  bool operator==(const HookSettings&) const = default;
};

// The name of 0.1.0, deprecated in 0.2.0 and removed in 0.3.0 (CHANGELOG.md).
// `disabled` is a std::optional<bool> now: read it as `disabled.value_or(false)`.
using HookOverride [[deprecated("use hookbus::HookSettings (HookOverride was renamed in 0.2.0 and goes in 0.3.0)")]] =
    HookSettings;

// The most processes one persistent hook may have.
inline constexpr int max_hook_instances = 16;

// `agent_hooks.AGENT` (and `claude_code`, the same as `agent_hooks.claude_code`):
// which of an agent's settings files and plugins to import hooks from
// (docs/agent-formats.md lists each agent's files).
struct ClaudeCodeImport {
  std::vector<Layer> settings{};                    // user (~/.claude/settings.json), project, local
  std::vector<std::filesystem::path> plugins{};     // plugin directories (each with hooks/hooks.json)
  std::map<std::string, std::string> tool_names{};  // engine tool name -> the agent's tool name
  ConfigLocation location{};

  bool operator==(const ClaudeCodeImport&) const = default;
};

struct BuiltinConfig {
  std::string name{};                 // a name in the BuiltinRegistry (builtins.hpp)
  boost::json::object settings{};     // checked by the built-in when installed

  bool operator==(const BuiltinConfig&) const = default;
};

// `trace`: the built-in tracer's settings, read and checked with the file.
struct TraceConfig {
  TraceOptions options{};          // read_trace_options: what the tracer is made with when installed
  boost::json::object settings{};  // as written, for listings (`hookctl config`)

  bool operator==(const TraceConfig&) const = default;
};

// "network" (managed and user config only): where hookbus may send
// requests, for HTTP hooks and the OTLP exporter (docs/fleet.md). hookbus
// sends nothing to an origin no such file names (docs/security.md, "Network").
struct NetworkConfig {
  // "https://policy.example.com", "http://127.0.0.1:8080": a scheme, a host
  // and a port when not the scheme's own; as HttpUrl::origin() writes them.
  std::vector<std::string> allowed_origins{};
  std::filesystem::path ca_file{};  // PEM certificates trusted besides the system's (a fleet's own CA); absolute
  ConfigLocation location{};

  bool operator==(const NetworkConfig&) const = default;
};

inline constexpr Duration default_hook_timeout = std::chrono::seconds(30);
// Config files larger than this are refused: a config is a few kilobytes.
inline constexpr std::uintmax_t max_config_file_size = std::uintmax_t{1} << 20;

// One config file, as written. Optional members are unset when the file does
// not mention them, so that layers can be merged (see LayeredConfig).
struct Config {
  std::vector<BuiltinConfig> builtins{};                  // enabled built-ins, in order
  std::vector<std::filesystem::path> hook_directories{};  // extra dirs, before the defaults; absolute
  std::optional<Duration> default_timeout{};              // unset: a more trusted layer's, or default_hook_timeout
  std::map<std::string, HookSettings> hooks{};            // per-hook settings by hook name
  std::optional<ClaudeCodeImport> claude_code{};          // "claude_code", or "agent_hooks": {"claude_code": ...}
  // the other agents' of "agent_hooks" (agents_with_hook_files)
  std::map<HookProtocol, ClaudeCodeImport> agent_hooks{};
  std::optional<bool> disable_all_hooks{};                // no hook of this layer or a less trusted one runs
  std::optional<bool> allow_managed_hooks_only{};         // managed config only: only managed hooks run
  std::optional<ProjectTrustPolicy> project_trust{};      // managed and user config only
  // For the hooks of this layer and the layers it governs; the strictest of
  // these and the engine's choice applies (LayeredConfig::detached_processes).
  std::optional<DetachedProcesses> detached_processes{};
  // "trace": the built-in tracer's settings (tracer.hpp), read when the file
  // is; its files are opened when it is installed.
  std::optional<TraceConfig> trace{};
  // "network": managed and user config only (a project may not decide where
  // its hooks send what they see).
  std::optional<NetworkConfig> network{};
  // Keys the file's layer may not set (`project_trust` in a project's config),
  // each naming the file and the key: ignored, not applied.
  std::vector<std::string> warnings{};

  Layer layer = Layer::project;       // the layer the file belongs to
  std::filesystem::path file{};         // what it was read from, for error messages; empty when made in code
  std::filesystem::path project_dir{};  // absolute; relative paths in built-in settings resolve against it
  // SHA-256 of the bytes it was parsed from, empty when made in code: a
  // project's config applies only when these are the bytes its trust fingerprinted.
  std::string sha256{};

  // Where the file's values sit: its file, project directory and layer, at the top of the document.
  [[nodiscard]] ConfigLocation location() const;

  bool operator==(const Config&) const = default;
};

// What `config` imports of the hooks of an agent whose hooks are declared as
// Claude Code's (declared_like_claude_code): its `claude_code` for
// claude_code, its `agent_hooks` entry for the others; null when none.
const ClaudeCodeImport* agent_hooks_import(const Config& config, HookProtocol agent) noexcept;

// Reads a config file of a layer (the layer decides which keys it may set:
// `allow_managed_hooks_only` only in managed config, `project_trust` only in
// managed and user config; elsewhere they are ignored, each a warning in
// Config::warnings). The project directory is the parent of the
// `.hookbus` directory holding the file, or else the file's own directory.
// Throws ConfigError for a missing, unreadable or oversized file, one that is
// not a regular file (a FIFO, a device, a dangling symlink: each named),
// invalid JSON (with line, column and byte offset), or anything that does not
// fit the format.
Config load_config(const std::filesystem::path& file, Layer layer = Layer::project);

// Reads a layer's config file if it exists; nullopt if there is none. A
// dangling symlink is an error, not "no file": it would silently drop the
// settings it was meant to give. So is a file that fails the hook files'
// ownership and write checks (docs/security.md, "File checks"): whoever else
// could write it could decide what runs as you.
std::optional<Config> load_layer_config(const std::filesystem::path& file, Layer layer);

// Reads `<project_dir>/.hookbus/config.json` if it exists; nullopt if it does not.
std::optional<Config> load_project_config(const std::filesystem::path& project_dir);

// ------------------------------------------------------------------ layers

// A value with the place it was written (an empty location: the default).
template <class T>
struct Sourced {
  T value{};
  ConfigLocation origin{};
};

// The settings one hook runs with, once every layer that governs it
// (layers.hpp, governs()) had its say. Security settings (failure, disabled,
// async: a background hook cannot refuse anything; sequential: a hook that
// must not run for a refused call): the most trusted layer
// that sets them wins (managed, user, local, project).
// The rest: the most specific layer wins (local, project, user, managed).
struct ResolvedHookSettings {
  Sourced<Duration> timeout{default_hook_timeout, {}};
  Sourced<FailurePolicy> failure{FailurePolicy::fail_open, {}};
  Sourced<bool> disabled{false, {}};
  Sourced<HookProtocol> protocol{HookProtocol::hookbus, {}};
  Sourced<std::vector<std::string>> events{};  // empty: not declared, the hook is asked
  Sourced<std::string> matcher{};
  Sourced<std::string> tools{};
  Sourced<HookMode> mode{HookMode::spawn, {}};
  Sourced<int> instances{1, {}};
  Sourced<HookStart> start{HookStart::lazy, {}};
  Sourced<bool> async{false, {}};
  Sourced<std::optional<bool>> sequential{};  // unset: its protocol's default for each event (docs/semantics.md §16)
};

// The configuration of every layer that applies, merged by the rules of
// docs/configuration.md ("Layers"): lists append, security settings go to the
// most trusted layer, the rest to the most specific one, and a layer's
// settings reach only the layers it governs.
class LayeredConfig {
 public:
  LayeredConfig() = default;
  // At most one Config per layer; they are kept most trusted first.
  explicit LayeredConfig(std::vector<Config> layers);

  [[nodiscard]] const std::vector<Config>& layers() const noexcept { return layers_; }
  [[nodiscard]] const Config* layer(Layer layer) const noexcept;

  [[nodiscard]] ResolvedHookSettings hook_settings(Layer owner, std::string_view name) const;
  [[nodiscard]] Sourced<Duration> default_timeout(Layer owner) const;
  // Why no hook of the `owner` layer may run (`disable_all_hooks`,
  // `allow_managed_hooks_only`), naming the file; nullopt when they may.
  [[nodiscard]] std::optional<std::string> hooks_forbidden(Layer owner) const;
  // The strictest of `engine_default` and every layer's `project_trust`.
  [[nodiscard]] ProjectTrustPolicy project_trust(ProjectTrustPolicy engine_default) const;
  // Where that policy comes from: `project_trust` of the most trusted file
  // that set it, or an empty location when the engine's choice stands.
  [[nodiscard]] ConfigLocation project_trust_origin(ProjectTrustPolicy engine_default) const;
  // Each layer's `project_trust` that is looser than the policy in force
  // (project_trust(engine_default)), with where it was written: it changes
  // nothing, since config may make the policy stricter, never looser.
  [[nodiscard]] std::vector<Sourced<ProjectTrustPolicy>> project_trust_overruled(ProjectTrustPolicy engine_default) const;
  // What becomes of what the hooks of the `owner` layer leave running: the
  // strictest of `engine_default` and the `detached_processes` of every layer
  // that governs `owner`, with where it was written (the most trusted file
  // that set it; an empty location when the engine's choice stands). So a
  // layer can make it stricter for its own hooks and less trusted ones, never
  // looser, and never for a more trusted layer's.
  [[nodiscard]] Sourced<DetachedProcesses> detached_processes(Layer owner, DetachedProcesses engine_default) const;
  // Every layer's `claude_code` import together: the settings files and
  // plugins of all of them. Its `tool_names` stay empty: which names a
  // command sees depends on its layer (claude_code_tool_names). nullopt when
  // no layer imports anything.
  [[nodiscard]] std::optional<ClaudeCodeImport> claude_code() const;
  // The tool names the Claude Code commands of the `owner` layer see, each
  // with where it was written: those of the layers at least as trusted as
  // `owner` (managed, user, local, project), the most specific of them
  // winning for a name several map. So a less trusted layer's names never
  // change what a more trusted layer's commands match or read.
  [[nodiscard]] std::map<std::string, Sourced<std::string>> claude_code_tool_names(Layer owner) const;
  // Where requests may go: the origins of the managed and the user config's
  // "network" together, and the CA file of the most trusted of them that
  // gives one. A project's or local "network" is never read (Config::network).
  [[nodiscard]] NetworkAllowance network_allowance() const;
  // The same for the commands of another agent's hooks (`agent_hooks`).
  [[nodiscard]] std::map<std::string, Sourced<std::string>> agent_tool_names(HookProtocol agent, Layer owner) const;

 private:
  std::vector<Config> layers_{};
};

}  // namespace hookbus
