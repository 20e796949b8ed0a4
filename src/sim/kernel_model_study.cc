#include "symbiosis/kernel_model_study.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "symbiosis/error.h"
#include "model/page_cache_model.h"
#include "sim/progress.h"
#include "model/sampler.h"
#include "sim/parallel.h"

namespace symbiosis {

namespace {

struct ModelSpec {
  const char* name;
  KernelModelKind kind;
  bool readahead;      // only for kLinux
  uint32_t group;      // 0: unsampled; else sampled in groups of this many blocks
};

// The models of the study, reference first; the grouped samples use G =
// group_blocks.
std::vector<ModelSpec> Specs(uint32_t group_blocks) {
  return {
      {"kernel", KernelModelKind::kLinux, true, 0},
      {"kernel-nora", KernelModelKind::kLinux, false, 0},
      {"block-lru", KernelModelKind::kBlockLru, false, 0},
      {"page-lru", KernelModelKind::kPageLru, false, 0},
      {"sampled", KernelModelKind::kPageLru, false, 1},
      {"m-aware", KernelModelKind::kPageLru, false, group_blocks},
      {"ghost", KernelModelKind::kLinux, true, group_blocks},
  };
}

// `sample` is the sampler of a sampled model, null otherwise; `rate` the
// fraction of the data it keeps.
std::unique_ptr<KernelCache> MakeModel(const ModelSpec& spec, uint64_t capacity,
                                       double rate, uint32_t max_readahead,
                                       const Sampler* sample) {
  PageCacheOptions page;
  page.capacity_bytes = sample ? static_cast<uint64_t>(capacity * rate) : capacity;
  if (sample) page.balance_scale = 1 / rate;  // 2Q balance of the full size
  page.readahead = spec.readahead;
  page.max_readahead_pages = max_readahead;
  page.sample = sample;
  return NewKernelCache(spec.kind, page);
}

}  // namespace

std::vector<std::string> KernelStudyModels() {
  std::vector<std::string> names;
  for (const ModelSpec& s : Specs(1)) names.emplace_back(s.name);
  return names;
}

KernelStudyResult RunKernelModelStudy(const BlockTrace& trace,
                                      const KernelStudyOptions& options) {
  CheckBlockTrace(trace);
  CheckWarmup(options.warmup);
  if (options.capacities.empty()) {
    throw InputError("no kernel cache sizes to simulate; give at least one");
  }
  for (uint64_t c : options.capacities) {
    if (c < kPageSize) {
      throw InputError("kernel cache size " + std::to_string(c) +
                       " bytes is below one 4 KiB page; give larger sizes");
    }
  }
  uint64_t disk_bytes = 0;
  for (const Block& b : trace.blocks) disk_bytes += b.disk_size;
  const uint32_t mean_disk = static_cast<uint32_t>(
      std::max<uint64_t>(1, disk_bytes / trace.blocks.size()));
  const Sampler single({options.sample_rate, 1, mean_disk});
  const Sampler grouped({options.sample_rate, options.group_blocks, mean_disk});

  // Which blocks each sampler keeps, decided once, and the fraction of the
  // data each really keeps: a few hundred groups deviate from R by several
  // percent, and a scaled-down cache sized by the nominal R would be that
  // much too small or too large for its sample.
  std::vector<bool> in_single(trace.blocks.size()), in_grouped(trace.blocks.size());
  uint64_t single_bytes = 0, grouped_bytes = 0;
  for (size_t b = 0; b < trace.blocks.size(); b++) {
    in_single[b] = single.Sampled(trace.blocks[b]);
    in_grouped[b] = grouped.Sampled(trace.blocks[b]);
    single_bytes += in_single[b] * trace.blocks[b].disk_size;
    grouped_bytes += in_grouped[b] * trace.blocks[b].disk_size;
  }
  const double single_rate = static_cast<double>(single_bytes) / disk_bytes;
  const double grouped_rate = static_cast<double>(grouped_bytes) / disk_bytes;
  const uint64_t smallest = *std::min_element(options.capacities.begin(),
                                              options.capacities.end());
  if (smallest * std::min(single_rate, grouped_rate) < kPageSize) {
    throw InputError(
        "the sample at rate " + std::to_string(options.sample_rate) + " keeps " +
        std::to_string(single_bytes) + " and " + std::to_string(grouped_bytes) +
        " bytes (single blocks, groups of " + std::to_string(options.group_blocks) +
        "), less than one page of the smallest cache; raise --rate or --data-size, or lower --group");
  }

  const std::vector<ModelSpec> specs = Specs(options.group_blocks);
  const size_t n = trace.accesses.size();
  const size_t warm = static_cast<size_t>(options.warmup * n);
  KernelStudyResult result;
  result.capacities = options.capacities;
  result.curves.resize(specs.size());
  for (size_t m = 0; m < specs.size(); m++) {
    result.curves[m].model = specs[m].name;
    result.curves[m].hit_ratio.resize(options.capacities.size());
  }

  const size_t jobs = specs.size() * options.capacities.size();
  Progress progress("simulating kernel models", jobs, options.progress);
  ParallelFor(jobs, options.threads, [&](size_t job) {
    const size_t m = job / options.capacities.size();
    const size_t c = job % options.capacities.size();
    const ModelSpec& spec = specs[m];
    const bool grouped_sample = spec.group > 1;
    const std::vector<bool>* keep =
        spec.group == 0 ? nullptr : (grouped_sample ? &in_grouped : &in_single);
    const Sampler* sampler =
        spec.group == 0 ? nullptr : (grouped_sample ? &grouped : &single);
    std::unique_ptr<KernelCache> cache =
        MakeModel(spec, options.capacities[c], grouped_sample ? grouped_rate : single_rate,
                  options.max_readahead_pages, sampler);
    uint64_t reads = 0, hits = 0;
    // Hints the model about the read this many accesses ahead, so that
    // its memory for that read is loaded by then.
    constexpr size_t kPrefetchDistance = 8;
    for (size_t i = 0; i < n; i++) {
      if (i + kPrefetchDistance < n) {
        const uint32_t ahead = trace.accesses[i + kPrefetchDistance];
        if (keep == nullptr || (*keep)[ahead]) cache->Prefetch(trace.blocks[ahead]);
      }
      const uint32_t b = trace.accesses[i];
      if (keep != nullptr && !(*keep)[b]) continue;
      const bool hit = cache->Read(trace.blocks[b]);
      if (i >= warm) {
        reads++;
        hits += hit;
      }
    }
    result.curves[m].hit_ratio[c] = reads ? static_cast<double>(hits) / reads : 0;
    progress.Advance();
  });

  const std::vector<double>& reference = result.curves[0].hit_ratio;
  for (KernelCurve& curve : result.curves) {
    for (size_t c = 0; c < reference.size(); c++) {
      const double error = std::abs(curve.hit_ratio[c] - reference[c]);
      curve.mean_abs_error += error / reference.size();
      curve.max_abs_error = std::max(curve.max_abs_error, error);
    }
  }
  return result;
}

}  // namespace symbiosis
