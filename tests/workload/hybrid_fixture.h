#pragma once
// Shared by the workload tests of hybrid models: a model with its layers
// given by a pattern, and a transformer spelled as the blocks it is made of.

#include <string>

#include "workload/model.h"

namespace anatomy::workload::testing {

// `base` with one layer per character of `pattern` (model.h).
inline ModelSpec with_pattern(const ModelSpec& base, const std::string& pattern) {
  ModelSpec m = base;
  m.hybrid_pattern = pattern;
  m.layers = static_cast<int64_t>(pattern.size());
  return m;
}

// A transformer's layers as hybrid blocks: an attention block and an MLP
// block (`mlp`: '-' dense, 'E' experts) for each layer.
inline ModelSpec spelled_as_blocks(const ModelSpec& transformer, char mlp) {
  std::string pattern;
  for (int64_t i = 0; i < transformer.layers; ++i) pattern += std::string{'*', mlp};
  return with_pattern(transformer, pattern);
}

}  // namespace anatomy::workload::testing
