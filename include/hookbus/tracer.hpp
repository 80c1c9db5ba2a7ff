#pragma once
// The built-in tracer: records every emit of a bus (Hooks::on_emission) to
// files, in up to three formats at once, off the emitting thread by default:
//
//   jsonl   hookbus's trace file (trace.hpp): a header line, one line per emit
//           with the whole event, every handler's outcome and the result;
//           what `hookctl replay` and `hookctl trace` read.
//   chrome  the Chrome trace event format (JSON): one complete event per emit
//           and per handler, one track per thread; opens in Perfetto
//           (ui.perfetto.dev) and chrome://tracing.
//   otlp    OpenTelemetry spans as OTLP/JSON lines (ExportTraceServiceRequest),
//           one span per emit with a child per handler: the file the
//           Collector's otlpjsonfile receiver reads.
//
// Enabled from a config file (`"trace": {...}`, docs/configuration.md) or in
// code; docs/tracing.md walks through it.
//
//   hookbus::Tracer tracer({.jsonl = hookbus::JsonlTraceOptions{.file = "trace/session.jsonl"},
//                           .chrome = "trace/session.trace.json",
//                           .otlp = hookbus::OtlpTraceOptions{.file = "trace/session.otlp.jsonl"}});
//   auto tracing = hooks.add(tracer);  // dropping it writes what is queued and stops

#include <hookbus/config.hpp>
#include <hookbus/hooks.hpp>
#include <hookbus/layers.hpp>
#include <hookbus/trace.hpp>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>

namespace hookbus {

struct JsonlTraceOptions {
  std::filesystem::path file{};
  // Once the file would grow past this many bytes it is rotated: FILE becomes
  // FILE.1 (FILE.1 becomes FILE.2, ...) and a new FILE starts with its own
  // header. 0: never by size.
  std::uintmax_t max_bytes = 0;
  // Rotated files kept (FILE.1 to FILE.max_files); older ones are removed.
  // A tracer also rotates a FILE it finds at start, so each run has its own.
  unsigned max_files = 5;
};

struct OtlpTraceOptions {
  std::filesystem::path file{};
  // Appended to, also across runs (each line stands alone, and a collector
  // may be reading it), until it would grow past this many bytes: then it is
  // rotated as the JSONL file is (FILE becomes FILE.1, ...). 0: never.
  std::uintmax_t max_bytes = std::uintmax_t{64} << 20;
  unsigned max_files = 5;  // rotated files kept (FILE.1 to FILE.max_files)
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

// A provider (`hooks.add(tracer)`) registering one emission observer,
// labelled "trace", that writes each record to every configured file. Making
// the tracer creates the files' directories and checks that the files can be
// written (an Error naming the file, a ConfigError at the "trace" settings for
// a tracer made from config; for confined files, what is wrong on disk is a
// warning in the log); each file is created (mode 0600) with its first
// record, so a bus that emits nothing leaves the files alone. A file that cannot be written
// later is reported as the observer's failure (on_handler_error), and the other files
// still get the record. The files are finished (the Chrome trace's closing
// bracket) when the last of the tracer and its observer is gone.
class Tracer {
 public:
  explicit Tracer(TraceOptions options);
  Tracer(const ConfigObject& settings, Layer layer);
  void register_hooks(Registrar& registrar) const;

 private:
  struct Sinks;
  std::shared_ptr<Sinks> sinks_;
  std::optional<DeliveryQueue> queue_;
};

}  // namespace hookbus
