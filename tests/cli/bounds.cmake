# `rdpaudit bounds`: the table of the paper's Figure 2 setting holds Theorem 4.2's value, a
# custom bound is evaluated, and a custom formula with an unknown name is rejected at
# validation with the bound's name and the position.
file(MAKE_DIRECTORY ${WORK})
execute_process(COMMAND ${CLI} bounds ${SOURCE}/experiments/paper_fig2.toml --alpha 10
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "bounds paper_fig2: exit ${rc}: ${err}")
endif()
# Theorem 4.2 at alpha = 10 converges to 0.015459 (tests/data/bounds_reference.csv has the
# independent mpmath values); K = 200 is the last shuffle-and-partition scenario.
if(NOT out MATCHES "ys_thm4.2_shuffle_partition +0.015459")
  message(FATAL_ERROR "bounds paper_fig2: no Theorem 4.2 row with 0.015459:\n${out}")
endif()

set(base "[experiment]\nseed = 1\ntrajectories = 10\n[model]\nloss = \"quadratic\"\nlambda = 1.0\n[data]\npreset = \"quadratic_worst_case\"\nn = 10\nsensitivity = 1.0\n[training]\nscheme = \"shuffle_partition\"\neta = 0.1\nbatch_size = 2\nepochs = 2\n[noise]\nsigma2 = 1.0\n[bounds]\nalphas = [4]\n")
file(WRITE ${WORK}/custom_ok.toml "${base}[[bounds.custom]]\nname = \"twice_alpha\"\nformula = \"2 * alpha\"\nconditions = [\"lambda > 0\"]\n")
execute_process(COMMAND ${CLI} bounds ${WORK}/custom_ok.toml RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "twice_alpha +8")
  message(FATAL_ERROR "custom bound: exit ${rc}, output:\n${out}${err}")
endif()

file(WRITE ${WORK}/custom_bad.toml "${base}[[bounds.custom]]\nname = \"mine\"\nformula = \"alpha * sigmaa\"\n")
execute_process(COMMAND ${CLI} validate ${WORK}/custom_bad.toml RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "mine" OR NOT err MATCHES "sigmaa" OR NOT err MATCHES "position 8")
  message(FATAL_ERROR "bad custom formula: exit ${rc}, message '${err}'")
endif()
message(STATUS "bounds CLI ok; bad formula: ${err}")
