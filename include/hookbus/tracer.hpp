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
// Enabled from a config file (`"trace": {...}`, docs/configuration.md, read
// into TraceOptions with the file: trace_options.hpp) or in code;
// docs/tracing.md walks through it.
//
//   hookbus::Tracer tracer({.jsonl = hookbus::JsonlTraceOptions{.file = "trace/session.jsonl"},
//                           .chrome = "trace/session.trace.json",
//                           .otlp = hookbus::OtlpTraceOptions{.file = "trace/session.otlp.jsonl"}});
//   auto tracing = hooks.add(tracer);  // dropping it writes what is queued and stops

#include <hookbus/config.hpp>
#include <hookbus/hooks.hpp>
#include <hookbus/layers.hpp>
#include <hookbus/trace.hpp>
#include <hookbus/trace_options.hpp>

#include <memory>
#include <optional>

namespace hookbus {

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
  // Made from config's "trace" settings at `settings` (Config::trace), a file
  // it cannot open is a ConfigError there.
  Tracer(TraceOptions options, const ConfigLocation& settings);
  // read_trace_options, then the above.
  Tracer(const ConfigObject& settings, Layer layer);
  void register_hooks(Registrar& registrar) const;

 private:
  struct Sinks;
  std::shared_ptr<Sinks> sinks_;
  std::optional<DeliveryQueue> queue_;
};

}  // namespace hookbus
