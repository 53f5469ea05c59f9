// State that outlives one Session::Run: variables (TF1 VariableV2 and TF2
// resource variables) and, later, lookup tables. Resources are keyed by name
// (a resource tensor holds that name as its string element).
//
// Thread-safety: all methods are thread-safe; a Variable's value is guarded by
// its own mutex.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/tensor.h"

namespace tfhost::ops {

class Resource {
 public:
  virtual ~Resource() = default;
  virtual std::string TypeName() const = 0;
};

class Variable : public Resource {
 public:
  std::string TypeName() const override { return "Variable"; }
  std::mutex mu;
  Tensor value;  // invalid until initialized
  DType dtype = DType::kInvalid;
  bool initialized() const { return value.valid(); }
};

class ResourceManager {
 public:
  // Returns the resource named `name`, creating it with `create` if absent.
  // Fails if a resource of another type already has the name.
  template <typename T>
  StatusOr<std::shared_ptr<T>> LookupOrCreate(const std::string& name,
                                              const std::function<std::shared_ptr<T>()>& create) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = resources_.find(name);
    if (it == resources_.end()) {
      auto r = create();
      resources_[name] = r;
      return r;
    }
    auto typed = std::dynamic_pointer_cast<T>(it->second);
    if (!typed) {
      return InvalidArgument("resource '" + name + "' is a " + it->second->TypeName() +
                             ", not the expected type");
    }
    return typed;
  }

  template <typename T>
  StatusOr<std::shared_ptr<T>> Lookup(const std::string& name) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = resources_.find(name);
    if (it == resources_.end()) return NotFound("resource '" + name + "' does not exist");
    auto typed = std::dynamic_pointer_cast<T>(it->second);
    if (!typed) return InvalidArgument("resource '" + name + "' has type " + it->second->TypeName());
    return typed;
  }

  std::vector<std::string> Names() const {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::string> names;
    for (const auto& [k, v] : resources_) names.push_back(k);
    return names;
  }

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<Resource>> resources_;
};

}  // namespace tfhost::ops
