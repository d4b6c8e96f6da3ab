/* --systemd-cgroup against a fake systemd: an sd-bus server on a unix
 * socket in a temp dir (what /run/systemd/private is) implementing the
 * Manager methods agentrt calls, over a fake cgroup tree.  Checks the unit
 * name, the properties sent (slice, delegation, PIDs, resources, v1 device
 * allow-list), waiting for JobRemoved (before and after the reply), job
 * failures, SetUnitProperties on update, KillUnit then StopUnit and a
 * unit that is already gone.  Real systemd is tested in the VM (docs/cgroups.md). */
#include "config.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#include "common/xalloc.h"
#include "runtime/cgroup/cgroup_internal.h"
#include "tests/unit/unit.h"

static char tmp[] = "/tmp/agentrt-cgroup-systemd-XXXXXX";
static char *sock_path;

/* What the fake systemd saw. */
static struct
{
  char unit[128], slice[128], description[128], device_policy[32];
  char props[2048];        /* "Name=value;" for each property */
  char device_allow[1024]; /* "path perms;" */
  char set_props[512];
  uint32_t pid;
  int starts, stops, sets, kills;
  int kill_signal, kills_at_stop; /* KillUnit's signal; kills when stopped */
  char kill_whom[16];
  bool signal_first;       /* emit JobRemoved before replying */
  bool active;             /* the unit exists */
} seen;

static void
add_prop (char *buf, size_t size, const char *name, const char *value)
{
  size_t len = strlen (buf);
  snprintf (buf + len, size - len, "%s=%s;", name, value);
}

/* Reads one (sv) property into buf. */
static int
read_prop (sd_bus_message *m, char *buf, size_t size)
{
  const char *name, *contents, *s;
  char value[64] = "";
  char type;
  int r, b;
  uint64_t t;

  if ((r = sd_bus_message_read (m, "s", &name)) < 0
      || (r = sd_bus_message_peek_type (m, &type, &contents)) < 0
      || (r = sd_bus_message_enter_container (m, 'v', contents)) < 0)
    return r;
  if (strcmp (contents, "s") == 0 && sd_bus_message_read (m, "s", &s) >= 0)
    {
      snprintf (value, sizeof value, "%s", s);
      if (strcmp (name, "Slice") == 0)
        snprintf (seen.slice, sizeof seen.slice, "%s", s);
      if (strcmp (name, "Description") == 0)
        snprintf (seen.description, sizeof seen.description, "%s", s);
      if (strcmp (name, "DevicePolicy") == 0)
        snprintf (seen.device_policy, sizeof seen.device_policy, "%s", s);
    }
  else if (strcmp (contents, "b") == 0 && sd_bus_message_read (m, "b", &b) >= 0)
    snprintf (value, sizeof value, "%s", b ? "yes" : "no");
  else if (strcmp (contents, "t") == 0 && sd_bus_message_read (m, "t", &t) >= 0)
    snprintf (value, sizeof value, "%llu", (unsigned long long) t);
  else if (strcmp (contents, "au") == 0)
    {
      const void *p;
      size_t n;
      if (sd_bus_message_read_array (m, 'u', &p, &n) >= 0 && n == 4)
        memcpy (&seen.pid, p, 4);
      snprintf (value, sizeof value, "%u", seen.pid);
    }
  else if (strcmp (contents, "a(ss)") == 0)
    {
      const char *path, *perms;
      sd_bus_message_enter_container (m, 'a', "(ss)");
      while (sd_bus_message_read (m, "(ss)", &path, &perms) > 0)
        {
          size_t len = strlen (seen.device_allow);
          snprintf (seen.device_allow + len, sizeof seen.device_allow - len,
                    "%s %s;", path, perms);
        }
      sd_bus_message_exit_container (m);
      snprintf (value, sizeof value, "list");
    }
  else
    sd_bus_message_skip (m, contents);
  add_prop (buf, size, name, value);
  return sd_bus_message_exit_container (m);
}

static int
read_props (sd_bus_message *m, char *buf, size_t size)
{
  int r = sd_bus_message_enter_container (m, 'a', "(sv)");
  while (r >= 0 && (r = sd_bus_message_enter_container (m, 'r', "sv")) > 0)
    if ((r = read_prop (m, buf, size)) >= 0)
      r = sd_bus_message_exit_container (m);
  return r < 0 ? r : sd_bus_message_exit_container (m);
}

/* The scope's cgroup, as systemd would create it, with its control files. */
static void
make_scope (bool create)
{
  static const char *const files[][2]
      = { { "memory", "memory.limit_in_bytes" }, { "memory", "cgroup.procs" },
          { "pids", "pids.max" },                { "pids", "cgroup.procs" },
          { "devices", "devices.allow" },        { "devices", "devices.deny" },
          { "devices", "cgroup.procs" },         { "cpu", "cpu.cfs_period_us" },
          { "cpu", "cpu.cfs_quota_us" },         { "cpu", "cgroup.procs" } };
  char *cmd = xasprintf ("rm -rf %s/*/machine.slice", tmp);
  if (system (cmd) != 0)
    fprintf (stderr, "could not clean the fake tree\n");
  free (cmd);
  for (size_t i = 0; create && i < sizeof files / sizeof files[0]; i++)
    {
      char *dir = xasprintf ("%s/%s/machine.slice/libpod-ID.scope", tmp,
                             files[i][0]);
      char *file = xasprintf ("%s/%s", dir, files[i][1]);
      char *mk = xasprintf ("mkdir -p %s", dir);
      int fd;
      if (system (mk) != 0)
        fprintf (stderr, "could not create %s\n", dir);
      fd = open (file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
      close (fd);
      free (dir);
      free (file);
      free (mk);
    }
}

static int
finish_job (sd_bus_message *m, const char *unit, const char *result)
{
  static const char job[] = "/org/freedesktop/systemd1/job/42";
  sd_bus *bus = sd_bus_message_get_bus (m);
  int r = 0;

  if (seen.signal_first)
    r = sd_bus_emit_signal (bus, "/org/freedesktop/systemd1",
                            "org.freedesktop.systemd1.Manager", "JobRemoved",
                            "uoss", 42, job, unit, result);
  if (r >= 0)
    r = sd_bus_reply_method_return (m, "o", job);
  if (r >= 0 && !seen.signal_first)
    r = sd_bus_emit_signal (bus, "/org/freedesktop/systemd1",
                            "org.freedesktop.systemd1.Manager", "JobRemoved",
                            "uoss", 42, job, unit, result);
  return r;
}

static int
on_start (sd_bus_message *m, void *userdata, sd_bus_error *e)
{
  const char *unit, *mode;
  int r = sd_bus_message_read (m, "ss", &unit, &mode);

  if (r < 0)
    return r;
  seen.starts++;
  snprintf (seen.unit, sizeof seen.unit, "%s", unit);
  seen.props[0] = seen.device_allow[0] = '\0';
  if ((r = read_props (m, seen.props, sizeof seen.props)) < 0
      || (r = sd_bus_message_skip (m, "a(sa(sv))")) < 0)
    return r;
  if (strcmp (mode, "fail") != 0)
    return sd_bus_error_set (e, SD_BUS_ERROR_INVALID_ARGS, "bad mode");
  seen.active = strstr (unit, "broken") == NULL;
  make_scope (seen.active);
  return finish_job (m, unit, seen.active ? "done" : "failed");
}

static int
on_stop (sd_bus_message *m, void *userdata, sd_bus_error *e)
{
  const char *unit, *mode;
  int r = sd_bus_message_read (m, "ss", &unit, &mode);

  if (r < 0)
    return r;
  seen.stops++;
  seen.kills_at_stop = seen.kills;
  if (!seen.active || strcmp (unit, seen.unit) != 0)
    return sd_bus_error_setf (e, "org.freedesktop.systemd1.NoSuchUnit",
                              "Unit %s not loaded.", unit);
  seen.active = false;
  make_scope (false);
  return finish_job (m, unit, "done");
}

static int
on_kill (sd_bus_message *m, void *userdata, sd_bus_error *e)
{
  const char *unit, *whom;
  int sig, r = sd_bus_message_read (m, "ssi", &unit, &whom, &sig);

  if (r < 0)
    return r;
  if (!seen.active || strcmp (unit, seen.unit) != 0)
    return sd_bus_error_setf (e, "org.freedesktop.systemd1.NoSuchUnit",
                              "Unit %s not loaded.", unit);
  seen.kills++;
  seen.kill_signal = sig;
  snprintf (seen.kill_whom, sizeof seen.kill_whom, "%s", whom);
  return sd_bus_reply_method_return (m, "");
}

static int
on_set (sd_bus_message *m, void *userdata, sd_bus_error *e)
{
  const char *unit;
  int runtime, r = sd_bus_message_read (m, "sb", &unit, &runtime);

  if (r < 0)
    return r;
  seen.sets++;
  seen.set_props[0] = '\0';
  if ((r = read_props (m, seen.set_props, sizeof seen.set_props)) < 0)
    return r;
  return sd_bus_reply_method_return (m, "");
}

static int
on_subscribe (sd_bus_message *m, void *userdata, sd_bus_error *e)
{
  return sd_bus_reply_method_return (m, "");
}

static const sd_bus_vtable manager[] = {
  SD_BUS_VTABLE_START (0),
  SD_BUS_METHOD ("Subscribe", "", "", on_subscribe, 0),
  SD_BUS_METHOD ("StartTransientUnit", "ssa(sv)a(sa(sv))", "o", on_start, 0),
  SD_BUS_METHOD ("StopUnit", "ss", "o", on_stop, 0),
  SD_BUS_METHOD ("KillUnit", "ssi", "", on_kill, 0),
  SD_BUS_METHOD ("SetUnitProperties", "sba(sv)", "", on_set, 0),
  SD_BUS_VTABLE_END
};

static void
serve (int fd)
{
  sd_bus *bus = NULL;
  sd_id128_t id;
  int r;

  if (sd_bus_new (&bus) < 0)
    return;
  sd_id128_randomize (&id);
  r = sd_bus_set_fd (bus, fd, fd);
  if (r >= 0)
    r = sd_bus_set_server (bus, 1, id);
  if (r >= 0)
    r = sd_bus_start (bus);
  if (r >= 0)
    r = sd_bus_add_object_vtable (bus, NULL, "/org/freedesktop/systemd1",
                                  "org.freedesktop.systemd1.Manager", manager,
                                  NULL);
  while (r >= 0)
    {
      r = sd_bus_process (bus, NULL);
      if (r == 0)
        r = sd_bus_wait (bus, UINT64_MAX);
    }
  sd_bus_flush_close_unref (bus);
}

static void *
fake_systemd (void *arg)
{
  int lfd = *(int *) arg, fd;

  while ((fd = accept4 (lfd, NULL, NULL, SOCK_CLOEXEC)) >= 0)
    serve (fd);
  return NULL;
}

static struct cgroup_layout *
fake_layout (bool v2)
{
  static const char v1_mi[]
      = "31 23 0:28 / /sys/fs/cgroup rw - tmpfs tmpfs rw\n"
        "32 31 0:29 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
        "33 31 0:30 / /sys/fs/cgroup/pids rw - cgroup cgroup rw,pids\n"
        "34 31 0:31 / /sys/fs/cgroup/devices rw - cgroup cgroup rw,devices\n"
        "35 31 0:32 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n";
  static const char v2_mi[] = "31 23 0:28 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n";
  agentrt_error_t err = NULL;
  struct cgroup_layout *l
      = cgroup_layout_parse (v2 ? v2_mi : v1_mi, "", tmp, &err);
  agentrt_error_release (&err);
  return l;
}

static const char *
read_scope_file (const char *rel, char *buf, size_t size)
{
  char *f = xasprintf ("%s/%s", tmp, rel);
  int fd = open (f, O_RDONLY);
  ssize_t n = fd < 0 ? -1 : read (fd, buf, size - 1);

  buf[n < 0 ? 0 : n] = '\0';
  close (fd);
  free (f);
  return buf;
}

static void
test_scope (void)
{
  struct cgroup_layout *l = fake_layout (false);
  struct oci_memory mem = { .has_limit = true, .limit = 1 << 30 };
  struct oci_pids pids = { .has_limit = true, .limit = 0 };
  struct oci_cpu cpu = { .has_quota = true, .quota = 12345, .has_period = true,
                         .period = 100000 };
  struct oci_device_rule rules[] = { { .allow = true, .type = 'c',
                                       .has_major = true, .major = 10,
                                       .has_minor = true, .minor = 200,
                                       .access = (char *) "rw" } };
  struct oci_resources res = { .devices = rules, .n_devices = 1,
                               .memory = &mem, .pids = &pids, .cpu = &cpu };
  struct cgroup_request req = { .layout = l, .id = "ID", .resources = &res,
                                .cgroups_path = "machine.slice:libpod:ID",
                                .pid = getpid (), .systemd = true };
  struct cgroup_result result;
  agentrt_error_t err = NULL;
  char pid[32];

  CHECK (cgroup_enter (&req, &result, &err) == 0);
  if (err)
    {
      fprintf (stderr, "%s\n", err->msg);
      agentrt_error_release (&err);
      cgroup_layout_free (l);
      return;
    }
  CHECK_STR_EQ (seen.unit, "libpod-ID.scope");
  CHECK_STR_EQ (seen.slice, "machine.slice");
  CHECK_STR_EQ (seen.description, "agentrt container ID");
  CHECK (seen.pid == (uint32_t) getpid ());
  CHECK_CONTAINS (seen.props, "Delegate=yes;");
  CHECK_CONTAINS (seen.props, "MemoryAccounting=yes;");
  CHECK_CONTAINS (seen.props, "BlockIOAccounting=yes;"); /* v1 */
  CHECK_CONTAINS (seen.props, "MemoryLimit=1073741824;");
  CHECK_CONTAINS (seen.props, "TasksMax=1;");
  CHECK_CONTAINS (seen.props, "CPUQuotaPerSecUSec=130000;"); /* rounded up */
  CHECK_CONTAINS (seen.props, "CPUQuotaPeriodUSec=100000;");
  CHECK_STR_EQ (seen.device_policy, "strict");
  CHECK_CONTAINS (seen.device_allow, "/dev/char/10:200 rw;");
  CHECK_CONTAINS (seen.device_allow, "/dev/char/1:3 rwm;");
  CHECK_CONTAINS (seen.device_allow, "char-* m;");
  CHECK_CONTAINS (seen.device_allow, "block-* m;");
  CHECK_CONTAINS (seen.device_allow, "char-pts rwm;"); /* 136, by name */
  CHECK (result.cgroup && cgroup_owned (result.cgroup));
  CHECK_STR_EQ (result.cgroup ? cgroup_path (result.cgroup) : NULL,
                "/machine.slice/libpod-ID.scope");
  CHECK_STR_EQ (result.cgroup ? cgroup_systemd_unit (result.cgroup) : NULL,
                "libpod-ID.scope");
  /* the files are written too, as runc does */
  CHECK_STR_EQ (read_scope_file ("pids/machine.slice/libpod-ID.scope/pids.max",
                                 pid, sizeof pid),
                "1");

  /* update goes through SetUnitProperties, then the files */
  mem.limit = 1 << 20;
  CHECK (cgroup_update (result.cgroup, &res, NULL, &err) == 0);
  CHECK (seen.sets == 1);
  CHECK_CONTAINS (seen.set_props, "MemoryLimit=1048576;");

  CHECK (cgroup_destroy (result.cgroup, &err) == 0);
  CHECK (seen.stops == 1 && !seen.active);
  /* what is left in the scope is SIGKILLed first: a container's init
     ignores the SIGTERM of StopUnit */
  CHECK (seen.kills == 1 && seen.kills_at_stop == 1);
  CHECK (seen.kill_signal == SIGKILL);
  CHECK_STR_EQ (seen.kill_whom, "all");
  /* stopping a scope that is already gone is fine */
  CHECK (cgroup_destroy (result.cgroup, &err) == 0);
  CHECK (seen.stops == 2);
  if (err)
    fprintf (stderr, "%s\n", err->msg);
  agentrt_error_release (&err);
  cgroup_free (result.cgroup);
  cgroup_result_release (&result);
  cgroup_layout_free (l);
}

static void
test_signal_first_and_failures (void)
{
  struct cgroup_layout *l = fake_layout (false);
  struct cgroup_request req = { .layout = l, .id = "ID", .pid = getpid (),
                                .cgroups_path = "machine.slice:libpod:ID",
                                .systemd = true };
  struct cgroup_result result;
  agentrt_error_t err = NULL;

  /* JobRemoved can arrive before the method's reply */
  seen.signal_first = true;
  CHECK (cgroup_enter (&req, &result, &err) == 0);
  CHECK (result.cgroup && cgroup_destroy (result.cgroup, &err) == 0);
  cgroup_free (result.cgroup);
  cgroup_result_release (&result);
  seen.signal_first = false;

  /* a job that fails is an error naming the unit */
  req.cgroups_path = "machine.slice:broken:ID";
  CHECK (cgroup_enter (&req, &result, &err) < 0);
  CHECK_CONTAINS (err ? err->msg : NULL, "`broken-ID.scope`: job failed");
  agentrt_error_release (&err);
  /* a scope needs the process */
  req.cgroups_path = "machine.slice:libpod:ID";
  req.pid = 0;
  CHECK (cgroup_enter (&req, &result, &err) < 0);
  CHECK_CONTAINS (err ? err->msg : NULL, "needs the container's process");
  agentrt_error_release (&err);
  cgroup_layout_free (l);
}

static void
test_v2_properties (void)
{
  struct cgroup_layout *l = fake_layout (true);
  struct oci_memory mem = { .has_limit = true, .limit = 100, .has_swap = true,
                            .swap = 300, .has_reservation = true,
                            .reservation = 50 };
  struct oci_cpu cpu = { .has_shares = true, .shares = 1024 };
  struct oci_resources res = { .memory = &mem, .cpu = &cpu };
  struct cgroup *cg = cgroup_open (l, "/machine.slice/libpod-ID.scope",
                                   "libpod-ID.scope", true, NULL);
  agentrt_error_t err = NULL;

  seen.set_props[0] = '\0';
  /* the fake tree has no files for it: only the D-Bus part is checked */
  CHECK (cgroup_update (cg, &res, NULL, &err) < 0);
  CHECK_CONTAINS (seen.set_props, "MemoryMax=100;");
  CHECK_CONTAINS (seen.set_props, "MemoryLow=50;");
  CHECK_CONTAINS (seen.set_props, "MemorySwapMax=200;");
  CHECK_CONTAINS (seen.set_props, "CPUWeight=100;");
  agentrt_error_release (&err);
  cgroup_free (cg);
  cgroup_layout_free (l);
}

int
main (void)
{
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  pthread_t thread;
  int lfd, ret;

  if (mkdtemp (tmp) == NULL)
    return 99;
  sock_path = xasprintf ("%s/private", tmp);
  snprintf (addr.sun_path, sizeof addr.sun_path, "%s", sock_path);
  lfd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (lfd < 0 || bind (lfd, (struct sockaddr *) &addr, sizeof addr) < 0
      || listen (lfd, 4) < 0
      || pthread_create (&thread, NULL, fake_systemd, &lfd) != 0)
    return 99;
  cg_systemd_set_socket (sock_path);

  RUN_TEST (test_scope);
  RUN_TEST (test_signal_first_and_failures);
  RUN_TEST (test_v2_properties);

  shutdown (lfd, SHUT_RDWR);
  pthread_join (thread, NULL);
  close (lfd);
  cg_systemd_set_socket (NULL);
  {
    char *cmd = xasprintf ("rm -rf '%s'", tmp);
    ret = system (cmd);
    free (cmd);
  }
  free (sock_path);
  return ret == 0 ? UNIT_EXIT () : EXIT_FAILURE;
}
