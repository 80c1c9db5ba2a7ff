// `hookctl replay`, `trace view` and `trace summary`: using a recording, the
// trace file a Tracer wrote (docs/tracing.md, "Using a recording"). A trace
// file that does not read is a usage error naming the file and the line.

#include "commands.hpp"

#include <hookbus/hooks.hpp>
#include <hookbus/json.hpp>
#include <hookbus/names.hpp>
#include <hookbus/reflect.hpp>
#include <hookbus/trace.hpp>
#include <hookbus/trace_analysis.hpp>

#include "support/files.hpp"

#include <boost/describe/enum_to_string.hpp>
#include <fmt/format.h>

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace hookctl {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using namespace hookbus;
using std::chrono::nanoseconds;

// A recorded emit (or run of a wrapped step) and the line of the file it was read from.
struct RecordedLine {
  std::size_t line = 0;
  EmissionRecord record{};
};

struct Recording {
  TraceHeader header{};
  std::vector<RecordedLine> emits{};  // and the runs of wrapped steps, in file order
  // "FILE:LINE: unknown field ...": what the payloads and results hold that their types do not have.
  std::vector<std::string> unknown_fields{};
};

// The fields of each recorded payload and result that their types do not have
// (a misspelling in a recording made or edited by hand; a newer hookbus's
// field), each "FILE:LINE: unknown field ...". The trace reader ignores them.
std::vector<std::string> unknown_recorded_fields(const std::string& text, const fs::path& file) {
  std::vector<std::string> found;
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);  // the header
  for (std::size_t number = 2; std::getline(in, line); ++number) {
    const json::object record = parse_json(line, file.string()).as_object();  // the reader read it already
    const std::size_t index = resolve_event(record.at("event").as_string());
    std::vector<UnknownField> fields = event_unknown_fields(index, record.at("payload"));
    if (!record.contains("step"))  // a step line has no result
      for (UnknownField& field : outcome_unknown_fields(index, record.at("result"))) fields.push_back(std::move(field));
    for (const UnknownField& field : fields) found.push_back(fmt::format("{}:{}: {}", file.string(), number, field.message()));
  }
  return found;
}

Recording read_recording(const fs::path& file) {
  try {
    const std::string text = read_trace_text(file);
    std::istringstream in(text);
    TraceReader reader(in, file.string());
    Recording recording{reader.header(), {}, {}};
    while (auto record = reader.next()) recording.emits.push_back({reader.line(), std::move(*record)});
    recording.unknown_fields = unknown_recorded_fields(text, file);
    return recording;
  } catch (const TraceError& error) {
    throw UsageError(printable(error.what()));
  }
}

fs::path trace_file(const Invocation& invocation) { return invocation.argument_path(0); }

std::string_view name_of(HandlerAction action) { return boost::describe::enum_to_string(action, "?"); }
std::string_view name_of(RecordedKind kind) { return boost::describe::enum_to_string(kind, "?"); }

// "1.20 ms", "48.2 µs", "310 ns"
std::size_t step_count(const Recording& recording) {
  return static_cast<std::size_t>(
      std::ranges::count_if(recording.emits, [](const RecordedLine& line) { return line.record.step.has_value(); }));
}

std::string shown_duration(nanoseconds duration) {
  const auto count = static_cast<double>(duration.count());
  if (count >= 1e9) return fmt::format("{:.2f} s", count / 1e9);
  if (count >= 1e6) return fmt::format("{:.2f} ms", count / 1e6);
  if (count >= 1e3) return fmt::format("{:.1f} µs", count / 1e3);
  return fmt::format("{} ns", duration.count());
}

// ------------------------------------------------------------------ replay

// "deny: rm -rf is not allowed", "failed: boom", "not run"
std::string shown_answer(const std::optional<HandlerRecord>& handler) {
  if (!handler) return "not run";
  const std::string& detail = handler->action == HandlerAction::failed ? handler->error : handler->reason;
  return detail.empty() ? std::string(name_of(handler->action))
                        : fmt::format("{}: {}", name_of(handler->action), printable(detail));
}

json::value answer_json(const std::optional<HandlerRecord>& handler) {
  if (!handler) return nullptr;
  return json::object{{"action", name_of(handler->action)},
                      {"reason", handler->reason},
                      {"error", handler->error},
                      {"kind", name_of(handler->kind)}};
}

struct Replayed {
  const RecordedLine* recorded = nullptr;
  EmissionRecord now{};
  ReplayDifference difference{};
};

json::object difference_json(const Replayed& replayed) {
  const EmissionRecord& recorded = replayed.recorded->record;
  json::array handlers;
  for (const HandlerChange& change : replayed.difference.handlers)
    handlers.push_back(json::object{{"handler", change.label},
                                    {"source", change.source},
                                    {"recorded", answer_json(change.recorded)},
                                    {"now", answer_json(change.now)}});
  json::value result = nullptr;
  if (replayed.difference.result_changed)
    result = json::object{{"recorded", to_json(recorded.result)},
                          {"now", to_json(replayed.now.result)},
                          {"recorded_verdict", verdict(recorded.payload, recorded.result)},
                          {"now_verdict", verdict(recorded.payload, replayed.now.result)}};
  return json::object{{"line", replayed.recorded->line},
                      {"seq", recorded.seq},
                      {"event", event_name(recorded.payload)},
                      {"result", std::move(result)},
                      {"handlers", std::move(handlers)}};
}

void print_difference(const Replayed& replayed) {
  const EmissionRecord& recorded = replayed.recorded->record;
  fmt::print("line {}, seq {}, {}: differs\n", replayed.recorded->line, recorded.seq, event_name(recorded.payload));
  if (replayed.difference.result_changed) {
    const std::string was = verdict(recorded.payload, recorded.result);
    const std::string is = verdict(recorded.payload, replayed.now.result);
    if (was != is) fmt::print("  result: {} -> now {}\n", was, is);
    else
      fmt::print("  result: {} -> now {}\n", printable(write_json(to_json(recorded.result))),
                 printable(write_json(to_json(replayed.now.result))));
  }
  for (const HandlerChange& change : replayed.difference.handlers)
    fmt::print("  {}{}: {} -> now {}\n", printable(change.label),
               change.source.empty() ? "" : fmt::format(" ({})", printable(change.source)),
               shown_answer(change.recorded), shown_answer(change.now));
}

// A directory as a comparable path: absolute, normal, without a trailing separator.
fs::path directory_key(const fs::path& directory) {
  const fs::path normal = fs::absolute(directory).lexically_normal();
  return normal.has_filename() ? normal : normal.parent_path();
}

// A recording of another project is replayed through this one's hooks: that is said, not refused.
void warn_if_recorded_elsewhere(const Recording& recording, const fs::path& file, const Invocation& invocation) {
  if (!recording.header.project) return;
  const fs::path recorded = directory_key(*recording.header.project);
  const auto workspace = invocation.path("--workspace");
  if (recorded == directory_key(invocation.project_dir()) || (workspace && recorded == directory_key(*workspace))) return;
  print_to_stderr("hookctl replay: warning: {} was recorded in {}; it is replayed through the hooks of {}\n",
                  printable(file.string()), printable(recording.header.project->string()),
                  printable(invocation.project_dir().string()));
}

}  // namespace

int replay_command(const Invocation& invocation) {
  const fs::path file = trace_file(invocation);
  const Recording recording = read_recording(file);  // before the project's hooks run: a bad file runs nothing
  check_unknown_fields(invocation, recording.unknown_fields, "NAME");
  warn_if_recorded_elsewhere(recording, file, invocation);

  Hooks hooks;
  const SetUp bus = set_up(hooks, invocation, trust_policy(invocation), /*trace=*/false);
  std::optional<EmissionRecord> last;  // the outermost emit finishes last
  const Connection observer = hooks.on_emission([&](const EmissionRecord& record) { last = record; });

  std::vector<Replayed> differing;
  std::size_t replayed_emits = 0;
  for (const RecordedLine& recorded : recording.emits) {
    if (recorded.record.step) continue;  // a run of the engine's own step, which a replay does not have
    ++replayed_emits;
    last.reset();
    (void)hooks.emit(recorded.record.payload);  // the observer's record holds the result, and every handler's answer
    Replayed replayed{&recorded, std::move(*last), {}};
    replayed.difference = compare_replay(recorded.record, replayed.now);
    if (!replayed.difference.empty()) differing.push_back(std::move(replayed));
  }

  if (invocation.json()) {
    json::array differences;
    for (const Replayed& replayed : differing) differences.push_back(difference_json(replayed));
    fmt::print("{}\n", pretty_json(json::object{{"file", file.string()},
                                                {"replayed", replayed_emits},
                                                {"steps_not_replayed", step_count(recording)},
                                                {"differing", differing.size()},
                                                {"differences", std::move(differences)}}));
  } else {
    for (const Replayed& replayed : differing) print_difference(replayed);
    fmt::print("replayed {} emits of {}: {}\n", replayed_emits, printable(file.string()),
               differing.empty() ? "every decision as recorded" : fmt::format("{} differ{}", differing.size(), differing.size() == 1 ? "s" : ""));
    if (const std::size_t steps = step_count(recording); steps != 0)
      fmt::print("{} run{} of wrapped steps not replayed: they ran the engine's own tool runner or model client\n",
                 steps, steps == 1 ? "" : "s");
  }
  return differing.empty() ? exit_ok : exit_differs;
}

// ------------------------------------------------------------------ summary

namespace {

json::object stats_json(const TraceStats& stats) {
  json::object line{{"event", stats.event}};
  if (!stats.handler.empty()) line["handler"] = stats.handler;
  line["count"] = stats.count;
  line["p50_ns"] = stats.p50.count();
  line["p99_ns"] = stats.p99.count();
  line["blocks"] = stats.blocks;
  line["failures"] = stats.failures;
  return line;
}

void print_stats_table(std::string_view title, const std::vector<TraceStats>& lines) {
  std::size_t width = title.size();
  const auto name = [](const TraceStats& stats) {
    return stats.handler.empty() ? stats.event : fmt::format("{} {}", stats.event, printable(stats.handler));
  };
  for (const TraceStats& stats : lines) width = std::max(width, name(stats).size());
  fmt::print("{:<{}}  {:>6}  {:>10}  {:>10}  {:>6}  {:>8}\n", title, width, "count", "p50", "p99", "blocks", "failures");
  for (const TraceStats& stats : lines)
    fmt::print("{:<{}}  {:>6}  {:>10}  {:>10}  {:>6}  {:>8}\n", name(stats), width, stats.count,
               shown_duration(stats.p50), shown_duration(stats.p99), stats.blocks, stats.failures);
}

}  // namespace

int trace_summary_command(const Invocation& invocation) {
  const Recording recording = read_recording(trace_file(invocation));
  std::vector<EmissionRecord> records;
  for (const RecordedLine& recorded : recording.emits)
    if (!recorded.record.step) records.push_back(recorded.record);
  const std::size_t steps = step_count(recording);
  const TraceSummary summary = summarize_trace(records);
  if (invocation.json()) {
    json::array events, handlers;
    for (const TraceStats& stats : summary.events) events.push_back(stats_json(stats));
    for (const TraceStats& stats : summary.handlers) handlers.push_back(stats_json(stats));
    fmt::print("{}\n", pretty_json(json::object{{"emits", records.size()},
                                                {"steps", steps},
                                                {"events", std::move(events)},
                                                {"handlers", std::move(handlers)}}));
    return exit_ok;
  }
  fmt::print("{} emits{}\n\n", records.size(),
             steps == 0 ? "" : fmt::format(", {} run{} of wrapped steps", steps, steps == 1 ? "" : "s"));
  print_stats_table("event", summary.events);
  fmt::print("\n");
  print_stats_table("event handler", summary.handlers);
  return exit_ok;
}

}  // namespace hookctl

// ------------------------------------------------------------------ view

namespace hookctl {
namespace {

// How an emit ended, for its colour: blocked (refused), failed (a handler
// threw), ask (the user is asked), ok. A run of a wrapped step: blocked
// (refused), failed (it threw, or a wrapper failed), ok.
std::string_view state_of(const EmissionRecord& record) {
  if (record.step) {
    if (record.decided_by) return "blocked";
    const auto& levels = record.step->levels;
    if (std::ranges::any_of(levels, [](const StepLevelRecord& l) { return l.outcome == StepOutcome::failed; }) ||
        (!levels.empty() && levels.front().outcome != StepOutcome::output))
      return "failed";
    return "ok";
  }
  if (refusal_of(record.result)) return "blocked";
  if (std::ranges::any_of(record.handlers, [](const HandlerRecord& h) { return h.action == HandlerAction::failed; }))
    return "failed";
  if (std::ranges::any_of(record.handlers, [](const HandlerRecord& h) { return h.action == HandlerAction::ask; }))
    return "ask";
  return "ok";
}

json::object handler_json(const HandlerRecord& handler) {
  return json::object{{"label", handler.label},
                      {"kind", name_of(handler.kind)},
                      {"source", handler.source},
                      {"protocol", handler.protocol},
                      {"t", handler.start_offset.count()},
                      {"d", handler.duration.count()},
                      {"action", name_of(handler.action)},
                      {"reason", handler.reason},
                      {"error", handler.error}};
}

// A run of a wrapped step in a word or two: "output after 2 runs of the step",
// "refused by guard", "threw: timeout".
std::string step_verdict(const EmissionRecord& record) {
  if (record.decided_by) return fmt::format("refused by {}", record.decided_by->handler);
  const auto& levels = record.step->levels;
  if (!levels.empty() && levels.front().outcome == StepOutcome::threw) return "threw: " + levels.front().error;
  const auto runs = std::ranges::count_if(levels, [](const StepLevelRecord& l) { return l.step; });
  if (runs == 0) return "output from a wrapper, the step not run";
  return fmt::format("output after {} run{} of the step", runs, runs == 1 ? "" : "s");
}

// A step's levels, each with its depth under the run (0: the outermost wrapper).
json::array levels_json(const StepRecord& step) {
  json::array levels;
  std::vector<std::uint32_t> depths;
  for (const StepLevelRecord& level : step.levels) {
    depths.push_back(level.parent ? depths.at(*level.parent) + 1 : 0);
    levels.push_back(json::object{{"label", level.step ? std::string("run step") : level.label},
                                  {"step", level.step},
                                  {"source", level.source},
                                  {"depth", depths.back()},
                                  {"t", level.start_offset.count()},
                                  {"d", level.duration.count()},
                                  {"next_calls", level.next_calls},
                                  {"outcome", *reflect::enum_wire_name(level.outcome)},
                                  {"error", level.error}});
  }
  return levels;
}

// What the page draws: each emit with its time from the first emit's start.
json::array page_data(const Recording& recording) {
  json::array emits;
  if (recording.emits.empty()) return emits;
  auto first = recording.emits.front().record.start;
  for (const RecordedLine& recorded : recording.emits) first = std::min(first, recorded.record.start);
  for (const RecordedLine& recorded : recording.emits) {
    const EmissionRecord& record = recorded.record;
    json::array handlers;
    for (const HandlerRecord& handler : record.handlers) handlers.push_back(handler_json(handler));
    json::object emit{{"seq", record.seq},
                      {"line", recorded.line},
                      {"event", event_name(record.payload)},
                      {"thread", record.thread},
                      {"t", (record.start - first).count()},
                      {"d", record.duration.count()},
                      {"state", state_of(record)},
                      {"verdict", record.step ? step_verdict(record) : verdict(record.payload, record.result)},
                      {"handlers", std::move(handlers)},
                      {"payload", to_json(record.payload)},
                      {"result", to_json(record.result)}};
    if (record.step) emit.emplace("levels", levels_json(*record.step));
    emits.push_back(std::move(emit));
  }
  return emits;
}

// JSON inside a <script> element, which must not end or change the element:
// every "<" is written as \u003c (so neither "</script>" nor "<!--<script>",
// which would keep the element open past its end, can occur), and the two
// line separators JavaScript once took for line ends are escaped.
std::string script_safe(std::string_view text) {
  std::string safe;
  safe.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '<') safe += "\\u003c";
    else if (text.compare(i, 3, "\xE2\x80\xA8") == 0) safe += "\\u2028", i += 2;
    else if (text.compare(i, 3, "\xE2\x80\xA9") == 0) safe += "\\u2029", i += 2;
    else safe += text[i];
  }
  return safe;
}

// The page: inline CSS and JavaScript only (no network). It draws one row per
// emit, placed in time on the session's axis, and under it a row per handler
// placed on the emit's own axis; a run of a wrapped step likewise, with a
// row per level under it, indented by its depth (a wrapper's attempts under
// the wrapper); a click shows the record's JSON. When it has drawn, it
// checks it drew a row for every record and every level and says so in the
// title and in <html data-self-check="passed|failed: ...">.
constexpr std::string_view page_template = R"HTML(<!DOCTYPE html>
<html lang="en" data-self-check="pending">
<head>
<meta charset="utf-8">
<title>hookbus trace</title>
<style>
body { font: 13px/1.4 system-ui, sans-serif; margin: 16px; color: #1d2330; background: #ffffff; }
h1 { font-size: 18px; margin: 0 0 4px; }
.about { color: #5b6475; margin-bottom: 10px; }
.legend span { display: inline-block; padding: 1px 8px; margin-right: 6px; border-radius: 3px; color: #fff; }
.timeline { border-top: 1px solid #d5d9e0; margin-top: 10px; }
.row { display: flex; align-items: center; border-bottom: 1px solid #eef0f4; cursor: pointer; min-height: 22px; }
.row:hover { background: #f3f6fb; }
.row.handler { cursor: default; min-height: 18px; font-size: 12px; color: #3d4658; }
.name { width: 340px; flex: none; padding: 2px 6px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.row.handler .name { padding-left: 28px; }
.row.level { cursor: default; min-height: 18px; font-size: 12px; color: #3d4658; }
.track { position: relative; flex: 1; height: 16px; background: #f7f8fa; }
.bar { position: absolute; top: 2px; bottom: 2px; min-width: 3px; border-radius: 2px; }
.ok { background: #2f9e5a; } .blocked { background: #d63a3a; } .failed { background: #e8891c; }
.ask { background: #c9a21b; } .skipped { background: #a3a9b5; } .neutral { background: #4a78c9; }
#details { white-space: pre-wrap; font: 12px/1.35 ui-monospace, monospace; background: #f7f8fa;
           border: 1px solid #d5d9e0; padding: 8px; margin-top: 12px; max-height: 40vh; overflow: auto; }
</style>
</head>
<body>
<h1>hookbus trace</h1>
<div class="about" id="about"></div>
<div class="legend"><span class="ok">allowed / result</span><span class="blocked">blocked</span><span class="failed">failed</span><span class="ask">ask</span><span class="neutral">handler changed it</span><span class="skipped">skipped</span></div>
<div class="timeline" id="timeline"></div>
<div id="details">Click an event for its payload, result and handlers.</div>
<script id="trace-data" type="application/json">@DATA@</script>
<script>
(function () {
  "use strict";
  var root = document.documentElement;
  try {
    var trace = JSON.parse(document.getElementById("trace-data").textContent);
    var emits = trace.emits;
    var span = 1;
    emits.forEach(function (e) { span = Math.max(span, e.t + e.d); });
    var ms = function (ns) { return (ns / 1e6).toFixed(3) + " ms"; };
    document.getElementById("about").textContent =
      trace.file + " \u2014 " + emits.length + " emits over " + ms(span) + (trace.project ? ", project " + trace.project : "");
    var actionClass = function (h) {
      if (h.action === "deny" || h.action === "cancel" || h.action === "reject") return "blocked";
      if (h.action === "failed") return "failed";
      if (h.action === "ask") return "ask";
      if (h.action === "skipped") return "skipped";
      if (h.action === "no_change" || h.action === "allow") return "ok";
      return "neutral";
    };
    var bar = function (cls, left, width, tip) {
      var b = document.createElement("div");
      b.className = "bar " + cls;
      b.style.left = Math.min(left, 99.7) + "%";
      b.style.width = Math.max(width, 0.3) + "%";
      b.title = tip;
      return b;
    };
    var row = function (cls, text, tip) {
      var r = document.createElement("div");
      r.className = "row " + cls;
      var n = document.createElement("div");
      n.className = "name";
      n.textContent = text;
      n.title = tip;
      var t = document.createElement("div");
      t.className = "track";
      r.appendChild(n);
      r.appendChild(t);
      return r;
    };
    var timeline = document.getElementById("timeline");
    emits.forEach(function (e) {
      var tip = "#" + e.seq + " " + e.event + " (line " + e.line + ", thread " + e.thread + ")\n" + e.verdict +
                "\nat " + ms(e.t) + ", took " + ms(e.d);
      var r = row("emit", "#" + e.seq + " " + (e.levels ? "step " : "") + e.event + " \u2014 " + e.verdict, tip);
      r.dataset.seq = e.seq;
      r.lastChild.appendChild(bar(e.state, e.t / span * 100, e.d / span * 100, tip));
      r.addEventListener("click", function () {
        document.getElementById("details").textContent = JSON.stringify(e, null, 2);
      });
      timeline.appendChild(r);
      e.handlers.forEach(function (h) {
        var what = h.action + (h.reason ? ": " + h.reason : "") + (h.error ? ": " + h.error : "");
        var htip = h.label + " (" + h.kind + (h.source ? ", " + h.source : "") + (h.protocol ? ", " + h.protocol : "") +
                   ")\n" + what + "\nat +" + ms(h.t) + ", took " + ms(h.d);
        var hr = row("handler", h.label + " \u2014 " + what, htip);
        var whole = Math.max(e.d, 1);
        hr.lastChild.appendChild(bar(actionClass(h), h.t / whole * 100, h.d / whole * 100, htip));
        timeline.appendChild(hr);
      });
      // A wrapped step: each wrapper, and under it each attempt its next ran, indented by depth.
      (e.levels || []).forEach(function (l) {
        var what = (l.step ? "" : "next \u00d7" + l.next_calls + ", ") + l.outcome + (l.error ? ": " + l.error : "");
        var ltip = l.label + (l.source ? " (" + l.source + ")" : "") + "\n" + what + "\nat +" + ms(l.t) +
                   ", took " + ms(l.d);
        var lr = row("level", l.label + " \u2014 " + what, ltip);
        lr.firstChild.style.paddingLeft = (28 + 18 * l.depth) + "px";
        var cls = l.outcome === "refused" ? "blocked" : l.outcome === "output" ? "ok" : "failed";
        var whole = Math.max(e.d, 1);
        lr.lastChild.appendChild(bar(cls, l.t / whole * 100, l.d / whole * 100, ltip));
        timeline.appendChild(lr);
      });
    });
    var drawn = timeline.querySelectorAll(".row.emit .bar").length;
    if (drawn !== emits.length) throw new Error("drew " + drawn + " of " + emits.length + " events");
    var levels = 0;
    emits.forEach(function (e) { levels += (e.levels || []).length; });
    var drawnLevels = timeline.querySelectorAll(".row.level .bar").length;
    if (drawnLevels !== levels) throw new Error("drew " + drawnLevels + " of " + levels + " levels of wrapped steps");
    root.dataset.selfCheck = "passed";
    root.dataset.rendered = String(drawn);
    document.title = "hookbus trace: " + drawn + " events rendered";
  } catch (error) {
    root.dataset.selfCheck = "failed: " + error.message;
    document.title = "hookbus trace: self-check failed";
  }
})();
</script>
</body>
</html>
)HTML";

}  // namespace

int trace_view_command(const Invocation& invocation) {
  const fs::path file = trace_file(invocation);
  const Recording recording = read_recording(file);
  const auto target = invocation.path("--output");
  if (!target) throw UsageError("missing -o FILE: the HTML page to write");
  const json::object data{{"file", file.string()},
                          {"project", recording.header.project ? json::value(recording.header.project->string())
                                                               : json::value(nullptr)},
                          {"emits", page_data(recording)}};
  std::string page(page_template);
  page.replace(page.find("@DATA@"), 6, script_safe(write_json(data)));
  // A temporary file renamed over the target: a write that fails leaves no half page.
  const mode_t umask = ::umask(0);
  ::umask(umask);
  detail::write_file_atomically(*target, page, 0666 & ~umask);
  if (!invocation.quiet())
    fmt::print("{}: {} emits drawn from {}\n", printable(*invocation.value("--output")), recording.emits.size(),
               printable(file.string()));
  return exit_ok;
}

}  // namespace hookctl
