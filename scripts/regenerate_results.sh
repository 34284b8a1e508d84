#!/usr/bin/env bash
# Regenerates every committed result in results/ from experiments/ (about 15 minutes on
# 2 cores): each experiment's HDF5 file and figures, the bound curves, and the verdict census
# of results/README.md. Run after a change that changes numbers (generator, estimators,
# bounds, verdicts) and commit what it writes.
set -euo pipefail
cd "$(dirname "$0")/.."
cli=./build/release/rdpaudit
# The package of this tree, whichever checkout scripts/install-deps.sh installed.
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"
for name in paper_fig1 paper_fig2 full_batch blog_saturation logistic_cor53 crafted_gradient \
    profile_cases profile_blog gradient_formula opacus_mnist gdp_claims random_allocation; do
  start=$(date +%s)
  "$cli" run "experiments/$name.toml" -o "results/$name.h5" > "build/regenerate_$name.log"
  echo "$name: $(( $(date +%s) - start )) s"
  "$cli" check "results/$name.h5" > /dev/null
  "$cli" plot "results/$name.h5" > /dev/null
done
/usr/bin/python3 python/plots/paper_bound_curves.py > /dev/null
/usr/bin/python3 python/studies/verdict_census.py --markdown
