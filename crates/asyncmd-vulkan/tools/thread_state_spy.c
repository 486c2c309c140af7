/* Preloaded spy for examples/driver_thread_state.rs: prints every thread key a library creates
 * (with its destructor's library), every value a library sets for a thread, every C++
 * thread_local destructor registered, and each such destructor that runs at a thread's exit.
 * A thread that never got a value for a key with a destructor runs no driver code at its exit:
 * that is what the Vulkan device's thread rule (threads.rs) rests on.
 *
 *   gcc -O1 -shared -fPIC -o thread_state_spy.so thread_state_spy.c -ldl
 *   LD_PRELOAD=$PWD/thread_state_spy.so ./driver_thread_state
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static long tid(void) { return syscall(SYS_gettid); }

static const char *lib_of(void *addr) {
  Dl_info i;
  if (addr && dladdr(addr, &i) && i.dli_fname) {
    const char *s = strrchr(i.dli_fname, '/');
    return s ? s + 1 : i.dli_fname;
  }
  return "?";
}

/* Destructors of keys are wrapped by one trampoline per key slot, to name them when they run. */
#define SLOTS 64
static void (*real_dtor[SLOTS])(void *);
static const char *dtor_lib[SLOTS];
#define T(n) static void tr##n(void *v) { fprintf(stderr, "SPY tid %ld runs key destructor of %s\n", tid(), dtor_lib[n]); real_dtor[n](v); }
#define T8(n) T(n##0) T(n##1) T(n##2) T(n##3) T(n##4) T(n##5) T(n##6) T(n##7)
T8(0) T8(1) T8(2) T8(3) T8(4) T8(5) T8(6) T8(7)
#define R(n) tr##n,
#define R8(n) R(n##0) R(n##1) R(n##2) R(n##3) R(n##4) R(n##5) R(n##6) R(n##7)
static void (*tramp[SLOTS])(void *) = {R8(0) R8(1) R8(2) R8(3) R8(4) R8(5) R8(6) R8(7)};
static int used;

int pthread_key_create(pthread_key_t *key, void (*dtor)(void *)) {
  static int (*real)(pthread_key_t *, void (*)(void *));
  if (!real) real = dlsym(RTLD_NEXT, "pthread_key_create");
  const char *by = lib_of(__builtin_return_address(0));
  if (!dtor || used >= SLOTS) {
    int r = real(key, dtor);
    fprintf(stderr, "SPY tid %ld key %u created by %s, %s\n", tid(), *key, by, dtor ? "destructor not named" : "no destructor");
    return r;
  }
  int s = __atomic_fetch_add(&used, 1, __ATOMIC_SEQ_CST);
  real_dtor[s] = dtor;
  dtor_lib[s] = lib_of((void *)dtor);
  int r = real(key, tramp[s]);
  fprintf(stderr, "SPY tid %ld key %u created by %s, destructor in %s\n", tid(), *key, by, dtor_lib[s]);
  return r;
}

int pthread_setspecific(pthread_key_t key, const void *v) {
  static int (*real)(pthread_key_t, const void *);
  if (!real) real = dlsym(RTLD_NEXT, "pthread_setspecific");
  fprintf(stderr, "SPY tid %ld key %u %s by %s\n", tid(), key, v ? "set" : "cleared", lib_of(__builtin_return_address(0)));
  return real(key, v);
}

struct later { void (*dtor)(void *); void *obj; const char *lib; };

static void run_later(void *p) {
  struct later *l = p;
  fprintf(stderr, "SPY tid %ld runs thread_local destructor of %s\n", tid(), l->lib);
  l->dtor(l->obj);
  free(l);
}

int __cxa_thread_atexit_impl(void (*dtor)(void *), void *obj, void *dso) {
  static int (*real)(void (*)(void *), void *, void *);
  if (!real) real = dlsym(RTLD_NEXT, "__cxa_thread_atexit_impl");
  struct later *l = malloc(sizeof *l);
  if (!l) return real(dtor, obj, dso);
  l->dtor = dtor;
  l->obj = obj;
  l->lib = lib_of((void *)dtor);
  fprintf(stderr, "SPY tid %ld thread_local destructor of %s registered\n", tid(), l->lib);
  return real(run_later, l, dso);
}
