/* `agentrt events [--stats] [--interval D] ID`: runc's event stream.  With
 * --stats one {"type":"stats",...} document; otherwise a stats document
 * every interval (default 5s) and an {"type":"oom"} one for each OOM kill,
 * until the container stops. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "oci/json_writer.h"
#include "runtime/cli/commands.h"
#include "runtime/container.h"
#include "runtime/proc_util.h"

static void
write_memory_data (struct json_writer *w, const char *key,
                   const struct cgroup_memory_data *d)
{
  json_key (w, key);
  json_begin_object (w);
  json_kv_uint (w, "limit", d->limit);
  json_kv_uint (w, "usage", d->usage);
  json_kv_uint (w, "max", d->max_usage);
  json_kv_uint (w, "failcnt", d->failcnt);
  json_end_object (w);
}

static void
write_blkio (struct json_writer *w, const char *key,
             const struct cgroup_blkio_entry *e, size_t n)
{
  size_t i;
  json_key (w, key);
  json_begin_array (w);
  for (i = 0; i < n; i++)
    {
      json_begin_object (w);
      json_kv_uint (w, "major", e[i].major);
      json_kv_uint (w, "minor", e[i].minor);
      json_kv_string (w, "op", e[i].op);
      json_kv_uint (w, "value", e[i].value);
      json_end_object (w);
    }
  json_end_array (w);
}

static void
write_cpu (struct json_writer *w, const struct cgroup_stats *s)
{
  size_t i;
  json_key (w, "cpu");
  json_begin_object (w);
  json_key (w, "usage");
  json_begin_object (w);
  json_kv_uint (w, "total", s->cpu.total_ns);
  json_key (w, "percpu");
  json_begin_array (w);
  for (i = 0; i < s->cpu.n_percpu; i++)
    json_uint (w, s->cpu.percpu_ns[i]);
  json_end_array (w);
  json_kv_uint (w, "kernel", s->cpu.kernel_ns);
  json_kv_uint (w, "user", s->cpu.user_ns);
  json_end_object (w);
  json_key (w, "throttling");
  json_begin_object (w);
  json_kv_uint (w, "periods", s->cpu.periods);
  json_kv_uint (w, "throttledPeriods", s->cpu.throttled_periods);
  json_kv_uint (w, "throttledTime", s->cpu.throttled_time_ns);
  json_end_object (w);
  json_end_object (w);
}

static void
write_memory (struct json_writer *w, const struct cgroup_stats *s)
{
  size_t i;
  json_key (w, "memory");
  json_begin_object (w);
  json_kv_uint (w, "cache", s->memory.cache);
  write_memory_data (w, "usage", &s->memory.usage);
  write_memory_data (w, "swap", &s->memory.swap);
  write_memory_data (w, "kernel", &s->memory.kernel);
  write_memory_data (w, "kernelTCP", &s->memory.kernel_tcp);
  json_key (w, "raw");
  json_begin_object (w);
  for (i = 0; i < s->memory.n_stat; i++)
    json_kv_uint (w, s->memory.stat[i].key, s->memory.stat[i].value);
  json_end_object (w);
  json_end_object (w);
}

/* runc's types.Stats shape, in a {"type":"stats","id":..,"data":..} event. */
static void
print_stats (const char *id, const struct cgroup_stats *s)
{
  struct json_writer *w = json_writer_new (false);
  char *out;
  size_t i;

  json_begin_object (w);
  json_kv_string (w, "type", "stats");
  json_kv_string (w, "id", id);
  json_key (w, "data");
  json_begin_object (w);
  write_cpu (w, s);
  write_memory (w, s);
  json_key (w, "pids");
  json_begin_object (w);
  json_kv_uint (w, "current", s->pids.current);
  json_kv_uint (w, "limit", s->pids.limit);
  json_end_object (w);
  json_key (w, "blkio");
  json_begin_object (w);
  write_blkio (w, "ioServiceBytesRecursive", s->blkio.service_bytes,
               s->blkio.n_service_bytes);
  write_blkio (w, "ioServicedRecursive", s->blkio.serviced, s->blkio.n_serviced);
  json_end_object (w);
  json_key (w, "hugetlb");
  json_begin_object (w);
  for (i = 0; i < s->n_hugetlb; i++)
    {
      json_key (w, s->hugetlb[i].page_size);
      json_begin_object (w);
      json_kv_uint (w, "usage", s->hugetlb[i].usage);
      json_kv_uint (w, "max", s->hugetlb[i].max_usage);
      json_kv_uint (w, "failcnt", s->hugetlb[i].failcnt);
      json_end_object (w);
    }
  json_end_object (w);
  json_end_object (w);
  json_end_object (w);
  out = json_writer_finish (w, NULL);
  printf ("%s\n", out);
  fflush (stdout);
  free (out);
}

static int
one_stats (struct cgroup *cg, const char *id, agentrt_error_t *err)
{
  struct cgroup_stats s;
  memset (&s, 0, sizeof s);
  if (cgroup_stats (cg, &s, err) < 0)
    return -1;
  print_stats (id, &s);
  cgroup_stats_release (&s);
  return 0;
}

/* --interval: a Go duration as runc takes it ("5s", "200ms", "1m30s",
 * "1.5s"), or a bare number of seconds; in milliseconds (at least 1,
 * fractions rounded up). */
static int
parse_interval_ms (const char *s, int *out)
{
  static const struct
  {
    const char *unit;
    double ms;
  } units[] = { { "ns", 1e-6 }, { "us", 1e-3 }, { "\xc2\xb5s", 1e-3 },
                { "ms", 1 },    { "s", 1e3 },   { "m", 6e4 },
                { "h", 3.6e6 } };
  double total = 0;
  size_t i;

  if (*s && s[strspn (s, "0123456789")] == '\0')
    total = strtod (s, NULL) * 1e3;
  else
    while (*s)
      {
        char num[32];
        size_t n = strspn (s, "0123456789.");
        if (n == 0 || n >= sizeof num || memchr (s, '.', n) != memrchr (s, '.', n))
          return -1;
        memcpy (num, s, n);
        num[n] = '\0';
        s += n;
        for (i = 0; i < sizeof units / sizeof units[0]; i++)
          if (strncmp (s, units[i].unit, strlen (units[i].unit)) == 0)
            break;
        if (i == sizeof units / sizeof units[0])
          return -1;
        total += strtod (num, NULL) * units[i].ms;
        s += strlen (units[i].unit);
      }
  if (!(total > 0) || total > INT_MAX)
    return -1;
  *out = (int) total;
  if (*out < total)
    ++*out;
  return 0;
}

/* The stream: stats every interval, oom events as they happen. */
static int
stream (struct cgroup *cg, const char *id, int pidfd, int interval_ms,
        agentrt_error_t *err)
{
  struct cgroup_watch *watch = cgroup_watch_open (cg, err);
  if (watch == NULL)
    return -1;
  for (;;)
    {
      struct pollfd p[2] = { { .fd = cgroup_watch_fd (watch), .events = POLLIN },
                             { .fd = pidfd, .events = POLLIN } };
      struct cgroup_watch_counts counts = { 0 };
      int r = poll (p, 2, interval_ms);
      if (r < 0 && errno != EINTR)
        break;
      if (p[1].revents & POLLIN)
        break;
      if ((p[0].revents & POLLIN) && cgroup_watch_read (watch, &counts, err) > 0
          && counts.oom_kills)
        printf ("{\"type\":\"oom\",\"id\":\"%s\"}\n", id);
      if (r == 0 && one_stats (cg, id, err) < 0)
        break;
      fflush (stdout);
    }
  cgroup_watch_free (watch);
  return *err ? -1 : 0;
}

int
cmd_events (struct global_options *g, int argc, char **argv, agentrt_error_t *err)
{
  static const struct option opts[] = {
    { "stats", no_argument, NULL, 's' },
    { "interval", required_argument, NULL, 'i' },
    { NULL, 0, NULL, 0 },
  };
  int interval_ms = 5000;
  bool stats_only = false;
  struct container c;
  struct cgroup *cg;
  int ch, r, pidfd;

  opterr = 0;
  optind = 0;
  while ((ch = getopt_long_only (argc, argv, "+:si:", opts, NULL)) != -1)
    {
      if (ch == 's')
        stats_only = true;
      else if (ch == 'i')
        {
          if (parse_interval_ms (optarg, &interval_ms) < 0)
            return agentrt_error (err, 0, "--interval: `%s` is not a "
                                  "duration (e.g. 5s, 200ms)", optarg);
        }
      else
        return cmd_option_error (argv, ch, err);
    }
  if (cmd_check_args (argc, optind, 1, 1, "events [--stats] [--interval D] ID",
                      err) < 0
      || container_load (&g->rt, argv[optind], &c, err) < 0)
    return -1;
  if (container_status (&c) == STATUS_STOPPED)
    {
      container_release (&c);
      return agentrt_error (err, 0, "container `%s` is stopped",
                            argv[optind]);
    }
  cg = container_cgroup (&c, err);
  pidfd = proc_pidfd_open_checked (c.state->pid, c.state->pid_start);
  container_release (&c); /* no lock held while streaming */
  if (cg == NULL)
    r = *err ? -1 : agentrt_error (err, ENOENT, "no cgroup");
  else if (stats_only)
    r = one_stats (cg, argv[optind], err);
  else
    r = stream (cg, argv[optind], pidfd, interval_ms, err);
  if (pidfd >= 0)
    close (pidfd);
  cgroup_free (cg);
  return r < 0 ? -1 : 0;
}
