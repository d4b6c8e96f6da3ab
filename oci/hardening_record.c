/* The hardening record stored with a container (see hardening_record.h). */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "hardening_record.h"
#include "json_tree.h"
#include "json_writer.h"
#include "policy_file.h"

static const char b64[]
    = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static char *
base64_encode (const unsigned char *in, size_t len)
{
  char *out = xmalloc ((len + 2) / 3 * 4 + 1), *o = out;

  for (size_t i = 0; i < len; i += 3)
    {
      unsigned v = (unsigned) in[i] << 16;
      if (i + 1 < len)
        v |= (unsigned) in[i + 1] << 8;
      if (i + 2 < len)
        v |= in[i + 2];
      *o++ = b64[(v >> 18) & 63];
      *o++ = b64[(v >> 12) & 63];
      *o++ = i + 1 < len ? b64[(v >> 6) & 63] : '=';
      *o++ = i + 2 < len ? b64[v & 63] : '=';
    }
  *o = '\0';
  return out;
}

/* Decodes strict base64 (length a multiple of 4, '=' only at the end);
 * NULL when malformed. */
static unsigned char *
base64_decode (const char *in, size_t len, size_t *out_len)
{
  unsigned char *out;
  size_t n = 0;

  if (len % 4 != 0)
    return NULL;
  out = xmalloc (len / 4 * 3 + 1);
  for (size_t i = 0; i < len; i += 4)
    {
      unsigned v = 0;
      int pad = 0;
      for (int k = 0; k < 4; k++)
        {
          const char *p = in[i + k] ? strchr (b64, in[i + k]) : NULL;
          if (in[i + k] == '=' && i + 4 == len && k >= 2)
            pad++;
          else if (p == NULL || pad)
            {
              free (out);
              return NULL;
            }
          v = v << 6 | (p ? (unsigned) (p - b64) : 0);
        }
      out[n++] = (unsigned char) (v >> 16);
      if (pad < 2)
        out[n++] = (unsigned char) (v >> 8);
      if (pad < 1)
        out[n++] = (unsigned char) v;
    }
  *out_len = n;
  return out;
}

char *
hardening_record_to_json (const struct agent_policy *policy,
                          const struct harden_directives *directives,
                          const void *program, size_t program_len,
                          unsigned int program_flags)
{
  struct json_writer *w = json_writer_new (false);

  json_begin_object (w);
  json_kv_uint (w, "version", 1);
  json_key (w, "policy");
  policy_file_write_json (policy, w);
  json_key (w, "directives");
  harden_directives_write_json (directives, w);
  json_key (w, "agentSeccomp");
  if (program)
    {
      cleanup_free char *text = base64_encode (program, program_len);
      json_begin_object (w);
      json_kv_uint (w, "flags", program_flags);
      json_kv_string (w, "program", text);
      json_end_object (w);
    }
  else
    json_null (w);
  json_end_object (w);
  return json_writer_finish (w, NULL);
}

/* One of `names` (NULL-terminated): its index in *out. */
static int
read_enum (const struct json_ctx *c, const struct json_node *obj,
           const struct json_path *p, const char *key,
           const char *const *names, int *out)
{
  cleanup_free char *s = NULL;

  if (json_member_string (c, obj, p, key, JSON_REQUIRED, &s) < 0)
    return -1;
  for (int i = 0; names[i]; i++)
    if (strcmp (s, names[i]) == 0)
      {
        *out = i;
        return 0;
      }
  return json_fail (c, JSON_PATH_KEY (p, key), "unknown value");
}

static int
read_strings (const struct json_ctx *c, const struct json_node *obj,
              const struct json_path *p, const char *key,
              struct str_list *out)
{
  const struct json_node *arr;
  const struct json_path *ap = JSON_PATH_KEY (p, key);

  if (json_member_of_type (c, obj, p, key, JSON_REQUIRED, JSON_ARRAY, &arr) < 0)
    return -1;
  for (uint32_t i = 0; i < arr->len; i++)
    {
      cleanup_free char *s = NULL;
      if (json_read_string (c, &arr->u.items[i], JSON_PATH_INDEX (ap, i), &s)
          < 0)
        return -1;
      str_list_append (out, s);
    }
  return 0;
}

static int
parse_enums (const struct json_ctx *c, const struct json_node *o,
             const struct json_path *p, struct harden_directives *d)
{
  static const char *const rootfs[] = { "readonly", "ephemeral", "writable",
                                        NULL };
  static const char *const egress[] = { "proxy", "none", NULL };
  int r, e;

  if (read_enum (c, o, p, "rootfs", rootfs, &r) < 0
      || read_enum (c, o, p, "egress", egress, &e) < 0)
    return -1;
  d->rootfs = r == 0   ? HARDEN_ROOTFS_READONLY
              : r == 1 ? HARDEN_ROOTFS_EPHEMERAL
                       : HARDEN_ROOTFS_WRITABLE;
  d->egress = e == 0 ? HARDEN_EGRESS_PROXY : HARDEN_EGRESS_NONE;
  return 0;
}

/* A name that FROM_NAME knows: its value in *out. */
static int
read_named (const struct json_ctx *c, const struct json_node *obj,
            const struct json_path *p, const char *key,
            int (*from_name) (const char *), int *out)
{
  cleanup_free char *s = NULL;

  if (json_member_string (c, obj, p, key, JSON_REQUIRED, &s) < 0)
    return -1;
  *out = from_name (s);
  return *out < 0 ? json_fail (c, JSON_PATH_KEY (p, key), "unknown value") : 0;
}

/* "network": its facts; the plan is decided from them again and must be
 * the one recorded (a record of another agentrt's decision is refused). */
static int
parse_network (const struct json_ctx *c, const struct json_node *dir,
               const struct json_path *dp, struct harden_directives *d)
{
  const struct json_path *p = JSON_PATH_KEY (dp, "network");
  const struct json_node *o = json_member (dir, "network");
  struct net_inputs *in = &d->net_facts;
  cleanup_free char *agent = NULL, *outside = NULL, *maker = NULL, *rules = NULL;
  const char *recorded;
  struct net_plan plan;
  int bundle, uplink;

  if (o == NULL)
    return json_fail (c, p, "missing");
  if (json_expect (c, o, p, JSON_OBJECT) < 0
      || read_named (c, o, p, "bundle", net_bundle_ns_from_name, &bundle) < 0
      || read_named (c, o, p, "uplink", net_uplink_from_name, &uplink) < 0
      || json_member_bool (c, o, p, "sharedAgentNamespace", JSON_REQUIRED,
                           &in->shared_agent_ns, NULL) < 0
      || json_member_bool (c, o, p, "hooks", JSON_REQUIRED, &in->hooks, NULL) < 0
      || json_member_bool (c, o, p, "engine", JSON_OPTIONAL, &in->engine, NULL) < 0
      || json_member_bool (c, o, p, "egress", JSON_REQUIRED, &in->egress, NULL) < 0
      || json_member_bool (c, o, p, "userNamespace", JSON_REQUIRED, &in->userns,
                           NULL) < 0
      || json_member_bool (c, o, p, "runtimeUserNamespace", JSON_OPTIONAL,
                           &in->runtime_userns, NULL) < 0
      || json_member_bool (c, o, p, "localMonitor", JSON_REQUIRED,
                           &in->local_monitor, NULL) < 0
      || json_member_string (c, o, p, "agent", JSON_REQUIRED, &agent) < 0
      || json_member_string (c, o, p, "outside", JSON_REQUIRED, &outside) < 0
      || json_member_string (c, o, p, "maker", JSON_REQUIRED, &maker) < 0
      /* absent in the records of containers made before issue 14 */
      || json_member_bool (c, o, p, "transparent", JSON_OPTIONAL,
                           &in->transparent, NULL) < 0
      || json_member_string (c, o, p, "rules", JSON_OPTIONAL, &rules) < 0)
    return -1;
  in->hardened = true;
  in->bundle_ns = (enum net_bundle_ns) bundle;
  in->uplink = (enum net_uplink) uplink;
  plan = net_plan_decide (in);
  recorded = rules ? rules : "none";
  /* records made before the init installed its rules name the runtime */
  if (strcmp (recorded, "runtime") == 0)
    recorded = net_rules_name (NET_RULES_INIT);
  if (strcmp (agent, net_agent_name (plan.agent)) != 0
      || strcmp (outside, net_outside_name (plan.outside)) != 0
      || strcmp (maker, net_maker_name (plan.maker)) != 0
      || strcmp (recorded, net_rules_name (plan.rules)) != 0)
    return json_fail (c, p, "not the plan its facts make");
  return 0;
}

/* The credentials' stand-ins (absent in records made before issue 16). */
static int
read_credentials (const struct json_ctx *c, const struct json_node *o,
                  const struct json_path *p, struct harden_directives *d)
{
  const struct json_path *ap = JSON_PATH_KEY (p, "credentials");
  const struct json_node *arr;

  if (json_member_of_type (c, o, p, "credentials", JSON_OPTIONAL, JSON_ARRAY, &arr) < 0)
    return -1;
  if (arr == NULL || arr->len == 0)
    return 0;
  d->credentials = xzalloc (arr->len * sizeof (*d->credentials));
  for (uint32_t i = 0; i < arr->len; i++)
    {
      const struct json_path *ip = JSON_PATH_INDEX (ap, i);
      struct harden_credential *hc = &d->credentials[i];

      d->n_credentials++;
      if (json_expect (c, &arr->u.items[i], ip, JSON_OBJECT) < 0
          || json_member_string (c, &arr->u.items[i], ip, "name", JSON_REQUIRED, &hc->name) < 0
          || json_member_string (c, &arr->u.items[i], ip, "env", JSON_REQUIRED, &hc->env) < 0
          || json_member_string (c, &arr->u.items[i], ip, "standin", JSON_REQUIRED,
                                 &hc->standin) < 0)
        return -1;
      if (!credential_standin_valid (hc->standin))
        return json_fail (c, JSON_PATH_KEY (ip, "standin"), "not a stand-in");
    }
  return 0;
}

/* "userns" (optional: records of before it have none). */
static int
read_userns (const struct json_ctx *c, const struct json_node *o,
             const struct json_path *p, struct harden_directives *d)
{
  cleanup_free char *name = NULL;
  int mode;

  if (json_member_string (c, o, p, "userns", JSON_OPTIONAL, &name) < 0)
    return -1;
  if (name == NULL)
    return 0;
  mode = harden_userns_from_name (name);
  if (mode < 0)
    return json_fail (c, JSON_PATH_KEY (p, "userns"), "unknown value");
  d->userns = (enum harden_userns) mode;
  return 0;
}

static int
parse_directives (const struct json_ctx *c, const struct json_node *o,
                  struct harden_directives *d)
{
  const struct json_path *p = JSON_PATH_KEY (NULL, "directives");

  if (json_expect (c, o, p, JSON_OBJECT) < 0 || parse_enums (c, o, p, d) < 0
      || parse_network (c, o, p, d) < 0
      || json_member_int (c, o, p, "ephemeralSize", JSON_OPTIONAL, JSON_U64,
                          &d->ephemeral_size, NULL) < 0
      || json_member_string (c, o, p, "seccompProfile", JSON_OPTIONAL,
                             &d->seccomp_profile) < 0
      || json_member_int (c, o, p, "lifetime", JSON_REQUIRED, JSON_U64,
                          &d->lifetime, NULL) < 0
      || json_member_string (c, o, p, "egressAllow", JSON_REQUIRED,
                             &d->egress_allow) < 0
      || json_member_bool (c, o, p, "egressAllowBroad", JSON_REQUIRED,
                           &d->egress_allow_broad, NULL) < 0
      /* absent in the records of containers made before issue 18 */
      || policy_ask_parse (c, o, p, "egressAsk", &d->egress_ask) < 0
      || read_strings (c, o, p, "envKeep", &d->env_keep) < 0
      || read_credentials (c, o, p, d) < 0
      || json_member_int (c, o, p, "sidecarUid", JSON_REQUIRED, JSON_U32,
                          &d->sidecar_uid, NULL) < 0
      || json_member_int (c, o, p, "sidecarGid", JSON_REQUIRED, JSON_U32,
                          &d->sidecar_gid, NULL) < 0
      || json_member_int (c, o, p, "sidecarBusyPollMicroseconds", JSON_REQUIRED,
                          JSON_U32, &d->sidecar_busy_poll_us, NULL) < 0
      || json_member_string (c, o, p, "auditDir", JSON_REQUIRED,
                             &d->audit_dir) < 0
      || read_strings (c, o, p, "requiredMasks", &d->required_masks) < 0
      || read_strings (c, o, p, "protectedPaths", &d->protected_paths) < 0
      || read_strings (c, o, p, "protectedDirs", &d->protected_dirs) < 0
      || read_userns (c, o, p, d) < 0)
    return -1;
  return 0;
}

static int
parse_program (const struct json_ctx *c, const struct json_node *root,
               struct hardening_record *out)
{
  const struct json_path *p = JSON_PATH_KEY (NULL, "agentSeccomp");
  const struct json_node *o;
  cleanup_free char *text = NULL;

  if (json_member_of_type (c, root, NULL, "agentSeccomp", JSON_OPTIONAL,
                           JSON_OBJECT, &o) < 0)
    return -1;
  if (o == NULL)
    return 0;
  if (json_member_int (c, o, p, "flags", JSON_REQUIRED, JSON_U32,
                       &out->program_flags, NULL) < 0
      || json_member_string (c, o, p, "program", JSON_REQUIRED, &text) < 0)
    return -1;
  out->program = base64_decode (text, strlen (text), &out->program_len);
  if (out->program == NULL || out->program_len == 0
      || out->program_len % 8 != 0)
    return json_fail (c, JSON_PATH_KEY (p, "program"),
                      "not a base64 filter program");
  return 0;
}

int
hardening_record_parse (const char *json, size_t len,
                        struct hardening_record *out, agentrt_error_t *err)
{
  cleanup_json_doc struct json_doc *doc = NULL;
  struct json_ctx c = { HARDENING_RECORD_FILE, err };
  const struct json_node *root, *policy, *directives;
  uint32_t version = 0;

  memset (out, 0, sizeof (*out));
  doc = json_doc_parse (json, len, HARDENING_RECORD_FILE, err);
  if (doc == NULL)
    return -1;
  root = json_doc_root (doc);
  if (json_expect (&c, root, NULL, JSON_OBJECT) < 0
      || json_member_int (&c, root, NULL, "version", JSON_REQUIRED, JSON_U32,
                          &version, NULL) < 0)
    return -1;
  if (version != 1)
    return json_fail (&c, JSON_PATH_KEY (NULL, "version"), "unsupported");
  policy = json_member (root, "policy");
  directives = json_member (root, "directives");
  if (policy == NULL || directives == NULL)
    return json_fail (&c, NULL, "policy and directives are required");
  if (policy_file_parse_node (&c, policy, &out->policy) < 0)
    return -1;
  if (parse_directives (&c, directives, &out->directives) < 0
      || parse_program (&c, root, out) < 0)
    {
      hardening_record_release (out);
      return -1;
    }
  return 0;
}

void
hardening_record_release (struct hardening_record *r)
{
  policy_release (&r->policy);
  harden_directives_release (&r->directives);
  free (r->program);
  memset (r, 0, sizeof (*r));
}
