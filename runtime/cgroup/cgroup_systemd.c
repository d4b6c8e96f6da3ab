/* --systemd-cgroup: the container's cgroup as a transient systemd scope,
 * created over D-Bus (sd-bus) with StartTransientUnit (PIDs, Slice,
 * Delegate, accounting and the resource properties systemd knows), waited
 * for through JobRemoved, changed with SetUnitProperties, and killed
 * (KillUnit, SIGKILL) and stopped with StopUnit.  The cgroup files are
 * still written afterwards, like runc. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "runtime/cgroup/bpf_devices.h"
#include "runtime/cgroup/cgroup_internal.h"
#include "runtime/cgroup/sdbus_dl.h"

#define PRIVATE_SOCKET "/run/systemd/private"
#define JOB_TIMEOUT_USEC (30ull * 1000000)

static void
cleanup_bus_fn (sd_bus **b)
{
  if (*b) /* libsystemd may not even be loaded */
    sd_bus_flush_close_unref (*b);
}
static void
cleanup_msg_fn (sd_bus_message **m)
{
  if (*m)
    sd_bus_message_unref (*m);
}
static void
cleanup_slot_fn (sd_bus_slot **s)
{
  if (*s)
    sd_bus_slot_unref (*s);
}
#define cleanup_bus __attribute__ ((cleanup (cleanup_bus_fn)))
#define cleanup_msg __attribute__ ((cleanup (cleanup_msg_fn)))
#define cleanup_slot __attribute__ ((cleanup (cleanup_slot_fn)))

static const char *private_socket = PRIVATE_SOCKET;

void
cg_systemd_set_socket (const char *path)
{
  private_socket = path ? path : PRIVATE_SOCKET;
}

const char *
cg_systemd_socket (void)
{
  return private_socket;
}

void
cgroup_systemd_user_manager (const char *socket)
{
  cg_systemd_set_socket (socket);
}

/* systemd's private socket (root, no dbus-daemon needed; *direct), else
 * the system bus. */
static int
connect_systemd (sd_bus **bus, bool *direct, agentrt_error_t *err)
{
  cleanup_free char *address = NULL;
  sd_bus *b = NULL;
  int r;

  if (access (private_socket, F_OK) < 0)
    return agentrt_error (err, 0, "--systemd-cgroup: systemd is not running "
                                  "(no %s)", private_socket);
  if (sdbus_load (err) < 0)
    return -1;
  address = xasprintf ("unix:path=%s", private_socket);
  r = sd_bus_new (&b);
  if (r >= 0)
    r = sd_bus_set_address (b, address);
  if (r >= 0)
    r = sd_bus_start (b);
  *direct = r >= 0;
  if (r < 0)
    {
      sd_bus_unref (b);
      b = NULL;
      r = sd_bus_open_system (&b);
    }
  if (r < 0)
    return agentrt_error (err, -r, "--systemd-cgroup: connect to systemd");
  *bus = b;
  return 0;
}

static int
bus_error (agentrt_error_t *err, int r, const sd_bus_error *e, const char *what,
           const char *unit)
{
  if (e && sd_bus_error_is_set (e))
    return agentrt_error (err, 0, "--systemd-cgroup: %s `%s`: %s", what, unit,
                          e->message ? e->message : e->name);
  return agentrt_error (err, -r, "--systemd-cgroup: %s `%s`", what, unit);
}

/* ---- properties ---- */

static int
prop_u64 (sd_bus_message *m, const char *name, uint64_t v)
{
  return sd_bus_message_append (m, "(sv)", name, "t", v);
}

static int
memory_props (sd_bus_message *m, bool v2, const struct oci_memory *mem)
{
  int r = 0;

  if (mem->has_limit && mem->limit != 0)
    r = prop_u64 (m, v2 ? "MemoryMax" : "MemoryLimit",
                  mem->limit < 0 ? UINT64_MAX : (uint64_t) mem->limit);
  if (r >= 0 && v2 && mem->has_reservation && mem->reservation > 0)
    r = prop_u64 (m, "MemoryLow", (uint64_t) mem->reservation);
  if (r >= 0 && v2 && mem->has_swap && mem->swap != 0 && mem->has_limit)
    {
      if (mem->swap < 0 || mem->limit < 0)
        r = prop_u64 (m, "MemorySwapMax", UINT64_MAX);
      else if (mem->swap >= mem->limit)
        r = prop_u64 (m, "MemorySwapMax", (uint64_t) (mem->swap - mem->limit));
    }
  return r;
}

static int
cpu_props (sd_bus_message *m, bool v2, const struct oci_cpu *c)
{
  uint64_t period = c->has_period && c->period ? c->period : 100000;
  int r = 0;

  if (c->has_shares && c->shares != 0)
    r = v2 ? prop_u64 (m, "CPUWeight", cg_shares_to_weight (c->shares))
           : prop_u64 (m, "CPUShares", c->shares);
  if (r >= 0 && c->has_period && c->period != 0)
    r = prop_u64 (m, "CPUQuotaPeriodUSec", c->period);
  if (r >= 0 && c->has_quota && c->quota != 0)
    {
      /* systemd keeps the quota as a percentage: round up to 10ms. */
      uint64_t per_sec = c->quota < 0 ? UINT64_MAX
                                      : (uint64_t) c->quota * 1000000 / period;
      if (per_sec != UINT64_MAX && per_sec % 10000)
        per_sec = (per_sec / 10000 + 1) * 10000;
      r = prop_u64 (m, "CPUQuotaPerSecUSec", per_sec);
    }
  return r;
}

static int
resource_props (sd_bus_message *m, bool v2, const struct oci_resources *res)
{
  int r = 0;

  if (res == NULL)
    return 0;
  if (res->memory)
    r = memory_props (m, v2, res->memory);
  if (r >= 0 && res->cpu)
    r = cpu_props (m, v2, res->cpu);
  if (r >= 0 && res->pids && res->pids->has_limit)
    r = prop_u64 (m, "TasksMax",
                  res->pids->limit < 0   ? UINT64_MAX
                  : res->pids->limit == 0 ? 1
                                          : (uint64_t) res->pids->limit);
  return r;
}

/* "char-pts" for a major's name in /proc/devices, NULL when unknown. */
static char *
major_name (char type, int64_t major)
{
  cleanup_file FILE *f = fopen ("/proc/devices", "re");
  char line[128], name[96];
  bool in_section = false;
  long m;

  while (f && fgets (line, sizeof line, f))
    {
      if (strncmp (line, "Character", 9) == 0 || strncmp (line, "Block", 5) == 0)
        in_section = (line[0] == 'C') == (type == 'c');
      else if (in_section && sscanf (line, "%ld %95s", &m, name) == 2
               && m == major)
        return xasprintf ("%s-%s", type == 'c' ? "char" : "block", name);
    }
  return NULL;
}

static char *
device_allow_name (const struct bpf_dev_rule *e)
{
  const char *kind = e->type == 'c' ? "char" : "block";

  if (e->major >= 0 && e->minor >= 0)
    return xasprintf ("/dev/%s/%lld:%lld", kind, (long long) e->major,
                      (long long) e->minor);
  if (e->major < 0 && e->minor < 0)
    return xasprintf ("%s-*", kind);
  if (e->major >= 0)
    return major_name (e->type, e->major);
  return NULL; /* any major, one minor: systemd cannot say it; not allowed */
}

/* v1: systemd rewrites devices.allow of a unit without device properties
 * on daemon-reload ("a", everything); give it the same allow-list.  (On v2
 * it leaves agentrt's eBPF program alone.) */
static int
device_props (sd_bus_message *m, const struct cgroup_request *req)
{
  struct bpf_dev_policy p;
  agentrt_error_t err = NULL;
  int r;

  if (cg_device_policy (req->resources, req->devices, req->n_devices, &p, &err)
      < 0)
    {
      agentrt_error_release (&err);
      return -EINVAL;
    }
  if (p.default_allow)
    {
      bpf_devices_policy_release (&p);
      return 0;
    }
  r = sd_bus_message_append (m, "(sv)", "DevicePolicy", "s", "strict");
  if (r >= 0)
    r = sd_bus_message_open_container (m, 'r', "sv");
  if (r >= 0)
    r = sd_bus_message_append (m, "s", "DeviceAllow");
  if (r >= 0)
    r = sd_bus_message_open_container (m, 'v', "a(ss)");
  if (r >= 0)
    r = sd_bus_message_open_container (m, 'a', "(ss)");
  for (size_t i = 0; r >= 0 && i < p.n; i++)
    {
      cleanup_free char *name = device_allow_name (&p.exceptions[i]);
      char perms[4] = "";
      size_t k = 0;

      if (p.exceptions[i].access & BPF_DEV_READ)
        perms[k++] = 'r';
      if (p.exceptions[i].access & BPF_DEV_WRITE)
        perms[k++] = 'w';
      if (p.exceptions[i].access & BPF_DEV_MKNOD)
        perms[k++] = 'm';
      if (name)
        r = sd_bus_message_append (m, "(ss)", name, perms);
    }
  for (int i = 0; r >= 0 && i < 3; i++)
    r = sd_bus_message_close_container (m);
  bpf_devices_policy_release (&p);
  return r;
}

static int
scope_props (sd_bus_message *m, const struct cg_target *t,
             const struct cgroup_request *req, bool v2)
{
  cleanup_free char *desc = xasprintf ("agentrt container %s", req->id);
  pid_t pid = req->pid;
  int r;

  r = sd_bus_message_append (m, "(sv)(sv)(sv)", "Description", "s", desc,
                             "Slice", "s", t->slice, "Delegate", "b", 1);
  if (r >= 0)
    r = sd_bus_message_append (m, "(sv)", "PIDs", "au", 1, (uint32_t) pid);
  if (r >= 0)
    r = sd_bus_message_append (m, "(sv)(sv)(sv)(sv)", "MemoryAccounting", "b",
                               1, "CPUAccounting", "b", 1, "TasksAccounting",
                               "b", 1, v2 ? "IOAccounting" : "BlockIOAccounting",
                               "b", 1);
  if (r >= 0)
    r = resource_props (m, v2, req->resources);
  if (r >= 0 && !v2)
    r = device_props (m, req);
  return r;
}

/* ---- jobs ---- */

static uint64_t
now_usec (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
}

struct job_wait
{
  const char *path; /* job object path, once known */
  char *result;     /* "done", "failed", ... once removed */
  char *removed[16]; /* paths removed before `path` was known */
  char *removed_result[16];
  size_t n_removed;
};

static int
on_job_removed (sd_bus_message *m, void *userdata, sd_bus_error *e)
{
  struct job_wait *w = userdata;
  const char *path, *unit, *result;
  uint32_t id;

  if (sd_bus_message_read (m, "uoss", &id, &path, &unit, &result) < 0)
    return 0;
  if (w->path && strcmp (path, w->path) == 0)
    w->result = xstrdup (result);
  else if (w->path == NULL && w->n_removed < 16)
    {
      w->removed[w->n_removed] = xstrdup (path);
      w->removed_result[w->n_removed++] = xstrdup (result);
    }
  return 0;
}

static void
job_wait_release (struct job_wait *w)
{
  free (w->result);
  for (size_t i = 0; i < w->n_removed; i++)
    {
      free (w->removed[i]);
      free (w->removed_result[i]);
    }
}

/* Calls method (which returns a job) and waits for the job to finish. */
static int
run_job (sd_bus *bus, bool direct, sd_bus_message *call, const char *unit,
         const char *what, agentrt_error_t *err)
{
  cleanup_slot sd_bus_slot *slot = NULL;
  cleanup_msg sd_bus_message *reply = NULL;
  sd_bus_error e = SD_BUS_ERROR_NULL;
  struct job_wait w = { 0 };
  const char *job;
  uint64_t deadline;
  int r;

  /* A direct connection (the private socket) carries no sender names. */
  r = sd_bus_match_signal (bus, &slot, direct ? NULL : "org.freedesktop.systemd1",
                           "/org/freedesktop/systemd1",
                           "org.freedesktop.systemd1.Manager", "JobRemoved",
                           on_job_removed, &w);
  if (r >= 0)
    r = sd_bus_call_method (bus, "org.freedesktop.systemd1",
                            "/org/freedesktop/systemd1",
                            "org.freedesktop.systemd1.Manager", "Subscribe", &e,
                            NULL, "");
  sd_bus_error_free (&e);
  if (r >= 0)
    r = sd_bus_call (bus, call, JOB_TIMEOUT_USEC, &e, &reply);
  if (r < 0)
    {
      r = bus_error (err, r, &e, what, unit);
      sd_bus_error_free (&e);
      return r;
    }
  if (sd_bus_message_read (reply, "o", &job) < 0)
    return agentrt_error (err, EPROTO, "--systemd-cgroup: %s `%s`: bad reply",
                          what, unit);
  w.path = job;
  for (size_t i = 0; i < w.n_removed; i++)
    if (strcmp (w.removed[i], job) == 0)
      w.result = xstrdup (w.removed_result[i]);
  deadline = now_usec () + JOB_TIMEOUT_USEC;
  while (w.result == NULL && r >= 0)
    {
      uint64_t now;
      r = sd_bus_process (bus, NULL);
      if (r == 0 && (now = now_usec ()) < deadline)
        r = sd_bus_wait (bus, deadline - now);
      else if (r == 0)
        r = -ETIMEDOUT;
    }
  if (r < 0)
    r = agentrt_error (err, -r, "--systemd-cgroup: wait for %s `%s`", what, unit);
  else if (strcmp (w.result, "done") != 0)
    r = agentrt_error (err, 0, "--systemd-cgroup: %s `%s`: job %s", what, unit,
                       w.result);
  else
    r = 0;
  job_wait_release (&w);
  return r;
}

int
cg_systemd_start (struct cgroup *cg, const struct cg_target *t,
                  const struct cgroup_request *req, agentrt_error_t *err)
{
  cleanup_bus sd_bus *bus = NULL;
  cleanup_msg sd_bus_message *m = NULL;
  bool v2 = cg->layout->mode == CGROUP_MODE_V2, direct;
  int ret;

  if (req->pid <= 0)
    return agentrt_error (err, 0, "--systemd-cgroup: a scope needs the "
                                  "container's process");
  if (connect_systemd (&bus, &direct, err) < 0)
    return -1;
  ret = sd_bus_message_new_method_call (bus, &m, "org.freedesktop.systemd1",
                                        "/org/freedesktop/systemd1",
                                        "org.freedesktop.systemd1.Manager",
                                        "StartTransientUnit");
  if (ret >= 0)
    ret = sd_bus_message_append (m, "ss", t->unit, "fail");
  if (ret >= 0)
    ret = sd_bus_message_open_container (m, 'a', "(sv)");
  if (ret >= 0)
    ret = scope_props (m, t, req, v2);
  if (ret >= 0)
    ret = sd_bus_message_close_container (m);
  if (ret >= 0)
    ret = sd_bus_message_append (m, "a(sa(sv))", 0);
  if (ret < 0)
    return agentrt_error (err, -ret, "--systemd-cgroup: build the request");
  return run_job (bus, direct, m, t->unit, "start transient unit", err);
}

int
cg_systemd_set (struct cgroup *cg, const struct oci_resources *r,
                agentrt_error_t *err)
{
  cleanup_bus sd_bus *bus = NULL;
  cleanup_msg sd_bus_message *m = NULL, *reply = NULL;
  sd_bus_error e = SD_BUS_ERROR_NULL;
  bool direct;
  int ret;

  if (connect_systemd (&bus, &direct, err) < 0)
    return -1;
  ret = sd_bus_message_new_method_call (bus, &m, "org.freedesktop.systemd1",
                                        "/org/freedesktop/systemd1",
                                        "org.freedesktop.systemd1.Manager",
                                        "SetUnitProperties");
  if (ret >= 0)
    ret = sd_bus_message_append (m, "sb", cg->systemd_unit, 1);
  if (ret >= 0)
    ret = sd_bus_message_open_container (m, 'a', "(sv)");
  if (ret >= 0)
    ret = resource_props (m, cg->layout->mode == CGROUP_MODE_V2, r);
  if (ret >= 0)
    ret = sd_bus_message_close_container (m);
  if (ret >= 0)
    ret = sd_bus_call (bus, m, JOB_TIMEOUT_USEC, &e, &reply);
  if (ret < 0)
    ret = bus_error (err, ret, &e, "set properties of", cg->systemd_unit);
  sd_bus_error_free (&e);
  return ret < 0 ? -1 : 0;
}

int
cg_systemd_stop (const char *unit, agentrt_error_t *err)
{
  cleanup_bus sd_bus *bus = NULL;
  cleanup_msg sd_bus_message *m = NULL;
  agentrt_error_t e = NULL;
  bool direct;
  int ret;

  if (connect_systemd (&bus, &direct, err) < 0)
    return -1;
  /* Whatever is still in the scope goes now (runc kills before it
     destroys, too).  StopUnit alone sends SIGTERM, which a container's
     init ignores unless it handles it, so systemd would wait out
     TimeoutStopSec (90 s) and the job wait would time out first: a failed
     create rolls back while its init is still in the scope.  A unit that
     is gone or cannot be killed is StopUnit's business. */
  sd_bus_call_method (bus, "org.freedesktop.systemd1",
                      "/org/freedesktop/systemd1",
                      "org.freedesktop.systemd1.Manager", "KillUnit", NULL,
                      NULL, "ssi", unit, "all", SIGKILL);
  ret = sd_bus_message_new_method_call (bus, &m, "org.freedesktop.systemd1",
                                        "/org/freedesktop/systemd1",
                                        "org.freedesktop.systemd1.Manager",
                                        "StopUnit");
  if (ret >= 0)
    ret = sd_bus_message_append (m, "ss", unit, "replace");
  if (ret < 0)
    return agentrt_error (err, -ret, "--systemd-cgroup: build the request");
  if (run_job (bus, direct, m, unit, "stop unit", &e) == 0)
    return 0;
  /* A scope whose processes all exited is already gone. */
  if (strstr (e->msg, "not loaded") || strstr (e->msg, "NoSuchUnit"))
    {
      agentrt_error_release (&e);
      return 0;
    }
  agentrt_error_move (err, &e);
  return -1;
}
