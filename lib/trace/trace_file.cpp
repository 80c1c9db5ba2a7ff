// The trace file's lines (include/hookbus/trace.hpp): EmissionRecord and
// TraceHeader to and from JSON, through the catalogue's JSON (to_json,
// event_from_json, the one strict text reader and write_json).

#include <hookbus/json.hpp>
#include <hookbus/names.hpp>
#include <hookbus/reflect.hpp>
#include <hookbus/trace.hpp>

#include "catalogue/json_text.hpp"
#include "support/files.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <istream>
#include <sstream>
#include <limits>
#include <system_error>
#include <utility>

namespace hookbus {
namespace {

namespace json = boost::json;
using namespace std::chrono;

constexpr std::string_view kProtocols[] = {"hookbus", "kodelet", "claude_code"};

// An action that carries the handler's reason.
bool has_reason(HandlerAction action) noexcept {
  switch (action) {
    case HandlerAction::allow:
    case HandlerAction::ask:
    case HandlerAction::defer:
    case HandlerAction::deny:
    case HandlerAction::cancel:
    case HandlerAction::reject:
    case HandlerAction::handled:
    case HandlerAction::stop: return true;
    default: return false;
  }
}

template <class E>
std::string_view name_of(E value) {
  return *reflect::enum_wire_name(value);
}

// "2026-11-24T21:00:00.123456Z"
// From the date and time of day, not fmt's chrono formatting, which goes
// through nanoseconds since 1970 and overflows outside 1678-2262.
std::string iso8601(sys_time<microseconds> time) {
  const auto day = floor<std::chrono::days>(time);
  const year_month_day date{day};
  const std::chrono::hh_mm_ss<microseconds> clock{time - day};
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z", static_cast<int>(date.year()),
                     static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()), clock.hours().count(),
                     clock.minutes().count(), clock.seconds().count(), clock.subseconds().count());
}

// "YYYY-MM-DDTHH:MM:SS" with an optional fraction of 1 to 9 digits, then "Z".
std::optional<sys_time<microseconds>> parse_utc(std::string_view text) {
  const auto digits = [&](std::size_t at, std::size_t count, int& out) {
    if (at + count > text.size()) return false;
    const auto [end, ec] = std::from_chars(text.data() + at, text.data() + at + count, out);
    return ec == std::errc() && end == text.data() + at + count;
  };
  const auto separator = [&](std::size_t at, char expected) { return at < text.size() && text[at] == expected; };
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!digits(0, 4, year) || !separator(4, '-') || !digits(5, 2, month) || !separator(7, '-') || !digits(8, 2, day) ||
      !separator(10, 'T') || !digits(11, 2, hour) || !separator(13, ':') || !digits(14, 2, minute) ||
      !separator(16, ':') || !digits(17, 2, second))
    return std::nullopt;
  std::size_t at = 19;
  long fraction_ns = 0;
  if (separator(at, '.')) {
    const std::size_t first = ++at;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9') ++at;
    const std::size_t count = at - first;
    if (count < 1 || count > 9) return std::nullopt;
    std::from_chars(text.data() + first, text.data() + at, fraction_ns);
    for (std::size_t i = count; i < 9; ++i) fraction_ns *= 10;
  }
  if (at + 1 != text.size() || text[at] != 'Z') return std::nullopt;
  const year_month_day date{std::chrono::year(year), std::chrono::month(static_cast<unsigned>(month)),
                            std::chrono::day(static_cast<unsigned>(day))};
  if (!date.ok() || hour > 23 || minute > 59 || second > 59) return std::nullopt;
  // In microseconds throughout: nanoseconds since 1970 overflow outside 1678-2262.
  return sys_time<microseconds>(sys_days(date) + hours(hour) + minutes(minute) + seconds(second)) +
         microseconds(fraction_ns / 1000);
}

// ---------------------------------------------------------------- reading

// Where a reader is in one line: the source and line for the message, and the
// JSON path of the value at fault.
class Where {
 public:
  Where(std::string_view source, std::size_t line, std::string path = {})
      : source_(source), line_(line), path_(std::move(path)) {}

  [[nodiscard]] Where member(std::string_view key) const {
    return Where(source_, line_, path_.empty() ? std::string(key) : path_ + "." + std::string(key));
  }
  [[nodiscard]] Where element(std::size_t index) const {
    return Where(source_, line_, fmt::format("{}[{}]", path_, index));
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw TraceError(std::string(source_), line_, path_.empty() ? what : path_ + ": " + what);
  }
  [[noreturn]] void fail_expected(std::string_view expected, const json::value& got) const {
    fail(fmt::format("expected {}, got {}", expected, detail::json_kind_name(got)));
  }

 private:
  std::string_view source_;
  std::size_t line_;
  std::string path_;
};

// One JSON object of a line, read strictly; unknown keys are left alone.
class Fields {
 public:
  Fields(const json::value& value, Where where) : where_(std::move(where)) {
    if (!value.is_object()) where_.fail_expected("object", value);
    object_ = &value.get_object();
  }

  [[nodiscard]] const json::value* find(std::string_view key) const { return object_->if_contains(key); }

  [[nodiscard]] const json::value& required(std::string_view key) const {
    if (const auto* value = find(key)) return *value;
    where_.fail(fmt::format("missing required key '{}'", key));
  }

  [[nodiscard]] std::string string(std::string_view key) const {
    const json::value& value = required(key);
    if (!value.is_string()) at(key).fail_expected("string", value);
    return std::string(value.get_string());
  }

  // An optional string: absent is "".
  [[nodiscard]] std::string string_or_empty(std::string_view key) const {
    const json::value* value = find(key);
    if (value == nullptr) return {};
    if (!value->is_string()) at(key).fail_expected("string", *value);
    return std::string(value->get_string());
  }

  template <class Integer>
  [[nodiscard]] Integer integer(std::string_view key, Integer min = std::numeric_limits<Integer>::min()) const {
    const json::value& value = required(key);
    const auto out_of_range = [&] {
      at(key).fail(fmt::format("expected integer from {} to {}, got {}", min, std::numeric_limits<Integer>::max(),
                               write_json(value)));
    };
    if (value.is_int64()) {
      if (!std::in_range<Integer>(value.get_int64()) || static_cast<Integer>(value.get_int64()) < min) out_of_range();
      return static_cast<Integer>(value.get_int64());
    }
    if (value.is_uint64()) {
      if (!std::in_range<Integer>(value.get_uint64())) out_of_range();
      return static_cast<Integer>(value.get_uint64());
    }
    at(key).fail_expected("integer", value);
  }

  template <class E>
  [[nodiscard]] E enumerator(std::string_view key) const {
    const std::string name = string(key);
    if (auto value = reflect::enum_from_wire_name<E>(name)) return *value;
    at(key).fail(fmt::format("unknown value '{}'; expected one of: {}", name,
                             fmt::join(reflect::enum_wire_names<E>(), ", ")));
  }

  [[nodiscard]] Where at(std::string_view key) const { return where_.member(key); }
  [[nodiscard]] const Where& where() const noexcept { return where_; }

 private:
  const json::object* object_ = nullptr;
  Where where_;
};

json::value parse_line(std::string_view line, const Where& where) {
  auto parsed = detail::parse_json_text(line);
  if (auto* document = std::get_if<json::value>(&parsed)) return std::move(*document);
  const auto& problem = std::get<detail::JsonTextProblem>(parsed);
  const std::string path = detail::json_path_text(problem.path);
  where.fail(fmt::format("invalid JSON at {}: {}{}{}", detail::line_and_column(line, problem.offset), path,
                         path.empty() ? "" : ": ", problem.what));
}

// A catalogue conversion's JsonError, as an error of this line at `where`.
template <class Read>
auto reading_catalogue(const Where& where, Read&& read) {
  try {
    return read();
  } catch (const JsonError& error) {
    where.fail(error.what());
  }
}

HandlerRecord read_handler(const Fields& fields) {
  HandlerRecord handler;
  handler.label = fields.string("label");
  handler.kind = fields.enumerator<RecordedKind>("kind");
  handler.source = fields.string("source");
  handler.protocol = fields.string("protocol");
  if (!handler.protocol.empty() && std::find(std::begin(kProtocols), std::end(kProtocols), handler.protocol) == std::end(kProtocols))
    fields.at("protocol").fail(fmt::format("unknown protocol '{}'; expected one of: {} (or \"\")", handler.protocol,
                                           fmt::join(kProtocols, ", ")));
  if (const std::string layer = fields.string("layer"); !layer.empty()) {
    handler.layer = layer_from_name(layer);
    if (!handler.layer)
      fields.at("layer").fail(fmt::format("unknown layer '{}'; expected one of: managed, user, project, local (or \"\")", layer));
  }
  handler.start_offset = nanoseconds(fields.integer<std::int64_t>("start_offset_ns", 0));
  handler.duration = nanoseconds(fields.integer<std::int64_t>("duration_ns", 0));
  handler.action = fields.enumerator<HandlerAction>("action");
  if (has_reason(handler.action)) handler.reason = fields.string_or_empty("reason");
  if (handler.action == HandlerAction::failed) handler.error = fields.string("error");
  if (fields.find("ran_ahead") != nullptr) handler.ran_ahead = fields.enumerator<RanAhead>("ran_ahead");
  return handler;
}

// The labels of the handlers whose runs ahead were stopped (optional: absent is none).
std::vector<std::string> read_runs_stopped(const Fields& fields) {
  std::vector<std::string> labels;
  const json::value* value = fields.find("runs_stopped");
  if (value == nullptr) return labels;
  if (!value->is_array()) fields.at("runs_stopped").fail_expected("array", *value);
  for (std::size_t i = 0; i < value->get_array().size(); ++i) {
    const json::value& label = value->get_array()[i];
    if (!label.is_string()) fields.at("runs_stopped").element(i).fail_expected("string", label);
    labels.emplace_back(label.get_string());
  }
  return labels;
}

bool has_error(StepOutcome outcome) noexcept { return outcome != StepOutcome::output; }

// A step's levels: each parent is a wrapper that started before the level.
StepRecord read_step(const Fields& fields) {
  StepRecord step;
  const json::value& levels = fields.required("levels");
  if (!levels.is_array()) fields.at("levels").fail_expected("array", levels);
  const auto& array = levels.get_array();
  step.levels.reserve(array.size());
  for (std::size_t i = 0; i < array.size(); ++i) {
    const Fields level_fields(array[i], fields.at("levels").element(i));
    StepLevelRecord level;
    const std::string kind = level_fields.string("kind");
    if (kind != "wrapper" && kind != "step")
      level_fields.at("kind").fail(fmt::format("unknown value '{}'; expected one of: wrapper, step", kind));
    level.step = kind == "step";
    level.label = level_fields.string("label");
    level.source = level_fields.string_or_empty("source");
    if (const json::value& parent = level_fields.required("parent"); !parent.is_null()) {
      level.parent = level_fields.integer<std::uint32_t>("parent");
      if (*level.parent >= i || step.levels[*level.parent].step)
        level_fields.at("parent").fail(fmt::format(
            "expected the index of a wrapper listed before this level (0 to {}), got {}", i == 0 ? 0 : i - 1,
            *level.parent));
    }
    level.start_offset = nanoseconds(level_fields.integer<std::int64_t>("start_offset_ns", 0));
    level.duration = nanoseconds(level_fields.integer<std::int64_t>("duration_ns", 0));
    level.next_calls = level_fields.integer<std::uint32_t>("next_calls");
    level.outcome = level_fields.enumerator<StepOutcome>("outcome");
    if (has_error(level.outcome)) level.error = level_fields.string("error");
    step.levels.push_back(std::move(level));
  }
  return step;
}

json::object step_json(const StepRecord& step) {
  json::array levels;
  levels.reserve(step.levels.size());
  for (const StepLevelRecord& level : step.levels) {
    json::object line{{"kind", level.step ? "step" : "wrapper"},
                      {"label", level.label},
                      {"source", level.source},
                      {"parent", level.parent ? json::value(*level.parent) : json::value(nullptr)},
                      {"start_offset_ns", level.start_offset.count()},
                      {"duration_ns", level.duration.count()},
                      {"next_calls", level.next_calls},
                      {"outcome", name_of(level.outcome)}};
    if (has_error(level.outcome)) line.emplace("error", level.error);
    levels.emplace_back(std::move(line));
  }
  return {{"levels", std::move(levels)}};
}

}  // namespace

TraceError::TraceError(std::string source, std::size_t line, const std::string& what)
    : Error(line == 0 ? fmt::format("{}: {}", source, what) : fmt::format("{}:{}: {}", source, line, what)),
      source_(std::move(source)),
      line_(line) {}

// ------------------------------------------------------------------ writing

json::object trace_json(const TraceHeader& header) {
  return {{"hookbus_trace", trace_format_version},
          {"started", iso8601(header.started)},
          {"pid", header.pid},
          {"host", header.host},
          {"project", header.project ? json::value(header.project->string()) : json::value(nullptr)}};
}

json::object trace_json(const EmissionRecord& record) {
  json::array handlers;
  handlers.reserve(record.handlers.size());
  for (const HandlerRecord& handler : record.handlers) {
    json::object line{{"label", handler.label},
                      {"kind", name_of(handler.kind)},
                      {"source", handler.source},
                      {"protocol", handler.protocol},
                      {"layer", handler.layer ? layer_name(*handler.layer) : std::string_view()},
                      {"start_offset_ns", handler.start_offset.count()},
                      {"duration_ns", handler.duration.count()},
                      {"action", name_of(handler.action)}};
    if (has_reason(handler.action) && !handler.reason.empty()) line.emplace("reason", handler.reason);
    if (handler.action == HandlerAction::failed) line.emplace("error", handler.error);
    if (handler.ran_ahead != RanAhead::no) line.emplace("ran_ahead", name_of(handler.ran_ahead));
    handlers.emplace_back(std::move(line));
  }
  json::object line{{"seq", record.seq},
                    {"event", event_name(record.payload)},
                    {"thread", record.thread},
                    {"start_ns", record.start.time_since_epoch().count()},
                    {"duration_ns", record.duration.count()},
                    {"payload", to_json(record.payload)},
                    {"handlers", std::move(handlers)},
                    {"result", to_json(record.result)},
                    {"decided_by", record.decided_by ? to_json(*record.decided_by) : json::value(nullptr)}};
  if (record.step) line.emplace("step", step_json(*record.step));
  if (!record.runs_stopped.empty()) {
    json::array stopped;
    for (const std::string& label : record.runs_stopped) stopped.emplace_back(label);
    line.emplace("runs_stopped", std::move(stopped));
  }
  return line;
}

std::string trace_line(const TraceHeader& header) { return write_json(trace_json(header)); }
std::string trace_line(const EmissionRecord& record) { return write_json(trace_json(record)); }

// ------------------------------------------------------------------ reading

TraceHeader read_trace_header(std::string_view line, std::string_view source, std::size_t line_number) {
  const Where where(source, line_number);
  const json::value document = parse_line(line, where);
  if (!document.is_object() || !document.get_object().contains("hookbus_trace"))
    where.fail(fmt::format("not a hookbus trace: the first line must be its header, "
                           "{{\"hookbus_trace\": {}, \"started\": ..., \"pid\": ..., \"host\": ..., \"project\": ...}}",
                           trace_format_version));
  const Fields fields(document, where);
  if (const json::value& version = fields.required("hookbus_trace");
      !version.is_int64() || version.get_int64() < oldest_trace_format_version ||
      version.get_int64() > trace_format_version)
    fields.at("hookbus_trace")
        .fail(fmt::format("trace format {} is not one this hookbus reads (it reads {} to {}); {}", write_json(version),
                          oldest_trace_format_version, trace_format_version,
                          version.is_int64() && version.get_int64() > trace_format_version
                              ? "a newer hookbus wrote it"
                              : "the header's hookbus_trace is the format version the file was written in"));
  TraceHeader header;
  const std::string started = fields.string("started");
  const auto time = parse_utc(started);
  if (!time)
    fields.at("started").fail(
        fmt::format("expected a UTC time like \"2026-11-24T21:00:00.123456Z\", got \"{}\"", started));
  header.started = *time;
  header.pid = fields.integer<std::int64_t>("pid", 0);
  header.host = fields.string("host");
  if (const json::value& project = fields.required("project"); !project.is_null()) {
    if (!project.is_string()) fields.at("project").fail_expected("string or null", project);
    header.project = std::filesystem::path(std::string(project.get_string()));
  }
  return header;
}

EmissionRecord read_emission_record(std::string_view line, std::string_view source, std::size_t line_number) {
  const Where where(source, line_number);
  const json::value document = parse_line(line, where);
  const Fields fields(document, where);
  EmissionRecord record;
  record.seq = fields.integer<std::uint64_t>("seq");
  const std::string event = fields.string("event");
  const std::optional<std::size_t> index = find_event(event);
  if (!index) fields.at("event").fail(fmt::format("unknown event '{}'", event));
  if (event_name(*index) != event)
    fields.at("event").fail(fmt::format("expected the wire name '{}', got the alias '{}'", event_name(*index), event));
  record.thread = fields.integer<std::uint32_t>("thread");
  record.start = sys_time<nanoseconds>(nanoseconds(fields.integer<std::int64_t>("start_ns", 0)));
  record.duration = nanoseconds(fields.integer<std::int64_t>("duration_ns", 0));
  const Where payload_at = fields.at("payload");
  record.payload = reading_catalogue(payload_at, [&] { return event_from_json(*index, fields.required("payload")); });
  const json::value& handlers = fields.required("handlers");
  if (!handlers.is_array()) fields.at("handlers").fail_expected("array", handlers);
  const auto& array = handlers.get_array();
  record.handlers.reserve(array.size());
  for (std::size_t i = 0; i < array.size(); ++i)
    record.handlers.push_back(read_handler(Fields(array[i], fields.at("handlers").element(i))));
  const json::value& result = fields.required("result");
  if (const json::value* step = fields.find("step")) {
    // A run of a wrapped step: no handlers and no result of an emit.
    if (*index != event_index<ToolCallEvent> && *index != event_index<BeforeModelCallEvent>)
      fields.at("event").fail(fmt::format("'{}' is not a step that can be wrapped; a step line is of tool_call or "
                                          "before_model_call",
                                          event));
    if (!record.handlers.empty()) fields.at("handlers").fail("expected []: a step line records no handlers");
    if (!result.is_null()) fields.at("result").fail("expected null: a step line has no result");
    record.step = read_step(Fields(*step, fields.at("step")));
  } else if (!has_result_at[*index]) {
    if (!result.is_null()) fields.at("result").fail(fmt::format("expected null: '{}' has no result", event));
  } else {
    if (!result.is_object()) fields.at("result").fail_expected("object", result);
    record.result = reading_catalogue(fields.at("result"), [&] { return outcome_from_json(*index, result); });
  }
  if (const json::value& decider = fields.required("decided_by"); !decider.is_null())
    record.decided_by = reading_catalogue(fields.at("decided_by"), [&] { return from_json<Decider>(decider); });
  record.runs_stopped = read_runs_stopped(fields);
  return record;
}

TraceReader::TraceReader(std::istream& in, std::string source) : in_(in), source_(std::move(source)) {
  std::string text;
  if (!read_line(text)) throw TraceError(source_, 0, "empty file: a trace starts with its header line");
  header_ = read_trace_header(text, source_, line_);
}

bool TraceReader::read_line(std::string& text) {
  if (!std::getline(in_, text)) {
    if (in_.bad()) throw TraceError(source_, line_ + 1, "cannot read the line");
    return false;
  }
  ++line_;
  if (text.size() > max_trace_line_bytes)
    throw TraceError(source_, line_,
                     fmt::format("the line is {} bytes, over the limit of {} bytes", text.size(), max_trace_line_bytes));
  return true;
}

std::optional<EmissionRecord> TraceReader::next() {
  std::string text;
  if (!read_line(text)) return std::nullopt;
  if (text.empty())
    throw TraceError(source_, line_, "empty line; every line after the header is one emit or one step");
  return read_emission_record(text, source_, line_);
}

std::string read_trace_text(const std::filesystem::path& file) {
  try {
    return detail::read_regular_file(file, max_trace_file_bytes);
  } catch (const detail::FileReadError& error) {
    throw TraceError(file.string(), 0, error.what());
  }
}

Trace read_trace_file(const std::filesystem::path& file) {
  std::istringstream in(read_trace_text(file));
  TraceReader reader(in, file.string());
  Trace trace{reader.header(), {}};
  while (auto record = reader.next()) trace.records.push_back(std::move(*record));
  return trace;
}

}  // namespace hookbus
