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
// Nothing is ever half-applied: load_config returns a whole Config or throws,
// and install_builtins builds every built-in before installing any.

#include <hookbus/connection.hpp>
#include <hookbus/errors.hpp>
#include <hookbus/hooks.hpp>
#include <hookbus/types.hpp>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hookbus {

// Where a value sits: the config file, the JSON path inside it, and the
// directory that relative paths in it are relative to.
struct ConfigLocation {
  std::filesystem::path file;         // empty for settings given in code
  std::filesystem::path project_dir;  // empty: relative paths stay relative (to the working directory)
  std::string path;                   // "builtins.tool_policy.deny[1].pattern"; empty for the whole document

  // The member `name` of the object here. Names that are not plain identifiers
  // are quoted: hooks["org/repo/guard"].
  [[nodiscard]] ConfigLocation key(std::string_view name) const;
  // Element `index` of the array here: deny[1].
  [[nodiscard]] ConfigLocation element(std::size_t index) const;
};

// "<file>: <path>: <what>", leaving out the parts that are empty.
class ConfigError : public Error {
 public:
  ConfigError(const ConfigLocation& where, const std::string& what);
  [[nodiscard]] const std::filesystem::path& file() const noexcept { return file_; }
  [[nodiscard]] const std::string& path() const noexcept { return path_; }

 private:
  std::filesystem::path file_;
  std::string path_;
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

  // Throws ConfigError "expected <expected>, got <this value's type>".
  [[noreturn]] void fail_expected(std::string_view expected) const;

 private:
  const boost::json::value* value_;
  ConfigLocation where_;
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
  [[nodiscard]] std::optional<ConfigValue> find(std::string_view key) const;
  // Throws ConfigError "required key is missing; expected <expected>" when absent.
  [[nodiscard]] ConfigValue required(std::string_view key, std::string_view expected) const;
  // Every member, in document order.
  [[nodiscard]] std::vector<std::pair<std::string, ConfigValue>> members() const;

 private:
  const boost::json::object* object_;
  ConfigLocation where_;
};

// ------------------------------------------------------------------ Config

struct HookOverride {
  std::optional<Duration> timeout;        // replaces Config::default_timeout for this hook
  std::optional<FailurePolicy> failure;   // absent: the hook's default (fail_open)
  bool disabled = false;
  bool operator==(const HookOverride&) const = default;
};

struct BuiltinConfig {
  std::string name;                 // a name in the BuiltinRegistry (builtins.hpp)
  boost::json::object settings;     // checked by the built-in when installed
};

struct Config {
  std::vector<BuiltinConfig> builtins;                  // enabled built-ins, in order
  std::vector<std::filesystem::path> hook_directories;  // extra dirs, before the defaults; absolute
  Duration default_timeout = std::chrono::seconds(30);
  std::map<std::string, HookOverride> hooks;            // per-hook overrides by hook name

  std::filesystem::path file;         // what it was read from, for error messages; empty when made in code
  std::filesystem::path project_dir;  // absolute; relative paths in built-in settings resolve against it
};

// Reads a config file. The project directory is the parent of the `.hookbus`
// directory holding the file, or else the file's own directory. Throws
// ConfigError for a missing or unreadable file, invalid JSON (with line,
// column and byte offset), or anything that does not fit the format.
Config load_config(const std::filesystem::path& file);

// Reads `<project_dir>/.hookbus/config.json` if it exists; nullopt if it does not.
std::optional<Config> load_project_config(const std::filesystem::path& project_dir);

class BuiltinRegistry;

// Installs the configured built-ins from the default registry, or from
// `registry`, in order. Every built-in is built (settings checked, patterns
// compiled, files opened) before any is installed, so on ConfigError nothing
// is installed. Dropping the group uninstalls them.
ConnectionGroup install_builtins(Hooks& hooks, const Config& config);
ConnectionGroup install_builtins(Hooks& hooks, const Config& config, const BuiltinRegistry& registry);

}  // namespace hookbus
