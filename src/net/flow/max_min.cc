#include "net/flow/max_min.h"

#include <algorithm>
#include <limits>

namespace anatomy::net {

void MaxMinProblem::add_flow(std::initializer_list<uint32_t> links) {
  flow_links.insert(flow_links.end(), links.begin(), links.end());
  flow_begin.push_back(static_cast<uint32_t>(flow_links.size()));
}

void MaxMinProblem::clear() {
  capacity.clear();
  flow_begin.assign(1, 0);
  flow_links.clear();
}

const std::vector<double>& MaxMinSolver::solve(const MaxMinProblem& p) {
  const size_t nf = p.num_flows();
  const size_t nl = p.capacity.size();
  rate_.assign(nf, std::numeric_limits<double>::infinity());
  frozen_.assign(nf, 0);
  remaining_.assign(p.capacity.begin(), p.capacity.end());
  unfrozen_.assign(nl, 0);
  // Transpose flow->links into link->flows (CSR).
  for (uint32_t l : p.flow_links) ++unfrozen_[l];
  link_begin_.assign(nl + 1, 0);
  for (size_t l = 0; l < nl; ++l) link_begin_[l + 1] = link_begin_[l] + unfrozen_[l];
  link_flows_.resize(p.flow_links.size());
  fill_.assign(link_begin_.begin(), link_begin_.end() - 1);
  for (uint32_t f = 0; f < nf; ++f)
    for (uint32_t i = p.flow_begin[f]; i < p.flow_begin[f + 1]; ++i) link_flows_[fill_[p.flow_links[i]]++] = f;

  auto greater = [](const HeapItem& a, const HeapItem& b) {
    return a.share > b.share || (a.share == b.share && a.link > b.link);
  };
  heap_.clear();
  for (uint32_t l = 0; l < nl; ++l)
    if (unfrozen_[l] > 0) heap_.push_back({remaining_[l] / unfrozen_[l], l});
  std::make_heap(heap_.begin(), heap_.end(), greater);

  // Keys refreshed only on top (max_min.h): the link on top whose share now
  // is still no more than the next key (ties by link id) is the bottleneck.
  while (!heap_.empty()) {
    std::pop_heap(heap_.begin(), heap_.end(), greater);
    const uint32_t l = heap_.back().link;
    heap_.pop_back();
    if (unfrozen_[l] == 0) continue;
    const double share = std::max(0.0, remaining_[l]) / unfrozen_[l];
    if (!heap_.empty() && greater({share, l}, heap_.front())) {
      heap_.push_back({share, l});
      std::push_heap(heap_.begin(), heap_.end(), greater);
      continue;
    }
    for (uint32_t i = link_begin_[l]; i < link_begin_[l + 1]; ++i) {
      const uint32_t f = link_flows_[i];
      if (frozen_[f]) continue;
      frozen_[f] = 1;
      rate_[f] = share;
      for (uint32_t k = p.flow_begin[f]; k < p.flow_begin[f + 1]; ++k) {
        const uint32_t l2 = p.flow_links[k];
        remaining_[l2] -= share;
        --unfrozen_[l2];
      }
    }
    unfrozen_[l] = 0;
  }
  return rate_;
}

}  // namespace anatomy::net
