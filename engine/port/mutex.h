// The mutex types of the library and the programs, annotated for clang's thread-safety analysis
// (engine/port/thread_annotations.h): Mutex (over std::mutex) with its scoped MutexLock,
// SharedMutex (over std::shared_mutex) with ReaderMutexLock and WriterMutexLock, and CondVar (a
// std::condition_variable bound to one Mutex). A field declared PARTKV_GUARDED_BY(mu_) next to a
// Mutex mu_ can then be touched only where clang sees mu_ held, and a lock taken twice or never
// released is a compile error in the clang build (docs/design.md "Locks").
//
// Why wrappers: libstdc++'s std::mutex and std::lock_guard carry no annotations, so clang cannot
// follow them. These add none of their own cost: every method is an inline call of the standard
// one, and CondVar adopts the Mutex's std::mutex into a std::unique_lock and releases it again
// around each wait, so a wait is exactly std::condition_variable's.
//
// CondVar::Wait and its timed forms are not annotated: clang cannot tell which Mutex a CondVar is
// bound to, so it could not check the caller against it. Waits are written as loops, `while
// (!condition) cv.Wait();`, whose condition reads the guarded state and so is checked instead (a
// predicate lambda, a function of its own to the analysis, could not be).
//
// Thread-safety: as the standard types they wrap. Header-only, standard library only; below every
// layer (docs/design.md "Layers").

#ifndef PARTKV_ENGINE_PORT_MUTEX_H_
#define PARTKV_ENGINE_PORT_MUTEX_H_

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <shared_mutex>

#include "engine/port/thread_annotations.h"

namespace partkv::port {

class CondVar;

// An exclusive lock. Lock/Unlock for explicit use; lock/unlock/try_lock make it a standard
// Lockable, for std::unique_lock (whose locking clang does not follow: prefer MutexLock).
class PARTKV_CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() PARTKV_ACQUIRE() { mu_.lock(); }
  void Unlock() PARTKV_RELEASE() { mu_.unlock(); }
  bool TryLock() PARTKV_TRY_ACQUIRE(true) { return mu_.try_lock(); }
  // Tells the analysis that the calling thread holds this mutex, where it cannot see so itself.
  // Checks nothing at run time (std::mutex does not know its owner).
  void AssertHeld() const PARTKV_ASSERT_CAPABILITY(this) {}

  void lock() PARTKV_ACQUIRE() { mu_.lock(); }
  void unlock() PARTKV_RELEASE() { mu_.unlock(); }
  bool try_lock() PARTKV_TRY_ACQUIRE(true) { return mu_.try_lock(); }

 private:
  friend class CondVar;
  std::mutex mu_;
};

// Holds `mu` from construction to destruction (std::lock_guard, annotated).
class PARTKV_SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex* mu) PARTKV_ACQUIRE(mu) : mu_(mu) { mu_->Lock(); }
  ~MutexLock() PARTKV_RELEASE() { mu_->Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex* const mu_;
};

// A readers-writer lock: Lock/Unlock exclusive, ReaderLock/ReaderUnlock shared.
class PARTKV_CAPABILITY("shared_mutex") SharedMutex {
 public:
  SharedMutex() = default;
  SharedMutex(const SharedMutex&) = delete;
  SharedMutex& operator=(const SharedMutex&) = delete;

  void Lock() PARTKV_ACQUIRE() { mu_.lock(); }
  void Unlock() PARTKV_RELEASE() { mu_.unlock(); }
  void ReaderLock() PARTKV_ACQUIRE_SHARED() { mu_.lock_shared(); }
  void ReaderUnlock() PARTKV_RELEASE_SHARED() { mu_.unlock_shared(); }
  // As Mutex::AssertHeld: exclusive, and shared or exclusive.
  void AssertHeld() const PARTKV_ASSERT_CAPABILITY(this) {}
  void AssertReaderHeld() const PARTKV_ASSERT_SHARED_CAPABILITY(this) {}

 private:
  std::shared_mutex mu_;
};

// Holds `mu` shared from construction to destruction (std::shared_lock, annotated).
class PARTKV_SCOPED_CAPABILITY ReaderMutexLock {
 public:
  explicit ReaderMutexLock(SharedMutex* mu) PARTKV_ACQUIRE_SHARED(mu) : mu_(mu) {
    mu_->ReaderLock();
  }
  ~ReaderMutexLock() PARTKV_RELEASE() { mu_->ReaderUnlock(); }
  ReaderMutexLock(const ReaderMutexLock&) = delete;
  ReaderMutexLock& operator=(const ReaderMutexLock&) = delete;

 private:
  SharedMutex* const mu_;
};

// Holds `mu` exclusively from construction to destruction.
class PARTKV_SCOPED_CAPABILITY WriterMutexLock {
 public:
  explicit WriterMutexLock(SharedMutex* mu) PARTKV_ACQUIRE(mu) : mu_(mu) { mu_->Lock(); }
  ~WriterMutexLock() PARTKV_RELEASE() { mu_->Unlock(); }
  WriterMutexLock(const WriterMutexLock&) = delete;
  WriterMutexLock& operator=(const WriterMutexLock&) = delete;

 private:
  SharedMutex* const mu_;
};

// A condition variable bound to one Mutex, which every wait must be called holding (see the
// header comment for why that is not annotated). A wait releases the mutex while it blocks and
// holds it again when it returns, as std::condition_variable's do; it may return spuriously, so
// it belongs in a loop over its condition.
class CondVar {
 public:
  explicit CondVar(Mutex* mu) : mu_(mu) {}
  CondVar(const CondVar&) = delete;
  CondVar& operator=(const CondVar&) = delete;

  void Wait() {
    std::unique_lock<std::mutex> lock(mu_->mu_, std::adopt_lock);
    cv_.wait(lock);
    lock.release();  // the caller goes on holding the mutex
  }
  // Waits until signalled or `deadline`; false when the deadline passed.
  template <typename Clock, typename Duration>
  bool WaitUntil(const std::chrono::time_point<Clock, Duration>& deadline) {
    std::unique_lock<std::mutex> lock(mu_->mu_, std::adopt_lock);
    const bool signalled = cv_.wait_until(lock, deadline) == std::cv_status::no_timeout;
    lock.release();
    return signalled;
  }
  // Waits until signalled or for `timeout`; false when the time ran out.
  template <typename Rep, typename Period>
  bool WaitFor(const std::chrono::duration<Rep, Period>& timeout) {
    std::unique_lock<std::mutex> lock(mu_->mu_, std::adopt_lock);
    const bool signalled = cv_.wait_for(lock, timeout) == std::cv_status::no_timeout;
    lock.release();
    return signalled;
  }
  // Wakes one waiter; all waiters. The mutex need not be held.
  void Signal() { cv_.notify_one(); }
  void SignalAll() { cv_.notify_all(); }

 private:
  Mutex* const mu_;
  std::condition_variable cv_;
};

}  // namespace partkv::port

#endif  // PARTKV_ENGINE_PORT_MUTEX_H_
