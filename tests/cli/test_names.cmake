# Fails when a Catch test name holds ';': catch_discover_tests would split it into ctest
# entries that match no test, so the test would never run (issue 37, 14 such tests).
# (Catch2 2.x exits with the number of tests listed: the output is what counts.)
execute_process(COMMAND ${EXE} --list-test-names-only OUTPUT_VARIABLE names)
if(names STREQUAL "")
  message(FATAL_ERROR "${EXE} --list-test-names-only listed no tests")
endif()
string(FIND "${names}" ";" at)
if(NOT at EQUAL -1)
  string(REPLACE ";" "<;>" shown "${names}")
  string(REGEX MATCHALL "[^\n]*<;>[^\n]*" bad "${shown}")
  message(FATAL_ERROR "test names with ';' (never run by ctest): ${bad}")
endif()
