/* Declarations shared by the runtime/cgroup*.c files (not part of the API in
 * cgroup.h): the layout and handle structures, controller routing, the
 * small file helpers every resource writer uses, and the entry points of
 * each file.  Unit tests include it to drive the pieces directly. */
#ifndef AGENTRT_RUNTIME_CGROUP_INTERNAL_H
#define AGENTRT_RUNTIME_CGROUP_INTERNAL_H

#include <stdarg.h>

#include "runtime/cgroup/cgroup.h"

/* Controllers agentrt configures or reads.  On v2, CG_CPUACCT is the cpu
 * controller's cpu.stat and CG_BLKIO is "io"; CG_DEVICES and CG_FREEZER are
 * core v2 features available in every cgroup2 directory. */
enum cg_ctrl
{
  CG_CPU,
  CG_CPUACCT,
  CG_CPUSET,
  CG_MEMORY,
  CG_DEVICES,
  CG_FREEZER,
  CG_BLKIO,
  CG_PIDS,
  CG_HUGETLB,
  CG_NET_CLS,  /* v1 only */
  CG_NET_PRIO, /* v1 only */
  CG_RDMA,
  CG_NCTRL
};

/* Name of the controller in v1 mount options or v2 cgroup.controllers. */
const char *cg_ctrl_name (enum cg_ctrl ctrl, bool v2);

/* One mounted hierarchy. */
struct cg_hier
{
  char *dir;         /* below /sys/fs/cgroup: "cpu,cpuacct", "unified", "" */
  char *mount_point; /* where it is on this machine (cgroup_root applied) */
  char *data;        /* v1 mount data: "cpu,cpuacct", "none,name=systemd" */
  char *own;         /* this process's cgroup in it, "/" when unknown */
  bool v2;
  unsigned ctrls;    /* bit (1 << CG_*) for each controller it carries */
};

struct cgroup_layout
{
  enum cgroup_mode mode;
  struct cg_hier *h;
  size_t n;
  int unified;         /* index of the cgroup2 hierarchy, -1 when none */
  int route[CG_NCTRL]; /* hierarchy carrying each controller, -1 when none */
  bool fake;           /* parsed with a cgroup_root (tests) */
};

/* The per-hierarchy view of one container cgroup. */
struct cg_dir
{
  int fd;     /* O_RDONLY|O_DIRECTORY, -1 until opened */
  char *path; /* mount_point + cgroup path */
  bool v2;
};

struct cgroup
{
  const struct cgroup_layout *layout;
  char *path;         /* "/docker/ID", relative to each hierarchy's root */
  char *systemd_unit; /* "libpod-ID.scope", NULL without systemd */
  bool owned;
  struct cg_dir *dirs; /* one per layout hierarchy */
};

/* ---- cgroup_layout.c ---- */
/* CG_* for a controller name of `len` bytes, -1 when unknown. */
int cg_ctrl_from_name (const char *name, size_t len, bool v2);
/* Bitmask of a v2 controller list ("cpu io memory"); cpu implies cpuacct. */
unsigned cg_parse_v2_ctrls (const char *text);
/* A process's cgroup in hierarchy h from /proc/PID/cgroup text (malloc'd),
 * NULL when not listed. */
char *cg_proc_cgroup_path (const struct cg_hier *h, const char *proc_cgroup);
/* The directory of hierarchy `h` that holds `path` (malloc'd). */
char *cg_hier_path (const struct cg_hier *h, const char *path);

/* ---- cgroup_path.c ---- */
struct cg_target
{
  char *path;  /* "/machine.slice/libpod-ID.scope" */
  char *unit;  /* systemd only: "libpod-ID.scope" */
  char *slice; /* systemd only: "machine.slice" */
};
int cg_resolve (const struct cgroup_layout *layout, const char *id,
                const char *cgroups_path, bool systemd, struct cg_target *t,
                agentrt_error_t *err);
void cg_target_release (struct cg_target *t);
/* "a-b.slice" -> "/a.slice/a-b.slice"; "-.slice" -> "". */
int cg_slice_path (const char *slice, char **out, agentrt_error_t *err);
/* Lexically cleans an absolute or relative path ("a/../b" -> "b"). */
char *cg_clean_path (const char *path);

/* ---- cgroup_fs.c: file access relative to a container directory ---- */
struct cgroup *cg_new (const struct cgroup_layout *layout, const char *path,
                       const char *unit, bool owned);
/* The directory of hierarchy i (opened on first use); NULL with err set. */
struct cg_dir *cg_dir (struct cgroup *cg, size_t i, agentrt_error_t *err);
/* The directory carrying ctrl, or NULL: without err set when the
 * controller is not mounted, with err set when opening failed. */
struct cg_dir *cg_ctrl_dir (struct cgroup *cg, enum cg_ctrl ctrl,
                            agentrt_error_t *err);
int cg_write (struct cg_dir *d, const char *file, const char *value,
              agentrt_error_t *err);
int cg_writef (struct cg_dir *d, const char *file, agentrt_error_t *err,
               const char *fmt, ...) __attribute__ ((format (printf, 4, 5)));
/* For files taking one line per write (io.max, devices.allow). */
int cg_open_write (struct cg_dir *d, const char *file, agentrt_error_t *err);
int cg_write_fd (struct cg_dir *d, int fd, const char *file,
                 const char *value, agentrt_error_t *err);
/* Reads a whole file (NUL-terminated, malloc'd). */
int cg_read (struct cg_dir *d, const char *file, char **out,
             agentrt_error_t *err);
/* Reads a small file into buf (NUL-terminated, trailing newline kept). */
ssize_t cg_read_buf (struct cg_dir *d, const char *file, char *buf,
                     size_t size, agentrt_error_t *err);
int cg_read_u64 (struct cg_dir *d, const char *file, uint64_t *value,
                 agentrt_error_t *err);
bool cg_has_file (struct cg_dir *d, const char *file);
/* Finds "key value" in a flat keyed file's text; false when absent. */
bool cg_kv_find (const char *text, const char *key, uint64_t *value);
/* Removes dir and its sub-cgroups, retrying EBUSY; ENOENT is success. */
int cg_rmdir_tree (const char *path, agentrt_error_t *err);

/* ---- cgroup_resources.c / cgroup_resources_io.c ---- */
struct cg_apply
{
  struct cgroup *cg;
  struct str_list *warnings; /* may be NULL */
  bool update;               /* cgroup_update (checkBeforeUpdate, ...) */
};
void cg_warn (struct cg_apply *a, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));
int cg_apply_resources (struct cg_apply *a, const struct oci_resources *r,
                        agentrt_error_t *err);
int cg_apply_memory (struct cg_apply *a, const struct oci_memory *m,
                     agentrt_error_t *err);
int cg_apply_cpu (struct cg_apply *a, const struct oci_cpu *c,
                  agentrt_error_t *err);
int cg_apply_blkio (struct cg_apply *a, const struct oci_blkio *b,
                    agentrt_error_t *err);
int cg_apply_hugetlb (struct cg_apply *a, const struct oci_resources *r,
                      agentrt_error_t *err);
int cg_apply_unified (struct cg_apply *a, const struct kv_list *unified,
                      agentrt_error_t *err);
int cg_apply_network (struct cg_apply *a, const struct oci_network *n,
                      agentrt_error_t *err);
int cg_apply_rdma (struct cg_apply *a, const struct oci_resources *r,
                   agentrt_error_t *err);
/* Shares (2..262144) to cpu.weight (1..10000), as runc and crun do. */
uint64_t cg_shares_to_weight (uint64_t shares);
/* blkio weight (10..1000) to io.weight (1..10000). */
uint64_t cg_blkio_to_io_weight (uint64_t weight);

/* ---- cgroup_devices.c ---- */
struct bpf_dev_policy;
/* The effective device policy of a request (see bpf_devices.h). */
int cg_device_policy (const struct oci_resources *r,
                      const struct oci_device *devices, size_t n_devices,
                      struct bpf_dev_policy *policy, agentrt_error_t *err);
int cg_apply_devices (struct cgroup *cg, const struct oci_resources *r,
                      const struct oci_device *devices, size_t n_devices,
                      bool replace, agentrt_error_t *err);

/* Controllers (1 << CG_*) the resources need. */
unsigned cg_resources_needed (const struct oci_resources *r);

/* ---- cgroup_create.c ---- */
/* Creates the path in every hierarchy (v1 cpusets initialised from the
 * parent, v2 controllers enabled in the ancestors); created[i] is the depth
 * of the first directory created in hierarchy i, -1 when none was. */
int cg_create_dirs (struct cgroup *cg, unsigned needed, int *created,
                    agentrt_error_t *err);
void cg_remove_created (struct cgroup *cg, const int *created);

/* ---- cgroup_systemd.c ---- */
int cg_systemd_start (struct cgroup *cg, const struct cg_target *t,
                      const struct cgroup_request *req, agentrt_error_t *err);
int cg_systemd_set (struct cgroup *cg, const struct oci_resources *r,
                    agentrt_error_t *err);
int cg_systemd_stop (const char *unit, agentrt_error_t *err);
/* Tests: talk to a fake systemd on this socket (NULL: the real one). */
void cg_systemd_set_socket (const char *path);
/* The socket the scopes are asked on. */
const char *cg_systemd_socket (void);
/* The cgroup of the user's systemd (".../user@UID.service") that holds
 * the cgroup `own`, or NULL (malloc'd; pure). */
char *cg_user_manager_root (const char *own);

#endif
