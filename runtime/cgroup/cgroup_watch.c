/* Limit events for the per-container monitor: one epoll fd that polls
 * readable when the OOM killer ran in the cgroup (v1: an eventfd registered
 * on memory.oom_control; v2: inotify on memory.events) or a fork hit the
 * pids limit (v2: inotify on pids.events; v1 pids.events does not notify,
 * so a one-second timer), and the counters read afterwards. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "runtime/cgroup/cgroup_internal.h"

struct cgroup_watch
{
  int epfd;
  int eventfd; /* v1 OOM notifications, -1 */
  int inotify; /* v2 memory.events, pids.events, -1 */
  int timer;   /* v1 pids.events polling, -1 */
  struct cg_dir *mem, *pids;
  uint64_t oom_kills, pids_max; /* counters at the previous read */
  bool oom_counter;            /* the kernel counts kills (oom_kill) */
};

/* Current counters: "oom_kill N" in memory.events (v2) or
 * memory.oom_control (v1), "max N" in pids.events. */
static int
counters (struct cgroup_watch *w, uint64_t *oom, uint64_t *max,
          agentrt_error_t *err)
{
  char buf[1024];

  *oom = *max = 0;
  if (w->mem)
    {
      if (cg_read_buf (w->mem, w->mem->v2 ? "memory.events" : "memory.oom_control",
                       buf, sizeof buf, err) < 0)
        return -1;
      w->oom_counter = cg_kv_find (buf, "oom_kill", oom);
    }
  if (w->pids)
    {
      if (cg_read_buf (w->pids, "pids.events", buf, sizeof buf, err) < 0)
        return -1;
      cg_kv_find (buf, "max", max);
    }
  return 0;
}

static int
watch_file (struct cgroup_watch *w, struct cg_dir *d, const char *file,
            agentrt_error_t *err)
{
  cleanup_free char *path = xasprintf ("%s/%s", d->path, file);

  if (w->inotify < 0)
    {
      w->inotify = inotify_init1 (IN_NONBLOCK | IN_CLOEXEC);
      if (w->inotify < 0)
        return agentrt_error (err, errno, "inotify_init1");
    }
  if (inotify_add_watch (w->inotify, path, IN_MODIFY) < 0)
    return agentrt_error (err, errno, "watch `%s`", path);
  return 0;
}

/* v1: "<eventfd> <fd of memory.oom_control>" into cgroup.event_control. */
static int
v1_oom_eventfd (struct cgroup_watch *w, agentrt_error_t *err)
{
  cleanup_close int ctl = openat (w->mem->fd, "memory.oom_control",
                                  O_RDONLY | O_CLOEXEC);
  char line[64];

  if (ctl < 0)
    return agentrt_error (err, errno, "open `%s/memory.oom_control`",
                          w->mem->path);
  w->eventfd = eventfd (0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (w->eventfd < 0)
    return agentrt_error (err, errno, "eventfd");
  snprintf (line, sizeof line, "%d %d", w->eventfd, ctl);
  return cg_write (w->mem, "cgroup.event_control", line, err);
}

static int
add_epoll (int epfd, int fd, agentrt_error_t *err)
{
  struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

  if (fd >= 0 && epoll_ctl (epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
    return agentrt_error (err, errno, "epoll_ctl");
  return 0;
}

static int
setup (struct cgroup_watch *w, struct cgroup *cg, agentrt_error_t *err)
{
  w->mem = cg_ctrl_dir (cg, CG_MEMORY, err);
  if (w->mem == NULL && err && *err)
    return -1;
  w->pids = cg_ctrl_dir (cg, CG_PIDS, err);
  if (w->pids == NULL && err && *err)
    return -1;
  if (w->mem && (w->mem->v2 ? watch_file (w, w->mem, "memory.events", err)
                            : v1_oom_eventfd (w, err))
                    < 0)
    return -1;
  if (w->pids && w->pids->v2 && watch_file (w, w->pids, "pids.events", err) < 0)
    return -1;
  if (w->pids && !w->pids->v2)
    {
      struct itimerspec every = { .it_interval = { 1, 0 }, .it_value = { 1, 0 } };
      w->timer = timerfd_create (CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
      if (w->timer < 0 || timerfd_settime (w->timer, 0, &every, NULL) < 0)
        return agentrt_error (err, errno, "timerfd");
    }
  w->epfd = epoll_create1 (EPOLL_CLOEXEC);
  if (w->epfd < 0)
    return agentrt_error (err, errno, "epoll_create1");
  if (add_epoll (w->epfd, w->eventfd, err) < 0
      || add_epoll (w->epfd, w->inotify, err) < 0
      || add_epoll (w->epfd, w->timer, err) < 0)
    return -1;
  return counters (w, &w->oom_kills, &w->pids_max, err);
}

struct cgroup_watch *
cgroup_watch_open (struct cgroup *cg, agentrt_error_t *err)
{
  struct cgroup_watch *w = xzalloc (sizeof *w);

  w->epfd = w->eventfd = w->inotify = w->timer = -1;
  if (setup (w, cg, err) < 0)
    {
      cgroup_watch_free (w);
      return NULL;
    }
  return w;
}

int
cgroup_watch_fd (const struct cgroup_watch *w)
{
  return w->epfd;
}

int
cgroup_watch_read (struct cgroup_watch *w, struct cgroup_watch_counts *c,
                   agentrt_error_t *err)
{
  uint64_t fired = 0, ticks, oom, max;
  char buf[4096];

  memset (c, 0, sizeof *c);
  if (w->eventfd >= 0 && read (w->eventfd, &fired, sizeof fired) < 0)
    fired = 0;
  while (w->inotify >= 0 && read (w->inotify, buf, sizeof buf) > 0)
    ;
  if (w->timer >= 0 && read (w->timer, &ticks, sizeof ticks) < 0)
    ticks = 0;
  if (counters (w, &oom, &max, err) < 0)
    return -1;
  /* Old v1 kernels only say "an OOM happened": count those. */
  c->oom_kills = !w->oom_counter ? fired : oom >= w->oom_kills ? oom - w->oom_kills : oom;
  c->pids_max = max >= w->pids_max ? max - w->pids_max : max;
  w->oom_kills = oom;
  w->pids_max = max;
  return c->oom_kills || c->pids_max;
}

void
cgroup_watch_free (struct cgroup_watch *w)
{
  if (w == NULL)
    return;
  if (w->epfd >= 0)
    close (w->epfd);
  if (w->eventfd >= 0)
    close (w->eventfd);
  if (w->inotify >= 0)
    close (w->inotify);
  if (w->timer >= 0)
    close (w->timer);
  free (w);
}
