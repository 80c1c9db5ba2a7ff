# run_step(DESCRIPTION COMMAND...) for the -P test scripts (consumer_test.cmake,
# scratch_event_test.cmake): runs a command; on failure stops with its output.
# Leaves stdout in step_output.
function(run_step description)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE errors)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${description} failed (${result}):\n${output}\n${errors}")
  endif()
  set(step_output "${output}" PARENT_SCOPE)
endfunction()
