# cli_expect_failure(name command cfg out text expected_message [leftover ...]): writes `text`
# to `cfg`, runs `${CLI} command cfg -o out`, and fails the test unless the command exits with
# status 2, its stderr contains `expected_message`, and neither `out`, `out.tmp` nor any
# `leftover` file exists afterwards (bad input writes nothing). `out` and the leftovers are
# removed first, so that a file found after the command is the command's.
function(cli_expect_failure name command cfg out text expected_message)
  set(leftovers ${out} ${ARGN})
  file(REMOVE ${leftovers})
  file(WRITE ${cfg} "${text}")
  execute_process(COMMAND ${CLI} ${command} ${cfg} -o ${out} RESULT_VARIABLE rc
                  ERROR_VARIABLE err OUTPUT_QUIET)
  if(NOT rc EQUAL 2)
    message(FATAL_ERROR "${name}: exit status ${rc}, expected 2 (stderr: ${err})")
  endif()
  string(FIND "${err}" "${expected_message}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${name}: message '${err}' lacks '${expected_message}'")
  endif()
  foreach(file ${out} ${out}.tmp ${ARGN})
    if(EXISTS ${file})
      message(FATAL_ERROR "${name}: left ${file} behind")
    endif()
  endforeach()
  message(STATUS "${name}: ok (${err})")
endfunction()
