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
# --applicable keeps a bound that applies at some order (here only alpha = 8, not the first).
file(WRITE ${WORK}/custom_late.toml "${base}[[bounds.custom]]\nname = \"late\"\nformula = \"alpha\"\nconditions = [\"alpha > 4\"]\n")
execute_process(COMMAND ${CLI} bounds ${WORK}/custom_late.toml --alpha 2,8 --applicable
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "late +n/a +8")
  message(FATAL_ERROR "--applicable dropped a bound applicable at alpha = 8: exit ${rc}:\n${out}${err}")
endif()

# --csv honours --delta and --epsilon: epsilon(delta) and delta(epsilon) in full precision with
# the order attaining them. gaussian_composition of the base file: K = 2 uses of a Gaussian step
# with z = s / (eta S_g / b) = sqrt(0.2) / 0.05, z^2 = 80, i.e. R = 2 alpha / (2 z^2) = alpha/80.
execute_process(COMMAND ${CLI} bounds ${WORK}/custom_ok.toml --csv --delta 1e-5 --epsilon 1
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "eps_mironov,alpha_mironov,eps_improved,alpha_improved,delta_mironov,alpha_delta_mironov,delta_improved,alpha_delta_improved")
  message(FATAL_ERROR "bounds --csv --delta --epsilon: no conversion columns: exit ${rc}:\n${out}${err}")
endif()
# Mironov: min over the grid of alpha/80 + log(1e5)/(alpha-1) = 0.77126418216567... at 31;
# delta at epsilon = 1: min of exp((alpha-1)(alpha/80 - 1)) = e^-19.5 = 3.39826781949...e-09 at 40.
if(NOT out MATCHES "gaussian_composition,theorem,replace_one,4,0[.]0500000000000000[0-9]*,\"\",0[.]771264182165674[0-9]*,31,[^,]+,[0-9]+,3[.]39826781949[0-9]*e-09,40,")
  message(FATAL_ERROR "bounds --csv --delta --epsilon: gaussian_composition epsilon/delta not at full precision with their orders:\n${out}")
endif()

# The typical Opacus run on MNIST in its users' numbers (q = 256/60000, z = 1.1, C = 1,
# T = 3516, add/remove): Opacus and dp_accounting report eps = 1.28130 at delta = 1e-5, order
# 12 (their RDP accountant is mtz19_poisson_composition; their conversion Balle et al. 2020,
# Theorem 21, is the column "eps improved"). mpmath: 1.2813000161256392; RDP at 12:
# 0.54758240991688461. Mironov's conversion gives 1.594212 at the same order.
execute_process(COMMAND ${CLI} bounds ${SOURCE}/experiments/opacus_mnist.toml --delta 1e-5
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "mtz19_poisson_composition[^\n]* 0[.]547582 [^\n]* 1[.]59421 @12 +1[.]2813 @12")
  message(FATAL_ERROR "bounds opacus_mnist --delta 1e-5: no eps 1.2813 @12 (Opacus):\n${out}${err}")
endif()
# The same composition by the PLD accountant (docs/pld.md): a certified bracket holding
# dp_accounting's PLD value 1.1339, below the RDP conversion.
if(NOT out MATCHES "PLD composition \\(add/remove\\) +eps at delta = 1e-05 in \\[1[.]1337[0-9]*, 1[.]1338[0-9]*\\]")
  message(FATAL_ERROR "bounds opacus_mnist --delta 1e-5: no PLD bracket around 1.1338:\n${out}${err}")
endif()
execute_process(COMMAND ${CLI} bounds ${SOURCE}/experiments/opacus_mnist.toml --delta 1e-5 --csv
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "mtz19_poisson_composition,baseline,add_remove,12,0[.]54758240991[0-9]*,\"\",1[.]5942119[0-9]*,12,1[.]28130001[0-9]*,12")
  message(FATAL_ERROR "bounds opacus_mnist --csv: eps_improved not 1.28130001 at order 12:\n${out}${err}")
endif()
message(STATUS "bounds CLI ok; bad formula: ${err}")
