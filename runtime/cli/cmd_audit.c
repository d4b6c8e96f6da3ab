/* `agentrt audit ID`: prints a container's audit trail (JSON lines), also
 * after it was deleted.  `agentrt audit --summary [--since TIME] [--format
 * text|json] [--top N]`: the figures of every trail in the audit dir
 * (runtime/audit_scan.c reads them, audit_summary.c adds them up,
 * audit_summary_format.c prints them). */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/timestamp.h"
#include "common/xalloc.h"
#include "runtime/audit.h"
#include "runtime/audit_scan.h"
#include "runtime/audit_summary_format.h"
#include "runtime/cli/commands.h"
#include "runtime/container.h"
#include "runtime/hardening.h"

/* The trail's directory: the one recorded at create, else the policy's. */
static char *
trail_dir (struct global_options *g, const char *id, agentrt_error_t *err)
{
  cleanup_error agentrt_error_t ignored = NULL;
  struct agent_policy policy;
  struct container c;
  char *dir = NULL;

  if (container_load (&g->rt, id, &c, &ignored) == 0)
    {
      if (c.state && c.state->audit_dir)
        dir = xstrdup (c.state->audit_dir);
      container_release (&c);
      if (dir)
        return dir;
    }
  if (hardening_load_policy (&g->rt, &policy, NULL, err) < 0)
    return NULL;
  dir = xstrdup (policy.audit_dir);
  policy_release (&policy);
  return dir;
}

static int
print_trail (struct global_options *g, const char *id, agentrt_error_t *err)
{
  cleanup_free char *dir = NULL;
  cleanup_close int fd = -1;
  char buf[65536];
  ssize_t n;

  if (!state_id_valid (id))
    return agentrt_error (err, 0, "invalid container id `%s`", id);
  dir = trail_dir (g, id, err);
  if (dir == NULL)
    return -1;
  /* the same checks as for writing it: a trail someone else could have
   * written or redirected is not printed */
  fd = audit_open_read (dir, id, err);
  if (fd < 0 && (*err)->status == ENOENT)
    {
      cleanup_free char *path = audit_path (dir, id);
      agentrt_error_release (err);
      return agentrt_error (err, ENOENT, "no audit trail for `%s` (`%s`)",
                            id, path);
    }
  if (fd < 0)
    return -1;
  while ((n = read (fd, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
    if (n > 0 && fwrite (buf, 1, (size_t) n, stdout) != (size_t) n)
      return agentrt_error (err, errno, "write");
  if (n < 0)
    {
      cleanup_free char *path = audit_path (dir, id);
      return agentrt_error (err, errno, "read `%s`", path);
    }
  return 0;
}

/* --since: an RFC 3339 time, a date (UTC), or a duration back from now. */
static int
parse_since (const char *arg, int64_t *us, agentrt_error_t *err)
{
  struct timespec now;
  uint64_t secs;

  if (timestamp_parse (arg, true, us) == 0)
    return 0;
  if (policy_parse_duration (arg, &secs) < 0
      || clock_gettime (CLOCK_REALTIME, &now) < 0
      || secs > (uint64_t) now.tv_sec)
    return agentrt_error (err, 0, "audit: --since `%s`: neither an RFC 3339 "
                          "time (2026-11-29T14:00:00Z), a date (2026-11-29) "
                          "nor a time ago (90m, 24h, 7d)", arg);
  *us = ((int64_t) now.tv_sec - (int64_t) secs) * 1000000
        + now.tv_nsec / 1000;
  return 0;
}

/* --top: names per list, 0 for all. */
static int
parse_top (const char *arg, size_t *top, agentrt_error_t *err)
{
  char *end;
  unsigned long v;

  errno = 0;
  v = strtoul (arg, &end, 10);
  if (arg[0] < '0' || arg[0] > '9' || *end || errno || v > 1000000)
    return agentrt_error (err, 0, "audit: --top `%s`: a number of names "
                          "(0 to 1000000; 0: all)", arg);
  *top = v;
  return 0;
}

static int
print_summary (struct global_options *g, bool has_since, int64_t since_us,
               bool json, size_t top, agentrt_error_t *err)
{
  struct agent_policy policy;
  struct audit_summary s;
  cleanup_free char *out = NULL;
  int r;

  if (hardening_load_policy (&g->rt, &policy, NULL, err) < 0)
    return -1;
  audit_summary_init (&s, has_since, since_us);
  r = audit_scan (policy.audit_dir, &s, err);
  if (r == 0)
    out = json ? audit_summary_json (&s, policy.audit_dir, top)
               : audit_summary_table (&s, policy.audit_dir, top);
  audit_summary_release (&s);
  policy_release (&policy);
  if (r < 0)
    return -1;
  if (fputs (out, stdout) == EOF)
    return agentrt_error (err, errno, "write");
  return 0;
}

int
cmd_audit (struct global_options *g, int argc, char **argv, agentrt_error_t *err)
{
  static const struct option opts[] = {
    { "summary", no_argument, NULL, 's' },
    { "since", required_argument, NULL, 'S' },
    { "format", required_argument, NULL, 'f' },
    { "top", required_argument, NULL, 't' },
    { NULL, 0, NULL, 0 },
  };
  const char *format = NULL, *since = NULL, *top_arg = NULL;
  bool summary = false;
  int64_t since_us = 0;
  size_t top = 10;
  int c;

  opterr = 0;
  optind = 0;
  while ((c = getopt_long_only (argc, argv, "+:f:", opts, NULL)) != -1)
    {
      if (c == 's')
        summary = true;
      else if (c == 'S')
        since = optarg;
      else if (c == 'f')
        format = optarg;
      else if (c == 't')
        top_arg = optarg;
      else
        return cmd_option_error (argv, c, err);
    }
  if (!summary)
    {
      if (format || since || top_arg)
        return agentrt_error (err, 0, "audit: --%s goes with --summary "
                              "(agentrt audit ID prints the trail as it is)",
                              format ? "format" : since ? "since" : "top");
      if (cmd_check_args (argc, optind, 1, 1, "audit ID (or audit --summary)",
                          err) < 0)
        return -1;
      return print_trail (g, argv[optind], err);
    }
  if (cmd_check_args (argc, optind, 0, 0, "audit --summary [--since TIME] "
                      "[--format text|json] [--top N]", err) < 0)
    return -1;
  if (format && strcmp (format, "text") && strcmp (format, "json"))
    return agentrt_error (err, 0, "audit: invalid format `%s` (text or json)",
                          format);
  if ((since && parse_since (since, &since_us, err) < 0)
      || (top_arg && parse_top (top_arg, &top, err) < 0))
    return -1;
  return print_summary (g, since != NULL, since_us,
                        format && strcmp (format, "json") == 0, top, err);
}
