/* SPDX-License-Identifier: MIT */
/*
 * Single-threaded semantics of every <perfring/barrier.h> primitive at every
 * size: values of 1, 2, 4 and 8 bytes, signed and unsigned, _Bool, enums and
 * pointers round-trip through READ_ONCE/WRITE_ONCE and load_acquire/
 * store_release exactly (sign, high bits, no torn or widened access: the
 * neighbours of the object are untouched), loads accept a const source and
 * yield the unqualified type, every macro evaluates its arguments once, the
 * fences compile as statements, PFR_BARRIER_BACKEND names the backend the
 * target macros select, and <perfring/linux-compat.h> maps the kernel names
 * but leaves a name the includer defined alone.
 *
 * Built twice: as is (the target's native backend) and from barrier_c11.c
 * with PFR_FORCE_C11.  Ordering between threads is not testable here; see
 * mp_smoke.c, tests/insn and the litmus tests.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The includer's own definitions, which linux-compat.h must leave alone. */
static int my_smp_mb_calls;
#define smp_mb() (my_smp_mb_calls++)
static int my_read_once_calls;
#define READ_ONCE(x) (my_read_once_calls++, PFR_READ_ONCE(x))

#include <perfring/barrier.h>
#include <perfring/linux-compat.h>

#include "tap.h"

/* The backend the dispatch header must pick for this target. */
#if defined(PFR_FORCE_C11) || defined(__SANITIZE_THREAD__)
#define WANT_BACKEND "c11"
#elif defined(__x86_64__)
#define WANT_BACKEND "x86_64"
#elif defined(__aarch64__)
#define WANT_BACKEND "aarch64"
#elif defined(__arm__) && __ARM_ARCH >= 7
#define WANT_BACKEND "armv7"
#elif defined(__powerpc64__) && defined(__BIG_ENDIAN__)
#define WANT_BACKEND "ppc64"
#elif defined(__powerpc64__)
#define WANT_BACKEND "ppc64le"
#elif defined(__s390x__)
#define WANT_BACKEND "s390x"
#elif defined(__riscv) && __riscv_xlen == 64
#define WANT_BACKEND "riscv64"
#else
#define WANT_BACKEND "c11"
#endif

#define SAME_TYPE(a, T) __builtin_types_compatible_p(__typeof__(a), T)

enum small_enum { SE_A = 1, SE_B = 0x7ffffffe };
struct node {
	int v;
};

/*
 * One object of type T between two guards of the same type, so a store of
 * the wrong width or at the wrong place shows in a guard.  The guards and
 * the object start as the byte pattern 0xa5 (not a value of T).
 */
#define TEST_SCALAR(T, label, v1, v2)                                          \
	static void test_##label(void)                                         \
	{                                                                      \
		struct {                                                       \
			T lo, x, hi;                                           \
		} s, guard;                                                    \
		const T *cp = &s.x;                                            \
		T *p = &s.x, *pp, got;                                         \
		const T want1 = (v1), want2 = (v2);                            \
		int n;                                                         \
                                                                               \
		memset(&s, 0xa5, sizeof(s));                                   \
		memcpy(&guard, &s, sizeof(s));                                 \
		_Static_assert(sizeof(T) == 1 || sizeof(T) == 2 ||             \
				       sizeof(T) == 4 || sizeof(T) == 8,       \
			       "scalar size");                                 \
                                                                               \
		PFR_WRITE_ONCE(s.x, want1);                                    \
		ok(memcmp(&s.lo, &guard.lo, sizeof(T)) == 0 &&                 \
			   memcmp(&s.hi, &guard.hi, sizeof(T)) == 0,           \
		   "%s WRITE_ONCE leaves its neighbours alone", #T);           \
		got = PFR_READ_ONCE(*cp);                                      \
		ok(got == want1,                                               \
		   "%s READ_ONCE(const) reads WRITE_ONCE's value", #T);        \
		ok(SAME_TYPE(PFR_READ_ONCE(*cp), T), "%s READ_ONCE yields %s", \
		   #T, #T);                                                    \
		ok(sizeof(PFR_READ_ONCE(s.x)) == sizeof(T),                    \
		   "%s READ_ONCE has the object's size", #T);                  \
                                                                               \
		pfr_smp_store_release(p, want2); /* purpose: test */           \
		ok(memcmp(&s.lo, &guard.lo, sizeof(T)) == 0 &&                 \
			   memcmp(&s.hi, &guard.hi, sizeof(T)) == 0,           \
		   "%s store_release leaves its neighbours alone", #T);        \
		got = pfr_smp_load_acquire(cp); /* purpose: test */            \
		ok(got == want2,                                               \
		   "%s load_acquire(const) reads store_release's "             \
		   "value",                                                    \
		   #T);                                                        \
		ok(SAME_TYPE(pfr_smp_load_acquire(cp), T), /* purpose: test */ \
		   "%s load_acquire yields %s", #T, #T);                       \
		ok(PFR_READ_ONCE(s.x) == want2 &&                              \
			   memcmp(&s.x, &want2, sizeof(T)) == 0,               \
		   "%s store_release wrote the whole object", #T);             \
                                                                               \
		/* each macro evaluates its pointer and value once */          \
		pp = p;                                                        \
		n = 0;                                                         \
		pfr_smp_store_release(pp++, (n++, want1)); /* purpose: test */ \
		ok(pp == p + 1 && n == 1 && s.x == want1,                      \
		   "%s store_release evaluates its arguments once", #T);       \
		pp = p;                                                        \
		got = pfr_smp_load_acquire(pp++); /* purpose: test */          \
		ok(pp == p + 1 && got == want1,                                \
		   "%s load_acquire evaluates its pointer once", #T);          \
		pp = p;                                                        \
		n = 0;                                                         \
		PFR_WRITE_ONCE(*pp++, (n++, want2));                           \
		ok(pp == p + 1 && n == 1 && s.x == want2,                      \
		   "%s WRITE_ONCE evaluates its arguments once", #T);          \
		pp = p;                                                        \
		got = PFR_READ_ONCE(*pp++);                                    \
		ok(pp == p + 1 && got == want2,                                \
		   "%s READ_ONCE evaluates its argument once", #T);            \
		ok(memcmp(&s.lo, &guard.lo, sizeof(T)) == 0 &&                 \
			   memcmp(&s.hi, &guard.hi, sizeof(T)) == 0,           \
		   "%s neighbours still untouched", #T);                       \
	}

TEST_SCALAR(uint8_t, u8, 0xfe, 0x81)
TEST_SCALAR(int8_t, s8, -2, -128)
TEST_SCALAR(char, char, 'x', 'y')
TEST_SCALAR(_Bool, bool, true, false)
TEST_SCALAR(uint16_t, u16, 0xfedc, 0x8001)
TEST_SCALAR(int16_t, s16, -2, -32768)
TEST_SCALAR(uint32_t, u32, 0xfedcba98u, 0x80000001u)
TEST_SCALAR(int32_t, s32, -2, INT32_MIN)
TEST_SCALAR(enum small_enum, enum, SE_B, SE_A)
TEST_SCALAR(uint64_t, u64, 0xfedcba9876543210ull, 0x8000000000000001ull)
TEST_SCALAR(int64_t, s64, -2, INT64_MIN)
TEST_SCALAR(long, long, -3L, 0x7fffffffL)
TEST_SCALAR(uintptr_t, uptr, (uintptr_t)-2, (uintptr_t)1)

/* Pointers, through typedefs so that "const T *" is a pointer to a const
 * pointer. */
typedef struct node *node_ptr;
typedef const char *cstr;
typedef void *vptr;
static struct node node_a = {1}, node_b = {2};
TEST_SCALAR(node_ptr, ptr, &node_a, &node_b)
TEST_SCALAR(cstr, cptr, "perfring", (const char *)0)
TEST_SCALAR(vptr, vptr, (void *)&node_b, (void *)&node_a)

/* A pointer loaded with acquire dereferences like the original. */
static void test_pointer_use(void)
{
	struct node *head = NULL;
	struct node *const *src = &head;
	struct node *got;

	pfr_smp_store_release(&head, &node_b); /* purpose: test */
	got = pfr_smp_load_acquire(src); /* purpose: test */
	ok(got == &node_b && got->v == 2, "pointer via acquire dereferences");
	ok(PFR_READ_ONCE(*src)->v == 2, "pointer via READ_ONCE dereferences");
}

/* Volatile-qualified objects are accepted too (the kernel allows them). */
static void test_volatile(void)
{
	volatile uint32_t v = 0;
	uint32_t got;

	PFR_WRITE_ONCE(v, 7u);
	got = PFR_READ_ONCE(v);
	ok(got == 7, "READ_ONCE/WRITE_ONCE on a volatile object");
	pfr_smp_store_release(&v, 9u); /* purpose: test */
	got = pfr_smp_load_acquire(&v); /* purpose: test */
	ok(got == 9, "acquire/release on a volatile object");
}

/* The fences: statements that compile, run, and keep values intact. */
static void test_fences(void)
{
	uint64_t a = 0x0123456789abcdefull, b;
	int i, spins = 0, flag = 1;

	pfr_barrier();
	pfr_smp_mb(); /* purpose: test that it runs */
	pfr_smp_rmb(); /* purpose: test that it runs */
	pfr_smp_wmb(); /* purpose: test that it runs */
	pfr_smp_tmb(); /* purpose: test that it runs */
	b = a;
	if (PFR_READ_ONCE(flag)) {
		/* purpose: test the ctrl-dep upgrade compiles after an if */
		pfr_smp_acquire__after_ctrl_dep();
		b ^= 1;
	}
	ok(b == (a ^ 1), "fences run and leave values intact");
	for (i = 0; i < 1000; i++) {
		pfr_cpu_relax();
		spins++;
	}
	ok(spins == 1000, "cpu_relax in a loop");
	/* usable in if/else without braces, like the kernel's */
	if (spins)
		pfr_smp_mb(); /* purpose: test statement form */
	else
		pfr_smp_wmb(); /* purpose: test statement form */
	ok(1, "fences are single statements");
}

/*
 * The compiler barrier forces a re-read: without it the compiler may hoist
 * the load of x out of the loop.  A signal handler is not needed to check
 * this much: x changes through a pointer the compiler cannot see through.
 */
static int *volatile opaque;

static void test_barrier_reread(void)
{
	int x = 1, sum = 0, i;

	opaque = &x;
	for (i = 0; i < 4; i++) {
		sum += x;
		*opaque += 1;
		pfr_barrier();
	}
	ok(sum == 1 + 2 + 3 + 4 && x == 5, "barrier() with memory changes");
}

static void test_backend(void)
{
	/* "" PFR_BARRIER_BACKEND only compiles for a string literal */
	static const char name[] = "" PFR_BARRIER_BACKEND;

	ok(sizeof(name) > 1, "PFR_BARRIER_BACKEND is a non-empty literal");
	if (!ok(strcmp(name, WANT_BACKEND) == 0,
		"PFR_BARRIER_BACKEND is \"%s\" for this target", WANT_BACKEND))
		tap_diag("  got \"%s\"", name);
}

static void test_linux_compat(void)
{
	uint32_t x = 0, got;
	uint64_t y = 0;
	int calls;

	/* The includer's smp_mb and READ_ONCE stay theirs. */
	calls = my_smp_mb_calls;
	smp_mb(); /* purpose: test the includer's own smp_mb */
	ok(my_smp_mb_calls == calls + 1, "linux-compat leaves smp_mb alone");
	calls = my_read_once_calls;
	got = READ_ONCE(x);
	ok(my_read_once_calls == calls + 1 && got == 0,
	   "linux-compat leaves READ_ONCE alone");

	/* The rest map onto the pfr_ names. */
	WRITE_ONCE(x, 5u);
	ok(x == 5, "WRITE_ONCE");
	ACCESS_ONCE(x) = 6;
	ok(ACCESS_ONCE(x) == 6, "ACCESS_ONCE as lvalue and rvalue");
	smp_store_release(&y, 0x8000000000000007ull); /* purpose: test */
	ok(smp_load_acquire(&y) == 0x8000000000000007ull, /* purpose: test */
	   "smp_load_acquire/smp_store_release");
	barrier();
	smp_rmb(); /* purpose: test */
	smp_wmb(); /* purpose: test */
	if (READ_ONCE(x))
		smp_acquire__after_ctrl_dep(); /* purpose: test */
	ok(x == 6, "barrier, smp_rmb, smp_wmb, smp_acquire__after_ctrl_dep");
#if defined(barrier) && defined(READ_ONCE) && defined(WRITE_ONCE) &&           \
	defined(ACCESS_ONCE) && defined(smp_mb) && defined(smp_rmb) &&         \
	defined(smp_wmb) && defined(smp_load_acquire) &&                       \
	defined(smp_store_release) && defined(smp_acquire__after_ctrl_dep)
	ok(1, "linux-compat defines all ten kernel names");
#else
	ok(0, "linux-compat defines all ten kernel names");
#endif
}

int main(void)
{
	tap_diag("backend %s", PFR_BARRIER_BACKEND);
	test_u8();
	test_s8();
	test_char();
	test_bool();
	test_u16();
	test_s16();
	test_u32();
	test_s32();
	test_enum();
	test_u64();
	test_s64();
	test_long();
	test_uptr();
	test_ptr();
	test_cptr();
	test_vptr();
	test_pointer_use();
	test_volatile();
	test_fences();
	test_barrier_reread();
	test_backend();
	test_linux_compat();
	return tap_done();
}
