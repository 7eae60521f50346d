// Clang's thread-safety annotations (https://clang.llvm.org/docs/ThreadSafetyAnalysis.html), as
// macros: what each mutex guards and which locks a function needs, takes or must not hold, said
// in the declarations so that clang checks every access at compile time (-Wthread-safety,
// tools/ci-thread-safety.sh) instead of a comment asking for it. Under any other compiler they
// expand to nothing: they change no code, only what clang can prove.
//
// Prefixed PARTKV_ so that they cannot clash with RocksDB's, Abseil's or a user's unprefixed
// macros of the same names. The lockable types they describe are in engine/port/mutex.h.
//
// Header-only; below every layer (docs/design.md "Layers"): any file may include it.

#ifndef PARTKV_ENGINE_PORT_THREAD_ANNOTATIONS_H_
#define PARTKV_ENGINE_PORT_THREAD_ANNOTATIONS_H_

#if defined(__clang__)
#define PARTKV_THREAD_ANNOTATION_(x) __attribute__((x))
#else
#define PARTKV_THREAD_ANNOTATION_(x)
#endif

// On a class: its objects are capabilities (locks); `x` names the kind in diagnostics.
#define PARTKV_CAPABILITY(x) PARTKV_THREAD_ANNOTATION_(capability(x))
// On a class: an RAII object that holds the capabilities its constructor takes until destroyed.
#define PARTKV_SCOPED_CAPABILITY PARTKV_THREAD_ANNOTATION_(scoped_lockable)

// On a field: reading it needs `x` held (shared or exclusive), writing it needs `x` exclusive.
#define PARTKV_GUARDED_BY(x) PARTKV_THREAD_ANNOTATION_(guarded_by(x))
// On a pointer field: the same for what it points to (the pointer itself is unguarded).
#define PARTKV_PT_GUARDED_BY(x) PARTKV_THREAD_ANNOTATION_(pt_guarded_by(x))

// On a mutex: the lock order. This mutex is taken before (after) the ones named, never while
// holding them. Checked by -Wthread-safety-beta.
#define PARTKV_ACQUIRED_BEFORE(...) PARTKV_THREAD_ANNOTATION_(acquired_before(__VA_ARGS__))
#define PARTKV_ACQUIRED_AFTER(...) PARTKV_THREAD_ANNOTATION_(acquired_after(__VA_ARGS__))

// On a function: the caller must hold these (exclusive; shared).
#define PARTKV_REQUIRES(...) PARTKV_THREAD_ANNOTATION_(requires_capability(__VA_ARGS__))
#define PARTKV_REQUIRES_SHARED(...) \
  PARTKV_THREAD_ANNOTATION_(requires_shared_capability(__VA_ARGS__))

// On a function: it takes these and returns holding them (exclusive; shared). With no argument
// on a method of a capability, or of a scoped capability: *this.
#define PARTKV_ACQUIRE(...) PARTKV_THREAD_ANNOTATION_(acquire_capability(__VA_ARGS__))
#define PARTKV_ACQUIRE_SHARED(...) PARTKV_THREAD_ANNOTATION_(acquire_shared_capability(__VA_ARGS__))

// On a function: it releases these, which the caller held (exclusive; shared; either).
#define PARTKV_RELEASE(...) PARTKV_THREAD_ANNOTATION_(release_capability(__VA_ARGS__))
#define PARTKV_RELEASE_SHARED(...) PARTKV_THREAD_ANNOTATION_(release_shared_capability(__VA_ARGS__))
#define PARTKV_RELEASE_GENERIC(...) \
  PARTKV_THREAD_ANNOTATION_(release_generic_capability(__VA_ARGS__))

// On a function: it tries to take these; its result equals the first argument when it did.
#define PARTKV_TRY_ACQUIRE(...) PARTKV_THREAD_ANNOTATION_(try_acquire_capability(__VA_ARGS__))
#define PARTKV_TRY_ACQUIRE_SHARED(...) \
  PARTKV_THREAD_ANNOTATION_(try_acquire_shared_capability(__VA_ARGS__))

// On a function: the caller must not hold these (the function takes them itself; holding one
// would deadlock).
#define PARTKV_EXCLUDES(...) PARTKV_THREAD_ANNOTATION_(locks_excluded(__VA_ARGS__))

// On a function: after it returns, the analysis assumes `x` held (a check done at run time, or
// none: a statement of fact the analysis cannot derive).
#define PARTKV_ASSERT_CAPABILITY(x) PARTKV_THREAD_ANNOTATION_(assert_capability(x))
#define PARTKV_ASSERT_SHARED_CAPABILITY(x) PARTKV_THREAD_ANNOTATION_(assert_shared_capability(x))

// On a function: it returns (a reference to) the capability `x`, so that locking its result is
// locking `x`.
#define PARTKV_RETURN_CAPABILITY(x) PARTKV_THREAD_ANNOTATION_(lock_returned(x))

// On a function: its body is not analysed. Every use says why.
#define PARTKV_NO_THREAD_SAFETY_ANALYSIS PARTKV_THREAD_ANNOTATION_(no_thread_safety_analysis)

#endif  // PARTKV_ENGINE_PORT_THREAD_ANNOTATIONS_H_
