// Slurm hostlist expressions: "gpu[01-03,07],cpu5" -> gpu01 gpu02 gpu03 gpu07
// cpu5. Used by the slurm engine to turn SLURM_JOB_NODELIST into host names
// and by the ssh engine to accept the same compact syntax on --hosts.
//
// Grammar (what Slurm's own scontrol accepts): a comma-separated list of
// entries; commas inside brackets belong to the bracket. An entry is text
// with zero or more bracket groups ("rack[1-2]-node[01-04]" expands to the
// product, left group outermost). A group holds comma-separated numbers or
// LO-HI ranges; a range keeps the zero padding of its low bound ("[08-10]" ->
// 08 09 10). Input is untrusted (it comes from the environment): malformed
// text gives an InvalidArgument naming the offending entry, and the expansion
// is capped so that "n[0-999999999]" cannot exhaust memory.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "base/status.h"

namespace tfhost::host::launch {

// The most names one expression may expand to.
inline constexpr size_t kMaxHostlistHosts = 1 << 16;

// Expands `expr` into host names in order. Duplicates are kept (Slurm keeps
// them too). An empty expression is an error: a job always has a node.
StatusOr<std::vector<std::string>> ExpandHostlist(const std::string& expr);

// Slurm's SLURM_TASKS_PER_NODE / SLURM_STEP_TASKS_PER_NODE syntax:
// "2(x3),1" -> 2 2 2 1.
StatusOr<std::vector<int>> ExpandTasksPerNode(const std::string& expr);

}  // namespace tfhost::host::launch
