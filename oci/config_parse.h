/* Internal to config_parse*.c: the section parsers of config.json (each in
 * the file named after its section) and the helpers they share for lists,
 * maps, absolute paths, enumerated names and arrays of objects.  Every
 * helper reports errors with the JSON path through json_fail(). */
#ifndef AGENTRT_OCI_CONFIG_PARSE_H
#define AGENTRT_OCI_CONFIG_PARSE_H

#include "config.h"
#include "json_tree.h"

/* The names the parser accepts (NULL-terminated; the enum-indexed ones in
 * enum order), shared with features.c. */
extern const char *const oci_namespace_names[];
extern const char *const oci_hook_names[];
extern const char *const oci_seccomp_action_names[];
extern const char *const oci_seccomp_op_names[];
extern const char *const oci_seccomp_arch_names[];
extern const char *const oci_seccomp_flag_names[];
extern const char *const oci_mempolicy_mode_names[];
extern const char *const oci_mempolicy_flag_names[];

/* Parses a whole document whose top level must be an object. */
struct json_doc *parse_document (const char *json, size_t len,
                                 const char *origin, agentrt_error_t *err);

/* An array of strings; `out` is NULL-terminated (see struct str_list). */
int parse_str_list (const struct json_ctx *c, const struct json_node *node,
                    const struct json_path *p, struct str_list *out);
int member_str_list (const struct json_ctx *c, const struct json_node *obj,
                     const struct json_path *p, const char *key,
                     struct str_list *out);
/* An object whose values are strings (annotations, sysctl, unified). */
int member_kv_list (const struct json_ctx *c, const struct json_node *obj,
                    const struct json_path *p, const char *key,
                    struct kv_list *out);
/* A string that must be an absolute path. */
int member_abs_path (const struct json_ctx *c, const struct json_node *obj,
                     const struct json_path *p, const char *key,
                     enum json_presence presence, char **out);
/* A string that must be one of `names` (NULL-terminated); `what` names the
 * kind in the error: unknown scheduler policy "SCHED_FOO". */
int member_name_in (const struct json_ctx *c, const struct json_node *obj,
                    const struct json_path *p, const char *key,
                    enum json_presence presence, const char *const *names,
                    const char *what, char **out);
/* Every string of an array member must be one of `names`. */
int member_names_in (const struct json_ctx *c, const struct json_node *obj,
                     const struct json_path *p, const char *key,
                     const char *const *names, const char *what,
                     struct str_list *out);

/* An array of objects: allocates *items (zeroed, *n set first so a partial
 * result can be freed) and calls `fn` on each element. */
typedef int (*parse_item_fn) (const struct json_ctx *c,
                              const struct json_node *obj,
                              const struct json_path *p, void *item,
                              void *data);
int member_object_array (const struct json_ctx *c, const struct json_node *obj,
                         const struct json_path *p, const char *key,
                         size_t item_size, void **items, size_t *n,
                         parse_item_fn fn, void *data);

/* For optional object members: sets `m` to the member `key` of `obj` and,
 * when it is present, evaluates `call` (a parser given `m`).  True when the
 * member has the wrong type or `call` fails. */
#define MEMBER_OBJECT_FAILS(c, obj, p, key, m, call)                          \
  (json_member_of_type (c, obj, p, key, JSON_OPTIONAL, JSON_OBJECT, &(m)) < 0 \
   || ((m) && (call) < 0))

int member_id_mappings (const struct json_ctx *c, const struct json_node *obj,
                        const struct json_path *p, const char *key,
                        struct oci_id_mapping **out, size_t *n);

/* Sections, each given its object (already type-checked) and its path. */
int parse_process (const struct json_ctx *c, const struct json_node *obj,
                   const struct json_path *p, struct oci_process **out);
int parse_mounts (const struct json_ctx *c, const struct json_node *root,
                  struct oci_config *config);
int parse_hooks (const struct json_ctx *c, const struct json_node *obj,
                 const struct json_path *p, struct oci_hooks *out);
int parse_linux (const struct json_ctx *c, const struct json_node *obj,
                 const struct json_path *p, struct oci_linux **out);
int parse_resources (const struct json_ctx *c, const struct json_node *obj,
                     const struct json_path *p, struct oci_resources **out);
int parse_seccomp (const struct json_ctx *c, const struct json_node *obj,
                   const struct json_path *p, struct oci_seccomp **out);

/* Freeing the parts that more than one file builds. */
void oci_linux_free (struct oci_linux *linux_cfg);
void oci_hooks_free (struct oci_hooks *hooks);
void oci_mount_free (struct oci_mount *mount);

#endif
