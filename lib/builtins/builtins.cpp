// The built-in hooks, their registry, and installing the built-ins (the tracer
// among them) that a config enables.
//
// Patterns are Boost.Regex rather than std::regex: libstdc++'s std::regex
// recurses once per character and overflows the stack on long tool arguments,
// where Boost.Regex (header-only) has a bounded, non-recursive matcher that
// throws instead. The syntax is Perl/ECMAScript with `^`/`$` anchoring the
// whole text and `.` not matching a newline, as in ECMAScript, so an anchored
// allow rule cannot be satisfied by one line of a multi-line command.
#include <hookbus/builtins.hpp>
#include <hookbus/json.hpp>
#include <hookbus/log.hpp>
#include <hookbus/plugin.hpp>
#include <hookbus/tool_matcher.hpp>
#include <hookbus/tracer.hpp>

#include "builtins/plugin_builtin.hpp"
#include "config/file_to_write.hpp"
#include "support/logging.hpp"
#include "support/utf8.hpp"

#include <boost/describe/enum_to_string.hpp>
#include <boost/regex.hpp>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <system_error>

namespace hookbus {
namespace {

constexpr auto regex_syntax = boost::regex::perl | boost::regex::no_mod_m | boost::regex::no_mod_s;

boost::regex compile_pattern(const ConfigValue& value) {
  const std::string pattern = value.as_nonempty_string();
  try {
    return boost::regex(pattern, regex_syntax);
  } catch (const boost::regex_error& error) {
    throw ConfigError(value.location(), fmt::format("expected a valid regular expression: {}", error.what()));
  }
}

template <class Builtin>
BuiltinFactory factory_of() {
  return [](const ConfigObject& settings) -> BuiltinProvider {
    return [builtin = Builtin(settings)](Registrar& registrar) { builtin.register_hooks(registrar); };
  };
}

}  // namespace

namespace detail {

// The plugin is loaded when the built-in is made: an engine that does not
// enable it never loads the plugin or the libraries it needs.
BuiltinFactory plugin_builtin(std::string name, std::string_view not_built) {
  return [name = std::move(name), not_built](const ConfigObject& settings) -> BuiltinProvider {
    if (!not_built.empty())
      throw ConfigError(settings.location(),
                        fmt::format("{} is not available: this hookbus was built without {}; install them "
                                    "(tools/install-deps) and build hookbus again",
                                    name, not_built));
    const std::string file_name = name + ".so";
    const std::vector<BuiltinPluginDirectory> directories = builtin_plugin_directories();
    const auto found = std::find_if(directories.begin(), directories.end(), [&](const BuiltinPluginDirectory& directory) {
      std::error_code ec;
      return std::filesystem::exists(directory.path / file_name, ec);
    });
    if (found == directories.end()) {
      std::vector<std::string> looked;
      for (const auto& directory : directories)
        looked.push_back(fmt::format("{} ({})", (directory.path / file_name).string(), directory.why));
      throw ConfigError(settings.location(),
                        fmt::format("{} is a plugin, {}, and it is in none of the places looked in: {}; set "
                                    "HOOKBUS_BUILTIN_PLUGIN_DIR to the directory holding it (a build tree's "
                                    "plugins/, an installed prefix's <libdir>/hookbus/plugins)",
                                    name, file_name, fmt::join(looked, "; ")));
    }
    const std::filesystem::path file = found->path / file_name;
    BuiltinRegistry from_plugin;
    try {
      load_builtin_plugin(from_plugin, file);
    } catch (const PluginError& error) {
      throw ConfigError(settings.location(), error.what());
    }
    return from_plugin.make(name, settings);
  };
}

}  // namespace detail

// ---------------------------------------------------------------- registry

void BuiltinRegistry::add(std::string name, BuiltinFactory factory) {
  if (!factory) throw std::invalid_argument("hookbus: empty factory for built-in \"" + name + "\"");
  factories_.insert_or_assign(std::move(name), std::move(factory));
}

bool BuiltinRegistry::contains(std::string_view name) const { return factories_.find(name) != factories_.end(); }

std::vector<std::string> BuiltinRegistry::names() const {
  std::vector<std::string> names;
  for (const auto& [name, factory] : factories_) names.push_back(name);
  return names;
}

BuiltinProvider BuiltinRegistry::make(std::string_view name, const ConfigObject& settings) const {
  const auto found = factories_.find(name);
  if (found == factories_.end())
    throw ConfigError(settings.location(),
                      fmt::format("unknown built-in \"{}\"; available: {}", name, fmt::join(names(), ", ")));
  return found->second(settings);
}

ConnectionGroup BuiltinRegistry::install(Hooks& hooks, std::string_view name,
                                         const boost::json::object& settings) const {
  return hooks.add(make(name, ConfigObject(settings, ConfigLocation{}.key(name))));
}

BuiltinRegistry default_builtins() {
  BuiltinRegistry registry;
  registry.add("audit", factory_of<AuditLog>());
  registry.add("tool_policy", factory_of<ToolPolicy>());
  registry.add("redact", factory_of<Redactor>());
  registry.add("tool_stats", factory_of<ToolStats>());
  registry.add("swap_context", factory_of<ContextSwap>());
  registry.add("stt", detail::plugin_builtin("stt", HOOKBUS_STT_NOT_BUILT));
  registry.add("tts", detail::plugin_builtin("tts", HOOKBUS_TTS_NOT_BUILT));
  return registry;
}

// ---------------------------------------------------------------- installing

ConnectionGroup install_builtins(Hooks& hooks, const Config& config) {
  return install_builtins(hooks, config, default_builtins());
}

ConnectionGroup install_builtins(Hooks& hooks, const Config& config, const BuiltinRegistry& registry) {
  const ConfigLocation builtins = config.location().key("builtins");
  std::vector<BuiltinProvider> providers;
  providers.reserve(config.builtins.size());
  for (const auto& builtin : config.builtins)
    providers.push_back(registry.make(builtin.name, ConfigObject(builtin.settings, builtins.key(builtin.name))));
  if (config.trace)  // the tracer: a built-in a config enables under its own key
    providers.push_back([tracer = Tracer(config.trace->options, config.location().key("trace"))](Registrar& registrar) {
      tracer.register_hooks(registrar);
    });
  // Everything that can fail on bad configuration has happened; should a
  // registration still throw, the groups disconnect what was registered.
  ConnectionGroup installed;
  for (const auto& provider : providers)
    installed.add(hooks.add(provider, RegistrarScope{.layer = config.layer}));  // ranked as the config's layer
  return installed;
}

// ------------------------------------------------------------------- audit

namespace {

constexpr std::size_t audit_value_limit = 200;  // characters kept of each parameter value and error

// The first `limit` characters (UTF-8 code points, never split) of text, and "…" if there were more.
std::string cut_to_chars(std::string_view text, std::size_t limit) {
  const std::string_view kept = detail::utf8_first_chars(text, limit);
  return kept.size() == text.size() ? std::string(text) : std::string(kept) + "…";
}

// Strings are cut; arrays and objects are kept while short, else become their cut JSON text.
boost::json::value cut_value(const boost::json::value& value) {
  if (value.is_string()) return boost::json::value(cut_to_chars(value.get_string(), audit_value_limit));
  if (value.is_array() || value.is_object()) {
    const std::string text = write_json(value);
    if (detail::utf8_first_chars(text, audit_value_limit).size() < text.size())
      return boost::json::value(cut_to_chars(text, audit_value_limit));
  }
  return value;
}

boost::json::object cut_parameters(const boost::json::object& input) {
  boost::json::object parameters;
  for (const auto& [key, value] : input) parameters[key] = cut_value(value);
  return parameters;
}

// What every record starts with: when, which event, which call, and who called.
boost::json::object audit_record(std::string_view event, const EventContext& context, std::string_view tool,
                                 std::string_view tool_call_id) {
  const auto now = std::chrono::time_point_cast<std::chrono::milliseconds>(std::chrono::system_clock::now());
  return {
      {"timestamp", now.time_since_epoch().count()},
      {"event", event},
      {"tool", tool},
      {"tool_call_id", tool_call_id},
      {"session_id", context.session_id},
      {"agent_id", context.agent_id},
      {"invoked_by", boost::describe::enum_to_string(context.invoked_by, "unknown")},
  };
}

boost::json::object call_record(const ToolCallEvent& call) {
  auto record = audit_record(call.type, call.context, call.tool_name, call.tool_call_id);
  record["parameters"] = cut_parameters(call.input);
  return record;
}

boost::json::object end_record(const ToolExecutionEndEvent& end) {
  const ToolResult& result = end.tool_result;
  auto record = audit_record(end.type, end.context, result.tool_name, result.tool_call_id);
  record["duration_ms"] = end.duration.count();
  record["is_error"] = result.is_error;
  if (result.is_error) record["error"] = cut_to_chars(text_of(result.content), audit_value_limit);
  return record;
}

boost::json::object failure_record(const ToolExecutionFailureEvent& failure) {
  auto record = audit_record(failure.type, failure.context, failure.tool_name, failure.tool_call_id);
  record["parameters"] = cut_parameters(failure.input);
  record["error"] = cut_to_chars(failure.error, audit_value_limit);
  record["attempt"] = failure.attempt;
  return record;
}

}  // namespace

struct AuditLog::Sink {
  explicit Sink(detail::FileToWrite file) : file(std::move(file)) {}

  // At the start, and at each record until it is open (a project's file
  // that could not be opened, which the start only warned about).
  void open() {
    if (!output) output.emplace(file, detail::WrittenFile::Mode::append);
  }

  // One line, one write() under the lock: lines never interleave, nothing is buffered.
  void append(const boost::json::object& record) {
    std::string line = write_json(record);
    line += '\n';
    std::lock_guard lock(mutex);
    open();
    output->write(line);
  }

  const detail::FileToWrite file;
  std::mutex mutex;
  std::optional<detail::WrittenFile> output;  // guarded by mutex
};

AuditLog::AuditLog(const ConfigObject& settings) {
  settings.allow_only({"file"});
  const ConfigValue file = settings.required("file", "the audit file's path (string)");
  sink_ = std::make_shared<Sink>(detail::file_to_write(file, detail::in_project_config(file.location())));
  try {
    (void)detail::start_writer("audit", sink_->file, [this] { sink_->open(); });
  } catch (const Error& error) {
    throw ConfigError(file.location(), fmt::format("expected a file to append to: {}", error.what()));
  }
}

void AuditLog::register_hooks(Registrar& registrar) const {
  const HandlerOptions options{.label = "builtin:audit", .priority = builtin_priority::observe_first,
                               .kind = HandlerKind::builtin};
  registrar.on<ToolCallEvent>([sink = sink_](const ToolCallEvent& call) { sink->append(call_record(call)); },
                              options);
  registrar.on<ToolExecutionEndEvent>(
      [sink = sink_](const ToolExecutionEndEvent& end) { sink->append(end_record(end)); }, options);
  registrar.on<ToolExecutionFailureEvent>(
      [sink = sink_](const ToolExecutionFailureEvent& failure) { sink->append(failure_record(failure)); }, options);
}

// ------------------------------------------------------------- tool_policy

namespace {

ToolMatcher read_tool_glob(const ConfigValue& value) {
  const std::string glob = value.as_nonempty_string();
  try {
    return ToolMatcher(glob);
  } catch (const std::invalid_argument&) {
    throw ConfigError(value.location(),
                      fmt::format("expected a tool name or glob without empty '|' alternatives, got \"{}\"", glob));
  }
}

// One argument of the call matched against a pattern, anywhere in its text.
struct ArgumentPattern {
  std::string argument;
  boost::regex pattern;

  // A missing argument never matches; a non-string one is matched as its JSON text.
  bool matches(const boost::json::object& input) const {
    const auto* value = input.if_contains(argument);
    if (!value) return false;
    if (value->is_string()) {
      const auto& text = value->get_string();
      return boost::regex_search(text.begin(), text.end(), pattern);
    }
    return boost::regex_search(write_json(*value), pattern);
  }
};

struct PolicyRule {
  std::string name{};  // "deny[1]"
  ToolMatcher tool{};
  std::optional<ArgumentPattern> argument{};
  std::string reason{};  // the configured reason, or empty

  bool matches(const ToolCallEvent& call) const {
    return tool.matches(call.tool_name) && (!argument || argument->matches(call.input));
  }

  std::string description() const {
    std::string description = fmt::format("tool \"{}\"", tool.pattern());
    if (argument) description += fmt::format(", {} matches \"{}\"", argument->argument, argument->pattern.str());
    return description;
  }
};

PolicyRule read_policy_rule(const ConfigValue& entry, std::string name) {
  if (entry.json().is_string()) return PolicyRule{.name = std::move(name), .tool = read_tool_glob(entry)};
  if (!entry.json().is_object()) entry.fail_expected("string (a tool name or glob) or object (a rule)");
  const ConfigObject rule = entry.as_object();
  rule.allow_only({"tool", "argument", "pattern", "reason"});
  PolicyRule read{.name = std::move(name),
                  .tool = read_tool_glob(rule.required("tool", "string (a tool name or glob)"))};
  if (rule.find("argument") || rule.find("pattern")) {  // the two go together
    const ConfigValue argument = rule.required("argument", "string (the argument \"pattern\" applies to)");
    const ConfigValue pattern = rule.required("pattern", "string (a regular expression for \"argument\")");
    read.argument = ArgumentPattern{.argument = argument.as_nonempty_string(), .pattern = compile_pattern(pattern)};
  }
  if (const auto reason = rule.find("reason")) read.reason = reason->as_nonempty_string();
  return read;
}

std::vector<PolicyRule> read_policy_rules(const ConfigValue& list, std::string_view list_name) {
  std::vector<PolicyRule> rules;
  for (const auto& entry : list.as_array())
    rules.push_back(read_policy_rule(entry, fmt::format("{}[{}]", list_name, rules.size())));
  return rules;
}

ToolCallResult denied(std::string reason) {
  return ToolCallResult{.decision = Decision::deny, .reason = std::move(reason)};
}

}  // namespace

struct ToolPolicy::Rules {
  std::vector<PolicyRule> deny;
  std::optional<std::vector<PolicyRule>> allow;  // present: only what it matches may run

  std::optional<ToolCallResult> decide(const ToolCallEvent& call) const {
    for (const auto& rule : deny) {
      if (!rule.matches(call)) continue;
      if (!rule.reason.empty()) return denied(fmt::format("tool_policy: {} ({})", rule.reason, rule.name));
      return denied(fmt::format("tool_policy: '{}' is denied by {} ({})", call.tool_name, rule.name,
                                 rule.description()));
    }
    if (allow && std::none_of(allow->begin(), allow->end(), [&](const auto& rule) { return rule.matches(call); }))
      return denied(fmt::format("tool_policy: '{}' is not allowed: no allow rule matches", call.tool_name));
    return std::nullopt;
  }
};

ToolPolicy::ToolPolicy(const ConfigObject& settings) {
  settings.allow_only({"deny", "allow"});
  Rules rules;
  if (const auto deny = settings.find("deny")) rules.deny = read_policy_rules(*deny, "deny");
  if (const auto allow = settings.find("allow")) rules.allow = read_policy_rules(*allow, "allow");
  rules_ = std::make_shared<const Rules>(std::move(rules));
}

void ToolPolicy::register_hooks(Registrar& registrar) const {
  registrar.on<ToolCallEvent>([rules = rules_](const ToolCallEvent& call) { return rules->decide(call); },
                              {.label = "builtin:tool_policy",
                               .priority = builtin_priority::policy,
                               .failure = FailurePolicy::fail_closed,
                               .kind = HandlerKind::builtin});
}

// ------------------------------------------------------------------ redact

namespace {

constexpr char redacted_text[] = "[REDACTED]";

// Common credential shapes. `\b` keeps them from firing inside ordinary words ("task-…").
constexpr std::string_view default_secret_patterns[] = {
    R"(\bsk-[A-Za-z0-9_-]{20,})",           // OpenAI (sk-, sk-proj-) and Anthropic (sk-ant-) API keys
    R"(\bAKIA[0-9A-Z]{16})",                // AWS access key ids
    R"(\bgh[pousr]_[A-Za-z0-9]{36})",       // GitHub tokens (ghp_, gho_, ghu_, ghs_, ghr_)
    R"(\bgithub_pat_[A-Za-z0-9_]{22,})",    // GitHub fine-grained tokens
    R"(\bxox[abposr]-[A-Za-z0-9-]{10,})",   // Slack tokens
    R"(\bAIza[0-9A-Za-z_-]{35})",           // Google API keys
    R"(-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----)",  // PEM private keys
};

}  // namespace

struct Redactor::Patterns {
  std::vector<boost::regex> secrets;

  // The text with every secret replaced, or nullopt when it holds none.
  std::optional<std::string> redact_text(const std::string& text) const {
    std::optional<std::string> clean;
    for (const auto& secret : secrets) {
      const std::string& current = clean ? *clean : text;
      if (!boost::regex_search(current, secret)) continue;
      clean = boost::regex_replace(current, secret, redacted_text, boost::regex_constants::format_literal);
    }
    return clean;
  }

  std::optional<ToolResultPersistResult> redact(const ToolResultPersistEvent& persist) const {
    std::optional<std::vector<ContentPart>> content;  // copied at the first change only
    for (std::size_t i = 0; i < persist.content.size(); ++i) {
      const auto* part = std::get_if<TextPart>(&persist.content[i]);
      if (!part) continue;
      auto clean = redact_text(part->text);
      if (!clean) continue;
      if (!content) content = persist.content;
      (*content)[i] = TextPart{std::move(*clean)};
    }
    if (!content) return std::nullopt;
    return ToolResultPersistResult{.content = std::move(content)};
  }
};

Redactor::Redactor(const ConfigObject& settings) {
  settings.allow_only({"patterns", "default_patterns"});
  Patterns patterns;
  const auto use_defaults = settings.find("default_patterns");
  if (!use_defaults || use_defaults->as_bool()) {
    for (const auto pattern : default_secret_patterns)
      patterns.secrets.emplace_back(pattern.data(), pattern.data() + pattern.size(), regex_syntax);
  }
  if (const auto user_patterns = settings.find("patterns")) {
    for (const auto& pattern : user_patterns->as_array()) patterns.secrets.push_back(compile_pattern(pattern));
  }
  if (patterns.secrets.empty())
    throw ConfigError(settings.location(),
                      "nothing to redact; expected \"patterns\" or \"default_patterns\": true");
  patterns_ = std::make_shared<const Patterns>(std::move(patterns));
}

void Redactor::register_hooks(Registrar& registrar) const {
  registrar.on<ToolResultPersistEvent>(
      [patterns = patterns_](const ToolResultPersistEvent& persist) { return patterns->redact(persist); },
      {.label = "builtin:redact", .priority = builtin_priority::redact_last, .kind = HandlerKind::builtin});
}

// -------------------------------------------------------------- tool_stats

struct ToolStats::Counters {
  explicit Counters(std::uint64_t log_every) : log_every(log_every) {}

  // Applies `change` to the tool's counters under the lock; returns them as they are then.
  template <class Change>
  ToolUsage update(std::string_view tool, Change change) {
    std::lock_guard lock(mutex);
    auto found = per_tool.find(tool);
    if (found == per_tool.end()) found = per_tool.emplace(std::string(tool), ToolUsage{}).first;
    change(found->second);
    return found->second;
  }

  void count_call(std::string_view tool) {
    const ToolUsage usage = update(tool, [](ToolUsage& counts) { ++counts.calls; });
    // Logged outside the lock: a slow sink must not stall other tools' counting.
    if (log_every != 0 && usage.calls % log_every == 0)
      detail::log(spdlog::level::info, "tool_stats: {}: {} calls, {} ok, {} failed, {} ms in total", tool, usage.calls,
                     usage.successes, usage.failures, usage.total_duration.count());
  }

  const std::uint64_t log_every;
  mutable std::mutex mutex;
  std::map<std::string, ToolUsage, std::less<>> per_tool;  // guarded by mutex
};

ToolStats::ToolStats(const ConfigObject& settings) {
  settings.allow_only({"log_every"});
  const auto log_every = settings.find("log_every");
  counters_ = std::make_shared<Counters>(
      log_every ? static_cast<std::uint64_t>(log_every->as_integer(0, std::numeric_limits<std::int64_t>::max())) : 10);
}

void ToolStats::register_hooks(Registrar& registrar) const {
  const HandlerOptions options{.label = "builtin:tool_stats", .priority = builtin_priority::observe_first,
                               .kind = HandlerKind::builtin};
  registrar.on<ToolCallEvent>([counters = counters_](const ToolCallEvent& call) { counters->count_call(call.tool_name); },
                              options);
  registrar.on<ToolExecutionEndEvent>(
      [counters = counters_](const ToolExecutionEndEvent& end) {
        counters->update(end.tool_result.tool_name, [&](ToolUsage& counts) {
          ++(end.tool_result.is_error ? counts.failures : counts.successes);
          counts.total_duration += end.duration;
        });
      },
      options);
  registrar.on<ToolExecutionFailureEvent>(
      [counters = counters_](const ToolExecutionFailureEvent& failure) {
        counters->update(failure.tool_name, [](ToolUsage& counts) { ++counts.failures; });
      },
      options);
}

std::map<std::string, ToolUsage> ToolStats::snapshot() const {
  std::lock_guard lock(counters_->mutex);
  return {counters_->per_tool.begin(), counters_->per_tool.end()};
}

// ------------------------------------------------------------ swap_context

ContextSwap::ContextSwap(const ConfigObject& settings) {
  settings.allow_only({"once"});
  if (const auto once = settings.find("once")) once_ = once->as_bool();
}

void ContextSwap::register_hooks(Registrar& registrar) const {
  registrar.on<TurnEndEvent>(
      [once = once_](const TurnEndEvent& turn) -> std::optional<TurnEndResult> {
        if (once && turn.turn_index > 0) return std::nullopt;
        std::string response = text_of(turn.message.content);
        if (response.empty()) return std::nullopt;
        return TurnEndResult{.swap_context = std::move(response)};
      },
      {.label = "builtin:swap_context", .priority = builtin_priority::swap_last, .kind = HandlerKind::builtin});
}

}  // namespace hookbus
