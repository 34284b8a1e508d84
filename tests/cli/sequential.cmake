# Sequential audit: rounds doubling from experiment.trajectories, the level spent
# over the planned looks, a stop when every cell is decided or the budget is spent.
file(MAKE_DIRECTORY ${WORK})
# The blog's Theorem 1 at L / sigma = 0.25 is about half the true R_alpha: found violated
# before the budget, and the file records the looks and why the run stopped.
execute_process(COMMAND ${CLI} run ${SOURCE}/experiments/blog_sequential.toml -o ${WORK}/seq.h5
                        --until-decided --max-trajectories 10000000
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "stopped: decided")
  message(FATAL_ERROR "sequential run (violated): exit ${rc}\n${out}${err}")
endif()
execute_process(COMMAND ${CLI} check ${WORK}/seq.h5 RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0 OR NOT out MATCHES "blog_thm1_saturation +theorem +violated +violated ")
  message(FATAL_ERROR "check of the sequential run: exit ${rc}\n${out}")
endif()

# An exactly tight valid bound (the Gaussian pair's own R_alpha), verdicts from the samples
# alone: the exact quadrature's bracket, which no number of trajectories moves, puts R_alpha
# at the bound, so more trajectories could reject it only falsely. The run stops at the first
# look (it used to spend its whole budget on it), the bound not rejected.
file(READ ${SOURCE}/tests/data/audit_regression.toml text)
string(REPLACE "audit = [\"gaussian_composition\", \"ten_times_too_small\", \"ten_times_loose\"]"
               "audit = [\"gaussian_composition\"]\nexact_verdicts = false" text "${text}")
string(REPLACE "trajectories = 200000" "trajectories = 10000" text "${text}")
file(WRITE ${WORK}/tight.toml "${text}")
execute_process(COMMAND ${CLI} run ${WORK}/tight.toml -o ${WORK}/tight.h5 --until-decided
                        --max-trajectories 40000
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "10000 trajectories per dataset, [0-9]+ thread\\(s\\); 1 look\\(s\\), stopped: decided"
   OR NOT out MATCHES "gaussian_composition +theorem +holds +not rejected ")
  message(FATAL_ERROR "sequential run (tight, exact value known): exit ${rc}\n${out}${err}")
endif()

# The same bound with no value that the trajectories do not make (no exact method): nothing
# tells it from a bound just below R_alpha, so the run spends its budget, and each look names
# the cells still open.
string(REPLACE "[estimate]" "[estimate]\nmethods = [\"histogram-plugin\", \"rigorous-cp\", \"rigorous-bernstein\"]"
               samples_only "${text}")
file(WRITE ${WORK}/tight_samples.toml "${samples_only}")
execute_process(COMMAND ${CLI} run ${WORK}/tight_samples.toml -o ${WORK}/tight_samples.h5
                        --until-decided --max-trajectories 40000
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "40000 trajectories per dataset, [0-9]+ thread\\(s\\); 3 look\\(s\\), stopped: budget"
   OR NOT out MATCHES "gaussian_composition +theorem +holds +not rejected ")
  message(FATAL_ERROR "sequential run (tight, samples only): exit ${rc}\n${out}${err}")
endif()

# A bound 5 % below the truth is not decided by the exact value (it sits below the bracket):
# the run goes on until it is found violated or the budget is spent, never stopping with it
# not rejected.
string(REPLACE "audit = [\"gaussian_composition\"]" "audit = [\"gaussian_composition\", \"slightly_low\"]"
               low "${text}")
set(low "${low}[[bounds.custom]]\nname = \"slightly_low\"\nformula = \"0.95 * alpha * (eta * S_g / b)^2 / (2 * step_std^2)\"\n")
file(WRITE ${WORK}/slightly_low.toml "${low}")
execute_process(COMMAND ${CLI} run ${WORK}/slightly_low.toml -o ${WORK}/slightly_low.h5
                        --until-decided --max-trajectories 40000
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR (out MATCHES "stopped: decided" AND out MATCHES "slightly_low +custom +holds +not rejected"))
  message(FATAL_ERROR "sequential run (bound 5 % below the truth): exit ${rc}\n${out}${err}")
endif()

# Bad input: exit 2, the argument named, nothing written.
foreach(args "--until-decided" "--max-trajectories;40000" "--until-decided;--max-trajectories;5000")
  file(REMOVE ${WORK}/bad.h5)
  execute_process(COMMAND ${CLI} run ${WORK}/tight.toml -o ${WORK}/bad.h5 ${args}
                  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
  if(NOT rc EQUAL 2 OR NOT err MATCHES "--max-trajectories|--until-decided" OR EXISTS ${WORK}/bad.h5)
    message(FATAL_ERROR "bad sequential arguments '${args}': exit ${rc}, '${err}'")
  endif()
endforeach()
message(STATUS "sequential audit ok")
