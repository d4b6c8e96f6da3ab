/* The `process` section of config.json (also the document of `exec
 * --process`): user, args, env, cwd, capabilities, rlimits, scheduler, I/O
 * priority, CPU affinity and the LSM labels. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "config_parse.h"

static int
parse_user (const struct json_ctx *c, const struct json_node *obj,
            const struct json_path *p, struct oci_user *u)
{
  const struct json_path *gp = JSON_PATH_KEY (p, "additionalGids");
  const struct json_node *gids;

  if (json_member_int (c, obj, p, "uid", JSON_REQUIRED, JSON_U32, &u->uid, NULL) < 0
      || json_member_int (c, obj, p, "gid", JSON_REQUIRED, JSON_U32, &u->gid, NULL) < 0
      || json_member_int (c, obj, p, "umask", JSON_OPTIONAL, JSON_U32, &u->umask,
                          &u->has_umask) < 0
      || json_member_of_type (c, obj, p, "additionalGids", JSON_OPTIONAL,
                              JSON_ARRAY, &gids) < 0)
    return -1;
  if (gids == NULL || gids->len == 0)
    return 0;
  u->additional_gids = xzalloc (gids->len * sizeof (uint32_t));
  u->n_additional_gids = gids->len;
  for (uint32_t i = 0; i < gids->len; i++)
    if (json_read_int (c, &gids->u.items[i], JSON_PATH_INDEX (gp, i), JSON_U32,
                       &u->additional_gids[i]) < 0)
      return -1;
  return 0;
}

static int
parse_capabilities (const struct json_ctx *c, const struct json_node *obj,
                    const struct json_path *p, struct oci_capabilities **out)
{
  struct oci_capabilities *caps = *out = xzalloc (sizeof (*caps));
  if (member_str_list (c, obj, p, "bounding", &caps->bounding) < 0
      || member_str_list (c, obj, p, "effective", &caps->effective) < 0
      || member_str_list (c, obj, p, "inheritable", &caps->inheritable) < 0
      || member_str_list (c, obj, p, "permitted", &caps->permitted) < 0
      || member_str_list (c, obj, p, "ambient", &caps->ambient) < 0)
    return -1;
  return 0;
}

/* `data` is the bitmask of RLIMIT_* values seen so far. */
static int
parse_rlimit (const struct json_ctx *c, const struct json_node *obj,
              const struct json_path *p, void *item, void *data)
{
  struct oci_rlimit *r = item;
  uint32_t *seen = data;
  char q[JSON_QUOTE_SIZE];

  if (json_member_string (c, obj, p, "type", JSON_REQUIRED, &r->type) < 0)
    return -1;
  r->resource = oci_rlimit_from_name (r->type);
  if (r->resource < 0)
    return json_fail (c, JSON_PATH_KEY (p, "type"), "unknown rlimit %s",
                      json_quote (r->type, q));
  if (*seen & (1u << r->resource))
    return json_fail (c, JSON_PATH_KEY (p, "type"), "duplicate rlimit %s",
                      json_quote (r->type, q));
  *seen |= 1u << r->resource;
  if (json_member_int (c, obj, p, "soft", JSON_REQUIRED, JSON_U64, &r->soft, NULL) < 0
      || json_member_int (c, obj, p, "hard", JSON_REQUIRED, JSON_U64, &r->hard, NULL) < 0)
    return -1;
  return 0;
}

static int
parse_scheduler (const struct json_ctx *c, const struct json_node *obj,
                 const struct json_path *p, struct oci_scheduler **out)
{
  static const char *const policies[]
      = { "SCHED_OTHER", "SCHED_FIFO", "SCHED_RR",       "SCHED_BATCH",
          "SCHED_ISO",   "SCHED_IDLE", "SCHED_DEADLINE", NULL };
  static const char *const flags[]
      = { "SCHED_FLAG_RESET_ON_FORK",  "SCHED_FLAG_RECLAIM",
          "SCHED_FLAG_DL_OVERRUN",     "SCHED_FLAG_KEEP_POLICY",
          "SCHED_FLAG_KEEP_PARAMS",    "SCHED_FLAG_UTIL_CLAMP_MIN",
          "SCHED_FLAG_UTIL_CLAMP_MAX", NULL };
  struct oci_scheduler *s = *out = xzalloc (sizeof (*s));

  if (member_name_in (c, obj, p, "policy", JSON_REQUIRED, policies,
                      "scheduler policy", &s->policy) < 0
      || json_member_int (c, obj, p, "nice", JSON_OPTIONAL, JSON_I32, &s->nice, NULL) < 0
      || json_member_int (c, obj, p, "priority", JSON_OPTIONAL, JSON_I32,
                          &s->priority, NULL) < 0
      || member_names_in (c, obj, p, "flags", flags, "scheduler flag", &s->flags) < 0
      || json_member_int (c, obj, p, "runtime", JSON_OPTIONAL, JSON_U64,
                          &s->runtime, NULL) < 0
      || json_member_int (c, obj, p, "deadline", JSON_OPTIONAL, JSON_U64,
                          &s->deadline, NULL) < 0
      || json_member_int (c, obj, p, "period", JSON_OPTIONAL, JSON_U64,
                          &s->period, NULL) < 0)
    return -1;
  if (s->nice < -20 || s->nice > 19)
    return json_fail (c, JSON_PATH_KEY (p, "nice"), "out of range (-20..19)");
  return 0;
}

static int
parse_io_priority (const struct json_ctx *c, const struct json_node *obj,
                   const struct json_path *p, struct oci_io_priority **out)
{
  static const char *const classes[]
      = { "IOPRIO_CLASS_RT", "IOPRIO_CLASS_BE", "IOPRIO_CLASS_IDLE", NULL };
  struct oci_io_priority *io = *out = xzalloc (sizeof (*io));

  if (member_name_in (c, obj, p, "class", JSON_REQUIRED, classes,
                      "I/O priority class", &io->klass) < 0
      || json_member_int (c, obj, p, "priority", JSON_REQUIRED, JSON_I32,
                          &io->priority, NULL) < 0)
    return -1;
  if (io->priority < 0 || io->priority > 7)
    return json_fail (c, JSON_PATH_KEY (p, "priority"), "out of range (0..7)");
  return 0;
}

static int
parse_cpu_affinity (const struct json_ctx *c, const struct json_node *obj,
                    const struct json_path *p, struct oci_cpu_affinity **out)
{
  struct oci_cpu_affinity *a = *out = xzalloc (sizeof (*a));
  if (json_member_string (c, obj, p, "initial", JSON_OPTIONAL, &a->initial) < 0
      || json_member_string (c, obj, p, "final", JSON_OPTIONAL, &a->final) < 0)
    return -1;
  return 0;
}

/* Optional object members handed to their own parsers. */
static int
parse_process_objects (const struct json_ctx *c, const struct json_node *obj,
                       const struct json_path *p, struct oci_process *proc)
{
  const struct json_node *m;

  if (json_member_of_type (c, obj, p, "consoleSize", JSON_OPTIONAL, JSON_OBJECT, &m) < 0)
    return -1;
  if (m)
    {
      const struct json_path *mp = JSON_PATH_KEY (p, "consoleSize");
      proc->has_console_size = true;
      if (json_member_int (c, m, mp, "height", JSON_REQUIRED, JSON_U32,
                           &proc->console_height, NULL) < 0
          || json_member_int (c, m, mp, "width", JSON_REQUIRED, JSON_U32,
                              &proc->console_width, NULL) < 0)
        return -1;
    }
  if (json_member_of_type (c, obj, p, "user", JSON_REQUIRED, JSON_OBJECT, &m) < 0
      || parse_user (c, m, JSON_PATH_KEY (p, "user"), &proc->user) < 0)
    return -1;
#define SUB(key, call) MEMBER_OBJECT_FAILS (c, obj, p, key, m, call)
  if (SUB ("capabilities", parse_capabilities (c, m, JSON_PATH_KEY (p, "capabilities"),
                                               &proc->capabilities))
      || SUB ("scheduler", parse_scheduler (c, m, JSON_PATH_KEY (p, "scheduler"),
                                            &proc->scheduler))
      || SUB ("ioPriority", parse_io_priority (c, m, JSON_PATH_KEY (p, "ioPriority"),
                                               &proc->io_priority))
      || SUB ("execCPUAffinity",
              parse_cpu_affinity (c, m, JSON_PATH_KEY (p, "execCPUAffinity"),
                                  &proc->exec_cpu_affinity)))
    return -1;
#undef SUB
  return 0;
}

int
parse_process (const struct json_ctx *c, const struct json_node *obj,
               const struct json_path *p, struct oci_process **out)
{
  struct oci_process *proc = *out = xzalloc (sizeof (*proc));
  uint32_t rlimits_seen = 0;

  if (json_member_bool (c, obj, p, "terminal", JSON_OPTIONAL, &proc->terminal, NULL) < 0
      || parse_process_objects (c, obj, p, proc) < 0
      || member_str_list (c, obj, p, "args", &proc->args) < 0
      || member_str_list (c, obj, p, "env", &proc->env) < 0
      || member_abs_path (c, obj, p, "cwd", JSON_REQUIRED, &proc->cwd) < 0
      || member_object_array (c, obj, p, "rlimits", sizeof (struct oci_rlimit),
                              (void **) &proc->rlimits, &proc->n_rlimits,
                              parse_rlimit, &rlimits_seen) < 0
      || json_member_bool (c, obj, p, "noNewPrivileges", JSON_OPTIONAL,
                           &proc->no_new_privileges, NULL) < 0
      || json_member_string (c, obj, p, "apparmorProfile", JSON_OPTIONAL,
                             &proc->apparmor_profile) < 0
      || json_member_int (c, obj, p, "oomScoreAdj", JSON_OPTIONAL, JSON_I32,
                          &proc->oom_score_adj, &proc->has_oom_score_adj) < 0
      || json_member_string (c, obj, p, "selinuxLabel", JSON_OPTIONAL,
                             &proc->selinux_label) < 0)
    return -1;
  if (proc->args.items == NULL)
    return json_fail (c, JSON_PATH_KEY (p, "args"), "missing required field");
  if (proc->args.len == 0)
    return json_fail (c, JSON_PATH_KEY (p, "args"), "must not be empty");
  if (proc->oom_score_adj < -1000 || proc->oom_score_adj > 1000)
    return json_fail (c, JSON_PATH_KEY (p, "oomScoreAdj"),
                      "out of range (-1000..1000)");
  return 0;
}

struct oci_process *
oci_process_parse (const char *json, size_t len, const char *origin,
                   agentrt_error_t *err)
{
  const struct json_ctx c = { origin, err };
  cleanup_json_doc struct json_doc *doc = parse_document (json, len, origin, err);
  struct oci_process *proc = NULL;

  if (doc == NULL)
    return NULL;
  if (parse_process (&c, json_doc_root (doc), NULL, &proc) < 0)
    {
      oci_process_free (proc);
      return NULL;
    }
  return proc;
}
