#include "workload/pipeline_layout.h"

#include <cctype>

#include <fmt/format.h>

namespace anatomy::workload {

namespace {

// Past this many symbols unrolled the text is no pipeline (a chunk per
// layer of a million-layer model) and would only exhaust memory.
constexpr size_t kMaxSymbols = size_t{1} << 20;
// Each level of nesting holds its own unrolled text while it repeats, so
// the depth bounds memory at kMaxDepth x kMaxSymbols bytes.
constexpr int kMaxDepth = 16;

// Recursive descent over `seq := (atom ('*' digits)?)*`, `atom := symbol |
// '(' seq ')'`, appending the unrolled symbols. Megatron unrolls with two
// regular expressions (groups, then single symbols), which cannot nest;
// for every text it accepts this gives the same symbols.
class Unroller {
 public:
  explicit Unroller(std::string_view text) : s_(text) {}

  std::string run(std::string& out) {
    std::string err = seq(out, 0);
    if (err.empty() && at_ < s_.size()) err = fmt::format("')' at {} closes no '('", at_ + 1);
    return err;
  }

 private:
  void skip() {
    while (at_ < s_.size() && (s_[at_] == ',' || std::isspace(static_cast<unsigned char>(s_[at_])))) ++at_;
  }

  std::string seq(std::string& out, int depth) {
    for (skip(); at_ < s_.size() && s_[at_] != ')'; skip()) {
      std::string atom;
      const char c = s_[at_];
      if (c == '(') {
        const size_t open = at_++;
        if (depth + 1 > kMaxDepth) return fmt::format("'(' at {} nests groups deeper than {}", open + 1, kMaxDepth);
        if (std::string err = seq(atom, depth + 1); !err.empty()) return err;
        if (at_ >= s_.size()) return fmt::format("'(' at {} is never closed", open + 1);
        ++at_;  // ')'
      } else if (c == 'E' || c == 't' || c == 'm' || c == 'L' || c == '|') {
        atom = c;
        ++at_;
      } else if (c == '*') {
        return fmt::format("'*' at {} repeats nothing", at_ + 1);
      } else {
        return fmt::format("unknown symbol '{}' at {} (known: E embedding, t layer, m MTP module, L output and "
                           "loss, | next stage, (...)*N repeat)",
                           c, at_ + 1);
      }
      int64_t times = 1;
      skip();
      if (at_ < s_.size() && s_[at_] == '*') {
        const size_t star = at_++;
        skip();
        if (at_ >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[at_])))
          return fmt::format("'*' at {} needs a count after it", star + 1);
        times = 0;
        while (at_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[at_]))) {
          times = times * 10 + (s_[at_++] - '0');
          if (times > static_cast<int64_t>(kMaxSymbols)) return fmt::format("the count after '*' at {} is too large", star + 1);
        }
      }
      if (atom.size() * static_cast<size_t>(times) + out.size() > kMaxSymbols)
        return fmt::format("unrolls to more than {} symbols", kMaxSymbols);
      for (int64_t k = 0; k < times; ++k) out += atom;
    }
    return {};  // at the end or at ')': the caller checks which is right
  }

  std::string_view s_;
  size_t at_ = 0;
};

}  // namespace

std::string parse_pipeline_layout(std::string_view text, PipelineLayout& out) {
  out = PipelineLayout{};
  std::string symbols;
  if (std::string err = Unroller(text).run(symbols); !err.empty()) return err;
  if (symbols.empty()) return {};

  PipelineLayout l;
  l.text = std::string(text);
  l.stages.emplace_back();
  bool mtp_seen = false;
  int embeddings = 0, losses = 0;
  for (size_t i = 0; i < symbols.size(); ++i) {
    LayoutStage& st = l.stages.back();
    switch (symbols[i]) {
      case '|': l.stages.emplace_back(); break;
      case 'E':
        if (i != 0) return "E (the embedding) must be the first symbol of the first stage";
        st.embedding = true;
        ++embeddings;
        break;
      case 'L':
        if (i + 1 != symbols.size()) return "L (the output layer and loss) must be the last symbol of the last stage";
        st.loss = true;
        ++losses;
        break;
      case 't':
        if (mtp_seen) return "every transformer layer (t) must come before the MTP modules (m)";
        ++st.decoders;
        break;
      case 'm':
        if (mtp_seen && st.mtp == 0) return "all MTP modules (m) must be in one stage";
        mtp_seen = true;
        ++st.mtp;
        break;
    }
  }
  if (embeddings == 0) return "must begin with E (the embedding)";
  if (losses == 0) return "must end with L (the output layer and loss)";
  out = std::move(l);
  return {};
}

}  // namespace anatomy::workload
