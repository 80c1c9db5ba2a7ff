// What a handler tells the trace about its own call (handler_report.hpp).
#include "trace/handler_report.hpp"

#include <utility>

namespace hookbus::detail {
namespace {
thread_local HandlerReport* current_report = nullptr;
}  // namespace

HandlerReport* handler_report() noexcept { return current_report; }

HandlerReportScope::HandlerReportScope(HandlerReport* report) noexcept
    : previous_(std::exchange(current_report, report)) {}

HandlerReportScope::~HandlerReportScope() { current_report = previous_; }

}  // namespace hookbus::detail
