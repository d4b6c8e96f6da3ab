/* Credentials the agent can use but never read (credentials.inject): the
 * admin declares each one (where the runtime reads its value, the hosts it
 * belongs to, the header it goes in, the variable the agent finds its
 * stand-in in); a container gets the ones run.agentrt.credentials names.
 * The agent holds a random stand-in; the egress sidecar puts the real
 * value in, only on requests to the credential's own hosts.  This file
 * checks declarations and selections: pure code, no I/O (the runtime reads
 * the values: runtime/credential_read.c). */
#ifndef AGENTRT_POLICY_CREDENTIALS_H
#define AGENTRT_POLICY_CREDENTIALS_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "oci/config.h"

#define CREDENTIALS_MAX 16       /* declared in one policy */
#define CREDENTIAL_HOSTS_MAX 16  /* hosts of one credential */
#define CREDENTIAL_NAME_MAX 64
#define CREDENTIAL_VALUE_MAX 4096 /* bytes of a value, as read */
#define CREDENTIAL_DEFAULT_HEADER "Authorization"
/* A stand-in: the prefix, then 32 lower-case hex digits (128 random bits). */
#define CREDENTIAL_STANDIN_PREFIX "agentrt-standin-"
#define CREDENTIAL_STANDIN_LEN (sizeof (CREDENTIAL_STANDIN_PREFIX) - 1 + 32)

struct credential_decl
{
  char *name;   /* what run.agentrt.credentials selects: [A-Za-z_][A-Za-z0-9_]* */
  char *source; /* "file:/absolute/path" or "env:NAME" (the runtime's env) */
  char *env;    /* the agent's variable holding the stand-in (default: name) */
  char *header; /* the request header it goes in (default Authorization) */
  struct str_list hosts; /* host names, exact: no wildcard, no address */
};

void credential_decl_release (struct credential_decl *d);

/* Checks one declaration; the error names the field ("hosts[2]: ...");
 * the caller adds where the declaration is. */
int credential_decl_check (const struct credential_decl *d, agentrt_error_t *err);

/* Do a and b declare the same credential, field by field? */
bool credential_decl_equal (const struct credential_decl *a, const struct credential_decl *b);

/* Checks a policy's list: each declaration, at most CREDENTIALS_MAX, names
 * and variables unique.  Errors say "inject[i].field: ...". */
int credentials_check_list (const struct credential_decl *decls, size_t n,
                            agentrt_error_t *err);

/* A host of a credential: a lower-case DNS name of at least two labels
 * (a single label is a top-level domain or a local name), no wildcard, no
 * IP address.  NULL when good, else why not. */
const char *credential_host_problem (const char *host);

/* Is name a header field a credential may go in: a token, and not one
 * that frames or routes the message (Host, Content-Length,
 * Transfer-Encoding, Connection, Upgrade...)? */
bool credential_header_allowed (const char *name);

/* The annotation's value (a comma list of declared names) into the
 * indexes of the selected declarations (*sel, *nsel, in the annotation's
 * order, no repeats).  Errors name the annotation and the undeclared
 * name. */
int credentials_select (const char *spec, const struct credential_decl *decls,
                        size_t n, size_t **sel, size_t *nsel, agentrt_error_t *err);

/* Is s a stand-in as the runtime makes them?  (inject_wire.h's checks,
 * which the sidecar applies again.) */
bool credential_standin_valid (const char *s);

/* Is value fit to go in a header: 1..CREDENTIAL_VALUE_MAX bytes of
 * visible ASCII and spaces, not starting or ending with a space? */
bool credential_value_valid (const char *value, size_t len);

#endif
