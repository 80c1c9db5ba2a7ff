// The tracer's settings as a config's "trace" object gives them
// (include/hookbus/trace_options.hpp), read strictly with the config.

#include <hookbus/config.hpp>
#include <hookbus/trace_options.hpp>

#include "config/file_to_write.hpp"
#include "config/http_request_entry.hpp"
#include "net/url.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace hookbus {
namespace {

constexpr std::int64_t kMaxQueueCapacity = 1 << 20;
constexpr std::int64_t kMaxBatchSpans = 1 << 16;
constexpr std::int64_t kMaxFlushIntervalMs = 60'000;
constexpr std::int64_t kMaxTimeoutMs = 600'000;

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

// "otlp" as {"endpoint": "URL", ...}: a Collector's OTLP/HTTP receiver. The
// network allowance is not read here: setup() gives the managed and user
// config's (install_layer_builtins), which no project can widen.
OtlpHttpTraceOptions read_otlp_http(const ConfigObject& object) {
  object.allow_only({"endpoint", "headers", "max_queued_spans", "max_batch_spans", "flush_interval_ms", "timeout_ms"});
  OtlpHttpTraceOptions options;
  const ConfigValue endpoint = object.required("endpoint", "the Collector's OTLP/HTTP URL (string)");
  options.endpoint = endpoint.as_nonempty_string();
  try {
    (void)detail::parse_http_url(options.endpoint);
  } catch (const Error& error) {
    throw ConfigError(endpoint.location(), error.what());
  }
  if (auto headers = object.find("headers")) options.headers = detail::read_http_headers(*headers);
  if (auto spans = object.find("max_queued_spans"))
    options.max_queued_spans = static_cast<std::size_t>(spans->as_integer(1, kMaxQueueCapacity));
  if (auto spans = object.find("max_batch_spans"))
    options.max_batch_spans = static_cast<std::size_t>(spans->as_integer(1, kMaxBatchSpans));
  if (auto interval = object.find("flush_interval_ms"))
    options.flush_interval = Duration(interval->as_integer(1, kMaxFlushIntervalMs));
  if (auto timeout = object.find("timeout_ms")) options.timeout = Duration(timeout->as_integer(1, kMaxTimeoutMs));
  return options;
}

// "otlp": the file's settings, or a Collector's endpoint; not both.
void read_otlp(const ConfigValue& value, bool in_project, TraceOptions& options) {
  if (!value.json().is_object() || !value.json().as_object().contains("endpoint")) {
    options.otlp = read_rotated_file<OtlpTraceOptions>(value, in_project);
    return;
  }
  const ConfigObject object = value.as_object();
  if (object.find("file"))
    throw ConfigError(value.location(), "both \"endpoint\" and \"file\": choose one, \"endpoint\" to send the spans "
                                        "to a Collector or \"file\" to write them to a file");
  options.otlp_http = read_otlp_http(object);
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

}  // namespace

TraceOptions read_trace_options(const ConfigObject& settings, Layer layer) {
  settings.allow_only({"jsonl", "chrome", "otlp", "queue"});
  const bool in_project = is_project_layer(layer);
  TraceOptions options;
  if (auto jsonl = settings.find("jsonl")) options.jsonl = read_rotated_file<JsonlTraceOptions>(*jsonl, in_project);
  if (auto chrome = settings.find("chrome")) options.chrome = detail::file_to_write(*chrome, in_project).path;
  if (auto otlp = settings.find("otlp")) read_otlp(*otlp, in_project, options);
  if (auto queue = settings.find("queue")) options.queue = read_queue(*queue);
  if (!options.jsonl && !options.chrome && !options.otlp && !options.otlp_http)
    throw ConfigError(settings.location(), "nothing to write: give at least one of \"jsonl\", \"chrome\" and \"otlp\"");
  // A project's config is about its project; the user's and the administrator's are about none.
  if (in_project) {
    const std::filesystem::path& project = settings.location().project_dir;
    options.project = project.empty() ? std::filesystem::current_path() : project;
    options.confined_to = options.project;
  }
  return options;
}

}  // namespace hookbus
