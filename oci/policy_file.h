/* The admin policy file (JSON, default /etc/agentrt/policy.json): parsed
 * into struct agent_policy on top of the built-in defaults.  Every field is
 * optional; a field that is present must be valid: a malformed file, an
 * unknown member or a bad value is an error naming the field
 * ("policy.json: limits.memory: ..."), never a fallback to weaker
 * defaults.  docs/policy.md describes the format. */
#ifndef AGENTRT_OCI_POLICY_FILE_H
#define AGENTRT_OCI_POLICY_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "../common/error.h"
#include "../runtime/policy/policy.h"
#include "json_tree.h"
#include "json_writer.h"

#define POLICY_FILE_DEFAULT_PATH "/etc/agentrt/policy.json"
#define POLICY_FILE_MAX_SIZE (1024u * 1024)

/* Parses `len` bytes of policy JSON into *policy (which is initialised here
 * with the defaults first; released on failure).  `origin` names the
 * document in error messages. */
int policy_file_parse (const char *json, size_t len, const char *origin,
                       struct agent_policy *policy, agentrt_error_t *err);

/* Parses the policy object `root` of a JSON tree (a document of its own,
 * or a member of another, as in the stored hardening record). */
int policy_file_parse_node (const struct json_ctx *c,
                            const struct json_node *root,
                            struct agent_policy *policy);

/* Writes *policy as a policy file's object (a value: after json_key, or at
 * the top), every field given, so that policy_file_parse reads back an
 * equal policy.  The built-in credential and socket paths are not
 * repeated: only what extraPaths added (oci/policy_write.c). */
void policy_file_write_json (const struct agent_policy *policy,
                             struct json_writer *w);

/* The policy file's credentials section beyond extraPaths: inject and
 * trustStore (oci/policy_credentials.c): read from the section's object,
 * and written as members of the section being written. */
int policy_file_parse_credentials (const struct json_ctx *c,
                                   const struct json_node *section,
                                   struct agent_policy *policy);
void policy_file_write_credentials (const struct agent_policy *policy,
                                    struct json_writer *w);

/* Every member of obj (at p) is one of `known` (NULL-terminated), else an
 * error naming it (and the closest known name). */
int policy_file_check_members (const struct json_ctx *c, const struct json_node *obj,
                               const struct json_path *p, const char *const *known);

/* The egress.ask object (oci/policy_ask.c) of obj's member `key`: null
 * turns asking off, absent leaves *ask as it is. */
int policy_ask_parse (const struct json_ctx *c, const struct json_node *obj,
                      const struct json_path *up, const char *key,
                      struct egress_ask_policy *ask);

/* Reads and parses a policy file (a regular file of at most
 * POLICY_FILE_MAX_SIZE bytes). */
int policy_file_load (const char *path, struct agent_policy *policy,
                      agentrt_error_t *err);

/* The `--policy` rule: `path` when given (it must exist), else
 * POLICY_FILE_DEFAULT_PATH when it exists, else the built-in defaults.
 * Only a missing default file means defaults: any other failure to read
 * it is an error. */
int policy_file_load_default (const char *path, struct agent_policy *policy,
                              agentrt_error_t *err);

/* A second file read over *policy (the admin's, already loaded): each
 * field it names replaces or extends that value as it would in one file
 * (lists of paths, patterns and devices and egress.allow are appended
 * to).  A missing file changes nothing (*found false).  What such a file
 * may change is runtime/policy/policy_layer.h's to judge. */
int policy_file_load_over (const char *path, struct agent_policy *policy,
                           bool *found, agentrt_error_t *err);

#endif
