// The whole-session benchmark: a scripted agent session of 1,000 turns, each
//   input, context, turn_start, 20 message_update deltas,
//   2 x (tool_call, tool_result), turn_end          = 27 events,
// replayed through a bus with a realistic hook set:
//   - a catch-all tracer that formats every event into a buffer (flushed per turn);
//   - a tool policy on `bash` that blocks `rm -rf` (fail-closed);
//   - a redaction patch on tool_result that masks API keys ("sk-...").
//
// Four variants, one iteration = the whole 1,000-turn session:
//   session/hookbus/3  the three hooks on a hookbus::Hooks
//   session/direct/3   the same three hook functions called directly by the
//                      engine, no bus: hookbus/3 - direct/3 is the bus overhead
//   session/hookbus/0  a hookbus::Hooks with no hooks: the zero-listener path
//   session/engine/0   the engine's own work only (no emits at all)
//
// The engine works from 10 turn templates (cycled), copies each tool_result
// event before emitting it (as an engine builds it), and emits it by rvalue so
// the redaction is applied in place; every other event is emitted by const&.

#include "build_info.hpp"
#include "common.hpp"

#if HOOKBUS_BENCH_HAVE_FORMAT_LINE
#include <hookbus/format.hpp>
#endif

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

namespace bench {
namespace {

constexpr int kTurns = 1000;
constexpr int kTemplates = 10;
constexpr int kDeltas = 20;
constexpr int kEventsPerTurn = 3 + kDeltas + 2 * 2 + 1;

struct TurnScript {
  InputEvent input;
  ContextEvent context;
  TurnStartEvent start;
  std::vector<MessageUpdateEvent> deltas;
  ToolCallEvent calls[2];
  ToolResultEvent results[2];
  TurnEndEvent end;
};

Message text_message(Role role, std::string text) {
  Message message;
  message.role = role;
  message.content.emplace_back(TextPart{std::move(text)});
  return message;
}

std::vector<TurnScript> make_script() {
  static constexpr std::string_view kWords[] = {"Let", " me", " look", " at", " the", " failing", " test", " in",
                                                " src", "/hooks", ".cpp", " first", ",", " then", " run", " ctest",
                                                " again", " to", " confirm", "."};
  std::vector<TurnScript> script(kTemplates);
  for (int t = 0; t < kTemplates; ++t) {
    TurnScript& s = script[static_cast<std::size_t>(t)];
    const EventContext context = sample_context();
    const auto turn = static_cast<std::uint32_t>(t);
    s.input = InputEvent{.context = context, .text = "please fix the failing hook test, attempt " + std::to_string(t)};
    s.context = ContextEvent{.context = context,
                             .messages = {text_message(Role::system, "You are a careful coding agent."),
                                          text_message(Role::user, s.input.text)}};
    s.start = TurnStartEvent{.context = context, .turn_index = turn, .timestamp = {}};
    for (int d = 0; d < kDeltas; ++d)
      s.deltas.push_back(MessageUpdateEvent{
          .context = context, .message = text_message(Role::assistant, std::string(kWords[d % std::size(kWords)]))});
    // Tool 1 reads a file; tool 2 runs a shell command, `rm -rf` in one turn in ten.
    s.calls[0] = ToolCallEvent{.context = context, .tool_call_id = "call_a" + std::to_string(t), .tool_name = "read",
                               .input = {{"path", "src/hooks.cpp"}}};
    s.calls[1] = ToolCallEvent{.context = context, .tool_call_id = "call_b" + std::to_string(t), .tool_name = "bash",
                               .input = {{"command", t == 3 ? "rm -rf build/ && cmake --preset release"
                                                            : "ctest --preset release --output-on-failure"}}};
    // Three turns in ten leak an API key into a tool result.
    const bool leak = t % 4 == 1;
    s.results[0] = ToolResultEvent{
        .context = context, .tool_call_id = s.calls[0].tool_call_id, .tool_name = "read", .input = s.calls[0].input,
        .content = {TextPart{leak ? "const char* kKey = \"sk-live-51HxQ2eZvKYlo2C0aBcD\";\nint main() { return run(kKey); }\n"
                                  : "#include <hookbus/hooks.hpp>\nint main() { return run(); }\n"}},
        .is_error = false};
    s.results[1] = ToolResultEvent{.context = context, .tool_call_id = s.calls[1].tool_call_id, .tool_name = "bash",
                                   .input = s.calls[1].input,
                                   .content = {TextPart{"100% tests passed, 0 tests failed out of 42\n"}},
                                   .is_error = false};
    s.end = TurnEndEvent{.context = context, .turn_index = turn,
                         .message = text_message(Role::assistant, "Fixed the test; all 42 pass now."),
                         .tool_results = {}};
  }
  return script;
}

// ------------------------------------------------------------ the three hooks

struct Tracer {
  std::string buffer;

  template <Event E>
  void operator()(const E& event) {
#if HOOKBUS_BENCH_HAVE_FORMAT_LINE
    buffer += format_line(event);
    buffer += '\n';
#else
    fmt::format_to(std::back_inserter(buffer), "{} session={} agent={} cwd={}\n", E::type, event.context.session_id,
                   event.context.agent_id, event.context.cwd);
#endif
  }
  void operator()(const HookEvent& event) {
    std::visit([this](const auto& alternative) { (*this)(alternative); }, event);
  }
  void flush() {
    benchmark::DoNotOptimize(buffer.data());
    buffer.clear();
  }
};

std::optional<ToolCallResult> no_rm_rf(const ToolCallEvent& event) {
  const auto* command = event.input.if_contains("command");
  if (command != nullptr && command->is_string() &&
      std::string_view(command->get_string()).find("rm -rf") != std::string_view::npos)
    return ToolCallResult{.decision = Decision::deny, .reason = "rm -rf is not allowed"};
  return std::nullopt;
}

std::optional<ToolResultResult> redact_secrets(const ToolResultEvent& event) {
  constexpr std::string_view kMarker = "sk-";
  const auto leaks = [&](const ContentPart& part) {
    const auto* text = std::get_if<TextPart>(&part);
    return text != nullptr && text->text.find(kMarker) != std::string::npos;
  };
  if (std::none_of(event.content.begin(), event.content.end(), leaks)) return std::nullopt;
  std::vector<ContentPart> content = event.content;
  for (auto& part : content) {
    auto* text = std::get_if<TextPart>(&part);
    if (text == nullptr) continue;
    for (std::size_t at = text->text.find(kMarker); at != std::string::npos; at = text->text.find(kMarker, at)) {
      std::size_t end = at;
      while (end < text->text.size() && text->text[end] != '"' && text->text[end] != ' ' && text->text[end] != '\n')
        ++end;
      text->text.replace(at, end - at, "[REDACTED]");
      at += 10;
    }
  }
  return ToolResultResult{.content = std::move(content)};
}

// ------------------------------------------------------------------ engines

// Emits through a hookbus::Hooks.
struct BusEngine {
  Hooks& hooks;
  Tracer* tracer;  // null when no tracer is registered

  template <Event E>
  result_t<E> emit(const E& event) {
    return hooks.emit(event);
  }
  ToolResultResult emit_owned(ToolResultEvent&& event) { return hooks.emit(std::move(event)); }
  void end_turn() {
    if (tracer != nullptr) tracer->flush();
  }
};

// Calls the same three hook functions itself: what the engine would do with no bus.
struct DirectEngine {
  Tracer& tracer;

  template <Event E>
  result_t<E> emit(const E& event) {
    if constexpr (std::is_same_v<E, ToolCallEvent>) {
      ToolCallResult outcome;
      if (event.tool_name == "bash")
        if (auto verdict = no_rm_rf(event)) outcome = std::move(*verdict);
      tracer(event);
      return outcome;
    } else {
      tracer(event);
      if constexpr (EventWithResult<E>) return result_t<E>();
    }
  }
  ToolResultResult emit_owned(ToolResultEvent&& event) {
    if (auto patch = redact_secrets(event)) event.content = std::move(*patch->content);
    tracer(event);
    return ToolResultResult();
  }
  void end_turn() { tracer.flush(); }
};

// No emits at all: the engine's own per-turn work.
struct NoEngine {
  template <Event E>
  result_t<E> emit(const E&) {
    if constexpr (EventWithResult<E>) return result_t<E>();
  }
  ToolResultResult emit_owned(ToolResultEvent&&) { return ToolResultResult(); }
  void end_turn() {}
};

template <class Engine>
void play(const std::vector<TurnScript>& script, Engine& engine) {
  for (int turn = 0; turn < kTurns; ++turn) {
    const TurnScript& t = script[static_cast<std::size_t>(turn % kTemplates)];
    InputResult input = engine.emit(t.input);
    benchmark::DoNotOptimize(input);
    ContextResult context = engine.emit(t.context);
    benchmark::DoNotOptimize(context);
    engine.emit(t.start);
    for (const auto& delta : t.deltas) engine.emit(delta);
    for (int k = 0; k < 2; ++k) {
      const ToolCallResult verdict = engine.emit(t.calls[k]);
      ToolResultEvent result = t.results[k];
      if (verdict.decision == Decision::deny) {
        result.content = {TextPart{verdict.reason}};
        result.is_error = true;
      }
      const ToolResultResult patch = engine.emit_owned(std::move(result));
      // The engine keeps the patched content if there is one, else its own.
      const auto& content = patch.content ? *patch.content : result.content;
      benchmark::DoNotOptimize(content.data());
    }
    engine.emit(t.end);
    engine.end_turn();
  }
}

void report(benchmark::State& state) {
  using benchmark::Counter;
  const double iterations_turns = kTurns;
  state.counters["turns_per_s"] = Counter(iterations_turns, Counter::kIsIterationInvariantRate);
  state.counters["events_per_s"] = Counter(iterations_turns * kEventsPerTurn, Counter::kIsIterationInvariantRate);
  state.counters["us_per_turn"] = Counter(iterations_turns * 1e-6, Counter::kIsIterationInvariantRate | Counter::kInvert);
}

void session_hookbus(benchmark::State& state, int hook_count) {
  const auto script = make_script();
  Hooks hooks;
  Tracer tracer;
  std::vector<Connection> kept;
  if (hook_count != 0) {
    kept.push_back(hooks.subscribe([&tracer](const HookEvent& event) { tracer(event); }, {.label = "tracer"}));
    kept.push_back(hooks.on<ToolCallEvent>(no_rm_rf, {.label = "no-rm-rf",
                                                      .failure = FailurePolicy::fail_closed,
                                                      .tools = "bash"}));
    kept.push_back(hooks.on<ToolResultEvent>(redact_secrets, {.label = "redact-secrets"}));
  }
  BusEngine engine{hooks, hook_count != 0 ? &tracer : nullptr};
  for (auto _ : state) play(script, engine);
  report(state);
}

void session_direct(benchmark::State& state, int) {
  const auto script = make_script();
  Tracer tracer;
  DirectEngine engine{tracer};
  for (auto _ : state) play(script, engine);
  report(state);
}

void session_engine(benchmark::State& state, int) {
  const auto script = make_script();
  NoEngine engine;
  for (auto _ : state) play(script, engine);
  report(state);
}

}  // namespace

void register_session_benchmarks() {
  benchmark::RegisterBenchmark("session/hookbus/3", session_hookbus, 3)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("session/direct/3", session_direct, 3)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("session/hookbus/0", session_hookbus, 0)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("session/engine/0", session_engine, 0)->Unit(benchmark::kMillisecond);
}

}  // namespace bench
