/* Serialising struct oci_config back to config.json: runtime-spec field
 * names in the order of the spec's Go structs (so `agentrt spec` reads like
 * `runc spec`), optional fields only when set.  A struct that could not be
 * parsed back (a required string missing, an enum out of range) is refused
 * rather than written.  The linux section is in config_write_linux.c. */
#include <config.h>

#include <stdlib.h>

#include "common/xalloc.h"
#include "config_parse.h"
#include "config_write.h"

void
write_missing (struct config_writer *cw, const char *what)
{
  if (cw->missing == NULL)
    cw->missing = what;
}

void
write_required_string (struct config_writer *cw, const char *key, const char *s)
{
  if (s == NULL)
    write_missing (cw, key);
  json_kv_string (cw->w, key, s ? s : "");
}

void
write_string (struct config_writer *cw, const char *key, const char *s)
{
  if (s)
    json_kv_string (cw->w, key, s);
}

void
write_str_list (struct config_writer *cw, const char *key,
                const struct str_list *list)
{
  if (list->len == 0)
    return;
  json_key (cw->w, key);
  json_begin_array (cw->w);
  for (size_t i = 0; i < list->len; i++)
    json_string (cw->w, list->items[i]);
  json_end_array (cw->w);
}

void
write_kv_list (struct config_writer *cw, const char *key,
               const struct kv_list *list)
{
  if (list->len == 0)
    return;
  json_key (cw->w, key);
  json_begin_object (cw->w);
  for (size_t i = 0; i < list->len; i++)
    json_kv_string (cw->w, list->items[i].key, list->items[i].value);
  json_end_object (cw->w);
}

void
write_id_mappings (struct config_writer *cw, const char *key,
                   const struct oci_id_mapping *m, size_t n)
{
  if (n == 0)
    return;
  json_key (cw->w, key);
  json_begin_array (cw->w);
  for (size_t i = 0; i < n; i++)
    {
      json_begin_object (cw->w);
      json_kv_uint (cw->w, "containerID", m[i].container_id);
      json_kv_uint (cw->w, "hostID", m[i].host_id);
      json_kv_uint (cw->w, "size", m[i].size);
      json_end_object (cw->w);
    }
  json_end_array (cw->w);
}

static void
write_user (struct config_writer *cw, const struct oci_user *u)
{
  struct json_writer *w = cw->w;

  json_key (w, "user");
  json_begin_object (w);
  json_kv_uint (w, "uid", u->uid);
  json_kv_uint (w, "gid", u->gid);
  if (u->has_umask)
    json_kv_uint (w, "umask", u->umask);
  if (u->n_additional_gids)
    {
      json_key (w, "additionalGids");
      json_begin_array (w);
      for (size_t i = 0; i < u->n_additional_gids; i++)
        json_uint (w, u->additional_gids[i]);
      json_end_array (w);
    }
  json_end_object (w);
}

static void
write_capabilities (struct config_writer *cw, const struct oci_capabilities *caps)
{
  if (caps == NULL)
    return;
  json_key (cw->w, "capabilities");
  json_begin_object (cw->w);
  write_str_list (cw, "bounding", &caps->bounding);
  write_str_list (cw, "effective", &caps->effective);
  write_str_list (cw, "inheritable", &caps->inheritable);
  write_str_list (cw, "permitted", &caps->permitted);
  write_str_list (cw, "ambient", &caps->ambient);
  json_end_object (cw->w);
}

static void
write_rlimits (struct config_writer *cw, const struct oci_process *p)
{
  if (p->n_rlimits == 0)
    return;
  json_key (cw->w, "rlimits");
  json_begin_array (cw->w);
  for (size_t i = 0; i < p->n_rlimits; i++)
    {
      json_begin_object (cw->w);
      write_required_string (cw, "type", p->rlimits[i].type);
      json_kv_uint (cw->w, "hard", p->rlimits[i].hard);
      json_kv_uint (cw->w, "soft", p->rlimits[i].soft);
      json_end_object (cw->w);
    }
  json_end_array (cw->w);
}

static void
write_scheduler (struct config_writer *cw, const struct oci_scheduler *s)
{
  struct json_writer *w = cw->w;

  if (s == NULL)
    return;
  json_key (w, "scheduler");
  json_begin_object (w);
  write_required_string (cw, "policy", s->policy);
  if (s->nice)
    json_kv_int (w, "nice", s->nice);
  if (s->priority)
    json_kv_int (w, "priority", s->priority);
  write_str_list (cw, "flags", &s->flags);
  if (s->runtime)
    json_kv_uint (w, "runtime", s->runtime);
  if (s->deadline)
    json_kv_uint (w, "deadline", s->deadline);
  if (s->period)
    json_kv_uint (w, "period", s->period);
  json_end_object (w);
}

/* The members after capabilities, in the spec's order. */
static void
write_process_tail (struct config_writer *cw, const struct oci_process *p)
{
  struct json_writer *w = cw->w;

  write_rlimits (cw, p);
  if (p->no_new_privileges)
    json_kv_bool (w, "noNewPrivileges", true);
  write_string (cw, "apparmorProfile", p->apparmor_profile);
  if (p->has_oom_score_adj)
    json_kv_int (w, "oomScoreAdj", p->oom_score_adj);
  write_scheduler (cw, p->scheduler);
  write_string (cw, "selinuxLabel", p->selinux_label);
  if (p->io_priority)
    {
      json_key (w, "ioPriority");
      json_begin_object (w);
      write_required_string (cw, "class", p->io_priority->klass);
      json_kv_int (w, "priority", p->io_priority->priority);
      json_end_object (w);
    }
  if (p->exec_cpu_affinity)
    {
      json_key (w, "execCPUAffinity");
      json_begin_object (w);
      write_string (cw, "initial", p->exec_cpu_affinity->initial);
      write_string (cw, "final", p->exec_cpu_affinity->final);
      json_end_object (w);
    }
}

void
write_process (struct config_writer *cw, const struct oci_process *p)
{
  struct json_writer *w = cw->w;

  json_begin_object (w);
  if (p->terminal)
    json_kv_bool (w, "terminal", true);
  if (p->has_console_size)
    {
      json_key (w, "consoleSize");
      json_begin_object (w);
      json_kv_uint (w, "height", p->console_height);
      json_kv_uint (w, "width", p->console_width);
      json_end_object (w);
    }
  write_user (cw, &p->user);
  if (p->args.len == 0)
    write_missing (cw, "process.args");
  write_str_list (cw, "args", &p->args);
  write_str_list (cw, "env", &p->env);
  write_required_string (cw, "cwd", p->cwd);
  write_capabilities (cw, p->capabilities);
  write_process_tail (cw, p);
  json_end_object (w);
}

static void
write_mounts (struct config_writer *cw, const struct oci_config *c)
{
  if (c->n_mounts == 0)
    return;
  json_key (cw->w, "mounts");
  json_begin_array (cw->w);
  for (size_t i = 0; i < c->n_mounts; i++)
    {
      const struct oci_mount *m = &c->mounts[i];
      json_begin_object (cw->w);
      write_required_string (cw, "destination", m->destination);
      write_string (cw, "type", m->type);
      write_string (cw, "source", m->source);
      write_str_list (cw, "options", &m->options);
      write_id_mappings (cw, "uidMappings", m->uid_mappings, m->n_uid_mappings);
      write_id_mappings (cw, "gidMappings", m->gid_mappings, m->n_gid_mappings);
      json_end_object (cw->w);
    }
  json_end_array (cw->w);
}

static void
write_hook_list (struct config_writer *cw, const char *key,
                 const struct oci_hook_list *list)
{
  if (list->len == 0)
    return;
  json_key (cw->w, key);
  json_begin_array (cw->w);
  for (size_t i = 0; i < list->len; i++)
    {
      const struct oci_hook *h = &list->items[i];
      json_begin_object (cw->w);
      write_required_string (cw, "path", h->path);
      write_str_list (cw, "args", &h->args);
      write_str_list (cw, "env", &h->env);
      if (h->has_timeout)
        json_kv_int (cw->w, "timeout", h->timeout);
      json_end_object (cw->w);
    }
  json_end_array (cw->w);
}

static void
write_hooks (struct config_writer *cw, const struct oci_hooks *h)
{
  /* In the order of oci_hook_names. */
  const struct oci_hook_list *lists[] = {
    &h->prestart,        &h->create_runtime, &h->create_container,
    &h->start_container, &h->poststart,      &h->poststop,
  };
  size_t total = 0;

  for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
    total += lists[i]->len;
  if (total == 0)
    return;
  json_key (cw->w, "hooks");
  json_begin_object (cw->w);
  for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
    write_hook_list (cw, oci_hook_names[i], lists[i]);
  json_end_object (cw->w);
}

char *
oci_config_to_json_indent (const struct oci_config *c, const char *indent,
                           agentrt_error_t *err)
{
  struct config_writer cw = { json_writer_new_indent (indent), NULL };
  char *json;

  json_begin_object (cw.w);
  write_required_string (&cw, "ociVersion", c->oci_version);
  if (c->process)
    {
      json_key (cw.w, "process");
      write_process (&cw, c->process);
    }
  json_key (cw.w, "root");
  json_begin_object (cw.w);
  write_required_string (&cw, "path", c->root.path);
  if (c->root.readonly)
    json_kv_bool (cw.w, "readonly", true);
  json_end_object (cw.w);
  write_string (&cw, "hostname", c->hostname);
  write_string (&cw, "domainname", c->domainname);
  write_mounts (&cw, c);
  write_hooks (&cw, &c->hooks);
  write_kv_list (&cw, "annotations", &c->annotations);
  if (c->linux_cfg)
    write_linux (&cw, c->linux_cfg);
  json_end_object (cw.w);
  json = json_writer_finish (cw.w, NULL);
  if (cw.missing)
    {
      free (json);
      agentrt_error (err, 0, "cannot write config.json: `%s` is missing or invalid",
                     cw.missing);
      return NULL;
    }
  return json;
}

char *
oci_config_to_json (const struct oci_config *c, bool pretty, agentrt_error_t *err)
{
  return oci_config_to_json_indent (c, pretty ? "  " : NULL, err);
}
