# (eps, delta) claims (issue 14): tests/data/profile_claims.toml audits a claim at half the
# exact eps(delta) of a Gaussian pair (expect violated), the exactly tight claim (holds) and a
# Renyi bound's conversion, from the samples alone; then with the exact profile deciding.
file(MAKE_DIRECTORY ${WORK})
set(cfg ${SOURCE}/tests/data/profile_claims.toml)
execute_process(COMMAND ${CLI} run ${cfg} -o ${WORK}/profile_claims.h5 --threads 2
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "run: exit ${rc}: ${err}")
endif()
execute_process(COMMAND ${CLI} check ${WORK}/profile_claims.h5 RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0 OR NOT out MATCHES "half_truth +claim +violated +violated +[1-4] +0 ")
  message(FATAL_ERROR "check (samples only): the half-truth claim is not violated:\n${out}")
endif()
if(NOT out MATCHES "truth +claim +holds +not rejected +0 +4 " OR
   NOT out MATCHES "gaussian_composition \\(eps, delta\\) +conversion +holds +not rejected +0 +4 ")
  message(FATAL_ERROR "check (samples only): the tight claim or the conversion is rejected:\n${out}")
endif()
if(NOT out MATCHES "half_truth violated: scenario 0 \\(-\\), delta 0\\.001")
  message(FATAL_ERROR "check: no evidence in terms of delta:\n${out}")
endif()

# The exact profile decides: the tight claim is valid (exact) (equal within rounding), the
# half-truth claim violated (exact); claiming that it holds makes check fail.
file(READ ${cfg} text)
string(REPLACE "exact_verdicts = false" "exact_verdicts = true" text "${text}")
file(WRITE ${WORK}/profile_claims_exact.toml "${text}")
string(REPLACE "expect = \"violated\"" "expect = \"holds\"" text "${text}")
file(WRITE ${WORK}/profile_claims_wrong.toml "${text}")
foreach(variant exact wrong)
  execute_process(COMMAND ${CLI} run ${WORK}/profile_claims_${variant}.toml
                          -o ${WORK}/profile_claims_${variant}.h5 --threads 2
                  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "run (${variant}): exit ${rc}: ${err}")
  endif()
endforeach()
execute_process(COMMAND ${CLI} check ${WORK}/profile_claims_exact.h5 RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0 OR NOT out MATCHES "half_truth +claim +violated +violated \\(exact\\) +4 " OR
   NOT out MATCHES "truth +claim +holds +valid \\(exact\\) +0 +0 +4 ")
  message(FATAL_ERROR "check (exact): exit ${rc}\n${out}")
endif()
execute_process(COMMAND ${CLI} check ${WORK}/profile_claims_wrong.h5 RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(NOT rc EQUAL 1 OR NOT out MATCHES "half_truth: expected holds, found violated \\(exact\\)")
  message(FATAL_ERROR "check (a violated claim expected to hold) must fail: exit ${rc}\n${out}")
endif()
execute_process(COMMAND ${CLI} report ${WORK}/profile_claims.h5 RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "report: exit ${rc}")
endif()
message(STATUS "profile claims ok")
