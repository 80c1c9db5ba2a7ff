#pragma once
// Test helper: captures what hookbus logs, for as long as it lives. Safe to
// read while other threads (background runs, a persistent hook's stderr
// reader) are logging.
#include <hookbus/log.hpp>

#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace hookbus::testing {

class LogCapture {
 public:
  LogCapture() : sink_(std::make_shared<Sink>()) { set_logger(std::make_shared<spdlog::logger>("hookbus-test", sink_)); }
  ~LogCapture() { set_logger(nullptr); }
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;

  std::string text() const { return sink_->text(); }

  // Waits (at most a few seconds) until the log holds `part`; whether it does.
  bool wait_for(std::string_view part) const {
    for (int i = 0; i < 1000; ++i) {
      if (text().find(part) != std::string::npos) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return text().find(part) != std::string::npos;
  }

 private:
  class Sink : public spdlog::sinks::base_sink<std::mutex> {
   public:
    std::string text() {
      const std::lock_guard lock(mutex_);
      return text_;
    }

   protected:
    void sink_it_(const spdlog::details::log_msg& message) override {
      spdlog::memory_buf_t formatted;
      formatter_->format(message, formatted);
      text_.append(formatted.data(), formatted.size());
    }
    void flush_() override {}

   private:
    std::string text_;
  };

  std::shared_ptr<Sink> sink_;
};

}  // namespace hookbus::testing
