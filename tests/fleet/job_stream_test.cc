#include "fleet/job_stream.h"

#include <gtest/gtest.h>

namespace anatomy::fleet {
namespace {

FleetSpec two_classes() {
  FleetSpec s;
  JobClass small, big;
  small.name = "small";
  small.max_gpus = 8;
  big.name = "big";
  big.min_gpus = 9;
  s.classes = {small, big};
  return s;
}

TEST(ParseDatetime, CountsSecondsSince1970) {
  double t = 0;
  // 2017-10-03 08:27:43: 17442 days after 1970-01-01 (2017-10-03), plus 8 h 27 min 43 s.
  ASSERT_TRUE(parse_datetime("2017-10-03 08:27:43", t));
  EXPECT_DOUBLE_EQ(t, 17442.0 * 86400 + 8 * 3600 + 27 * 60 + 43);
  EXPECT_FALSE(parse_datetime("None", t));
  EXPECT_FALSE(parse_datetime("2017-13-03 08:27:43", t));
}

const char* kPhilly = R"([
  {"status": "Pass", "vc": "vc1", "jobid": "application_1", "user": "u1",
   "submitted_time": "2017-10-03 08:00:00",
   "attempts": [{"start_time": "2017-10-03 08:00:10", "end_time": "2017-10-03 09:00:10",
                 "detail": [{"ip": "m1", "gpus": ["gpu0", "gpu1", "gpu2", "gpu3"]}]}]},
  {"status": "Killed", "vc": "vc1", "jobid": "application_2", "user": "u2",
   "submitted_time": "2017-10-03 08:10:00",
   "attempts": [{"start_time": "2017-10-03 08:20:00", "end_time": "2017-10-03 08:30:00",
                 "detail": [{"ip": "m2", "gpus": ["gpu0","gpu1","gpu2","gpu3","gpu4","gpu5","gpu6","gpu7"]},
                            {"ip": "m3", "gpus": ["gpu0","gpu1","gpu2","gpu3","gpu4","gpu5","gpu6","gpu7"]}]},
                {"start_time": "2017-10-03 08:40:00", "end_time": "2017-10-03 09:10:00",
                 "detail": [{"ip": "m2", "gpus": ["gpu0"]}]}]},
  {"status": "Failed", "vc": "vc2", "jobid": "application_3", "user": "u3",
   "submitted_time": "not a time",
   "attempts": []},
  {"status": "Pass", "vc": "vc2", "jobid": "application_4", "user": "u1",
   "submitted_time": "2017-10-03 08:30:00",
   "attempts": [{"start_time": "2017-10-03 08:31:00", "end_time": "2017-10-03 08:32:00",
                 "detail": [{"ip": "m4", "gpus": ["gpu0"]}]}]}
])";

TEST(ReadPhilly, ReadsEveryGoodJobAndNamesTheLineAndColumnOfTheBadOne) {
  const StreamResult r = read_philly(kPhilly, "log.json", two_classes());
  // Four jobs; the third's submitted_time is malformed: rejected, the rest read.
  EXPECT_EQ(r.rows, 4);
  EXPECT_EQ(r.rejected, 1);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0], "log.json:13: submitted_time: missing or not \"YYYY-MM-DD HH:MM:SS\"");
  ASSERT_EQ(r.jobs.size(), 3u);
  // application_1: 4 GPUs, submitted first (arrival 0), ran 1 h.
  EXPECT_EQ(r.jobs[0].id, "application_1");
  EXPECT_EQ(r.jobs[0].gpus, 4);
  EXPECT_DOUBLE_EQ(r.jobs[0].arrival.seconds(), 0);
  EXPECT_DOUBLE_EQ(r.jobs[0].duration.seconds(), 3600);
  EXPECT_EQ(r.jobs[0].job_class, 0);
  // application_2: the most GPUs an attempt held (16, class big), 10 min
  // after the first; first start 08:20 to last end 09:10: 50 min.
  EXPECT_EQ(r.jobs[1].gpus, 16);
  EXPECT_EQ(r.jobs[1].job_class, 1);
  EXPECT_DOUBLE_EQ(r.jobs[1].arrival.seconds(), 600);
  EXPECT_DOUBLE_EQ(r.jobs[1].duration.seconds(), 3000);
  EXPECT_EQ(r.jobs[2].id, "application_4");
}

TEST(ReadHelios, FindsColumnsByTheHeaderSkipsCpuJobsAndRejectsBadRows) {
  const std::string text =
      "job_id,user,vc,jobname,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n"
      "1,u1,vcA,a,8,64,1,COMPLETED,2020-04-01 00:00:00,2020-04-01 00:01:00,2020-04-01 02:01:00,7200,60\n"
      "2,u2,vcA,b,0,4,1,COMPLETED,2020-04-01 00:05:00,2020-04-01 00:05:00,2020-04-01 00:06:00,60,0\n"
      "3,u3,vcB,c,eight,64,1,FAILED,2020-04-01 00:10:00,2020-04-01 00:10:00,2020-04-01 00:20:00,600,0\n"
      "4,u1,vcB,d,32,256,4,COMPLETED,2020-04-01 00:30:00,2020-04-01 01:00:00,2020-04-01 01:30:00,1800,1800\n";
  const StreamResult r = read_helios(text, "cluster_log.csv", two_classes());
  EXPECT_EQ(r.rows, 4);
  EXPECT_EQ(r.skipped, 1);   // job 2 has no GPUs
  EXPECT_EQ(r.rejected, 1);  // job 3's gpu_num
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0], "cluster_log.csv:4: gpu_num: 'eight' is not a whole number of GPUs");
  ASSERT_EQ(r.jobs.size(), 2u);
  // Job 4: submitted 30 min after job 1, ran 30 min, 32 GPUs (class big).
  EXPECT_DOUBLE_EQ(r.jobs[1].arrival.seconds(), 1800);
  EXPECT_DOUBLE_EQ(r.jobs[1].duration.seconds(), 1800);
  EXPECT_EQ(r.jobs[1].gpus, 32);
  EXPECT_EQ(r.jobs[1].job_class, 1);
}

TEST(ReadAlibabaPai, AddsTasksGpuPlansAndTakesSubmissionFromTheJobTable) {
  // Job A: a worker task of 2 instances x 100% and a ps task of 1 x 50%:
  // ceil(2 + 0.5) = 3 GPUs; tasks run 100..1000 and 150..1100: 1000 s.
  // Job B: CPU only (plan_gpu empty): skipped. A row with 5 columns: rejected.
  const std::string tasks =
      "jobA,worker,2,Terminated,100,1000,600,29.3,100,V100\n"
      "jobA,ps,1,Terminated,150,1100,600,29.3,50,V100\n"
      "jobB,worker,1,Terminated,200,300,600,29.3,,\n"
      "jobC,worker,1,Terminated\n"
      "jobD,worker,8,Failed,400,500,600,29.3,100,P100\n";
  const std::string jobs = "jobA,inst1,u1,Terminated,40,1100\njobD,inst2,u2,Failed,390,500\n";
  const StreamResult r = read_alibaba_pai(tasks, "pai_task_table.csv", jobs, "pai_job_table.csv", two_classes());
  EXPECT_EQ(r.rejected, 1);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0], "pai_task_table.csv:4: (row): 4 columns; a task row has 10");
  EXPECT_EQ(r.skipped, 1);
  ASSERT_EQ(r.jobs.size(), 2u);
  EXPECT_EQ(r.jobs[0].id, "jobA");
  EXPECT_EQ(r.jobs[0].gpus, 3);
  EXPECT_DOUBLE_EQ(r.jobs[0].duration.seconds(), 1000);
  // Submitted at 40 (job table), jobD at 390: 350 s later.
  EXPECT_DOUBLE_EQ(r.jobs[1].arrival.seconds(), 350);
  EXPECT_EQ(r.jobs[1].gpus, 8);
}

TEST(ReadAlibabaPai, NumbersNoRealTraceHoldsAreRejectedRowsNotOverflows) {
  // Found by fuzz/cluster_trace_fuzzer: an end_time of 3001e20 s made the
  // job's duration overflow the integer clock (undefined behaviour). Times
  // past 1e11 s (3,000 years) and jobs past 2^20 GPUs are rejected by line.
  const std::string tasks =
      "jobA,worker,2,Terminated,100,1000,600,29.3,100,V100\n"
      "jobB,worker,1,Terminated,200,3001e20,600,29.3,100,V100\n"
      "jobC,worker,1e30,Terminated,200,300,600,29.3,100,V100\n"
      "jobD,worker,1000000,Terminated,200,300,600,29.3,100000,V100\n"
      "jobD,worker,1000000,Terminated,200,300,600,29.3,100000,V100\n";
  const StreamResult r = read_alibaba_pai(tasks, "pai_task_table.csv", "", "", two_classes());
  ASSERT_EQ(r.errors.size(), 3u);
  EXPECT_EQ(r.errors[0], "pai_task_table.csv:2: end_time: '3001e20' is not a number of seconds at or after start_time");
  EXPECT_EQ(r.errors[1], "pai_task_table.csv:3: inst_num: '1e30' is not a count");
  // jobD: 2 tasks x 1e6 instances x 1000 GPUs each = 2e9 GPUs > 2^20.
  EXPECT_EQ(r.errors[2], "pai_task_table.csv:4: plan_gpu: its tasks add up to 2000000000 GPUs, more than 2^20");
  ASSERT_EQ(r.jobs.size(), 1u);
  EXPECT_EQ(r.jobs[0].id, "jobA");
}

TEST(ReadTrace, AJobNoClassTakesIsRejectedNotDropped) {
  FleetSpec s;
  JobClass only_small;
  only_small.name = "small";
  only_small.max_gpus = 8;
  s.classes = {only_small};
  const StreamResult r = read_philly(kPhilly, "log.json", s);
  // application_2 (16 GPUs) fits no class: a second rejection, named by its line.
  EXPECT_EQ(r.rejected, 2);
  EXPECT_EQ(r.errors[0], "log.json:6: attempts.detail.gpus: no job class in fleet.classes takes 16 GPUs");
  EXPECT_EQ(r.jobs.size(), 2u);
}

TEST(Generator, SameSeedSameJobs) {
  FleetSpec s = two_classes();
  s.generator.jobs = 50;
  s.generator.sizes = {{8, 3}, {64, 1}};
  const StreamResult a = job_stream(s), b = job_stream(s);
  ASSERT_EQ(a.jobs.size(), 50u);
  for (size_t i = 0; i < a.jobs.size(); ++i) {
    EXPECT_EQ(a.jobs[i].arrival, b.jobs[i].arrival);
    EXPECT_EQ(a.jobs[i].gpus, b.jobs[i].gpus);
    EXPECT_EQ(a.jobs[i].duration, b.jobs[i].duration);
  }
  s.seed = 2;
  const StreamResult c = job_stream(s);
  bool differs = false;
  for (size_t i = 0; i < c.jobs.size(); ++i) differs |= c.jobs[i].duration != a.jobs[i].duration;
  EXPECT_TRUE(differs);
}

}  // namespace
}  // namespace anatomy::fleet
