// The built-in tracer (include/hookbus/tracer.hpp): its settings, and one
// emission observer writing every record to the configured files.

#include <hookbus/tracer.hpp>

#include "support/confined_file.hpp"
#include "trace/trace_writers.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <limits>
#include <mutex>

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

constexpr std::int64_t kMaxQueueCapacity = 1 << 20;

// "PATH" or {"file": "PATH", "max_bytes": N, "max_files": N}, over the defaults of Options.
template <class Options>
Options read_rotated_file(const ConfigValue& value, bool in_project) {
  Options options;
  if (value.json().is_string()) {
    options.file = detail::file_to_write(value, in_project).path;
    return options;
  }
  if (!value.json().is_object()) value.fail_expected(R"(a path (string), or an object {"file", "max_bytes", "max_files"})");
  const ConfigObject object = value.as_object();
  object.allow_only({"file", "max_bytes", "max_files"});
  options.file = detail::file_to_write(object.required("file", "the trace file's path (string)"), in_project).path;
  if (auto max_bytes = object.find("max_bytes"))
    options.max_bytes =
        static_cast<std::uintmax_t>(max_bytes->as_integer(4096, std::numeric_limits<std::int64_t>::max()));
  if (auto max_files = object.find("max_files")) options.max_files = static_cast<unsigned>(max_files->as_integer(0, 1000));
  return options;
}

std::optional<DeliveryQueue> read_queue(const ConfigValue& value) {
  if (value.json().is_bool()) {
    if (value.as_bool())
      throw ConfigError(value.location(), "expected an object with the queue's settings, or false; got true");
    return std::nullopt;
  }
  const ConfigObject object = value.as_object();
  object.allow_only({"capacity", "overflow"});
  DeliveryQueue queue;
  if (auto capacity = object.find("capacity"))
    queue.capacity = static_cast<std::size_t>(capacity->as_integer(1, kMaxQueueCapacity));
  if (auto overflow = object.find("overflow")) queue.overflow = overflow->as_enum<Overflow>();
  return queue;
}

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return {};
  return name;
}

}  // namespace

TraceOptions read_trace_options(const ConfigObject& settings, Layer layer) {
  settings.allow_only({"jsonl", "chrome", "otlp", "queue"});
  const bool in_project = is_project_layer(layer);
  TraceOptions options;
  if (auto jsonl = settings.find("jsonl")) options.jsonl = read_rotated_file<JsonlTraceOptions>(*jsonl, in_project);
  if (auto chrome = settings.find("chrome")) options.chrome = detail::file_to_write(*chrome, in_project).path;
  if (auto otlp = settings.find("otlp")) options.otlp = read_rotated_file<OtlpTraceOptions>(*otlp, in_project);
  if (auto queue = settings.find("queue")) options.queue = read_queue(*queue);
  if (!options.jsonl && !options.chrome && !options.otlp)
    throw ConfigError(settings.location(), "nothing to write: give at least one of \"jsonl\", \"chrome\" and \"otlp\"");
  // A project's config is about its project; the user's and the administrator's are about none.
  if (in_project) {
    const std::filesystem::path& project = settings.location().project_dir;
    options.project = project.empty() ? std::filesystem::current_path() : project;
    options.confined_to = options.project;
  }
  return options;
}

// The open files. One record at a time: the queue's thread, or emitting
// threads one after another (the lock), so a file's lines never interleave.
struct Tracer::Sinks {
  std::mutex mutex;
  std::optional<detail::JsonlTraceWriter> jsonl;
  std::optional<detail::ChromeTraceWriter> chrome;
  std::optional<detail::OtlpTraceWriter> otlp;

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
}

// A file the tracer cannot open is an error of the config's "trace" settings.
Tracer::Tracer(const ConfigObject& settings, Layer layer) try : Tracer(read_trace_options(settings, layer)) {
} catch (const ConfigError&) {
  throw;
} catch (const Error& error) {
  throw ConfigError(settings.location(), error.what());
}

void Tracer::register_hooks(Registrar& registrar) const {
  registrar.on_emission([sinks = sinks_](const EmissionRecord& record) { sinks->write(record); },
                        {.label = "trace", .kind = HandlerKind::builtin, .queued = queue_});
}

}  // namespace hookbus
