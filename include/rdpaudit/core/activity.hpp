// What the process is doing, in words, for the message of an allocation failure: `main`
// reports std::bad_alloc as "out of memory while <activity>" (exit 2). Scopes nest; the
// progress label of a run (Progress::set_label) is added to the innermost. Main thread only.
#pragma once

#include <string>

namespace rdpaudit {

class Activity {
 public:
  /// e.g. "reading the experiment file x.toml", "writing the results file out.h5".
  explicit Activity(std::string what);
  /// Left by an exception, the innermost scope keeps what it was doing for failed_activity().
  ~Activity();
  Activity(const Activity&) = delete;
  Activity& operator=(const Activity&) = delete;

 private:
  int exceptions_;  ///< std::uncaught_exceptions() when entered
};

/// The innermost activity with the progress label, e.g. "running x.toml (scenario 2/3)";
/// "starting" outside every scope.
std::string current_activity();

/// What the innermost scope an exception left was doing (current_activity() at that moment),
/// else current_activity(): for the handler in main, where every scope has ended.
std::string failed_activity();

/// The label of the run's progress (Progress::set_label), shown with the activity; kept while
/// an exception unwinds.
void set_activity_detail(const std::string& detail);

}  // namespace rdpaudit
