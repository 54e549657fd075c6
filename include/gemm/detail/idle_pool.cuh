#pragma once
// Per-device objects kept for reuse (sets of streams, events): an idle one of a device is taken out
// of its pool, or the caller creates one; either way it comes back with `put` once the call is done.
#include <mutex>
#include <vector>

namespace gemm::detail {

template <class T>  // T has an `int device`
class IdlePool {
 public:
  // An idle object of `device`, or null (the caller then creates one).
  T* take(int device) {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = idle_.begin(); it != idle_.end(); ++it)
      if ((*it)->device == device) {
        T* out = *it;
        idle_.erase(it);
        return out;
      }
    return nullptr;
  }
  void put(T* x) {
    std::lock_guard<std::mutex> lock(mu_);
    idle_.push_back(x);
  }
  // Every idle object, out of the pool (to destroy them).
  std::vector<T*> drain() {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<T*> out;
    out.swap(idle_);
    return out;
  }

 private:
  std::mutex mu_;
  std::vector<T*> idle_;
};

}  // namespace gemm::detail
