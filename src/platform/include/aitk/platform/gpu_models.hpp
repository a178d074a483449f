#pragma once
// NVIDIA model name → compute capability, from manifests/gpu-models.yaml (compiled in). Some
// probes name a GPU without its capability (the kernel module's files, nvidia-smi of old
// drivers); without one the backend choice cannot apply its architecture rules, so the name is
// looked up here and the value marked as coming from the table.
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/platform/probe.hpp"
#include "aitk/platform/types.hpp"

namespace aitk::platform {

struct GpuModelRow {
    std::string pattern;    // as written in the table
    bool is_regex = false;  // regex: searched as written; else whole words
    ComputeCapability capability;
    std::string source;
    std::string unverified;  // empty: listed by NVIDIA
    std::size_t line = 0;    // 1-based line of the row in the table
};

struct GpuModelMatch {
    ComputeCapability capability;
    const GpuModelRow* row = nullptr;  // points into the table that answered
};

class GpuModelTable {
  public:
    const std::vector<GpuModelRow>& rows() const noexcept { return rows_; }
    const std::string& name() const noexcept { return name_; }  // "manifests/gpu-models.yaml"

    // The row whose match in `name` is longest (case-insensitive; runs of whitespace in `name`
    // count as one space); of equally long matches the row listed first. nullopt: no row
    // matches.
    std::optional<GpuModelMatch> lookup(std::string_view name) const;

  private:
    friend Parsed<GpuModelTable> parse_gpu_models(std::string_view yaml, std::string_view name);
    struct Compiled;  // the rows' regular expressions
    std::string name_;
    std::vector<GpuModelRow> rows_;
    std::shared_ptr<const Compiled> compiled_;
};

// The table's text; `name` is used in error messages ("manifests/gpu-models.yaml:12:5: ...").
Parsed<GpuModelTable> parse_gpu_models(std::string_view yaml, std::string_view name);

// The table compiled into the binary, parsed on first use.
const Parsed<GpuModelTable>& builtin_gpu_models();

// The ProbeAttempt source that records lookups.
inline constexpr std::string_view kModelNameTableSource = "model-name-table";

// Gives every NVIDIA GPU that has a name but no compute capability the table's value, marked
// CapabilitySource::model_name_table, and records each lookup (found or not) in one attempt.
void infer_compute_capabilities(HardwareProbe& probe, const GpuModelTable& table);

// Undoes infer_compute_capabilities: for stores (the probe cache) that do not keep where a
// capability came from; inferring again after loading gives the same answer.
void forget_inferred_capabilities(HardwareProbe& probe);

}  // namespace aitk::platform
