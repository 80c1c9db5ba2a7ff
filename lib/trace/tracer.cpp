// The built-in tracer (include/hookbus/tracer.hpp): one emission observer
// writing every record to the configured files, and sending its spans to a
// Collector when configured (otlp_http).

#include <hookbus/tracer.hpp>

#include "trace/trace_writers.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <mutex>
#include <utility>

namespace hookbus {

namespace detail {

std::optional<ToolOfEvent> tool_of(const HookEvent& event) {
  return std::visit(
      [](const auto& e) -> std::optional<ToolOfEvent> {
        if constexpr (requires { e.tool_name; e.tool_call_id; }) return ToolOfEvent{e.tool_name, e.tool_call_id};
        else if constexpr (requires { e.tool_call.name; }) return ToolOfEvent{e.tool_call.name, e.tool_call.id};
        else if constexpr (requires { e.tool_result.tool_name; })
          return ToolOfEvent{e.tool_result.tool_name, e.tool_result.tool_call_id};
        else if constexpr (requires { e.partial_tool_result.tool_name; })
          return ToolOfEvent{e.partial_tool_result.tool_name, e.partial_tool_result.tool_call_id};
        else return std::nullopt;
      },
      event);
}

}  // namespace detail

namespace {

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return {};
  return name;
}

}  // namespace

// The open files. One record at a time: the queue's thread, or emitting
// threads one after another (the lock), so a file's lines never interleave.
struct Tracer::Sinks {
  std::mutex mutex;
  std::optional<detail::JsonlTraceWriter> jsonl;
  std::optional<detail::ChromeTraceWriter> chrome;
  std::optional<detail::OtlpTraceWriter> otlp;
  std::optional<detail::OtlpHttpExporter> otlp_http;  // only queues: never waits for the Collector

  // Every file gets the record, also when another fails; the failures are
  // then one error, which the bus reports.
  void write(const EmissionRecord& record) {
    std::lock_guard lock(mutex);
    std::string failures;
    const auto each = [&](auto& writer) {
      if (!writer) return;
      try {
        writer->write(record);
      } catch (const std::exception& error) {
        failures += failures.empty() ? "" : "; ";
        failures += error.what();
      }
    };
    each(jsonl);
    each(chrome);
    each(otlp);
    each(otlp_http);
    if (!failures.empty()) throw Error("trace: " + failures);
  }
};

Tracer::Tracer(TraceOptions options) : sinks_(std::make_shared<Sinks>()), queue_(options.queue) {
  const TraceHeader header{.started = std::chrono::floor<std::chrono::microseconds>(std::chrono::system_clock::now()),
                           .pid = ::getpid(),
                           .host = host_name(),
                           .project = options.project};
  const std::filesystem::path confined_to = options.confined_to.value_or(std::filesystem::path());
  if (options.jsonl) sinks_->jsonl.emplace(*options.jsonl, confined_to, header);
  if (options.chrome)
    sinks_->chrome.emplace(*options.chrome, confined_to, header.pid,
                           header.project ? fmt::format("hookbus {}", header.project->string()) : "hookbus");
  if (options.otlp) sinks_->otlp.emplace(*options.otlp, confined_to, header);
  if (options.otlp_http) sinks_->otlp_http.emplace(*options.otlp_http, header);
}

// A file the tracer cannot open is an error of the config's "trace" settings.
Tracer::Tracer(TraceOptions options, const ConfigLocation& settings) try : Tracer(std::move(options)) {
} catch (const ConfigError&) {
  throw;
} catch (const Error& error) {
  throw ConfigError(settings, error.what());
}

Tracer::Tracer(const ConfigObject& settings, Layer layer)
    : Tracer(read_trace_options(settings, layer), settings.location()) {}

void Tracer::register_hooks(Registrar& registrar) const {
  registrar.on_emission([sinks = sinks_](const EmissionRecord& record) { sinks->write(record); },
                        {.label = "trace", .kind = HandlerKind::builtin, .queued = queue_});
}

}  // namespace hookbus
