/* Facts about the host for the real host view (see host_facts.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>

#include "common/cleanup.h"
#include "common/mountinfo.h"
#include "common/real_path.h"
#include "common/xalloc.h"
#include "host_facts.h"
#include "paths.h"

#ifndef CONFIGFS_MAGIC
#define CONFIGFS_MAGIC 0x62656570
#endif
#ifndef FUSECTL_SUPER_MAGIC
#define FUSECTL_SUPER_MAGIC 0x65735543
#endif
#ifndef MQUEUE_MAGIC
#define MQUEUE_MAGIC 0x19800202
#endif

/* Filesystems through which a process with a root uid can change the
 * host's kernel or reach other processes and devices: never bound into a
 * container.  By statfs magic, and by the fstype name of mountinfo. */
static const struct
{
  unsigned long magic;
  const char *name;
} special_fs[] = {
  { PROC_SUPER_MAGIC, "proc" },       { SYSFS_MAGIC, "sysfs" },
  { CGROUP_SUPER_MAGIC, "cgroup" },   { CGROUP2_SUPER_MAGIC, "cgroup2" },
  { DEBUGFS_MAGIC, "debugfs" },       { TRACEFS_MAGIC, "tracefs" },
  { SECURITYFS_MAGIC, "securityfs" }, { BPF_FS_MAGIC, "bpf" },
  { CONFIGFS_MAGIC, "configfs" },     { EFIVARFS_MAGIC, "efivarfs" },
  { PSTOREFS_MAGIC, "pstore" },       { FUSECTL_SUPER_MAGIC, "fusectl" },
  { BINFMTFS_MAGIC, "binfmt_misc" },  { NSFS_MAGIC, "nsfs" },
  { DEVPTS_SUPER_MAGIC, "devpts" },   { MQUEUE_MAGIC, "mqueue" },
  { SELINUX_MAGIC, "selinuxfs" },     { SMACK_MAGIC, "smackfs" },
};

#define N_ELEMENTS(a) (sizeof (a) / sizeof ((a)[0]))

const char *
host_facts_special_fs (int fd, const struct stat *st)
{
  struct statfs sfs;
  struct stat dev;

  if (fstatfs (fd, &sfs) < 0)
    return NULL;
  for (size_t i = 0; i < N_ELEMENTS (special_fs); i++)
    if ((unsigned long) sfs.f_type == special_fs[i].magic)
      return special_fs[i].name;
  /* devtmpfs has tmpfs's magic; it is the one instance mounted on /dev
   * (every mount of it shares that superblock). */
  if ((unsigned long) sfs.f_type == TMPFS_MAGIC && stat ("/dev", &dev) == 0
      && dev.st_dev == st->st_dev)
    return "devtmpfs";
  return NULL;
}

const char *
host_facts_special_fs_name (const char *fstype)
{
  if (strcmp (fstype, "devtmpfs") == 0)
    return "devtmpfs";
  for (size_t i = 0; i < N_ELEMENTS (special_fs); i++)
    if (strcmp (fstype, special_fs[i].name) == 0)
      return special_fs[i].name;
  return NULL;
}

/* Field 6 of a passwd line when field 3 (the uid) is 0 or an ordinary
 * user's; NULL otherwise.  Edits line. */
static const char *
passwd_home (char *line)
{
  char *field[7];
  char *p = line, *end;
  unsigned long uid;

  for (int i = 0; i < 7; i++)
    {
      field[i] = p;
      p = strchr (p, ':');
      if (p == NULL && i < 6)
        return NULL;
      if (p)
        *p++ = '\0';
    }
  field[6][strcspn (field[6], "\n")] = '\0';
  errno = 0;
  uid = strtoul (field[2], &end, 10);
  if (errno || end == field[2] || *end)
    return NULL;
  if (uid != 0 && (uid < 1000 || uid >= 65534))
    return NULL;
  return field[5];
}

void
host_facts_homes (struct str_list *homes)
{
  cleanup_file FILE *f = fopen ("/etc/passwd", "re");
  cleanup_free char *line = NULL;
  size_t cap = 0;

  if (f == NULL)
    return;
  while (getline (&line, &cap, f) > 0)
    {
      const char *home = passwd_home (line);
      cleanup_free char *real = home && home[0] == '/' ? real_path (home)
                                                       : NULL;
      if (real && strcmp (real, "/") != 0 && !str_list_contains (homes, real))
        str_list_append (homes, real);
    }
}

int
host_facts_submounts (const char *dir, struct host_mount **mounts, size_t *n,
                      agentrt_error_t *err)
{
  cleanup_file FILE *f = fopen ("/proc/self/mountinfo", "re");
  cleanup_free char *line = NULL;
  size_t cap = 0;

  *mounts = NULL;
  *n = 0;
  if (f == NULL)
    return agentrt_error (err, errno, "read /proc/self/mountinfo");
  while (getline (&line, &cap, f) > 0)
    {
      struct mountinfo_line m;
      if (mountinfo_split (line, &m) < 0 || strcmp (m.mount_point, dir) == 0
          || !path_is_under (m.mount_point, dir))
        continue;
      *mounts = xreallocarray (*mounts, *n + 1, sizeof (**mounts));
      (*mounts)[*n].path = xstrdup (m.mount_point);
      (*mounts)[(*n)++].special_fs = host_facts_special_fs_name (m.fstype);
    }
  return 0;
}

static const char *
ns_file (enum oci_namespace_type type)
{
  switch (type)
    {
    case OCI_NS_PID:
      return "pid";
    case OCI_NS_NETWORK:
      return "net";
    case OCI_NS_MOUNT:
      return "mnt";
    case OCI_NS_IPC:
      return "ipc";
    case OCI_NS_UTS:
      return "uts";
    case OCI_NS_USER:
      return "user";
    case OCI_NS_CGROUP:
      return "cgroup";
    case OCI_NS_TIME:
      return "time";
    default:
      return NULL;
    }
}

static bool
same_file (const struct stat *a, const char *path)
{
  struct stat b;
  return stat (path, &b) == 0 && a->st_dev == b.st_dev && a->st_ino == b.st_ino;
}

int
host_facts_ns_is_host (const char *path, enum oci_namespace_type type,
                       bool *is_host, agentrt_error_t *err)
{
  const char *name = ns_file (type);
  char mine[64], init[64];
  struct stat st;

  *is_host = false;
  if (name == NULL)
    return 0;
  if (stat (path, &st) < 0)
    {
      if (errno == ENOENT)
        return 0; /* joining it fails later, naming the path */
      return agentrt_error (err, errno, "inspect namespace `%s`", path);
    }
  snprintf (mine, sizeof mine, "/proc/self/ns/%s", name);
  snprintf (init, sizeof init, "/proc/1/ns/%s", name);
  /* pid 1's namespaces may be out of reach (policy explain without
   * root): this process's own are then what "the host" means */
  *is_host = same_file (&st, mine) || same_file (&st, init);
  return 0;
}
