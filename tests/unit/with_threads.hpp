// The simulator and the estimators run on the process's OpenMP default (app::use_threads sets
// it once per run); the tests that compare thread counts set it the same way.
#pragma once

#include <omp.h>

namespace rdpaudit::test {

/// f() with the OpenMP default set to `threads`, the previous default restored after.
template <class F>
auto with_threads(int threads, F&& f) {
  struct Restore {
    int threads;
    ~Restore() { omp_set_num_threads(threads); }
  } restore{omp_get_max_threads()};
  omp_set_num_threads(threads);
  return f();
}

}  // namespace rdpaudit::test
