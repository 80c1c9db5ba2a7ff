// The external-hook runner's protocol: environment, one run, and reading the
// run back as the event's result or a failure. See
// include/hookbus/external.hpp; the payload and the answer are hookbus's own
// protocol's (lib/formats/kodelet/), the installer is installer.cpp.
#include <hookbus/external.hpp>
#include <hookbus/json.hpp>
#include <hookbus/names.hpp>

#include "bus/reducers.hpp"
#include "external/run_end.hpp"
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
HookOutcome refusal_by_exit_code(const ExternalHook& hook, const ProcessResult& run) {
  if constexpr (EventWithResult<E>) {
    if constexpr (is_gating(E::reduction)) {
      std::string reason = run.stderr_tail(1000);
      if (reason.empty()) reason = detail::valid_utf8(fmt::format("blocked by hook '{}' (exit code 2)", hook.name));
      return refusal_result<E>(std::move(reason));
    }
  }
  fail(hook, run, fmt::format("exit code 2 means a refusal, but '{}' cannot be refused", E::type));
}

// Exit code 0: nothing (or null), or the event's result as JSON.
template <class E>
HookOutcome result_from_stdout(const ExternalHook& hook, const HookEvent& event, const ProcessResult& run) {
  if (detail::trim(run.stdout_text).empty()) return std::monostate{};
  try {
    return detail::outcome_from_answer(event, parse_json(run.stdout_text, "stdout"));
  } catch (const JsonError& e) {
    fail(hook, run, fmt::format("printed no valid '{}' result: {}", E::type, e.what()));
  }
}

template <class E>
HookOutcome outcome_of(const ExternalHook& hook, const HookEvent& event, const ProcessResult& run) {
  if (detail::triage_run(hook.path.string(), run, hook.timeout) == detail::RunEnd::exit_code_2)
    return refusal_by_exit_code<E>(hook, run);
  return result_from_stdout<E>(hook, event, run);
}

}  // namespace

namespace detail {

// Messages and reasons are made valid UTF-8 here, where a hook's bytes (its
// stderr, its file name) enter results and errors.
void run_failed(std::string_view who, const ProcessResult& run, std::string_view what) {
  const std::string tail = run.stderr_tail();
  throw ExternalHookError(valid_utf8(fmt::format("{}: {}{}{}", who, what, tail.empty() ? "" : "; stderr: ", tail)));
}

RunEnd triage_run(std::string_view who, const ProcessResult& run, Duration timeout) {
  if (run.timed_out) run_failed(who, run, fmt::format("timed out after {} ms (its timeout)", timeout.count()));
  if (run.stdout_truncated)
    run_failed(who, run, fmt::format("printed more than its stdout limit of {} bytes", run.stdout_limit));
  if (run.exit_code == 2) return RunEnd::exit_code_2;
  if (!run.succeeded()) run_failed(who, run, run.status());
  return RunEnd::answered;
}

}  // namespace detail

ProcessResult run_external_hook(const ExternalHook& hook, const HookEvent& event, std::string_view requested_name,
                                std::stop_token stop) {
  const EventContext& context = context_of(event);
  // It starts in the event's working directory: a relative path would name
  // another file there than here, where it was named (and checked).
  std::error_code ec;
  const fs::path program = fs::absolute(hook.path, ec);
  if (ec) throw ProcessError(fmt::format("cannot run {}: {}", hook.path.string(), ec.message()));
  std::string payload = write_json(detail::hook_payload_for(hook, event, requested_name));
  const std::size_t bytes_in = payload.size();
  ProcessResult run = run_process({
      .program = program,
      .arguments = {"run"},
      .extra_environment = {{"HOOKBUS_EVENT", std::string(event_name(event))},
                            {"HOOKBUS_SESSION_ID", context.session_id},
                            {"HOOKBUS_PROJECT_DIR", hook.project_dir.string()},
                            {"HOOKBUS_HOOK_NAME", hook.name}},
      .working_directory = working_directory_for(hook, context),
      .input = std::move(payload),
      .timeout = hook.timeout,
      .stop = std::move(stop),
      .detached_may_outlive = hook.detached_processes == DetachedProcesses::allow,
  });
  detail::log_hook_run(hook.name, hook.path, event_name(event), bytes_in, run);
  return run;
}

HookOutcome hook_outcome(const ExternalHook& hook, const HookEvent& event, const ProcessResult& run) {
  return std::visit([&]<class E>(const E&) { return outcome_of<E>(hook, event, run); }, event);
}

HookOutcome call_external_hook(const ExternalHook& hook, const HookEvent& event, std::string_view requested_name) {
  return hook_outcome(hook, event, run_external_hook(hook, event, requested_name, emit_stop_token()));
}

HookDirectories hook_directories(const Config& config) {
  return default_hook_directories(config.project_dir.empty() ? fs::current_path() : config.project_dir,
                                  config.hook_directories);
}

}  // namespace hookbus
