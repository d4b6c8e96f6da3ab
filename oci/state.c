/* Container state documents: agentrt's own state.json record (written and
 * read back strictly: a state dir can be left corrupt by a crash), and the
 * runtime-spec state that `state`, `list --format json` and hooks see, in
 * the shape and order runc prints. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "config_parse.h"
#include "json_writer.h"
#include "state.h"

/* Bumped when the record changes incompatibly. */
#define STATE_FORMAT_VERSION 1
/* The runtime-spec version of the state document. */
#define STATE_OCI_VERSION "1.2.0"

const char *
container_status_name (enum container_status status)
{
  static const char *const names[] = {
    [STATUS_CREATING] = "creating", [STATUS_CREATED] = "created",
    [STATUS_RUNNING] = "running",   [STATUS_PAUSED] = "paused",
    [STATUS_STOPPED] = "stopped",
  };
  return (unsigned) status < sizeof names / sizeof names[0] ? names[status]
                                                             : "unknown";
}

static void
write_annotations (struct json_writer *w, const struct kv_list *a)
{
  if (a->len == 0)
    return;
  json_key (w, "annotations");
  json_begin_object (w);
  for (size_t i = 0; i < a->len; i++)
    json_kv_string (w, a->items[i].key, a->items[i].value);
  json_end_object (w);
}

static void
write_optional_string (struct json_writer *w, const char *key, const char *s)
{
  if (s)
    json_kv_string (w, key, s);
}

char *
container_state_to_json (const struct container_state *s, agentrt_error_t *err)
{
  struct json_writer *w;

  if (s->id == NULL || s->bundle == NULL || s->rootfs == NULL || s->created == NULL)
    {
      agentrt_error (err, 0, "cannot write state.json: id, bundle, rootfs "
                             "and created are required");
      return NULL;
    }
  w = json_writer_new (false);
  json_begin_object (w);
  json_kv_int (w, "version", STATE_FORMAT_VERSION);
  json_kv_string (w, "id", s->id);
  json_kv_string (w, "bundle", s->bundle);
  json_kv_string (w, "rootfs", s->rootfs);
  json_kv_int (w, "pid", s->pid);
  json_kv_uint (w, "pidStart", s->pid_start);
  json_kv_string (w, "created", s->created);
  json_kv_string (w, "owner", s->owner ? s->owner : "");
  write_optional_string (w, "cgroupPath", s->cgroup_path);
  write_optional_string (w, "systemdUnit", s->systemd_unit);
  json_kv_bool (w, "cgroupOwned", s->cgroup_owned);
  if (s->cgroup_pending)
    json_kv_bool (w, "cgroupPending", true);
  json_kv_int (w, "monitorPid", s->monitor_pid);
  json_kv_uint (w, "monitorStart", s->monitor_start);
  if (s->monitor_is_run)
    json_kv_bool (w, "monitorIsRun", true);
  json_kv_bool (w, "hostMountNs", s->host_mount_ns);
  json_kv_bool (w, "hardened", s->hardened);
  write_optional_string (w, "egress", s->egress);
  write_optional_string (w, "egressAllow", s->egress_allow);
  write_optional_string (w, "envKeep", s->env_keep);
  write_optional_string (w, "auditDir", s->audit_dir);
  write_optional_string (w, "seccompProfile", s->seccomp_profile);
  write_optional_string (w, "agentNetns", s->agent_netns);
  json_kv_uint (w, "lifetime", s->lifetime);
  write_annotations (w, &s->annotations);
  json_end_object (w);
  return json_writer_finish (w, NULL);
}

/* A pid member: a non-negative int32 (0: none). */
static int
member_pid (const struct json_ctx *c, const struct json_node *obj,
            const char *key, enum json_presence presence, pid_t *out)
{
  int32_t v = 0;

  if (json_member_int (c, obj, NULL, key, presence, JSON_I32, &v, NULL) < 0)
    return -1;
  if (v < 0)
    return json_fail (c, JSON_PATH_KEY (NULL, key), "must not be negative");
  *out = v;
  return 0;
}

static int
parse_state (const struct json_ctx *c, const struct json_node *obj,
             struct container_state *s)
{
  int32_t version;

  if (json_member_int (c, obj, NULL, "version", JSON_REQUIRED, JSON_I32,
                       &version, NULL) < 0)
    return -1;
  if (version != STATE_FORMAT_VERSION)
    return json_fail (c, JSON_PATH_KEY (NULL, "version"),
                      "unsupported state format %d (this agentrt writes %d)",
                      version, STATE_FORMAT_VERSION);
  if (json_member_string (c, obj, NULL, "id", JSON_REQUIRED, &s->id) < 0
      || member_abs_path (c, obj, NULL, "bundle", JSON_REQUIRED, &s->bundle) < 0
      || member_abs_path (c, obj, NULL, "rootfs", JSON_REQUIRED, &s->rootfs) < 0
      || member_pid (c, obj, "pid", JSON_REQUIRED, &s->pid) < 0
      || json_member_int (c, obj, NULL, "pidStart", JSON_OPTIONAL, JSON_U64,
                          &s->pid_start, NULL) < 0
      || json_member_string (c, obj, NULL, "created", JSON_REQUIRED, &s->created) < 0
      || json_member_string (c, obj, NULL, "owner", JSON_OPTIONAL, &s->owner) < 0
      || json_member_string (c, obj, NULL, "cgroupPath", JSON_OPTIONAL,
                             &s->cgroup_path) < 0
      || json_member_string (c, obj, NULL, "systemdUnit", JSON_OPTIONAL,
                             &s->systemd_unit) < 0
      || json_member_bool (c, obj, NULL, "cgroupOwned", JSON_OPTIONAL,
                           &s->cgroup_owned, NULL) < 0
      || json_member_bool (c, obj, NULL, "cgroupPending", JSON_OPTIONAL,
                           &s->cgroup_pending, NULL) < 0
      || member_pid (c, obj, "monitorPid", JSON_OPTIONAL, &s->monitor_pid) < 0
      || json_member_int (c, obj, NULL, "monitorStart", JSON_OPTIONAL, JSON_U64,
                          &s->monitor_start, NULL) < 0
      || json_member_bool (c, obj, NULL, "monitorIsRun", JSON_OPTIONAL,
                           &s->monitor_is_run, NULL) < 0
      || json_member_bool (c, obj, NULL, "hostMountNs", JSON_OPTIONAL,
                           &s->host_mount_ns, NULL) < 0
      || json_member_bool (c, obj, NULL, "hardened", JSON_OPTIONAL,
                           &s->hardened, NULL) < 0
      || json_member_string (c, obj, NULL, "egress", JSON_OPTIONAL,
                             &s->egress) < 0
      || json_member_string (c, obj, NULL, "egressAllow", JSON_OPTIONAL,
                             &s->egress_allow) < 0
      || json_member_string (c, obj, NULL, "envKeep", JSON_OPTIONAL,
                             &s->env_keep) < 0
      || json_member_string (c, obj, NULL, "auditDir", JSON_OPTIONAL,
                             &s->audit_dir) < 0
      || json_member_string (c, obj, NULL, "seccompProfile", JSON_OPTIONAL,
                             &s->seccomp_profile) < 0
      || json_member_string (c, obj, NULL, "agentNetns", JSON_OPTIONAL,
                             &s->agent_netns) < 0
      || json_member_int (c, obj, NULL, "lifetime", JSON_OPTIONAL, JSON_U64,
                          &s->lifetime, NULL) < 0
      || member_kv_list (c, obj, NULL, "annotations", &s->annotations) < 0)
    return -1;
  if (s->id[0] == '\0')
    return json_fail (c, JSON_PATH_KEY (NULL, "id"), "must not be empty");
  if (s->owner == NULL)
    s->owner = xstrdup ("");
  return 0;
}

struct container_state *
container_state_parse (const char *json, size_t len, agentrt_error_t *err)
{
  const struct json_ctx c = { "state.json", err };
  cleanup_json_doc struct json_doc *doc = parse_document (json, len, c.origin, err);
  struct container_state *s;

  if (doc == NULL)
    return NULL;
  s = xzalloc (sizeof (*s));
  if (parse_state (&c, json_doc_root (doc), s) < 0)
    {
      container_state_free (s);
      return NULL;
    }
  return s;
}

void
container_state_free (struct container_state *s)
{
  if (s == NULL)
    return;
  container_state_clear (s);
  free (s);
}

void
container_state_clear (struct container_state *s)
{
  free (s->id);
  free (s->bundle);
  free (s->rootfs);
  free (s->created);
  free (s->owner);
  free (s->cgroup_path);
  free (s->systemd_unit);
  free (s->egress);
  free (s->egress_allow);
  free (s->env_keep);
  free (s->audit_dir);
  free (s->seccomp_profile);
  free (s->agent_netns);
  kv_list_free (&s->annotations);
  memset (s, 0, sizeof *s);
}

/* One runtime-spec state document, field order as runc's containerState. */
static void
write_oci_state (struct json_writer *w, const struct container_state *s,
                 enum container_status status)
{
  json_begin_object (w);
  json_kv_string (w, "ociVersion", STATE_OCI_VERSION);
  json_kv_string (w, "id", s->id);
  json_kv_int (w, "pid", status == STATUS_STOPPED ? 0 : s->pid);
  json_kv_string (w, "status", container_status_name (status));
  json_kv_string (w, "bundle", s->bundle);
  json_kv_string (w, "rootfs", s->rootfs);
  json_kv_string (w, "created", s->created);
  write_annotations (w, &s->annotations);
  json_kv_string (w, "owner", s->owner ? s->owner : "");
  json_end_object (w);
}

char *
container_state_oci_json (const struct container_state *state,
                          enum container_status status, bool pretty,
                          agentrt_error_t *err)
{
  struct json_writer *w = json_writer_new (pretty);
  write_oci_state (w, state, status);
  return json_writer_finish (w, NULL);
}

char *
container_state_list_json (struct container_state *const *states,
                           const enum container_status *statuses, size_t n,
                           agentrt_error_t *err)
{
  struct json_writer *w = json_writer_new (false);

  if (n == 0)
    json_null (w); /* what runc prints for no containers */
  else
    {
      json_begin_array (w);
      for (size_t i = 0; i < n; i++)
        write_oci_state (w, states[i], statuses[i]);
      json_end_array (w);
    }
  return json_writer_finish (w, NULL);
}
