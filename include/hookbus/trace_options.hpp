#pragma once
// The built-in tracer's settings (tracer.hpp), as code gives them and as a
// config's "trace" object (docs/configuration.md, docs/tracing.md) is read
// into them: config reads and checks them with the file (Config::trace), and
// the tracer is made from them when the config's built-ins are installed
// (install_builtins, builtins.hpp).

#include <hookbus/handler_policy.hpp>
#include <hookbus/layers.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>

namespace hookbus {

class ConfigObject;  // config.hpp

struct JsonlTraceOptions {
  std::filesystem::path file{};
  // Once the file would grow past this many bytes it is rotated: FILE becomes
  // FILE.1 (FILE.1 becomes FILE.2, ...) and a new FILE starts with its own
  // header. 0: never by size.
  std::uintmax_t max_bytes = 0;
  // Rotated files kept (FILE.1 to FILE.max_files); older ones are removed.
  // A tracer also rotates a FILE it finds at start, so each run has its own.
  unsigned max_files = 5;

  bool operator==(const JsonlTraceOptions&) const = default;
};

struct OtlpTraceOptions {
  std::filesystem::path file{};
  // Appended to, also across runs (each line stands alone, and a collector
  // may be reading it), until it would grow past this many bytes: then it is
  // rotated as the JSONL file is (FILE becomes FILE.1, ...). 0: never.
  std::uintmax_t max_bytes = std::uintmax_t{64} << 20;
  unsigned max_files = 5;  // rotated files kept (FILE.1 to FILE.max_files)

  bool operator==(const OtlpTraceOptions&) const = default;
};

struct TraceOptions {
  std::optional<JsonlTraceOptions> jsonl{};
  // Written anew by each tracer (a JSON document); the previous one is kept as FILE.1.
  std::optional<std::filesystem::path> chrome{};
  std::optional<OtlpTraceOptions> otlp{};
  // The tracer's delivery queue; nullopt records on the emitting thread.
  std::optional<DeliveryQueue> queue = DeliveryQueue{};
  // The project the trace is about: in the JSONL header and the OTLP resource.
  std::optional<std::filesystem::path> project{};
  // When set, every file must lie inside this directory, outside
  // version-control metadata (.git, ...), and be reached through its own
  // directories: a symbolic link at any directory below it is refused, and
  // so is anything but a regular file with one name at the file's path;
  // what is wrong on disk when the tracer is made is then a warning, not an
  // error (docs/security.md, "Files a project names"). A project's config
  // sets it to the project (read_trace_options): a repository must not make
  // the tracer write outside itself. Whatever it is, a symbolic link at a
  // trace file is refused, never followed.
  std::optional<std::filesystem::path> confined_to{};

  bool operator==(const TraceOptions&) const = default;
};

// Reads the "trace" object of a config of layer `layer` strictly (ConfigError naming the path):
//   "jsonl":  "PATH" or {"file": "PATH", "max_bytes": N, "max_files": N}
//   "chrome": "PATH"
//   "otlp":   "PATH" or {"file": "PATH", "max_bytes": N, "max_files": N}
//   "queue":  {"capacity": N, "overflow": "drop_newest" | "drop_oldest" | "block"}, or false
// At least one of jsonl, chrome and otlp; each path names a file (".", or
// one ending in '/', is a ConfigError). Relative paths are relative to the
// config's project directory (ConfigLocation::project_dir). A project
// layer's config (is_project_layer: a repository's, or a workspace's) is
// about that project (TraceOptions::project), and may name only files
// inside it: an absolute path, one that leaves the project with "..", or
// one into version-control metadata (.git, ...) is a ConfigError, and the
// files are confined to the project (TraceOptions::confined_to).
TraceOptions read_trace_options(const ConfigObject& settings, Layer layer);

}  // namespace hookbus
