// The external-hook installer (include/hookbus/external.hpp,
// install_external_hooks): each discovered hook and each Claude Code command
// registered on the bus with the settings its layers give it, layer by layer;
// what config asks that changes nothing is a warning, and a fail-closed hook
// that cannot run refuses in its place.
#include <hookbus/external.hpp>
#include <hookbus/json.hpp>
#include <hookbus/log.hpp>
#include <hookbus/names.hpp>
#include <hookbus/tool_matcher.hpp>

#include "external/hook_run.hpp"
#include "external/start_check.hpp"
#include "external/persistent.hpp"
#include "bus/run_ahead.hpp"
#include "formats/claude_code/command_files.hpp"
#include "formats/claude_code/installer.hpp"
#include "formats/hook_format.hpp"
#include "process/http_run.hpp"
#include "process/background.hpp"
#include "support/logging.hpp"
#include "support/utf8.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <memory>
#include <utility>
#include <variant>

namespace hookbus {
namespace {

namespace fs = std::filesystem;

bool is_gating_event(std::size_t index) {
  return std::visit([]<class E>(const E&) { return is_gating(reduction_of<E>); }, make_event(index));
}

// The wire names of every gating event: what a fail-closed hook of unknown events refuses.
std::vector<std::size_t> gating_events() {
  std::vector<std::size_t> indexes;
  for (std::size_t i = 0; i < event_count; ++i)
    if (is_gating_event(i)) indexes.push_back(i);
  return indexes;
}

std::string describe_location(const ConfigLocation& where) {
  return where.file.empty() ? where.path : fmt::format("{}: {}", where.file.string(), where.path);
}

// The keys a hooks.NAME entry sets, as the file names them.
std::vector<std::string_view> keys_set(const HookSettings& entry) {
  std::vector<std::string_view> keys;
  if (entry.timeout) keys.emplace_back("timeout_ms");
  if (entry.failure) keys.emplace_back("failure");
  if (entry.disabled) keys.emplace_back("disabled");
  if (entry.protocol) keys.emplace_back("protocol");
  if (!entry.events.empty()) keys.emplace_back("events");
  if (!entry.matcher.empty()) keys.emplace_back("matcher");
  if (!entry.tools.empty()) keys.emplace_back("tools");
  if (entry.mode) keys.emplace_back("mode");
  if (entry.instances) keys.emplace_back("instances");
  if (entry.start) keys.emplace_back("start");
  if (entry.async) keys.emplace_back("async");
  if (entry.sequential) keys.emplace_back("sequential");
  return keys;
}

class Installer {
 public:
  Installer(Hooks& hooks, const DiscoveryReport& report, const LayeredConfig& config, const ExternalInstallOptions& options)
      : hooks_(hooks),
        report_(report),
        config_(config),
        options_(options),
        project_dir_(options.project_dir.empty() ? fs::current_path() : options.project_dir),
        background_(std::make_shared<detail::BackgroundPool>(options.background)) {}

  InstalledHooks run() && {
    for (const Layer layer : all_layers) {
      std::vector<ClaudeCodeCommand> claude;
      for (const auto& found : report_.hooks)
        if (found.layer == layer) install(found, claude);
      for (const auto& command : options_.claude_code)
        if (command.layer == layer) install(command, claude);
      install_format_commands(layer, claude);
      if (const Config* writer = config_.layer(layer))
        for (const auto& [name, entry] : writer->hooks)
          if (!entry.url.empty()) install_http(*writer, name, entry);
    }
    for (const Config& layer : config_.layers())
      for (const auto& [name, settings] : layer.hooks) check_entry(layer, name, settings);
    note_same_names();
    note_overruled_detached_processes();
    return {std::move(installed_), std::move(what_), background_->runs()};
  }

 private:
  // A hook file found in a hook directory; one of a format's protocol
  // ("claude_code") joins its layer's commands of that format.
  void install(const DiscoveredHook& found, std::vector<ClaudeCodeCommand>& claude) {
    const ResolvedHookSettings settings = config_.hook_settings(found.layer, found.name);
    const auto not_installed = [&](std::string reason) {
      std::vector<std::string> events = found.declared_events;
      if (detail::find_hook_format(found.protocol) == nullptr) {
        events.clear();
        for (const auto& event : found.events) events.emplace_back(event_name(event.index));
      }
      what_.not_installed.push_back(
          {found.name, found.layer, found.path, std::move(reason), found.protocol, std::move(events), "", found.source});
    };
    if (auto forbidden = config_.hooks_forbidden(found.layer)) return not_installed(*forbidden);
    if (settings.disabled.value)
      return not_installed("disabled by " + describe_location(settings.disabled.origin));
    if (const detail::HookFormat* format = detail::find_hook_format(found.protocol)) {
      for (auto& command : detail::hook_file_commands(*format, found, settings, trusted_files(found.layer))) {
        // Config's "sequential" is the format's own flag: one after another, at its turn.
        if (settings.sequential.value.value_or(false)) command.sequential = true;
        if (command.async)
          check_async(found.name, describe_location(settings.async.origin),
                      detail::event_targets(*format, command.event));
        claude.push_back(std::move(command));
      }
      if (settings.mode.value == HookMode::persistent)
        warn(fmt::format("{}: hook '{}' is a {} hook, which runs once per event, so this changes nothing",
                         describe_location(settings.mode.origin), found.name, hook_protocol_name(found.protocol)));
      else
        check_mode(found.name, settings);
      what_.installed.push_back({found.name, found.layer, found.path, found.declared_events, settings, found.protocol,
                                 settings.matcher.value, "", found.source});
      return;
    }
    const auto run = runner(ExternalHook{.name = found.name,
                                         .path = found.path,
                                         .timeout = settings.timeout.value,
                                         .project_dir = project_dir_,
                                         .workspace = options_.workspace,
                                         .detached_processes = detached_processes(found.layer)},
                            settings, trusted_files(found.layer), options_.persistent_shutdown_grace);
    const HandlerOptions options{.label = found.name,
                                 .failure = settings.failure.value,
                                 .kind = HandlerKind::external,
                                 .source = found.path.string(),
                                 .layer = found.layer,
                                 .protocol = std::string(hook_protocol_name(found.protocol))};
    InstallReport::Installed record{found.name, found.layer, found.path, {}, settings, found.protocol, "", "",
                                    found.source};
    bool filters_a_tool_event = false;
    std::vector<std::size_t> events;
    for (const auto& requested : found.events) {
      // The tool filter applies where the event names a tool; other events always run the hook.
      HandlerOptions event_options = options;
      if (has_tool_name(requested.index)) {
        event_options.tools = settings.tools.value;
        filters_a_tool_event = true;
      }
      installed_.add(connect(requested.index, run, found.name, requested.name,
                             timing(found.protocol, settings, *run, requested.index), std::move(event_options)));
      record.events.emplace_back(event_name(requested.index));
      events.push_back(requested.index);
    }
    if (!settings.tools.value.empty() && !filters_a_tool_event)
      warn(fmt::format("{}: hook '{}' handles no event that names a tool, so \"tools\" changes nothing",
                       describe_location(settings.tools.origin), found.name));
    check_mode(found.name, settings);
    if (settings.async.value) check_async(found.name, describe_location(settings.async.origin), events);
    check_sequential(found.name, settings);
    what_.installed.push_back(std::move(record));
  }

  // An HTTP hook a config file declares (HookSettings::url): its events'
  // handlers, of the file's layer, POST the hookbus payload to its URL. One
  // to an origin no config allows is installed, and each of its runs fails
  // (a fail-closed guard refuses): said now, with how to allow it.
  void install_http(const Config& writer, const std::string& name, const HookSettings& entry) {
    const ResolvedHookSettings settings = config_.hook_settings(writer.layer, name);
    const std::string source = describe_location(entry.location.key("url"));
    const std::string command = "POST " + entry.url;
    http_hooks_.push_back({name, writer.layer});
    if (auto forbidden = config_.hooks_forbidden(writer.layer); forbidden || settings.disabled.value) {
      what_.not_installed.push_back(
          {name, writer.layer, {}, forbidden ? *forbidden : "disabled by " + describe_location(settings.disabled.origin),
           HookProtocol::hookbus, entry.events, command, source});
      return;
    }
    if (auto why = detail::origin_refusal(detail::parse_http_url(entry.url), network_allowance()))
      warn(fmt::format("HTTP hook '{}' ({}) cannot run: {}", name, source, *why));
    if (!http_client_)
      http_client_ = std::make_shared<detail::HttpClient>(detail::HttpClientOptions{.allowance = network_allowance()});
    const auto run = std::make_shared<HookRun>(
        ExternalHook{.name = name,
                     .path = entry.url,
                     .timeout = settings.timeout.value,
                     .project_dir = project_dir_,
                     .workspace = options_.workspace,
                     .detached_processes = DetachedProcesses::allow},
        HttpService{http_client_, {.url = entry.url, .headers = entry.headers, .allowed_env_vars = entry.allowed_env_vars}});
    const HandlerOptions options{.label = name,
                                 .failure = settings.failure.value,
                                 .kind = HandlerKind::external,
                                 .source = source,
                                 .layer = writer.layer,
                                 .protocol = std::string(hook_protocol_name(HookProtocol::hookbus))};
    std::vector<std::size_t> events;
    for (const auto& requested : entry.events) {
      const std::size_t index = *find_event(requested);  // read_hook_settings checked the names
      HandlerOptions event_options = options;
      if (has_tool_name(index)) event_options.tools = settings.tools.value;
      installed_.add(connect(index, run, name, requested, timing(HookProtocol::hookbus, settings, *run, index),
                             std::move(event_options)));
      events.push_back(index);
    }
    if (settings.async.value) check_async(name, describe_location(settings.async.origin), events);
    what_.installed.push_back(
        {name, writer.layer, {}, entry.events, settings, HookProtocol::hookbus, "", command, source});
  }

  // What the runs of `layer`'s hooks leave running becomes: the engine's
  // choice, or a stricter one of a layer that governs it.
  DetachedProcesses detached_processes(Layer layer) const {
    return config_.detached_processes(layer, options_.detached_processes).value;
  }

  // A layer's `detached_processes` looser than what is in force for its own
  // hooks changes nothing: config may make it stricter, never looser.
  void note_overruled_detached_processes() {
    for (const Config& writer : config_.layers()) {
      if (!writer.detached_processes) continue;
      const Sourced<DetachedProcesses> in_force = config_.detached_processes(writer.layer, options_.detached_processes);
      if (*writer.detached_processes >= in_force.value) continue;
      warn(fmt::format("{}: detached_processes: \"{}\" is looser than \"{}\", in force for the {} layer's hooks "
                       "(from {}), so it is ignored: config may make it stricter, never looser",
                       writer.file.string(), detached_processes_name(*writer.detached_processes),
                       detached_processes_name(in_force.value), layer_name(writer.layer),
                       in_force.origin.file.empty() ? "the engine" : in_force.origin.file.string()));
    }
  }

  // The trusted project's files for a hook of `layer`, or null when its runs need no check.
  std::shared_ptr<const TrustedFiles> trusted_files(Layer layer) const {
    return is_project_layer(layer) ? options_.trusted_project : nullptr;
  }

  // One run of the hook for an event, typed: `HOOK run`, or a request to its
  // persistent instances, which the handlers of all its events share. The
  // hook's file is checked first, every run (detail::why_not_start): one
  // that others could write by now, or a project file that changed since it
  // was trusted, fails instead (and a persistent hook's running instance is
  // asked nothing).
  // An HTTP hook's service: the client its runs share, and its request.
  struct HttpService {
    std::shared_ptr<detail::HttpClient> client;
    detail::HttpHookRequest request;
  };

  class HookRun : public std::enable_shared_from_this<HookRun> {
   public:
    HookRun(ExternalHook hook, std::unique_ptr<detail::PersistentHook> persistent,
            std::shared_ptr<const TrustedFiles> trusted)
        : hook_(std::move(hook)), persistent_(std::move(persistent)), trusted_(std::move(trusted)) {}
    // An HTTP hook: its `hook.path` is its URL, which its failures name.
    HookRun(ExternalHook hook, HttpService service) : hook_(std::move(hook)), service_(std::move(service)) {}

    template <class E>
    detail::HookAnswer<E> operator()(const E& event, std::string_view requested_name, std::stop_token stop) const {
      if (service_)
        return detail::answer_of<E>(
            hook_, post(write_json(detail::hook_payload_for(hook_, event, requested_name)), std::move(stop)));
      if (auto why = detail::why_not_start(hook_.path, trusted_.get())) throw ExternalHookError(detail::valid_utf8(*why));
      if (persistent_) return persistent_->call(event, requested_name, std::move(stop));
      return detail::answer_of<E>(hook_, detail::run_hook(hook_, event, requested_name, std::move(stop)));
    }

    // The same run of a one-process-per-run hook, prepared on the emitting
    // thread to start ahead of its turn (bus/run_ahead.hpp): the payload is
    // made now, the file checked and run on the run's thread, the answer read
    // at the handler's turn.
    template <class E>
    detail::AheadWork<E> ahead(const E& event, std::string_view requested_name) const {
      return [self = shared_from_this(), payload = write_json(detail::hook_payload_for(hook_, event, requested_name)),
              context = event.context](std::stop_token stop) mutable -> detail::ReadAnswer<E> {
        ProcessResult run;
        if (self->service_) {
          run = self->post(std::move(payload), std::move(stop));
        } else {
          if (auto why = detail::why_not_start(self->hook_.path, self->trusted_.get()))
            throw ExternalHookError(detail::valid_utf8(*why));
          run = detail::run_payload(self->hook_, std::move(payload), event_name(event_index<E>), context,
                                    std::move(stop));
        }
        return [self = std::move(self), run = std::move(run)] { return detail::answer_of<E>(self->hook_, run); };
      };
    }
    [[nodiscard]] bool one_process_per_run() const noexcept { return persistent_ == nullptr; }

   private:
    // The HTTP hook's run: the response's body as a hook file's stdout.
    ProcessResult post(std::string payload, std::stop_token stop) const {
      try {
        return detail::post_hook_payload(*service_->client, service_->request, std::move(payload), hook_.timeout,
                                         std::move(stop));
      } catch (const Error& error) {
        throw ExternalHookError(detail::valid_utf8(fmt::format("HTTP hook '{}': {}", hook_.name, error.what())));
      }
    }

    ExternalHook hook_;
    std::unique_ptr<detail::PersistentHook> persistent_;  // null: one process per run
    std::shared_ptr<const TrustedFiles> trusted_;
    std::optional<HttpService> service_;  // an HTTP hook's; then there is no file to check or start
  };

  static std::shared_ptr<HookRun> runner(const ExternalHook& hook, const ResolvedHookSettings& settings,
                                               std::shared_ptr<const TrustedFiles> trusted, Duration shutdown_grace) {
    std::unique_ptr<detail::PersistentHook> persistent;
    if (settings.mode.value == HookMode::persistent) {
      // An eager start runs the file now, so it is checked first; one that
      // may not run starts nothing (its runs fail).
      const bool eager = settings.start.value == HookStart::eager && !detail::why_not_start(hook.path, trusted.get());
      persistent = std::make_unique<detail::PersistentHook>(
          hook, detail::PersistentOptions{
                    .instances = settings.instances.value, .eager = eager, .shutdown_grace = shutdown_grace});
    }
    return std::make_shared<HookRun>(hook, std::move(persistent), std::move(trusted));
  }

  // When a hook's run of an event happens, relative to the emit's other handlers.
  enum class Timing {
    at_its_turn,    // after the handlers before it answered
    may_run_ahead,  // started with the emit's other external hooks, answer read at its turn (bus/run_ahead.hpp)
    background,     // async: the emit does not wait
  };

  // Its config's "async", then "sequential"; unset, the protocol's default
  // (docs/semantics.md §16): a kodelet hook runs at its turn on a gating
  // event, since kodelet runs no hook after one that refused and kodelet
  // hooks may count on it; every other may run ahead. A persistent hook's
  // instances serve one request at a time each, so it runs at its turn.
  static Timing timing(HookProtocol protocol, const ResolvedHookSettings& settings, const HookRun& run,
                       std::size_t event) {
    if (settings.async.value) return Timing::background;
    if (!run.one_process_per_run()) return Timing::at_its_turn;
    const bool sequential = settings.sequential.value.value_or(protocol == HookProtocol::kodelet &&
                                                                 is_gating_event(event));
    return sequential ? Timing::at_its_turn : Timing::may_run_ahead;
  }

  // The bus handler of the event at `index`, typed for it: E is found once,
  // here, from a table over the events.
  Connection connect(std::size_t index, std::shared_ptr<const HookRun> run, const std::string& name,
                     const std::string& requested_name, Timing timing, HandlerOptions options) {
    using Connect = Connection (Installer::*)(std::shared_ptr<const HookRun>, const std::string&, const std::string&,
                                              Timing, HandlerOptions);
    // Named in a pack, not through detail::event_table's generic lambda:
    // clang then instantiates none of connect_typed and refuses the table.
    static constexpr auto connectors = []<std::size_t... I>(std::index_sequence<I...>) {
      return std::array<Connect, sizeof...(I)>{&Installer::connect_typed<std::variant_alternative_t<I, HookEvent>>...};
    }(std::make_index_sequence<event_count>{});
    return (this->*connectors[index])(std::move(run), name, requested_name, timing, std::move(options));
  }

  // The run under the emit's stop token, also prepared to run ahead when it
  // may; or, for an async hook, the run handed to the background pool (the
  // emit goes on; the answer is ignored, a failure logged).
  template <class E>
  Connection connect_typed(std::shared_ptr<const HookRun> run, const std::string& name,
                           const std::string& requested_name, Timing timing, HandlerOptions options) {
    if (timing == Timing::may_run_ahead)
      return detail::connect_running_ahead<E>(
          hooks_, [run, requested_name](const E& event) { return (*run)(event, requested_name, emit_stop_token()); },
          [run, requested_name](const E& event) { return run->ahead(event, requested_name); }, std::move(options));
    if (timing == Timing::at_its_turn)
      return hooks_.on<E>([run = std::move(run), requested_name](const E& event) {
        return (*run)(event, requested_name, emit_stop_token());
      }, std::move(options));
    return hooks_.on<E>(
        [run = std::move(run), name, requested_name, pool = background_](const E& event) -> detail::HookAnswer<E> {
          pool->submit(fmt::format("hook '{}' on '{}'", name, E::type),
                       [run, name, requested_name, event](std::stop_token stop) {
                         try {
                           (void)(*run)(event, requested_name, std::move(stop));
                         } catch (const std::exception& error) {
                           detail::log(spdlog::level::warn, "background hook '{}' failed on '{}': {}", name, E::type,
                                       error.what());
                         }
                       });
          return detail::HookAnswer<E>();
        },
        std::move(options));
  }

  // Persistent-only settings on a hook that is not persistent change nothing.
  void check_mode(const std::string& name, const ResolvedHookSettings& settings) {
    if (settings.mode.value == HookMode::persistent) return;
    for (const ConfigLocation* origin : {&settings.instances.origin, &settings.start.origin})
      if (!origin->path.empty())
        warn(fmt::format("{}: hook '{}' is not persistent (\"mode\": \"persistent\"), so this changes nothing",
                         describe_location(*origin), name));
  }

  // "sequential" on a hook that never runs ahead, persistent or async, changes nothing.
  void check_sequential(const std::string& name, const ResolvedHookSettings& settings) {
    if (!settings.sequential.value) return;
    const char* why = settings.async.value ? "async (the emit does not wait for it)"
                      : settings.mode.value == HookMode::persistent
                          ? "persistent (its instances serve one request at a time, so it runs at its turn)"
                          : nullptr;
    if (why != nullptr)
      warn(fmt::format("{}: hook '{}' is {}: \"sequential\" changes nothing",
                       describe_location(settings.sequential.origin), name, why));
  }

  // A background hook's answer is ignored: on a gating event it can refuse nothing.
  // `where`: the config entry or settings entry that makes it async.
  void check_async(const std::string& name, const std::string& where, const std::vector<std::size_t>& events) {
    std::vector<std::string_view> gating;
    for (const std::size_t index : events)
      if (is_gating_event(index)) gating.push_back(event_name(index));
    if (!gating.empty())
      warn(fmt::format("{}: hook '{}' is async, so its answer is ignored: on {} it can refuse nothing (a guard "
                       "must not be async)",
                       where, name, fmt::join(gating, ", ")));
  }

  // A command of a Claude Code settings file or plugin. The files it names
  // get the hook files' checks (docs/security.md, "File checks"), as
  // discovery gives them: one that fails them is refused, with a warning.
  void install(const ClaudeCodeCommand& command, std::vector<ClaudeCodeCommand>& claude) {
    const auto not_installed = [&](const std::string& reason) {
      what_.not_installed.push_back({command.label, command.layer, command.program, reason + " (" + command.source + ")",
                                     command.protocol, {command.event}, detail::command_line(command), command.source});
    };
    if (auto forbidden = config_.hooks_forbidden(command.layer)) return not_installed(*forbidden);
    for (const auto& file : claude_code_named_files(command, project_dir_)) {
      if (auto why = detail::unsafe_path_reason(file)) {
        warn(fmt::format("{} hook {} ({}) refused: {}", format_of(command).agent, command.label, command.source, *why));
        return not_installed("refused: " + *why);
      }
    }
    // An HTTP handler to an origin no more trusted config allows is
    // installed, and each of its runs fails (a fail-closed guard refuses):
    // said now, with how to allow it.
    if (!command.url.empty())
      if (auto why = detail::origin_refusal(detail::parse_http_url(command.url), network_allowance()))
        warn(fmt::format("{} hook {} ({}) cannot run: {}", format_of(command).agent, command.label, command.source, *why));
    claude.push_back(command);
    claude.back().trusted = trusted_files(command.layer);
    if (command.async)
      check_async(command.label, command.source, detail::event_targets(format_of(command), command.event));
    ResolvedHookSettings settings;
    settings.timeout.value = command.timeout;
    settings.async.value = command.async;
    what_.installed.push_back({command.label, command.layer, command.program, {command.event}, settings, command.protocol,
                               command.matcher, detail::command_line(command), command.source, command.if_rule,
                               command.once, command.async_rewake, command.status_message});
  }

  // A hook of a less trusted layer with the name of a more trusted layer's
  // hook: a shadowing attempt, which does not shadow: both run.
  void note_same_names() {
    for (const auto& lower : report_.hooks) {
      const auto higher = std::find_if(report_.hooks.begin(), report_.hooks.end(), [&](const DiscoveredHook& h) {
        return h.name == lower.name && static_cast<int>(h.layer) < static_cast<int>(lower.layer);
      });
      if (higher == report_.hooks.end()) continue;
      warn(fmt::format("{}: the {} layer's hook '{}' has the name of the {} layer's hook ({}); it does not replace "
                       "it: both run, the {} one first",
                       lower.path.string(), layer_name(lower.layer), lower.name, layer_name(higher->layer),
                       higher->path.string(), layer_name(higher->layer)));
    }
  }

  // A config entry about hooks of `name`: warn when it changes nothing, or
  // not every hook of that name, and stand in for a fail-closed hook that
  // cannot run.
  void check_entry(const Config& writer, const std::string& name, const HookSettings& entry) {
    if (!entry.url.empty()) return;  // an HTTP hook, installed as such
    const bool governed_exists =
        std::any_of(report_.hooks.begin(), report_.hooks.end(),
                    [&](const DiscoveredHook& h) { return h.name == name && governs(writer.layer, h.layer); }) ||
        std::any_of(http_hooks_.begin(), http_hooks_.end(),
                    [&](const auto& h) { return h.first == name && governs(writer.layer, h.second); });
    // A hook of that name the writer may not change: each key it sets is a warning naming it.
    const auto higher = std::find_if(report_.hooks.begin(), report_.hooks.end(), [&](const DiscoveredHook& h) {
      return h.name == name && !governs(writer.layer, h.layer);
    });
    // The same for an HTTP hook of a layer the writer does not govern: it stays as its own file says.
    const auto higher_http = std::find_if(http_hooks_.begin(), http_hooks_.end(), [&](const auto& h) {
      return h.first == name && !governs(writer.layer, h.second);
    });
    if (higher == report_.hooks.end() && higher_http != http_hooks_.end() && !governed_exists) {
      for (const std::string_view key : keys_set(entry))
        warn(fmt::format("{}: the {} config may not change the {} layer's HTTP hook '{}'; ignored",
                         describe_location(entry.location.key(key)), layer_name(writer.layer),
                         layer_name(higher_http->second), name));
      return;
    }
    if (higher != report_.hooks.end()) {
      for (const std::string_view key : keys_set(entry))
        warn(governed_exists
                 ? fmt::format("{}: applies to the {} layer's hook '{}' only; the {} layer's hook of that name ({}) is "
                               "unchanged: the {} config may not change it",
                               describe_location(entry.location.key(key)), layer_name(writer.layer), name,
                               layer_name(higher->layer), higher->path.string(), layer_name(writer.layer))
                 : fmt::format("{}: the {} config may not change the {} layer's hook '{}' ({}); ignored",
                               describe_location(entry.location.key(key)), layer_name(writer.layer),
                               layer_name(higher->layer), name, higher->path.string()));
      return;
    }
    if (governed_exists) return;
    const ResolvedHookSettings settings = config_.hook_settings(writer.layer, name);
    if (settings.failure.value == FailurePolicy::fail_closed && !settings.disabled.value &&
        !config_.hooks_forbidden(writer.layer))
      return refuse_in_place_of(writer.layer, name, settings, entry);
    const std::string why = why_not_found(writer.layer, name);
    warn(fmt::format("{}: no hook named '{}' was found{}{}{}", describe_location(entry.location), name,
                     why.empty() ? "" : " (", why, why.empty() ? "" : ")"));
  }

  // Installs handlers that refuse the hook's events, naming why it cannot run.
  void refuse_in_place_of(Layer writer, const std::string& name, const ResolvedHookSettings& settings,
                          const HookSettings& entry) {
    std::vector<std::size_t> events;
    for (const auto& declared : settings.events.value)
      if (auto index = find_event(declared)) events.push_back(*index);
    if (events.empty()) events = gating_events();
    // The bus names the hook when it refuses ("hook 'guard' failed: ..."), and so does `hookctl list`.
    std::string why = why_not_found(writer, name);
    if (why.empty()) why = "no hook file of that name is in any hook directory";
    const std::string reason = fmt::format("it cannot run, and config makes it fail closed ({}): {}",
                                           describe_location(settings.failure.origin), why);
    InstallReport::Refusing record{name, {}, reason};
    for (const std::size_t index : events) {
      installed_.add(hooks_.on(
          event_name(index), [reason](const HookEvent&) -> HookOutcome { throw ExternalHookError(reason); },
          {.label = name,
           .failure = FailurePolicy::fail_closed,
           .kind = HandlerKind::external,
           .source = describe_location(entry.location)}));
      record.events.emplace_back(event_name(index));
    }
    detail::log(spdlog::level::warn, "hook '{}': {} (config: {})", name, reason, describe_location(entry.location));
    what_.refusing.push_back(std::move(record));
  }

  // Why no hook `name` of a layer `writer` governs runs, from what discovery
  // skipped: the file itself, else the refused hook directories it may be in;
  // "" when discovery skipped nothing that explains it.
  std::string why_not_found(Layer writer, const std::string& name) const {
    for (const auto& skipped : report_.skipped)
      if (skipped.name == name && skipped.why != SkippedFile::Why::shadowed && governs(writer, skipped.layer))
        return fmt::format("{} {} ({})", skip_reason_name(skipped.why), skipped.path.string(), skipped.reason);
    std::vector<std::string> directories;
    for (const auto& skipped : report_.skipped)
      if (skipped.name.empty() && governs(writer, skipped.layer))
        directories.push_back(fmt::format("the hook directory {} was {} ({})", skipped.path.string(),
                                          skip_reason_name(skipped.why), skipped.reason));
    if (directories.empty()) return "";
    return fmt::format("no hook file of that name was found, and {}", fmt::join(directories, "; "));
  }

  void warn(std::string message) { detail::warn(what_.warnings, std::move(message)); }

  static const detail::HookFormat& format_of(const ClaudeCodeCommand& command) {
    const detail::HookFormat* format = detail::find_hook_format(command.protocol);
    return format != nullptr ? *format : detail::claude_code_format();
  }

  // A layer's commands of each Claude-Code-like format, one install per
  // format and layer, each format's sharing their runs across layers.
  void install_format_commands(Layer layer, const std::vector<ClaudeCodeCommand>& commands) {
    std::map<HookProtocol, std::vector<ClaudeCodeCommand>> by_format;
    for (const auto& command : commands) by_format[format_of(command).protocol].push_back(command);
    for (auto& [protocol, its] : by_format) {
      auto& installer = installers_[protocol];
      if (!installer)
        installer = std::make_unique<detail::ClaudeCodeInstaller>(hooks_, *detail::find_hook_format(protocol), background_);
      installed_.add(installer->install(its, format_options(protocol, layer)));
    }
  }

  // What the layer's commands of a format run with: their layer's tool names.
  ClaudeCodeOptions format_options(HookProtocol protocol, Layer layer) const {
    ClaudeCodeOptions claude = options_.claude_code_options;
    claude.project_dir = project_dir_;
    claude.network = network_allowance();
    claude.detached_processes = detached_processes(layer);
    const auto& by_layer = protocol == HookProtocol::claude_code ? options_.claude_code_tool_names
                                                                 : options_.agent_tool_names.contains(protocol)
                                                                       ? options_.agent_tool_names.at(protocol)
                                                                       : std::map<Layer, ClaudeCodeToolNames>{};
    if (const auto names = by_layer.find(layer); names != by_layer.end()) claude.tool_names = names->second;
    return claude;
  }

  Hooks& hooks_;
  const DiscoveryReport& report_;
  const LayeredConfig& config_;
  std::shared_ptr<detail::HttpClient> http_client_;  // the HTTP hooks' (made for the first)
  std::vector<std::pair<std::string, Layer>> http_hooks_;  // the HTTP hooks config declares, by name and layer
  // Where HTTP handlers may send: the engine's allowance (its
  // claude_code_options.network) and the user's and managed config's.
  NetworkAllowance network_allowance() const {
    NetworkAllowance allowance = options_.claude_code_options.network;
    const NetworkAllowance configured = config_.network_allowance();
    for (const auto& origin : configured.origins)
      if (std::find(allowance.origins.begin(), allowance.origins.end(), origin) == allowance.origins.end())
        allowance.origins.push_back(origin);
    if (allowance.ca_file.empty()) allowance.ca_file = configured.ca_file;
    return allowance;
  }
  ExternalInstallOptions options_;
  fs::path project_dir_;
  // The async hooks' pool, hookbus's and Claude Code's; their handlers hold it.
  std::shared_ptr<detail::BackgroundPool> background_;
  // Every layer's hooks of each Claude-Code-like format, sharing their runs.
  std::map<HookProtocol, std::unique_ptr<detail::ClaudeCodeInstaller>> installers_;
  InstallReport what_;
  ConnectionGroup installed_;
};

}  // namespace

InstalledHooks install_external_hooks(Hooks& hooks, const DiscoveryReport& report, const LayeredConfig& config,
                                      const ExternalInstallOptions& options) {
  return Installer(hooks, report, config, options).run();
}

ConnectionGroup install_external_hooks(Hooks& hooks, const DiscoveryReport& report, const Config& config) {
  return install_external_hooks(hooks, report, LayeredConfig({config}), {.project_dir = config.project_dir}).connections;
}

}  // namespace hookbus

