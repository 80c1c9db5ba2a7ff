// An engine's lines written against the names hookbus renamed (0.1.0's that
// 0.2.0 renamed, 0.2.0's that 0.3.0 renamed), compiled against today's headers
// (test/deprecated_names_test.cmake, CTest deprecated_names_*): it must
// compile and run as it did, and each old name must be a deprecation warning
// that names its replacement.
//
// Every renamed name that keeps a deprecated alias (CHANGELOG.md, "Deprecated")
// is used here once, and listed on a line of its own:
//   deprecated: OLD -> REPLACEMENT
// The test expects, for each, a warning on a line that names OLD and says
// "is deprecated: use REPLACEMENT". A rename that keeps an alias adds a use and
// a line; removing an alias (0.3.0, 0.4.0) removes both.
//
// deprecated: HookOverride -> hookbus::HookSettings
// deprecated: on_error -> hookbus::Hooks::on_handler_error
// deprecated: discover_hooks -> discover_hooks(directories, {.query_timeout = timeout})
// deprecated: HookError -> hookbus::HandlerFailure
// deprecated: SubagentStatus -> hookbus::RunStatus
#include <hookbus/hookbus.hpp>

#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdio>
#include <stdexcept>

namespace {

int failures = 0;

void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "FAILED: %s\n", what);
    ++failures;
  }
}

}  // namespace

int main() {
  hookbus::logger()->set_level(spdlog::level::off);  // the throwing handler below is expected
  hookbus::Hooks hooks;

  // Hooks::on_error, with a listener of 0.2.0's HookError: still hears a handler's failure.
  int heard = 0;
  const hookbus::Connection listener = hooks.on_error([&](const hookbus::HookError& error) {
    check(error.handler == "thrower" && error.message == "boom", "on_error gets the failing handler and its message");
    ++heard;
  });
  const hookbus::Connection thrower = hooks.on<hookbus::AgentStartEvent>(
      [](const hookbus::AgentStartEvent&) { throw std::runtime_error("boom"); }, {.label = "thrower"});
  hooks.emit(hookbus::AgentStartEvent{});
  check(heard == 1, "on_error heard the handler's failure once");

  // HookOverride: a hook's settings in a Config, as 0.1.0 wrote them. (A
  // declaration: g++ 12 does not warn about a deprecated alias in a temporary,
  // `HookOverride{...}`, though clang does.)
  const hookbus::HookOverride settings{
      .timeout = std::chrono::seconds(5), .failure = hookbus::FailurePolicy::fail_closed, .disabled = true};
  hookbus::Config config;
  config.hooks["guard"] = settings;
  const hookbus::HookSettings& guard = config.hooks.at("guard");
  check(guard.timeout == std::chrono::seconds(5), "HookOverride's timeout");
  check(guard.failure == hookbus::FailurePolicy::fail_closed, "HookOverride's failure policy");
  check(guard.disabled.value_or(false), "HookOverride's disabled");

  // discover_hooks(directories, timeout): a directory that does not exist has no hooks and is no error.
  hookbus::HookDirectories directories;
  directories.add("/nonexistent/hookbus-deprecated-names/hooks", "test");
  const hookbus::DiscoveryReport report = hookbus::discover_hooks(directories, std::chrono::seconds(1));
  check(report.hooks.empty() && report.skipped.empty(), "discover_hooks with a timeout finds nothing where nothing is");

  // SubagentStatus, 0.2.0's name of why a subagent's run ended: subagent_end's status.
  const hookbus::SubagentStatus failed = hookbus::SubagentStatus::failed;
  check(hookbus::SubagentEndEvent{.status = failed}.status == hookbus::RunStatus::failed, "SubagentStatus's values");

  if (failures == 0) std::puts("the old names still work");
  return failures == 0 ? 0 : 1;
}
