#pragma once
// The built-in tracer's settings (tracer.hpp), as code gives them and as a
// config's "trace" object (docs/configuration.md, docs/tracing.md) is read
// into them: config reads and checks them with the file (Config::trace), and
// the tracer is made from them when the config's built-ins are installed
// (install_builtins, builtins.hpp).

#include <hookbus/handler_policy.hpp>
#include <hookbus/layers.hpp>
#include <hookbus/network.hpp>
#include <hookbus/types.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

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

// The spans the OTLP file holds, sent to a Collector's OTLP/HTTP receiver
// instead (docs/tracing.md, "Sending spans to a Collector"): POSTed as JSON
// to `endpoint`, in batches, from a thread of the exporter's own, so that a
// slow or dead Collector never holds up an emit. What cannot be sent (a
// full queue, a refusal, retries that gave up) is dropped, counted and
// logged as a warning.
struct OtlpHttpTraceOptions {
  std::string endpoint{};  // "http://127.0.0.1:4318/v1/traces": POSTed to as given
  // Sent with every request (an API key, a tenant). Their values are never
  // logged: they may hold secrets.
  std::vector<std::pair<std::string, std::string>> headers{};
  // Where requests may go. Config never sets it: setup() gives the managed
  // and user config's allowance (LayeredConfig::network_allowance), so a
  // project cannot send its spans where the user did not allow.
  NetworkAllowance network{};
  // Spans waiting to be sent, at most: more are dropped (the newest), so
  // memory stays bounded while the Collector is away.
  std::size_t max_queued_spans = 2048;
  // Spans per request, at most: a request stays well under a receiver's size limit.
  std::size_t max_batch_spans = 512;
  // How long a span waits for others to share its request; a full batch goes at once.
  Duration flush_interval = std::chrono::seconds(1);
  // One request's whole exchange, at most; and how long the tracer's end
  // waits for what is still queued to be sent.
  Duration timeout = std::chrono::seconds(10);
  // How long a batch is retried (429, 502, 503, 504, no connection) before it is dropped.
  Duration max_retry_time = std::chrono::seconds(30);

  bool operator==(const OtlpHttpTraceOptions&) const = default;
};

struct TraceOptions {
  std::optional<JsonlTraceOptions> jsonl{};
  // Written anew by each tracer (a JSON document); the previous one is kept as FILE.1.
  std::optional<std::filesystem::path> chrome{};
  std::optional<OtlpTraceOptions> otlp{};
  std::optional<OtlpHttpTraceOptions> otlp_http{};
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
//   "otlp":   "PATH" or {"file": "PATH", "max_bytes": N, "max_files": N}, or
//             {"endpoint": "URL", "headers": {"NAME": "VALUE", ...}, "max_queued_spans": N,
//              "max_batch_spans": N, "flush_interval_ms": N, "timeout_ms": N} (otlp_http;
//             its network allowance is not config's: setup() gives it)
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
