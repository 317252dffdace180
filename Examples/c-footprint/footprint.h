/*
 * What both footprint programs report, read from the kernel the same way:
 * the time since the process started (a CLOCK_MONOTONIC stamp the launcher,
 * measure.py, puts into FOOTPRINT_T0_NS just before exec), the resident
 * set now and at its peak (/proc/self/status: VmRSS, VmHWM), and what the
 * mappings of one file take (/proc/self/smaps: Size and Rss), for the
 * library.
 */
#ifndef FOOTPRINT_H
#define FOOTPRINT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Microseconds since the launcher's stamp; -1 without one. */
static inline long footprint_elapsed_us(void) {
  const char *stamp = getenv("FOOTPRINT_T0_NS");
  if (stamp == NULL) return -1;
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  long long ns = (long long)now.tv_sec * 1000000000LL + now.tv_nsec - atoll(stamp);
  return (long)(ns / 1000);
}

/*
 * With FOOTPRINT_EXIT_AT equal to `stage` ("armed": the timer armed, just
 * before uv_run; "tick": its first tick), ends the process at once
 * (_exit(0), no clean-up), so that a counter of the whole process
 * (callgrind's instructions, perf's page faults) measures exec to there
 * and nothing after.
 */
static inline void footprint_exit_at(const char *stage) {
  const char *exit_at = getenv("FOOTPRINT_EXIT_AT");
  if (exit_at != NULL && strcmp(exit_at, stage) == 0) _exit(0);
}

/* A "Name:   N kB" field of /proc/self/status, in kB; -1 if missing. */
static inline long footprint_status_kb(const char *name) {
  FILE *file = fopen("/proc/self/status", "r");
  if (file == NULL) return -1;
  char line[256];
  long value = -1;
  size_t length = strlen(name);
  while (fgets(line, sizeof line, file) != NULL) {
    if (strncmp(line, name, length) == 0 && line[length] == ':') {
      value = atol(line + length + 1);
      break;
    }
  }
  fclose(file);
  return value;
}

/*
 * The mappings whose path contains `needle`: their total size and resident
 * part, in kB (/proc/self/smaps). Zero when nothing matches.
 */
static inline void footprint_mapped_kb(const char *needle, long *size_kb, long *rss_kb) {
  *size_kb = 0;
  *rss_kb = 0;
  FILE *file = fopen("/proc/self/smaps", "r");
  if (file == NULL) return;
  char line[512];
  int matching = 0;
  while (fgets(line, sizeof line, file) != NULL) {
    /* Mapping headers start with the address (lower-case hex); the
       fields under them with a capitalised name ("Size:", "Rss:"). */
    if ((line[0] >= '0' && line[0] <= '9') || (line[0] >= 'a' && line[0] <= 'f')) {
      matching = strstr(line, needle) != NULL;
    } else if (matching && strncmp(line, "Size:", 5) == 0) {
      *size_kb += atol(line + 5);
    } else if (matching && strncmp(line, "Rss:", 4) == 0) {
      *rss_kb += atol(line + 4);
    }
  }
  fclose(file);
}

#endif
