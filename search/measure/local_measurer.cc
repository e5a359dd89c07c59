// LocalMeasurer: builder threads, one runner, and the hand-over between them.
#include "search/measure/local_measurer.h"

#include <algorithm>
#include <chrono>

#include "support/error.h"
#include "support/logging.h"

namespace kiln::search {
namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

runtime::MeasureCandidate CandidateOf(const MeasureRequest& request) {
  return {request.workload, request.scheduled, request.dims, request.reference};
}

}  // namespace

LocalMeasurer::LocalMeasurer(LocalMeasurerOptions options) : options_(std::move(options)) {
  measurer_ = std::make_unique<runtime::CpuMeasurer>(options_.measure);
  build_jobs_ = options_.build_jobs > 0
                    ? options_.build_jobs
                    : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  run_batch_ = static_cast<size_t>(options_.run_batch > 0 ? options_.run_batch : 2 * build_jobs_);
  for (int i = 0; i < build_jobs_; ++i) threads_.emplace_back([this] { BuildLoop(); });
  threads_.emplace_back([this] { RunLoop(); });
}

LocalMeasurer::~LocalMeasurer() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void LocalMeasurer::Submit(std::vector<MeasureRequest> requests) {
  {
    std::lock_guard lock(mutex_);
    AccountIdle();
    started_ = true;
    for (MeasureRequest& r : requests) {
      KILN_CHECK(r.workload.defined() && r.scheduled.defined(), ErrorKind::kInternal,
                 "measure request " + std::to_string(r.id) + " (" + r.task_name +
                     ") lacks its workload or scheduled function");
      if (referenced_.insert(r.workload.get()).second) {
        referenced_alive_.push_back(r.workload);
        to_reference_.push_back(CandidateOf(r));
      }
      to_build_.push_back(std::move(r));
      ++pending_;
    }
  }
  changed_.notify_all();
}

std::vector<MeasureResponse> LocalMeasurer::Collect(double timeout_s) {
  std::unique_lock lock(mutex_);
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                      std::chrono::duration<double>(std::max(0.0, timeout_s)));
  changed_.wait_until(lock, deadline, [&] { return !done_.empty() || pending_ == 0; });
  std::vector<MeasureResponse> out;
  out.swap(done_);
  pending_ -= out.size();
  return out;
}

size_t LocalMeasurer::Pending() const {
  std::lock_guard lock(mutex_);
  return pending_;
}

LocalMeasurerStats LocalMeasurer::Stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

void LocalMeasurer::BuildLoop() {
  std::unique_lock lock(mutex_);
  while (true) {
    changed_.wait(lock, [&] { return stop_ || (!to_build_.empty() && !run_wanted_ && !running_); });
    if (stop_) return;
    Built item{std::move(to_build_.front()), {}, {}};
    to_build_.pop_front();
    AccountIdle();
    ++building_;
    lock.unlock();
    auto start = std::chrono::steady_clock::now();
    try {
      item.prepared = measurer_->Prepare(CandidateOf(item.request));
    } catch (const std::exception& e) {
      item.machinery_error = e.what();
    }
    double seconds = SecondsSince(start);
    lock.lock();
    AccountIdle();
    --building_;
    stats_.build_seconds += seconds;
    ++stats_.built;
    built_.push_back(std::move(item));
    changed_.notify_all();
  }
}

bool LocalMeasurer::RunPhaseDue() const {
  if (built_.empty()) return false;
  if (!options_.exclusive_runs) return true;
  // Nothing more to build soon: time what is ready rather than wait.
  return built_.size() >= run_batch_ || to_build_.empty();
}

void LocalMeasurer::RunLoop() {
  std::unique_lock lock(mutex_);
  while (true) {
    changed_.wait(lock, [&] { return stop_ || !to_reference_.empty() || RunPhaseDue(); });
    if (stop_) return;
    if (!to_reference_.empty()) {
      runtime::MeasureCandidate candidate = std::move(to_reference_.front());
      to_reference_.pop_front();
      lock.unlock();
      try {
        measurer_->ReferenceOf(candidate);
      } catch (const std::exception& e) {
        // Its candidates' runs try again and report the failure as the machinery's.
        KILN_LOG_DEBUG("the reference of {} failed: {}", candidate.workload->name, e.what());
      }
      lock.lock();
      continue;
    }
    if (options_.exclusive_runs) {
      run_wanted_ = true;
      changed_.wait(lock, [&] { return stop_ || building_ == 0; });
      if (stop_) return;
    }
    AccountIdle();
    running_ = true;
    run_wanted_ = false;
    while (!built_.empty() && !stop_) {
      Built item = std::move(built_.front());
      built_.pop_front();
      lock.unlock();
      MeasureResponse response;
      response.id = item.request.id;
      response.worker = "local";
      response.machinery_error = item.machinery_error;
      auto start = std::chrono::steady_clock::now();
      runtime::CpuMeasurer::RunProfile profile;
      if (response.machinery_error.empty()) {
        try {
          response.result = measurer_->Run(CandidateOf(item.request), item.prepared, &profile);
        } catch (const std::exception& e) {
          response.machinery_error = e.what();
        }
      }
      double seconds = SecondsSince(start);
      if (!response.machinery_error.empty()) {
        KILN_LOG_WARN("measurement of {} (request {}) failed in the machinery: {}",
                      item.request.task_name, item.request.id, response.machinery_error);
      }
      KILN_LOG_DEBUG(
          "measured {} (request {}): {}, {:.4g} s per run x {}{}; build {:.3f} s, run {:.3f} s "
          "(sandbox {:.3f}, kernel {:.3f}, check {:.3f})",
          item.request.task_name, item.request.id,
          runtime::MeasureErrorKindName(response.result.error_kind), response.result.median_seconds,
          response.result.number,
          profile.abandoned ? " (abandoned)"
          : profile.cut_off ? " (cut off)"
                            : "",
          response.result.build_seconds, seconds, profile.sandbox_seconds, profile.kernel_seconds,
          profile.check_seconds);
      lock.lock();
      stats_.run_seconds += seconds;
      stats_.sandbox_seconds += profile.sandbox_seconds;
      stats_.kernel_seconds += profile.kernel_seconds;
      stats_.check_seconds += profile.check_seconds;
      if (profile.cut_off) ++stats_.cut_off;
      if (profile.abandoned) ++stats_.abandoned;
      ++stats_.run;
      done_.push_back(std::move(response));
      changed_.notify_all();
    }
    AccountIdle();
    running_ = false;
    changed_.notify_all();
  }
}

void LocalMeasurer::AccountIdle() {
  auto now = std::chrono::steady_clock::now();
  if (started_ && building_ == 0 && !running_) {
    stats_.idle_seconds += std::chrono::duration<double>(now - last_change_).count();
  }
  last_change_ = now;
}

}  // namespace kiln::search
