// ObservedMeasurer: an AsyncMeasurer that forwards every request to another and shows each
// answer, with the request it answers, to a callback before handing it on: how a driver that
// runs the Tuner itself (compiler/sparse/sparse_tuning.h) stores every measurement as a tuning
// record, as the coordinator does for its jobs.
#pragma once

#include <functional>
#include <map>
#include <mutex>

#include "search/measure/async_measurer.h"

namespace kiln::search {

class ObservedMeasurer : public AsyncMeasurer {
 public:
  using Observer = std::function<void(const MeasureRequest&, const MeasureResponse&)>;
  // `inner` is not owned and must outlive this measurer.
  ObservedMeasurer(AsyncMeasurer& inner, Observer observer)
      : inner_(inner), observer_(std::move(observer)) {}

  void Submit(std::vector<MeasureRequest> requests) override {
    {
      std::lock_guard lock(mutex_);
      for (const MeasureRequest& r : requests) requests_[r.id] = r;
    }
    inner_.Submit(std::move(requests));
  }

  std::vector<MeasureResponse> Collect(double timeout_s) override {
    std::vector<MeasureResponse> responses = inner_.Collect(timeout_s);
    for (const MeasureResponse& response : responses) {
      MeasureRequest request;
      {
        std::lock_guard lock(mutex_);
        auto it = requests_.find(response.id);
        if (it == requests_.end()) continue;
        request = std::move(it->second);
        requests_.erase(it);
      }
      observer_(request, response);
    }
    return responses;
  }

  size_t Pending() const override { return inner_.Pending(); }

 private:
  AsyncMeasurer& inner_;
  Observer observer_;
  std::mutex mutex_;
  std::map<uint64_t, MeasureRequest> requests_;
};

}  // namespace kiln::search
