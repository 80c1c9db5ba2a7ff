// The OTLP/HTTP exporter (lib/trace/trace_writers.hpp): the tracer's thread
// turns each record into spans (OtlpSpanMaker, as the OTLP file has them) and
// queues them; the exporter's sender thread POSTs them to the Collector as
// ExportTraceServiceRequests in JSON, a batch at a time, and retries as the
// OTLP specification says (OTLP/HTTP, "Failures" and "Throttling"): 429, 502,
// 503 and 504 and a failed connection are retried, after the Retry-After the
// answer gives or else an exponential backoff with jitter, until
// max_retry_time; any other status is final. Whatever is not sent is counted
// by why and logged (Drops): nothing is lost in silence, and no header's
// value is ever logged.

#include "trace/trace_writers.hpp"

#include "net/http_client.hpp"
#include "support/logging.hpp"

#include <hookbus/json.hpp>

#include <boost/json/parse.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <pthread.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hookbus::detail {

namespace json = boost::json;
using Clock = std::chrono::steady_clock;

namespace {

// A drop is a warning at once, then at most this often: a dead Collector must not flood the log.
constexpr Clock::duration kWarningInterval = std::chrono::seconds(5);
// The backoff before the first retry, doubled for each one after, up to the last.
constexpr Duration kFirstBackoff = std::chrono::milliseconds(500);
constexpr Duration kLastBackoff = std::chrono::seconds(8);
// What a warning quotes of a Collector's answer (its google.rpc.Status, usually).
constexpr std::size_t kQuotedBodyBytes = 200;

std::string spans_text(std::uint64_t spans) { return fmt::format("{} span{}", spans, spans == 1 ? "" : "s"); }

// Why spans were not sent, as the summary counts them.
enum class DropReason { queue_full, refused, rejected, failed, gave_up };
constexpr std::size_t kDropReasons = 5;

// Spans not sent, by why, and the warnings that say so: at the first drop,
// then at most every kWarningInterval (with how many went unreported
// meanwhile), and a summary when the exporter ends.
class Drops {
 public:
  explicit Drops(std::string endpoint) : endpoint_(std::move(endpoint)) {}

  void sent(std::uint64_t spans) {
    const std::lock_guard lock(mutex_);
    sent_ += spans;
  }

  void drop(DropReason reason, std::uint64_t spans, std::string_view why) {
    const Clock::time_point now = Clock::now();
    std::uint64_t unreported = 0;
    {
      const std::lock_guard lock(mutex_);
      counts_[static_cast<std::size_t>(reason)] += spans;
      if (last_warning_ && now - *last_warning_ < kWarningInterval) {
        unreported_ += spans;
        return;
      }
      last_warning_ = now;
      unreported = std::exchange(unreported_, 0);
    }
    log(spdlog::level::warn, "trace: {} not sent to {}: {}{}", spans_text(spans), endpoint_, why,
        unreported == 0 ? "" : fmt::format(" (and {} since the last warning)", spans_text(unreported)));
  }

  // `unsent`: spans still queued, or in a request, when the exporter stopped.
  void summarize(std::uint64_t unsent, const OtlpHttpTraceOptions& options) const {
    const std::lock_guard lock(mutex_);
    const auto count = [&](DropReason reason) { return counts_[static_cast<std::size_t>(reason)]; };
    std::vector<std::string> parts;
    const auto part = [&](std::uint64_t spans, std::string what) {
      if (spans != 0) parts.push_back(fmt::format("{} {}", spans, what));
    };
    part(count(DropReason::queue_full),
         fmt::format("dropped because the queue ({}) was full", spans_text(options.max_queued_spans)));
    part(count(DropReason::refused), "refused by the network allowance");
    part(count(DropReason::rejected), "rejected by the Collector");
    part(count(DropReason::failed), "lost to requests that failed and are not retried");
    part(count(DropReason::gave_up), fmt::format("given up after retrying for {} ms", options.max_retry_time.count()));
    part(unsent, fmt::format("still unsent when the tracer stopped, having waited {} ms", options.timeout.count()));
    std::uint64_t dropped = unsent;
    for (const std::uint64_t spans : counts_) dropped += spans;
    if (dropped == 0) {
      log(spdlog::level::debug, "trace: sent {} to {}", spans_text(sent_), endpoint_);
      return;
    }
    log(spdlog::level::warn, "trace: spans not sent to {}: {} of {}: {}", endpoint_, dropped, dropped + sent_,
        fmt::join(parts, ", "));
  }

 private:
  const std::string endpoint_;
  mutable std::mutex mutex_;
  std::array<std::uint64_t, kDropReasons> counts_{};
  std::uint64_t sent_ = 0;
  std::uint64_t unreported_ = 0;  // dropped since the last warning
  std::optional<Clock::time_point> last_warning_;
};

bool retryable(unsigned status) { return status == 429 || status == 502 || status == 503 || status == 504; }

// A failure a later attempt may not have: the Collector unreachable, slow, or gone mid-answer.
bool retryable(HttpError::Kind kind) {
  return kind == HttpError::Kind::connect || kind == HttpError::Kind::timeout || kind == HttpError::Kind::protocol;
}

// The spans a 2xx answer says the Collector rejected (OTLP's partial
// success, "rejectedSpans": an int64, a string in the JSON mapping), and its
// message. Dropped, never retried.
std::pair<std::uint64_t, std::string> rejected_spans(std::string_view body) {
  boost::system::error_code error;
  const json::value answer = json::parse(body, error);
  const json::object* partial = nullptr;
  if (!error && answer.is_object())
    if (const json::value* found = answer.as_object().if_contains("partialSuccess"); found && found->is_object())
      partial = &found->as_object();
  if (partial == nullptr) return {0, ""};
  std::uint64_t rejected = 0;
  if (const json::value* spans = partial->if_contains("rejectedSpans")) {
    if (spans->is_string())
      (void)std::from_chars(spans->get_string().data(), spans->get_string().data() + spans->get_string().size(), rejected);
    else if (spans->is_uint64()) rejected = spans->get_uint64();
    else if (spans->is_int64() && spans->get_int64() > 0) rejected = static_cast<std::uint64_t>(spans->get_int64());
  }
  const json::value* message = partial->if_contains("errorMessage");
  return {rejected, message != nullptr && message->is_string() ? std::string(message->get_string()) : ""};
}

std::string quoted_body(std::string_view body) {
  if (body.empty()) return "";
  return fmt::format(": {}{}", body.substr(0, kQuotedBodyBytes), body.size() > kQuotedBodyBytes ? "..." : "");
}

}  // namespace

struct OtlpHttpExporter::State {
  State(const OtlpHttpTraceOptions& options_in, const TraceHeader& about)
      : options(options_in),
        url(parse_http_url(options.endpoint)),
        refusal(origin_refusal(url, options.network)),
        spans(about),
        client(HttpClientOptions{.allowance = options.network}),
        drops(url.text()),
        // A full queue is a full batch: a batch larger than the queue would wait for the interval every time.
        batch_size(std::max<std::size_t>(1, std::min(options.max_batch_spans, options.max_queued_spans))),
        queue_full(fmt::format("the queue of spans waiting to be sent is full ({}): the Collector is slow or "
                               "unreachable",
                               spans_text(options.max_queued_spans))),
        random(std::random_device{}()) {}

  void send_queued(const std::stop_token& stop);
  // What a warning may quote of the Collector's words: `text` with every
  // header's value it echoes (a key it refuses, say) left out.
  std::string without_header_values(std::string text) const;
  // Sends one batch, retrying as OTLP says; false when stopped before its spans were sent or counted.
  bool send(json::array batch, const std::stop_token& stop);
  Duration backoff(int retry);

  const OtlpHttpTraceOptions options;
  const HttpUrl url;
  const std::optional<std::string> refusal;  // why nothing may go to the endpoint's origin
  OtlpSpanMaker spans;                       // spans() on the tracer's thread, request() on the sender's
  HttpClient client;
  Drops drops;
  const std::size_t batch_size;  // spans per request, at most
  const std::string queue_full;   // why spans are dropped, made once: an emitting thread may drop
  std::mt19937_64 random;         // the backoff's jitter; the sender's

  std::mutex mutex;                      // guards the members below
  std::condition_variable_any changed;   // spans queued, the end begun, the sender done
  std::deque<json::value> queued;
  std::size_t in_flight = 0;  // spans of the batch being sent
  bool closing = false;       // the exporter ends: send everything queued now
  bool sender_done = false;   // closing, and nothing is left to send
};

std::string OtlpHttpExporter::State::without_header_values(std::string text) const {
  for (const auto& [name, value] : options.headers) {
    if (value.empty()) continue;
    const std::string stand_in = fmt::format("[the {} header]", name);
    for (std::size_t at = text.find(value); at != std::string::npos; at = text.find(value, at + stand_in.size()))
      text.replace(at, value.size(), stand_in);
  }
  return text;
}

Duration OtlpHttpExporter::State::backoff(int retry) {
  const Duration ceiling = std::min<Duration>(kLastBackoff, kFirstBackoff * (1 << std::min(retry - 1, 4)));
  // Jitter: exporters that failed together do not all come back at once.
  std::uniform_int_distribution<Duration::rep> jitter(ceiling.count() / 2, ceiling.count());
  return Duration(jitter(random));
}

void OtlpHttpExporter::State::send_queued(const std::stop_token& stop) {
  pthread_setname_np(pthread_self(), "hookbus-otlp");  // for debuggers and top: at most 15 bytes
  std::unique_lock lock(mutex);
  for (;;) {
    changed.wait(lock, stop, [&] { return !queued.empty() || closing; });
    if (stop.stop_requested()) return;
    if (queued.empty()) break;
    // The batch fills for a while, unless it is full or the exporter ends.
    changed.wait_for(lock, stop, options.flush_interval, [&] { return queued.size() >= batch_size || closing; });
    if (stop.stop_requested()) return;
    json::array batch;
    batch.reserve(std::min(batch_size, queued.size()));
    while (!queued.empty() && batch.size() < batch_size) {
      batch.push_back(std::move(queued.front()));
      queued.pop_front();
    }
    in_flight = batch.size();
    lock.unlock();
    const bool done = send(std::move(batch), stop);
    lock.lock();
    if (!done) return;  // stopped: the destructor counts the batch as unsent
    in_flight = 0;
  }
  sender_done = true;
  changed.notify_all();
}

bool OtlpHttpExporter::State::send(json::array batch, const std::stop_token& stop) {
  const std::uint64_t count = batch.size();
  HttpRequest request{.url = url,
                      .headers = options.headers,
                      .body = write_json(spans.request(std::move(batch))),
                      .content_type = "application/json",
                      .timeout = options.timeout,
                      .stop = stop};
  const Clock::time_point give_up_at = Clock::now() + options.max_retry_time;
  for (int attempt = 1;; ++attempt) {
    std::string failure;
    Duration wait{0};
    try {
      const HttpResponse response = client.post(request);
      if (response.status >= 200 && response.status < 300) {
        const auto [rejected, message] = rejected_spans(response.body);
        const std::uint64_t rejected_here = std::min(rejected, count);
        drops.sent(count - rejected_here);
        if (rejected_here != 0)
          drops.drop(DropReason::rejected, rejected_here,
                     fmt::format("the Collector accepted the rest of the request, not these{}",
                                 quoted_body(without_header_values(message))));
        return true;
      }
      if (!retryable(response.status)) {
        drops.drop(DropReason::rejected, count,
                   fmt::format("the Collector answered {}, which is not retried{}", response.status,
                               quoted_body(without_header_values(response.body))));
        return true;
      }
      failure = fmt::format("the Collector answered {}", response.status);
      wait = response.retry_after.value_or(backoff(attempt));
    } catch (const HttpError& error) {
      if (error.kind() == HttpError::Kind::cancelled) return false;
      if (error.kind() == HttpError::Kind::refused) {
        drops.drop(DropReason::refused, count, error.what());
        return true;
      }
      if (!retryable(error.kind())) {
        drops.drop(DropReason::failed, count, error.what());
        return true;
      }
      failure = error.what();
      wait = backoff(attempt);
    } catch (const std::exception& error) {  // a header the client will not send, given in code
      drops.drop(DropReason::failed, count, error.what());
      return true;
    }
    if (Clock::now() + wait >= give_up_at) {
      drops.drop(DropReason::gave_up, count,
                 fmt::format("gave up after {} attempt{} within {} ms, the last: {}", attempt, attempt == 1 ? "" : "s",
                             options.max_retry_time.count(), failure));
      return true;
    }
    std::unique_lock lock(mutex);
    changed.wait_for(lock, stop, wait, [] { return false; });  // the backoff, unless the exporter stops first
    if (stop.stop_requested()) return false;
  }
}

OtlpHttpExporter::OtlpHttpExporter(const OtlpHttpTraceOptions& options, const TraceHeader& about)
    : state_(std::make_unique<State>(options, about)) {
  if (state_->refusal) {
    log(spdlog::level::warn, "trace: {}", *state_->refusal);
    return;  // no sender: every span is counted as refused
  }
  sender_ = std::jthread([state = state_.get()](const std::stop_token& stop) { state->send_queued(stop); });
}

OtlpHttpExporter::~OtlpHttpExporter() {
  if (sender_.joinable()) {
    std::unique_lock lock(state_->mutex);
    state_->closing = true;
    state_->changed.notify_all();
    // What is queued goes now; what the Collector has not taken by the deadline is dropped.
    state_->changed.wait_until(lock, Clock::now() + state_->options.timeout, [&] { return state_->sender_done; });
    lock.unlock();
    sender_.request_stop();  // cancels the request in flight, ends a backoff
    sender_.join();
  }
  state_->drops.summarize(state_->queued.size() + state_->in_flight, state_->options);
}

void OtlpHttpExporter::write(const EmissionRecord& record) {
  State& state = *state_;
  json::array spans = state.spans.spans(record);
  const std::uint64_t count = spans.size();
  if (state.refusal) {
    state.drops.drop(DropReason::refused, count,
                     "the network allowance does not name its origin (\"network\": {\"allowed_origins\": [...]} in "
                     "the user's or the managed config)");
    return;
  }
  {
    const std::lock_guard lock(state.mutex);
    if (state.queued.size() + spans.size() <= state.options.max_queued_spans) {
      const bool was_empty = state.queued.empty();
      for (json::value& span : spans) state.queued.push_back(std::move(span));
      // The sender waits for a first span, then for a full batch: it is woken for those only.
      if (was_empty || state.queued.size() >= state.batch_size) state.changed.notify_all();
      return;
    }
  }
  // The newest go: the record's spans together, so that no trace is left without its root.
  state.drops.drop(DropReason::queue_full, count, state.queue_full);
}

}  // namespace hookbus::detail
