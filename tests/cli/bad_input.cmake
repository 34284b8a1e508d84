# Each bad experiment file must make `rdpaudit run` exit with status 2, print a message that
# names the key path and the value, and leave no results file (nor its .tmp) behind.
file(MAKE_DIRECTORY ${WORK})
set(base "[experiment]\nseed = 1\ntrajectories = 100\n[model]\nloss = \"quadratic\"\nlambda = 1.0\n[data]\npreset = \"quadratic_worst_case\"\nn = 10\nsensitivity = 1.0\n[training]\nscheme = \"shuffle_partition\"\neta = 0.1\nbatch_size = 2\nepochs = 2\n")

include(${CMAKE_CURRENT_LIST_DIR}/expect_failure.cmake)
function(expect_failure name text expected_message)
  cli_expect_failure(${name} run ${WORK}/${name}.toml ${WORK}/${name}.h5 "${text}"
                     "${expected_message}")
endfunction()

expect_failure(unknown_key "${base}[noise]\nsigma2 = 1.0\nsigmaa = 2.0\n" "noise.sigmaa = 2.0 (unknown key")
expect_failure(wrong_type "${base}[noise]\nsigma2 = \"big\"\n" "noise.sigma2 = \"big\" (must be a number)")
expect_failure(missing_noise "${base}" "noise = <missing> (required")
expect_failure(sigma_zero "${base}[noise]\nsigma = 0\n" "noise.sigma = 0 (must be > 0)")
string(REPLACE "batch_size = 2" "batch_size = 11" big_batch "${base}")
expect_failure(batch_too_big "${big_batch}[noise]\nsigma = 1\n" "training.batch_size = 11 (must be in [1, data.n = 10])")
string(REPLACE "lambda = 1.0" "lambda = 1.0\ndim = 12" big_dim "${base}")
expect_failure(dim_out_of_range "${big_dim}[noise]\nsigma = 1\n" "model.dim = 12 (must be in [1, 8])")
string(REPLACE "n = 10" "n = 10\ndiffering_index = 10" bad_index "${base}")
expect_failure(index_outside "${bad_index}[noise]\nsigma = 1\n" "data.differing_index = 10 (must be in [0, 9]")
# [profile] (issue 14): a delta outside (0, 1), an eps grid that is not increasing, a claim
# formula that is not finite.
set(noise "[noise]\nsigma = 1\n")
expect_failure(profile_delta "${base}${noise}[profile]\ndeltas = [1e-5, 1.5]\n" "profile.deltas[1] = 1.5 (delta in (0, 1))")
expect_failure(profile_eps_grid "${base}${noise}[profile]\nepsilons = [0, 2, 1]\n" "profile.epsilons[2] = 1 (strictly increasing")
expect_failure(profile_claim_inf "${base}${noise}[profile]\n[[profile.claims]]\nname = \"x\"\nformula = \"ln(delta - delta)\"\n" "profile.claims[0].formula = \"ln(delta - delta)\" (a finite eps at every delta")
# A Gaussian-DP claim's mu: > 0 and finite, and not beside an epsilon.
expect_failure(gdp_mu_zero "${base}${noise}[profile]\n[[profile.claims]]\nname = \"g\"\nmu = 0.0\n" "profile.claims[0].mu = 0.0 (must be a finite number > 0")
expect_failure(gdp_mu_inf "${base}${noise}[profile]\n[[profile.claims]]\nname = \"g\"\nmu = inf\n" "profile.claims[0].mu = inf (must be a finite number > 0")
expect_failure(gdp_mu_and_eps "${base}${noise}[profile]\n[[profile.claims]]\nname = \"g\"\nmu = 1.0\nepsilon = 1.0\n" "profile.claims[0].epsilon = 1.0 (give exactly one of epsilon")
# A built-in profile bound's name is not a claim's (their rows of /audit/bounds would merge),
# and bounds.audit names only built-in or custom bounds.
expect_failure(claim_builtin_name "${base}${noise}[profile]\n[[profile.claims]]\nname = \"fs25_thm4.1_random_allocation\"\nepsilon = 1.0\n" "profile.claims[0].name = \"fs25_thm4.1_random_allocation\" (is the name of a built-in bound")
expect_failure(audit_unknown_profile_bound "${base}${noise}[bounds]\naudit = [\"fs25_thm4.1\"]\n" "bounds.audit[0] = \"fs25_thm4.1\" (is not a built-in or custom bound")
# The exact chain's keys: its grid and its work limit.
expect_failure(exact_grid "${base}${noise}[estimate]\nexact_cells_per_sd = 3\n" "estimate.exact_cells_per_sd = 3 (must be in [4, 1000])")
expect_failure(exact_work "${base}${noise}[estimate]\nexact_max_work = -5.0\n" "estimate.exact_max_work = -5.0 (must be in [0, 10^16]")

# The crafted-gradient preset: `validate` decides (exit 2, the key and value named), and `run`
# writes nothing.
set(crafted "[experiment]\nseed = 1\ntrajectories = 100\n[model]\nloss = \"quadratic\"\nlambda = 1.0\ndim = 2\n[training]\nscheme = \"full_batch\"\neta = 0.1\nsteps = 5\n[noise]\nsigma = 1\n[data]\npreset = \"crafted_gradient\"\nn = 10\n")
function(expect_invalid name text expected_message)
  file(WRITE ${WORK}/${name}_validate.toml "${text}")
  execute_process(COMMAND ${CLI} validate ${WORK}/${name}_validate.toml RESULT_VARIABLE rc
                  ERROR_VARIABLE err OUTPUT_QUIET)
  string(FIND "${err}" "${expected_message}" at)
  if(NOT rc EQUAL 2 OR at EQUAL -1)
    message(FATAL_ERROR "${name}: validate exit status ${rc}, message '${err}' (want '${expected_message}')")
  endif()
  expect_failure(${name} "${text}" "${expected_message}")
endfunction()
expect_invalid(crafted_wrong_dim "${crafted}gradient = [1.0]\n" "data.gradient = [ 1.0 ] (needs d = 2 numbers")
expect_invalid(crafted_unknown_name "${crafted}gradient_formula = \"t + theta\"\n" "data.gradient_formula = \"t + theta\" (unknown name \"theta\" at position 4")
expect_invalid(crafted_not_finite "${crafted}gradient_formula = \"1 / (t - 3)\"\n" "data.gradient_formula = \"1 / (t - 3)\" (gives inf at t = 3, k = 0")
expect_invalid(crafted_assignment "${crafted}gradient_formula = \"t = 1\"\n" "(assignment is not allowed")
expect_invalid(crafted_both "${crafted}gradient = [1.0, 2.0]\ngradient_formula = \"t\"\n" "give exactly one of data.gradient")
expect_invalid(crafted_neither "${crafted}" "give exactly one of data.gradient")
# model.loss = "gradient_formula": model.gradient checked as the crafted formulas are, and
# finite over the projection's interval at every record's value.
set(formula "[experiment]\nseed = 1\ntrajectories = 100\n[training]\nscheme = \"full_batch\"\neta = 0.1\nsteps = 5\nprojection_diameter = 2.0\n[noise]\nstep_std = 0.5\n[data]\npoints = [[1.0], [0.0]]\ndiffering_index = 0\nreplacement = [-1.0]\n[model]\nloss = \"gradient_formula\"\n")
expect_invalid(formula_unknown_name "${formula}gradient = \"theta + t\"\n" "model.gradient = \"theta + t\" (unknown name \"t\" at position 8")
expect_invalid(formula_not_finite "${formula}gradient = \"x / theta\"\n" "model.gradient = \"x / theta\" (gives -inf at theta = 0, x = -1")
expect_invalid(formula_assignment "${formula}gradient = \"theta = x\"\n" "(assignment is not allowed")
string(REPLACE "[data]" "[data]\ngradient = [1.0]" misplaced "${base}")
expect_invalid(crafted_key_other_preset "${misplaced}[noise]\nsigma = 1\n" "data.gradient = [ 1.0 ] (unknown key")

# DP-SGD in Opacus' terms: add_remove for a pair whose records both have gradients (the linear
# loss with two nonzero records); the logistic loss with add_remove (record i0 left out of D')
# and a replacement record all the same; the noise multiplier z without a per-example clip C
# to be relative to.
set(dpsgd "[experiment]\nseed = 1\ntrajectories = 100\n[training]\nscheme = \"poisson\"\nbatch_size = 2\neta = 0.1\nsteps = 3\n[noise]\nnoise_multiplier = 1.1\n")
expect_invalid(add_remove_both_gradients "${dpsgd}[model]\nloss = \"linear\"\nclip_norm = 1.0\n[data]\npoints = [[0.0], [1.0], [0.0], [0.0]]\ndiffering_index = 1\nreplacement = [-1.0]\nadjacency = \"add_remove\"\n" "data.adjacency = \"add_remove\" (both records of the pair have a gradient")
expect_invalid(add_remove_logistic_replacement "${dpsgd}[model]\nloss = \"logistic\"\nfeatures = 1\nlambda = 0.1\nclip_norm = 1.0\n[data]\npoints = [[1.0], [0.5], [-1.0]]\nlabels = [0, 1, 1]\ndiffering_index = 0\nreplacement = [-1.0]\nreplacement_label = 1\nadjacency = \"add_remove\"\n" "data.replacement = [ -1.0 ] (data.adjacency = \"add_remove\" with model.loss = \"logistic\" leaves record i0 out of D'")
expect_invalid(noise_multiplier_without_clip "${dpsgd}[model]\nloss = \"linear\"\n[data]\npreset = \"linear_worst_case\"\nn = 10\nlipschitz = 1.0\nadjacency = \"add_remove\"\n" "noise.noise_multiplier = 1.1 (is relative to the per-example clip norm C (as in Opacus and dp_accounting), and model.clip_norm is not set")

# A command-line override is checked too.
execute_process(COMMAND ${CLI} run ${WORK}/unknown_key.toml --trajectories 0 RESULT_VARIABLE rc
                ERROR_VARIABLE err OUTPUT_QUIET)
if(NOT rc EQUAL 2)
  message(FATAL_ERROR "--trajectories 0: exit status ${rc}, expected 2")
endif()
# A file that does not exist.
execute_process(COMMAND ${CLI} validate ${WORK}/no_such_file.toml RESULT_VARIABLE rc
                ERROR_VARIABLE err OUTPUT_QUIET)
if(NOT rc EQUAL 2 OR NOT err MATCHES "cannot be opened")
  message(FATAL_ERROR "missing file: exit status ${rc}, message '${err}'")
endif()
# -o naming the experiment file itself: refused before anything is written, the file intact.
set(self_cfg ${WORK}/self_output.toml)
file(WRITE ${self_cfg} "${base}[noise]\nsigma = 1\n")
file(SHA256 ${self_cfg} self_before)
execute_process(COMMAND ${CLI} run ${self_cfg} -o ${self_cfg} RESULT_VARIABLE rc
                ERROR_VARIABLE err OUTPUT_QUIET)
file(SHA256 ${self_cfg} self_after)
if(NOT rc EQUAL 2 OR NOT err MATCHES "which this command reads"
   OR NOT self_before STREQUAL self_after)
  message(FATAL_ERROR "-o = the experiment file: exit status ${rc}, message '${err}'")
endif()
