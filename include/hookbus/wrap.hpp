#pragma once
// Wrap-style middleware: the steps an engine runs through the bus
// (Hooks::run_step) and the wrappers around them (Hooks::wrap). A wrapper of
// a step gets the step's event and a `next` that runs the rest of the chain
// (the inner wrappers, then the engine's own step); it may call `next` zero
// times (an answer of its own), once, or several times (a retry, a run with
// changed input), and returns the step's output. docs/semantics.md, section 15.
//
//   auto retry = hooks.wrap<hookbus::ToolCallEvent>(
//       [](const hookbus::ToolCallEvent& call, const hookbus::Next<hookbus::ToolCallEvent>& next) {
//         hookbus::ToolOutput output = next(call);
//         return output.is_error ? next(call) : output;
//       },
//       {.label = "retry-once"});
//   hookbus::ToolOutput output = hooks.run_step(call, [&](const hookbus::ToolCallEvent& c) { return run_tool(c); });

#include <hookbus/errors.hpp>
#include <hookbus/events.hpp>
#include <hookbus/results.hpp>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace hookbus {

// What a tool run gives: the content for the model, and whether it is an
// error (the engine's tool_result carries the same two).
struct ToolOutput {
  std::vector<ContentPart> content{};
  bool is_error = false;
  bool operator==(const ToolOutput&) const = default;
};

// The steps that can be wrapped, by the event that describes them: a tool
// run (tool_call: which tool, with which input) gives a ToolOutput; a model
// call (before_model_call: what is sent) gives the model's response.
template <class E> struct step_of;
template <> struct step_of<ToolCallEvent> {
  using Output = ToolOutput;
  static constexpr std::size_t index = 0;
};
template <> struct step_of<BeforeModelCallEvent> {
  using Output = Message;
  static constexpr std::size_t index = 1;
};
inline constexpr std::size_t wrappable_step_count = 2;

template <class E>
concept WrappableStep = requires { typename step_of<E>::Output; };

template <WrappableStep E>
using step_output_t = typename step_of<E>::Output;

// The rest of the chain, as a wrapper sees it: runs the next wrapper (or the
// step) with the event given, which may differ from the one the wrapper got.
// It refers to the run in progress: valid only until the wrapper returns,
// and called by one thread at a time.
template <WrappableStep E>
using Next = std::function<step_output_t<E>(const E&)>;

// A wrapper as it is stored: nullopt is "no output of its own", the output of
// its last `next` when it called one, and an error naming it when it did not.
template <WrappableStep E>
using Wrapper = std::function<std::optional<step_output_t<E>>(const E&, const Next<E>&)>;

// A fail-closed wrapper failed (it threw, or neither called `next` nor
// returned an output): the step was refused. It passes out through the outer
// wrappers, which see it as what their `next` threw, to run_step's caller.
// `what()` is the reason, "hook '<label>' failed: <message>".
class StepRefusedError : public Error {
 public:
  StepRefusedError(const std::string& reason, Decider decided_by) : Error(reason), decided_by_(std::move(decided_by)) {}
  const Decider& decided_by() const noexcept { return decided_by_; }

 private:
  Decider decided_by_;
};

namespace detail {
// A wrapper returns the step's output or std::optional of it.
template <WrappableStep E, class F>
Wrapper<E> make_wrapper(F&& f) {
  using Fn = std::decay_t<F>;
  using R = step_output_t<E>;
  static_assert(std::is_invocable_v<Fn&, const E&, const Next<E>&>, "a wrapper takes (const E&, const Next<E>&)");
  using Ret = std::invoke_result_t<Fn&, const E&, const Next<E>&>;
  static_assert(std::is_convertible_v<Ret, std::optional<R>>,
                "a wrapper returns the step's output (step_output_t<E>) or std::optional of it");
  return Wrapper<E>(std::forward<F>(f));
}
}  // namespace detail

}  // namespace hookbus
