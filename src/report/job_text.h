#pragma once
// A whole training run as `anatomy run` prints it for a scenario with a
// `job:` section: startup and restart phases, wall time, effective training
// time, interruptions, the checkpoint interval against Young/Daly,
// GPU-hours (and dollars) by cause, and the congestion cascade when one was
// traced; or the same figures as JSON.

#include <nlohmann/json.hpp>
#include <string>

#include "job/lifecycle.h"
#include "scenario/scenario.h"

namespace anatomy::report {

std::string job_text(const scenario::Scenario& s, const job::JobResult& r, const std::string& topology);
nlohmann::ordered_json job_json(const scenario::Scenario& s, const job::JobResult& r);
// The conditions, what they cost, each controller decision and the cascade
// link by link (a job with JobResult::adaptation).
std::string adaptation_text(const job::JobResult& r);
// A time on the job's clock to the millisecond: "25:00.134", "1:02:03.500".
std::string clock_time(core::JobTime t);

}  // namespace anatomy::report
