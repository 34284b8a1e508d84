# Regression audits (issue 5): a closed-form Gaussian pair where a custom bound 10x too small
# must be reported violated, a 10x loose one and the exact (tight) Gaussian bound must hold,
# `check` must pass with the file's expectations and fail loudly when an expectation is wrong.
file(MAKE_DIRECTORY ${WORK})
set(cfg ${SOURCE}/tests/data/audit_regression.toml)
execute_process(COMMAND ${CLI} run ${cfg} -o ${WORK}/regression.h5 --threads 2
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "run: exit ${rc}: ${err}")
endif()
execute_process(COMMAND ${CLI} check ${WORK}/regression.h5 RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "check with the file's expectations: exit ${rc}\n${out}")
endif()
# The exact value (quadrature) decides every cell here: certain verdicts.
foreach(row "ten_times_too_small +custom +violated +violated \\(exact\\) +8 +0 +0 +0 +0 "
            "ten_times_loose +custom +holds +valid \\(exact\\) +0 +0 +8 +0 +0 "
            "gaussian_composition +theorem +holds +valid \\(exact\\) +0 +0 +8 +0 +0 ")
  if(NOT out MATCHES "${row}")
    message(FATAL_ERROR "check: no row '${row}':\n${out}")
  endif()
endforeach()

# From the samples alone (bounds.exact_verdicts = false): the samples show the violation, and
# cannot show validity: the valid bounds are only "not rejected".
file(READ ${cfg} text)
string(REPLACE "[bounds]" "[bounds]\nexact_verdicts = false" text "${text}")
file(WRITE ${WORK}/regression_samples.toml "${text}")
execute_process(COMMAND ${CLI} run ${WORK}/regression_samples.toml -o ${WORK}/samples.h5
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "run (samples only): exit ${rc}: ${err}")
endif()
execute_process(COMMAND ${CLI} check ${WORK}/samples.h5 RESULT_VARIABLE rc OUTPUT_VARIABLE out)
foreach(row "ten_times_too_small +custom +violated +violated +8 +0 +0 +0 +0 "
            "ten_times_loose +custom +holds +not rejected +0 +8 +0 +0 +0 +0 "
            "gaussian_composition +theorem +holds +not rejected +0 +8 +0 +0 +0 ")
  if(NOT rc EQUAL 0 OR NOT out MATCHES "${row}")
    message(FATAL_ERROR "check (samples only): exit ${rc}, no row '${row}':\n${out}")
  endif()
endforeach()

# The same audit with the expectation removed: check must fail and name the bound.
file(READ ${cfg} text)
string(REPLACE "expect = \"violated\"" "" text "${text}")
file(WRITE ${WORK}/regression_wrong.toml "${text}")
execute_process(COMMAND ${CLI} run ${WORK}/regression_wrong.toml -o ${WORK}/wrong.h5
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "run (wrong expectation): exit ${rc}: ${err}")
endif()
execute_process(COMMAND ${CLI} check ${WORK}/wrong.h5 RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(NOT rc EQUAL 1 OR NOT out MATCHES "FAIL" OR NOT out MATCHES "ten_times_too_small: expected holds, found violated")
  message(FATAL_ERROR "check must fail on an unexpected violation: exit ${rc}\n${out}")
endif()

execute_process(COMMAND ${CLI} report ${WORK}/regression.h5 RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0 OR NOT out MATCHES "audit: family-wise level 0.05")
  message(FATAL_ERROR "report: exit ${rc}\n${out}")
endif()

# rdpaudit plot: the Python figures of the run (Debian's interpreter has matplotlib).
execute_process(COMMAND ${CLI} plot ${WORK}/regression.h5 --out ${WORK}/plots
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT EXISTS ${WORK}/plots/audit_regression_renyi.png)
  message(FATAL_ERROR "plot: exit ${rc}\n${out}${err}")
endif()

# Not a results file: exit 2 with the path named.
execute_process(COMMAND ${CLI} check ${cfg} RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "audit_regression.toml")
  message(FATAL_ERROR "check on a TOML file: exit ${rc}, message '${err}'")
endif()
message(STATUS "audit regression ok")
