// The external-hook runner: payload, environment, one run, and reading the
// run back as the event's result or a failure. See include/hookbus/external.hpp.
#include <hookbus/external.hpp>
#include <hookbus/json.hpp>
#include <hookbus/log.hpp>
#include <hookbus/names.hpp>
#include <hookbus/reducers.hpp>

#include "support/text.hpp"

#include <boost/json/serialize.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <memory>
#include <system_error>
#include <utility>

namespace hookbus {
namespace {

namespace fs = std::filesystem;

// kodelet's names for our fields, added to the payload so its hooks run unchanged.
struct KodeletKey {
  std::string_view event;  // our wire name
  std::string_view ours;
  std::string_view theirs;
};
constexpr KodeletKey kKodeletKeys[] = {
    {"tool_call", "input", "tool_input"},
    {"tool_result", "input", "tool_input"},
    {"input", "text", "message"},
};

const EventContext& context_of(const HookEvent& event) {
  return std::visit([](const auto& e) -> const EventContext& { return e.context; }, event);
}

// The event's cwd when it names a directory, else the project directory, else
// (empty) the host's own.
fs::path working_directory_for(const ExternalHook& hook, const EventContext& context) {
  std::error_code ec;
  if (!context.cwd.empty() && fs::is_directory(context.cwd, ec)) return context.cwd;
  if (!hook.project_dir.empty() && fs::is_directory(hook.project_dir, ec)) return hook.project_dir;
  return {};
}

[[noreturn]] void fail(const ExternalHook& hook, const ProcessResult& run, std::string_view what) {
  const std::string tail = run.stderr_tail();
  throw ExternalHookError(fmt::format("{}: {}{}{}", hook.path.string(), what, tail.empty() ? "" : "; stderr: ", tail));
}

// Exit code 2: the event's refusal, with stderr as the reason, where the event can refuse.
template <class E>
HookOutcome refusal_by_exit_code(const ExternalHook& hook, const ProcessResult& run) {
  if constexpr (EventWithResult<E>) {
    if constexpr (is_gating(E::reduction)) {
      std::string reason = run.stderr_tail(1000);
      if (reason.empty()) reason = fmt::format("blocked by hook '{}' (exit code 2)", hook.name);
      return failure_refusal<E>(std::move(reason));
    }
  }
  fail(hook, run, fmt::format("exit code 2 means a refusal, but '{}' cannot be refused", E::type));
}

// `"<key>": true` is the event's refusal, whatever the event calls it
// (decision = deny, allow = false, cancel, action = reject): the refusal's
// fields the hook did not set itself are added.
template <class E>
void accept_legacy_refusal(boost::json::object& result, std::string_view key) {
  const auto* refuse = result.if_contains(key);
  if (refuse == nullptr) return;
  if (!refuse->is_bool())
    throw JsonError(std::string(key), "expected boolean, got " + std::string(boost::json::to_string(refuse->kind())));
  const bool refuses = refuse->get_bool();
  result.erase(key);
  if (!refuses) return;
  const auto refusal = to_json(HookOutcome(failure_refusal<E>("")));
  for (const auto& [field, value] : refusal.as_object())
    if (field != "reason" && !result.contains(field)) result[field] = value;
}

// Refusals in older words: kodelet's `"blocked": true` on any event that can
// refuse, and hookbus's former `"block": true` on tool_call (now
// `"decision": "deny"`).
template <class E>
void accept_legacy_refusals(boost::json::object& result) {
  if constexpr (EventWithResult<E>) {
    if constexpr (is_gating(E::reduction)) {
      accept_legacy_refusal<E>(result, "blocked");
      if constexpr (detail::Decisive<result_t<E>>) accept_legacy_refusal<E>(result, "block");
    }
  }
}

// Exit code 0: nothing (or null), or the event's result as JSON.
// (kodelet's after_tool_call `output` has no counterpart in tool_result's
// patch and is ignored, like any unknown key.)
template <class E>
HookOutcome result_from_stdout(const ExternalHook& hook, const ProcessResult& run) {
  if (detail::trim(run.stdout_text).empty()) return std::monostate{};
  try {
    boost::json::value json = parse_json(run.stdout_text, "stdout");
    if (json.is_null()) return std::monostate{};
    if (json.is_object()) accept_legacy_refusals<E>(json.as_object());
    return outcome_from_json(event_index<E>, json);
  } catch (const JsonError& e) {
    fail(hook, run, fmt::format("printed no valid '{}' result: {}", E::type, e.what()));
  }
}

template <class E>
HookOutcome outcome_of(const ExternalHook& hook, const ProcessResult& run) {
  if (run.timed_out) fail(hook, run, fmt::format("timed out after {} ms (its timeout)", hook.timeout.count()));
  if (run.stdout_truncated)
    fail(hook, run, fmt::format("printed more than its stdout limit of {} bytes", default_output_limit));
  if (run.exit_code == 2) return refusal_by_exit_code<E>(hook, run);
  if (!run.succeeded()) fail(hook, run, run.status());
  return result_from_stdout<E>(hook, run);
}

}  // namespace

boost::json::object hook_payload(const HookEvent& event, std::string_view requested_name) {
  boost::json::object payload = to_json(event).as_object();
  // Copies, taken before inserting: insertion may move the nested context.
  const boost::json::object context = payload.at("context").as_object();
  const std::string_view wire_name = event_name(event);
  auto add = [&](std::string_view key, boost::json::value value) {
    if (!payload.contains(key)) payload.emplace(key, std::move(value));
  };
  add("hook_event_name", boost::json::string(wire_name));
  add("event", boost::json::string(requested_name));
  add("conv_id", context.at("session_id"));
  add("cwd", context.at("cwd"));
  add("invoked_by", context.at("invoked_by"));
  for (const auto& key : kKodeletKeys)
    if (key.event == wire_name && payload.contains(key.ours)) add(key.theirs, boost::json::value(payload.at(key.ours)));
  return payload;
}

ProcessResult run_external_hook(const ExternalHook& hook, const HookEvent& event, std::string_view requested_name) {
  const EventContext& context = context_of(event);
  return run_process({
      .program = hook.path,
      .arguments = {"run"},
      .extra_environment = {{"HOOKBUS_EVENT", std::string(event_name(event))},
                            {"HOOKBUS_SESSION_ID", context.session_id},
                            {"HOOKBUS_PROJECT_DIR", hook.project_dir.string()},
                            {"HOOKBUS_HOOK_NAME", hook.name}},
      .working_directory = working_directory_for(hook, context),
      .input = boost::json::serialize(hook_payload(event, requested_name)),
      .timeout = hook.timeout,
  });
}

HookOutcome hook_outcome(const ExternalHook& hook, const HookEvent& event, const ProcessResult& run) {
  return std::visit([&]<class E>(const E&) { return outcome_of<E>(hook, run); }, event);
}

HookOutcome call_external_hook(const ExternalHook& hook, const HookEvent& event, std::string_view requested_name) {
  return hook_outcome(hook, event, run_external_hook(hook, event, requested_name));
}

HookDirectories hook_directories(const Config& config) {
  return default_hook_directories(config.project_dir.empty() ? fs::current_path() : config.project_dir,
                                  config.hook_directories);
}

ConnectionGroup install_external_hooks(Hooks& hooks, const DiscoveryReport& report, const Config& config) {
  const fs::path project_dir = config.project_dir.empty() ? fs::current_path() : config.project_dir;
  ConnectionGroup installed;
  for (const auto& found : report.hooks) {
    const auto configured = config.hooks.find(found.name);
    const HookOverride settings = configured != config.hooks.end() ? configured->second : HookOverride{};
    if (settings.disabled) continue;
    auto hook = std::make_shared<const ExternalHook>(
        ExternalHook{found.name, found.path, settings.timeout.value_or(config.default_timeout), project_dir});
    const HandlerOptions options{.label = found.name,
                                 .failure = settings.failure.value_or(FailurePolicy::fail_open),
                                 .kind = HandlerKind::external,
                                 .source = found.path.string()};
    for (const auto& requested : found.events)
      installed.add(hooks.on(
          event_name(requested.index),
          [hook, requested_name = requested.name](const HookEvent& event) {
            return call_external_hook(*hook, event, requested_name);
          },
          options));
  }
  for (const auto& [name, settings] : config.hooks) {
    const bool found = std::any_of(report.hooks.begin(), report.hooks.end(), [&](const auto& h) { return h.name == name; });
    if (!found) logger()->warn("configuration for hook '{}': no hook of that name was discovered", name);
  }
  return installed;
}

}  // namespace hookbus
