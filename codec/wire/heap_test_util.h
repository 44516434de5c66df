// Test helper: counts the heap a test program allocates through operator new, so tests
// can measure the peak a call reaches (decompression bombs, the allocation budget) and
// how many allocations it makes (decoding into a reused message).
//
// KWIRE_COUNT_GLOBAL_NEW() replaces the global operator new/delete with counting ones:
// write it in exactly one source file of a test program (at namespace scope); any file of
// that program may then use PeakHeap / PeakAllocated. Library-internal malloc (zlib/zstd
// state) is not counted.
#ifndef KWIRE_CODEC_WIRE_HEAP_TEST_UTIL_H_
#define KWIRE_CODEC_WIRE_HEAP_TEST_UTIL_H_

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

namespace kwire::heap_testing {

inline std::atomic<size_t> g_live{0};
inline std::atomic<size_t> g_peak{0};
inline std::atomic<size_t> g_count{0};  // calls of operator new
inline constexpr size_t kAllocHeader = 16;  // keeps the size; 16 keeps max_align_t alignment

inline void* CountedNew(size_t n) {
  void* p = std::malloc(n + kAllocHeader);
  if (p == nullptr) throw std::bad_alloc();
  *static_cast<size_t*>(p) = n;
  g_count.fetch_add(1);
  const size_t live = g_live.fetch_add(n) + n;
  size_t peak = g_peak.load();
  while (live > peak && !g_peak.compare_exchange_weak(peak, live)) {
  }
  return static_cast<char*>(p) + kAllocHeader;
}

inline void CountedDelete(void* p) noexcept {
  if (p == nullptr) return;
  char* base = static_cast<char*>(p) - kAllocHeader;
  g_live.fetch_sub(*reinterpret_cast<size_t*>(base));
  std::free(base);
}

/// Peak heap above what was live when it was made.
class PeakHeap {
 public:
  PeakHeap() : base_(g_live.load()) { g_peak.store(base_); }
  size_t Above() const { return g_peak.load() - base_; }

 private:
  size_t base_;
};

/// Peak bytes allocated through operator new while `f` runs, above what was live before.
template <class F>
size_t PeakAllocated(F&& f) {
  PeakHeap peak;
  f();
  return peak.Above();
}

/// Calls of operator new while `f` runs.
template <class F>
size_t AllocationsDuring(F&& f) {
  const size_t before = g_count.load();
  f();
  return g_count.load() - before;
}

}  // namespace kwire::heap_testing

#define KWIRE_COUNT_GLOBAL_NEW()                                                          \
  void* operator new(size_t n) { return kwire::heap_testing::CountedNew(n); }              \
  void* operator new[](size_t n) { return kwire::heap_testing::CountedNew(n); }            \
  void operator delete(void* p) noexcept { kwire::heap_testing::CountedDelete(p); }        \
  void operator delete[](void* p) noexcept { kwire::heap_testing::CountedDelete(p); }      \
  void operator delete(void* p, size_t) noexcept { kwire::heap_testing::CountedDelete(p); } \
  void operator delete[](void* p, size_t) noexcept { kwire::heap_testing::CountedDelete(p); }

#endif  // KWIRE_CODEC_WIRE_HEAP_TEST_UTIL_H_
