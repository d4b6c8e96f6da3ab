/* `linux.seccomp` of config.json (also the format of seccomp-profiles/):
 * default action, architectures, flags, the notify listener and the syscall
 * rules with their argument comparisons. */
#include <config.h>

#include <stdlib.h>

#include "common/xalloc.h"
#include "config_parse.h"

/* errno values travel in the 16 bits of SECCOMP_RET_DATA. */
#define ERRNO_RET_MAX 65535u

static int
member_action (const struct json_ctx *c, const struct json_node *obj,
               const struct json_path *p, const char *key,
               enum oci_seccomp_action *out)
{
  char q[JSON_QUOTE_SIZE];
  char *name = NULL;
  int action;

  if (json_member_string (c, obj, p, key, JSON_REQUIRED, &name) < 0)
    return -1;
  action = oci_seccomp_action_from_name (name);
  if (action < 0)
    json_fail (c, JSON_PATH_KEY (p, key), "unknown seccomp action %s",
               json_quote (name, q));
  free (name);
  *out = (enum oci_seccomp_action) action;
  return action < 0 ? -1 : 0;
}

/* The errno for SCMP_ACT_ERRNO / SCMP_ACT_TRACE; the spec wants an error
 * when it comes with an action that cannot return one. */
static int
member_errno_ret (const struct json_ctx *c, const struct json_node *obj,
                  const struct json_path *p, const char *key,
                  enum oci_seccomp_action action, uint32_t *out, bool *has)
{
  if (json_member_int (c, obj, p, key, JSON_OPTIONAL, JSON_U32, out, has) < 0)
    return -1;
  if (!*has)
    return 0;
  if (*out > ERRNO_RET_MAX)
    return json_fail (c, JSON_PATH_KEY (p, key), "out of range (0..%u)",
                      ERRNO_RET_MAX);
  if (action != OCI_SECCOMP_ACT_ERRNO && action != OCI_SECCOMP_ACT_TRACE)
    return json_fail (c, JSON_PATH_KEY (p, key), "not allowed with action %s",
                      oci_seccomp_action_name (action));
  return 0;
}

static int
parse_arg (const struct json_ctx *c, const struct json_node *obj,
           const struct json_path *p, void *item, void *data)
{
  struct oci_seccomp_arg *a = item;
  char q[JSON_QUOTE_SIZE];
  char *op = NULL;
  int opv;

  if (json_member_int (c, obj, p, "index", JSON_REQUIRED, JSON_U32, &a->index, NULL) < 0
      || json_member_int (c, obj, p, "value", JSON_REQUIRED, JSON_U64, &a->value, NULL) < 0
      || json_member_int (c, obj, p, "valueTwo", JSON_OPTIONAL, JSON_U64,
                          &a->value_two, NULL) < 0)
    return -1;
  if (a->index > 5)
    return json_fail (c, JSON_PATH_KEY (p, "index"), "out of range (0..5)");
  if (json_member_string (c, obj, p, "op", JSON_REQUIRED, &op) < 0)
    return -1;
  opv = oci_seccomp_op_from_name (op);
  if (opv < 0)
    json_fail (c, JSON_PATH_KEY (p, "op"), "unknown seccomp operator %s",
               json_quote (op, q));
  free (op);
  a->op = (enum oci_seccomp_op) opv;
  return opv < 0 ? -1 : 0;
}

static int
parse_syscall (const struct json_ctx *c, const struct json_node *obj,
               const struct json_path *p, void *item, void *data)
{
  struct oci_seccomp_rule *r = item;
  const struct json_node *names;

  if (json_member_of_type (c, obj, p, "names", JSON_REQUIRED, JSON_ARRAY, &names) < 0
      || parse_str_list (c, names, JSON_PATH_KEY (p, "names"), &r->names) < 0)
    return -1;
  if (r->names.len == 0)
    return json_fail (c, JSON_PATH_KEY (p, "names"), "must not be empty");
  if (member_action (c, obj, p, "action", &r->action) < 0
      || member_errno_ret (c, obj, p, "errnoRet", r->action, &r->errno_ret,
                           &r->has_errno_ret) < 0
      || member_object_array (c, obj, p, "args", sizeof (struct oci_seccomp_arg),
                              (void **) &r->args, &r->n_args, parse_arg, NULL) < 0)
    return -1;
  return 0;
}

int
parse_seccomp (const struct json_ctx *c, const struct json_node *obj,
               const struct json_path *p, struct oci_seccomp **out)
{
  struct oci_seccomp *s = *out = xzalloc (sizeof (*s));

  if (member_action (c, obj, p, "defaultAction", &s->default_action) < 0
      || member_errno_ret (c, obj, p, "defaultErrnoRet", s->default_action,
                           &s->default_errno_ret, &s->has_default_errno_ret) < 0
      || member_names_in (c, obj, p, "architectures", oci_seccomp_arch_names,
                          "seccomp architecture", &s->architectures) < 0
      || member_names_in (c, obj, p, "flags", oci_seccomp_flag_names, "seccomp flag",
                          &s->flags) < 0
      || json_member_string (c, obj, p, "listenerPath", JSON_OPTIONAL,
                             &s->listener_path) < 0
      || json_member_string (c, obj, p, "listenerMetadata", JSON_OPTIONAL,
                             &s->listener_metadata) < 0
      || member_object_array (c, obj, p, "syscalls", sizeof (struct oci_seccomp_rule),
                              (void **) &s->syscalls, &s->n_syscalls,
                              parse_syscall, NULL) < 0)
    return -1;
  if (s->listener_metadata && !s->listener_path)
    return json_fail (c, JSON_PATH_KEY (p, "listenerMetadata"),
                      "requires listenerPath");
  return 0;
}

struct oci_seccomp *
oci_seccomp_parse (const char *json, size_t len, const char *origin,
                   agentrt_error_t *err)
{
  const struct json_ctx c = { origin, err };
  cleanup_json_doc struct json_doc *doc = parse_document (json, len, origin, err);
  struct oci_seccomp *seccomp = NULL;

  if (doc == NULL)
    return NULL;
  if (parse_seccomp (&c, json_doc_root (doc), NULL, &seccomp) < 0)
    {
      oci_seccomp_free (seccomp);
      return NULL;
    }
  return seccomp;
}
