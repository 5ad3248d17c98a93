/* memtune's host check: the C ABI of a verification function in a shared
 * library, named by a kernel description:
 *
 *   "verify": {"library": "check.so", "function": "check_partial_sums"}
 *
 * (the path relative to the description's folder). After every verified
 * launch memtune calls the function with the problem, the configuration and
 * host copies of every buffer argument, as the kernel left them:
 *
 *   #include <memtune/description/host_check.h>
 *   MEMTUNE_HOST_CHECK_EXPORT int check_partial_sums(const memtune_check_input* in) {
 *     const memtune_buffer_view* partials = memtune_find_buffer(in, "partials");
 *     ...
 *     snprintf(in->message, in->message_capacity, "sum %g, expected %g", got, want);
 *     return 0;
 *   }
 *
 * Build it with `cc -shared -fPIC -I<memtune>/include check.c -o check.so`.
 * Return 1 when the outputs are right, 0 when they are wrong, and a negative
 * value when the check cannot run for this configuration (a buffer it needs
 * is missing, a size it does not handle): memtune then marks the candidate
 * failed with the message, never as verified. A library or function that
 * cannot be loaded stops the run before the first candidate.
 */
#ifndef MEMTUNE_HOST_CHECK_H
#define MEMTUNE_HOST_CHECK_H

#include <stddef.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MEMTUNE_HOST_CHECK_ABI 1

#if defined(_WIN32)
#define MEMTUNE_HOST_CHECK_EXPORT __declspec(dllexport)
#else
#define MEMTUNE_HOST_CHECK_EXPORT __attribute__((visibility("default")))
#endif

/* A problem variable or a tunable parameter (an enumeration's value is the index of its label). */
typedef struct memtune_named_value {
  const char* name;
  long long value;
} memtune_named_value;

/* The lane types: a buffer of float4 has lane MEMTUNE_LANE_F32 and 4 lanes. */
enum memtune_lane {
  MEMTUNE_LANE_F32 = 0, MEMTUNE_LANE_F64 = 1, MEMTUNE_LANE_I8 = 2, MEMTUNE_LANE_U8 = 3, MEMTUNE_LANE_I16 = 4,
  MEMTUNE_LANE_U16 = 5, MEMTUNE_LANE_I32 = 6, MEMTUNE_LANE_U32 = 7, MEMTUNE_LANE_I64 = 8, MEMTUNE_LANE_U64 = 9,
  MEMTUNE_LANE_F16 = 10, /* IEEE binary16 bits */
  MEMTUNE_LANE_BF16 = 11 /* bfloat16 bits */
};

enum memtune_role { MEMTUNE_ROLE_IN = 0, MEMTUNE_ROLE_OUT = 1, MEMTUNE_ROLE_INOUT = 2, MEMTUNE_ROLE_SCRATCH = 3 };

/* One buffer argument. The kernel's element 0 is at
 * (const char*)data + offset * element_bytes; elements [0, offset) are the
 * padding in front of it. An out buffer's untouched elements hold memtune's
 * poison (NaN for floating lanes, 0xA5 bytes for integers). */
typedef struct memtune_buffer_view {
  const char* name;
  const char* type;     /* "float", "half2", "int32", ... */
  int lane;             /* enum memtune_lane */
  int lanes;            /* 1 to 4 */
  int role;             /* enum memtune_role */
  const void* data;
  long long offset;     /* [elements] before the kernel's pointer */
  long long count;      /* [elements] from the kernel's pointer */
  size_t element_bytes; /* all lanes */
} memtune_buffer_view;

typedef struct memtune_check_input {
  int abi_version; /* MEMTUNE_HOST_CHECK_ABI */
  const memtune_named_value* problem;
  int problem_count;
  const memtune_named_value* config;
  int config_count;
  const memtune_buffer_view* buffers; /* in argument order */
  int buffer_count;
  char* message; /* for the verdict's reason, NUL-terminated, at most message_capacity bytes */
  size_t message_capacity;
} memtune_check_input;

/* 1: right; 0: wrong; negative: the check cannot run (the message says why). */
typedef int (*memtune_host_check_fn)(const memtune_check_input* input);

static inline const memtune_buffer_view* memtune_find_buffer(const memtune_check_input* in, const char* name) {
  for (int i = 0; i < in->buffer_count; ++i)
    if (strcmp(in->buffers[i].name, name) == 0) return &in->buffers[i];
  return NULL;
}

/* The value of a problem variable or parameter by name; `fallback` when absent. */
static inline long long memtune_find_value(const memtune_check_input* in, const char* name, long long fallback) {
  for (int i = 0; i < in->config_count; ++i)
    if (strcmp(in->config[i].name, name) == 0) return in->config[i].value;
  for (int i = 0; i < in->problem_count; ++i)
    if (strcmp(in->problem[i].name, name) == 0) return in->problem[i].value;
  return fallback;
}

#ifdef __cplusplus
}
#endif

#endif /* MEMTUNE_HOST_CHECK_H */
