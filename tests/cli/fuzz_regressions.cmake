# Fixed files from the fuzz study (python/studies/fuzz_experiments.py, docs/studies/fuzz.md)
# that `validate` used to accept and `run` rejected after simulating (with internal names such
# as binning.scale or samples.rows), or crashed on, or ran to exit 0; and the command-line
# options of an earlier review. Each must now be decided before anything is simulated, in the
# user's keys.
file(MAKE_DIRECTORY ${WORK})
set(base "[experiment]\nseed = 1\ntrajectories = 100\n[model]\nloss = \"quadratic\"\nlambda = 1.0\n[data]\npreset = \"quadratic_worst_case\"\nn = 10\nsensitivity = 4.0\n[training]\nscheme = \"full_batch\"\neta = 0.02\nsteps = 100\n[noise]\nsigma2 = 4.0\n[tally]\npilot_trajectories = 100\n[estimate]\nbootstrap = 0\n")
set(internal "binning\\.|samples\\.|exact\\.|tally\\.edges|bounds\\.b |rigorous\\.")

function(expect_validate_rejects name text expected)
  set(cfg ${WORK}/fuzz_${name}.toml)
  file(WRITE ${cfg} "${text}")
  execute_process(COMMAND ${CLI} validate ${cfg} RESULT_VARIABLE rc ERROR_VARIABLE err
                  OUTPUT_QUIET)
  if(NOT rc EQUAL 2)
    message(FATAL_ERROR "${name}: validate exit status ${rc}, expected 2 (stderr: ${err})")
  endif()
  string(FIND "${err}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${name}: message '${err}' lacks '${expected}'")
  endif()
  if(err MATCHES "${internal}")
    message(FATAL_ERROR "${name}: message names an internal key: '${err}'")
  endif()
  message(STATUS "${name}: ok (${err})")
endfunction()

# Divergent training: eta * lambda = 20 (run: "binning.scale = -nan").
string(REPLACE "eta = 0.02" "eta = 20.0" diverge "${base}")
expect_validate_rejects(divergent "${diverge}" "training.eta = 20.0 (eta * lambda = 20 > 2")
# eta = 1e308 (run: segmentation fault in the histogram with an infinite step_std).
string(REPLACE "eta = 0.02" "eta = [1e308, 1e308]" huge_eta "${base}")
expect_validate_rejects(huge_eta "${huge_eta}" "training.eta[0] = 1e+308 (must be finite")
# init.std = 1e308 (run: "binning.scale = -nan"); logistic init.std = 1e200 exited 0 with NaN.
expect_validate_rejects(huge_init "${base}[init]\nstd = 1e308\n" "init.std = 1e+308")
# A tiny noise: s = eta * blog_sigma underflows the variance (run: "binning.scale = 0").
string(REPLACE "sigma2 = 4.0" "blog_sigma = 1e-99" tiny_noise "${base}")
expect_validate_rejects(tiny_noise "${tiny_noise}" "noise.blog_sigma = 1e-99 (gives the per-step noise std")
# The split of earlier versions is gone (run used to fail with "samples.rows = 3 and 3"):
# its keys are refused with a message naming estimate.pilot, and a pilot below 1000 too.
expect_validate_rejects(tiny_fraction "${base}variational_selection_fraction = 1e-9\n"
                        "estimate.variational_selection_fraction = 1e-09 (was removed")
expect_validate_rejects(tiny_pilot "${base}pilot = 10\n" "estimate.pilot = 10 (must be in [1000")
# NaN histogram edges from a range wider than the doubles.
string(REPLACE "pilot_trajectories = 100" "pilot_trajectories = 100\nrange = [-1e308, 1e308]" huge_range "${base}")
expect_validate_rejects(huge_range "${huge_range}" "tally.range[0] = -1e+308")
# An assignment in a condition changed the audited bound and `check` exited 0.
expect_validate_rejects(assignment "${base}[[bounds.custom]]\nname = \"c\"\nformula = \"alpha\"\nconditions = [\"step_std = 1\"]\n"
                        "assignment is not allowed")
# alpha = 10^6 made a 1000-trajectory run take 30 s.
expect_validate_rejects(huge_alpha "${base}[bounds]\nalphas = [2, 1000000]\n" "bounds.alphas[1] = 1000000")

# Integers wrapped in 32 bits passed (2^32 + 1 became 1); the stored config then disagreed
# with what ran.
string(REPLACE "bootstrap = 0" "bootstrap = 4294967297" bootstrap_wrap "${base}")
expect_validate_rejects(bootstrap_wrap "${bootstrap_wrap}" "estimate.bootstrap = 4294967297 (must be in [0, 10^5])")
string(REPLACE "bootstrap = 0" "bootstrap = 0\npatterns = 4294967297" patterns_wrap "${base}")
expect_validate_rejects(patterns_wrap "${patterns_wrap}" "estimate.patterns = 4294967297 (must be in [1, 10^6])")
# One trajectory gave a NaN covariance and exit 0; 1.0 is a float for an integer key.
string(REPLACE "seed = 1\ntrajectories = 100" "seed = 1\ntrajectories = 1" one_trajectory "${base}")
expect_validate_rejects(one_trajectory "${one_trajectory}" "experiment.trajectories = 1 (leaves 1 trajectory per dataset; at least 2")
string(REPLACE "seed = 1\ntrajectories = 100" "seed = 1\ntrajectories = 100.0" float_trajectories "${base}")
expect_validate_rejects(float_trajectories "${float_trajectories}" "experiment.trajectories = 100.0 (must be an integer (write 100, not a float))")
# Poisson with q = 1 and a record 1e18 away: run failed after the pilot naming binning.scale.
string(REPLACE "scheme = \"full_batch\"" "scheme = \"poisson\"\nsampling_rate = 1.0" poisson_far "${base}")
string(REPLACE "sensitivity = 4.0" "sensitivity = 1e18" poisson_far "${poisson_far}")
expect_validate_rejects(poisson_far "${poisson_far}" "data.sensitivity = 1e+18 (one step moves the iterates by about")
# [profile] claims: an empty epsilon list crashed run (SIGSEGV), 1e101 was accepted.
expect_validate_rejects(claim_empty "${base}[profile]\n[[profile.claims]]\nname = \"c\"\nepsilon = []\n"
                        "profile.claims[0].epsilon = [] (one claimed eps per profile.deltas, not an empty list)")
expect_validate_rejects(claim_huge "${base}[profile]\n[[profile.claims]]\nname = \"c\"\nepsilon = 1e101\n"
                        "profile.claims[0].epsilon = 1e+101 (must be a finite number")
# A custom bound expected to hold and listed as expected violated: check tested one of the two.
expect_validate_rejects(expect_contradiction "${base}[bounds]\nexpect_violated = [\"c\"]\n[[bounds.custom]]\nname = \"c\"\nformula = \"alpha\"\nexpect = \"holds\"\n"
                        "bounds.custom[0].expect = \"holds\" contradicts bounds.expect_violated[0] = \"c\"")

# Command-line options, all decided before simulating (nothing on stdout, no file).
set(ok ${WORK}/fuzz_ok.toml)
file(WRITE ${ok} "${base}")
function(expect_run_rejects name expected)
  set(out ${WORK}/fuzz_cli_${name}.h5)
  file(REMOVE ${out})
  execute_process(COMMAND ${CLI} run ${ok} ${ARGN} RESULT_VARIABLE rc ERROR_VARIABLE err
                  OUTPUT_VARIABLE stdout)
  if(NOT rc EQUAL 2 OR NOT stdout STREQUAL "")
    message(FATAL_ERROR "${name}: exit status ${rc}, expected 2 before simulating (stdout: '${stdout}', stderr: ${err})")
  endif()
  string(FIND "${err}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${name}: message '${err}' lacks '${expected}'")
  endif()
  message(STATUS "${name}: ok (${err})")
endfunction()
expect_run_rejects(output_is_directory "-o = ${WORK} (is a directory" -o ${WORK})
expect_run_rejects(scale_too_small "--scale = 1e-09 (leaves 100 x 1e-09 < 0.5 trajectories" --scale 1e-9)
expect_run_rejects(trajectories_overflow "--scale = 10 (9223372036854775807 x 10"
                   --trajectories 9223372036854775807 --scale 10)
expect_run_rejects(seed_too_big "--seed = 18446744073709551616 (must be an integer in [0, 2^64 - 1])"
                   --seed 18446744073709551616)

# The largest seed is used as given (it was clamped to 2^63 - 1).
if(PYTHON)
  set(out ${WORK}/fuzz_seed.h5)
  execute_process(COMMAND ${CLI} run ${ok} --seed 18446744073709551615 -o ${out} --threads 1
                  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
  execute_process(COMMAND ${PYTHON} -c "import h5py, sys; print(h5py.File(sys.argv[1], 'r').attrs['seed'])" ${out}
                  OUTPUT_VARIABLE seed OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0 OR NOT seed STREQUAL "18446744073709551615")
    message(FATAL_ERROR "--seed 2^64 - 1: exit ${rc}, stored seed '${seed}' (${err})")
  endif()
  message(STATUS "seed 2^64 - 1 stored as ${seed}")
endif()
