// The tracer's settings as a config's "trace" object gives them
// (include/hookbus/trace_options.hpp), read strictly with the config.

#include <hookbus/config.hpp>
#include <hookbus/trace_options.hpp>

#include "config/file_to_write.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>

namespace hookbus {
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

}  // namespace hookbus
