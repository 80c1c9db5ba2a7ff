#pragma once
// Internal: copies a catalogue value over an older one of the same type,
// writing only what differs.
//
// A reused EmissionCapture (emission_capture.hpp) holds the event and result
// of an earlier emit, which a queued observer's thread has read since: their
// cache lines are shared with that thread's core. Writing such a line makes
// the emitting core take it back from the other core; reading it does not.
// Consecutive events mostly repeat (the same context, tool names, input
// keys), so comparing before writing spares the emitting thread most of
// those transfers (docs/performance.md, "Tracing").
//
// Afterwards `older == newer` holds, and floating-point values are the same
// bits (-0.0 is not left as 0.0).

#include <hookbus/results.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

namespace hookbus::detail {

// Boost.JSON 1.81's own equality copies each object member it compares; these
// compare in place, in member order: an object whose members were reordered
// counts as changed and is copied whole, which is still right.
void copy_over(boost::json::value& older, const boost::json::value& newer);
void copy_over(boost::json::object& older, const boost::json::object& newer);
void copy_over(boost::json::array& older, const boost::json::array& newer);

// For every event and result of the catalogue, std::monostate and
// std::optional<Decider>: defined and instantiated in copy_over.cpp, out of
// the bus's own (already the longest) file to compile.
template <class T>
void copy_over(T& older, const T& newer);

}  // namespace hookbus::detail
