// The external-hook runner's protocol: environment, one run, and reading the
// run back as the event's result or a failure. See
// include/hookbus/external.hpp; the payload and the answer are hookbus's own
// protocol's (lib/formats/kodelet/), the installer is installer.cpp.
#include <hookbus/external.hpp>
#include <hookbus/json.hpp>
#include <hookbus/names.hpp>

#include "bus/asking_handler.hpp"
#include "bus/reducers.hpp"
#include "catalogue/instantiations.hpp"
#include "external/hook_run.hpp"
#include "process/run_end.hpp"
#include "process/run_log.hpp"
#include "formats/kodelet/protocol.hpp"
#include "support/text.hpp"
#include "support/utf8.hpp"

#include <fmt/format.h>

#include <system_error>
#include <utility>

namespace hookbus {
namespace {

namespace fs = std::filesystem;

// The event's cwd when it names a directory, else the project directory, else
// (empty) the host's own.
fs::path working_directory_for(const ExternalHook& hook, const EventContext& context) {
  std::error_code ec;
  if (!context.cwd.empty() && fs::is_directory(context.cwd, ec)) return context.cwd;
  if (!hook.project_dir.empty() && fs::is_directory(hook.project_dir, ec)) return hook.project_dir;
  return {};
}

[[noreturn]] void fail(const ExternalHook& hook, const ProcessResult& run, std::string_view what) {
  detail::run_failed(hook.path.string(), run, what);
}

// Exit code 2: the event's refusal, with stderr as the reason, where the event can refuse.
template <class E>
detail::HookAnswer<E> refusal_by_exit_code(const ExternalHook& hook, const ProcessResult& run) {
  if constexpr (EventWithResult<E>) {
    if constexpr (is_gating(E::reduction)) {
      std::string reason = run.stderr_tail(1000);
      if (reason.empty()) reason = detail::valid_utf8(fmt::format("blocked by hook '{}' (exit code 2)", hook.name));
      return refusal_result<E>(std::move(reason));
    }
  }
  fail(hook, run, fmt::format("exit code 2 means a refusal, but '{}' cannot be refused", E::type));
}

// Exit code 0: nothing (or null), or the event's result as JSON; an event
// without a result takes nothing from it, but it must be JSON all the same.
template <class E>
detail::HookAnswer<E> answer_on_stdout(const ExternalHook& hook, const ProcessResult& run) {
  if (detail::trim(run.stdout_text).empty()) return detail::HookAnswer<E>();
  try {
    [[maybe_unused]] boost::json::value answer = parse_json(run.stdout_text, "stdout");
    if (answer.is_object()) detail::take_asks(answer.as_object());
    if constexpr (EventWithResult<E>) return detail::result_from_answer<E>(std::move(answer));
  } catch (const JsonError& e) {
    fail(hook, run, fmt::format("printed no valid '{}' result: {}", E::type, e.what()));
  }
}

}  // namespace

namespace detail {

ProcessResult run_payload(const ExternalHook& hook, std::string payload, std::string_view event,
                          const EventContext& context, std::stop_token stop) {
  // It starts in the event's working directory: a relative path would name
  // another file there than here, where it was named (and checked).
  std::error_code ec;
  const fs::path program = fs::absolute(hook.path, ec);
  if (ec) throw ProcessError(fmt::format("cannot run {}: {}", hook.path.string(), ec.message()));
  const std::size_t bytes_in = payload.size();
  ProcessResult run = run_process({
      .program = program,
      .arguments = {"run"},
      .extra_environment = {{"HOOKBUS_EVENT", std::string(event)},
                            {"HOOKBUS_SESSION_ID", context.session_id},
                            {"HOOKBUS_PROJECT_DIR", hook.project_dir.string()},
                            {"HOOKBUS_HOOK_NAME", hook.name}},
      .working_directory = working_directory_for(hook, context),
      .input = std::move(payload),
      .timeout = hook.timeout,
      .stop = std::move(stop),
      .detached_may_outlive = hook.detached_processes == DetachedProcesses::allow,
  });
  detail::log_hook_run(hook.name, hook.path, event, bytes_in, run);
  return run;
}

template <class E>
boost::json::object hook_payload_for(const ExternalHook& hook, const E& event, std::string_view requested_name) {
  boost::json::object payload = hook_payload_of(event, requested_name);
  // An event without a cwd of its own (user_bash has one) runs in the project: its cwd says so.
  constexpr bool own_cwd = requires(const E& e) { e.cwd; };
  if (!own_cwd && payload.at("cwd").as_string().empty())
    payload["cwd"] = (hook.project_dir.empty() ? std::filesystem::current_path() : hook.project_dir).string();
  if (!hook.workspace.empty() && event.context.workspace.empty())
    payload.at("context").as_object()["workspace"] = hook.workspace;
  // A resume: what the person answered to this hook's asks (docs/external-hooks.md).
  if (boost::json::object answers = answers_to_asking_handler(); !answers.empty())
    payload["approval_answers"] = std::move(answers);
  return payload;
}

template <class E>
ProcessResult run_hook(const ExternalHook& hook, const E& event, std::string_view requested_name, std::stop_token stop) {
  return run_payload(hook, write_json(hook_payload_for(hook, event, requested_name)), event_name(event_index<E>),
                     event.context, std::move(stop));
}

template <class E>
HookAnswer<E> answer_of(const ExternalHook& hook, const ProcessResult& run) {
  if (triage_run(hook.path.string(), run, hook.timeout) == RunEnd::exit_code_2) return refusal_by_exit_code<E>(hook, run);
  return answer_on_stdout<E>(hook, run);
}

namespace {
[[gnu::used]] constexpr auto hook_runs_instantiated = addresses_for<HookEvent>(
    []<class E>(std::type_identity<E>) { return std::tuple{&hook_payload_for<E>, &run_hook<E>, &answer_of<E>}; });
}  // namespace

}  // namespace detail

boost::json::object hook_payload(const HookEvent& event, std::string_view requested_name) {
  return std::visit([&](const auto& alternative) { return detail::hook_payload_of(alternative, requested_name); }, event);
}

ProcessResult run_external_hook(const ExternalHook& hook, const HookEvent& event, std::string_view requested_name,
                                std::stop_token stop) {
  return std::visit([&]<class E>(const E& e) { return detail::run_hook(hook, e, requested_name, std::move(stop)); },
                    event);
}

HookOutcome hook_outcome(const ExternalHook& hook, const HookEvent& event, const ProcessResult& run) {
  return std::visit(
      [&]<class E>(const E&) { return detail::outcome_of<E>([&] { return detail::answer_of<E>(hook, run); }); }, event);
}

HookOutcome call_external_hook(const ExternalHook& hook, const HookEvent& event, std::string_view requested_name) {
  return hook_outcome(hook, event, run_external_hook(hook, event, requested_name, emit_stop_token()));
}

HookDirectories hook_directories(const Config& config) {
  return default_hook_directories(config.project_dir.empty() ? fs::current_path() : config.project_dir,
                                  config.hook_directories);
}

}  // namespace hookbus
