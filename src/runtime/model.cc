#include "runtime/model.h"

#include <set>

namespace tfhost::runtime {

StatusOr<const Signature*> Model::FindSignature(const std::string& name) const {
  auto it = signatures_.find(name);
  if (it != signatures_.end()) return &it->second;
  std::string available;
  for (const auto& [k, v] : signatures_) available += (available.empty() ? "" : ", ") + k;
  return NotFound("signature '" + name + "' not found in " + info_.path + "; available: " +
                  (available.empty() ? "<none>" : available));
}

StatusOr<std::map<std::string, Tensor>> Model::RunSignature(const std::string& signature_name,
                                                            const std::map<std::string, Tensor>& inputs,
                                                            const std::vector<std::string>& output_filter,
                                                            const RunSignatureOptions& options) {
  TFHOST_ASSIGN_OR_RETURN(const Signature* sig, FindSignature(signature_name));
  std::string where = "signature '" + sig->name + "'";
  NamedTensors feeds;
  std::set<std::string> seen;
  for (const auto& [key, value] : inputs) {
    const TensorSpec* spec = nullptr;
    for (const auto& s : sig->inputs) {
      if (s.key == key) spec = &s;
    }
    if (spec == nullptr) {
      std::string expected;
      for (const auto& s : sig->inputs) expected += (expected.empty() ? "" : ", ") + s.key;
      return InvalidArgument(where + " has no input '" + key + "'; expected inputs: " +
                             (expected.empty() ? "<none>" : expected));
    }
    if (spec->dtype != DType::kInvalid && value.dtype() != spec->dtype) {
      return InvalidArgument(where + ": input '" + key + "' must be " + DTypeShortName(spec->dtype) +
                             ", got " + DTypeShortName(value.dtype()));
    }
    if (options.check_input_shapes && !spec->shape.IsCompatibleWith(value.shape())) {
      return InvalidArgument(where + ": input '" + key + "' must have shape " + spec->shape.ToString() +
                             ", got " + value.shape().ToString());
    }
    feeds.emplace_back(spec->tensor_name, value);
    seen.insert(key);
  }
  for (const auto& s : sig->inputs) {
    if (seen.count(s.key)) continue;
    auto def = sig->defaults.find(s.key);
    if (def != sig->defaults.end()) {
      feeds.emplace_back(s.tensor_name, def->second);
    } else {
      return InvalidArgument(where + ": missing input '" + s.key + "' (" + DTypeShortName(s.dtype) +
                             " " + s.shape.ToString() + ")");
    }
  }
  std::vector<std::string> fetches, keys;
  for (const auto& o : sig->outputs) {
    if (!output_filter.empty() &&
        std::find(output_filter.begin(), output_filter.end(), o.key) == output_filter.end()) {
      continue;
    }
    fetches.push_back(o.tensor_name);
    keys.push_back(o.key);
  }
  for (const auto& f : output_filter) {
    if (std::find(keys.begin(), keys.end(), f) == keys.end()) {
      return InvalidArgument(where + " has no output '" + f + "'");
    }
  }
  auto results = session_->Run(feeds, fetches);
  if (!results.ok()) {
    // Shapes were not checked up front (serving): when the graph refuses a
    // request whose input differs from what the signature declares, that
    // difference is the likely cause, so the error leads with the input's
    // name and both shapes rather than an inner node's complaint alone.
    if (results.status().code() == StatusCode::kInvalidArgument) {
      std::string mismatches;
      for (const auto& [key, value] : inputs) {
        for (const auto& spec : sig->inputs) {
          if (spec.key != key || spec.shape.IsCompatibleWith(value.shape())) continue;
          mismatches += (mismatches.empty() ? "" : "; ") + std::string("input '") + key + "' has shape " +
                        value.shape().ToString() + " but the signature declares " + spec.shape.ToString();
        }
      }
      if (!mismatches.empty()) {
        return InvalidArgument(where + ": " + mismatches + " (the model failed on it: " +
                               results.status().message() + ")");
      }
    }
    return results.status();
  }
  std::map<std::string, Tensor> out;
  for (size_t i = 0; i < keys.size(); ++i) out[keys[i]] = std::move((*results)[i]);
  return out;
}

}  // namespace tfhost::runtime
