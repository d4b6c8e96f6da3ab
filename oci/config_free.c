/* Freeing the OCI config model (every free is NULL-safe and copes with the
 * partly filled structs a failed parse leaves), and the deep copies of
 * process and seccomp that the hardening step builds on. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "config_parse.h"

void
str_list_free (struct str_list *list)
{
  for (size_t i = 0; i < list->len; i++)
    free (list->items[i]);
  free (list->items);
  list->items = NULL;
  list->len = 0;
}

void
kv_list_free (struct kv_list *list)
{
  for (size_t i = 0; i < list->len; i++)
    {
      free (list->items[i].key);
      free (list->items[i].value);
    }
  free (list->items);
  list->items = NULL;
  list->len = 0;
}

static void
capabilities_free (struct oci_capabilities *caps)
{
  if (caps == NULL)
    return;
  str_list_free (&caps->bounding);
  str_list_free (&caps->effective);
  str_list_free (&caps->inheritable);
  str_list_free (&caps->permitted);
  str_list_free (&caps->ambient);
  free (caps);
}

void
oci_process_free (struct oci_process *p)
{
  if (p == NULL)
    return;
  free (p->user.additional_gids);
  str_list_free (&p->args);
  str_list_free (&p->env);
  free (p->cwd);
  capabilities_free (p->capabilities);
  for (size_t i = 0; i < p->n_rlimits; i++)
    free (p->rlimits[i].type);
  free (p->rlimits);
  free (p->apparmor_profile);
  free (p->selinux_label);
  if (p->scheduler)
    {
      free (p->scheduler->policy);
      str_list_free (&p->scheduler->flags);
      free (p->scheduler);
    }
  if (p->io_priority)
    free (p->io_priority->klass);
  free (p->io_priority);
  if (p->exec_cpu_affinity)
    {
      free (p->exec_cpu_affinity->initial);
      free (p->exec_cpu_affinity->final);
      free (p->exec_cpu_affinity);
    }
  free (p);
}

void
oci_mount_free (struct oci_mount *m)
{
  free (m->destination);
  free (m->type);
  free (m->source);
  str_list_free (&m->options);
  free (m->uid_mappings);
  free (m->gid_mappings);
}

static void
hook_list_free (struct oci_hook_list *list)
{
  for (size_t i = 0; i < list->len; i++)
    {
      free (list->items[i].path);
      str_list_free (&list->items[i].args);
      str_list_free (&list->items[i].env);
    }
  free (list->items);
}

void
oci_hooks_free (struct oci_hooks *h)
{
  hook_list_free (&h->prestart);
  hook_list_free (&h->create_runtime);
  hook_list_free (&h->create_container);
  hook_list_free (&h->start_container);
  hook_list_free (&h->poststart);
  hook_list_free (&h->poststop);
}

static void
blkio_free (struct oci_blkio *b)
{
  if (b == NULL)
    return;
  free (b->weight_devices);
  free (b->throttle_read_bps.items);
  free (b->throttle_write_bps.items);
  free (b->throttle_read_iops.items);
  free (b->throttle_write_iops.items);
  free (b);
}

void
oci_resources_free (struct oci_resources *r)
{
  if (r == NULL)
    return;
  for (size_t i = 0; i < r->n_devices; i++)
    free (r->devices[i].access);
  free (r->devices);
  free (r->memory);
  if (r->cpu)
    {
      free (r->cpu->cpus);
      free (r->cpu->mems);
      free (r->cpu);
    }
  free (r->pids);
  blkio_free (r->blkio);
  for (size_t i = 0; i < r->n_hugepage_limits; i++)
    free (r->hugepage_limits[i].page_size);
  free (r->hugepage_limits);
  kv_list_free (&r->unified);
  if (r->network)
    {
      for (size_t i = 0; i < r->network->n_priorities; i++)
        free (r->network->priorities[i].name);
      free (r->network->priorities);
      free (r->network);
    }
  for (size_t i = 0; i < r->n_rdma; i++)
    free (r->rdma[i].device);
  free (r->rdma);
  free (r);
}

void
oci_seccomp_free (struct oci_seccomp *s)
{
  if (s == NULL)
    return;
  str_list_free (&s->architectures);
  str_list_free (&s->flags);
  free (s->listener_path);
  free (s->listener_metadata);
  for (size_t i = 0; i < s->n_syscalls; i++)
    {
      str_list_free (&s->syscalls[i].names);
      free (s->syscalls[i].args);
    }
  free (s->syscalls);
  free (s);
}

static void
linux_extensions_free (struct oci_linux *l)
{
  for (size_t i = 0; i < l->n_net_devices; i++)
    {
      free (l->net_devices[i].host_name);
      free (l->net_devices[i].name);
    }
  free (l->net_devices);
  if (l->intel_rdt)
    {
      free (l->intel_rdt->clos_id);
      free (l->intel_rdt->l3_cache_schema);
      free (l->intel_rdt->mem_bw_schema);
      str_list_free (&l->intel_rdt->schemata);
      free (l->intel_rdt);
    }
  if (l->memory_policy)
    {
      free (l->memory_policy->mode);
      free (l->memory_policy->nodes);
      str_list_free (&l->memory_policy->flags);
      free (l->memory_policy);
    }
  if (l->personality)
    {
      free (l->personality->domain);
      str_list_free (&l->personality->flags);
      free (l->personality);
    }
}

void
oci_linux_free (struct oci_linux *l)
{
  if (l == NULL)
    return;
  for (size_t i = 0; i < l->n_namespaces; i++)
    free (l->namespaces[i].path);
  free (l->namespaces);
  free (l->uid_mappings);
  free (l->gid_mappings);
  for (size_t i = 0; i < l->n_devices; i++)
    free (l->devices[i].path);
  free (l->devices);
  free (l->cgroups_path);
  oci_resources_free (l->resources);
  kv_list_free (&l->sysctl);
  oci_seccomp_free (l->seccomp);
  free (l->rootfs_propagation);
  str_list_free (&l->masked_paths);
  str_list_free (&l->readonly_paths);
  free (l->mount_label);
  linux_extensions_free (l);
  free (l);
}

void
oci_config_free (struct oci_config *c)
{
  if (c == NULL)
    return;
  free (c->oci_version);
  free (c->root.path);
  oci_process_free (c->process);
  free (c->hostname);
  free (c->domainname);
  for (size_t i = 0; i < c->n_mounts; i++)
    oci_mount_free (&c->mounts[i]);
  free (c->mounts);
  oci_hooks_free (&c->hooks);
  kv_list_free (&c->annotations);
  oci_linux_free (c->linux_cfg);
  free (c);
}

static void *
memdup (const void *p, size_t n, size_t size)
{
  void *copy;
  if (p == NULL || n == 0)
    return NULL;
  copy = xreallocarray (NULL, n, size);
  memcpy (copy, p, n * size);
  return copy;
}

static struct str_list
str_list_dup (const struct str_list *list)
{
  struct str_list copy = { NULL, list->len };
  if (list->items == NULL)
    return copy;
  copy.items = xzalloc ((list->len + 1) * sizeof (char *));
  for (size_t i = 0; i < list->len; i++)
    copy.items[i] = xstrdup (list->items[i]);
  return copy;
}

/* The parts of a process that are pointers, copied into `copy` (a shallow
 * copy of `p` on entry). */
static void
process_dup_pointers (const struct oci_process *p, struct oci_process *copy)
{
  if (p->capabilities)
    {
      copy->capabilities = xzalloc (sizeof (*copy->capabilities));
      copy->capabilities->bounding = str_list_dup (&p->capabilities->bounding);
      copy->capabilities->effective = str_list_dup (&p->capabilities->effective);
      copy->capabilities->inheritable = str_list_dup (&p->capabilities->inheritable);
      copy->capabilities->permitted = str_list_dup (&p->capabilities->permitted);
      copy->capabilities->ambient = str_list_dup (&p->capabilities->ambient);
    }
  if (p->scheduler)
    {
      copy->scheduler = memdup (p->scheduler, 1, sizeof (*p->scheduler));
      copy->scheduler->policy = xstrdup (p->scheduler->policy);
      copy->scheduler->flags = str_list_dup (&p->scheduler->flags);
    }
  if (p->io_priority)
    {
      copy->io_priority = memdup (p->io_priority, 1, sizeof (*p->io_priority));
      copy->io_priority->klass = xstrdup (p->io_priority->klass);
    }
  if (p->exec_cpu_affinity)
    {
      copy->exec_cpu_affinity = xzalloc (sizeof (*copy->exec_cpu_affinity));
      copy->exec_cpu_affinity->initial = xstrdup (p->exec_cpu_affinity->initial);
      copy->exec_cpu_affinity->final = xstrdup (p->exec_cpu_affinity->final);
    }
}

struct oci_process *
oci_process_dup (const struct oci_process *p)
{
  struct oci_process *copy;

  if (p == NULL)
    return NULL;
  copy = memdup (p, 1, sizeof (*p));
  copy->user.additional_gids = memdup (p->user.additional_gids,
                                       p->user.n_additional_gids, sizeof (uint32_t));
  copy->args = str_list_dup (&p->args);
  copy->env = str_list_dup (&p->env);
  copy->cwd = xstrdup (p->cwd);
  copy->rlimits = memdup (p->rlimits, p->n_rlimits, sizeof (*p->rlimits));
  for (size_t i = 0; i < p->n_rlimits; i++)
    copy->rlimits[i].type = xstrdup (p->rlimits[i].type);
  copy->apparmor_profile = xstrdup (p->apparmor_profile);
  copy->selinux_label = xstrdup (p->selinux_label);
  process_dup_pointers (p, copy);
  return copy;
}

struct oci_seccomp *
oci_seccomp_dup (const struct oci_seccomp *s)
{
  struct oci_seccomp *copy;

  if (s == NULL)
    return NULL;
  copy = memdup (s, 1, sizeof (*s));
  copy->architectures = str_list_dup (&s->architectures);
  copy->flags = str_list_dup (&s->flags);
  copy->listener_path = xstrdup (s->listener_path);
  copy->listener_metadata = xstrdup (s->listener_metadata);
  copy->syscalls = memdup (s->syscalls, s->n_syscalls, sizeof (*s->syscalls));
  for (size_t i = 0; i < s->n_syscalls; i++)
    {
      copy->syscalls[i].names = str_list_dup (&s->syscalls[i].names);
      copy->syscalls[i].args = memdup (s->syscalls[i].args, s->syscalls[i].n_args,
                                       sizeof (*s->syscalls[i].args));
    }
  return copy;
}
