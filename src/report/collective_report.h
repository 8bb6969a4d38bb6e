#pragma once
// The HTML report of a collective sweep (`anatomy collective --report`):
// time and bus bandwidth by message size, the nccl-tests rows as a table,
// and the inputs.
//
// Link loads of a collective run are not part of coll::CollectiveResult,
// so this page has no link section (the iteration's report has one).

#include <string>
#include <vector>

#include "coll/collective.h"
#include "report/page_info.h"

namespace anatomy::report {

std::string collective_report_html(const std::vector<coll::CollectiveResult>& rows, const PageInfo& info);

}  // namespace anatomy::report
