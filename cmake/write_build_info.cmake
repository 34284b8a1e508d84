# Run at every build (not only at configure time) so results files record the commit the
# binary was really built from. configure_file leaves the header untouched when nothing
# changed, so an unchanged hash recompiles nothing.
execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE RDPAUDIT_GIT_HASH OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
execute_process(COMMAND git status --porcelain --untracked-files=no WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT RDPAUDIT_GIT_HASH)
  set(RDPAUDIT_GIT_HASH "unknown")
elseif(dirty)
  string(APPEND RDPAUDIT_GIT_HASH "-dirty")
endif()
configure_file(${SOURCE_DIR}/cmake/build_info.hpp.in ${OUTPUT} @ONLY)
