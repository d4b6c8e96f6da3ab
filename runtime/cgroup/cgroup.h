/* The cgroup layer: detects the host's cgroup layout (v1, hybrid, v2) once
 * per process, creates the container's cgroup in every hierarchy (directly
 * or through a systemd transient scope), applies linux.resources, and later
 * lists, signals, freezes, updates, measures, watches and removes it.
 * docs/cgroups.md describes the behaviour; this header is the whole API. */
#ifndef AGENTRT_RUNTIME_CGROUP_H
#define AGENTRT_RUNTIME_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"
#include "oci/config.h"

/* ---- Layout ---------------------------------------------------------- */

enum cgroup_mode
{
  CGROUP_MODE_V1,     /* only v1 hierarchies under /sys/fs/cgroup/<name> */
  CGROUP_MODE_HYBRID, /* v1 hierarchies plus cgroup2 at /sys/fs/cgroup/unified */
  CGROUP_MODE_V2,     /* cgroup2 at /sys/fs/cgroup */
};

struct cgroup_layout;

/* The host's layout, read once per process from /proc/self/mountinfo and
 * /proc/self/cgroup and cached (never free it). */
const struct cgroup_layout *cgroup_layout_host (agentrt_error_t *err);

/* Builds a layout from the text of a mountinfo and a /proc/PID/cgroup file.
 * Only cgroup mounts at /sys/fs/cgroup or directly below it count; the
 * directory used for "/sys/fs/cgroup" is `cgroup_root` (NULL: the real
 * one), so tests can point a copied mountinfo at a fake tree. */
struct cgroup_layout *cgroup_layout_parse (const char *mountinfo,
                                           const char *self_cgroup,
                                           const char *cgroup_root,
                                           agentrt_error_t *err);
void cgroup_layout_free (struct cgroup_layout *layout);

enum cgroup_mode cgroup_layout_mode (const struct cgroup_layout *layout);
const char *cgroup_mode_name (enum cgroup_mode mode); /* "v1", "hybrid", "v2" */

/* ---- Creating and reopening a container's cgroup -------------------- */

struct cgroup;

struct cgroup_request
{
  const struct cgroup_layout *layout; /* NULL: cgroup_layout_host () */
  const char *id;                     /* container id */
  const char *cgroups_path;           /* linux.cgroupsPath; NULL when absent */
  const struct oci_resources *resources; /* NULL: no limits */
  /* linux.devices: each is allowed (rwm) in the device rules, after
   * resources.devices and before agentrt's default devices. */
  const struct oci_device *devices;
  size_t n_devices;
  pid_t pid;    /* moved into the cgroup last; 0: create and configure only */
  bool systemd; /* --systemd-cgroup: cgroups_path is "slice:prefix:name" */
  /* A runtime that is not root: no device program (loading one needs
   * privileges; the container's user namespace keeps device nodes out). */
  bool unprivileged;
  /* No cgroup of the container's own (a runtime that is not root, with no
   * delegated subtree): cgroup_enter and cgroup_plan are not called, and
   * cgroup_mounts_plan gives an empty read-only tmpfs. */
  bool none;
};

struct cgroup_result
{
  struct cgroup *cgroup;   /* handle; cgroup_free () */
  struct str_list warnings; /* settings ignored on purpose, one line each */
};

/* Creates (or joins, when it already exists) the container's cgroup in every
 * hierarchy, applies the resources (and the device rules: deny everything
 * not allowed), then moves req->pid in.  On failure nothing it created is
 * left behind and the error names the resource and the file. */
int cgroup_enter (const struct cgroup_request *req,
                  struct cgroup_result *result, agentrt_error_t *err);
void cgroup_result_release (struct cgroup_result *result); /* not ->cgroup */

/* Where cgroup_enter will put the container (its path, and its unit with
 * systemd) without creating anything.  `create` records it in the state
 * before entering, so that a create killed halfway leaves nothing that
 * `delete` cannot find. */
int cgroup_plan (const struct cgroup_request *req, char **path, char **unit,
                 agentrt_error_t *err);

/* `delete` of a container whose create stopped between cgroup_plan and
 * the end of cgroup_enter: removes the planned directory in each hierarchy
 * where it exists and is empty (plain rmdir: never one holding a process
 * or a child cgroup, never a parent) and stops the unit. */
void cgroup_remove_planned (const struct cgroup_layout *layout,
                            const char *path, const char *unit);

/* For a runtime that is not root: 1 when the container's cgroup can be
 * made, in a delegated cgroup v2 subtree this user may write (the
 * directory it is made in, and where it meets the runtime's own cgroup),
 * with *controllers the controllers that subtree offers ("cpu", "memory",
 * "pids"...); else 0 with *why (malloc'd) saying what is missing.
 * req->id may be a placeholder: only the directory above is judged.
 * Nothing is created (runtime/cgroup_delegation.c). */
int cgroup_delegation (const struct cgroup_request *req,
                       struct str_list *controllers, char **why);

/* --systemd-cgroup of a runtime that is not root: scopes are asked of the
 * user's own systemd, on its private socket (`$XDG_RUNTIME_DIR/systemd/
 * private`), which makes them, delegated, below user@UID.service. */
void cgroup_systemd_user_manager (const char *socket);

/* What later commands store in the state and pass back to cgroup_open. */
const char *cgroup_path (const struct cgroup *cg); /* "/docker/ID" */
const char *cgroup_systemd_unit (const struct cgroup *cg); /* NULL without */
bool cgroup_owned (const struct cgroup *cg); /* agentrt created it */

/* Reopens a container's cgroup from its state.  Touches nothing on disk
 * until an operation needs it. */
struct cgroup *cgroup_open (const struct cgroup_layout *layout,
                            const char *path, const char *systemd_unit,
                            bool owned, agentrt_error_t *err);
void cgroup_free (struct cgroup *cg);

/* Whether processes can be cloned straight into a container's cgroup
 * (cgroup_unified_fd): on a pure cgroup v2 host, without systemd (which
 * moves them into its scope itself). */
bool cgroup_clone_into_possible (const struct cgroup_layout *layout,
                                 bool systemd);

/* The container's cgroup2 directory (v2, hybrid), O_RDONLY|O_DIRECTORY,
 * for clone3 (CLONE_INTO_CGROUP) after cgroup_enter with pid 0; an error
 * on pure v1.  Owned by cg. */
int cgroup_unified_fd (struct cgroup *cg, agentrt_error_t *err);

/* Moves a process into the cgroup in every hierarchy (exec, or the init
 * after cgroup_enter with pid 0). */
int cgroup_add_pid (struct cgroup *cg, pid_t pid, agentrt_error_t *err);

/* Removes the cgroup (and any sub-cgroups) when agentrt created it,
 * retrying EBUSY for up to a second while processes die; stops the systemd
 * unit.  A joined pre-existing cgroup is left in place.  Already gone: 0. */
int cgroup_destroy (struct cgroup *cg, agentrt_error_t *err);

/* ---- Processes ------------------------------------------------------ */

/* Host pids of every process in the cgroup and its sub-cgroups, sorted.
 * *pids is malloc'd (NULL when empty). */
int cgroup_pids (struct cgroup *cg, pid_t **pids, size_t *n,
                 agentrt_error_t *err);

/* Sends sig to every process in the cgroup.  SIGKILL uses cgroup.kill where
 * the kernel has it; otherwise the cgroup is frozen, every member signalled
 * through a pidfd, and thawed, and for SIGKILL this repeats until the
 * cgroup is empty (forks cannot escape).  Other signals leave a paused
 * container paused. */
int cgroup_kill_all (struct cgroup *cg, int sig, agentrt_error_t *err);

/* Signals every member once (no freezing, no waiting): each through a
 * pidfd opened while it was listed, and only if it is still listed after.
 * The number of members seen, or -1. */
int cgroup_signal_members (struct cgroup *cg, int sig, agentrt_error_t *err);

/* Pause/resume: v1 freezer.state, v2 cgroup.freeze; they return once the
 * kernel reports the new state. */
int cgroup_freeze (struct cgroup *cg, agentrt_error_t *err);
int cgroup_thaw (struct cgroup *cg, agentrt_error_t *err);
/* 1 when paused (frozen or being frozen), 0 when not, < 0 on error. */
int cgroup_frozen (struct cgroup *cg, agentrt_error_t *err);

/* ---- Resources ------------------------------------------------------ */

/* `agentrt update`: applies the fields present in `resources` (device rules
 * are not changed; that gives a warning). */
int cgroup_update (struct cgroup *cg, const struct oci_resources *resources,
                   struct str_list *warnings, agentrt_error_t *err);

struct cgroup_memory_data
{
  uint64_t usage;
  uint64_t max_usage; /* peak */
  uint64_t limit;     /* UINT64_MAX when unlimited on v2 */
  uint64_t failcnt;
};

struct cgroup_stat_entry
{
  char *key;
  uint64_t value;
};

struct cgroup_blkio_entry
{
  uint64_t major;
  uint64_t minor;
  const char *op; /* "Read", "Write", "Sync", "Async", "Discard", "Total" */
  uint64_t value;
};

struct cgroup_hugetlb_stats
{
  char page_size[32]; /* "2MB" */
  uint64_t usage;
  uint64_t max_usage;
  uint64_t failcnt;
};

/* What runc's `events --stats` reports.  A controller the cgroup does not
 * have leaves its part zero with has_<part> false. */
struct cgroup_stats
{
  bool has_cpu;
  struct
  {
    uint64_t total_ns, user_ns, kernel_ns;
    uint64_t *percpu_ns; /* v1 only */
    size_t n_percpu;
    uint64_t periods, throttled_periods, throttled_time_ns;
  } cpu;
  bool has_memory;
  struct
  {
    uint64_t cache;
    struct cgroup_memory_data usage, swap, kernel, kernel_tcp;
    bool use_hierarchy;
    struct cgroup_stat_entry *stat; /* memory.stat, in file order */
    size_t n_stat;
  } memory;
  bool has_pids;
  struct
  {
    uint64_t current;
    uint64_t limit; /* 0 when unlimited, like runc */
  } pids;
  bool has_blkio;
  struct
  {
    struct cgroup_blkio_entry *service_bytes, *serviced;
    size_t n_service_bytes, n_serviced;
  } blkio;
  struct cgroup_hugetlb_stats *hugetlb;
  size_t n_hugetlb;
};

int cgroup_stats (struct cgroup *cg, struct cgroup_stats *stats,
                  agentrt_error_t *err);
void cgroup_stats_release (struct cgroup_stats *stats);

/* ---- Limit events (for the per-container monitor) ------------------- */

/* One fd (epoll) that polls readable when the OOM killer ran in the cgroup
 * (v1: eventfd on memory.oom_control; v2: inotify on memory.events) or a
 * fork failed on the pids limit (v2: inotify on pids.events; v1 does not
 * notify, so there the fd also polls readable once a second). */
struct cgroup_watch;

struct cgroup_watch_counts
{
  uint64_t oom_kills; /* new since the previous read */
  uint64_t pids_max;
};

/* cg must outlive the watch. */
struct cgroup_watch *cgroup_watch_open (struct cgroup *cg,
                                        agentrt_error_t *err);
int cgroup_watch_fd (const struct cgroup_watch *w);
/* Drains the fd and reports what happened since the previous call;
 * returns 1 when a count is non-zero, 0 when nothing happened. */
int cgroup_watch_read (struct cgroup_watch *w,
                       struct cgroup_watch_counts *counts,
                       agentrt_error_t *err);
void cgroup_watch_free (struct cgroup_watch *w);

/* ---- Mounting cgroups inside the container -------------------------- */

/* Computed in the parent before the container's init is cloned (it needs
 * only the request, not the cgroup), read by the init without allocating.
 * v1/hybrid: mount a tmpfs on /sys/fs/cgroup, then each entry on
 * /sys/fs/cgroup/<dir> (with a cgroup namespace: a fresh mount of <fstype>
 * with <data>; without: a bind mount of host_path), then the links.
 * v2: one entry with dir "" (the cgroup2 mount itself). */
struct cgroup_mount
{
  const char *dir;       /* "cpu,cpuacct", "systemd", "unified", "" */
  const char *fstype;    /* "cgroup" or "cgroup2" */
  const char *data;      /* "cpu,cpuacct", "none,name=systemd", NULL (v2) */
  const char *host_path; /* the container's cgroup dir on the host */
  const char *const *links; /* NULL-terminated: "cpu", "cpuacct" -> dir */
};

struct cgroup_mounts
{
  struct cgroup_mount *items;
  size_t len;
  bool tmpfs; /* v1 and hybrid: /sys/fs/cgroup is a tmpfs of hierarchies */
};

/* Same path rules as cgroup_enter; nothing on disk is touched. */
struct cgroup_mounts *cgroup_mounts_plan (const struct cgroup_request *req,
                                          agentrt_error_t *err);
void cgroup_mounts_free (struct cgroup_mounts *mounts);

#endif
