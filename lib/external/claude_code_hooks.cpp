// Installing Claude Code command hooks on the bus: one handler per command,
// parallel runs per settings file and event, `once`, `async`, and the
// transcript hookbus keeps for hooks that read one (include/hookbus/claude_code.hpp).
#include <hookbus/claude_code.hpp>
#include <hookbus/external.hpp>
#include <hookbus/json.hpp>
#include <hookbus/log.hpp>
#include <hookbus/names.hpp>

#include "support/logging.hpp"
#include "support/files.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <limits>
#include <future>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>

namespace hookbus {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;

const EventContext& context_of(const HookEvent& event) {
  return std::visit([](const auto& e) -> const EventContext& { return e.context; }, event);
}

// ------------------------------------------------------------ transcript

// A Claude-Code-format JSONL transcript of the messages seen on the bus, one
// file per session, for hooks that read `transcript_path` (Stop hooks do).
class Transcript {
 public:
  explicit Transcript(fs::path directory, ClaudeCodeToolNames names)
      : directory_(std::move(directory)), names_(std::move(names)) {}

  void record(const MessageEndEvent& event) {
    const std::lock_guard lock(mutex_);
    std::string& parent = last_uuid_[event.context.session_id];
    const std::string uuid = fmt::format("{:016x}{:016x}", random_(), random_());
    json::object line{{"parentUuid", parent.empty() ? json::value(nullptr) : json::value(parent)},
                      {"sessionId", event.context.session_id},
                      {"cwd", event.context.cwd},
                      {"uuid", uuid},
                      {"timestamp", fmt::format("{:%Y-%m-%dT%H:%M:%S}Z", std::chrono::floor<std::chrono::milliseconds>(
                                                                              std::chrono::system_clock::now()))}};
    const Message& message = event.message;
    json::array content;
    for (const auto& part : message.content) {
      if (const auto* text = std::get_if<TextPart>(&part)) content.push_back(json::object{{"type", "text"}, {"text", text->text}});
    }
    if (message.role == Role::assistant) {
      for (const auto& call : message.tool_calls)
        content.push_back(json::object{{"type", "tool_use"}, {"id", call.id}, {"name", names_.to_claude(call.name)}, {"input", call.input}});
      line["type"] = "assistant";
      line["message"] = json::object{{"role", "assistant"}, {"content", std::move(content)}};
    } else if (message.role == Role::tool) {
      json::array result{json::object{{"type", "tool_result"}, {"tool_use_id", message.tool_call_id.value_or("")},
                                      {"content", std::move(content)}}};
      line["type"] = "user";
      line["message"] = json::object{{"role", "user"}, {"content", std::move(result)}};
    } else {
      line["type"] = message.role == Role::system ? "system" : "user";
      line["message"] = json::object{{"role", message.role == Role::system ? "system" : "user"}, {"content", std::move(content)}};
    }
    append(claude_code_transcript_path(directory_, event.context.session_id), write_json(line) + "\n");
    parent = uuid;
  }

 private:
  void append(const fs::path& file, const std::string& text) {
    std::error_code ec;
    if (!fs::is_directory(directory_, ec)) {
      fs::create_directories(directory_, ec);
      ::chmod(directory_.c_str(), 0700);
    }
    const int fd = ::open(file.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) {
      detail::log(spdlog::level::warn, "transcript {} not written: {}", file.string(), std::generic_category().message(errno));
      return;
    }
    if (::write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size()))
      detail::log(spdlog::level::warn, "transcript {} not fully written", file.string());
    ::close(fd);
  }

  fs::path directory_;
  ClaudeCodeToolNames names_;
  std::mutex mutex_;
  std::map<std::string, std::string> last_uuid_;  // per session
  std::mt19937_64 random_{std::random_device{}()};
};

// ----------------------------------------------------------------- runs

struct Shared {
  ClaudeCodeOptions options;
};

// One installed command.
struct Hook {
  ClaudeCodeCommand command;
  ClaudeCodeMatcher matcher;
  std::mutex once_mutex;
  std::set<std::string> sessions_run;  // for `once`
};

std::string matcher_value(const HookEvent& event, const ClaudeCodeToolNames& names) {
  return std::visit(
      [&]<class E>(const E& e) -> std::string {
        if constexpr (requires { e.tool_name; }) return names.to_claude(e.tool_name);
        else if constexpr (std::is_same_v<E, SessionStartEvent>)
          return std::string(claude_code_payload(event, "SessionStart", names, "", "").at("source").as_string());
        else if constexpr (std::is_same_v<E, SessionShutdownEvent>)
          return std::string(claude_code_payload(event, "SessionEnd", names, "", "").at("reason").as_string());
        else if constexpr (std::is_same_v<E, SessionBeforeCompactEvent>)
          return e.trigger == CompactTrigger::manual ? "manual" : "auto";
        else if constexpr (std::is_same_v<E, NotificationEvent>) return e.kind;
        else return "";
      },
      event);
}

bool matches(Hook& hook, const HookEvent& event, const Shared& shared) {
  if (!claude_code_event_applies(hook.command.event, event)) return false;
  return hook.matcher.matches(matcher_value(event, shared.options.tool_names));
}

// `once`: true the first time for a session, false afterwards.
bool first_run_in_session(Hook& hook, const HookEvent& event) {
  if (!hook.command.once) return true;
  const std::lock_guard lock(hook.once_mutex);
  return hook.sessions_run.insert(context_of(event).session_id).second;
}

ProcessResult run(const Hook& hook, const HookEvent& event, const Shared& shared) {
  const ClaudeCodeCommand& c = hook.command;
  const fs::path project = shared.options.project_dir.empty() ? fs::current_path() : shared.options.project_dir;
  std::string transcript = context_of(event).transcript_path;
  if (transcript.empty() && !shared.options.transcript_dir.empty())
    transcript = claude_code_transcript_path(shared.options.transcript_dir, context_of(event).session_id).string();
  std::vector<std::pair<std::string, std::string>> environment{{"CLAUDE_PROJECT_DIR", project.string()}};
  if (!c.plugin_root.empty()) environment.emplace_back("CLAUDE_PLUGIN_ROOT", c.plugin_root.string());
  ProcessSpec spec{.program = c.program.empty() ? fs::path("/bin/sh") : c.program,
                   .arguments = c.program.empty() ? std::vector<std::string>{"-c", c.command} : std::vector<std::string>{},
                   .extra_environment = std::move(environment),
                   .working_directory = project,
                   .input = write_json(claude_code_payload(event, c.event, shared.options.tool_names, transcript, project)),
                   .timeout = c.timeout};
  try {
    return run_process(spec);
  } catch (const ProcessError& error) {
    throw ExternalHookError(fmt::format("{} ({}): {}", c.label, c.source, error.what()));
  }
}

using RunOutcome = std::variant<ProcessResult, std::exception_ptr>;

// Runs `work` on a thread of its own; the future never blocks in its destructor.
template <class Work>
std::shared_future<RunOutcome> start(Work work) {
  std::promise<RunOutcome> promise;
  auto future = promise.get_future().share();
  std::thread([promise = std::move(promise), work = std::move(work)]() mutable {
    try {
      promise.set_value(work());
    } catch (...) {
      promise.set_value(std::current_exception());
    }
  }).detach();
  return future;
}

// Background runs of async hooks: at most this many at once; more are dropped, with a warning.
constexpr int kMaxBackgroundRuns = 16;
std::atomic<int> background_runs{0};

// The commands of one settings file for one Claude Code event. The first of
// them that runs in an emit starts itself and every later one that matches,
// in parallel; each then takes its own run. Identical commands run once.
class Group {
 public:
  explicit Group(std::shared_ptr<const Shared> shared) : shared_(std::move(shared)) {}
  std::size_t add(std::shared_ptr<Hook> hook) {
    members_.push_back(std::move(hook));
    return members_.size() - 1;
  }

  HookOutcome call(std::size_t index, const HookEvent& event) {
    // The members of a group are called in order within an emit (those that do
    // not match return at once), so a call at or before the last one seen on
    // this thread starts a new emit: runs left over from a chain that stopped
    // early belong to the previous one.
    thread_local std::map<std::uint64_t, ThreadState> states;
    ThreadState& state = states[id_];
    if (state.last == kNone || index <= state.last) state.slots.assign(members_.size(), Slot{});
    state.last = index;
    Hook& hook = *members_[index];
    if (!matches(hook, event, *shared_)) return std::monostate{};
    if (hook.command.async) return run_in_background(members_[index], event);
    if (state.slots[index].state == Slot::State::empty) launch(index, event, state.slots);
    const Slot slot = std::exchange(state.slots[index], Slot{});
    if (slot.state == Slot::State::duplicate) return std::monostate{};
    const RunOutcome outcome = slot.run.get();
    if (const auto* error = std::get_if<std::exception_ptr>(&outcome)) std::rethrow_exception(*error);
    return claude_code_outcome(hook.command, event, std::get<ProcessResult>(outcome), shared_->options.tool_names);
  }

 private:
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  struct Slot {
    enum class State { empty, running, duplicate };
    State state = State::empty;
    std::shared_future<RunOutcome> run;
  };
  struct ThreadState {
    std::size_t last = kNone;
    std::vector<Slot> slots;
  };

  void launch(std::size_t from, const HookEvent& event, std::vector<Slot>& slots) {
    std::set<std::pair<std::string, fs::path>> started;
    for (std::size_t i = from; i < members_.size(); ++i) {
      Hook& hook = *members_[i];
      if (hook.command.async || !matches(hook, event, *shared_)) continue;
      if (!started.emplace(hook.command.command, hook.command.program).second || !first_run_in_session(hook, event)) {
        slots[i] = {Slot::State::duplicate, {}};
        continue;
      }
      slots[i] = {Slot::State::running,
                  start([hook = members_[i], event, shared = shared_] { return RunOutcome(run(*hook, event, *shared)); })};
    }
  }

  HookOutcome run_in_background(const std::shared_ptr<Hook>& hook, const HookEvent& event) {
    if (!first_run_in_session(*hook, event)) return std::monostate{};
    if (background_runs.fetch_add(1) >= kMaxBackgroundRuns) {
      background_runs.fetch_sub(1);
      detail::log(spdlog::level::warn, "Claude Code async hook {} ({}) dropped on {}: {} background runs already", hook->command.label,
                     hook->command.source, hook->command.event, kMaxBackgroundRuns);
      return std::monostate{};
    }
    (void)start([hook, event, shared = shared_]() -> RunOutcome {
      try {
        const ProcessResult result = run(*hook, event, *shared);
        if (!result.succeeded() && result.exit_code != 2)
          detail::log(spdlog::level::warn, "Claude Code async hook {} ({}) failed: {}", hook->command.label, hook->command.source,
                         result.status());
      } catch (const std::exception& error) {
        detail::log(spdlog::level::warn, "Claude Code async hook {} failed: {}", hook->command.label, error.what());
      }
      background_runs.fetch_sub(1);
      return ProcessResult{};
    });
    return std::monostate{};
  }

  static inline std::atomic<std::uint64_t> next_id_{0};
  const std::uint64_t id_ = next_id_++;
  std::shared_ptr<const Shared> shared_;
  std::vector<std::shared_ptr<Hook>> members_;
};

}  // namespace

std::filesystem::path claude_code_transcript_path(const std::filesystem::path& transcript_dir, std::string_view session_id) {
  return transcript_dir / ((session_id.empty() ? std::string("session") : std::string(session_id)) + ".jsonl");
}

Connection record_claude_code_transcript(Hooks& hooks, const std::filesystem::path& transcript_dir,
                                         const ClaudeCodeToolNames& tool_names) {
  auto transcript = std::make_shared<Transcript>(transcript_dir, tool_names);
  return hooks.on<MessageEndEvent>([transcript](const MessageEndEvent& event) { transcript->record(event); },
                                   {.label = "claude_code:transcript", .priority = std::numeric_limits<int>::min()});
}

ConnectionGroup install_claude_code_hooks(Hooks& hooks, const std::vector<ClaudeCodeCommand>& commands,
                                          const ClaudeCodeOptions& options) {
  auto shared = std::make_shared<Shared>(Shared{options});
  ConnectionGroup installed;
  std::map<std::pair<fs::path, std::string>, std::shared_ptr<Group>> groups;
  for (const auto& command : commands) {
    auto& group = groups[{command.settings_file, command.event}];
    if (!group) group = std::make_shared<Group>(shared);
    const std::size_t index = group->add(std::make_shared<Hook>(command, ClaudeCodeMatcher(command.matcher)));
    const HandlerOptions handler_options{.label = command.label,
                                         .failure = command.failure,
                                         .kind = HandlerKind::external,
                                         .source = command.source};
    for (const std::size_t target : claude_code_event_targets(command.event))
      installed.add(hooks.on(
          event_name(target), [group, index](const HookEvent& event) { return group->call(index, event); },
          handler_options));
  }
  return installed;
}

}  // namespace hookbus
