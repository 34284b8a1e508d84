# `rdpaudit search`: bad [search] tables exit 2 naming the key and write nothing; a small search
# finds the worst differing batch of a fixed order and writes an experiment file that `validate`
# and `run` read, and a trace with every evaluation.
file(MAKE_DIRECTORY ${WORK})
set(base "[experiment]\nseed = 1\ntrajectories = 2000\n[model]\nloss = \"quadratic\"\nlambda = 1.0\n[data]\npreset = \"quadratic_worst_case\"\nn = 20\nsensitivity = 4.0\n[training]\nscheme = \"fixed_order\"\neta = 0.05\nbatch_size = 2\nepochs = 1\n[noise]\nsigma2 = 4.0\n[bounds]\nalphas = [4]\n[estimate]\nbootstrap = 0\n")

include(${CMAKE_CURRENT_LIST_DIR}/expect_failure.cmake)
function(expect_failure name text expected_message)
  set(out ${WORK}/search_${name}_found.toml)
  cli_expect_failure(${name} search ${WORK}/search_${name}.toml ${out} "${text}"
                     "${expected_message}" ${out}.tmp ${WORK}/search_${name}_found.trace.csv)
endfunction()

set(j0 "{key = \"training.differing_batch\", min = 0, max = 9, points = 4}")
expect_failure(no_table "${base}" "search = <missing>")
expect_failure(empty_range "${base}[search]\nobjective = \"renyi\"\nalpha = 4\nbudget = 8\nparams = [{key = \"training.differing_batch\", min = 5, max = 2}]\n"
               "search.params[0].max = 2 (empty range: must be >= search.params[0].min = 5)")
expect_failure(outside_domain "${base}[search]\nobjective = \"renyi\"\nalpha = 4\nbudget = 8\nparams = [{key = \"training.differing_batch\", min = 0, max = 12, points = 3}]\n"
               "training.differing_batch = 12 (")
expect_failure(absent_bound "${base}[search]\nobjective = \"ratio\"\nbound = \"ys_thm9.9\"\nalpha = 4\nbudget = 8\nparams = [${j0}]\n"
               "search.bound = \"ys_thm9.9\" (no built-in or custom bound of this name")
expect_failure(budget_zero "${base}[search]\nobjective = \"renyi\"\nalpha = 4\nbudget = 0\nparams = [${j0}]\n"
               "search.budget = 0 (the number of evaluations")
expect_failure(swept_key "${base}[search]\nobjective = \"renyi\"\nalpha = 4\nbudget = 8\nparams = [{key = \"noise.sigma2\", min = 1, max = 4}]\n[init]\nstd = [0.0, 1.0]\n"
               "init.std = [ 0.0, 1.0 ] (a search point is one scenario")
expect_failure(evaluator "${base}[search]\nobjective = \"renyi\"\nalpha = 4\nbudget = 8\nevaluator = \"mc\"\nparams = [${j0}]\n"
               "search.evaluator = \"mc\" (must be \"auto\"")
expect_failure(pilot_small "${base}[search]\nobjective = \"renyi\"\nalpha = 4\nbudget = 8\npilot_trajectories = 5\nparams = [${j0}]\n"
               "search.pilot_trajectories = 5 (trajectories per dataset")
expect_failure(radius "${base}[search]\nobjective = \"renyi\"\nalpha = 4\nbudget = 8\nparams = [{key = \"init.mean\", radius = -1.0, min = 0, max = 90}]\n"
               "search.params[0].radius = -1.0 (must be a number in (0, 1e100]")

# Any other command refuses a search file, pointing to `rdpaudit search`.
file(WRITE ${WORK}/search_validate.toml "${base}[search]\nobjective = \"renyi\"\nalpha = 4\nbudget = 8\nparams = [${j0}]\n")
execute_process(COMMAND ${CLI} validate ${WORK}/search_validate.toml RESULT_VARIABLE rc
                ERROR_VARIABLE err OUTPUT_QUIET)
string(FIND "${err}" "search = [search] (a search file: `rdpaudit search FILE -o FOUND.toml`" at)
if(NOT rc EQUAL 2 OR at EQUAL -1)
  message(FATAL_ERROR "validate of a search file: exit status ${rc}, message '${err}'")
endif()

# End to end: the worst batch is the last (j0 = 9: the least contraction after the record's
# visit), found on the grid {0, 3, 6, 9} and confirmed by the refinement.
set(cfg ${WORK}/search_j0.toml)
set(out ${WORK}/search_j0_found.toml)
file(REMOVE ${out} ${WORK}/search_j0_found.trace.csv)
file(WRITE ${cfg} "${base}[search]\nobjective = \"renyi\"\nalpha = 4\nbudget = 10\nparams = [${j0}]\n")
execute_process(COMMAND ${CLI} search ${cfg} -o ${out} RESULT_VARIABLE rc OUTPUT_VARIABLE stdout
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "search: exit status ${rc}: ${err}${stdout}")
endif()
file(READ ${out} found)
string(FIND "${found}" "differing_batch = 9" at)
string(FIND "${found}" "\n[search]" search_at)
string(FIND "${found}" "name = 'search_j0_found'" name_at)
if(at EQUAL -1 OR NOT search_at EQUAL -1 OR name_at EQUAL -1)
  message(FATAL_ERROR "search: the found file lacks j0 = 9 or its name, or keeps [search]:\n${found}")
endif()
file(STRINGS ${WORK}/search_j0_found.trace.csv trace)
list(LENGTH trace rows)
list(GET trace 0 header)
# header + 4 grid points + the refinement's 8 and 7 (9 + 1 is outside, 9 - 2 = 7 below 8)
if(NOT header MATCHES "^evaluation,phase,training.differing_batch,evaluator,covered,value" OR rows LESS 6 OR rows GREATER 11)
  message(FATAL_ERROR "search: trace of ${rows} lines, header '${header}'")
endif()
execute_process(COMMAND ${CLI} run ${out} -o ${WORK}/search_j0_found.h5 --threads 2
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "run of the found file: exit status ${rc}: ${err}")
endif()
message(STATUS "search end to end: ok\n${stdout}")

# A sampled search: a 2-D loss given by its gradient (tanh per coordinate) has no exact law,
# so the search evaluates every point by the plug-in on its own streams; the direction of the
# differing record is the parameter, and the diagonal (45 degrees) leaks the most.
set(cfg ${WORK}/search_direction.toml)
set(out ${WORK}/search_direction_found.toml)
file(REMOVE ${out} ${WORK}/search_direction_found.trace.csv)
file(WRITE ${cfg} "[experiment]\nseed = 2\ntrajectories = 2000\n[model]\nloss = \"gradient_formula\"\ndim = 2\ngradient = \"tanh(x)\"\n[data]\npoints = [[2.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]]\ndiffering_index = 0\nreplacement = [0.0, 0.0]\n[training]\nscheme = \"full_batch\"\neta = 0.2\nsteps = 4\n[noise]\nstep_std = 0.2\n[bounds]\nS_g = 2.0\nalphas = [2]\n[estimate]\nbootstrap = 0\n[search]\nobjective = \"renyi\"\nalpha = 2\nbudget = 3\npilot_trajectories = 20000\nparams = [{key = \"data.points[0]\", radius = 2.0, min = 0, max = 90, points = 3}]\n")
execute_process(COMMAND ${CLI} search ${cfg} -o ${out} --threads 2 RESULT_VARIABLE rc
                OUTPUT_VARIABLE stdout ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "sampled search: exit status ${rc}: ${err}${stdout}")
endif()
file(READ ${out} found)
string(FIND "${found}" "evaluator: sampled" sampled_at)
string(FIND "${found}" "points = [ [ 1.41421356" diagonal_at)
if(sampled_at EQUAL -1 OR diagonal_at EQUAL -1)
  message(FATAL_ERROR "sampled search: the found file is not the diagonal, or not sampled:\n${found}")
endif()
file(STRINGS ${WORK}/search_direction_found.trace.csv trace)
list(LENGTH trace rows)
list(GET trace 1 first)
if(NOT rows EQUAL 4 OR NOT first MATCHES "^0,grid,\"0 deg: .2, 0.\",sampled,1,")
  message(FATAL_ERROR "sampled search: trace of ${rows} lines, first row '${first}'")
endif()
execute_process(COMMAND ${CLI} validate ${out} RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "validate of the sampled search's found file: exit status ${rc}: ${err}")
endif()
message(STATUS "sampled search: ok\n${stdout}")
