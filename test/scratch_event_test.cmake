# The scratch-event test (CTest: scratch_event, release builds): adding an
# event is one edit (docs/adding-an-event.md), done for real. Copies
# hookbus's include/, lib/ and tools/ to WORK_DIR, makes the one edit in the
# copy's events.hpp (an event holding a new struct and a new enum, added to
# HookEvent), builds test/scratch_event against the copy and checks that
# hookctl's `events` and `schema`, JSON both ways, format_line and the
# external-hook payload all have the new event, with no other change.
#
#   cmake -DSOURCE_DIR=... -DWORK_DIR=... -DGENERATOR=... -DCXX_COMPILER=... [-DLAUNCHER=ccache]
#         -P scratch_event_test.cmake
cmake_minimum_required(VERSION 3.25)

foreach(required SOURCE_DIR WORK_DIR GENERATOR CXX_COMPILER)
  if(NOT DEFINED ${required})
    message(FATAL_ERROR "scratch_event_test.cmake: -D${required}=... is required")
  endif()
endforeach()

include(${CMAKE_CURRENT_LIST_DIR}/run_step.cmake)

file(REMOVE_RECURSE ${WORK_DIR})
set(copy ${WORK_DIR}/hookbus)
file(COPY ${SOURCE_DIR}/include ${SOURCE_DIR}/lib ${SOURCE_DIR}/tools DESTINATION ${copy})

# ---- the one edit: the event (and what it holds) before HookEvent, and its entry in HookEvent

set(scratch_event [=[
enum class ScratchPhase { warming, running, done };
BOOST_DESCRIBE_ENUM(ScratchPhase, warming, running, done)

struct ScratchDetail {
  std::string note{};
  std::uint32_t count = 0;
  bool operator==(const ScratchDetail&) const = default;
};
BOOST_DESCRIBE_STRUCT(ScratchDetail, (), (note, count))

struct ScratchEvent {
  static constexpr std::string_view type = "scratch_event";
  EventContext context = EventContext();
  std::string label{};
  ScratchPhase phase = ScratchPhase::warming;
  std::optional<ScratchDetail> detail{};
  bool operator==(const ScratchEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(ScratchEvent, (), (context, label, phase, detail))

]=])

set(events_hpp ${copy}/include/hookbus/events.hpp)
file(READ ${events_hpp} events)
# Replaces the one occurrence of `anchor` in `events` by `replacement`.
function(edit_once anchor replacement)
  string(FIND "${events}" "${anchor}" first)
  string(FIND "${events}" "${anchor}" last REVERSE)
  if(first EQUAL -1 OR NOT first EQUAL last)
    message(FATAL_ERROR "events.hpp must hold '${anchor}' exactly once (the test's edit anchors on it)")
  endif()
  string(REPLACE "${anchor}" "${replacement}" edited "${events}")
  set(events "${edited}" PARENT_SCOPE)
endfunction()
set(heading "// ------------------------------------------------------------------ HookEvent\n")
edit_once("${heading}" "${scratch_event}${heading}")
edit_once("NotificationEvent>;" "NotificationEvent, ScratchEvent>;")
file(WRITE ${events_hpp} "${events}")

# ---- build the catalogue, the payload and hookctl's catalogue commands from the copy

set(build ${WORK_DIR}/build)
# No build type: no optimisation, the shortest compile.
run_step("configuring test/scratch_event" ${CMAKE_COMMAND} -S ${SOURCE_DIR}/test/scratch_event -B ${build}
         -G ${GENERATOR} -DCMAKE_CXX_COMPILER=${CXX_COMPILER} "-DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER}"
         -DHOOKBUS_SOURCE=${copy})
string(TIMESTAMP started "%s")
run_step("building test/scratch_event against the edited copy" ${CMAKE_COMMAND} --build ${build})
string(TIMESTAMP finished "%s")
math(EXPR seconds "${finished} - ${started}")
message(STATUS "scratch_event: the edited copy built in ${seconds} s")

run_step("running the scratch-event program" ${build}/scratch_event)
set(output "${step_output}")

# ---- what the new event got

# `pattern` must match the output (each section starts with a line "== what").
function(expect what pattern)
  if(NOT output MATCHES "${pattern}")
    message(FATAL_ERROR "${what}: no match for\n  ${pattern}\nin the program's output:\n${output}")
  endif()
endfunction()
set(s "[ \n]*")  # JSON's indentation and line breaks
expect("hookctl events lists the event"
       "\"name\": \"scratch_event\",${s}\"reduction\": \"observe\",")
expect("hookctl events shows the new enum's values"
       "\"name\": \"phase\",${s}\"type\": \"ScratchPhase\",${s}\"values\": \\[${s}\"warming\",${s}\"running\",${s}\"done\"${s}\\]")
expect("hookctl events shows the new struct's type"
       "\"name\": \"detail\",${s}\"type\": \"std::optional<ScratchDetail>\"")
expect("hookctl schema shows an example of the event"
       "== schema scratch_event\n[^=]*\"label\": \"<label>\",${s}\"phase\": \"warming\",${s}\"detail\": {${s}\"note\": \"<note>\",${s}\"count\": 1${s}}")
expect("to_json writes every field"
       "== to_json\n{\"type\":\"scratch_event\",\"context\":{[^\n]*},\"label\":\"build\",\"phase\":\"running\",\"detail\":{\"note\":\"all green\",\"count\":2}}\n")
expect("event_from_json reads it back" "== read back\nequal\n")
expect("format_line renders every field"
       "== format_line\nscratch_event{label=\"build\", phase=running, detail={note=\"all green\", count=2}}\n")
expect("an external hook's payload holds the event"
       "== hook payload\n{\"type\":\"scratch_event\",[^\n]*\"label\":\"build\",\"phase\":\"running\",\"detail\":{\"note\":\"all green\",\"count\":2},[^\n]*\"hook_event_name\":\"scratch_event\",\"event\":\"scratch_event\"")
