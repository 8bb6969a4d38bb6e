#include "hw/flash2_rates.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "hw/compute_interpolation.h"

namespace anatomy::hw {
namespace {

// Shah, Bikshandi, Zhang, Thakkar, Ramani, Dao, "FlashAttention-3: Fast and
// Accurate Attention with Asynchrony and Low-precision" (arXiv 2407.08608),
// Figures 5 and 6: FlashAttention-2 on an H100 80GB SXM5, BF16, head
// dimension 128, hidden 2048 (16 heads), batch x sequence = 16k tokens.
// The paper shows the backward pass without the causal mask only; a causal
// backward is taken at the forward's causal / non-causal ratio at the same
// length (the masked diagonal blocks and the uneven work per query block
// are the same in both passes).
constexpr std::array<double, 6> kSeqLog2 = {9, 10, 11, 12, 13, 14};  // 512 .. 16k
constexpr std::array<double, 6> kForward = {309, 350, 362, 368, 370, 370};
constexpr std::array<double, 6> kForwardCausal = {191, 260, 298, 319, 333, 335};
constexpr std::array<double, 6> kBackward = {214, 260, 291, 310, 318, 322};

double at(const std::array<double, 6>& rates, double x) { return detail::clamped_linear(kSeqLog2, rates, x); }

}  // namespace

double flash2_h100_tflops(int64_t seq, bool causal, bool backward) {
  const double x = std::log2(static_cast<double>(std::max<int64_t>(1, seq)));
  const double forward = at(causal ? kForwardCausal : kForward, x);
  if (!backward) return forward;
  const double b = at(kBackward, x);
  return causal ? b * forward / at(kForward, x) : b;
}

}  // namespace anatomy::hw
