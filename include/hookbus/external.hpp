#pragma once
// The external-hook runner: a discovered hook executable (discovery.hpp)
// registered on the bus as a by-name handler, so ordering, deny-fast,
// accumulation, patch chaining and failure policies are the bus's own.
// docs/external-hooks.md is the protocol for hook authors.
//
// setup.hpp does all of it (layers, trust, discovery, installation) in one
// call; the pieces are here for engines that assemble their own:
//
//   auto report = hookbus::discover_hooks(directories, options);
//   auto installed = hookbus::install_external_hooks(hooks, report, layered_config, {.project_dir = project_dir});
//   installed.report ...  // what was installed, left out, refusing, and warnings
//
// One call of a hook run per event (the default mode; persistent hooks
// answer `HOOK serve` requests instead, docs/external-hooks.md): `HOOK run`,
// with the event as one JSON document on stdin
// (hook_payload), the environment plus HOOKBUS_EVENT, HOOKBUS_SESSION_ID,
// HOOKBUS_PROJECT_DIR and HOOKBUS_HOOK_NAME, and as working directory the
// event's cwd (else the hook's project directory, when either is a directory).
// Then, by exit status:
//   0, empty stdout      no change (so is a JSON null);
//   0, JSON on stdout    the event's result, read leniently (kodelet's field
//                        names accepted);
//   2                    a refusal, with stderr as the reason, on events that
//                        can be refused (block, cancel, reject, deny); a
//                        failure on any other event;
//   anything else        a failure, as are a timeout, invalid JSON and stdout
//                        over its cap.
// A failure is an ExternalHookError thrown from the handler: the bus logs it,
// reports it to on_handler_error listeners and applies the hook's failure policy.

#include <hookbus/background.hpp>
#include <hookbus/claude_code.hpp>
#include <hookbus/config.hpp>
#include <hookbus/connection.hpp>
#include <hookbus/discovery.hpp>
#include <hookbus/errors.hpp>
#include <hookbus/events.hpp>
#include <hookbus/external_hook_error.hpp>
#include <hookbus/external_install.hpp>
#include <hookbus/hooks.hpp>
#include <hookbus/process.hpp>
#include <hookbus/trust.hpp>

#include <boost/json/object.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <stop_token>
#include <vector>
#include <string>
#include <string_view>

namespace hookbus {

// How to run one external hook.
struct ExternalHook {
  std::string name{};  // the bus label: "guard", "acme/tools/guard"
  std::filesystem::path path{};
  Duration timeout = std::chrono::seconds(30);
  // HOOKBUS_PROJECT_DIR, and the working directory when the event's cwd is
  // empty or missing. Empty: neither.
  std::filesystem::path project_dir{};
  // The workspace that loaded the hook (workspace.hpp): its payload's
  // context.workspace when the event carries none. Empty: not a workspace's.
  std::string workspace{};
  // What becomes of the processes a run leaves running, fully detached, once
  // the hook exits on its own: they go on (allow) or are killed with the run.
  DetachedProcesses detached_processes = DetachedProcesses::allow;
};

// What `HOOK run` reads on stdin: the catalogue JSON of the event (with its
// "type") plus, for hooks written for kodelet and others, `hook_event_name`
// (our wire name), `event` (the name the hook asked for, perhaps an alias),
// `conv_id`, `cwd` and `invoked_by` (from the context) and kodelet's
// `tool_input`, `tool_user_id`, `tool_output`, `message`, `turn_number` and
// `response`. A key the event itself has is never overwritten (user_bash's
// own `cwd` stays), but `messages` of agent_end asked for as kodelet's
// `agent_stop`, which is kodelet's: {role, content} with content a string.
// A hook run (run_external_hook) gets the hook's project directory as `cwd`
// when the event's is empty.
boost::json::object hook_payload(const HookEvent& event, std::string_view requested_name);

// Runs `HOOK run` once for the event and returns what happened, whatever it
// was; a stop request ends the run (`cancelled`). Throws ProcessError when the
// hook cannot be started.
ProcessResult run_external_hook(const ExternalHook& hook, const HookEvent& event, std::string_view requested_name,
                                std::stop_token stop = {});

// What a finished run means for the event it ran for: the event's result
// (monostate for no change) or, for a failure, ExternalHookError.
HookOutcome hook_outcome(const ExternalHook& hook, const HookEvent& event, const ProcessResult& run);

// run_external_hook, then hook_outcome: what the bus calls. The run stops
// when this thread's emit stop token is requested (hooks.hpp, emit_stop_token()).
HookOutcome call_external_hook(const ExternalHook& hook, const HookEvent& event, std::string_view requested_name);

// `config.hook_directories`, then the default directories of
// `config.project_dir` (the current directory when empty).
HookDirectories hook_directories(const Config& config);

// Registers each discovered hook for each event it asked for, in the report's
// order, labelled with its name, with the settings `config` resolves for its
// layer (timeout, failure policy, tools; hooks disabled or forbidden by
// `disable_all_hooks` / `allow_managed_hooks_only` are left out). A hook that
// config makes fail_closed but that is missing, refused, ignored or untrusted
// makes its events (declared ones, else every gating event) refuse with the
// reason, instead of silently allowing them. A config entry that changes
// nothing (no such hook, or a hook of a layer its file may not change) is a
// warning naming the file and the setting. Hooks run with `project_dir` as
// HOOKBUS_PROJECT_DIR (empty: the current directory). Hooks are installed
// layer by layer (managed, user, project, local), each layer's Claude Code
// hooks after its hookbus-protocol ones. A hook config makes persistent
// ("mode") gets its instances, started now or with its first event ("start");
// an async one ("async", and Claude Code's async commands) runs on the
// installation's background pool (`options.background`). Dropping the group
// unregisters them all; the persistent hooks' instances and the pool end
// once their last handler is gone (docs/external-hooks.md).
struct InstalledHooks {
  ConnectionGroup connections{};
  InstallReport report{};
  BackgroundRuns background{};  // the async hooks' runs
};
InstalledHooks install_external_hooks(Hooks& hooks, const DiscoveryReport& report, const LayeredConfig& config,
                                      const ExternalInstallOptions& options);
// One config file's worth: `config` as the only layer.
ConnectionGroup install_external_hooks(Hooks& hooks, const DiscoveryReport& report, const Config& config);

}  // namespace hookbus
