#pragma once
// PipelineLayout: which layers each pipeline chunk holds, written as
// Megatron-LM's --pipeline-model-parallel-layout writes it. Models whose
// layers differ (DeepSeek-V3's three dense layers first and an MTP module
// last, 61 layers on 16 stages) balance their stages by hand this way
// instead of splitting the layers evenly.
//
// The text lists the virtual stages in order, separated by '|': virtual
// stage i is model chunk i / PP of pipeline rank i % PP (Megatron's
// flattening, vpp-major). Each stage is a run of layer symbols:
//   E  the embedding (first symbol of the first stage, once)
//   t  one transformer (decoder) layer
//   m  one multi-token-prediction module
//   L  the output layer and loss (last symbol of the last stage, once)
// `x*N` repeats the symbol or parenthesised group before it N times;
// commas and spaces are cosmetic. DeepSeek-V3 on PP 16 x VPP 2 (Megatron's
// docs): "Et*3|(tt|)*29,m|L" = [E t t t] [t t] x 29 [m] [L].

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace anatomy::workload {

// One virtual stage: what it holds.
struct LayoutStage {
  int64_t decoders = 0;  // transformer layers, consecutive in model order
  int64_t mtp = 0;       // MTP modules
  bool embedding = false;
  bool loss = false;
};

struct PipelineLayout {
  std::string text;                 // as written; "" = none (the layers split evenly)
  std::vector<LayoutStage> stages;  // in the text's order
  bool empty() const { return stages.empty(); }
};

// Parses `text` into `out`. Returns "" when it parses, else the reason
// ("'(' at 2 is never closed"). Checks what needs no
// model: E first, L last, each once; MTP modules after every decoder layer
// and all in one stage. An empty text gives an empty layout.
std::string parse_pipeline_layout(std::string_view text, PipelineLayout& out);

}  // namespace anatomy::workload
