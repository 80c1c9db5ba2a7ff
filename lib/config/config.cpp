// Strict reading of the JSON config file: locations, errors, the duplicate-key
// check Boost.JSON does not do, and the Config format itself.
#include <hookbus/config.hpp>
#include <hookbus/json.hpp>
#include <hookbus/names.hpp>
#include <hookbus/tool_matcher.hpp>

#include "catalogue/json_text.hpp"
#include "config/file_to_write.hpp"
#include "config/format_checks.hpp"
#include "config/http_request_entry.hpp"
#include "net/url.hpp"
#include "support/file_safety.hpp"
#include "support/files.hpp"
#include "support/sha256.hpp"

#include <fmt/format.h>

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <stdexcept>

namespace hookbus {

// ------------------------------------------------------- locations, errors

ConfigLocation ConfigLocation::key(std::string_view name) const {
  ConfigLocation child = *this;
  detail::append_key_to_path(child.path, name);
  return child;
}

ConfigLocation ConfigLocation::element(std::size_t index) const {
  ConfigLocation child = *this;
  child.path += fmt::format("[{}]", index);
  return child;
}

namespace {
std::string error_message(const ConfigLocation& where, const std::string& what) {
  std::vector<std::string> parts;
  if (!where.file.empty()) parts.push_back(where.file.string());
  if (!where.path.empty()) parts.push_back(where.path);
  parts.push_back(what);
  return fmt::format("{}", fmt::join(parts, ": "));
}
}  // namespace

ConfigError::ConfigError(const ConfigLocation& where, const std::string& what)
    : Error(error_message(where, what)), file_(where.file), path_(where.path) {}

// ------------------------------------------------------------ ConfigValue

void ConfigValue::fail_expected(std::string_view expected) const {
  throw ConfigError(where_, fmt::format("expected {}, got {}", expected, detail::json_kind_name(*value_)));
}

bool ConfigValue::as_bool() const {
  if (!value_->is_bool()) fail_expected("boolean");
  return value_->get_bool();
}

std::string ConfigValue::as_string() const {
  if (!value_->is_string()) fail_expected("string");
  return std::string(value_->get_string());
}

std::string ConfigValue::as_nonempty_string() const {
  std::string text = as_string();
  if (text.empty()) throw ConfigError(where_, "expected non-empty string, got \"\"");
  return text;
}

std::int64_t ConfigValue::as_integer(std::int64_t min, std::int64_t max) const {
  const std::string expected = fmt::format("integer from {} to {}", min, max);
  if (value_->is_int64()) {
    const std::int64_t number = value_->get_int64();
    if (number >= min && number <= max) return number;
  } else if (value_->is_uint64()) {
    const std::uint64_t number = value_->get_uint64();
    if (max >= 0 && number <= static_cast<std::uint64_t>(max) && static_cast<std::int64_t>(number) >= min)
      return static_cast<std::int64_t>(number);
  } else if (!value_->is_double()) {
    fail_expected(expected);
  }
  throw ConfigError(where_, fmt::format("expected {}, got {}", expected, write_json(*value_)));
}

std::filesystem::path ConfigValue::as_path() const {
  std::filesystem::path path = as_nonempty_string();
  if (path.is_relative() && !where_.project_dir.empty()) path = where_.project_dir / path;
  return path.lexically_normal();
}

std::size_t ConfigValue::as_one_of(const std::vector<std::string_view>& names) const {
  const std::string name = as_string();
  if (const auto found = std::find(names.begin(), names.end(), name); found != names.end())
    return static_cast<std::size_t>(found - names.begin());
  std::string expected;  // "a", "b" or "c"
  for (std::size_t i = 0; i < names.size(); ++i)
    expected += fmt::format("{}\"{}\"", i == 0 ? "" : i + 1 == names.size() ? " or " : ", ", names[i]);
  throw ConfigError(where_, fmt::format("expected {}, got \"{}\"", expected, name));
}

ConfigObject ConfigValue::as_object() const {
  if (!value_->is_object()) fail_expected("object");
  return ConfigObject(value_->get_object(), where_);
}

std::vector<ConfigValue> ConfigValue::as_array() const {
  if (!value_->is_array()) fail_expected("array");
  std::vector<ConfigValue> elements;
  const auto& array = value_->get_array();
  elements.reserve(array.size());
  for (std::size_t i = 0; i < array.size(); ++i) elements.emplace_back(array[i], where_.element(i));
  return elements;
}

// ----------------------------------------------------------- ConfigObject

void ConfigObject::allow_only(std::initializer_list<std::string_view> known) const {
  allow_only(std::span<const std::string_view>(known.begin(), known.size()));
}

void ConfigObject::allow_only(std::span<const std::string_view> known) const {
  for (const auto& member : *object_) {
    if (std::find(known.begin(), known.end(), member.key()) != known.end()) continue;
    throw ConfigError(where_.key(member.key()), fmt::format("unknown key; expected one of: {}", fmt::join(known, ", ")));
  }
}

std::optional<ConfigValue> ConfigObject::find(std::string_view key) const {
  const auto* value = object_->if_contains(key);
  if (!value) return std::nullopt;
  return ConfigValue(*value, where_.key(key));
}

ConfigValue ConfigObject::required(std::string_view key, std::string_view expected) const {
  if (auto value = find(key)) return *value;
  throw ConfigError(where_.key(key), fmt::format("required key is missing; expected {}", expected));
}

std::vector<std::pair<std::string, ConfigValue>> ConfigObject::members() const {
  std::vector<std::pair<std::string, ConfigValue>> members;
  members.reserve(object_->size());
  for (const auto& member : *object_)
    members.emplace_back(std::string(member.key()), ConfigValue(member.value(), where_.key(member.key())));
  return members;
}

// ------------------------------------------------------ files to write

namespace detail {

FileToWrite file_to_write(const ConfigValue& value, bool in_project) {
  const std::filesystem::path written = value.as_nonempty_string();
  if (auto why = why_not_a_file_name(written))
    throw ConfigError(value.location(),
                      fmt::format("\"{}\" {}: give the path of a file, such as \"trace/session.jsonl\"",
                                  written.string(), *why));
  if (!in_project) return {.path = value.as_path(), .confined_to = {}};
  if (auto why = why_not_in_project(written))
    throw ConfigError(value.location(),
                      fmt::format("\"{}\" {}, and a project's config may have hookbus write only inside the project, "
                                  "outside version-control metadata: give a path relative to the project directory, "
                                  "or set this in your user config to write elsewhere",
                                  written.string(), *why));
  const std::filesystem::path& project = value.location().project_dir;
  return {.path = value.as_path(), .confined_to = project.empty() ? std::filesystem::current_path() : project};
}

bool in_project_config(const ConfigLocation& where) noexcept {
  return where.layer.has_value() && is_project_layer(*where.layer);
}

}  // namespace detail

// ------------------------------------------------------------ parsing text

namespace {

// Strict JSON (json_text.hpp): one document, no duplicate keys, no number out of range.
boost::json::value parse_config_text(std::string_view text, const ConfigLocation& root) {
  auto parsed = detail::parse_json_text(text);
  if (auto* document = std::get_if<boost::json::value>(&parsed)) return std::move(*document);
  const auto& problem = std::get<detail::JsonTextProblem>(parsed);
  if (problem.path.empty())
    throw ConfigError(root, fmt::format("invalid JSON at {}: {}", detail::line_and_column(text, problem.offset), problem.what));
  ConfigLocation where = root;
  for (const auto& step : problem.path) where = step.is_key ? where.key(step.key) : where.element(step.index);
  throw ConfigError(where, problem.what);
}

std::string read_config_file(const std::filesystem::path& file, const ConfigLocation& where) {
  try {
    return detail::read_regular_file(file, max_config_file_size);
  } catch (const detail::FileReadError& error) {
    throw ConfigError(where, error.what());
  }
}

// The parent of the `.hookbus` directory holding the file, or the file's directory.
std::filesystem::path project_dir_of(const std::filesystem::path& file) {
  const auto directory = std::filesystem::absolute(file).lexically_normal().parent_path();
  return directory.filename() == ".hookbus" ? directory.parent_path() : directory;
}

// ----------------------------------------------------------- the format

constexpr std::int64_t max_timeout_ms = 24 * 60 * 60 * 1000;  // a day: anything longer is a typo

Duration read_timeout(const ConfigValue& value) { return Duration(value.as_integer(1, max_timeout_ms)); }

std::vector<std::string> read_string_list(const ConfigValue& value) {
  std::vector<std::string> list;
  for (const auto& element : value.as_array()) list.push_back(element.as_nonempty_string());
  return list;
}

// An HTTP hook's entry: its URL (an http:// or https:// URL without
// credentials or variables), its headers, the variables they may name, and
// the hookbus events it declares, as a hook file that is never asked `HOOK
// hook`. It speaks hookbus's protocol and runs once per event.
void read_http_hook(const ConfigObject& settings, const ConfigValue& url, HookSettings& hook) {
  detail::HttpRequestEntry request = detail::read_http_request(url, settings.find("headers"), "allowed_env_vars");
  hook.url = std::move(request.url);
  hook.headers = std::move(request.headers);
  if (auto names = settings.find("allowed_env_vars")) hook.allowed_env_vars = read_string_list(*names);
  if (hook.protocol && *hook.protocol != HookProtocol::hookbus)
    throw ConfigError(settings.location().key("protocol"),
                      fmt::format("an HTTP hook (\"url\") speaks hookbus's protocol; a {} http handler is declared "
                                  "in its agent's settings file",
                                  hook_protocol_name(*hook.protocol)));
  if (hook.mode == HookMode::persistent)
    throw ConfigError(settings.location().key("mode"), "an HTTP hook (\"url\") is asked once per event; it has no "
                                                       "processes to keep up");
  const auto events = settings.find("events");
  if (!events)
    throw ConfigError(settings.location(), "an HTTP hook (\"url\") must declare its \"events\" (hookbus event "
                                           "names such as \"tool_call\"): it is never asked `HOOK hook`");
  for (std::size_t i = 0; i < hook.events.size(); ++i)
    if (!find_event(hook.events[i]))
      throw ConfigError(events->location().element(i),
                        fmt::format("\"{}\" is not a hookbus event (hookctl events lists them)", hook.events[i]));
}

HookSettings read_hook_settings(const ConfigObject& settings) {
  settings.allow_only({"timeout_ms", "failure", "disabled", "protocol", "events", "matcher", "tools", "mode",
                       "instances", "start", "async", "sequential", "url", "headers", "allowed_env_vars"});
  HookSettings hook;
  hook.location = settings.location();
  if (auto timeout = settings.find("timeout_ms")) hook.timeout = read_timeout(*timeout);
  if (auto failure = settings.find("failure")) hook.failure = failure->as_enum<FailurePolicy>();
  if (auto disabled = settings.find("disabled")) hook.disabled = disabled->as_bool();
  if (auto protocol = settings.find("protocol")) hook.protocol = protocol->as_enum<HookProtocol>();
  if (auto events = settings.find("events")) {
    hook.events = read_string_list(*events);
    if (hook.events.empty()) throw ConfigError(events->location(), "expected at least one event name, got []");
  }
  if (auto matcher = settings.find("matcher")) hook.matcher = matcher->as_string();
  if (auto tools = settings.find("tools")) {
    hook.tools = tools->as_nonempty_string();
    try {
      (void)ToolMatcher(hook.tools);
    } catch (const std::invalid_argument& error) {
      throw ConfigError(tools->location(), error.what());
    }
  }
  if (auto mode = settings.find("mode")) hook.mode = mode->as_enum<HookMode>();
  if (auto instances = settings.find("instances")) hook.instances = static_cast<int>(instances->as_integer(1, max_hook_instances));
  if (auto start = settings.find("start")) hook.start = start->as_enum<HookStart>();
  if (auto async = settings.find("async")) hook.async = async->as_bool();
  if (auto sequential = settings.find("sequential")) hook.sequential = sequential->as_bool();
  if (auto url = settings.find("url")) read_http_hook(settings, *url, hook);
  const bool claude = hook.protocol && declared_like_claude_code(*hook.protocol);
  if (claude && hook.events.empty())
    throw ConfigError(settings.location(),
                      fmt::format("a {0} hook must declare its \"events\" (its agent's event names such as "
                                  "\"PreToolUse\"): {0} hooks are never queried",
                                  hook_protocol_name(*hook.protocol)));
  if (hook.protocol) detail::check_format_hook_entry(*hook.protocol, settings);  // its names are its format's
  if (!claude && !hook.matcher.empty())
    throw ConfigError(settings.location().key("matcher"),
                      "\"matcher\" is Claude Code's; a hookbus-protocol hook filters tools with \"tools\"");
  if (claude && !hook.tools.empty())
    throw ConfigError(settings.location().key("tools"),
                      "\"tools\" is for hookbus-protocol hooks; a claude_code hook uses \"matcher\"");
  if (claude && hook.mode)
    throw ConfigError(settings.location().key("mode"),
                      "\"mode\" is for hookbus-protocol hooks; Claude Code hooks always run once per event");
  // instances and start may come without mode (another layer may make the hook persistent), not against it.
  for (const std::string_view key : {"instances", "start"})
    if (settings.find(key) && (claude || hook.mode == HookMode::spawn))
      throw ConfigError(settings.location().key(key),
                        fmt::format("\"{}\" is for persistent hooks; this entry makes the hook {}", key,
                                    claude ? "a claude_code hook" : "\"mode\": \"spawn\""));
  return hook;
}

// `with_managed`: the agent has an administrator's file ("managed": Cursor's, Gemini CLI's).
ClaudeCodeImport read_claude_code(const ConfigObject& object, bool with_managed = false) {
  object.allow_only({"settings", "plugins", "tool_names"});
  ClaudeCodeImport import;
  import.location = object.location();
  if (auto settings = object.find("settings")) {
    for (const auto& element : settings->as_array()) {
      const Layer layer = with_managed
                              ? element.as_enum<Layer>({Layer::managed, Layer::user, Layer::project, Layer::local})
                              : element.as_enum<Layer>({Layer::user, Layer::project, Layer::local});
      if (std::find(import.settings.begin(), import.settings.end(), layer) == import.settings.end())
        import.settings.push_back(layer);
    }
  }
  if (auto plugins = object.find("plugins")) {
    for (const auto& plugin : plugins->as_array()) import.plugins.push_back(plugin.as_path());
  }
  if (auto names = object.find("tool_names")) {
    for (const auto& [ours, theirs] : names->as_object().members()) {
      if (ours.empty()) throw ConfigError(theirs.location(), "a tool name may not be empty");
      import.tool_names.emplace(ours, theirs.as_nonempty_string());
    }
  }
  return import;
}

// "agent_hooks": each agent whose hook files to read, by its protocol's
// name, as "claude_code" says it for Claude Code; "claude_code" is one of
// them, and written in both places the two add up (a tool name both map
// must be mapped alike).
void read_agent_hooks(const ConfigObject& object, Config& config) {
  static const std::vector<std::string_view> agents = [] {
    std::vector<std::string_view> names;
    for (const HookProtocol agent : agents_with_hook_files()) names.push_back(hook_protocol_name(agent));
    return names;
  }();
  object.allow_only(agents);
  for (const auto& [name, value] : object.members()) {
    const HookProtocol agent = *reflect::enum_from_wire_name<HookProtocol>(name);  // allow_only took the others
    ClaudeCodeImport import =
        read_claude_code(value.as_object(), agent == HookProtocol::cursor || agent == HookProtocol::gemini_cli);
    if (agent != HookProtocol::claude_code) {
      config.agent_hooks.emplace(agent, std::move(import));
      continue;
    }
    if (!config.claude_code) {
      config.claude_code = std::move(import);
      continue;
    }
    ClaudeCodeImport& merged = *config.claude_code;
    for (const Layer layer : import.settings)
      if (std::find(merged.settings.begin(), merged.settings.end(), layer) == merged.settings.end())
        merged.settings.push_back(layer);
    for (auto& plugin : import.plugins)
      if (std::find(merged.plugins.begin(), merged.plugins.end(), plugin) == merged.plugins.end())
        merged.plugins.push_back(std::move(plugin));
    for (auto& [ours, theirs] : import.tool_names) {
      const auto [known, added] = merged.tool_names.emplace(ours, theirs);
      if (!added && known->second != theirs)
        throw ConfigError(import.location.key("tool_names").key(ours),
                          fmt::format("\"claude_code\" maps '{}' to '{}'; one name for a tool: keep one of the two",
                                      ours, known->second));
    }
  }
}

// The file a built-in writes is checked when the config is read, as the
// trace's are: a project's config that names one outside the project, or a
// directory, is an error before anything of it runs. `audit` is the one
// built-in of default_builtins() that writes a file (making it checks the
// file again).
void check_files_written(std::string_view builtin, const ConfigObject& settings, Layer layer) {
  if (builtin != "audit") return;
  if (const auto file = settings.find("file")) (void)detail::file_to_write(*file, is_project_layer(layer));
}

// Whether the file's layer may set a key only some layers may. Where it may
// not, the key is ignored with a warning naming the file, the key and why: a
// project that tries must not stop the user's own guards from installing.
bool layer_may_set(const ConfigValue& value, Config& config, std::initializer_list<Layer> allowed,
                   std::string_view why) {
  if (std::find(allowed.begin(), allowed.end(), config.layer) != allowed.end()) return true;
  config.warnings.push_back(
      error_message(value.location(), fmt::format("may not be set in {} config ({}); ignored", layer_name(config.layer), why)));
  return false;
}

// "network": the origins requests may go to, each checked and written as
// HttpUrl::origin() writes it (so "HTTPS://Policy.example.com:443/" is
// "https://policy.example.com"), and a CA file that exists.
NetworkConfig read_network(const ConfigObject& settings) {
  settings.allow_only({"allowed_origins", "ca_file"});
  NetworkConfig network{.allowed_origins = {}, .ca_file = {}, .location = settings.location()};
  if (auto origins = settings.find("allowed_origins")) {
    for (const auto& origin : origins->as_array()) {
      try {
        network.allowed_origins.push_back(detail::parse_origin(origin.as_string()));
      } catch (const ConfigError&) {
        throw;
      } catch (const Error& error) {
        throw ConfigError(origin.location(), error.what());
      }
    }
  }
  if (auto ca = settings.find("ca_file")) {
    network.ca_file = ca->as_path();
    std::error_code error;
    if (!std::filesystem::is_regular_file(network.ca_file, error))
      throw ConfigError(ca->location(),
                        fmt::format("{} {}: give a file of PEM certificates", network.ca_file.string(),
                                    std::filesystem::exists(network.ca_file, error) ? "is not a regular file"
                                                                                    : "does not exist"));
  }
  return network;
}

Config read_config(const ConfigValue& document, Layer layer) {
  const ConfigObject top = document.as_object();
  top.allow_only({"builtins", "hook_directories", "timeout_ms", "hooks", "claude_code", "agent_hooks", "disable_all_hooks",
                  "allow_managed_hooks_only", "project_trust", "detached_processes", "trace", "network"});
  Config config;
  config.layer = layer;
  if (auto builtins = top.find("builtins")) {
    for (const auto& [name, settings] : builtins->as_object().members()) {
      check_files_written(name, settings.as_object(), layer);
      config.builtins.push_back({.name = name, .settings = settings.as_object().json()});
    }
  }
  if (auto directories = top.find("hook_directories")) {
    for (const auto& directory : directories->as_array()) config.hook_directories.push_back(directory.as_path());
  }
  if (auto timeout = top.find("timeout_ms")) config.default_timeout = read_timeout(*timeout);
  if (auto hooks = top.find("hooks")) {
    for (const auto& [name, settings] : hooks->as_object().members())
      config.hooks.emplace(name, read_hook_settings(settings.as_object()));
  }
  if (auto claude = top.find("claude_code")) config.claude_code = read_claude_code(claude->as_object());
  if (auto agents = top.find("agent_hooks")) read_agent_hooks(agents->as_object(), config);
  if (auto disable = top.find("disable_all_hooks")) config.disable_all_hooks = disable->as_bool();
  if (auto managed_only = top.find("allow_managed_hooks_only");
      managed_only && layer_may_set(*managed_only, config, {Layer::managed}, "only an administrator's managed config decides it"))
    config.allow_managed_hooks_only = managed_only->as_bool();
  if (auto trace = top.find("trace")) {
    const ConfigObject settings = trace->as_object();
    config.trace = TraceConfig{.options = read_trace_options(settings, layer), .settings = settings.json()};
  }
  if (auto trust = top.find("project_trust");
      trust && layer_may_set(*trust, config, {Layer::managed, Layer::user}, "a project may not decide its own trust"))
    config.project_trust = trust->as_enum<ProjectTrustPolicy>();
  if (auto detached = top.find("detached_processes")) config.detached_processes = detached->as_enum<DetachedProcesses>();
  if (auto network = top.find("network");
      network && layer_may_set(*network, config, {Layer::managed, Layer::user},
                               "a project may not decide where its hooks send what they see"))
    config.network = read_network(network->as_object());
  return config;
}

}  // namespace

// ------------------------------------------------------------------- API

std::string_view hook_protocol_name(HookProtocol protocol) noexcept {
  return reflect::enum_wire_name(protocol).value_or("hookbus");
}

const ClaudeCodeImport* agent_hooks_import(const Config& config, HookProtocol agent) noexcept {
  if (agent == HookProtocol::claude_code) return config.claude_code ? &*config.claude_code : nullptr;
  const auto found = config.agent_hooks.find(agent);
  return found == config.agent_hooks.end() ? nullptr : &found->second;
}

bool declared_like_claude_code(HookProtocol protocol) noexcept {
  return protocol != HookProtocol::hookbus && protocol != HookProtocol::kodelet;
}

std::span<const HookProtocol> agents_with_hook_files() noexcept {
  static const std::vector<HookProtocol> agents = [] {
    std::vector<HookProtocol> protocols;
    boost::mp11::mp_for_each<boost::describe::describe_enumerators<HookProtocol>>([&](auto d) {
      if (d.value != HookProtocol::hookbus && d.value != HookProtocol::kodelet) protocols.push_back(d.value);
    });
    return protocols;
  }();
  return agents;
}

std::string_view detached_processes_name(DetachedProcesses detached) noexcept {
  return reflect::enum_wire_name(detached).value_or("allow");
}

std::string_view project_trust_name(ProjectTrustPolicy policy) noexcept {
  return reflect::enum_wire_name(policy).value_or("require");
}

ConfigLocation Config::location() const {
  return {.file = file, .project_dir = project_dir, .path = {}, .layer = layer};
}

Config load_config(const std::filesystem::path& file, Layer layer) {
  const ConfigLocation root{.file = file, .project_dir = project_dir_of(file), .path = {}, .layer = layer};
  const std::string text = read_config_file(file, root);
  const boost::json::value document = parse_config_text(text, root);
  Config config = read_config(ConfigValue(document, root), layer);
  config.file = root.file;
  config.project_dir = root.project_dir;
  config.sha256 = detail::sha256_hex(text);
  return config;
}

std::optional<Config> load_layer_config(const std::filesystem::path& file, Layer layer) {
  struct stat st {};
  if (::lstat(file.c_str(), &st) != 0 && (errno == ENOENT || errno == ENOTDIR)) return std::nullopt;
  // A layer's config decides what runs as the user: it gets the hook files'
  // checks. What is not a regular file is refused by the read below, naming
  // what it is (never with advice to change a device's mode).
  if (::stat(file.c_str(), &st) == 0 && S_ISREG(st.st_mode))
    if (auto why = detail::unsafe_path_reason(file))
      throw ConfigError({.file = file, .project_dir = {}, .path = {}}, "not safe: " + *why);
  return load_config(file, layer);
}

std::optional<Config> load_project_config(const std::filesystem::path& project_dir) {
  return load_layer_config((project_dir / ".hookbus" / "config.json").lexically_normal(), Layer::project);
}

}  // namespace hookbus
