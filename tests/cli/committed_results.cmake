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
# Small enough for a repository (27 MB before string columns were stored compressed and the
# quickstart's output untracked): each file at most 2 MB, so no file holds raw samples; the
# total grows with the number of experiments, about 1 MB each.
set(total 0)
foreach(f ${files})
  file(SIZE ${f} size)
  math(EXPR total "${total} + ${size}")
  get_filename_component(name ${f} NAME)
  if(name STREQUAL "quickstart.h5")
    message(STATUS "results/quickstart.h5 is the quickstart's untracked output")
  endif()
  if(size GREATER 2000000)
    message(FATAL_ERROR "${name} holds ${size} bytes (at most 2 MB per file: no raw samples, compressed tables)")
  endif()
endforeach()
message(STATUS "${count} committed results pass rdpaudit check (${total} bytes)")
