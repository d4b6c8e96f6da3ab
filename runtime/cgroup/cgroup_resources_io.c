/* linux.resources.blockIO (v1 blkio.*, v2 io.*), hugepageLimits (v1
 * hugetlb.<size>.limit_in_bytes, v2 hugetlb.<size>.max, also on the
 * cgroup2 mount of a hybrid host), network (v1 net_cls/net_prio), rdma
 * (rdma.max) and unified (v2 files by name). */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "runtime/cgroup/cgroup_internal.h"

uint64_t
cg_blkio_to_io_weight (uint64_t weight)
{
  if (weight == 0)
    return 0;
  if (weight < 10)
    weight = 10;
  return 1 + (weight - 10) * 9999 / 990;
}

/* Writes one "MAJ:MIN <value>" line per device; the file stays open. */
struct lines
{
  struct cg_dir *d;
  const char *file;
  int fd;
};

static int
put_line (struct lines *l, const char *field, const char *line,
          agentrt_error_t *err)
{
  if (l->fd < 0)
    {
      l->fd = cg_open_write (l->d, l->file, err);
      if (l->fd < 0)
        return agentrt_error_wrap (err, "%s", field);
    }
  /* One line per write(2), as the kernel parses these files. */
  if (cg_write_fd (l->d, l->fd, l->file, line, err) < 0)
    return agentrt_error_wrap (err, "%s", field);
  return 0;
}

static void
lines_close (struct lines *l)
{
  if (l->fd >= 0)
    close (l->fd);
  l->fd = -1;
}

/* One throttle list: v1 has a file per kind, v2 one io.max (shared by the
 * caller's `out`) with a key per kind. */
static int
throttle (struct lines *out, const char *name,
          const struct oci_blkio_throttle_list *list, agentrt_error_t *err)
{
  static const struct
  {
    const char *oci, *v1, *v2;
  } kinds[] = {
    { "throttleReadBpsDevice", "blkio.throttle.read_bps_device", "rbps" },
    { "throttleWriteBpsDevice", "blkio.throttle.write_bps_device", "wbps" },
    { "throttleReadIOPSDevice", "blkio.throttle.read_iops_device", "riops" },
    { "throttleWriteIOPSDevice", "blkio.throttle.write_iops_device", "wiops" },
  };
  struct cg_dir *d = out->d;
  struct lines v1 = { .d = d, .fd = -1 };
  struct lines *l = d->v2 ? out : &v1;
  size_t k = 0;
  int ret = 0;

  while (strcmp (kinds[k].oci, name) != 0)
    k++;
  v1.file = kinds[k].v1;
  for (size_t i = 0; ret == 0 && i < list->len; i++)
    {
      const struct oci_blkio_throttle_device *t = &list->items[i];
      char line[96], field[96];

      if (d->v2 && t->rate == 0)
        snprintf (line, sizeof line, "%" PRId64 ":%" PRId64 " %s=max\n",
                  t->major, t->minor, kinds[k].v2);
      else if (d->v2)
        snprintf (line, sizeof line, "%" PRId64 ":%" PRId64 " %s=%" PRIu64 "\n",
                  t->major, t->minor, kinds[k].v2, t->rate);
      else
        snprintf (line, sizeof line, "%" PRId64 ":%" PRId64 " %" PRIu64 "\n",
                  t->major, t->minor, t->rate);
      snprintf (field, sizeof field, "linux.resources.blockIO.%s[%zu]", name, i);
      ret = put_line (l, field, line, err);
    }
  lines_close (&v1);
  return ret;
}

static int
weight_devices (struct cg_apply *a, struct cg_dir *d, const struct oci_blkio *b,
                bool bfq, agentrt_error_t *err)
{
  const char *file = d->v2 ? (bfq ? "io.bfq.weight" : "io.weight")
                           : (bfq ? "blkio.bfq.weight_device" : "blkio.weight_device");
  struct lines w = { .d = d, .file = file, .fd = -1 };
  struct lines lw = { .d = d, .file = "blkio.leaf_weight_device", .fd = -1 };
  int ret = 0;

  for (size_t i = 0; ret == 0 && i < b->n_weight_devices; i++)
    {
      const struct oci_blkio_weight_device *wd = &b->weight_devices[i];
      char line[64], field[80];
      uint64_t v = wd->weight;

      snprintf (field, sizeof field, "linux.resources.blockIO.weightDevice[%zu]", i);
      if (wd->has_weight)
        {
          if (d->v2 && !bfq)
            v = cg_blkio_to_io_weight (v);
          snprintf (line, sizeof line, "%" PRId64 ":%" PRId64 " %" PRIu64 "\n",
                    wd->major, wd->minor, v);
          ret = put_line (&w, field, line, err);
        }
      if (ret == 0 && wd->has_leaf_weight && d->v2)
        cg_warn (a, "%s.leafWeight is ignored on cgroup v2", field);
      else if (ret == 0 && wd->has_leaf_weight)
        {
          snprintf (line, sizeof line, "%" PRId64 ":%" PRId64 " %u\n",
                    wd->major, wd->minor, wd->leaf_weight);
          ret = put_line (&lw, field, line, err);
        }
    }
  lines_close (&w);
  lines_close (&lw);
  return ret;
}

static int
set_weight (struct cg_apply *a, struct cg_dir *d, const struct oci_blkio *b,
            bool bfq, agentrt_error_t *err)
{
  char buf[32];
  const char *file;
  uint64_t v = b->weight;

  if (b->has_weight && b->weight != 0)
    {
      if (d->v2)
        file = bfq ? "io.bfq.weight" : "io.weight";
      else
        file = bfq ? "blkio.bfq.weight" : "blkio.weight";
      if (d->v2 && !bfq)
        v = cg_blkio_to_io_weight (v);
      snprintf (buf, sizeof buf, "%" PRIu64, v);
      if (cg_write (d, file, buf, err) < 0)
        return agentrt_error_wrap (err, "linux.resources.blockIO.weight");
    }
  if (b->has_leaf_weight && d->v2)
    cg_warn (a, "linux.resources.blockIO.leafWeight is ignored on cgroup v2");
  else if (b->has_leaf_weight)
    {
      snprintf (buf, sizeof buf, "%u", b->leaf_weight);
      if (cg_write (d, "blkio.leaf_weight", buf, err) < 0)
        return agentrt_error_wrap (err, "linux.resources.blockIO.leafWeight");
    }
  return 0;
}

int
cg_apply_blkio (struct cg_apply *a, const struct oci_blkio *b,
                agentrt_error_t *err)
{
  struct cg_dir *d = cg_ctrl_dir (a->cg, CG_BLKIO, err);
  struct lines io_max;
  bool bfq;
  int ret;

  if (d == NULL && err && *err)
    return agentrt_error_wrap (err, "linux.resources.blockIO");
  if (d == NULL)
    return agentrt_error (err, 0, "linux.resources.blockIO: the %s cgroup "
                                  "controller is not available",
                          a->cg->layout->mode == CGROUP_MODE_V2 ? "io" : "blkio");
  /* Without CFQ (gone since Linux 5.0) weights live in BFQ's files. */
  bfq = d->v2 ? cg_has_file (d, "io.bfq.weight")
              : !cg_has_file (d, "blkio.weight") && cg_has_file (d, "blkio.bfq.weight");
  io_max = (struct lines){ .d = d, .file = "io.max", .fd = -1 };
  ret = set_weight (a, d, b, bfq, err) < 0 || weight_devices (a, d, b, bfq, err) < 0
                || throttle (&io_max, "throttleReadBpsDevice",
                             &b->throttle_read_bps, err) < 0
                || throttle (&io_max, "throttleWriteBpsDevice",
                             &b->throttle_write_bps, err) < 0
                || throttle (&io_max, "throttleReadIOPSDevice",
                             &b->throttle_read_iops, err) < 0
                || throttle (&io_max, "throttleWriteIOPSDevice",
                             &b->throttle_write_iops, err) < 0
            ? -1
            : 0;
  lines_close (&io_max);
  return ret;
}

/* "2MB", "1GB", "64KB": digits then KB, MB or GB (the kernel's names). */
static bool
valid_page_size (const char *s)
{
  size_t digits = strspn (s, "0123456789");
  return digits > 0 && digits < 8 && s[0] != '0'
         && (strcmp (s + digits, "KB") == 0 || strcmp (s + digits, "MB") == 0
             || strcmp (s + digits, "GB") == 0);
}

int
cg_apply_hugetlb (struct cg_apply *a, const struct oci_resources *r,
                  agentrt_error_t *err)
{
  struct cg_dir *d = cg_ctrl_dir (a->cg, CG_HUGETLB, err);

  if (d == NULL && err && *err)
    return agentrt_error_wrap (err, "linux.resources.hugepageLimits");
  if (d == NULL)
    return agentrt_error (err, 0, "linux.resources.hugepageLimits: the hugetlb "
                                  "cgroup controller is not available");
  for (size_t i = 0; i < r->n_hugepage_limits; i++)
    {
      const struct oci_hugepage_limit *h = &r->hugepage_limits[i];
      char file[64], rsvd[64], value[32], field[64];

      snprintf (field, sizeof field, "linux.resources.hugepageLimits[%zu]", i);
      if (!valid_page_size (h->page_size))
        return agentrt_error (err, 0, "%s.pageSize: invalid page size `%s`",
                              field, h->page_size);
      snprintf (file, sizeof file, "hugetlb.%s.%s", h->page_size,
                d->v2 ? "max" : "limit_in_bytes");
      snprintf (rsvd, sizeof rsvd, "hugetlb.%s.rsvd.%s", h->page_size,
                d->v2 ? "max" : "limit_in_bytes");
      snprintf (value, sizeof value, "%" PRIu64, h->limit);
      if (!cg_has_file (d, file))
        return agentrt_error (err, 0,
                              "%s: page size `%s` is not supported here (no "
                              "`%s/%s`)",
                              field, h->page_size, d->path, file);
      if (cg_write (d, file, value, err) < 0)
        return agentrt_error_wrap (err, "%s", field);
      /* Also cap reservations where the kernel accounts them. */
      if (cg_has_file (d, rsvd) && cg_write (d, rsvd, value, err) < 0)
        return agentrt_error_wrap (err, "%s", field);
    }
  return 0;
}

/* The directory for ctrl or an error naming the field. */
static struct cg_dir *
dir_for (struct cg_apply *a, enum cg_ctrl ctrl, const char *field,
         agentrt_error_t *err)
{
  struct cg_dir *d = cg_ctrl_dir (a->cg, ctrl, err);

  if (d == NULL && err && *err)
    agentrt_error_wrap (err, "%s", field);
  else if (d == NULL)
    agentrt_error (err, 0, "%s: the %s cgroup controller is not available%s",
                   field, cg_ctrl_name (ctrl, false),
                   ctrl == CG_NET_CLS || ctrl == CG_NET_PRIO
                       ? " (it exists only in cgroup v1)"
                       : "");
  return d;
}

int
cg_apply_network (struct cg_apply *a, const struct oci_network *n,
                  agentrt_error_t *err)
{
  struct cg_dir *d;
  char buf[32];

  if (n->has_class_id)
    {
      d = dir_for (a, CG_NET_CLS, "linux.resources.network.classID", err);
      if (d == NULL)
        return -1;
      snprintf (buf, sizeof buf, "%" PRIu32, n->class_id);
      if (cg_write (d, "net_cls.classid", buf, err) < 0)
        return agentrt_error_wrap (err, "linux.resources.network.classID");
    }
  if (n->n_priorities)
    {
      struct lines l = { .file = "net_prio.ifpriomap", .fd = -1 };
      int ret = 0;

      l.d = dir_for (a, CG_NET_PRIO, "linux.resources.network.priorities", err);
      if (l.d == NULL)
        return -1;
      for (size_t i = 0; ret == 0 && i < n->n_priorities; i++)
        {
          char line[64], field[64];
          snprintf (line, sizeof line, "%s %" PRIu32 "\n",
                    n->priorities[i].name, n->priorities[i].priority);
          snprintf (field, sizeof field,
                    "linux.resources.network.priorities[%zu]", i);
          ret = put_line (&l, field, line, err);
        }
      lines_close (&l);
      return ret;
    }
  return 0;
}

int
cg_apply_rdma (struct cg_apply *a, const struct oci_resources *r,
               agentrt_error_t *err)
{
  struct lines l = { .file = "rdma.max", .fd = -1 };
  int ret = 0;

  l.d = dir_for (a, CG_RDMA, "linux.resources.rdma", err);
  if (l.d == NULL)
    return -1;
  for (size_t i = 0; ret == 0 && i < r->n_rdma; i++)
    {
      const struct oci_rdma *x = &r->rdma[i];
      char line[160], handles[32] = "", objects[32] = "", field[64];

      if (!x->has_hca_handles && !x->has_hca_objects)
        continue;
      if (strpbrk (x->device, " \n") || x->device[0] == '\0')
        return agentrt_error (err, 0, "linux.resources.rdma: invalid device "
                                      "name `%s`", x->device);
      if (x->has_hca_handles)
        snprintf (handles, sizeof handles, " hca_handle=%" PRIu32, x->hca_handles);
      if (x->has_hca_objects)
        snprintf (objects, sizeof objects, " hca_object=%" PRIu32, x->hca_objects);
      snprintf (line, sizeof line, "%.64s%s%s\n", x->device, handles, objects);
      snprintf (field, sizeof field, "linux.resources.rdma.%.32s", x->device);
      ret = put_line (&l, field, line, err);
    }
  lines_close (&l);
  return ret;
}

static const char *
bad_unified_key (const char *k)
{
  if (*k == '\0' || strchr (k, '/') || strstr (k, "..") || k[0] == '.'
      || strchr (k, '.') == NULL)
    return "not a cgroup file name";
  if (strcmp (k, "cgroup.procs") == 0 || strcmp (k, "cgroup.threads") == 0
      || strcmp (k, "cgroup.kill") == 0 || strcmp (k, "cgroup.freeze") == 0)
    return "managed by the runtime";
  return NULL;
}

int
cg_apply_unified (struct cg_apply *a, const struct kv_list *unified,
                  agentrt_error_t *err)
{
  const struct cgroup_layout *l = a->cg->layout;
  struct cg_dir *d;

  if (unified->len == 0)
    return 0;
  if (l->unified < 0)
    return agentrt_error (err, 0, "linux.resources.unified: needs cgroup v2 "
                                  "(this host has only v1 hierarchies)");
  for (size_t i = 0; i < unified->len; i++)
    {
      const char *why = bad_unified_key (unified->items[i].key);
      if (why)
        return agentrt_error (err, 0, "linux.resources.unified: key `%s`: %s",
                              unified->items[i].key, why);
    }
  d = cg_dir (a->cg, (size_t) l->unified, err);
  if (d == NULL)
    return agentrt_error_wrap (err, "linux.resources.unified");
  for (size_t i = 0; i < unified->len; i++)
    {
      const struct kv *kv = &unified->items[i];
      if (cg_write (d, kv->key, kv->value, err) < 0)
        {
          if ((*err)->status == ENOENT)
            return agentrt_error (err, ENOENT,
                                  "linux.resources.unified.%s: the controller "
                                  "is not enabled or the kernel lacks `%s/%s`",
                                  kv->key, d->path, kv->key);
          return agentrt_error_wrap (err, "linux.resources.unified.%s", kv->key);
        }
    }
  return 0;
}
