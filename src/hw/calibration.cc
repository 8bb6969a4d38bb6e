// load_calibration: the JSON table that `anatomy calibrate` writes (format:
// data/calibration/h200.json; its "about" field describes every section).
//
// Units, as the table's "about" states them: times "s" in seconds; GEMM
// C[m,n] = A[m,k] B[k,n] (2mnk FLOPs); attention batch 1, causal FLOPs are
// half of full, backward counted as 2.5x forward; memory rates count bytes
// read plus written; optimizer rates are nanoseconds per parameter.
//
// Every error names the file and the JSON path of the offending field
// ("gemm_grid[3].m"), so a hand-edited table is fixed in one look.

#include <cmath>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/input_file.h"
#include "core/stats.h"
#include "hw/catalog.h"
#include "hw/compute_model.h"
#include "hw/link.h"

#include <algorithm>

namespace anatomy::hw {
namespace {

using nlohmann::json;

// Reads typed fields out of one JSON document, naming file and path on error.
class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& field, const std::string& message) const {
    throw core::InputError({file_, 0, field}, message);
  }

  const json& member(const json& obj, const std::string& key, const std::string& path) const {
    if (!obj.is_object()) fail(path, "expected an object");
    auto it = obj.find(key);
    if (it == obj.end()) fail(join(path, key), "missing required field");
    return *it;
  }
  const json* optional_member(const json& obj, const std::string& key) const {
    auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
  }
  const json& array(const json& obj, const std::string& key, const std::string& path) const {
    const json& a = member(obj, key, path);
    if (!a.is_array()) fail(join(path, key), "expected an array");
    return a;
  }
  double number(const json& obj, const std::string& key, const std::string& path) const {
    const json& v = member(obj, key, path);
    if (!v.is_number()) fail(join(path, key), "expected a number, got " + v.dump());
    double d = v.get<double>();
    if (!std::isfinite(d)) fail(join(path, key), "expected a finite number");
    return d;
  }
  double positive(const json& obj, const std::string& key, const std::string& path) const {
    double d = number(obj, key, path);
    if (d <= 0) fail(join(path, key), fmt::format("must be > 0, got {}", d));
    return d;
  }
  int64_t count(const json& obj, const std::string& key, const std::string& path) const {
    const json& v = member(obj, key, path);
    if (!v.is_number_integer() || v.get<int64_t>() < 1)
      fail(join(path, key), "expected a positive integer, got " + v.dump());
    return v.get<int64_t>();
  }
  std::string text(const json& obj, const std::string& key, const std::string& path) const {
    const json& v = member(obj, key, path);
    if (!v.is_string()) fail(join(path, key), "expected a string, got " + v.dump());
    return v.get<std::string>();
  }
  bool boolean(const json& obj, const std::string& key, const std::string& path) const {
    const json& v = member(obj, key, path);
    if (!v.is_boolean()) fail(join(path, key), "expected true or false, got " + v.dump());
    return v.get<bool>();
  }

  static std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }
  static std::string index(const std::string& key, size_t i) { return fmt::format("{}[{}]", key, i); }

 private:
  std::string file_;
};

void read_gemms(const Reader& r, const json& rows, const std::string& key, bool grid,
                std::vector<CalibrationTable::Gemm>& out) {
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string path = Reader::index(key, i);
    const json& row = rows[i];
    CalibrationTable::Gemm g;
    const std::string dtype = r.text(row, "dtype", path);
    try {
      g.dtype = parse_precision(dtype, Reader::join(path, "dtype"));
    } catch (const core::InputError& e) {
      r.fail(Reader::join(path, "dtype"), e.message());
    }
    g.m = r.count(row, "m", path);
    g.n = r.count(row, "n", path);
    g.k = r.count(row, "k", path);
    g.seconds = r.positive(row, "s", path);
    g.from_grid = grid;
    out.push_back(g);
  }
}

void read_attention(const Reader& r, const json& rows, const std::string& key,
                    std::vector<CalibrationTable::Attention>& out) {
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string path = Reader::index(key, i);
    const json& row = rows[i];
    CalibrationTable::Attention a;
    a.seq = r.count(row, "seq", path);
    a.heads = r.count(row, "heads", path);
    a.head_dim = r.count(row, "head_dim", path);
    a.causal = r.boolean(row, "causal", path);
    a.fwd_seconds = r.positive(row, "fwd_s", path);
    a.fwd_bwd_seconds = r.positive(row, "fwd_bwd_s", path);
    // The backward alone is the difference, so it must be positive.
    if (a.fwd_bwd_seconds <= a.fwd_seconds)
      r.fail(Reader::join(path, "fwd_bwd_s"),
             fmt::format("must exceed fwd_s ({} <= {})", a.fwd_bwd_seconds, a.fwd_seconds));
    out.push_back(a);
  }
}

// Each row times one shape in BF16 and in FP8 in the same harness; only
// the ratios are kept, so the part's BF16 attention (measured or modelled)
// stays what prices the kernel and these rows say what FP8 changes.
void read_attention_fp8(const Reader& r, const json& rows, CalibrationTable& t) {
  if (!rows.is_array() || rows.empty()) r.fail("attention_fp8", "expected a non-empty array");
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string path = Reader::index("attention_fp8", i);
    const json& row = rows[i];
    CalibrationTable::AttentionFp8 a;
    a.seq = r.count(row, "seq", path);
    r.count(row, "heads", path);  // checked, not used: the ratio is taken as the kernel's at any head count
    // MLA's heads read Q and K wider than V (192 and 128 for DeepSeek-V3):
    // the kernel's width is their mean, as ComputeModel::attention takes it.
    const int64_t qk = r.count(row, "head_dim", path);
    const int64_t vo = row.contains("head_dim_vo") ? r.count(row, "head_dim_vo", path) : qk;
    a.width = (qk + vo) / 2;
    a.causal = r.boolean(row, "causal", path);
    a.fwd_over_bf16 = r.positive(row, "fp8_fwd_s", path) / r.positive(row, "bf16_fwd_s", path);
    a.bwd_over_bf16 = r.positive(row, "fp8_bwd_s", path) / r.positive(row, "bf16_bwd_s", path);
    t.attention_fp8.push_back(a);
  }
  std::sort(t.attention_fp8.begin(), t.attention_fp8.end(),
            [](const auto& a, const auto& b) { return a.seq < b.seq; });
}

void read_dropout(const Reader& r, const json& rows, CalibrationTable& t) {
  if (!rows.is_array() || rows.empty()) r.fail("attention_dropout", "expected a non-empty array");
  std::vector<double> fwd, bwd;
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string path = Reader::index("attention_dropout", i);
    const json& row = rows[i];
    const auto seq = static_cast<double>(r.count(row, "seq", path));
    const auto heads = static_cast<double>(r.count(row, "heads", path));
    r.count(row, "head_dim", path);  // checked, not used: the draws are per score element, whatever the width
    const double scores = heads * seq * seq * (r.boolean(row, "causal", path) ? 0.5 : 1.0);
    fwd.push_back((r.positive(row, "fwd_dropout_s", path) - r.positive(row, "fwd_s", path)) / scores);
    bwd.push_back((r.positive(row, "bwd_dropout_s", path) - r.positive(row, "bwd_s", path)) / scores);
  }
  // A median at or below zero is a measurement too: dropout cost nothing
  // that the noise did not hide.
  t.dropout_fwd_s_per_score = std::max(0.0, core::median(fwd));
  t.dropout_bwd_s_per_score = std::max(0.0, core::median(bwd));
  t.dropout_measured = true;
}

}  // namespace

CalibrationTable load_calibration(const std::string& path) {
  return parse_calibration(core::read_input_file(path, core::kMaxCalibrationBytes, "calibration table"), path);
}

CalibrationTable parse_calibration(const std::string& body, const std::string& path) {
  json doc;
  try {
    doc = json::parse(body);
  } catch (const json::parse_error& e) {
    // nlohmann reports a byte offset; turn it into the line a person looks at.
    size_t upto = std::min<size_t>(e.byte, body.size());
    int line = 1;
    for (size_t i = 0; i < upto; ++i)
      if (body[i] == '\n') ++line;
    throw core::InputError({path, line, ""}, std::string("malformed JSON: ") + e.what());
  } catch (const json::exception& e) {  // a number past double's range, say (out_of_range 406)
    throw core::InputError({path, 0, ""}, std::string("malformed JSON: ") + e.what());
  }

  Reader r(path);
  if (!doc.is_object()) r.fail("", "expected a JSON object at the top level");

  CalibrationTable t;
  t.source = path;
  const json& meta = r.member(doc, "meta", "");
  t.gpu_name = r.text(meta, "name", "meta");
  if (r.optional_member(meta, "attention_measured_on")) {
    t.attention_gpu_name = r.text(meta, "attention_measured_on", "meta");
    if (!accelerator_named_in(t.attention_gpu_name))
      r.fail("meta.attention_measured_on", "names no part of the catalog: " + t.attention_gpu_name);
  }

  if (const json* rows = r.optional_member(doc, "gemm")) {
    if (!rows->is_array()) r.fail("gemm", "expected an array");
    read_gemms(r, *rows, "gemm", false, t.gemms);
  }
  // A table with no "gemm_grid" is a table of measured peaks: a few GEMM
  // rows (max-achievable matmul rates from published benchmarks, say) that
  // set the roofline's sustained rate per precision, and nothing else
  // required; every other section is then optional.
  t.peaks_only = r.optional_member(doc, "gemm_grid") == nullptr;
  if (!t.peaks_only) read_gemms(r, r.array(doc, "gemm_grid", ""), "gemm_grid", true, t.gemms);
  bool any_bf16 = false;
  for (const auto& g : t.gemms) any_bf16 |= g.dtype == Precision::kBf16;
  if (!any_bf16)
    r.fail(t.peaks_only ? "gemm" : "gemm_grid",
           "needs at least one bf16 row (the efficiency every precision starts from)");

  if (const json* rows = r.optional_member(doc, "attention")) {
    if (!rows->is_array()) r.fail("attention", "expected an array");
    read_attention(r, *rows, "attention", t.attention);
  }
  if (!t.peaks_only || r.optional_member(doc, "attention_grid"))
    read_attention(r, r.array(doc, "attention_grid", ""), "attention_grid", t.attention);
  if (!t.peaks_only && t.attention.empty()) r.fail("attention_grid", "needs at least one row");
  // Only a table of peaks prices attention against a roofline, and only its
  // "attention" rows can have been timed elsewhere.
  if (!t.attention_gpu_name.empty() && (!t.peaks_only || !r.optional_member(doc, "attention")))
    r.fail("meta.attention_measured_on",
           "names the part a table of peaks' \"attention\" rows were timed on; this table has no such rows");

  if (!t.peaks_only || r.optional_member(doc, "memory"))
    t.memory_GBps_rw = r.positive(r.member(doc, "memory", ""), "elementwise_inplace_GBps_rw", "memory");

  // Per-kernel memory-bound rates, optional: mean of each op's rows.
  if (const json* rows = r.optional_member(doc, "elementwise")) {
    if (!rows->is_array()) r.fail("elementwise", "expected an array");
    std::vector<std::pair<std::string, std::pair<double, int>>> sums;
    for (size_t i = 0; i < rows->size(); ++i) {
      const json& row = (*rows)[i];
      const std::string at = "elementwise[" + std::to_string(i) + "]";
      if (!row.is_object() || !row.contains("op") || !row["op"].is_string()) r.fail(at + ".op", "expected a string");
      if (!row.contains("GBps_in_out")) continue;  // e.g. the cross-entropy row reports time only
      const double gbps = r.positive(row, "GBps_in_out", at);
      const std::string op = row["op"].get<std::string>();
      auto it = std::find_if(sums.begin(), sums.end(), [&](const auto& e) { return e.first == op; });
      if (it == sums.end()) sums.push_back({op, {gbps, 1}});
      else it->second.first += gbps, ++it->second.second;
    }
    for (const auto& [op, sum] : sums) t.elementwise_GBps.emplace_back(op, sum.first / sum.second);
  }

  // Optional: flash attention timed with and without dropout on the same
  // shapes. The extra time divided by the causal score elements is the cost
  // of the random number drawn for each; the median over rows keeps a short
  // shape's launch noise (a difference of either sign) out.
  if (const json* rows = r.optional_member(doc, "attention_dropout")) read_dropout(r, *rows, t);
  if (const json* rows = r.optional_member(doc, "attention_fp8")) read_attention_fp8(r, *rows, t);
  if (const json* meta = r.optional_member(doc, "meta"); meta && r.optional_member(*meta, "sms"))
    t.dropout_sms = static_cast<int>(r.count(*meta, "sms", "meta"));

  // Fused AdamW with fp32 parameters (required) and with bf16 parameters
  // (optional): the rate of the largest step measured of each, where the
  // launch and tail are best amortized (the rates differ by ~2%).
  if (t.peaks_only) return t;
  const json& opt = r.array(doc, "optimizer", "");
  int64_t largest = 0, largest_bf16 = 0;
  for (size_t i = 0; i < opt.size(); ++i) {
    const std::string p = Reader::index("optimizer", i);
    const std::string dtype = r.text(opt[i], "dtype", p);
    if (dtype != "fp32_params" && dtype != "bf16_params") continue;
    int64_t params = r.count(opt[i], "params", p);
    double ns = r.positive(opt[i], "ns_per_param", p);
    int64_t& best = dtype == "fp32_params" ? largest : largest_bf16;
    if (params > best) {
      best = params;
      (dtype == "fp32_params" ? t.optimizer_ns_per_param : t.optimizer_bf16_ns_per_param) = ns;
    }
  }
  if (largest == 0) r.fail("optimizer", "needs at least one row with dtype \"fp32_params\"");

  const json& copy = r.member(doc, "copy", "");
  t.h2d_GBps = r.positive(copy, "h2d_pinned_GBps", "copy");
  t.d2h_GBps = r.positive(copy, "d2h_pinned_GBps", "copy");
  // Optional: the GPU-host link the copies crossed, by name ("pcie-gen5"),
  // so a model can tell whether they apply to a system's link.
  if (r.optional_member(copy, "link")) {
    const std::string link = r.text(copy, "link", "copy");
    if (!find_known_link(link)) r.fail("copy.link", "unknown link \"" + link + "\" (known: " + known_link_names() + ")");
    t.copy_link = link;
  }
  t.disk_write_GBps = r.positive(r.member(doc, "disk", ""), "seq_write_fsync_GBps", "disk");
  return t;
}

void borrow_kernel_rates(CalibrationTable& to, const CalibrationTable& from) {
  if (!to.elementwise_GBps.empty() || from.elementwise_GBps.empty() || from.memory_GBps_rw <= 0) return;
  to.elementwise_of_stream.clear();
  for (const auto& [op, gbps] : from.elementwise_GBps) to.elementwise_of_stream.emplace_back(op, gbps / from.memory_GBps_rw);
  to.elementwise_of_stream_source = from.source;
}

void borrow_dropout_cost(CalibrationTable& to, const CalibrationTable& from) {
  if (to.dropout_measured || !from.dropout_measured) return;
  to.dropout_measured = true;
  to.dropout_fwd_s_per_score = from.dropout_fwd_s_per_score;
  to.dropout_bwd_s_per_score = from.dropout_bwd_s_per_score;
  to.dropout_sms = from.dropout_sms;
  to.dropout_lent_by = from.source;
}

}  // namespace anatomy::hw
