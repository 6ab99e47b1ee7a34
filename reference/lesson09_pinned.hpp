/// @file lesson09_pinned.hpp
/// @brief Lesson 9's allocator witness: which OpenMP allocation call produced
///        a block of host memory, and with which allocator.
///
/// Whether memory is pinned is a fact the host-offload device cannot show (it
/// copies with memcpy in one RAM, pinned or not) and LLVM 19's runtime does
/// not report it on any device. What the program asked for can be seen
/// everywhere: this header defines the OpenMP allocation functions in the
/// program itself (`omp_alloc` and its variants, `omp_free`,
/// `omp_init_allocator`, `omp_target_alloc` and LLVM's
/// `llvm_omp_target_alloc_host` / `llvm_omp_target_free_host`). A program's
/// own definition is what its code calls; each one notes the call and hands
/// it on, unchanged, to the OpenMP runtime's (found with dlsym(RTLD_NEXT)).
/// So a test can say "pinned_alloc() took its memory from omp_alloc with an
/// allocator whose only special trait is omp_atk_pinned on
/// omp_default_mem_space" -- which LLVM 19 does not pin -- on any device.
///
/// Include it in exactly ONE source file of a program: it defines those
/// functions. Nothing else changes: every call reaches the runtime as before.
#pragma once

#include <dlfcn.h>
#include <omp.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace course::lesson9_alloc {

/// Where a block of memory came from.
enum class Source {
  none,            ///< no OpenMP allocation call made it (new, malloc, a std::vector, ...)
  omp_alloc,       ///< omp_alloc, omp_aligned_alloc, omp_calloc or omp_aligned_calloc
  llvm_host,       ///< llvm_omp_target_alloc_host (LLVM's pinned host memory, called directly)
  target_alloc,    ///< omp_target_alloc: memory of a device
};

/// What an allocator handle stands for, as far as the program created it.
struct AllocatorFacts {
  omp_allocator_handle_t handle{};
  omp_memspace_handle_t memspace{};
  bool pinned_trait = false;  ///< created with omp_atk_pinned = omp_atv_true
};

/// One allocation call that returned memory, or one free.
struct Block {
  Source source = Source::none;
  const void *p = nullptr;
  std::size_t bytes = 0;
  omp_allocator_handle_t allocator{};  ///< omp_alloc family: the allocator (omp_null_allocator resolved)
  int device = -1;                     ///< llvm_host / target_alloc: the device argument
};

/// What LLVM does with memory from an allocator: pins it for the offload
/// devices, or not (and why not, in words).
enum class Pinning { llvm_pinned, standard_trait_only, ordinary, device_memory };

struct State {
  std::mutex lock;
  bool recording = false;
  std::vector<Block> allocated, freed;
  std::vector<AllocatorFacts> allocators;  ///< every omp_init_allocator of the program
};

inline State &state() {
  static State s;
  return s;
}

/// The allocations and frees made while record()'s call ran (any thread).
struct Log {
  std::vector<Block> allocated, freed;
  /// The allocation call whose block holds @p p, or null. Where one call made
  /// another (LLVM's omp_alloc calls llvm_omp_target_alloc_host, which this
  /// header defines too), the outer one: it returns last, so it is noted last.
  const Block *holding(const void *p) const {
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    for (auto b = allocated.rbegin(); b != allocated.rend(); ++b) {
      const auto lo = reinterpret_cast<std::uintptr_t>(b->p);
      if (a >= lo && a < lo + (b->bytes ? b->bytes : 1)) return &*b;
    }
    return nullptr;
  }
  /// The free of @p p, or null; the outer call where one made another (it is
  /// noted first, before it hands on).
  const Block *free_of(const void *p) const {
    for (const auto &b : freed)
      if (b.p == p) return &b;
    return nullptr;
  }
};

template <class F>
Log record(F &&f) {
  {
    std::lock_guard<std::mutex> g(state().lock);
    state().allocated.clear();
    state().freed.clear();
    state().recording = true;
  }
  f();
  std::lock_guard<std::mutex> g(state().lock);
  state().recording = false;
  return Log{state().allocated, state().freed};
}

/// What the program said about @p a when it created it (predefined handles:
/// memspace default, no traits).
inline AllocatorFacts facts(omp_allocator_handle_t a) {
  std::lock_guard<std::mutex> g(state().lock);
  for (const auto &f : state().allocators)
    if (f.handle == a) return f;
  AllocatorFacts f;
  f.handle = a;
  f.memspace = omp_default_mem_space;
  return f;
}

/// Whether LLVM pins memory from @p b for its offload devices. LLVM's own
/// allocator and memory space (an LLVM extension) are pinned host memory on a
/// GPU (cuMemAllocHost on NVIDIA); the standard trait alone is not pinned by
/// LLVM 19 (an H100 copied from it at 5.1 GB/s, from LLVM's at 47.5 GB/s).
inline Pinning pinning(const Block &b) {
  if (b.source == Source::llvm_host) return Pinning::llvm_pinned;
  if (b.source == Source::target_alloc) return Pinning::device_memory;
  if (b.source != Source::omp_alloc) return Pinning::ordinary;
  if (b.allocator == llvm_omp_target_host_mem_alloc) return Pinning::llvm_pinned;
  if (b.allocator == llvm_omp_target_device_mem_alloc) return Pinning::device_memory;
  const AllocatorFacts f = facts(b.allocator);
  if (f.memspace == llvm_omp_target_host_mem_space) return Pinning::llvm_pinned;
  if (f.memspace == llvm_omp_target_device_mem_space) return Pinning::device_memory;
  return f.pinned_trait ? Pinning::standard_trait_only : Pinning::ordinary;
}

namespace detail {

template <class F>
F next(const char *name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

inline void note(std::vector<Block> State::*list, Block b) {
  auto &s = state();
  std::lock_guard<std::mutex> g(s.lock);
  if (s.recording) (s.*list).push_back(b);
}

inline void *allocated(void *p, std::size_t bytes, omp_allocator_handle_t a) {
  if (p) {
    Block b;
    b.source = Source::omp_alloc;
    b.p = p;
    b.bytes = bytes;
    b.allocator = a == omp_null_allocator ? omp_get_default_allocator() : a;
    note(&State::allocated, b);
  }
  return p;
}

}  // namespace detail
}  // namespace course::lesson9_alloc

// LLVM's pinned-host-memory entry points, exported by libomptarget but not
// declared in Debian's omp.h.
extern "C" void *llvm_omp_target_alloc_host(std::size_t size, int device_num);
extern "C" void llvm_omp_target_free_host(void *ptr, int device_num);

extern "C" {

void *omp_alloc(std::size_t size, omp_allocator_handle_t a) {
  namespace w = course::lesson9_alloc;
  static const auto real = w::detail::next<void *(*)(std::size_t, omp_allocator_handle_t)>("omp_alloc");
  return w::detail::allocated(real(size, a), size, a);
}

void *omp_aligned_alloc(std::size_t align, std::size_t size, omp_allocator_handle_t a) {
  namespace w = course::lesson9_alloc;
  static const auto real =
      w::detail::next<void *(*)(std::size_t, std::size_t, omp_allocator_handle_t)>("omp_aligned_alloc");
  return w::detail::allocated(real(align, size, a), size, a);
}

void *omp_calloc(std::size_t nmemb, std::size_t size, omp_allocator_handle_t a) {
  namespace w = course::lesson9_alloc;
  static const auto real = w::detail::next<void *(*)(std::size_t, std::size_t, omp_allocator_handle_t)>("omp_calloc");
  return w::detail::allocated(real(nmemb, size, a), nmemb * size, a);
}

void *omp_aligned_calloc(std::size_t align, std::size_t nmemb, std::size_t size, omp_allocator_handle_t a) {
  namespace w = course::lesson9_alloc;
  static const auto real =
      w::detail::next<void *(*)(std::size_t, std::size_t, std::size_t, omp_allocator_handle_t)>("omp_aligned_calloc");
  return w::detail::allocated(real(align, nmemb, size, a), nmemb * size, a);
}

void omp_free(void *p, omp_allocator_handle_t a) {
  namespace w = course::lesson9_alloc;
  static const auto real = w::detail::next<void (*)(void *, omp_allocator_handle_t)>("omp_free");
  w::Block b;
  b.source = w::Source::omp_alloc;
  b.p = p;
  b.allocator = a;
  if (p) w::detail::note(&w::State::freed, b);
  real(p, a);
}

omp_allocator_handle_t omp_init_allocator(omp_memspace_handle_t m, int ntraits, omp_alloctrait_t traits[]) {
  namespace w = course::lesson9_alloc;
  static const auto real =
      w::detail::next<omp_allocator_handle_t (*)(omp_memspace_handle_t, int, omp_alloctrait_t[])>("omp_init_allocator");
  const omp_allocator_handle_t h = real(m, ntraits, traits);
  w::AllocatorFacts f;
  f.handle = h;
  f.memspace = m;
  for (int k = 0; k < ntraits; ++k)
    if (traits[k].key == omp_atk_pinned) f.pinned_trait = traits[k].value == (omp_uintptr_t)omp_atv_true;
  std::lock_guard<std::mutex> g(w::state().lock);
  w::state().allocators.push_back(f);
  return h;
}

void *omp_target_alloc(std::size_t size, int device) {
  namespace w = course::lesson9_alloc;
  static const auto real = w::detail::next<void *(*)(std::size_t, int)>("omp_target_alloc");
  void *p = real(size, device);
  w::Block b;
  b.source = w::Source::target_alloc;
  b.p = p;
  b.bytes = size;
  b.device = device;
  if (p) w::detail::note(&w::State::allocated, b);
  return p;
}

void *llvm_omp_target_alloc_host(std::size_t size, int device) {
  namespace w = course::lesson9_alloc;
  static const auto real = w::detail::next<void *(*)(std::size_t, int)>("llvm_omp_target_alloc_host");
  void *p = real(size, device);
  w::Block b;
  b.source = w::Source::llvm_host;
  b.p = p;
  b.bytes = size;
  b.device = device;
  if (p) w::detail::note(&w::State::allocated, b);
  return p;
}

void llvm_omp_target_free_host(void *p, int device) {
  namespace w = course::lesson9_alloc;
  static const auto real = w::detail::next<void (*)(void *, int)>("llvm_omp_target_free_host");
  w::Block b;
  b.source = w::Source::llvm_host;
  b.p = p;
  b.device = device;
  if (p) w::detail::note(&w::State::freed, b);
  real(p, device);
}

}  // extern "C"
