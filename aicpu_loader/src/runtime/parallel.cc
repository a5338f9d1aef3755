// ParallelFor on real threads: a lazily started pool per kernel library, sized like the simulated AI CPU.
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "cpu_kernel_utils.h"
#include "rt_internal.h"
#include "status.h"

namespace aicpu {
namespace {

thread_local bool t_in_pool_task = false;

// The CPUs the simulated AI CPU may use, from $NPUSIM_AICPU_CPUS ("0,1,3"); empty when not set.  npusim's
// worker keeps its main thread on the caller's CPU (fast request hand-over), so pool threads, which inherit
// that pinning, widen their affinity back to this set.
std::vector<int> AllowedCpus() {
  std::vector<int> cpus;
  const char *env = std::getenv("NPUSIM_AICPU_CPUS");
  for (const char *p = env; p != nullptr && *p != '\0';) {
    char *end = nullptr;
    long cpu = std::strtol(p, &end, 10);
    if (end == p) break;
    if (cpu >= 0 && cpu < CPU_SETSIZE) cpus.push_back(static_cast<int>(cpu));
    p = (*end == ',') ? end + 1 : end;
  }
  return cpus;
}

void WidenAffinity() {
  std::vector<int> cpus = AllowedCpus();
  if (cpus.empty()) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : cpus) CPU_SET(cpu, &set);
  sched_setaffinity(0, sizeof(set), &set);  // best effort: a failure only costs parallelism
}

uint32_t ConfiguredThreads() {
  const char *env = std::getenv("NPUSIM_AICPU_THREADS");
  if (env != nullptr) {
    long value = std::strtol(env, nullptr, 10);
    if (value >= 1 && value <= 1024) return static_cast<uint32_t>(value);
  }
  size_t allowed = AllowedCpus().size();
  if (allowed != 0) return static_cast<uint32_t>(allowed);
  unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1u : hw;
}

// One batch of numbered blocks; workers and the caller take block indices until none are left.
struct Batch {
  const std::function<void(int64_t)> *block_fn = nullptr;
  int64_t num_blocks = 0;
  std::atomic<int64_t> next{0};
  std::atomic<int64_t> finished{0};
  std::mutex error_mu;
  std::exception_ptr error;

  // Runs blocks until none remain; true when this call finished the last one.
  bool Drain() {
    bool finished_last = false;
    for (int64_t i = next.fetch_add(1); i < num_blocks; i = next.fetch_add(1)) {
      try {
        (*block_fn)(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mu);
        if (!error) error = std::current_exception();
      }
      if (finished.fetch_add(1) + 1 == num_blocks) finished_last = true;
    }
    return finished_last;
  }
};

class ThreadPool {
 public:
  static ThreadPool &Instance() {
    static ThreadPool *pool = new ThreadPool(ConfiguredThreads());  // never joined: lives until exit
    return *pool;
  }

  uint32_t NumThreads() const { return num_threads_; }

  // Calls block_fn(i) for every i in [0, num_blocks), the caller taking part; rethrows the first exception.
  void Run(int64_t num_blocks, const std::function<void(int64_t)> &block_fn) {
    std::lock_guard<std::mutex> one_batch_at_a_time(run_mu_);
    StartWorkers();
    auto batch = std::make_shared<Batch>();
    batch->block_fn = &block_fn;
    batch->num_blocks = num_blocks;
    {
      std::lock_guard<std::mutex> lock(mu_);
      current_ = batch;
      ++generation_;
    }
    wake_.notify_all();
    t_in_pool_task = true;
    batch->Drain();
    t_in_pool_task = false;
    {
      std::unique_lock<std::mutex> lock(mu_);
      done_.wait(lock, [&] { return batch->finished.load() == num_blocks; });
      current_.reset();
    }
    if (batch->error) std::rethrow_exception(batch->error);
  }

 private:
  explicit ThreadPool(uint32_t num_threads) : num_threads_(num_threads) {}

  void StartWorkers() {
    if (started_) return;
    started_ = true;
    for (uint32_t i = 1; i < num_threads_; ++i) std::thread([this] { WorkerLoop(); }).detach();
  }

  void WorkerLoop() {
    WidenAffinity();
    t_in_pool_task = true;
    uint64_t seen = 0;
    for (;;) {
      std::shared_ptr<Batch> batch;
      {
        std::unique_lock<std::mutex> lock(mu_);
        wake_.wait(lock, [&] { return generation_ != seen; });
        seen = generation_;
        batch = current_;
      }
      if (batch && batch->Drain()) {
        std::lock_guard<std::mutex> lock(mu_);
        done_.notify_all();
      }
    }
  }

  const uint32_t num_threads_;
  bool started_ = false;
  std::mutex run_mu_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::condition_variable done_;
  std::shared_ptr<Batch> current_;
  uint64_t generation_ = 0;
};

}  // namespace

uint32_t CpuKernelUtils::ParallelFor(const CpuKernelContext &, int64_t total, int64_t per_unit_size,
                                     const std::function<void(int64_t, int64_t)> &work) {
  if (total < 0) return KERNEL_STATUS_PARAM_INVALID;
  if (total == 0) return KERNEL_STATUS_OK;
  ThreadPool &pool = ThreadPool::Instance();
  const int64_t threads = static_cast<int64_t>(pool.NumThreads());
  const int64_t even_share = (total + threads - 1) / threads;
  const int64_t block = std::max<int64_t>(per_unit_size > 0 ? per_unit_size : 1, even_share);
  const int64_t num_blocks = (total + block - 1) / block;
  if (num_blocks <= 1 || threads <= 1 || t_in_pool_task) {  // nested calls run inline: no pool deadlock
    work(0, total);
    return KERNEL_STATUS_OK;
  }
  std::function<void(int64_t)> block_fn = [&](int64_t index) {
    const int64_t begin = index * block;
    work(begin, std::min(total, begin + block));
  };
  pool.Run(num_blocks, block_fn);
  return KERNEL_STATUS_OK;
}

uint32_t CpuKernelUtils::GetCPUNum(const CpuKernelContext &) { return ThreadPool::Instance().NumThreads(); }

}  // namespace aicpu
