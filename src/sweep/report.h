#pragma once
// The report of a design space (`anatomy sweep report STORE... --out r.html`):
// one self-contained HTML page in the run report's style (report/html_page.h),
// with no scripts:
//   - the Pareto front of the sweep's y (iteration time; ETTR when the
//     points are whole jobs) against its x (a cost metric): every point
//     that ran as a dot, the points no other beats on both as a line;
//   - one chart per axis: the best and the mean y at each of its values
//     (over every other axis), so the axis' effect reads at a glance;
//   - the points that failed, grouped by their error;
//   - every point in a table sortable by any column (radio buttons and
//     CSS order, so it works with no script: a click on a header's arrow).
//
//   const sweep::Table t = sweep::load_table({"s.sqlite"});
//   const std::string html = sweep::sweep_html(t);

#include <string>
#include <vector>

#include "sweep/table.h"

namespace anatomy::sweep {

// The rows (indices into t.rows) on the Pareto front of (x, y), by x.
// A row is on it when no other row is at least as good on both and
// better on one; rows without both values are left out.
std::vector<size_t> pareto_front(const Table& t, const Pareto& p);

std::string sweep_html(const Table& t);

}  // namespace anatomy::sweep
