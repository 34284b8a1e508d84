# Gaussian-DP claims: experiments/gdp_claims.toml at a small size. The claim at the exact mu of
# the full-batch Gaussian pair holds (valid (exact) on its mu cells there, from the closed
# form), the claim at 0.9 of it and the one the subsampled profile shows up to eps = 1 are
# violated (exact); the subsampled scenario's exact mu comes from the far end of the eps grid.
file(MAKE_DIRECTORY ${WORK})
set(cfg ${SOURCE}/experiments/gdp_claims.toml)
set(out ${WORK}/gdp_claims.h5)
execute_process(COMMAND ${CLI} run ${cfg} -o ${out} --trajectories 20000 --threads 2
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "run: exit ${rc}: ${err}")
endif()
execute_process(COMMAND ${CLI} check ${out} --all-cells RESULT_VARIABLE rc OUTPUT_VARIABLE out_text)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "check: exit ${rc}\n${out_text}")
endif()
# Outcomes per claim (name, kind, expect, outcome).
if(NOT out_text MATCHES "exact_mu +gdp claim +holds +not rejected " OR
   NOT out_text MATCHES "below +gdp claim +violated +violated \\(exact\\) " OR
   NOT out_text MATCHES "to_eps_1 +gdp claim +violated +violated \\(exact\\) ")
  message(FATAL_ERROR "check: GDP claims' outcomes:\n${out_text}")
endif()
# mu cells: scenario 0 (q = 1) decided by the closed form, both directions.
if(NOT out_text MATCHES "\n +0 exact_mu +mu +[^\n]*valid \\(exact\\)" OR
   NOT out_text MATCHES "\n +0 below +mu +[^\n]*violated \\(exact\\)" OR
   NOT out_text MATCHES "\n +1 below +mu +[^\n]*violated \\(exact\\)" OR
   NOT out_text MATCHES "\n +1 to_eps_1 +mu +[^\n]*violated \\(exact\\)")
  message(FATAL_ERROR "check: mu cells:\n${out_text}")
endif()
# At q = 1/2 the tight claim's mu cells: the grid's lower end is below 1 and its upper end
# unknown, so the samples decide (not rejected), never valid (exact).
if(out_text MATCHES "\n +1 exact_mu +mu +[^\n]*(valid \\(exact\\)|violated)")
  message(FATAL_ERROR "check: the subsampled pair's tight claim decided by a grid:\n${out_text}")
endif()
execute_process(COMMAND ${CLI} report ${out} RESULT_VARIABLE rc OUTPUT_VARIABLE report_text)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "report: exit ${rc}")
endif()
# report --csv names what each row tests: a mu cell has neither alpha nor delta, so without
# the quantity column its row could not be told from a Renyi row with a missing order.
execute_process(COMMAND ${CLI} report ${out} --csv RESULT_VARIABLE rc OUTPUT_VARIABLE csv_text)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "report --csv: exit ${rc}")
endif()
set(row "\n[0-9]+,[^,\n]*,[^,\n]*,[^,\n]*,[^,\n]*,[^,\n]*,")
if(NOT csv_text MATCHES "^scenario,sweep_point,bound,kind,expect,outcome,quantity,alpha,delta,"
   OR NOT csv_text MATCHES "${row}mu,,,P" OR NOT csv_text MATCHES "${row}renyi,[0-9.]+,,P"
   OR NOT csv_text MATCHES "${row}eps_delta,,[0-9.e-]+,P"
   OR csv_text MATCHES "${row}mu,[^,]" OR csv_text MATCHES "${row}mu,,[^,]"
   OR csv_text MATCHES "${row}renyi,," OR csv_text MATCHES "${row}eps_delta,[^,]")
  message(FATAL_ERROR "report --csv: the quantity column and its orders:\n${csv_text}")
endif()
message(STATUS "gdp claims ok")
