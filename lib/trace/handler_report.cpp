// What a handler tells the trace about its own call (handler_report.hpp).
#include "trace/handler_report.hpp"

#include <utility>

namespace hookbus::detail {
HandlerReportScope::HandlerReportScope(HandlerReport* report) noexcept
    : previous_(std::exchange(current_handler_report, report)) {}

HandlerReportScope::~HandlerReportScope() { current_handler_report = previous_; }

}  // namespace hookbus::detail
