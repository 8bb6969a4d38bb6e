#pragma once
// SyncPace: the rate at which a synchronous job's slowest GPU runs its
// tensor-core kernels, as a fraction of one GPU of the part alone.
//
// A calibration table (and the published peaks a roofline starts from)
// times one GPU with its siblings idle. In a training job every GPU of a
// node draws power at once, which lowers the sustained clock, and GPUs of
// one part do not sustain the same clock: a data-parallel step ends when
// its slowest GPU has finished, so the job runs at the slowest one's pace.
// Of n GPUs whose sustained rates spread evenly over the measured range
// (r, slowest to fastest, over their mean m in a busy node, which the
// chips set: each keeps its place in the range), the slowest one
// is expected at m (1 - r/2 + r/(n + 1)): the least of n draws from
// [m (1 - r/2), m (1 + r/2)]. No draw falls outside what was measured.
//
//   pace(n) = (1 - busy_node_rate_loss) x (1 - r/2 + r/(n + 1)),  n >= 2
//   pace(1) = 1
//
// The iteration times the slowest GPU's steps and books what the mean GPU
// (at busy_node_pace) does not compute of them as waiting on others.
//
// B200 (loss 0.5%, r 4.9%): 8 GPUs 0.976, 256 GPUs 0.971; H200 (0.2%,
// 3.4%): 8 GPUs 0.985, 256 GPUs 0.981. The same page's whole-node summary
// (mamf-finder-all-gpus.py) gives the slowest of 8 below the median GPU by
// 1.3% on both (B200 1,421 / 1,439, H200 745 / 755), against the spread
// term's 1.9% and 1.3% here. A part on a measured die borrows its range
// (GB200 the B200's, 512 GPUs 0.976) but not another board's loss; a part
// nobody measured that way keeps pace 1. Training jobs (app::make_setup)
// and an edge site's retraining are paced; serving is not: each
// accelerator serves its frames alone. Simplifications: the busy node's loss applies from 2 GPUs on,
// though fewer than a node leave siblings idle; a preset whose power or
// peak a scenario overrides keeps the preset's measured spread.

#include <cstdint>
#include <string>

#include "hw/accelerator.h"

namespace anatomy::hw {

double synchronous_pace(const Accelerator& gpu, int64_t gpus);
// The mean GPU's pace in the same job: 1 - busy_node_rate_loss from 2 GPUs
// on. Of a step the slowest GPU computes, the mean GPU computes its own
// time (the paced kernels at this pace, the rest as they are) and waits
// for it the rest.
double busy_node_pace(const Accelerator& gpu, int64_t gpus);

// "the slowest of 256 B200 sustains 0.971 of one alone (busy node -0.5%,
// spread 4.9%: mamf-finder on 8 B200 ...)"; "" at pace 1.
std::string synchronous_pace_text(const Accelerator& gpu, int64_t gpus);

}  // namespace anatomy::hw
