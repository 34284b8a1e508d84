# Every committed results file passes `rdpaudit check` with the expectations of its experiment
# file (issue 5: the expectations are what the audit found). A format change that makes the
# committed files unreadable, or a verdict change on re-running, shows up here.
file(GLOB files ${SOURCE}/results/*.h5)
list(LENGTH files count)
if(count LESS 1)
  message(FATAL_ERROR "no results/*.h5 found under ${SOURCE}")
endif()
foreach(f ${files})
  execute_process(COMMAND ${CLI} check ${f} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "rdpaudit check ${f}: exit ${rc}\n${out}${err}")
  endif()
endforeach()
message(STATUS "${count} committed results pass rdpaudit check")
