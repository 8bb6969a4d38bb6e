// The accelerators of the catalog, one datasheet each, in named fields.
//
// Compute units from the architecture whitepapers and data sheets: A100 108
// SMs, H100/H200 SXM 132, B200 148 (two dies of 74), GB300 160,
// MI300X/MI325X 304 CUs, MI350X/MI355X 256 CUs.

#include "hw/catalog_data.h"

namespace anatomy::hw::detail {
namespace {

Bytes GB(double v) { return Bytes(static_cast<int64_t>(v * 1e9)); }

// The measured spread figures (see make_accelerators), once each: a part on
// the same die names the measured part's.
constexpr double kH200BusyNodeLoss = 0.002, kH200RateRange = 0.034;
constexpr double kB200BusyNodeLoss = 0.005, kB200RateRange = 0.049;

}  // namespace

std::vector<Accelerator> make_accelerators() {
  // busy_node_rate_loss and sustained_rate_range (sync_pace.h): stas00/
  // ml-engineering, compute/accelerator/benchmarks/README.md, "What was
  // measured: alone vs all-8 concurrent", the revision that measures both
  // chips with torch 2.14.0+cu130 (it replaces an earlier one, torch 2.13
  // and a 2.14 nightly, whose B200 node read -2.0% and a 10.4% range):
  // mamf-finder.py's sustained (power-saturated) bf16 matmul rate, five
  // runs on GPU0 with its siblings idle, five with all 8 busy, then five
  // rounds on all 8 GPUs at once (n = 40). The loss is one chip's own drop
  // when its siblings compute (B200 1,423.8 -> 1,417.2 TFLOP/s, -0.5%;
  // H200 744.8 -> 743.4, -0.2%); the range is the 40 runs' (B200 4.9%,
  // H200 3.4%), which the page attributes to the chips themselves (each
  // GPU keeps its place in it from round to round). A part of the same die
  // borrows them (H100 the H200's, GB200 the B200's): the spread is the
  // die's, chip to chip. No other part has been measured that way: 0 (one
  // GPU's rate for every GPU).
  std::vector<Accelerator> out;
  // NVIDIA A100 Tensor Core GPU datasheet (2021): BF16/FP16 312 TFLOP/s
  // dense (624 with sparsity), no FP8; 80 GB HBM2e at 2,039 GB/s (SXM);
  // NVLink 3 600 GB/s bidirectional over 12 links; 400 W (SXM).
  out.push_back(Accelerator{.name = "A100",
                            .vendor = "NVIDIA",
                            .part = "A100 SXM4 80GB",
                            .arch = find_architecture("ampere"),
                            .bf16_tflops = 312,
                            .fp16_tflops = 312,
                            .fp8_tflops = 0,
                            .hbm_capacity = GB(80),
                            .hbm_bandwidth = GBps(2039),
                            .scaleup_bandwidth = GBps(300),
                            .scaleup_links = 12,
                            .tdp_watts = 400,
                            .compute_units = 108,
                            .source = "NVIDIA A100 datasheet (SXM4 80GB)"});
  // NVIDIA H100 datasheet (SXM5): BF16/FP16 989.4 TFLOP/s dense, FP8
  // 1,978.9 dense (the datasheet lists 2x with sparsity); 80 GB HBM3 at
  // 3.35 TB/s; NVLink 4 900 GB/s bidirectional over 18 links; up to 700 W.
  out.push_back(Accelerator{.name = "H100",
                            .vendor = "NVIDIA",
                            .part = "H100 SXM5 80GB",
                            .arch = find_architecture("hopper"),
                            .bf16_tflops = 989,
                            .fp16_tflops = 989,
                            .fp8_tflops = 1979,
                            .hbm_capacity = GB(80),
                            .hbm_bandwidth = GBps(3350),
                            .scaleup_bandwidth = GBps(450),
                            .scaleup_links = 18,
                            .tdp_watts = 700,
                            .compute_units = 132,
                            .source = "NVIDIA H100 datasheet (SXM5)",
                            .busy_node_rate_loss = kH200BusyNodeLoss,
                            .sustained_rate_range = kH200RateRange,
                            .rate_spread_source = "the H200's (the same GH100 die at 700 W), measured with mamf-finder on 8 H200 (stas00/ml-engineering)"});
  // NVIDIA H200 datasheet (SXM): the same GH100 compute as H100 SXM; 141 GB
  // HBM3e at 4.8 TB/s; NVLink 900 GB/s; up to 700 W.
  out.push_back(Accelerator{.name = "H200",
                            .vendor = "NVIDIA",
                            .part = "H200 SXM 141GB",
                            .arch = find_architecture("hopper"),
                            .bf16_tflops = 989,
                            .fp16_tflops = 989,
                            .fp8_tflops = 1979,
                            .hbm_capacity = GB(141),
                            .hbm_bandwidth = GBps(4800),
                            .scaleup_bandwidth = GBps(450),
                            .scaleup_links = 18,
                            .tdp_watts = 700,
                            .compute_units = 132,
                            .source = "NVIDIA H200 datasheet (SXM)",
                            .busy_node_rate_loss = kH200BusyNodeLoss,
                            .sustained_rate_range = kH200RateRange,
                            .rate_spread_source = "mamf-finder on 8 H200 (stas00/ml-engineering)"});
  // NVIDIA DGX B200 / HGX B200 datasheet: per GPU 2.25 PFLOP/s dense
  // FP16/BF16 and 4.5 PFLOP/s dense FP8 (datasheets print 2x with
  // sparsity); 180 GB HBM3e at 7.7-8 TB/s (DGX B200: 1,440 GB and
  // 64 TB/s for 8 GPUs); NVLink 5 1.8 TB/s bidirectional over 18 links;
  // 1,000 W. HGX B200 also lists 72 PFLOP/s FP8/FP6 and 144 PFLOP/s FP4 for
  // 8 GPUs with sparsity: 4.5 (FP6) and 9 (FP4) PFLOP/s dense per GPU.
  out.push_back(Accelerator{.name = "B200",
                            .vendor = "NVIDIA",
                            .part = "B200 (HGX/DGX B200)",
                            .arch = find_architecture("blackwell"),
                            .bf16_tflops = 2250,
                            .fp16_tflops = 2250,
                            .fp8_tflops = 4500,
                            .fp6_tflops = 4500,
                            .fp4_tflops = 9000,
                            .hbm_capacity = GB(180),
                            .hbm_bandwidth = GBps(8000),
                            .scaleup_bandwidth = GBps(900),
                            .scaleup_links = 18,
                            .tdp_watts = 1000,
                            .compute_units = 148,
                            .source = "NVIDIA DGX B200 datasheet",
                            .busy_node_rate_loss = kB200BusyNodeLoss,
                            .sustained_rate_range = kB200RateRange,
                            .rate_spread_source = "mamf-finder on 8 B200 (stas00/ml-engineering)"});
  // NVIDIA GB200 NVL72 datasheet: 72 GPUs give 180 PFLOP/s dense
  // FP16/BF16 (360 sparse) and 360 PFLOP/s dense FP8, i.e. 2.5 / 5 PFLOP/s
  // per GPU; 13.4-13.8 TB HBM3e for 72 GPUs (~186 GB each) at 8 TB/s
  // each; NVLink 5 1.8 TB/s per GPU; the superchip (1 Grace + 2 B200) is
  // rated ~2.7 kW, of which ~1.2 kW per GPU. FP8/FP6 720 and FP4 1,440
  // PFLOP/s with sparsity for 72 GPUs: 5 (FP6) and 10 (FP4) dense per GPU.
  out.push_back(Accelerator{.name = "GB200",
                            .vendor = "NVIDIA",
                            .part = "B200 in GB200 NVL72",
                            .arch = find_architecture("blackwell"),
                            .bf16_tflops = 2500,
                            .fp16_tflops = 2500,
                            .fp8_tflops = 5000,
                            .fp6_tflops = 5000,
                            .fp4_tflops = 10000,
                            .hbm_capacity = GB(186),
                            .hbm_bandwidth = GBps(8000),
                            .scaleup_bandwidth = GBps(900),
                            .scaleup_links = 18,
                            .tdp_watts = 1200,
                            .compute_units = 148,
                            .source = "NVIDIA GB200 NVL72 datasheet",
                            // The chips' spread is the die's; the busy node's loss is
                            // the board's (power, cooling), and this board's is not measured.
                            .busy_node_rate_loss = 0,
                            .sustained_rate_range = kB200RateRange,
                            .rate_spread_source = "the spread of the B200 (the same GB100 die), measured with mamf-finder on 8 B200 (stas00/ml-engineering); this board's busy-node loss not measured",
                            // Its own published GEMM peaks, below the B200's in efficiency.
                            .calibration_table = "gb200.json"});
  // NVIDIA Blackwell Ultra: HGX B300 datasheet, for 8 GPUs: FP16/BF16 36,
  // FP8/FP6 72 PFLOP/s with sparsity (2.25 and 4.5 dense per GPU), FP4 144
  // sparse / 108 dense PFLOP/s (13.5 dense per GPU);
  // 2.3 TB HBM3e (288 GB per GPU, 12-high stacks) at 8 TB/s per GPU; NVLink
  // 5 1.8 TB/s bidirectional over 18 links; 1,100 W per GPU. The full
  // Blackwell Ultra has 160 SMs (NVIDIA, "Inside NVIDIA Blackwell Ultra");
  // the count B300 enables is not published, so the family's is assumed.
  out.push_back(Accelerator{.name = "B300",
                            .vendor = "NVIDIA",
                            .part = "B300 (HGX/DGX B300)",
                            .arch = find_architecture("blackwell-ultra"),
                            .bf16_tflops = 2250,
                            .fp16_tflops = 2250,
                            .fp8_tflops = 4500,
                            .fp6_tflops = 4500,
                            .fp4_tflops = 13500,
                            .hbm_capacity = GB(288),
                            .hbm_bandwidth = GBps(8000),
                            .scaleup_bandwidth = GBps(900),
                            .scaleup_links = 18,
                            .tdp_watts = 1100,
                            .compute_units = 0,
                            .source = "NVIDIA HGX B300 / DGX B300 datasheet"});
  // NVIDIA GB300 NVL72 datasheet, for 72 GPUs: FP16/BF16 360, FP8/FP6 720
  // PFLOP/s with sparsity (2.5 and 5 dense per GPU), FP4 1,440 sparse /
  // 1,080 dense (15 dense per GPU); up to 20 TB HBM3e at 576 TB/s (288 GB
  // and 8 TB/s per GPU, as "Inside NVIDIA Blackwell Ultra" gives); NVLink 5
  // 130 TB/s for 72 (1.8 TB/s per GPU); 160 SMs; 1,400 W per GPU.
  out.push_back(Accelerator{.name = "GB300",
                            .vendor = "NVIDIA",
                            .part = "B300 in GB300 NVL72",
                            .arch = find_architecture("blackwell-ultra"),
                            .bf16_tflops = 2500,
                            .fp16_tflops = 2500,
                            .fp8_tflops = 5000,
                            .fp6_tflops = 5000,
                            .fp4_tflops = 15000,
                            .hbm_capacity = GB(288),
                            .hbm_bandwidth = GBps(8000),
                            .scaleup_bandwidth = GBps(900),
                            .scaleup_links = 18,
                            .tdp_watts = 1400,
                            .compute_units = 160,
                            .source = "NVIDIA GB300 NVL72 datasheet"});
  // AMD Instinct MI300X data sheet: 1,307.4 TFLOP/s dense BF16/FP16,
  // 2,614.9 dense FP8; 192 GB HBM3 at 5.3 TB/s; 7 Infinity Fabric links
  // at 128 GB/s bidirectional each (896 GB/s aggregate peer bandwidth);
  // 750 W.
  out.push_back(Accelerator{.name = "MI300X",
                            .vendor = "AMD",
                            .part = "Instinct MI300X OAM",
                            .arch = find_architecture("cdna3"),
                            .bf16_tflops = 1307,
                            .fp16_tflops = 1307,
                            .fp8_tflops = 2615,
                            .hbm_capacity = GB(192),
                            .hbm_bandwidth = GBps(5300),
                            .scaleup_bandwidth = GBps(448),
                            .scaleup_links = 7,
                            .tdp_watts = 750,
                            .compute_units = 304,
                            .source = "AMD Instinct MI300X data sheet"});
  // AMD Instinct MI325X data sheet: the same CDNA 3 compute as MI300X;
  // 256 GB HBM3e at 6 TB/s; 7 Infinity Fabric links (896 GB/s aggregate);
  // 1,000 W.
  out.push_back(Accelerator{.name = "MI325X",
                            .vendor = "AMD",
                            .part = "Instinct MI325X OAM",
                            .arch = find_architecture("cdna3"),
                            .bf16_tflops = 1307,
                            .fp16_tflops = 1307,
                            .fp8_tflops = 2615,
                            .hbm_capacity = GB(256),
                            .hbm_bandwidth = GBps(6000),
                            .scaleup_bandwidth = GBps(448),
                            .scaleup_links = 7,
                            .tdp_watts = 1000,
                            .compute_units = 304,
                            .source = "AMD Instinct MI325X data sheet",
                            .calibration_table = "mi325x.json"});
  // AMD Instinct MI350X data sheet: 2.3 PFLOP/s dense FP16/BF16, 4.6
  // PFLOP/s dense FP8; 288 GB HBM3e at 8 TB/s; 7 Infinity Fabric links,
  // 1,075 GB/s aggregate bidirectional (153.6 GB/s per link); 1,000 W
  // air-cooled. MXFP6 and MXFP4 9.2 PFLOP/s dense (256 CUs x 16,384
  // FLOP/clk x 2.2 GHz = 9,227.5 TFLOP/s).
  out.push_back(Accelerator{.name = "MI350X",
                            .vendor = "AMD",
                            .part = "Instinct MI350X OAM",
                            .arch = find_architecture("cdna4"),
                            .bf16_tflops = 2307,
                            .fp16_tflops = 2307,
                            .fp8_tflops = 4614,
                            .fp6_tflops = 9228,
                            .fp4_tflops = 9228,
                            .hbm_capacity = GB(288),
                            .hbm_bandwidth = GBps(8000),
                            .scaleup_bandwidth = GBps(537.6),
                            .scaleup_links = 7,
                            .tdp_watts = 1000,
                            .compute_units = 256,
                            .source = "AMD Instinct MI350X data sheet"});
  // AMD Instinct MI355X data sheet: the MI350X's CDNA 4 silicon at a 2.4
  // GHz peak engine clock and 1,400 W (liquid-cooled): FP16/BF16 2.5, FP8
  // 5.0, MXFP6 and MXFP4 10.1 PFLOP/s dense (256 CUs x 4,096 / 8,192 /
  // 16,384 FLOP/clk x 2.4 GHz = 2,516.6 / 5,033.2 / 10,066.3 TFLOP/s); 288
  // GB HBM3e at 8 TB/s; 7 Infinity Fabric links of 153.6 GB/s bidirectional.
  out.push_back(Accelerator{.name = "MI355X",
                            .vendor = "AMD",
                            .part = "Instinct MI355X OAM",
                            .arch = find_architecture("cdna4"),
                            .bf16_tflops = 2517,
                            .fp16_tflops = 2517,
                            .fp8_tflops = 5033,
                            .fp6_tflops = 10066,
                            .fp4_tflops = 10066,
                            .hbm_capacity = GB(288),
                            .hbm_bandwidth = GBps(8000),
                            .scaleup_bandwidth = GBps(537.6),
                            .scaleup_links = 7,
                            .tdp_watts = 1400,
                            .compute_units = 256,
                            .source = "AMD Instinct MI355X data sheet"});
  return out;
}

}  // namespace anatomy::hw::detail
