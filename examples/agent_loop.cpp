// A scripted agent session (no network, no model) that emits the lifecycle in
// the order a real engine does, with four extensions attached:
//   - an input transform that expands the "/cleanup" shortcut,
//   - a policy that denies `rm -rf` (fail-closed: a broken policy denies too),
//   - a policy that asks the user before `git push` (the engine asks, here a
//     scripted user who declines),
//   - a redaction of API keys before tool results are stored in history
//     (the built-in `redact`, with its default secret shapes),
//   - a catch-all tracer that prints every event on one line,
//   - an approval that pauses: the request is stored as JSON, and a new bus
//     (as after a restart) resumes it with the person's answer.
// Then the model call under the hooks' control (model_calls): a guard that
// removes secrets from what is sent to the model, and a cache that answers a
// repeated call without calling the model.
// Then a tool wrapper (wrap-style middleware) retries a flaky tool with a
// backoff it chooses, around the engine's own tool runner, and the run's
// record shows each attempt.
// Each reduction prints what the engine does with the outcome. The session is
// also traced (the built-in tracer, docs/tracing.md) to the three trace
// formats, in the directory given as the first argument (./agent_loop_trace
// without one), and each file is read back at the end.

#include <hookbus/hookbus.hpp>
#include <hookbus/reflect.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <stdexcept>
#include <string>
#include <thread>

using namespace hookbus;

namespace {

ConnectionGroup install_redaction(Hooks& hooks) {
  const boost::json::object defaults;  // API keys, tokens, private keys: docs/configuration.md
  Redactor redactor{ConfigObject(defaults)};
  return hooks.add(redactor);
}

// ------------------------------------------------------------ extensions

struct Extensions {
  explicit Extensions(Hooks& hooks)
      : tracer(hooks.subscribe([](const HookEvent& event) { fmt::print("  trace  {}\n", event); }, {.label = "tracer"})),
        shortcuts(hooks.on<InputEvent>(
            [](const InputEvent& e) -> std::optional<InputResult> {
              if (e.text != "/cleanup") return std::nullopt;
              return InputResult{.action = InputAction::transform,
                                 .text = "Remove the build directory, then show what is left."};
            },
            {.label = "shortcuts"})),
        project_rules(hooks.on<BeforeAgentStartEvent>(
            [](const BeforeAgentStartEvent& e) {
              return BeforeAgentStartResult{e.system_prompt + " Never touch files outside the project."};
            },
            {.label = "project-rules"})),
        policy(hooks.on<ToolCallEvent>(
            [](const ToolCallEvent& e) -> std::optional<ToolCallResult> {
              const auto* command = e.input.if_contains("command");
              if (command && command->is_string() && command->as_string().find("rm -rf") != std::string::npos)
                return ToolCallResult{.decision = Decision::deny,
                                      .reason = "rm -rf is not allowed; delete specific files instead"};
              return std::nullopt;
            },
            {.label = "no-rm-rf", .priority = -100, .failure = FailurePolicy::fail_closed, .tools = "bash|shell"})),
        confirm_push(hooks.on<ToolCallEvent>(
            [](const ToolCallEvent& e) -> std::optional<ToolCallResult> {
              const auto* command = e.input.if_contains("command");
              if (command && command->is_string() && command->as_string().starts_with("git push"))
                return ToolCallResult{.decision = Decision::ask, .reason = "pushing publishes the branch"};
              return std::nullopt;
            },
            {.label = "confirm-push", .tools = "bash|shell"})),
        redaction(install_redaction(hooks)),
        follow_up(hooks.on<AgentEndEvent>(
            [](const AgentEndEvent&) { return AgentEndResult{{"Shall I run the test suite now?"}}; },
            {.label = "suggest-tests"})) {}

  Connection tracer, shortcuts, project_rules, policy, confirm_push;
  ConnectionGroup redaction;
  Connection follow_up;
};

// ---------------------------------------------------------------- engine

class ScriptedEngine {
 public:
  explicit ScriptedEngine(Hooks& hooks) : hooks_(hooks) { context_.session_id = "demo-session"; context_.cwd = "/work/demo"; }

  void run(std::string user_text) {
    const SessionStartResult session = hooks_.emit(SessionStartEvent{.context = context_, .reason = SessionStartReason::startup});
    for (const auto& note : session.system_messages) say("session_start", note);
    InputResult input = hooks_.emit(InputEvent{.context = context_, .text = user_text});
    if (input.text) user_text = *input.text;
    say("input", input.action == InputAction::transform ? "transformed to: " + user_text : "unchanged");

    auto start = hooks_.emit(BeforeAgentStartEvent{.context = context_, .prompt = user_text, .system_prompt = "You are a careful coding agent."});
    say("before_agent_start", "system prompt: " + start.system_prompt.value_or("(unchanged)"));

    std::vector<Message> messages{Message::user(user_text)};
    auto context = hooks_.emit(ContextEvent{.context = context_, .messages = messages});
    if (context.messages) messages = *context.messages;
    hooks_.emit(AgentStartEvent{.context = context_});

    turn(0, {tool_call("t1", "rm -rf build"), tool_call("t2", "ls build && cat .env"), tool_call("t3", "git push")},
         messages);
    turn(1, {}, messages);

    auto end = hooks_.emit(AgentEndEvent{.context = context_, .messages = messages});
    for (const auto& follow_up : end.follow_up_messages) say("agent_end", "follow-up queued: " + follow_up);
    hooks_.emit(SettledEvent{.context = context_});
    hooks_.emit(SessionShutdownEvent{.context = context_, .reason = SessionShutdownReason::quit});
  }

 private:
  void turn(std::uint32_t index, const std::vector<ToolCall>& calls, std::vector<Message>& messages) {
    hooks_.emit(TurnStartEvent{.context = context_, .turn_index = index, .timestamp = Timestamp(std::chrono::milliseconds(1'700'000'000'000 + index))});
    const Message reply = Message::assistant(calls.empty() ? "Done: build/ is empty." : "Cleaning up.", calls);
    hooks_.emit(MessageStartEvent{.context = context_, .message = reply});
    hooks_.emit(MessageEndEvent{.context = context_, .message = reply});
    messages.push_back(reply);
    std::vector<ToolResult> results;
    for (const auto& call : calls) results.push_back(execute(call, messages));
    const TurnEndResult ended =
        hooks_.emit(TurnEndEvent{.context = context_, .turn_index = index, .message = reply, .tool_results = results});
    Conversation conversation(messages);
    const ContextSwapOutcome swap = apply_context_swap(ended, &conversation);
    if (swap.swapped) say("turn_end", "conversation replaced by its summary");
  }

  // What a turn_end hook's swap_context (its summary of the conversation) replaces.
  class Conversation final : public ContextSwapper {
   public:
    explicit Conversation(std::vector<Message>& messages) : messages_(messages) {}
    void swap_context(const std::string& summary) override { messages_ = {Message::user(summary)}; }

   private:
    std::vector<Message>& messages_;
  };

  ToolResult execute(ToolCall call, std::vector<Message>& messages) {
    ToolCallResult gate = hooks_.emit(ToolCallEvent{.context = context_, .tool_call_id = call.id, .tool_name = call.name, .input = call.input});
    ToolResult result{.tool_call_id = call.id, .tool_name = call.name};
    // A defer hands the call to the engine's own permission flow: interactive, it asks.
    if (gate.decision == Decision::ask || gate.decision == Decision::defer) {
      // A real engine shows its confirmation dialog here; the scripted user declines.
      say("tool_call", fmt::format("{} sent to the user by {} ({}): declined", call.id, gate.decided_by->handler, gate.reason));
      gate.decision = Decision::deny;
      gate.reason = "the user declined: " + gate.reason;
    }
    if (gate.decision == Decision::deny) {
      // The model sees a denied call as a failed tool call, with the reason.
      result.content = {TextPart{"Denied: " + gate.reason}};
      result.is_error = true;
      say("tool_call", call.id + " denied: " + gate.reason);
    } else {
      if (gate.input) call.input = *gate.input;
      hooks_.emit(ToolExecutionStartEvent{.context = context_, .tool_call = call});
      result.content = {TextPart{"build/app.o\nOPENAI_API_KEY=sk-demo1234567890abcdef1234"}};
      hooks_.emit(ToolExecutionEndEvent{.context = context_, .tool_result = result, .duration = std::chrono::milliseconds(12)});
      say("tool_call", call.id + " allowed and executed");
    }
    auto patch = hooks_.emit(ToolResultEvent{.context = context_, .tool_call_id = call.id, .tool_name = call.name, .input = call.input, .content = result.content, .is_error = result.is_error});
    if (patch.content) result.content = *patch.content;
    auto persisted = hooks_.emit(ToolResultPersistEvent{.context = context_, .tool_call_id = call.id, .tool_name = call.name, .content = result.content});
    const auto stored = persisted.content.value_or(result.content);
    say("tool_result_persist", "history stores: " + fmt::format("{:?}", text_of(stored)));
    messages.push_back(Message{.role = Role::tool, .content = stored, .tool_call_id = call.id});
    return result;
  }

  static ToolCall tool_call(std::string id, std::string command) {
    return ToolCall{.id = std::move(id), .name = "bash", .input = {{"command", std::move(command)}}};
  }

  static void say(std::string_view event, const std::string& what) { fmt::print("  engine {:<20} {}\n", event, what); }

  Hooks& hooks_;
  EventContext context_;
};

// Reads each trace file back: the trace file with hookbus's reader, the
// Chrome trace and every OTLP line as JSON.
void read_traces_back(const std::filesystem::path& dir) {
  const Trace trace = read_trace_file(dir / "session.jsonl");
  std::vector<std::string> deciders;
  for (const EmissionRecord& record : trace.records)
    if (const auto* gate = std::get_if<ToolCallResult>(&record.result); gate && gate->decision == Decision::deny)
      deciders.push_back(record.decided_by->handler);
  fmt::print("\ntrace: {} emits read back from {} ({} tool call denied, by {})\n", trace.records.size(),
             (dir / "session.jsonl").string(), deciders.size(), fmt::join(deciders, ", "));

  std::ifstream chrome_file(dir / "session.trace.json");
  const std::string chrome_text((std::istreambuf_iterator<char>(chrome_file)), std::istreambuf_iterator<char>());
  const boost::json::value chrome = parse_json(chrome_text, "session.trace.json");
  fmt::print("chrome trace: {} events in {} (open it in https://ui.perfetto.dev)\n", chrome.as_array().size(),
             (dir / "session.trace.json").string());

  std::ifstream otlp_file(dir / "session.otlp.jsonl");
  std::size_t requests = 0;
  for (std::string line; std::getline(otlp_file, line); ++requests)
    (void)parse_json(line, "session.otlp.jsonl").at("resourceSpans");
  fmt::print("OTLP: {} requests in {}\n", requests, (dir / "session.otlp.jsonl").string());
}

// A deploy guard that asks a person (ask_person); the engine does not wait:
// it stores the request, and resumes later, here on a new bus as after a restart.
Connection install_deploy_approval(Hooks& hooks) {
  return hooks.on<ToolCallEvent>(
      [](const ToolCallEvent& e) -> ToolCallResult {
        const auto answer = ask_person("deploy", "deploys to production", e.input);
        if (!answer) return {.decision = Decision::ask, .reason = "waiting for the release manager"};
        return {.decision = answer->as_bool() ? Decision::allow : Decision::deny,
                .reason = "the release manager said so"};
      },
      {.label = "deploy-approval", .tools = "deploy"});
}

void pause_and_resume_an_approval(const std::filesystem::path& dir) {
  const ToolCallEvent call{.tool_call_id = "t4", .tool_name = "deploy", .input = {{"target", "production"}}};
  const std::filesystem::path stored = dir / "approvals.json";
  {
    Hooks hooks;
    const Connection guard = install_deploy_approval(hooks);
    Approvals approvals;
    const ToolCallResult outcome = approvals.emit(hooks, call);
    std::ofstream(stored) << write_json(approvals_to_json(approvals.pending()));
    fmt::print("\napproval: t4 paused ({}), {} request stored in {}\n", outcome.reason, approvals.pending().size(),
               stored.string());
  }
  Hooks restarted;
  const Connection guard = install_deploy_approval(restarted);
  std::ifstream file(stored);
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const std::vector<ApprovalRequest> requests = approvals_from_json(parse_json(text, stored.string()));
  for (const ApprovalRequest& request : requests)
    fmt::print("approval: {} asks \"{}\" about {}: the person answers yes\n", request.handler, request.reason,
               write_json(request.question));
  Approvals resumed(requests, {{.id = requests.at(0).id, .answer = true}});
  const ToolCallResult outcome = resumed.emit(restarted, call);
  fmt::print("approval: t4 resumed after a restart: {} by {}\n",
             outcome.decision == Decision::allow ? "allowed" : "not allowed",
             outcome.decided_by ? outcome.decided_by->handler : "nobody");
}

// ------------------------------------------------------------ model calls

// A guard that removes API keys from every text sent to the model (it runs
// first and fails closed: a guard that cannot run refuses the call), and a
// cache that answers a call it has answered before, so the model is not
// called; after_model_call fills the cache, with every response, answered
// or not, as the guard's side sees it.
void model_calls() {
  Hooks hooks;
  const std::regex key(R"(sk-[A-Za-z0-9]{8,})");
  std::map<std::string, Message> cache;
  const auto key_of = [](const BeforeModelCallEvent& e) {
    std::string text = e.model + '\n' + e.system_prompt;
    for (const Message& message : e.messages) text += '\n' + text_of(message.content);
    return text;
  };
  const Connection strip_secrets = hooks.on<BeforeModelCallEvent>(
      [&](const BeforeModelCallEvent& e) -> std::optional<BeforeModelCallResult> {
        std::vector<Message> messages = e.messages;
        bool stripped = false;
        for (Message& message : messages)
          for (ContentPart& part : message.content)
            if (auto* text = std::get_if<TextPart>(&part); text && std::regex_search(text->text, key)) {
              text->text = std::regex_replace(text->text, key, "[secret removed]");
              stripped = true;
            }
        if (!stripped) return std::nullopt;
        return BeforeModelCallResult{.messages = std::move(messages)};
      },
      {.label = "strip-secrets", .priority = -100, .failure = FailurePolicy::fail_closed});
  const Connection answer_from_cache = hooks.on<BeforeModelCallEvent>(
      [&](const BeforeModelCallEvent& e) -> std::optional<BeforeModelCallResult> {
        const auto hit = cache.find(key_of(e));
        if (hit == cache.end()) return std::nullopt;
        return BeforeModelCallResult{.response = hit->second};
      },
      {.label = "cache"});

  int sent_to_model = 0;
  const auto call_model = [&](const std::string& text) {
    BeforeModelCallEvent request{.model = "demo-model", .messages = {Message::user(text)}, .system_prompt = "Be brief."};
    const BeforeModelCallResult before = hooks.emit(request);
    if (before.messages) request.messages = *before.messages;
    fmt::print("  engine {:<20} sends: {:?}\n", "before_model_call", text_of(request.messages.at(0).content));
    Message response;
    if (before.response) {
      response = *before.response;
      fmt::print("  engine {:<20} answered by {} without calling the model: {:?}\n", "before_model_call",
                 before.decided_by->handler, text_of(response.content));
    } else {
      ++sent_to_model;
      response = Message::assistant("Stored the key you gave in the vault.");
      fmt::print("  engine {:<20} the model answered: {:?}\n", "model", text_of(response.content));
    }
    const AfterModelCallResult after = hooks.emit(AfterModelCallEvent{
        .model = request.model, .response = response, .answered_by = before.response ? before.decided_by : std::nullopt});
    if (after.response) response = *after.response;
    if (!before.response) cache.emplace(key_of(request), response);
  };
  fmt::print("\nmodel calls: a secret-stripping guard and a cache\n");
  call_model("Store my key sk-demo1234567890abcdef in the vault.");
  call_model("Store my key sk-demo1234567890abcdef in the vault.");
  fmt::print("model calls: 2 asked, {} sent to the model\n", sent_to_model);
}

// A tool wrapper that retries a failing run up to three times, waiting 1, 2
// then 4 ms in between (a real one waits longer), and stops retrying once the
// engine asks it to stop: the engine runs its own tool runner through
// Hooks::run_step and gets the wrapped output. An emission observer gets the
// run's record: the wrapper, and each attempt its next ran.
void run_flaky_tool_with_retries(Hooks& hooks) {
  fmt::print("\nwrap: a tool run through a retrying wrapper (docs/semantics.md, section 15)\n");
  const Connection retry = hooks.wrap<ToolCallEvent>(
      [](const ToolCallEvent& call, const Next<ToolCallEvent>& next) {
        std::chrono::milliseconds wait{1};
        for (int attempt = 1;; ++attempt, wait *= 2) {
          try {
            return next(call);
          } catch (const std::runtime_error& failure) {
            if (attempt == 3 || emit_stop_token().stop_requested()) throw;
            fmt::print("  retry  attempt {} failed ({}); again in {} ms\n", attempt, failure.what(), wait.count());
            std::this_thread::sleep_for(wait);
          }
        }
      },
      {.label = "retry-flaky-tools", .tools = "fetch"});
  int runs = 0;
  const auto flaky_fetch = [&runs](const ToolCallEvent& call) {
    if (++runs < 3) throw std::runtime_error("connection reset");
    return ToolOutput{.content = {TextPart{"fetched " + std::string(call.input.at("url").as_string())}}};
  };
  std::optional<StepRecord> traced;
  const Connection observer = hooks.on_emission([&traced](const EmissionRecord& record) {
    if (record.step) traced = record.step;
  });
  const ToolOutput output = hooks.run_step(
      ToolCallEvent{.tool_call_id = "t5", .tool_name = "fetch", .input = {{"url", "https://example.com"}}}, flaky_fetch);
  fmt::print("  engine {:<20} t5 ran {} times through {}: {}\n", "run_step", runs, fmt::join(hooks.wrappers("tool_call"), ", "),
             text_of(output.content));
  for (const StepLevelRecord& level : traced.value().levels) {
    const std::string outcome(reflect::enum_wire_name(level.outcome).value_or("?"));
    if (level.step)
      fmt::print("  trace    run step ({} µs): {}{}\n", level.duration.count() / 1000, outcome,
                 level.error.empty() ? "" : ": " + level.error);
    else
      fmt::print("  trace  {}: next {} times, {}\n", level.label, level.next_calls, outcome);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::filesystem::path trace_dir = argc > 1 ? argv[1] : "agent_loop_trace";
  Hooks hooks;
  Extensions extensions(hooks);
  {
    Tracer tracer({.jsonl = JsonlTraceOptions{.file = trace_dir / "session.jsonl"},
                   .chrome = trace_dir / "session.trace.json",
                   .otlp = OtlpTraceOptions{.file = trace_dir / "session.otlp.jsonl"}});
    const ConnectionGroup tracing = hooks.add(tracer);
    fmt::print("hookbus demo: a scripted agent session; extensions on {} and a catch-all tracer\n\n",
               fmt::join(hooks.registered_events(), ", "));
    ScriptedEngine(hooks).run("/cleanup");
  }  // the tracer stops here: everything it queued is written
  read_traces_back(trace_dir);
  pause_and_resume_an_approval(trace_dir);
  model_calls();
  run_flaky_tool_with_retries(hooks);
}
